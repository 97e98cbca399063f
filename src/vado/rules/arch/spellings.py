"""CUDA-only spellings hipcc does not accept: tests of CUDA headers' include guards (ARCH009), CUDA-only
declaration specifiers (ARCH010) and kernel-launch chevrons split by spaces (ARCH011).
"""

from __future__ import annotations

import re
from typing import Iterable

from vado.model import Applicability, Effort, Finding, Fix, Severity
from vado.rules import cuda_syntax as cs
from vado.rules.arch.common import AS_IS, AUTO, MANUAL, _by_family
from vado.rules.arch.directives import _PREPROC_VERDICTS, _branches, _directive_name, _directive_of, _tested_name
from vado.rules.base import FileContext, Rule, verdicts_for
from vado.scan.lexer import Kind


#: Include guards of CUDA headers and the guard of the HIP header the port includes in their place.
#: CUDA side: the headers of CUDA 13.0 (runtime, driver, fp16) and cuda-samples' helper_cuda.h
#: (library headers); HIP side: the headers of ROCm 7.2.4.
CUDA_HEADER_GUARDS = {
    "__CUDA_RUNTIME_H__": ("cuda_runtime.h", "HIP_INCLUDE_HIP_HIP_RUNTIME_H", True),
    "__CUDA_RUNTIME_API_H__": ("cuda_runtime_api.h", "HIP_INCLUDE_HIP_HIP_RUNTIME_API_H", True),
    "__DRIVER_TYPES_H__": ("driver_types.h", "HIP_INCLUDE_HIP_DRIVER_TYPES_H", True),
    "__cuda_cuda_h__": ("cuda.h", "HIP_INCLUDE_HIP_HIP_RUNTIME_API_H", True),
    "__CUDA_FP16_H__": ("cuda_fp16.h", "HIP_INCLUDE_HIP_HIP_FP16_H", True),
    "CUBLAS_API_H_": ("cublas_api.h", "HIPBLAS_H", False),
    "CURAND_H_": ("curand.h", "HIPRAND_H_", False),
    "_CUFFT_H_": ("cufft.h", "HIPFFT_H_", False),
    "CUSPARSEAPI": ("cusparse.h", "HIPSPARSE_H", False),
    "CUSOLVER_COMMON_H_": ("cusolver_common.h", "HIPSOLVER_H", False),
    "NV_NPPIDEFS_H": ("nppdefs.h", "", False),
    "NVJPEGAPI": ("nvjpeg.h", "", False),
}


