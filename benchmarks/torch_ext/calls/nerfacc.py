"""Op calls of nerfacc 0.5.3 (module nerfacc.csrc), seeded inputs.

Every function of nerfacc/cuda/csrc/nerfacc.cpp's PYBIND11_MODULE, with the arguments nerfacc's Python wrappers
(scan.py, grid.py, pdf.py, cameras.py) give them: the packed scans inclusive_sum/exclusive_sum(chunk_starts,
chunk_cnts, inputs, normalize, backward) and inclusive_prod/exclusive_prod _forward(starts, cnts, inputs) /
_backward(starts, cnts, inputs, outputs, grad_outputs) (float, 1-D; 300 rays of 0..150 samples, some empty);
ray_aabb_intersect(rays_o, rays_d, aabbs, near, far, miss) -> [t_mins, t_maxs, hits]; traverse_grids(17
arguments) -> (intervals, samples, terminate_planes); importance_sampling(RaySegmentsSpec, cdfs, n per ray
(a tensor: flattened output; an int: batched), stratified) -> [intervals, samples]; searchsorted(query, key);
opencv_lens_undistortion(uv, params (5, 8 or 12), eps, iters) and _fisheye (params 4). Float only (the kernels
take float*). RaySegmentsSpec results are returned as dicts of their tensors (fields left undefined: None).
Stratified sampling draws from the CUDA generator (Philox): each such call seeds it first.
"""

FIELDS = ("vals", "chunk_starts", "chunk_cnts", "ray_indices", "is_left", "is_right", "is_valid")


