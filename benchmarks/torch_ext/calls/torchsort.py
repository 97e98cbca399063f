"""Op calls of torchsort 0.1.10 (module isotonic_cuda; isotonic_cpu has the same four functions), seeded inputs.

The four ops of torchsort/isotonic_cuda.cu's PYBIND11_MODULE: isotonic_l2(y), isotonic_kl(y, w) (forward: PAV
on each row, one thread per row, 1024 threads a block) and isotonic_l2_backward/isotonic_kl_backward(s, sol,
grad). Inputs as torchsort/ops.py's SoftRank and SoftSort build them (rows sorted descending, w = n..1); 1100
rows (two blocks, the second partly filled) of 37 values, each dtype AT_DISPATCH_FLOATING_TYPES_AND_HALF
takes (half: 200 rows, rounded from the float inputs).
"""


def cases(ext, torch, dev):
    g = torch.Generator(device="cpu").manual_seed(0)
    base = torch.randn(1100, 37, generator=g, dtype=torch.float64) * 3
    grad = torch.randn(1100, 37, generator=g, dtype=torch.float64)
    out = {}
    for dtype, rows in ((torch.float32, 1100), (torch.float64, 1100), (torch.float16, 200)):
        tag = str(dtype).split(".")[-1]
        values = base[:rows].to(dtype)
        w = (torch.arange(values.shape[1] - 1, -1, -1, dtype=torch.float64) + 1).to(dtype).expand(rows, -1)
        # SoftRank (regularization_strength 1): s sorted descending, then PAV on s - w (l2) or on (s, log w) (kl).
        s = torch.sort(values.double() if dtype == torch.float16 else values, dim=1, descending=True)[0].to(dtype)
        s, w, gr = s.to(dev).contiguous(), w.to(dev).contiguous(), grad[:rows].to(dtype).to(dev).contiguous()
        logw = torch.log(w.double()).to(dtype).contiguous()
        # SoftSort: PAV on w - s (l2) or on (w, s) (kl), w scaled by 1/strength (0.5 here: strength 2).
        w2 = (w * 0.5).contiguous()

        def l2(s=s, w=w):
            return ext.isotonic_l2((s - w).contiguous())

        def kl(s=s, logw=logw):
            return ext.isotonic_kl(s, logw)

        def l2_backward(s=s, w=w, gr=gr):
            sol = ext.isotonic_l2((s - w).contiguous())
            return sol, ext.isotonic_l2_backward(s, sol, gr)

        def kl_backward(s=s, logw=logw, gr=gr):
            sol = ext.isotonic_kl(s, logw)
            return sol, ext.isotonic_kl_backward(s, sol, gr)

        def sort_l2(s=s, w2=w2, gr=gr):
            sol = ext.isotonic_l2((w2 - s).contiguous())
            return sol, ext.isotonic_l2_backward(s, sol, gr)

        def sort_kl(s=s, w2=w2, gr=gr):
            sol = ext.isotonic_kl(w2, s)
            return sol, ext.isotonic_kl_backward(s, sol, gr)

        out.update({f"isotonic_l2_{tag}": l2, f"isotonic_kl_{tag}": kl, f"isotonic_l2_backward_{tag}": l2_backward,
                    f"isotonic_kl_backward_{tag}": kl_backward, f"soft_sort_l2_{tag}": sort_l2,
                    f"soft_sort_kl_{tag}": sort_kl})
    return out
