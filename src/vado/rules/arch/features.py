"""ARCH rules on features of particular NVIDIA architectures: warp-matrix (WMMA) tensor cores (ARCH001),
Hopper/Blackwell features (ARCH002), device-side kernel launches (ARCH004), managed memory (ARCH005) and
warp intrinsics whose availability depends on the HIP version (ARCH006).

Each rule matches names in the token stream (never in comments or strings) and reads its per-target
verdicts from a small table of facts with sources.
"""

from __future__ import annotations

from typing import Iterable

from vado.model import Effort, Finding, Severity
from vado.rules import cuda_syntax as cs
from vado.rules.arch.common import AS_IS, BLOCKED, MANUAL, _by_family, _includes
from vado.rules.base import FileContext, Rule, verdicts_for
from vado.scan.lexer import Kind


class WarpMatrixApi(Rule):
    """The CUDA WMMA API (``nvcuda::wmma``, ``<mma.h>``): tensor-core fragments in C++.

    What it does
    ------------
    Finds ``#include <mma.h>``, ``using namespace nvcuda``/``nvcuda::wmma``
    and ``wmma::mma_sync`` calls.

    Why is this bad?
    ----------------
    HIP has no warp-matrix functions. AMD's equivalent is rocWMMA (ROCm 7.2:
    rocWMMA 2.2.0) over MFMA on CDNA and WMMA on RDNA3+: the API is close
    (``rocwmma::fragment``, ``load_matrix_sync``, ``mma_sync``) but the
    supported shapes and types differ and the fragment-to-lane layout is not
    NVIDIA's, so code that touches ``fragment.x[i]`` directly must change.
    SCALE emulates wmma (all shapes except fp8/fp6/fp4, v1.4.2). A third-party
    probe found ZLUDA dropping kernels that use wmma.

    Example
    -------
    .. code-block:: cuda

        #include <mma.h>
        using namespace nvcuda;
        wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;

    Use instead
    -----------
    .. code-block:: cuda

        #include <rocwmma/rocwmma.hpp>
        rocwmma::fragment<rocwmma::matrix_a, 16, 16, 16, rocwmma::float16_t, rocwmma::row_major> a;

    Fix safety
    ----------
    No automatic fix: shapes, types and element layouts must be checked.

    References
    ----------
    - HIP warp matrix functions (unsupported): https://github.com/ROCm/HIP/blob/c5e11fcac8249ce4f7e70157588ff9661a870b59/docs/reference/kernel_language.rst
    - rocWMMA in ROCm 7.2: https://github.com/ROCm/legacy-rocm-build/blob/fff7efbd0c870e1bfba278faa91d517996b7a33a/docs/compatibility/compatibility-matrix.rst
    - SCALE changelog 1.4.2: https://github.com/spectral-compute/scale-docs/blob/f20700f5f55e411fd0c0c1b03da5b896b5b6eae3/docs/manual/changelogs/v1.4.2.md
    - ZLUDA probe (third party): https://github.com/mathiasbourgoin/Sarek/pull/271
    """

    code = "ARCH001"
    name = "warp-matrix-api"
    severity = Severity.HIGH
    file_kinds = cs.CUDA_CXX_KINDS

    _VERDICTS = {"rocm": MANUAL, "oneapi": MANUAL, "scale": AS_IS, "zluda": BLOCKED}

    def check(self, ctx: FileContext) -> Iterable[Finding]:
        view = cs.device_view(ctx)
        toks = view.tokens
        verdicts = verdicts_for(ctx, _by_family(self._VERDICTS))
        data = {"rocm": "rocWMMA (rocwmma::)", "oneapi": "sycl::ext::oneapi::experimental::matrix::joint_matrix"}
        for tok, name in _includes(view, {"mma.h": ""}):
            yield self.finding(ctx, tok[1], tok[2], "<mma.h> is the CUDA WMMA API; on AMD use rocWMMA (<rocwmma/rocwmma.hpp>)",
                               verdicts, effort=Effort(lines=1, constructs=1, hours=0.25), data=data)
        namespace_reported = False
        for i in view.ident_indices(("nvcuda", "mma_sync")):
            tok = toks[i]
            nxt = toks[i + 1][3] if i + 1 < len(toks) else ""
            if tok[3] == "nvcuda" and not namespace_reported and (
                    nxt == "::" or (i > 1 and toks[i - 1][3] == "namespace" and toks[i - 2][3] == "using")):
                namespace_reported = True  # the namespace is ported once per file
                yield self.finding(ctx, tok[1], tok[2], "nvcuda::wmma tensor-core fragments have no HIP equivalent; port to rocWMMA",
                                   verdicts, effort=Effort(lines=1, constructs=1, hours=0.5), data=data)
            elif tok[3] == "mma_sync" and i >= 2 and toks[i - 1][3] == "::" and toks[i - 2][3] == "wmma":
                yield self.finding(ctx, tok[1], tok[2], "wmma::mma_sync: rewrite with rocwmma::mma_sync (check shape, type and layout)",
                                   verdicts, effort=Effort(lines=1, constructs=1, hours=2.0), data=data)


