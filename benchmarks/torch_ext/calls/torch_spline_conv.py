"""Op calls of torch_spline_conv 1.2.2 (torch.ops.torch_spline_conv): basis, weighting and their backward."""


def cases(ops, torch, dev):
    g = torch.Generator(device="cpu").manual_seed(0)
    E, Cin, Cout = 3000, 16, 32
    out = {}
    for degree in (1, 2, 3):
        pseudo = torch.rand(E, 2, generator=g).to(dev)
        ks = torch.tensor([5, 5]).to(dev)
        opn = torch.tensor([1, 0], dtype=torch.uint8).to(dev)
        x = torch.randn(E, Cin, generator=g).to(dev)
        weight = torch.randn(25, Cin, Cout, generator=g).to(dev)
        grad = torch.randn(E, Cout, generator=g).to(dev)

        def fwd_bwd(pseudo=pseudo, ks=ks, opn=opn, x=x, weight=weight, grad=grad, degree=degree):
            p = pseudo.clone().requires_grad_()
            basis, wi = ops.spline_basis(p, ks, opn, degree)
            xx, ww = x.clone().requires_grad_(), weight.clone().requires_grad_()
            y = ops.spline_weighting(xx, ww, basis, wi)
            gx, gw, gp = torch.autograd.grad(y, [xx, ww, p], grad)
            return {"basis": basis.detach(), "weight_index": wi, "out": y.detach(), "grad_x": gx,
                    "grad_weight": gw, "grad_pseudo": gp}

        out[f"spline_degree{degree}"] = fwd_bwd
    return out
