"""Op calls of modulated_deform_conv 1.0.2 (pybind11 module MDCONV_CUDA), seeded inputs.

src/deformable_conv.cu, mdeformable_conv.cu: deform_conv2d_forward_cuda and modulated_deform_conv2d_forward_cuda
(bilinear-sampled deformable im2col per batch step, then a grouped GEMM; the modulated form scales each sample by
its mask), written into a preallocated output as the package's autograd Functions do. Batch 2 (in_step 2 and 1),
3x3 and 3x1 kernels, stride 1 and 2, padding and dilation, 2 groups, 2 deformable groups, with and without bias;
offsets up to +-2.5 pixels so samples fall between pixels and off the image.
"""


def _out(n, cout, h, w, k, s, p, d):
    return (n, cout, (h + 2 * p[0] - (d[0] * (k[0] - 1) + 1)) // s[0] + 1,
            (w + 2 * p[1] - (d[1] * (k[1] - 1) + 1)) // s[1] + 1)


def cases(ops, torch, dev):
    g = torch.Generator(device="cpu").manual_seed(0)
    out = {}
    configs = [  # (n, cin, h, w, cout, k, s, p, d, groups, dgroups, in_step, bias)
        (2, 8, 13, 17, 16, (3, 3), (1, 1), (1, 1), (1, 1), 1, 1, 2, True),
        (2, 8, 20, 11, 8, (3, 3), (2, 2), (2, 2), (2, 2), 2, 2, 1, False),
        (2, 4, 9, 24, 6, (3, 1), (1, 2), (1, 0), (1, 1), 1, 2, 2, True),
    ]
    for i, (n, cin, h, w, cout, k, s, p, d, grp, dg, step, with_bias) in enumerate(configs):
        shape = _out(n, cout, h, w, k, s, p, d)
        x = torch.randn(n, cin, h, w, generator=g).to(dev)
        wt = (torch.randn(cout, cin // grp, k[0], k[1], generator=g) * 0.2).to(dev)
        b = torch.randn(cout, generator=g).to(dev) if with_bias else torch.empty(0).to(dev)
        off = ((torch.rand(n, dg * 2 * k[0] * k[1], shape[2], shape[3], generator=g) - 0.5) * 5.0).to(dev)
        mask = torch.rand(n, dg * k[0] * k[1], shape[2], shape[3], generator=g).to(dev)
        args = (k[0], k[1], s[0], s[1], p[0], p[1], d[0], d[1], grp, dg, step, with_bias)

        def deform(x=x, wt=wt, b=b, off=off, shape=shape, args=args):
            o = x.new_empty(shape)
            ops.deform_conv2d_forward_cuda(x, wt, b, off, o, *args)
            return o

        def modulated(x=x, wt=wt, b=b, off=off, mask=mask, shape=shape, args=args):
            o = x.new_empty(shape)
            ops.modulated_deform_conv2d_forward_cuda(x, wt, b, off, mask, o, *args)
            return o
        out[f"deform_conv2d_forward_{i}"] = deform
        out[f"modulated_deform_conv2d_forward_{i}"] = modulated
    return out
