"""Op calls of diffusion_policy_accelerated 1.5 (pybind11 modules diffusion_policy_accelerated.conv1d_gnm and
.denoise), seeded inputs.

csrc/conv1d_gnm_kernel.cu: conv1d_gnm(input, conv_w, conv_b, gn_w, gn_b, out_channels, padding, kernel_size,
channels_per_thread) -> a 1-D convolution (kernel 5, padding 2; each block one output channel, its sums reduced by
__shfl_down_sync over warpSize lanes: vado's port keeps CUDA's 32-lane warps on gfx942's 64-lane wavefronts),
then group norm over 8 groups and Mish. Every (channels, length) the launcher has a kernel for, out_channels so
that its group-norm chunk is 256, 512 or 1024. csrc/denoise_kernel.cu: denoise(model_output, sample, constants,
timestep, noise) -> one DDPM step on a 1x2x16 action sample, timesteps 0, 7 and 99.
"""


def cases(ops, torch, dev):
    g = torch.Generator(device="cpu").manual_seed(0)
    out = {}
    conv, den = ops.conv1d_gnm, ops.denoise  # two pybind11 extensions: the harness's namespace of them
    for cin, length, cout in ((2, 16, 256), (512, 4, 1024), (256, 16, 512), (512, 8, 512), (1024, 4, 2048),
                              (256, 8, 256), (2048, 4, 1024)):
        x = torch.randn(1, cin, length, generator=g).to(dev)
        w = (torch.randn(cout, cin, 5, generator=g) / (cin * 5) ** 0.5).to(dev)
        b = (torch.randn(cout, generator=g) * 0.1).to(dev)
        gw = (1.0 + 0.1 * torch.randn(cout, generator=g)).to(dev)
        gb = (0.1 * torch.randn(cout, generator=g)).to(dev)
        out[f"conv1d_gnm_{cin}x{length}_to_{cout}"] = (
            lambda x=x, w=w, b=b, gw=gw, gb=gb, cout=cout: conv.conv1d_gnm(x, w, b, gw, gb, cout, 2, 5, 2))
    constants = (torch.rand(100 * 5, generator=g) * 0.9 + 0.05).to(dev)
    for t in (0, 7, 99):
        mo = torch.randn(1, 2, 16, generator=g).to(dev)
        sample = torch.randn(1, 2, 16, generator=g).to(dev)
        noise = torch.randn(1, 2, 16, generator=g).to(dev)
        step = torch.tensor([t], dtype=torch.int64, device=dev)
        out[f"denoise_t{t}"] = lambda mo=mo, s=sample, n=noise, st=step: den.denoise(mo, s, constants, st, n)
    return out
