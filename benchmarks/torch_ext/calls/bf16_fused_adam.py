"""Op calls of bf16_fused_adam 0.1 (pybind11 module bf16_fused_adam_backend), seeded inputs.

csrc/bf16_fused_adam.cu: bf16_fused_adamw_cuda_impl_(params, mantissas, grads, exp_avgs, exp_avg_sqs, state_steps,
lr, beta1, beta2, weight_decay, eps) updates every tensor list in place through PyTorch's
multi_tensor_apply_for_fused_optimizer (ATen/native/cuda/MultiTensorApply.cuh, hipified on ROCm): AdamW on fp32
values split into a bf16 value and a bf16 mantissa. Three parameters of 4096, 1000003 (unaligned tail) and 7x333
elements, steps 1 and 10; the call returns the updated fp32 master weights (value and mantissa joined) and moments.
"""


def cases(ops, torch, dev):
    g = torch.Generator(device="cpu").manual_seed(0)
    out = {}
    for step in (1.0, 10.0):
        shapes = ((4096,), (1000003,), (7, 333))
        full = [torch.randn(*s, generator=g) for s in shapes]
        params = [f.to(torch.bfloat16) for f in full]
        # the low 16 bits of each fp32 value, as the package's optimizer keeps them
        mant = [(f.view(torch.int32) & 0xFFFF).to(torch.int16).view(torch.bfloat16) for f in full]
        grads = [(torch.randn(*s, generator=g) * 0.1).to(torch.bfloat16) for s in shapes]
        m1 = [(torch.randn(*s, generator=g) * 0.01).to(torch.bfloat16) for s in shapes]
        m2 = [(torch.rand(*s, generator=g) * 1e-3).to(torch.bfloat16) for s in shapes]

        def run(params=params, mant=mant, grads=grads, m1=m1, m2=m2, step=step):
            p, m, e1, e2 = ([t.clone().to(dev) for t in ts] for ts in (params, mant, m1, m2))
            gr = [t.to(dev) for t in grads]
            steps = [torch.tensor(step, dtype=torch.float32, device=dev) for _ in p]
            ops.bf16_fused_adamw_cuda_impl_(p, m, gr, e1, e2, steps, 1e-3, 0.9, 0.999, 0.01, 1e-8)
            # each parameter as the fp32 value its bf16 value and mantissa make (the optimizer's master weight)
            whole = [((a.view(torch.int16).to(torch.int32) << 16) | (b.view(torch.int16).to(torch.int32) & 0xFFFF))
                     .view(torch.float32) for a, b in zip(p, m)]
            return whole + e1 + e2
        out[f"adamw_step{int(step)}"] = run
    return out
