"""Op calls of ds_splat 0.0.2 (pybind11 module ds_splat_cuda), seeded inputs.

rasterizer_python.cpp: forward_deepsense(means_3d, means_2d, shs, colors_precomp, opacities, scales, rotations,
cov3D_precomp, settings) renders 3-D Gaussians (preprocessing to screen-space conics, a key per touched 16x16 tile,
a sort by key, per-tile ranges, then front-to-back alpha blending per pixel: rasterizer_*.cu), and
backward_deepsense(...) (gsplat's backward kernels: cooperative-groups tile reductions and atomics) the gradients
of an image loss. A camera 4 units from a cloud of 300 and 2000 Gaussians with SH degree 0 and 3, images of
97x131 and 64x64 (partial tiles). The forward's image, radii and final transmittances are compared, and each
gradient of the backward of a fixed image gradient.
"""


def _proj(torch, tanx, tany, znear=0.01, zfar=100.0):
    p = torch.zeros(4, 4)
    p[0, 0], p[1, 1] = 1.0 / tanx, 1.0 / tany
    p[3, 2] = 1.0
    p[2, 2] = zfar / (zfar - znear)
    p[2, 3] = -(zfar * znear) / (zfar - znear)
    return p


def cases(ops, torch, dev):
    g = torch.Generator(device="cpu").manual_seed(0)
    out = {}
    for n, deg, (h, w) in ((300, 0, (97, 131)), (2000, 3, (64, 64)), (2000, 3, (97, 131))):
        means = (torch.rand(n, 3, generator=g) * 2.0 - 1.0)
        shs = torch.randn(n, (deg + 1) ** 2, 3, generator=g) * 0.3
        opac = torch.sigmoid(torch.randn(n, 1, generator=g))
        scales = torch.exp(torch.rand(n, 3, generator=g) * -1.5 - 3.0)
        rots = torch.nn.functional.normalize(torch.randn(n, 4, generator=g), dim=-1)
        tanx, tany = 0.5 * w / h * 0.9, 0.45
        view = torch.eye(4)
        view[2, 3] = 4.0
        full = _proj(torch, tanx, tany) @ view

        def settings(h=h, w=w, tanx=tanx, tany=tany, view=view, full=full, deg=deg):
            s = ops.RasterizationSettings()
            s.image_height, s.image_width, s.tanfovx, s.tanfovy = h, w, tanx, tany
            s.bg = torch.tensor([0.1, 0.2, 0.3], device=dev)
            s.scale_modifier = 1.0
            s.view_matrix, s.proj_matrix = view.contiguous().to(dev), full.contiguous().to(dev)
            s.sh_degree, s.max_sh_degree = deg, deg
            s.campos = torch.tensor([0.0, 0.0, -4.0], device=dev)
            s.prefiltered, s.debug = False, False
            return s
        args = [v.contiguous().to(dev) for v in (means, torch.zeros(n, 3), shs, torch.empty(0), opac, scales, rots,
                                                 torch.empty(0))]
        tag = f"{n}_sh{deg}_{h}x{w}"

        def forward(args=args, settings=settings):
            img, radii, _, final_ts, *_ = ops.forward_deepsense(*args, settings())
            return {"image": img, "radii": radii, "final_Ts": final_ts}

        def backward(args=args, settings=settings, h=h, w=w):
            s = settings()
            img, radii, gauss, final_ts, final_idx, clamped, cov3d, idx, tiles = ops.forward_deepsense(*args, s)
            grad = torch.linspace(-1.0, 1.0, h * w * 3, device=dev).reshape(h, w, 3).contiguous()  # image: (H, W, 3)
            return list(ops.backward_deepsense(*args, gauss, radii, clamped, final_ts, final_idx, cov3d, idx, tiles,
                                               grad, s))
        out[f"forward_{tag}"] = forward
        out[f"backward_{tag}"] = backward
    return out
