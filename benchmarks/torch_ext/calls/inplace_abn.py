"""Op calls of inplace-abn 1.1.0 (module inplace_abn._backend), seeded inputs.

src/inplace_abn.cpp's PYBIND11_MODULE, called as inplace_abn/functions.py's InPlaceABN does: statistics(x) ->
(mean, var, count); reduce_statistics(all_mean, all_var, all_count) (WITH_CUDA only; what the distributed path
gives it: one row per worker); forward(x, mean, var, weight, bias, eps, activation, activation_param) (in place on
x: the call returns x); backward_reduce(y_act, dy_act, weight, bias, eps, activation, activation_param) -> (xhat,
dy, sum_dy, sum_xhat_dy); backward_train(xhat, dy, var, count, sum_dy, sum_xhat_dy, weight, eps) (in place on dy)
and backward_test(dy, var, weight, eps). Each activation (LeakyReLU, ELU, Identity), with and without the affine
weight and bias (weights of both signs: the kernels use |w| + eps), x of float, double and half (half: float
statistics, float or half weights, as checks.h allows; the CPU build dispatches float and double only). x is
(5, 37, 19, 23) (2185 values a channel: not a multiple of 64) and (300, 67).
"""


def cases(ext, torch, dev):
    g = torch.Generator(device="cpu").manual_seed(0)
    acts = {"leaky_relu": (ext.Activation.LeakyReLU, 0.01), "elu": (ext.Activation.ELU, 1.0),
            "identity": (ext.Activation.Identity, 0.0)}
    shapes = {"4d": (5, 37, 19, 23), "2d": (300, 67)}
    data = {k: (torch.randn(*s, generator=g, dtype=torch.float64) * 2 + 0.5,
                torch.randn(*s, generator=g, dtype=torch.float64)) for k, s in shapes.items()}
    params = {k: (torch.randn(s[1], generator=g, dtype=torch.float64),
                  torch.randn(s[1], generator=g, dtype=torch.float64)) for k, s in shapes.items()}
    eps = 1e-5
    out = {}

    def train(shape, dtype, wdtype, act, affine):
        x0, dy0 = data[shape]
        w0, b0 = params[shape]
        activation, slope = acts[act]

        def call():
            x = x0.to(dtype).to(dev).contiguous()
            w = w0.to(wdtype).to(dev) if affine else None
            b = b0.to(wdtype).to(dev) if affine else None
            mean, var, count = ext.statistics(x)
            y = x.clone()
            ext.forward(y, mean, var, w, b, eps, activation, slope)
            dy_act = dy0.to(dtype).to(dev).contiguous()
            xhat, dy, sum_dy, sum_xhat_dy = ext.backward_reduce(y.clone(), dy_act, w, b, eps, activation, slope)
            dx = dy.clone()
            ext.backward_train(xhat, dx, var, count, sum_dy, sum_xhat_dy, w, eps)
            return {"mean": mean, "var": var, "count": count, "y": y, "xhat": xhat, "dy": dy, "sum_dy": sum_dy,
                    "sum_xhat_dy": sum_xhat_dy, "dx": dx}
        return call

    def test_mode(shape, dtype, act):
        # Evaluation: running statistics given, backward_test for dx.
        x0, dy0 = data[shape]
        w0, b0 = params[shape]
        activation, slope = acts[act]
        sdtype = torch.float32 if dtype == torch.float16 else dtype

        def call():
            x = x0.to(dtype).to(dev).contiguous()
            mean = x0.mean(dim=[i for i in range(x0.dim()) if i != 1]).to(sdtype).to(dev)
            var = x0.var(dim=[i for i in range(x0.dim()) if i != 1]).to(sdtype).to(dev)
            w, b = w0.to(sdtype).to(dev), b0.to(sdtype).to(dev)
            y = x.clone()
            ext.forward(y, mean, var, w, b, eps, activation, slope)
            xhat, dy, _, _ = ext.backward_reduce(y.clone(), dy0.to(dtype).to(dev).contiguous(), w, b, eps, activation,
                                                 slope)
            return {"y": y, "xhat": xhat, "dy": dy, "dx": ext.backward_test(dy, var, w, eps)}
        return call

    for shape in shapes:
        for dtype, wdtype in ((torch.float32, torch.float32), (torch.float64, torch.float64),
                              (torch.float16, torch.float32), (torch.float16, torch.float16)):
            tag = str(dtype).split(".")[-1] + ("" if wdtype == dtype else f"_w{str(wdtype).split('.')[-1]}")
            for act in acts:
                out[f"train_{shape}_{act}_{tag}"] = train(shape, dtype, wdtype, act, True)
            if wdtype == dtype:
                out[f"train_{shape}_no_affine_{tag}"] = train(shape, dtype, wdtype, "leaky_relu", False)
        for dtype in (torch.float32, torch.float64, torch.float16):
            out[f"test_{shape}_elu_{str(dtype).split('.')[-1]}"] = test_mode(shape, dtype, "elu")

    if hasattr(ext, "reduce_statistics"):
        # Four workers' statistics of 37 channels (functions.py's _reduce_forward gathers them as N x C, N x 1).
        # Each worker's mean, biased variance and count made here on the CPU: the same input in both builds.
        parts = [torch.randn(b, 37, 11, generator=g, dtype=torch.float64) for b in (3, 5, 2, 7)]
        all_mean = torch.stack([x.mean(dim=(0, 2)) for x in parts])
        all_var = torch.stack([x.var(dim=(0, 2), unbiased=False) for x in parts])
        all_count = torch.tensor([[x.shape[0] * x.shape[2]] for x in parts], dtype=torch.long)

        def reduce(dtype):
            return lambda: ext.reduce_statistics(all_mean.to(dtype).to(dev), all_var.to(dtype).to(dev),
                                                 all_count.to(dev))
        out["reduce_statistics_float32"] = reduce(torch.float32)
        out["reduce_statistics_float64"] = reduce(torch.float64)
    return out
