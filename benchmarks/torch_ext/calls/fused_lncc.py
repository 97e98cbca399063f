"""Op calls of fused_lncc 0.1.0 (pybind11 module fused_lncc_cuda), seeded inputs.

csrc/lncc3d.cu: lncc_forward(P, T, kernel_size, dr) -> [ncc, A, Bc, Cc] (the squared local normalized cross-
correlation of two 4-D volumes over kernel_size^3 windows, shared-memory tiles with a halo, fp32 or bf16 inputs,
fp32 outputs), lncc_backward(A, Bc, Cc, P, T, kernel_size, scale) (the gradient wrt P, box sums of the adjoints)
and box3d_sep_forward(x, kernel_size) (a separable 3-D box sum). Volumes of 2x20x23x37 and 1x9x16x70 (partial
tiles on every axis), kernel sizes 3, 5 and 7 (halo 1..3); bf16 inputs on the first shape.
"""


def cases(ops, torch, dev):
    g = torch.Generator(device="cpu").manual_seed(0)
    out = {}
    for shape in ((2, 20, 23, 37), (1, 9, 16, 70)):
        p = torch.rand(*shape, generator=g)
        t = (0.6 * p + 0.4 * torch.rand(*shape, generator=g)).contiguous()
        tag = "x".join(map(str, shape))
        for k in (3, 5, 7):
            dtypes = (torch.float32, torch.bfloat16) if shape[0] == 2 else (torch.float32,)
            for dtype in dtypes:
                ps, ts = p.to(dtype).to(dev), t.to(dtype).to(dev)
                name = f"{tag}_k{k}_{str(dtype).split('.')[-1]}"
                out[f"lncc_forward_{name}"] = lambda ps=ps, ts=ts, k=k: ops.lncc_forward(ps, ts, k, 1e-5)

                def backward(ps=ps, ts=ts, k=k):
                    _, a, b, c = ops.lncc_forward(ps, ts, k, 1e-5)
                    return ops.lncc_backward(a, b, c, ps, ts, k, -1.0 / ps.numel())
                out[f"lncc_backward_{name}"] = backward
            x = torch.randn(*shape, generator=g).to(dev)
            out[f"box3d_sep_forward_{tag}_k{k}"] = lambda x=x, k=k: ops.box3d_sep_forward(x, k)
    return out
