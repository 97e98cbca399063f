"""Op calls of torch_sparse 0.6.18 (torch.ops.torch_sparse), seeded inputs; the ops of its four extensions
with CUDA sources (convert, diag, rw, spmm).

ind2ptr(ind, M), ptr2ind(ptr, E) (convert.cpp), non_diag_mask(row, col, M, N, k) (diag.cpp),
random_walk(rowptr, col, start, walk_length) (rw.cpp; draws from the generator: seeded first) and spmm_sum/
spmm_mean(row?, rowptr, col, value?, [rowcount?,] colptr?, csr2csc?, mat), spmm_min/spmm_max(rowptr, col, value?,
mat) (spmm.cpp), with the optional CSR/CSC tensors torch_sparse/matmul.py passes, each dtype the CUDA kernels
dispatch (float, double, half; AT_DISPATCH_ALL_TYPES_AND(Half)), with and without values, and the backward of
spmm_sum/spmm_mean/spmm_min/spmm_max through autograd (the grads of value and mat: spmm_value_bw and the
transposed spmm). A 1000 x 700 matrix of about 9000 entries, some rows empty, mat of 37 and 64 + 13 columns.
"""


def cases(ops, torch, dev):
    g = torch.Generator(device="cpu").manual_seed(0)
    m, n, nnz = 1000, 700, 9000
    row = torch.randint(0, m, (nnz,), generator=g)
    row[row % 97 == 0] += 1  # every 97th row empty
    row = row.clamp(max=m - 1)
    col = torch.randint(0, n, (nnz,), generator=g)
    idx = torch.unique(row * n + col)  # sorted, no duplicates
    row, col = idx // n, idx % n
    e = row.numel()
    rowptr = torch.zeros(m + 1, dtype=torch.long)
    rowptr[1:] = torch.bincount(row, minlength=m).cumsum(0)
    perm = (col * m + row).argsort()
    csr2csc = perm
    colptr = torch.zeros(n + 1, dtype=torch.long)
    colptr[1:] = torch.bincount(col, minlength=n).cumsum(0)
    rowcount = torch.bincount(row, minlength=m)
    value = torch.rand(e, generator=g, dtype=torch.float64) + 0.1
    mats = {f: torch.randn(n, f, generator=g, dtype=torch.float64) for f in (37, 77)}
    grads = {f: torch.randn(m, f, generator=g, dtype=torch.float64) for f in (37, 77)}
    d = lambda x: None if x is None else x.to(dev)
    out = {}

    out["ind2ptr"] = lambda: ops.ind2ptr(d(row), m)
    out["ind2ptr_empty_tail"] = lambda: ops.ind2ptr(d(row[row < 800]), m)
    out["ptr2ind"] = lambda: ops.ptr2ind(d(rowptr), e)
    # Square matrix with its diagonal: the mask drops the diagonal (offset k) entries.
    sq = torch.unique(torch.cat([torch.arange(m) * m + torch.arange(m), row * m + torch.clamp(col, max=m - 1)]))
    srow, scol = sq // m, sq % m
    out["non_diag_mask"] = lambda: ops.non_diag_mask(d(srow), d(scol), m, m, 0)
    out["non_diag_mask_k3"] = lambda: ops.non_diag_mask(d(srow), d(scol), m, m, 3)
    out["non_diag_mask_rect"] = lambda: ops.non_diag_mask(d(row), d(col), m, n, -2)

    # A graph for random walks: the square matrix above, every node with at least its self loop.
    sq_rowptr = torch.zeros(m + 1, dtype=torch.long)
    sq_rowptr[1:] = torch.bincount(srow, minlength=m).cumsum(0)

    def walk(start, length):
        def call():
            torch.manual_seed(1)
            return ops.random_walk(d(sq_rowptr), d(scol), d(start), length)
        return call

    out["random_walk"] = walk(torch.arange(m), 10)
    out["random_walk_repeat"] = walk(torch.arange(0, m, 7).repeat(3), 25)

    for dtype in (torch.float32, torch.float64, torch.float16):
        tag = str(dtype).split(".")[-1]
        for f in (37, 77):
            mat = mats[f].to(dtype)
            val = value.to(dtype)
            out[f"spmm_sum_{f}_{tag}"] = (lambda mat=mat, val=val: ops.spmm_sum(
                None, d(rowptr), d(col), d(val), None, None, d(mat)))
            out[f"spmm_sum_novalue_{f}_{tag}"] = (lambda mat=mat: ops.spmm_sum(
                None, d(rowptr), d(col), None, None, None, d(mat)))
            out[f"spmm_mean_{f}_{tag}"] = (lambda mat=mat, val=val: ops.spmm_mean(
                None, d(rowptr), d(col), d(val), None, None, None, d(mat)))
            out[f"spmm_min_{f}_{tag}"] = (lambda mat=mat, val=val: ops.spmm_min(d(rowptr), d(col), d(val), d(mat)))
            out[f"spmm_max_{f}_{tag}"] = (lambda mat=mat, val=val: ops.spmm_max(d(rowptr), d(col), d(val), d(mat)))
            out[f"spmm_max_novalue_{f}_{tag}"] = (lambda mat=mat: ops.spmm_max(d(rowptr), d(col), None, d(mat)))

    def backward(reduce, dtype, f):
        def call():
            val = d(value.to(dtype)).requires_grad_()
            mat = d(mats[f].to(dtype)).requires_grad_()
            if reduce == "sum":
                y = ops.spmm_sum(d(row), d(rowptr), d(col), val, d(colptr), d(csr2csc), mat)
            elif reduce == "mean":
                y = ops.spmm_mean(d(row), d(rowptr), d(col), val, d(rowcount), d(colptr), d(csr2csc), mat)
            else:
                y, arg = getattr(ops, f"spmm_{reduce}")(d(rowptr), d(col), val, mat)
            gv, gm = torch.autograd.grad(y, (val, mat), d(grads[f].to(dtype)))
            return y.detach(), gv, gm
        return call

    for dtype in (torch.float32, torch.float64):
        tag = str(dtype).split(".")[-1]
        for reduce in ("sum", "mean", "min", "max"):
            out[f"spmm_{reduce}_backward_77_{tag}"] = backward(reduce, dtype, 77)
    return out
