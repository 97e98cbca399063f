"""Op calls of torchlpc 0.7.2 (torch.ops.torchlpc), seeded inputs.

csrc/cuda: scan(input, weights, initials) (linear_recurrence.cu: y[t] = w[t] * y[t-1] + x[t] per row, a
multi-block parallel scan, AT_DISPATCH_FLOATING_AND_COMPLEX_TYPES) and lpc(x, a, zi) (lpc.cu: the time-varying
all-pole filter y[t] = x[t] - sum_k a[t, k] * y[t-k-1], one block of `order` threads per row, shared memory,
AT_DISPATCH_FLOATING_TYPES plus a complex path). Batches of 5 rows of 3001 and 20000 samples (several scan
blocks), orders 2, 17 and 64; coefficients small enough that the filters stay stable.
"""


def cases(ops, torch, dev):
    g = torch.Generator(device="cpu").manual_seed(0)
    out = {}
    for b, t in ((5, 3001), (3, 20000)):
        x = torch.randn(b, t, generator=g, dtype=torch.float64)
        w = torch.rand(b, t, generator=g, dtype=torch.float64) * 1.8 - 0.9
        y0 = torch.randn(b, generator=g, dtype=torch.float64)
        for dtype in (torch.float32, torch.float64, torch.complex64):
            tag = f"{b}x{t}_{str(dtype).split('.')[-1]}"
            xs, ws, ys = (v.to(dtype).to(dev) for v in (x, w, y0))
            out[f"scan_{tag}"] = lambda xs=xs, ws=ws, ys=ys: ops.scan(xs, ws, ys)
    for b, t, order in ((5, 3001, 2), (4, 2048, 17), (2, 1500, 64)):
        x = torch.randn(b, t, generator=g, dtype=torch.float64)
        a = (torch.rand(b, t, order, generator=g, dtype=torch.float64) - 0.5) * (0.9 / order)
        zi = torch.randn(b, order, generator=g, dtype=torch.float64)
        for dtype in (torch.float32, torch.float64, torch.complex64):
            tag = f"{b}x{t}_o{order}_{str(dtype).split('.')[-1]}"
            xs, as_, zs = (v.to(dtype).to(dev) for v in (x, a, zi))
            out[f"lpc_{tag}"] = lambda xs=xs, as_=as_, zs=zs: ops.lpc(xs, as_, zs)
    return out