def cases(ext, torch, dev):
    g = torch.Generator(device="cpu").manual_seed(0)
    d = lambda x: x.to(dev).contiguous()

    def spec(**kw):
        s = ext.RaySegmentsSpec()
        for k, v in kw.items():
            setattr(s, k, d(v))
        return s

    def tensors(s):
        return {k: getattr(s, k) for k in FIELDS}

    def seeded(fn):
        def call():
            torch.manual_seed(1)
            return fn()
        return call

    # Packed chunks: 300 rays, 0..150 samples each (a few empty), not a multiple of 64 in total.
    cnts = torch.randint(0, 151, (300,), generator=g)
    cnts[::37] = 0
    starts = torch.cumsum(cnts, 0) - cnts
    total = int(cnts.sum())
    x = torch.rand(total, generator=g)
    alpha = 1.0 - torch.rand(total, generator=g) * 0.2  # (0.8, 1]: transmittance factors
    grad = torch.randn(total, generator=g)
    scan = {}
    for name in ("inclusive_sum", "exclusive_sum"):
        fn = getattr(ext, name)
        scan[name] = (lambda fn=fn: fn(d(starts), d(cnts), d(x), False, False))
        scan[f"{name}_normalize"] = (lambda fn=fn: fn(d(starts), d(cnts), d(x), True, False))
        scan[f"{name}_backward"] = (lambda fn=fn: fn(d(starts), d(cnts), d(grad), False, True))
    for name in ("inclusive_prod", "exclusive_prod"):
        fwd, bwd = getattr(ext, f"{name}_forward"), getattr(ext, f"{name}_backward")

        def prod(fwd=fwd, bwd=bwd):
            out = fwd(d(starts), d(cnts), d(alpha))
            return out, bwd(d(starts), d(cnts), d(alpha), out, d(grad))
        scan[name] = prod

    # Rays and grids (grid.py: an occupancy grid of two levels, 32^3 cells each).
    n_rays = 1000
    origins = (torch.rand(n_rays, 3, generator=g) * 2 - 1) * 3
    targets = (torch.rand(n_rays, 3, generator=g) * 2 - 1) * 0.5
    dirs = targets - origins
    dirs = dirs / dirs.norm(dim=-1, keepdim=True)
    aabbs = torch.tensor([[-1.0, -1.0, -1.0, 1.0, 1.0, 1.0], [-2.0, -2.0, -2.0, 2.0, 2.0, 2.0]])
    binaries = torch.rand(2, 32, 32, 32, generator=g) < 0.3
    rays_mask = torch.rand(n_rays, generator=g) < 0.9
    near = torch.zeros(n_rays)
    far = torch.full((n_rays,), 1e10)

    def intersect(near_plane=-float("inf"), far_plane=float("inf"), miss=float("inf")):
        return lambda: ext.ray_aabb_intersect(d(origins), d(dirs), d(aabbs), near_plane, far_plane, miss)

    # traverse_grids' intersections as grid.py's traverse_grids makes them (t_mins and t_maxs sorted per ray),
    # computed here on the CPU (slab test, misses at +inf), so traverse_grids gets the same input in both builds.
    inv = 1.0 / dirs
    lo = (aabbs[None, :, :3] - origins[:, None]) * inv[:, None]
    hi = (aabbs[None, :, 3:] - origins[:, None]) * inv[:, None]
    t_mins = torch.minimum(lo, hi).amax(-1)
    t_maxs = torch.maximum(lo, hi).amin(-1)
    hits = (t_maxs > t_mins) & (t_maxs > 0)
    t_mins = torch.where(hits, t_mins, torch.full_like(t_mins, float("inf")))
    t_maxs = torch.where(hits, t_maxs, torch.full_like(t_maxs, float("inf")))
    t_sorted, t_indices = torch.sort(torch.cat([t_mins, t_maxs], dim=-1), dim=-1, stable=True)

    def traverse(step, cone, limit=-1, over=False, intervals=True, samples=True, planes=True):
        def call():
            iv, sm, tp = ext.traverse_grids(d(origins), d(dirs), d(rays_mask), d(binaries), d(aabbs), d(t_sorted),
                                            d(t_indices), d(hits), d(near), d(far), step, cone, intervals, samples,
                                            planes, limit, over)
            return tensors(iv), tensors(sm), tp
        return call

    # Importance sampling: 257 rays of 65 edges (batched) and a packed set of 2..40 edges per ray.
    vals_b = torch.sort(torch.rand(257, 65, generator=g), dim=-1)[0]
    w_b = torch.rand(257, 64, generator=g)
    cdf_b = torch.cat([torch.zeros(257, 1), torch.cumsum(w_b, -1) / w_b.sum(-1, keepdim=True)], -1)
    pcnts = torch.randint(2, 41, (211,), generator=g)
    pstarts = torch.cumsum(pcnts, 0) - pcnts
    pvals = torch.cat([torch.sort(torch.rand(int(c), generator=g))[0] for c in pcnts])
    pcdf = torch.cat([torch.cat([torch.zeros(1), torch.cumsum(w, 0) / w.sum()])
                      for w in (torch.rand(int(c) - 1, generator=g) for c in pcnts)])
    n_per_ray = torch.randint(1, 70, (211,), generator=g)

    def sampling(batched, n, stratified):
        def call():
            segs = spec(vals=vals_b) if batched else spec(vals=pvals, chunk_starts=pstarts, chunk_cnts=pcnts)
            cdf = cdf_b if batched else pcdf
            iv, sm = ext.importance_sampling(segs, d(cdf), d(n) if isinstance(n, torch.Tensor) else n, stratified)
            return tensors(iv), tensors(sm)
        return seeded(call) if stratified else call

    q_b = torch.rand(257, 33, generator=g) * 1.2 - 0.1  # some outside [0, 1): clipped ids
    q_cnts = torch.randint(0, 50, (211,), generator=g)
    q_starts = torch.cumsum(q_cnts, 0) - q_cnts
    q_vals = torch.rand(int(q_cnts.sum()), generator=g) * 1.2 - 0.1
    q_rays = torch.repeat_interleave(torch.arange(211), q_cnts)

    # Lens undistortion: 3001 points (6 blocks of 512, the last partly filled).
    uv = (torch.rand(3001, 2, generator=g) * 2 - 1) * 0.8
    params = {n: torch.cat([torch.randn(3001, 2, generator=g) * 0.05, torch.randn(3001, n - 2, generator=g) * 0.01], -1)
              for n in (4, 5, 8, 12)}

    return {
        **scan,
        "ray_aabb_intersect": intersect(),
        "ray_aabb_intersect_planes": intersect(0.5, 4.0, 1e10),
        "traverse_grids": traverse(0.02, 0.0),
        "traverse_grids_cone": traverse(0.01, 0.004),
        "traverse_grids_limit": traverse(0.02, 0.0, limit=40, over=True),
        "traverse_grids_intervals_only": traverse(0.05, 0.0, samples=False, planes=False),
        "importance_sampling_batched": sampling(True, 48, False),
        "importance_sampling_batched_stratified": sampling(True, 48, True),
        "importance_sampling_packed_int": sampling(False, 31, False),
        "importance_sampling_packed_tensor": sampling(False, n_per_ray, False),
        "importance_sampling_packed_tensor_stratified": sampling(False, n_per_ray, True),
        "searchsorted_batched": lambda: ext.searchsorted(spec(vals=q_b), spec(vals=vals_b)),
        "searchsorted_packed": lambda: ext.searchsorted(
            spec(vals=q_vals, chunk_starts=q_starts, chunk_cnts=q_cnts),
            spec(vals=pvals, chunk_starts=pstarts, chunk_cnts=pcnts)),
        "searchsorted_packed_ray_indices": lambda: ext.searchsorted(
            spec(vals=q_vals, chunk_starts=q_starts, chunk_cnts=q_cnts, ray_indices=q_rays),
            spec(vals=pvals, chunk_starts=pstarts, chunk_cnts=pcnts)),
        "opencv_lens_undistortion_5": lambda: ext.opencv_lens_undistortion(d(uv), d(params[5]), 1e-6, 10),
        "opencv_lens_undistortion_8": lambda: ext.opencv_lens_undistortion(d(uv), d(params[8]), 1e-6, 10),
        "opencv_lens_undistortion_12": lambda: ext.opencv_lens_undistortion(d(uv), d(params[12]), 1e-6, 10),
        "opencv_lens_undistortion_fisheye": lambda: ext.opencv_lens_undistortion_fisheye(d(uv), d(params[4]), 1e-6, 10),
    }
