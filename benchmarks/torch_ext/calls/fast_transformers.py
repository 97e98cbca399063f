"""Op calls of pytorch-fast-transformers 0.4.0 (eight pybind11 modules: ext.hash_cuda … ext.local_product_cuda),
seeded inputs.

Every function of the eight CUDAExtensions' PYBIND11_MODULEs, called with the arguments the package's Python
wrappers give them (fast_transformers/{hashing,aggregate,clustering/hamming,sparse_product,causal_product,
local_product}/__init__.py; the clustered bookkeeping tensors as those wrappers build them). The CUDA functions
write into output tensors given to them: each call allocates them and returns them. Float only (the kernels take
float accessors). N = 2 sequences, H = 3 heads, L = 150 queries (the second sequence 113 long: its padded queries
in cluster K + 1, as the CUDA k-means labels them), S = 77 keys, E = 40, C = 11 clusters. The cluster labels and
the sorted order are made here on the CPU (a stable sort), so each op gets the same inputs in both builds
whatever another op returns.
"""


def cases(ext, torch, dev):
    g = torch.Generator(device="cpu").manual_seed(0)
    n, h, l, s, e, c, k = 2, 3, 150, 77, 40, 11, 13
    d = lambda x: x.to(dev).contiguous()
    lengths = torch.tensor([l, 113], dtype=torch.int32)

    # Cluster labels: every cluster non-empty among each sequence's valid queries, padded queries in C + 1.
    groups = torch.full((n, h, l), c + 1, dtype=torch.int32)
    for i in range(n):
        for j in range(h):
            m = int(lengths[i])
            lab = torch.cat([torch.arange(c), torch.randint(0, c, (m - c,), generator=g)])
            groups[i, j, :m] = lab[torch.randperm(m, generator=g)].int()
    counts = torch.stack([torch.stack([torch.bincount(groups[i, j][groups[i, j] < c].long(), minlength=c)
                                       for j in range(h)]) for i in range(n)]).int()
    sorted_g, sorted_gi = torch.sort(groups.view(n * h, -1), dim=-1, stable=True)
    sorted_g = sorted_g.view(n, h, l).contiguous()

    def by_group(x):  # queries rearranged in cluster order, as the clustered attentions do
        q_offset = torch.arange(n * h).unsqueeze(-1) * l
        flat = (sorted_gi + q_offset).reshape(-1)
        return x.reshape(-1, x.shape[-1]).index_select(0, flat).view(*x.shape)

    Q = torch.randn(n, h, l, e, generator=g)
    K = torch.randn(n, h, s, e, generator=g)
    V = torch.randn(n, h, s, e, generator=g)
    sQ = by_group(Q)
    topk = torch.rand(n, h, l, s, generator=g).argsort(dim=-1)[..., :k].contiguous()
    topk_c = torch.rand(n, h, c, s, generator=g).argsort(dim=-1)[..., :k].contiguous()
    grad_lk = torch.randn(n, h, l, k, generator=g)
    grad_le = torch.randn(n, h, l, e, generator=g)
    weights = torch.softmax(torch.randn(n, h, l, k, generator=g), -1)

    # --- hashing: compute_hashes(X, A, H) (H: int64 codes, written) -------------------------------------------
    def hashes(rows, dim, bits):
        X = torch.randn(rows, dim, generator=g)
        A = torch.randn(bits, dim + 1, generator=g)
        A[:, -1] = 0.1 * torch.randn(bits, generator=g)

        def call():
            H = torch.zeros(rows, dtype=torch.int64, device=dev)
            ext.hash_cuda.compute_hashes(d(X), d(A), H)
            return H
        return call

    # --- aggregate / broadcast --------------------------------------------------------------------------------
    F = (1.0 / counts.float().clamp(min=1)).contiguous()
    Yc = torch.randn(n, h, c, e, generator=g)

    def aggregate():
        Y = torch.zeros(n, h, c, e, device=dev)
        ext.aggregate_cuda.aggregate(d(Q), d(groups), d(F), Y)
        return Y

    def broadcast():
        X = torch.zeros(n, h, l, e, device=dev)
        ext.aggregate_cuda.broadcast(d(Yc), d(groups), d(F), X)
        return X

    def clustered_aggregate():
        Y = torch.zeros(n, h, c, e, device=dev)
        ext.clustered_aggregate_cuda.clustered_aggregate(d(sQ), d(sorted_g), d(F), d(lengths), Y)
        return Y

    def clustered_broadcast():
        # aggregate/__init__.py's clustered_broadcast: groups of clusters, one block per 256 queries of a group.
        threads = 256
        c_per_block = int(192 * 64 / (e + 1))
        G = next(x for x in range((c + c_per_block - 1) // c_per_block, c + 1) if c % x == 0)
        group_counts = counts.view(n, h, G, -1).sum(-1)
        block_counts = (group_counts + threads - 1) // threads
        total_blocks = int(block_counts.sum())
        indx_maps = torch.ones((total_blocks, 5), dtype=torch.int32, device=dev)
        X = torch.zeros(n, h, l, e, device=dev)
        ext.clustered_aggregate_cuda.clustered_broadcast(d(Yc), d(sorted_g), d(torch.ones(n, h, c)), X,
                                                         d(block_counts.int()), d(group_counts.int()), threads, G,
                                                         total_blocks, indx_maps)
        return X

    # --- clustering: cluster(hashes, lengths, centroids, distances, bitcounts, clusters, counts, iters, bits) ---
    def cluster(bits, iterations):
        codes = torch.randint(0, 2 ** bits, (n, h, l), generator=g, dtype=torch.int64)
        init = torch.randperm(int(lengths.min()), generator=g)[:c]

        def call():
            centroids = d(codes[:, :, init])
            distances = torch.empty((n, h, l), dtype=torch.int32, device=dev)
            bitcounts = torch.empty((n, h, c, bits), dtype=torch.int32, device=dev)
            labels = torch.empty((n, h, l), dtype=torch.int32, device=dev)
            cnt = torch.empty((n, h, c), dtype=torch.int32, device=dev)
            ext.cluster_cuda.cluster(d(codes), d(lengths), centroids, distances, bitcounts, labels, cnt, iterations,
                                     bits)
            return labels, cnt, centroids
        return call

    # --- sparse products over topk ----------------------------------------------------------------------------
    def sparse_dot():
        product = torch.empty((n, h, l, k), device=dev)
        ext.sparse_product_cuda.sparse_dot_product(d(Q), d(K), d(topk), product)
        gQ, gK = torch.zeros(n, h, l, e, device=dev), torch.zeros(n, h, s, e, device=dev)
        ext.sparse_product_cuda.sparse_dot_backward(d(Q), d(K), d(topk), d(grad_lk), gQ, gK)
        return product, gQ, gK

    def sparse_average():
        out = torch.zeros(n, h, l, e, device=dev)
        ext.sparse_product_cuda.sparse_weighted_average(d(weights), d(V), d(topk), out)
        gw, gv = torch.zeros(n, h, l, k, device=dev), torch.zeros(n, h, s, e, device=dev)
        ext.sparse_product_cuda.sparse_weighted_average_backward(d(weights), d(V), d(topk), d(grad_le), gw, gv)
        return out, gw, gv

    # sparse_product/__init__.py's bookkeeping for the clustered kernels (16 queries a block).
    q_pb = 16
    block_counts = ((counts + q_pb - 1) // q_pb).int()
    block_counts_cumsum = block_counts.view(-1).cumsum(-1).view(n, h, c).int()
    counts_cumsum = counts.cumsum(-1).int()
    total_blocks = int(block_counts.sum())
    book = lambda: (d(counts_cumsum - counts), d(counts_cumsum), d(block_counts), d(block_counts_cumsum),
                    total_blocks, torch.ones((total_blocks, 4), dtype=torch.int32, device=dev))

    def clustered_sparse_dot():
        mod = ext.clustered_sparse_product_cuda
        product = torch.zeros((n, h, l, k), device=dev)
        mod.clustered_sparse_dot_product(d(sQ), d(K), d(topk_c.int()), *book(), product)
        gQ, gK = torch.zeros(n, h, l, e, device=dev), torch.zeros(n, h, s, e, device=dev)
        mod.clustered_sparse_dot_backward(d(sQ), d(K), d(sorted_g), d(topk_c.int()), d(grad_lk), gQ, gK, *book())
        return product, gQ, gK

    def clustered_sparse_average():
        mod = ext.clustered_sparse_product_cuda
        out = torch.zeros(n, h, l, e, device=dev)
        mod.clustered_sparse_weighted_average(d(weights), d(V), d(topk_c.int()), out, *book())
        gw, gv = torch.zeros(n, h, l, k, device=dev), torch.zeros(n, h, s, e, device=dev)
        mod.clustered_sparse_weighted_average_backward(d(weights), d(V), d(topk_c.int()), d(grad_le), gw, gv, *book())
        return out, gw, gv

    # --- causal linear attention: causal_dot_product(Q, K, V, out), causal_dot_backward(Q, K, V, g, gQ, gK, gV) -
    def causal(length, e_dim, m_dim):
        q = torch.nn.functional.elu(torch.randn(n, h, length, e_dim, generator=g)) + 1
        kk = torch.nn.functional.elu(torch.randn(n, h, length, e_dim, generator=g)) + 1
        v = torch.randn(n, h, length, m_dim, generator=g)
        go = torch.randn(n, h, length, m_dim, generator=g)

        def call():
            out = torch.zeros((n, h, length, m_dim), device=dev)
            ext.causal_product_cuda.causal_dot_product(d(q), d(kk), d(v), out)
            gq, gk, gv = (torch.zeros(n, h, length, e_dim, device=dev), torch.zeros(n, h, length, e_dim, device=dev),
                          torch.zeros(n, h, length, m_dim, device=dev))
            ext.causal_product_cuda.causal_dot_backward(d(q), d(kk), d(v), d(go), gq, gk, gv)
            return out, gq, gk, gv
        return call

    # --- local attention: local_dot_product(Q, K, attn_mask, key_lengths, ctx) -> (N, H, L, ctx) …
    key_lengths = torch.tensor([l, 121], dtype=torch.int64)
    causal_mask = torch.tril(torch.ones(l, l, dtype=torch.bool))
    masks = {"full": torch.zeros(l, l), "causal": (~causal_mask).float() * -1e24}
    Kl, Vl = torch.randn(n, h, l, e, generator=g), torch.randn(n, h, l, e, generator=g)

    def local(ctx, mask):
        grad_qk = torch.randn(n, h, l, ctx, generator=g)
        grad_v = torch.randn(n, h, l, e, generator=g)
        # local_attention.py's A = softmax(QK) over the context: here of seeded scores, not of local_dot_product's
        # output, so local_weighted_average gets the same input in both builds.
        a = torch.softmax(torch.randn(n, h, l, ctx, generator=g), dim=-1)

        def call():
            mod = ext.local_product_cuda
            qk = mod.local_dot_product(d(Q), d(Kl), d(masks[mask]), d(key_lengths), ctx)
            gq, gk = mod.local_dot_backward(d(Q), d(Kl), d(key_lengths), d(grad_qk), ctx)
            out = mod.local_weighted_average(d(a), d(Vl))
            ga, gv = mod.local_weighted_average_backward(d(a), d(Vl), d(grad_v))
            return qk, gq, gk, out, ga, gv
        return call

    return {
        "compute_hashes_b20": hashes(1000, 37, 20),
        "compute_hashes_b63": hashes(777, 64, 63),
        "aggregate": aggregate,
        "broadcast": broadcast,
        "clustered_aggregate": clustered_aggregate,
        "clustered_broadcast": clustered_broadcast,
        "cluster_b16": cluster(16, 5),
        "cluster_b32": cluster(32, 10),
        "sparse_dot_product": sparse_dot,
        "sparse_weighted_average": sparse_average,
        "clustered_sparse_dot_product": clustered_sparse_dot,
        "clustered_sparse_weighted_average": clustered_sparse_average,
        "causal_dot_product_e32": causal(150, 32, 32),
        "causal_dot_product_e64_m48": causal(201, 64, 48),
        "causal_dot_product_e200": causal(70, 200, 24),
        "local_product_ctx25_full": local(25, "full"),
        "local_product_ctx64_causal": local(64, "causal"),
    }
