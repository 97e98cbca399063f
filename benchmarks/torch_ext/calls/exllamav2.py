"""Op calls of exllamav2 0.0.4 (pybind11 module exllamav2_ext), seeded inputs: the ops that need no quantized model.

ext.cpp: rms_norm(x, w, y, eps) and rms_norm_(x, w, eps) (cuda/rms_norm.cu: a row's sum of squares reduced across
the block, warp shuffles then shared memory) and rope_(x, sin, cos, past_len, num_heads, head_dim) (cuda/rope.cu:
rotary embedding in place, half2 where head_dim allows). All fp16, as the ops require. The quantized GEMM, MLP and
attention ops take matrices make_q_matrix builds from a GPTQ/EXL2 checkpoint's tensors: not called here.
"""


def cases(ops, torch, dev):
    g = torch.Generator(device="cpu").manual_seed(0)
    out = {}
    for rows, dim in ((1, 4096), (7, 5120), (33, 2048), (3, 8192)):
        x = torch.randn(rows, dim, generator=g).half().to(dev)
        w = (1.0 + 0.1 * torch.randn(dim, generator=g)).half().to(dev)

        def norm(x=x, w=w):
            y = torch.empty_like(x)
            ops.rms_norm(x, w, y, 1e-6)
            return y

        def norm_in_place(x=x, w=w):
            z = x.clone()
            ops.rms_norm_(z, w, 1e-5)
            return z
        out[f"rms_norm_{rows}x{dim}"] = norm
        out[f"rms_norm__{rows}x{dim}"] = norm_in_place
    max_seq = 256
    for batch, seq, heads, head_dim, past in ((1, 1, 32, 128, 17), (2, 9, 8, 128, 0), (3, 5, 4, 64, 100), (1, 16, 2, 96, 3)):
        inv = 1.0 / (10000.0 ** (torch.arange(0, head_dim, 2, dtype=torch.float32) / head_dim))
        freqs = torch.outer(torch.arange(max_seq, dtype=torch.float32), inv)
        emb = torch.cat((freqs, freqs), dim=-1)
        sin, cos = emb.sin().half().to(dev), emb.cos().half().to(dev)
        x = torch.randn(batch, seq, heads, head_dim, generator=g).half().to(dev)

        def rope(x=x, sin=sin, cos=cos, past=past, heads=heads, head_dim=head_dim):
            z = x.clone()
            ops.rope_(z, sin, cos, past, heads, head_dim)
            return z
        out[f"rope__{batch}x{seq}x{heads}x{head_dim}_past{past}"] = rope
    return out