class CudaHeaderGuardTest(Rule):
    """Tests of a CUDA header's include guard (``#ifdef __DRIVER_TYPES_H__``), the helper_cuda.h idiom.

    What it does
    ------------
    Finds ``#ifdef``/``#ifndef``/``defined()`` tests of the include guards of
    CUDA headers: ``__CUDA_RUNTIME_H__``, ``__CUDA_RUNTIME_API_H__``,
    ``__DRIVER_TYPES_H__``, ``__cuda_cuda_h__``, ``__CUDA_FP16_H__`` and the
    library guards cuda-samples' ``helper_cuda.h`` tests (``CUBLAS_API_H_``,
    ``CURAND_H_``, ``_CUFFT_H_``, ``CUSPARSEAPI``, ``CUSOLVER_COMMON_H_``,
    ``NV_NPPIDEFS_H``, ``NVJPEGAPI``). A header's own guard (``#ifndef X``
    followed by ``#define X``) is not reported.

    Why is this bad?
    ----------------
    The port includes HIP headers, whose guards have other names, so the test
    is false and the code under it (error-string helpers, setup code) is
    silently dropped.

    Example
    -------
    .. code-block:: cuda

        #ifdef __DRIVER_TYPES_H__
        static const char* _cudaGetErrorEnum(cudaError_t e) { return cudaGetErrorName(e); }
        #endif

    Use instead
    -----------
    .. code-block:: cuda

        #ifdef HIP_INCLUDE_HIP_DRIVER_TYPES_H
        static const char* _cudaGetErrorEnum(hipError_t e) { return hipGetErrorName(e); }
        #endif

    Fix safety
    ----------
    The runtime, driver and fp16 guards become the guards of the HIP headers
    the port includes instead (``hip/hip_runtime.h`` includes
    ``hip_runtime_api.h`` and ``driver_types.h``): safe. A library guard
    becomes the guard of the hip* library's header (``HIPBLAS_H``,
    ``HIPRAND_H_``, ``HIPFFT_H_``, ``HIPSPARSE_H``, ``HIPSOLVER_H``): unsafe,
    since the code it brings back may name statuses the hip* library lacks;
    no fix with ``--roc`` or for NPP and nvJPEG (no HIP header in their place).

    References
    ----------
    - CUDA 13.0 headers (``cuda_runtime.h``, ``driver_types.h``, ``cuda.h``, ``cuda_fp16.h`` guards)
    - cuda-samples ``Common/helper_cuda.h``: https://github.com/NVIDIA/cuda-samples/blob/master/Common/helper_cuda.h
    - ROCm 7.2 headers (``hip/hip_runtime.h``, ``hip/driver_types.h``, ``hipblas/hipblas.h`` … guards): https://github.com/ROCm/rocm-systems/tree/develop/projects/hip/include/hip
    """

    code = "ARCH009"
    triggers = frozenset(CUDA_HEADER_GUARDS)
    can_fix = True
    name = "cuda-header-guard-test"
    severity = Severity.HIGH
    file_kinds = cs.CUDA_CXX_KINDS

    def check(self, ctx: FileContext) -> Iterable[Finding]:
        view = cs.device_view(ctx)
        toks = view.tokens
        roc = bool(ctx.options.get("roc"))
        for i in view.ident_indices(self.triggers):
            tok = toks[i]
            if _tested_name(toks, i) != "ifdef":
                continue
            d = _directive_of(toks, i)
            if _directive_name(toks[d]) == "#ifndef" and self._own_guard(toks, i):
                continue
            header, hip_guard, core = CUDA_HEADER_GUARDS[tok[3]]
            fix = None
            moves = core or (_directive_name(toks[d]) == "#ifdef" and _guarded_code_moves(ctx, toks, d))
            if hip_guard and (core or not roc):
                fix = Fix((ctx.edit(tok[1], tok[2], hip_guard),), Applicability.SAFE if moves else Applicability.UNSAFE,
                          f"{tok[3]} → {hip_guard}, the guard of the HIP header the port includes", ("arch",))
            safe = fix is not None and fix.applicability is Applicability.SAFE
            msg = (f"{tok[3]} is the include guard of CUDA's {header}; the port includes a HIP header with another guard, "
                   "so this test is false and the code under it is dropped")
            if safe and not core:
                msg += "; every CUDA library name under it has its own HIP counterpart on this target"
            yield self.finding(ctx, tok[1], tok[2], msg, verdicts_for(ctx, _by_family({**_PREPROC_VERDICTS, "rocm": AUTO if safe else MANUAL})),
                               fix=fix, effort=Effort(lines=1, constructs=1, hours=0.0 if safe else 0.25),
                               data={"guard": tok[3], "header": header, "hip_guard": hip_guard})

    @staticmethod
    def _own_guard(toks, i: int) -> bool:
        """``#ifndef X`` whose next line is ``#define X``: a header guarding itself with the name."""
        k = i + 1
        while k < len(toks) and toks[k][0] in (Kind.EOD, Kind.COMMENT):
            k += 1
        return (k + 1 < len(toks) and toks[k][0] is Kind.DIRECTIVE and _directive_name(toks[k]) == "#define"
                and toks[k + 1][3] == toks[i][3])


#: A CUDA library's own spelling (cuBLAS, cuFFT, cuSPARSE, cuSOLVER, cuRAND, NPP, nvJPEG: ``CUFFT_NVRTC_FAILURE``).
_CUDA_LIBRARY_NAME = re.compile(r"^(?:CU(?:BLAS|FFT|SPARSE|SOLVER|RAND)|cu(?:blas|fft|sparse|solver|rand)|NPP|npp|NVJPEG|nvjpeg)")


