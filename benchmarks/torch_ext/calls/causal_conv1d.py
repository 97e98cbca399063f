"""Calls of causal_conv1d 1.7.0's causal_conv1d_cuda (fwd, bwd, update), channel-first and channel-last."""


def cases(ext, torch, dev):
    g = torch.Generator(device="cpu").manual_seed(0)
    out = {}
    for dt in (torch.float32, torch.float16, torch.bfloat16):
        for width in (2, 4):
            for last in (False, True):
                B, D, L = 2, 64, 515
                x = torch.randn(B, L, D, generator=g).transpose(1, 2) if last else torch.randn(B, D, L, generator=g)
                x = x.to(dev, dt)
                w = torch.randn(D, width, generator=g).to(dev, dt)
                b = torch.randn(D, generator=g).to(dev, dt)
                dout = torch.randn(B, D, L, generator=g).to(dev, dt)
                if last:
                    dout = dout.transpose(1, 2).contiguous().transpose(1, 2)
                tag = f"{str(dt).split('.')[-1]}_w{width}{'_last' if last else ''}"

                def fwd(x=x, w=w, b=b):
                    o = torch.empty_like(x)
                    ext.causal_conv1d_fwd(x, w, b, None, None, o, None, True)
                    return o

                def bwd(x=x, w=w, b=b, dout=dout):
                    dx = torch.empty_like(x)
                    dw = torch.zeros(w.shape, device=dev, dtype=torch.float32)
                    db = torch.zeros(b.shape, device=dev, dtype=torch.float32)
                    ext.causal_conv1d_bwd(x, w, b, dout, None, None, None, dx, dw, db, None, True)
                    return {"dx": dx, "dweight": dw, "dbias": db}

                out[f"fwd_{tag}"], out[f"bwd_{tag}"] = fwd, bwd
            state = torch.randn(3, 64, width, generator=g).to(dev, dt)
            xu = torch.randn(3, 64, generator=g).to(dev, dt)
            wu = torch.randn(64, width, generator=g).to(dev, dt)

            def update(state=state, xu=xu, wu=wu):
                s, o = state.clone(), torch.empty_like(xu)
                # the extension takes x as (batch, dim, seqlen): the Python wrapper unsqueezes a (batch, dim) x
                # (causal_conv1d_interface.causal_conv1d_update); the H200 run of 2026-12-05 passed it 2-D, and
                # both builds rejected it ("x must have shape (batch_size, dim, seqlen)")
                x3, o3 = xu.unsqueeze(-1), o.unsqueeze(-1)
                ext.causal_conv1d_update(x3, s, wu, None, o3, False, None, None)
                return {"out": o, "conv_state": s}

            out[f"update_{str(dt).split('.')[-1]}_w{width}"] = update
    return out
