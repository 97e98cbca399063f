"""Op calls of fast3d_kmeans 0.1.4 (pybind11 module ops_cuda, built at run time by cpp_extension.load()), seeded inputs.

kmeans(points, n_clusters, max_iters, tol, seed) (kmeans_binding.cpp: centroids seeded on the host with
std::mt19937, then kmeans_cuda.cu's assign kernel (nearest centroid per point) and update kernel (atomic sums per
cluster) until the centroids move less than tol). Points drawn around well-separated centres, so that the atomic
summation order cannot flip a label; 3, 8 and 20 clusters over 1000 to 50000 points, a few iteration caps.
"""


def cases(ops, torch, dev):
    g = torch.Generator(device="cpu").manual_seed(0)
    out = {}
    for n, k, iters in ((1000, 3, 5), (20000, 8, 50), (50000, 20, 100)):
        centres = torch.randn(k, 3, generator=g) * 40.0
        pick = torch.randint(0, k, (n,), generator=g)
        pts = (centres[pick] + torch.randn(n, 3, generator=g) * 0.5).float().contiguous().to(dev)
        for seed in (0, 7):
            out[f"kmeans_{n}_k{k}_it{iters}_s{seed}"] = \
                lambda pts=pts, k=k, iters=iters, seed=seed: ops.kmeans(pts, k, iters, 1e-4, seed)
    return out