def _guarded_code_moves(ctx: FileContext, toks, d: int) -> bool:
    """Whether the code an ``#ifdef`` of a library guard at directive ``d`` brings back compiles on the port's ROCm
    targets as far as vado's API tables tell: every CUDA name under it that the tables know is available there, and
    no two of them become one HIP name (cuBLAS's ``CUBLAS_STATUS_LICENSE_ERROR`` and ``..._NOT_SUPPORTED`` both
    become ``HIPBLAS_STATUS_UNKNOWN``: two ``case`` labels of helper_cuda.h's switch). cuda-samples' curand error
    strings move so (MC_EstimatePiP); cuSOLVER's ``CUSOLVER_STATUS_INVALID_LICENSE`` has no HIP name: not so."""
    from vado.knowledge.api import AvailabilityStatus, availability, lookup

    branches = _branches(toks, d)
    targets = [t for t in ctx.targets if t.family == "rocm"]
    if branches is None or not targets:
        return False
    body = branches[0]
    names = {toks[k][3] for k in body if toks[k][0] is Kind.IDENT}
    ok = (AvailabilityStatus.AVAILABLE, AvailabilityStatus.RENAMED)
    if not any(_CUDA_LIBRARY_NAME.match(n) for n in names):
        return False  # nothing of the library's under it that the tables could vouch for
    for target in targets:
        became: dict[str, str] = {}
        for name in names:
            entry = lookup(name)
            if entry is None:
                if _CUDA_LIBRARY_NAME.match(name):
                    return False  # a library name the tables do not know (CUDA 13's CUFFT_NVSHMEM_FAILURE): unproven
                continue
            got = availability(entry, target)
            if got.status not in ok:
                return False
            hip = got.replacement or name
            if became.setdefault(hip, name) != name:
                return False
    return True


#: CUDA declaration specifiers hipcc does not know (no HIP header defines them), with what each means.
#: Source: CUDA 13.0 ``crt/host_defines.h`` (their definitions), CUDA programming guide (``__grid_constant__``,
#: ``__maxnreg__``); ROCm 7.2.4 ``hip/`` headers and clang 22's HIP wrappers define none of them.
CUDA_ONLY_SPECIFIERS = {
    "__grid_constant__": ("a const kernel parameter kept in the parameter space so that its address can be taken "
                          "without a copy (CUDA 11.7); the parameter stays const, and taking its address gives a "
                          "copy's, which holds the same value"),
    "__maxnreg__": "a kernel's register limit (CUDA 12.4), a tuning hint for NVIDIA's register file",
    "__local_maxnreg__": "a device function's register limit (CUDA 12.8), a tuning hint for NVIDIA's register file",
}


class CudaOnlyDeclarationSpecifier(Rule):
    """CUDA declaration specifiers HIP does not have: ``__grid_constant__``, ``__maxnreg__(N)``.

    What it does
    ------------
    Finds ``__grid_constant__`` on kernel parameters and the register limits
    ``__maxnreg__(N)`` / ``__local_maxnreg__(N)``.

    Why is this bad?
    ----------------
    nvcc defines them (``crt/host_defines.h``); no HIP header does, so the
    port does not compile: "unknown type name '__grid_constant__'"
    (HeCBench attentionMultiHeadKVCache, FlashInfer's decode kernels).

    Example
    -------
    .. code-block:: cuda

        __global__ void decode(const __grid_constant__ Params params) { … }

    Use instead
    -----------
    .. code-block:: cpp

        __global__ void decode(const Params params) { … }

    Fix safety
    ----------
    Removing them is safe. ``__grid_constant__`` only lets CUDA skip a copy
    when the address of a const parameter is taken: the value is the same,
    and HIP passes kernel arguments in a read-only segment already. The
    register limits are tuning hints; on AMD the register budget follows from
    ``__launch_bounds__`` (measure the kernel again).

    References
    ----------
    - CUDA programming guide, ``__grid_constant__`` and ``__maxnreg__``: https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#grid-constant
    - CUDA 13.0 ``crt/host_defines.h``; ROCm 7.2.4 ``hip/`` headers (no such names)
    """

    code = "ARCH010"
    triggers = frozenset(CUDA_ONLY_SPECIFIERS)
    can_fix = True
    name = "cuda-only-declaration-specifier"
    severity = Severity.HIGH
    file_kinds = cs.CUDA_CXX_KINDS

    def check(self, ctx: FileContext) -> Iterable[Finding]:
        view = cs.device_view(ctx)
        toks = view.tokens
        text = ctx.text
        own = {toks[i][3] for i in view.ident_indices(self.triggers)
               if i > 0 and _directive_name(toks[i - 1]) in ("#define", "#undef")}
        for i in view.ident_indices(self.triggers):
            tok = toks[i]
            name = tok[3]
            if name in own or _directive_of(toks, i) is not None:
                continue  # the program defines it itself, or a directive names it
            end = tok[2]
            if name != "__grid_constant__":
                close = view.pairs.get(i + 1) if i + 1 < len(toks) and toks[i + 1][3] == "(" else None
                if close is None:
                    continue  # a name without its register count: not the specifier
                end = toks[close][2]
            while end < len(text) and text[end] in " \t":
                end += 1  # the space after it goes too
            fix = Fix((ctx.edit(tok[1], end, ""),), Applicability.SAFE, f"{name} removed", ("arch",))
            yield self.finding(ctx, tok[1], tok[2], f"HIP does not define {name}, {CUDA_ONLY_SPECIFIERS[name]}: "
                               "the port leaves it out", verdicts_for(ctx, _by_family(_PREPROC_VERDICTS)),
                               fix=fix, effort=Effort(lines=1, constructs=1), data={"specifier": name})