#: Hopper/Blackwell C++ features: name -> (what, verdicts per family, AMD route).
_HOPPER = {
    "__cluster_dims__": ("thread-block clusters", {"rocm": BLOCKED, "oneapi": BLOCKED, "scale": BLOCKED, "zluda": BLOCKED},
                         "none: no clusters on AMD; restructure around thread blocks"),
    "this_cluster": ("thread-block clusters", {"rocm": BLOCKED, "oneapi": BLOCKED, "scale": BLOCKED, "zluda": BLOCKED},
                     "none: no clusters on AMD"),
    "cluster_group": ("thread-block clusters", {"rocm": BLOCKED, "oneapi": BLOCKED, "scale": BLOCKED, "zluda": BLOCKED},
                      "none: no clusters on AMD"),
    "map_shared_rank": ("distributed shared memory", {"rocm": BLOCKED, "oneapi": BLOCKED, "scale": BLOCKED, "zluda": BLOCKED},
                        "none: LDS is private to a workgroup on AMD"),
    "cuTensorMapEncodeTiled": ("TMA descriptors", {"rocm": BLOCKED, "oneapi": BLOCKED, "scale": BLOCKED, "zluda": BLOCKED},
                               "none: rewrite with CK Tile or Triton"),
    "cuTensorMapEncodeIm2col": ("TMA descriptors", {"rocm": BLOCKED, "oneapi": BLOCKED, "scale": BLOCKED, "zluda": BLOCKED},
                                "none: rewrite with CK Tile or Triton"),
    "CUtensorMap": ("TMA descriptors", {"rocm": BLOCKED, "oneapi": BLOCKED, "scale": BLOCKED, "zluda": BLOCKED},
                    "none: rewrite with CK Tile or Triton"),
    "memcpy_async": ("asynchronous copies (cuda::memcpy_async / cooperative_groups::memcpy_async)",
                     {"rocm": MANUAL, "oneapi": MANUAL, "scale": MANUAL, "zluda": MANUAL},
                     "plain loads into __shared__ followed by __syncthreads()"),
    "pipeline": ("cuda::pipeline", {"rocm": MANUAL, "oneapi": MANUAL, "scale": MANUAL, "zluda": MANUAL},
                 "plain loads + __syncthreads(); libhipcxx (preview, not in ROCm 7.2) spells cuda:: names"),
    "barrier": ("cuda::barrier", {"rocm": MANUAL, "oneapi": MANUAL, "scale": MANUAL, "zluda": MANUAL},
                "__syncthreads() for block-wide phases; libhipcxx (preview, not in ROCm 7.2) spells cuda:: names"),
}


