"""Calls of gsplat 1.5.3's gsplat.csrc (pybind): covariances, spherical harmonics, the 3DGS and 2DGS projections
(forward and backward: the backward ones sum per Gaussian over labeled_partition groups, which the port writes
for HIP), tile intersection and the 3DGS rasterizer forward and backward. Arguments follow gsplat/cuda/_wrapper.py.

The scene is seeded and small: 2 cameras looking at 512 Gaussians in front of them, a 64 x 48 image, 16-pixel
tiles. Integer outputs (radii, tile ids, sorted intersections) are compared exactly; a rasterizer's last_ids and
the intersection order depend on a sort of equal keys, so they are reported but the float images decide.
"""


def cases(ext, torch, dev):
    g = torch.Generator(device="cpu").manual_seed(0)
    C, N, W, H, T = 2, 512, 64, 48, 16
    f32 = dict(dtype=torch.float32)

    def rnd(*shape):
        return torch.rand(*shape, generator=g, **f32)

    means = torch.cat([rnd(N, 2) * 2 - 1, rnd(N, 1) * 2 + 2], -1).to(dev)  # in front of the cameras (z in [2, 4])
    quats = torch.nn.functional.normalize(torch.randn(N, 4, generator=g), dim=-1).to(dev)
    scales = (rnd(N, 3) * 0.05 + 0.01).to(dev)
    opacities = (rnd(N) * 0.9 + 0.05).to(dev)
    colors = rnd(C, N, 3).to(dev)
    viewmats = torch.eye(4).repeat(C, 1, 1)
    viewmats[1, 0, 3] = 0.1  # the second camera moved along x
    viewmats = viewmats.to(dev)
    Ks = torch.tensor([[60.0, 0.0, W / 2], [0.0, 60.0, H / 2], [0.0, 0.0, 1.0]]).repeat(C, 1, 1).to(dev)
    pinhole = ext.CameraModelType.PINHOLE
    tw, th = (W + T - 1) // T, (H + T - 1) // T
    sh_dirs = torch.nn.functional.normalize(torch.randn(N, 3, generator=g), dim=-1).to(dev)
    sh_coeffs = torch.randn(N, 16, 3, generator=g).to(dev)

    def covar():
        return ext.quat_scale_to_covar_preci_fwd(quats, scales, True, True, False)

    def covar_bwd():
        cov, pre = covar()
        return ext.quat_scale_to_covar_preci_bwd(quats, scales, False, torch.ones_like(cov), torch.ones_like(pre))

    def sh():
        return ext.spherical_harmonics_fwd(3, sh_dirs, sh_coeffs, None)

    def sh_bwd():
        return ext.spherical_harmonics_bwd(16, 3, sh_dirs, sh_coeffs, None, torch.ones(N, 3, device=dev), True)

    def project():
        return ext.projection_ewa_3dgs_fused_fwd(means, None, quats, scales, opacities, viewmats, Ks, W, H, 0.3,
                                                 0.01, 1e10, 0.0, True, pinhole)

    def project_bwd():
        radii, means2d, depths, conics, comp = project()
        vis = (radii > 0).all(-1).float()
        return ext.projection_ewa_3dgs_fused_bwd(
            means, None, quats, scales, viewmats, Ks, W, H, 0.3, pinhole, radii, conics, comp,
            torch.ones_like(means2d) * vis[..., None], torch.ones_like(depths) * vis,
            torch.ones_like(conics) * vis[..., None], torch.ones_like(comp) * vis, True)

    def project_2dgs():
        return ext.projection_2dgs_fused_fwd(means, quats, scales, viewmats, Ks, W, H, 0.3, 0.01, 1e10, 0.0)

    def project_2dgs_bwd():
        radii, means2d, depths, ray_transforms, normals = project_2dgs()
        vis = (radii > 0).all(-1).float()
        return ext.projection_2dgs_fused_bwd(
            means, quats, scales, viewmats, Ks, W, H, radii, ray_transforms,
            torch.ones_like(means2d) * vis[..., None], torch.ones_like(depths) * vis,
            torch.ones_like(normals) * vis[..., None], torch.ones_like(ray_transforms) * vis[..., None, None], True)

    def tiles():
        radii, means2d, depths, conics, _ = project()
        tiles_per_gauss, isect_ids, flatten_ids = ext.intersect_tile(means2d, radii, depths, None, None, C, T, tw, th,
                                                                     True, False)
        offsets = ext.intersect_offset(isect_ids, C, tw, th)
        return {"tiles_per_gauss": tiles_per_gauss, "isect_ids": isect_ids, "offsets": offsets,
                "n_isects": torch.tensor(flatten_ids.numel())}

    def raster_inputs():
        radii, means2d, depths, conics, _ = project()
        _, isect_ids, flatten_ids = ext.intersect_tile(means2d, radii, depths, None, None, C, T, tw, th, True, False)
        offsets = ext.intersect_offset(isect_ids, C, tw, th)
        return means2d, conics, colors, opacities.expand(C, N).contiguous(), offsets, flatten_ids

    def raster():
        means2d, conics, cols, opac, offsets, flatten_ids = raster_inputs()
        img, alpha, last = ext.rasterize_to_pixels_3dgs_fwd(means2d, conics, cols, opac, None, None, W, H, T,
                                                            offsets, flatten_ids)
        return {"colors": img, "alphas": alpha}

    def raster_bwd():
        means2d, conics, cols, opac, offsets, flatten_ids = raster_inputs()
        img, alpha, last = ext.rasterize_to_pixels_3dgs_fwd(means2d, conics, cols, opac, None, None, W, H, T,
                                                            offsets, flatten_ids)
        out = ext.rasterize_to_pixels_3dgs_bwd(means2d, conics, cols, opac, None, None, W, H, T, offsets,
                                               flatten_ids, alpha, last, torch.ones_like(img),
                                               torch.ones_like(alpha), False)
        return {"v_means2d_abs": out[0], "v_means2d": out[1], "v_conics": out[2], "v_colors": out[3],
                "v_opacities": out[4]}

    def adam():
        param = torch.randn(N, 3, generator=g).to(dev)
        grad = torch.randn(N, 3, generator=g).to(dev)
        m, v = torch.zeros_like(param), torch.zeros_like(param)
        ext.adam(param, grad, m, v, None, 1e-3, 0.9, 0.999, 1e-8)
        return {"param": param, "exp_avg": m, "exp_avg_sq": v}

    return {
        "quat_scale_to_covar_preci_fwd": covar,
        "quat_scale_to_covar_preci_bwd": covar_bwd,
        "spherical_harmonics_fwd": sh,
        "spherical_harmonics_bwd": sh_bwd,
        "projection_ewa_3dgs_fused_fwd": project,
        "projection_ewa_3dgs_fused_bwd": project_bwd,
        "projection_2dgs_fused_fwd": project_2dgs,
        "projection_2dgs_fused_bwd": project_2dgs_bwd,
        "intersect_tile_offset": tiles,
        "rasterize_to_pixels_3dgs_fwd": raster,
        "rasterize_to_pixels_3dgs_bwd": raster_bwd,
        "adam": adam,
    }
