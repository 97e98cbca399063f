"""Op calls of torch_cluster 1.6.3 (torch.ops.torch_cluster), seeded inputs; point-cloud and graph ops."""


def cases(ops, torch, dev):
    g = torch.Generator(device="cpu").manual_seed(0)
    pos = torch.rand(3000, 3, generator=g).to(dev)
    ptr = torch.tensor([0, 1000, 3000]).to(dev)
    y = torch.rand(500, 3, generator=g).to(dev)
    ptr_y = torch.tensor([0, 200, 500]).to(dev)
    n = 400
    row = torch.randint(0, n, (4000,), generator=g)
    col = torch.randint(0, n, (4000,), generator=g)
    keep = row != col
    row, col = torch.cat([row[keep], col[keep]]), torch.cat([col[keep], row[keep]])
    perm = (row * n + col).argsort()
    row, col = row[perm], col[perm]
    rowptr = torch.zeros(n + 1, dtype=torch.long)
    rowptr[1:] = torch.bincount(row, minlength=n).cumsum(0)
    rowptr, col = rowptr.to(dev), col.to(dev)
    w = torch.rand(col.numel(), generator=g).to(dev)

    def seeded(fn):
        def call():
            torch.manual_seed(1)
            return fn()
        return call

    return {
        "fps": lambda: ops.fps(pos, ptr, torch.tensor([0.25, 0.5], device=dev), False),
        "fps_one_ratio": lambda: ops.fps(pos, ptr, torch.tensor([0.1], device=dev), False),
        "knn": lambda: ops.knn(pos, y, ptr, ptr_y, 8, False, 1),
        "knn_cosine": lambda: ops.knn(pos, y, ptr, ptr_y, 4, True, 1),
        "radius": lambda: ops.radius(pos, y, ptr, ptr_y, 0.1, 32, 1),
        "nearest": lambda: ops.nearest(y, pos, ptr_y, ptr),
        "grid": lambda: ops.grid(pos, torch.tensor([0.1, 0.1, 0.1], device=dev), None, None),
        "graclus": seeded(lambda: ops.graclus(rowptr, col, None)),
        "graclus_weighted": seeded(lambda: ops.graclus(rowptr, col, w)),
        "random_walk": seeded(lambda: ops.random_walk(rowptr, col, torch.arange(n, device=dev), 10, 1.0, 1.0)),
    }
