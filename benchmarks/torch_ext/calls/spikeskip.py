"""Op calls of spikeskip 0.2.0 (pybind11 module spikeskip_cuda_engine), seeded inputs.

csrc/sparse_linear.cu: a linear layer over spike inputs (0/1, about 20 % set) computed densely with a branch skip
(forward), over a CSR form of the input (csr_forward, csr_coalesced_forward with the weight transposed,
csr_shared_forward with a weight row in shared memory, csr_multistep_forward over T packed steps), fused
(fused_forward), with the CSR built on the GPU (dense_to_csr_gpu, sparse_forward, sparse_multistep_forward), and
two sparse conv2d forms (sparse_conv2d_forward, sparse_conv2d_tiled_forward). AT_DISPATCH over float, double,
half and bfloat16; shapes with partial 16x16 tiles (B 37, I 150, O 45).
"""


def _csr(x, torch):
    rows = [torch.nonzero(r).flatten() for r in x]
    ro = torch.tensor([0] + [int(n) for n in torch.cumsum(torch.tensor([len(r) for r in rows]), 0)], dtype=torch.int32)
    ci = torch.cat(rows).to(torch.int32) if rows else torch.zeros(0, dtype=torch.int32)
    vl = torch.cat([x[i, r] for i, r in enumerate(rows)])
    return ro, ci, vl


def cases(ops, torch, dev):
    g = torch.Generator(device="cpu").manual_seed(0)
    out = {}
    B, I, O, T = 37, 150, 45, 3
    spikes = (torch.rand(T, B, I, generator=g) < 0.2).double()
    weight = torch.randn(O, I, generator=g, dtype=torch.float64) * 0.1
    for dtype in (torch.float32, torch.float64, torch.float16, torch.bfloat16):
        tag = str(dtype).split(".")[-1]
        x, w = spikes[0].to(dtype), weight.to(dtype)
        xd, wd, wtd = x.to(dev), w.to(dev), w.t().contiguous().to(dev)
        ro, ci, vl = (v.to(dev) for v in _csr(x, torch))
        out[f"forward_{tag}"] = lambda xd=xd, wd=wd: ops.forward(xd, wd)
        out[f"csr_forward_{tag}"] = lambda ro=ro, ci=ci, vl=vl, wd=wd: ops.csr_forward(ro, ci, vl, wd, B, I, O)
        out[f"csr_coalesced_forward_{tag}"] = \
            lambda ro=ro, ci=ci, vl=vl, wtd=wtd: ops.csr_coalesced_forward(ro, ci, vl, wtd, B, I, O)
        out[f"csr_shared_forward_{tag}"] = lambda ro=ro, ci=ci, vl=vl, wd=wd: ops.csr_shared_forward(ro, ci, vl, wd, B, I, O)
        out[f"fused_forward_{tag}"] = lambda xd=xd, wtd=wtd: ops.fused_forward(xd, wtd)
        out[f"dense_to_csr_gpu_{tag}"] = lambda xd=xd: ops.dense_to_csr_gpu(xd)

        def buffers(xd=xd):
            return (torch.empty(B, dtype=torch.int32, device=dev), torch.empty(B + 1, dtype=torch.int32, device=dev),
                    torch.empty(B * I, dtype=torch.int32, device=dev), torch.empty(B * I, dtype=xd.dtype, device=dev))
        out[f"sparse_forward_{tag}"] = lambda xd=xd, wtd=wtd, buffers=buffers: ops.sparse_forward(xd, wtd, *buffers())
        steps = spikes.to(dtype)
        std = steps.to(dev)
        out[f"sparse_multistep_forward_{tag}"] = \
            lambda std=std, wtd=wtd, buffers=buffers: ops.sparse_multistep_forward(std, wtd, *buffers(), T)
        packed = [_csr(steps[t], torch) for t in range(T)]
        pro = torch.cat([p[0] for p in packed]).to(dev)
        pci = torch.cat([p[1] for p in packed]).to(dev)
        pvl = torch.cat([p[2] for p in packed]).to(dev)
        snp = torch.tensor([0] + [int(v) for v in torch.cumsum(torch.tensor([len(p[1]) for p in packed]), 0)[:-1]],
                           dtype=torch.int32).to(dev)
        out[f"csr_multistep_forward_{tag}"] = \
            lambda pro=pro, pci=pci, pvl=pvl, snp=snp, wd=wd: ops.csr_multistep_forward(pro, pci, pvl, snp, wd, T, B, I, O)
    img = (torch.rand(2, 3, 19, 23, generator=g) < 0.25).double()
    kern = torch.randn(5, 3, 3, 3, generator=g, dtype=torch.float64) * 0.2
    for dtype in (torch.float32, torch.float16):
        tag = str(dtype).split(".")[-1]
        xi, wk = img.to(dtype).to(dev), kern.to(dtype).to(dev)
        for s, p in ((1, 1), (2, 0)):
            out[f"sparse_conv2d_forward_s{s}p{p}_{tag}"] = lambda xi=xi, wk=wk, s=s, p=p: ops.sparse_conv2d_forward(xi, wk, s, s, p, p)
            out[f"sparse_conv2d_tiled_forward_s{s}p{p}_{tag}"] = \
                lambda xi=xi, wk=wk, s=s, p=p: ops.sparse_conv2d_tiled_forward(xi, wk, s, s, p, p)
    return out
