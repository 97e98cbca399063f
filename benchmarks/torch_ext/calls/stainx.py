"""Op calls of stainx 0.1.6 (module stainx_cuda_torch), seeded inputs.

csrc/bindings.cpp's PYBIND11_MODULE: histogram_matching(images, reference_histogram) (per-block partial
histograms, a reduction, the CDF and a LUT; a 1-D 256-bin or a (C, 256) reference), reinhard(images, mean, std)
(per-image LAB statistics: block reductions), macenko(images, stain_matrix, target_max_conc) (fp64 covariance,
eigh, percentiles) and macenko_fast (fp32 covariance, fp16 pixels). Images (N, 3, H, W) as uint8 and as float in
[0, 255], N = 2, 61 x 47 and 128 x 96 pixels (not multiples of the block sizes).
"""


def cases(ext, torch, dev):
    g = torch.Generator(device="cpu").manual_seed(0)
    out = {}
    for h, w in ((61, 47), (128, 96)):
        img8 = torch.randint(0, 256, (2, 3, h, w), generator=g, dtype=torch.uint8)
        imgf = img8.float()
        tag = f"{h}x{w}"
        hist = torch.rand(256, generator=g)
        hist3 = torch.rand(3, 256, generator=g)
        mean = torch.tensor([62.0, 8.5, -4.0])
        std = torch.tensor([14.0, 6.0, 5.5])
        stains = torch.tensor([[0.65, 0.07], [0.70, 0.99], [0.29, 0.11]])
        maxc = torch.tensor([1.9705, 1.0308])
        for name, img in (("u8", img8), ("f32", imgf)):
            i = img.to(dev)
            out[f"histogram_matching_{tag}_{name}"] = lambda i=i, r=hist.to(dev): ext.histogram_matching(i, r)
            out[f"histogram_matching_per_channel_{tag}_{name}"] = lambda i=i, r=hist3.to(dev): ext.histogram_matching(i, r)
            out[f"reinhard_{tag}_{name}"] = lambda i=i, m=mean.to(dev), s=std.to(dev): ext.reinhard(i, m, s)
            out[f"macenko_{tag}_{name}"] = lambda i=i, s=stains.to(dev), c=maxc.to(dev): ext.macenko(i, s, c)
            out[f"macenko_fast_{tag}_{name}"] = lambda i=i, s=stains.to(dev), c=maxc.to(dev): ext.macenko_fast(i, s, c)
    return out