class HopperBlackwellFeature(Rule):
    """Hopper/Blackwell C++ features: clusters, distributed shared memory, TMA descriptors, async pipelines.

    What it does
    ------------
    Finds ``__cluster_dims__``, ``cooperative_groups::this_cluster``,
    ``cluster_group``, ``map_shared_rank``, ``cuTensorMapEncodeTiled``/
    ``Im2col``, ``CUtensorMap``, ``cuda::barrier``, ``cuda::pipeline`` and
    ``memcpy_async``.

    Why is this bad?
    ----------------
    AMD GPUs have no thread-block clusters, no distributed shared memory and no
    tensor memory accelerator: code built on them is redesigned (CK Tile or
    Triton for TMA pipelines). ``cuda::barrier``/``cuda::pipeline``/
    ``memcpy_async`` become ordinary loads and ``__syncthreads()``; libhipcxx
    spells the ``cuda::`` names but is an early-access preview outside ROCm 7.2.
    SCALE's runtime lacks the cluster occupancy APIs and its inline PTX lacks
    TMA and mbarrier.

    Example
    -------
    .. code-block:: cuda

        __global__ void __cluster_dims__(2, 1, 1) k(float* x) {
            auto cluster = cooperative_groups::this_cluster();
        }

    Use instead
    -----------
    .. code-block:: cuda

        __global__ void k(float* x) {
            // one workgroup does the work of the cluster; share data through global memory
        }

    Fix safety
    ----------
    No automatic fix.

    References
    ----------
    - Fact base, Hopper TMA / wgmma / mbarrier: https://github.com/ROCm/flash-attention/issues/71
    - libhipcxx: https://rocm.docs.amd.com/projects/libhipcxx/en/latest/what-is-libhipcxx.html
    - SCALE runtime API coverage: https://github.com/spectral-compute/scale-docs/blob/f20700f5f55e411fd0c0c1b03da5b896b5b6eae3/docs/manual/library/apidiff/api-runtime.md
    """

    code = "ARCH002"
    triggers = frozenset(_HOPPER)
    name = "hopper-blackwell-feature"
    severity = Severity.HIGH
    file_kinds = cs.CUDA_CXX_KINDS

    def check(self, ctx: FileContext) -> Iterable[Finding]:
        view = cs.device_view(ctx)
        toks = view.tokens
        for i in view.ident_indices(_HOPPER):
            tok = toks[i]
            name = tok[3]
            if name in ("pipeline", "barrier"):
                # only cuda::pipeline / cuda::barrier (and cuda::std::barrier is host-side C++20; skip it)
                if not (i >= 2 and toks[i - 1][3] == "::" and toks[i - 2][3] == "cuda"):
                    continue
            if name == "memcpy_async" and not (i + 1 < len(toks) and toks[i + 1][3] in ("(", "<")):
                continue
            what, table, route = _HOPPER[name]
            verdicts = verdicts_for(ctx, _by_family(table))
            sev = Severity.CRITICAL if any(v is BLOCKED for v in verdicts.values()) else self.severity
            yield self.finding(ctx, tok[1], tok[2], f"{name} ({what}): no AMD equivalent; {route}", verdicts, severity=sev,
                               effort=Effort(lines=1, constructs=1, hours=8.0 if sev is Severity.CRITICAL else 1.0),
                               data={"feature": what, "route": route})


class DeviceSideKernelLaunch(Rule):
    """Dynamic parallelism: kernel launches and ``cudaDeviceSynchronize`` in device code.

    What it does
    ------------
    Finds ``kernel<<<...>>>`` launches and calls of ``cudaDeviceSynchronize``,
    ``cudaLaunchDevice`` and ``cudaGetParameterBuffer`` inside ``__global__``
    or ``__device__`` function bodies. (Building with ``-rdc=true`` is a build
    file matter: BLD rules.)

    Why is this bad?
    ----------------
    HIP does not support dynamic parallelism: AMD GPUs cannot launch kernels
    from device code. SYCL has no device-side enqueue either. SCALE's runtime
    lacks the device-side ``cudaDeviceSynchronize``.

    Example
    -------
    .. code-block:: cuda

        __global__ void parent(int* d) { child<<<1, 32>>>(d); }

    Use instead
    -----------
    .. code-block:: cuda

        // launch child from the host after parent, or fold its work into parent
        parent<<<g, b>>>(d);
        child<<<1, 32>>>(d);

    Fix safety
    ----------
    No automatic fix: the launch structure moves to the host.

    References
    ----------
    - HIP FAQ (dynamic parallelism not supported): https://github.com/ROCm/HIP/blob/c5e11fcac8249ce4f7e70157588ff9661a870b59/docs/how-to/faq.md
    - SCALE runtime API coverage: https://github.com/spectral-compute/scale-docs/blob/f20700f5f55e411fd0c0c1b03da5b896b5b6eae3/docs/manual/library/apidiff/api-runtime.md
    """

    code = "ARCH004"
    triggers = frozenset({"__global__", "__device__"})  # a device function to launch from
    name = "device-side-kernel-launch"
    severity = Severity.CRITICAL
    file_kinds = cs.CUDA_CXX_KINDS

    _VERDICTS = {"rocm": BLOCKED, "oneapi": BLOCKED, "scale": MANUAL, "zluda": MANUAL}
    _CALLS = frozenset({"cudaDeviceSynchronize", "cudaLaunchDevice", "cudaGetParameterBuffer"})

    def check(self, ctx: FileContext) -> Iterable[Finding]:
        view = cs.device_view(ctx)
        toks = view.tokens
        verdicts = verdicts_for(ctx, _by_family(self._VERDICTS))
        # Only a __global__/__device__ function body can hold a device-side launch, and a
        # function is one when those words are among its tokens: no such word in the
        # code, no device function (a macro for it is defined here too, or the tokens
        # would not show the qualifier either).
        if not view.ident_indices(self.triggers):
            return
        opens = set(view.punct_indices("<<<"))
        shifts = view.punct_indices("<<")
        if shifts:  # launches written `k<< <…>> >(…)` (ARCH011)
            opens.update(a for a, _, _, _ in cs.spaced_launches(toks, ctx.text, shifts + sorted(opens)))
        for i in sorted(opens.union(view.ident_indices(self._CALLS))):
            tok = toks[i]
            is_launch = i in opens and i > 0
            is_call = tok[0] is Kind.IDENT and tok[3] in self._CALLS and i + 1 < len(toks) and toks[i + 1][3] == "("
            if not (is_launch or is_call):
                continue
            func = view.function_at(tok[1])
            if func is None or not func.is_device:
                continue
            where = "__global__" if func.is_kernel else "__device__"
            if is_launch:
                a = i - 1
                msg = f"kernel launch of {toks[a][3]} inside {where} {func.name}: AMD GPUs cannot launch kernels from device code"
                start = toks[a][1]
            else:
                msg = f"{tok[3]} in {where} {func.name} is dynamic parallelism, which HIP does not support"
                start = tok[1]
            yield self.finding(ctx, start, tok[2], msg, verdicts, effort=Effort(lines=3, constructs=1, hours=4.0),
                               data={"function": func.name})


