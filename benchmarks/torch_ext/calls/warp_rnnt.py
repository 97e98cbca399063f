"""Op calls of warp_rnnt 0.7.0 (module warp_rnnt._C), seeded inputs.

binding.cpp's PYBIND11_MODULE: rnnt_loss(xs, ys, xn, yn, blank=0, fastemit_lambda=0.0) -> (costs, grads)
(xs (N, T, U, V) float log-probabilities, ys (N, U-1) int32 labels, xn/yn (N,) int32 lengths; blank -1: the
gathered layout, V == 2, core_gather.cu), rnnt_loss_compact(xs, ys, xn, yn, blank=0, fastemit_lambda=0.0,
required_grad=True) -> (costs, grads, loc) (xs (sum T_i (U_i+1), V), ys (sum U_i,)) and
rnnt_loss_compact_backward(grad_costs, grad_xs, cumSum, loc, V, blank=0) -> (STU, V). Float only (CHECK_FLOAT),
CUDA only. The inputs as warp_rnnt/__init__.py builds them; T = 70 frames (blocks of W = 32 threads over T:
three, the last partly filled), ragged lengths, FastEmit on and off.
"""


def cases(ext, torch, dev):
    g = torch.Generator(device="cpu").manual_seed(0)
    n, t, u, v = 3, 70, 9, 19
    xn = torch.tensor([70, 51, 33], dtype=torch.int32)
    yn = torch.tensor([8, 5, 1], dtype=torch.int32)
    logits = torch.randn(n, t, u, v, generator=g)
    xs = torch.log_softmax(logits, dim=-1).contiguous()
    ys = torch.randint(1, v, (n, u - 1), generator=g, dtype=torch.int32)
    # The gathered layout (rnnt_loss(gather=True)): xs[..., 0] the blank's, xs[..., 1] the next label's; blank -1.
    index = torch.zeros(n, t, u, 2, dtype=torch.long)
    index[:, :, :u - 1, 1] = ys.long().unsqueeze(1)
    xs_gathered = xs.gather(3, index).contiguous()
    # The compact layout: sequence i's (T_i, U_i + 1, V) block, flattened, one after the other.
    blank2 = 5  # a blank other than 0: labels avoid it
    ys2 = torch.randint(0, v - 1, (n, u - 1), generator=g, dtype=torch.int32)
    ys2 = ys2 + (ys2 >= blank2).int()
    compact_xs = torch.cat([xs[i, :xn[i], :yn[i] + 1].reshape(-1, v) for i in range(n)]).contiguous()
    compact_ys = torch.cat([ys[i, :yn[i]] for i in range(n)]).contiguous()
    compact_ys2 = torch.cat([ys2[i, :yn[i]] for i in range(n)]).contiguous()
    cumlen = torch.cumsum(xn * (yn + 1), dim=0, dtype=torch.int32)
    grad_costs = torch.rand(n, generator=g) + 0.5
    d = lambda x: x.to(dev)

    def compact(ys_, blank, lam):
        def call():
            costs, grads, loc = ext.rnnt_loss_compact(d(compact_xs), d(ys_), d(xn), d(yn), blank, lam, True)
            back = ext.rnnt_loss_compact_backward(d(grad_costs), grads, d(cumlen), loc, v, blank)
            return costs, grads, loc, back
        return call

    return {
        "rnnt_loss": lambda: ext.rnnt_loss(d(xs), d(ys), d(xn), d(yn), 0, 0.0),
        "rnnt_loss_fastemit": lambda: ext.rnnt_loss(d(xs), d(ys), d(xn), d(yn), 0, 0.01),
        "rnnt_loss_blank5": lambda: ext.rnnt_loss(d(xs), d(ys2), d(xn), d(yn), blank2, 0.0),
        "rnnt_loss_gather": lambda: ext.rnnt_loss(d(xs_gathered), d(ys), d(xn), d(yn), -1, 0.0),
        "rnnt_loss_gather_fastemit": lambda: ext.rnnt_loss(d(xs_gathered), d(ys), d(xn), d(yn), -1, 0.01),
        "rnnt_loss_compact": compact(compact_ys, 0, 0.0),
        "rnnt_loss_compact_fastemit": compact(compact_ys, 0, 0.01),
        "rnnt_loss_compact_blank5": compact(compact_ys2, blank2, 0.0),
        "rnnt_loss_compact_no_grad": lambda: ext.rnnt_loss_compact(d(compact_xs), d(compact_ys), d(xn), d(yn), 0,
                                                                   0.0, False)[0],
    }