class SpacedLaunchChevrons(Rule):
    """A kernel launch whose ``<<<`` or ``>>>`` is split by spaces: ``k<< <grid, block >> >(args)``.

    What it does
    ------------
    Finds launches written ``<< <`` … ``>> >`` (or ``< <<``, or one side
    split only), which clang-format writes when it formats old CUDA code as
    C++ shifts and comparisons.

    Why is this bad?
    ----------------
    nvcc accepts the split chevrons; clang, and so hipcc, reads ``<<<`` and
    ``>>>`` as launch syntax only when the three characters touch: hipcc
    7.2.4 stops at the launch with "expected expression". The rest of the
    port does not see a launch there either (``--launch ggl``, the launch
    checks of the other rules).

    Example
    -------
    .. code-block:: cuda

        add<< <blocks, threads >> >(a, b, n);

    Use instead
    -----------
    .. code-block:: cuda

        add<<<blocks, threads>>>(a, b, n);

    Fix safety
    ----------
    Safe: only the spaces inside the chevrons go; the launch is the one nvcc
    compiled. ZLUDA runs nvcc's build (moves as is); SCALE is not judged
    (whether its compiler takes the split spelling is not checked here).

    References
    ----------
    - CUDA programming guide, execution configuration: https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#execution-configuration
    - clang's lexer (``<<<``/``>>>`` as tokens in CUDA/HIP mode): https://github.com/llvm/llvm-project/blob/main/clang/lib/Lex/Lexer.cpp
    """

    code = "ARCH011"
    can_fix = True
    name = "spaced-launch-chevrons"
    severity = Severity.HIGH
    file_kinds = cs.CUDA_CXX_KINDS

    _VERDICTS = {"rocm": AUTO, "oneapi": MANUAL, "zluda": AS_IS}

    def check(self, ctx: FileContext) -> Iterable[Finding]:
        view = cs.device_view(ctx)
        starts = view.punct_indices("<<") + view.punct_indices("<<<")
        if not starts:
            return
        toks = view.tokens
        verdicts = None
        for a, b, c, d in cs.spaced_launches(toks, ctx.text, starts):
            if verdicts is None:
                verdicts = verdicts_for(ctx, _by_family(self._VERDICTS))
            edits = []
            if b > a:
                edits.append(ctx.edit(toks[a][1], toks[b][2], "<<<"))
            if d > c:
                edits.append(ctx.edit(toks[c][1], toks[d][2], ">>>"))
            name = toks[a - 1][3]
            fix = Fix(tuple(edits), Applicability.SAFE, f"join the launch chevrons of {name}", ("launch",))
            yield self.finding(ctx, toks[a][1], toks[d][2],
                               f"launch of {name} with spaces inside `<<<`/`>>>` ({cs.text_of(ctx.text, toks, a, b + 1)} "
                               f"… {cs.text_of(ctx.text, toks, c, d + 1)}): nvcc accepts it, hipcc (clang) does not",
                               verdicts, fix=fix, effort=Effort(lines=1, constructs=1), data={"kernel": name})