_MANAGED = frozenset({"cudaMallocManaged", "__managed__", "cudaMemAdvise", "cudaMemPrefetchAsync", "cudaMemAdvise_v2",
                      "cudaMemPrefetchAsync_v2"})


class ManagedMemoryAssumption(Rule):
    """Managed (unified) memory: ``cudaMallocManaged``, ``__managed__``, ``cudaMemAdvise``, ``cudaMemPrefetchAsync``.

    What it does
    ------------
    Finds managed-memory allocations, ``__managed__`` variables and the
    advice/prefetch calls that tune page migration.

    Why is this bad?
    ----------------
    It mostly is not: HIP supports managed memory and ``__managed__`` on Linux
    (the AMD driver manages it through Linux HMM), and SCALE implements the
    calls. The verdict for ROCm is therefore *moves as is* (the rename is an
    API finding). Performance is the caveat: page migration depends on the GPU
    and driver (HIP recommends checking ``hipDeviceAttributeManagedMemory``), so
    code tuned with ``cudaMemAdvise``/prefetch hints for NVIDIA should be
    measured again. SYCL has ``malloc_shared`` but no ``__managed__``
    variables.

    Example
    -------
    .. code-block:: cuda

        __managed__ int counter;
        cudaMallocManaged(&buf, n);

    Use instead
    -----------
    .. code-block:: cuda

        __managed__ int counter;  // unchanged on HIP
        hipMallocManaged(&buf, n);

    Fix safety
    ----------
    No fix from this rule (API rules rename the calls).

    References
    ----------
    - HIP programming manual, managed memory: https://github.com/ROCm/HIP/blob/c5e11fcac8249ce4f7e70157588ff9661a870b59/docs/how-to/programming_manual.md
    - SCALE runtime API coverage: https://github.com/spectral-compute/scale-docs/blob/f20700f5f55e411fd0c0c1b03da5b896b5b6eae3/docs/manual/library/apidiff/api-runtime.md
    """

    code = "ARCH005"
    triggers = _MANAGED
    name = "managed-memory-assumption"
    severity = Severity.INFO
    file_kinds = cs.CUDA_CXX_KINDS

    _VERDICTS = {"rocm": AS_IS, "oneapi": MANUAL, "scale": AS_IS, "zluda": MANUAL}

    def check(self, ctx: FileContext) -> Iterable[Finding]:
        view = cs.device_view(ctx)
        toks = view.tokens
        verdicts = verdicts_for(ctx, _by_family(self._VERDICTS))
        for i in view.ident_indices(_MANAGED):
            tok = toks[i]
            if tok[3] != "__managed__" and not (i + 1 < len(toks) and toks[i + 1][3] == "("):
                continue
            yield self.finding(ctx, tok[1], tok[2], f"{tok[3]}: managed memory works on ROCm (Linux HMM); re-measure migration performance",
                               verdicts, effort=Effort(lines=0, constructs=1, hours=0.25), data={"name": tok[3]})


