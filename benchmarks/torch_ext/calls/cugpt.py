"""Op calls of cugpt 0.1.0 (pybind11 module cuGPT.kernels.relu_ext), seeded inputs.

cuGPT/kernels/relu.cu: relu_{fp32,fp32x4,fp16,fp16x2,fp16x2o,fp16x8}_launcher(a) -> ReLU of a, one element per
thread or 2/4/8 per thread through float4 and half2 loads; the half2 forms are __hmax2(0, x), which ROCm 7.2.4
declares for bfloat16 only (vado's port writes vado_hmax2). A 1-D tensor of 256000 elements and a 64x2048 one (the
launcher's 2-D layout: a block per row when the row fits), values with -0.0 and, in a case of their own, NaN.
"""


def cases(ops, torch, dev):
    g = torch.Generator(device="cpu").manual_seed(0)
    out = {}
    for shape in ((256000,), (64, 2048)):
        tag = "x".join(map(str, shape))
        base = torch.randn(*shape, generator=g)
        base.view(-1)[::97] = -0.0
        withnan = base.clone()
        withnan.view(-1)[5::131] = float("nan")
        for kind in ("fp32", "fp32x4"):
            a = base.float().contiguous().to(dev)
            out[f"relu_{kind}_{tag}"] = lambda a=a, f=getattr(ops, f"relu_{kind}_launcher"): f(a)
        for kind in ("fp16", "fp16x2", "fp16x2o", "fp16x8"):
            f = getattr(ops, f"relu_{kind}_launcher")
            a = base.half().contiguous().to(dev)
            out[f"relu_{kind}_{tag}"] = lambda a=a, f=f: f(a)
            n = withnan.half().contiguous().to(dev)
            out[f"relu_{kind}_{tag}_nan"] = lambda a=n, f=f: f(a)
    return out
