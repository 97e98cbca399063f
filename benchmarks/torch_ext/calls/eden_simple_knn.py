"""Op calls of eden_simple_knn 0.1.0a1 (pybind11 module simple_knn_cuda, built at run time by cpp_extension.load()).

distCUDA2(points) (spatial.cu, simple_knn.cu: the mean squared distance of each point to its 3 nearest neighbours,
found by sorting Morton codes with cub::DeviceRadixSort, boxes of 1024 points reduced with cub, then a search of
the neighbouring boxes). Seeded clouds of 500, 20000 and 150000 points, uniform and clustered.
"""


def cases(ops, torch, dev):
    g = torch.Generator(device="cpu").manual_seed(0)
    out = {}
    for n in (500, 20000, 150000):
        uniform = (torch.rand(n, 3, generator=g) * 10.0 - 5.0).float().contiguous().to(dev)
        out[f"distCUDA2_uniform_{n}"] = lambda p=uniform: ops.distCUDA2(p)
        centres = torch.randn(16, 3, generator=g) * 8.0
        blobs = (centres[torch.randint(0, 16, (n,), generator=g)] + torch.randn(n, 3, generator=g) * 0.3)
        blobs = blobs.float().contiguous().to(dev)
        out[f"distCUDA2_clustered_{n}"] = lambda p=blobs: ops.distCUDA2(p)
    return out
