"""Op calls of torch_llm_kernels 0.1.0 (torch.ops.torch_llm_kernels), seeded inputs.

swiglu_kernel.cu's TORCH_LIBRARY: swiglu_forward(gate, up) -> silu(gate) * up and swiglu_backward(grad_output,
gate, up) -> (grad_gate, grad_up), each dtype its CUDA dispatch takes (AT_DISPATCH_FLOATING_TYPES_AND2(Half,
BFloat16)); 1000 x 333 elements (not a multiple of the 256-thread block) and an empty tensor (the early return).
"""


def cases(ops, torch, dev):
    g = torch.Generator(device="cpu").manual_seed(0)
    gate = torch.randn(1000, 333, generator=g, dtype=torch.float64) * 4
    up = torch.randn(1000, 333, generator=g, dtype=torch.float64)
    grad = torch.randn(1000, 333, generator=g, dtype=torch.float64)
    out = {}
    for dtype in (torch.float32, torch.float64, torch.float16, torch.bfloat16):
        tag = str(dtype).split(".")[-1]
        a, b, d = (t.to(dtype).to(dev) for t in (gate, up, grad))
        out[f"swiglu_forward_{tag}"] = lambda a=a, b=b: ops.swiglu_forward(a, b)
        out[f"swiglu_backward_{tag}"] = lambda a=a, b=b, d=d: ops.swiglu_backward(d, a, b)
    empty = torch.empty(0, 7, device=dev)
    out["swiglu_forward_empty"] = lambda: ops.swiglu_forward(empty, empty)
    return out
