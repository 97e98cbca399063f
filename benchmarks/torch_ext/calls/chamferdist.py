"""Op calls of chamferdist 1.0.3 (module chamferdist._C), seeded inputs.

chamferdist/ext.cpp's PYBIND11_MODULE: knn_points_idx(p1, p2, lengths1, lengths2, K, version) -> (idxs, dists)
(CUDA: kernels V0..V3, each dtype of AT_DISPATCH_FLOATING_TYPES; version -1 picks one by D and K),
knn_points_backward(p1, p2, lengths1, lengths2, idxs, grad_dists) -> (grad_p1, grad_p2) (float only: its
kernel takes float*, atomicAdd) and knn_check_version(version, D, K) (WITH_CUDA only). Three clouds of up to
1000 and 777 points with ragged lengths (not multiples of 64); every version at the D and K it accepts
(V3: K <= 4, V2: K <= 32, V1: D <= 32), D = 3 and D = 40 (V0 only).
"""


def cases(ext, torch, dev):
    g = torch.Generator(device="cpu").manual_seed(0)
    n, p1n, p2n = 3, 1000, 777
    lengths1 = torch.tensor([1000, 700, 513], dtype=torch.long)
    lengths2 = torch.tensor([777, 600, 65], dtype=torch.long)
    clouds = {d: (torch.rand(n, p1n, d, generator=g, dtype=torch.float64),
                  torch.rand(n, p2n, d, generator=g, dtype=torch.float64)) for d in (3, 40)}
    out = {}

    def knn(d, k, version, dtype):
        p1, p2 = (c.to(dtype).to(dev) for c in clouds[d])
        return lambda: ext.knn_points_idx(p1, p2, lengths1.to(dev), lengths2.to(dev), k, version)

    for dtype in (torch.float32, torch.float64):
        tag = str(dtype).split(".")[-1]
        for d, k, version in ((3, 1, 3), (3, 4, 3), (3, 8, 2), (3, 40, 1), (3, 5, 0), (40, 6, 0), (3, 4, -1),
                              (40, 3, -1)):
            out[f"knn_d{d}_k{k}_v{version}_{tag}"] = knn(d, k, version, dtype)

    def backward(d, k, version):
        p1, p2 = (c.float().to(dev) for c in clouds[d])
        grad = torch.randn(n, p1n, k, generator=g).to(dev)

        def call():
            idx, dists = ext.knn_points_idx(p1, p2, lengths1.to(dev), lengths2.to(dev), k, version)
            return idx, dists, ext.knn_points_backward(p1, p2, lengths1.to(dev), lengths2.to(dev), idx, grad)
        return call

    out["knn_backward_d3_k1"] = backward(3, 1, -1)
    out["knn_backward_d3_k8"] = backward(3, 8, 2)
    out["knn_backward_d40_k3"] = backward(40, 3, 0)
    if hasattr(ext, "knn_check_version"):
        out["knn_check_version"] = lambda: [ext.knn_check_version(v, d, k) for v in range(5) for d in (1, 3, 8, 9, 32, 33)
                                            for k in (1, 4, 5, 32, 33)]
    return out