#: Warp-level intrinsics whose availability depends on the target: name -> (first HIP version, note).
_VERSIONED = {
    "__syncwarp": ("7.0", "HIP 7.0 added __syncwarp"),
    "__reduce_add_sync": ("7.0", "HIP 7.0 added __reduce_*_sync"),
    "__reduce_min_sync": ("7.0", "HIP 7.0 added __reduce_*_sync"),
    "__reduce_max_sync": ("7.0", "HIP 7.0 added __reduce_*_sync"),
    "__reduce_and_sync": ("7.0", "HIP 7.0 added __reduce_*_sync"),
    "__reduce_or_sync": ("7.0", "HIP 7.0 added __reduce_*_sync"),
    "__reduce_xor_sync": ("7.0", "HIP 7.0 added __reduce_*_sync"),
    "__match_any_sync": ("6.2", "HIP 6.2 documents __match_any_sync with a 64-bit mask"),
    "__match_all_sync": ("6.2", "HIP 6.2 documents __match_all_sync with a 64-bit mask"),
    "__nanosleep": (None, "HIP has no __nanosleep; use __builtin_amdgcn_s_sleep(N) (about 64 clocks per unit)"),
}


class VersionDependentWarpIntrinsic(Rule):
    """Warp-level intrinsics whose availability depends on the target's HIP version.

    What it does
    ------------
    Finds ``__syncwarp``, ``__reduce_*_sync``, ``__match_any_sync``/
    ``__match_all_sync``, and ``__nanosleep`` calls and checks
    them against each target.

    Why is this bad?
    ----------------
    HIP added ``__syncwarp`` and ``__reduce_*_sync`` in 7.0 and the
    ``_sync`` cross-lane functions in 6.2 (opt-in until 7.0, with 64-bit masks),
    so older ROCm targets such as Debian's HIP 5.2 do not compile them. HIP has
    no ``__nanosleep``.

    Example
    -------
    .. code-block:: cuda

        __syncwarp();
        int s = __reduce_add_sync(0xffffffff, v);
        __nanosleep(100);

    Use instead
    -----------
    .. code-block:: cuda

        __syncwarp();  // HIP >= 7.0; on older HIP the wavefront is already in lockstep
        int s = __reduce_add_sync(0xffffffffffffffffull, v);  // HIP >= 7.0
        __builtin_amdgcn_s_sleep(2);

    Fix safety
    ----------
    No automatic fix: the replacement depends on the target version.

    References
    ----------
    - HIP changelog (7.0 warp functions): https://github.com/ROCm/rocm-systems/blob/develop/projects/clr/CHANGELOG.md
    - HIP kernel language: https://github.com/ROCm/HIP/blob/c5e11fcac8249ce4f7e70157588ff9661a870b59/docs/reference/kernel_language.rst
    - SCALE inline PTX (match, redux, nanosleep supported): https://github.com/spectral-compute/scale-docs/blob/f20700f5f55e411fd0c0c1b03da5b896b5b6eae3/docs/manual/compiler/inline-ptx.md
    """

    code = "ARCH006"
    triggers = frozenset(_VERSIONED)
    name = "version-dependent-warp-intrinsic"
    severity = Severity.MEDIUM
    file_kinds = cs.CUDA_CXX_KINDS

    def check(self, ctx: FileContext) -> Iterable[Finding]:
        view = cs.device_view(ctx)
        toks = view.tokens
        for i in view.ident_indices(_VERSIONED):
            tok = toks[i]
            if i + 1 >= len(toks) or toks[i + 1][3] != "(":
                continue
            if i > 0 and toks[i - 1][3] in (".", "->", "::") or (i > 0 and toks[i - 1][0] is Kind.IDENT and toks[i - 1][3] not in cs.EXPRESSION_WORDS):
                continue  # a member, or a declaration of a function with the same name
            min_hip, note = _VERSIONED[tok[3]]
            name = tok[3]

            def verdict_of(target, min_hip=min_hip, name=name):
                fam = target.family
                if fam == "rocm":
                    if min_hip is None:
                        return MANUAL
                    return AS_IS if cs.hip_at_least(target, min_hip) else MANUAL
                if fam == "oneapi":
                    return MANUAL
                if fam in ("scale", "zluda"):
                    return AS_IS
                return None

            verdicts = verdicts_for(ctx, verdict_of)
            if all(v is AS_IS for v in verdicts.values()):
                continue
            yield self.finding(ctx, tok[1], tok[2], f"{name}: {note}", verdicts,
                               effort=Effort(lines=1, constructs=1, hours=0.25), data={"min_hip": min_hip, "name": name})
