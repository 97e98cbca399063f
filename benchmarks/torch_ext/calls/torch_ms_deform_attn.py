"""Op calls of torch_ms_deform_attn 0.1.1 (module torch_ms_deform_attn._C), seeded inputs.

csrc/vision.cpp's PYBIND11_MODULE: ms_deform_attn_forward(value, shapes, starts, loc, weights, step) and
ms_deform_attn_backward(value, shapes, starts, loc, weights, grad, step) (Deformable DETR's multi-scale
deformable attention: bilinear sampling of L feature levels at P points per head, im2col over `step` images;
CUDA: float and double, the backward's atomicAdd accumulation of grad_value). value (N, S, M, D) over the levels
(13x17, 7x9, 4x5, 2x3), N = 3 images with step 2 (a partial last chunk), M = 8 heads, D = 32 and 33 channels,
Lq = 300 queries, P = 4 points; sampling locations in [-0.1, 1.1] (some outside the maps: the zero padding).
"""


def cases(ext, torch, dev):
    g = torch.Generator(device="cpu").manual_seed(0)
    shapes = torch.tensor([[13, 17], [7, 9], [4, 5], [2, 3]], dtype=torch.long)
    starts = torch.cat([shapes.new_zeros(1), (shapes[:, 0] * shapes[:, 1]).cumsum(0)[:-1]])
    s = int((shapes[:, 0] * shapes[:, 1]).sum())
    n, m, lq, lv, p = 3, 8, 300, 4, 4
    out = {}
    for d in (32, 33):
        value = torch.randn(n, s, m, d, generator=g, dtype=torch.float64)
        loc = torch.rand(n, lq, m, lv, p, 2, generator=g, dtype=torch.float64) * 1.2 - 0.1
        weights = torch.rand(n, lq, m, lv, p, generator=g, dtype=torch.float64)
        weights = weights / weights.sum((-1, -2), keepdim=True)
        grad = torch.randn(n, lq, m * d, generator=g, dtype=torch.float64)
        for dtype in (torch.float32, torch.float64):
            tag = f"d{d}_{str(dtype).split('.')[-1]}"
            v, lo, w, gr = (t.to(dtype).to(dev) for t in (value, loc, weights, grad))
            sh, st = shapes.to(dev), starts.to(dev)
            out[f"forward_{tag}"] = lambda v=v, lo=lo, w=w, sh=sh, st=st: ext.ms_deform_attn_forward(v, sh, st, lo, w, 2)
            out[f"backward_{tag}"] = (lambda v=v, lo=lo, w=w, gr=gr, sh=sh, st=st:
                                      ext.ms_deform_attn_backward(v, sh, st, lo, w, gr, 2))
    return out
