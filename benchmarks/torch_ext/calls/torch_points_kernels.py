"""Calls of torch-points-kernels 0.7.0's points_cuda: sampling, interpolation, ball query, chamfer, gridding."""


def cases(ext, torch, dev):
    g = torch.Generator(device="cpu").manual_seed(0)
    B, N, M, C = 2, 2048, 256, 8
    pts = torch.rand(B, N, 3, generator=g).to(dev)
    q = torch.rand(B, M, 3, generator=g).to(dev)
    feats = torch.randn(B, C, N, generator=g).to(dev)
    flat_x, flat_y = pts.reshape(-1, 3), q.reshape(-1, 3)
    bx = torch.arange(B).repeat_interleave(N).to(dev)
    by = torch.arange(B).repeat_interleave(M).to(dev)
    out = {
        "furthest_point_sampling": lambda: ext.furthest_point_sampling(pts, 128),
        "three_nn": lambda: ext.three_nn(q, pts),
        "ball_query_dense": lambda: ext.ball_query_dense(q, pts, 0.1, 16),
        "ball_query_partial_dense": lambda: ext.ball_query_partial_dense(flat_x, flat_y, bx, by, 0.1, 16),
        "chamfer_dist": lambda: ext.chamfer_dist(pts, q),
        "gridding": lambda: ext.gridding(-1.0, 1.0, -1.0, 1.0, -1.0, 1.0, pts * 2 - 1),
        "cubic_feature_sampling": lambda: ext.cubic_feature_sampling(
            8, 1, pts * 2 - 1, torch.randn(B, C, 8, 8, 8, generator=g).to(dev)),
    }

    def interp():
        dist, idx = ext.three_nn(q, pts)[:2]
        w = 1.0 / (dist + 1e-8)
        w = w / w.sum(-1, keepdim=True)
        o = ext.three_interpolate(feats, idx, w)
        go = ext.three_interpolate_grad(torch.ones_like(o), idx, w, N)
        return {"out": o, "grad": go}

    def chamfer_grad():
        d1, d2, i1, i2 = ext.chamfer_dist(pts, q)
        return ext.chamfer_dist_grad(pts, q, i1, i2, torch.ones_like(d1), torch.ones_like(d2))

    out["three_interpolate"] = interp
    out["chamfer_dist_grad"] = chamfer_grad
    return out
