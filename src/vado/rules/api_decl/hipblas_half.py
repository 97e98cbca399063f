"""API006: hipBLAS declares its half-precision arguments as ``hipblasHalf`` (``uint16_t`` unless
``HIPBLAS_USE_HIP_HALF`` is defined before the header), and where the port defines the macro
(:func:`half_define_offset`).
"""

from __future__ import annotations

import bisect
from typing import Iterable

from vado.model import Applicability, Effort, Finding, Fix, Severity
from vado.rules import cuda_syntax as cs
from vado.rules.api_decl.common import AUTO, MANUAL, _CONDITIONALS, _directive_word, _line_start, _rocm_targets
from vado.rules.base import FileContext, Rule
from vado.scan.classify import FileKind
from vado.scan.lexer import Kind


#: hipBLAS functions declared with ``hipblasHalf`` arguments (``hipblas/hipblas.h`` of
#: ROCm 7.2.4, hipBLAS 3.2.0); each also has a ``_64`` form.
HIPBLAS_HALF_FUNCTIONS = frozenset(
    f"hipblasH{op}{variant}{size}"
    for op in ("axpy", "dot", "gemm")
    for variant in ("", "Batched", "StridedBatched")
    for size in ("", "_64")
)
#: The cuBLAS names that become them (vado's API table; a test keeps the two in step).
CUBLAS_HALF_FUNCTIONS = frozenset(
    f"cublasHgemm{variant}{size}" for variant in ("", "Batched", "StridedBatched") for size in ("", "_64")
)
HALF_MACRO = "HIPBLAS_USE_HIP_HALF"
#: hipBLAS 0.54.0 (ROCm 5.5.0) added the option (hipBLAS release notes, rocm-5.5.0).
HALF_MACRO_SINCE = "5.5"
#: Base names of the headers that bring in ``hipblas.h``, before and after the port.
_BLAS_HEADERS = frozenset({"cublas_v2.h", "cublas.h", "cublas_api.h", "hipblas.h"})


def _include_operand(toks, i: int) -> bool:
    return i > 0 and toks[i - 1][0] is Kind.DIRECTIVE and _directive_word(toks[i - 1]) in ("include", "include_next")


def half_define_offset(view: cs.DeviceView, *, unit: bool = False) -> int | None:
    """Where ``#define HIPBLAS_USE_HIP_HALF`` goes: before the file's first ``#include`` when
    that one is outside every ``#if`` and not after the cuBLAS/hipBLAS include, else right
    before the first cuBLAS/hipBLAS include (under the same conditions as it). A file that
    includes neither header itself gets it only when it is a translation unit (``unit``: a
    source file, not a header): before its first ``#include`` or ``#if`` outside every ``#if``,
    ahead of every header the unit includes (exllama 0.1.0's ``q4_matmul.cu`` gets hipblas.h
    through its own ``q4_matmul.cuh``); None for a header (its includer may have included
    hipblas.h before it) and for a unit with no such directive."""
    toks = view.tokens
    blas_index = None
    for tok, base in view.header_names:
        if base in _BLAS_HEADERS:
            k = bisect.bisect_left(view.token_starts, tok[1])
            if _include_operand(toks, k):
                blas_index = k
                break
    if blas_index is None:
        return _unit_head(view) if unit else None
    depth = 0
    for d in view.directive_marks:
        if d >= blas_index:
            break
        tok = toks[d]
        if tok[0] is not Kind.DIRECTIVE:
            continue
        word = _directive_word(tok)
        if word in _CONDITIONALS:
            depth += 1
        elif word == "endif":
            depth -= 1
        elif word in ("include", "include_next") and depth == 0:
            return _line_start(view.text, tok[1])
    return _line_start(view.text, toks[blas_index - 1][1])


def _unit_head(view: cs.DeviceView) -> int | None:
    """The start of the line of a unit's first ``#include``/``#include_next`` or conditional directive outside
    every ``#if`` (a header can only come in at or after it), else None."""
    toks = view.tokens
    for d in view.directive_marks:
        tok = toks[d]
        if tok[0] is not Kind.DIRECTIVE:
            continue
        word = _directive_word(tok)
        if word in _CONDITIONALS or word in ("include", "include_next"):
            return _line_start(view.text, tok[1])
    return None


#: Source files: translation units, whose first directives come before anything they include.
_UNIT_KINDS = frozenset({FileKind.CUDA_SOURCE, FileKind.CXX_SOURCE, FileKind.HIP_SOURCE})


class HipblasHalfArgumentType(Rule):
    """A cuBLAS half-precision call whose hipBLAS counterpart takes ``hipblasHalf``, not ``__half``.

    What it does
    ------------
    Finds calls of ``cublasHgemm``, ``cublasHgemmBatched``,
    ``cublasHgemmStridedBatched`` (and their ``_64`` forms, and the hipBLAS names
    they become) in a file that does not define ``HIPBLAS_USE_HIP_HALF``, one
    finding per file at the first call.

    Why is this bad?
    ----------------
    cuBLAS declares these functions with ``__half`` pointers. hipBLAS declares
    them with ``hipblasHalf``, which ``hipblas/hipblas.h`` defines as ``uint16_t``
    unless ``HIPBLAS_USE_HIP_HALF`` is defined before it is included (then it is
    ``__half``). The renamed call passes ``__half*`` where ``uint16_t*`` is
    expected: "no matching function for call to 'hipblasHgemm'" (measured with
    ROCm 7.2.4 on HeCBench's ``blas-gemm``). HeCBench's hand-written HIP twins
    build with ``-DHIPBLAS_USE_HIP_HALF``.

    Example
    -------
    .. code-block:: cuda

        #include <cublas_v2.h>
        __half alpha, beta; __half *a, *b, *c;
        cublasHgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, a, n, b, n, &beta, c, n);

    Use instead
    -----------
    .. code-block:: cpp

        #ifndef HIPBLAS_USE_HIP_HALF
        #define HIPBLAS_USE_HIP_HALF
        #endif
        #include <hipblas/hipblas.h>
        hipblasHgemm(h, HIPBLAS_OP_N, HIPBLAS_OP_N, n, n, n, &alpha, a, n, b, n, &beta, c, n);

    Fix safety
    ----------
    Safe: the fix defines ``HIPBLAS_USE_HIP_HALF`` (guarded by ``#ifndef``) before
    the file's first ``#include`` (or before its cuBLAS include when an ``#if``
    comes first), which makes hipBLAS's declarations take ``__half``, the type
    cuBLAS takes; both are 16-bit IEEE halves with the same bits, so no value
    changes. A source file (a translation unit) that gets hipblas.h through a
    header of its own (exllama 0.1.0's ``q4_matmul.cu`` through ``q4_matmul.cuh``)
    gets the define before its first ``#include`` or ``#if``: every header of the
    unit comes after it, whatever the build's flags (exllama's are in a
    ``torch.utils.cpp_extension.load`` call of ``cuda_ext.py``, which vado does
    not edit). A header that calls the functions but does not include cuBLAS
    itself gets no fix: its includer may have included hipblas.h before it, so
    the includer must define the macro first (or the build must pass
    ``-DHIPBLAS_USE_HIP_HALF``). The define is per unit: a function of the
    project's own declared with ``hipblasHalf`` and defined in a unit without it
    would differ between units (the build flag gives every unit the same type).
    Targets before ROCm 5.5 (hipBLAS 0.54) lack the option and need casts to
    ``hipblasHalf*``.

    References
    ----------
    - ``hipblas/hipblas.h`` of ROCm 7.2.4 (hipBLAS 3.2.0): ``typedef uint16_t hipblasHalf`` unless ``HIPBLAS_USE_HIP_HALF``
    - hipBLAS 0.54.0 for ROCm 5.5.0 (adds ``HIPBLAS_USE_HIP_HALF``), https://github.com/ROCm/hipBLAS/releases/tag/rocm-5.5.0
    - HeCBench ``blas-gemm-hip/Makefile`` (``-DHIPBLAS_USE_HIP_HALF``), https://github.com/zjin-lcf/HeCBench
    """

    code = "API006"
    name = "hipblas-half-argument-type"
    severity = Severity.HIGH
    file_kinds = cs.CUDA_CXX_KINDS
    can_fix = True
    triggers = CUBLAS_HALF_FUNCTIONS | HIPBLAS_HALF_FUNCTIONS

    def check(self, ctx: FileContext) -> Iterable[Finding]:
        targets = _rocm_targets(ctx)
        if not targets:
            return ()
        view = cs.device_view(ctx)
        toks = view.tokens
        if view.ident_indices((HALF_MACRO,)):
            return ()  # the file defines (or tests) the macro itself
        uses = [i for i in view.ident_indices(self.triggers)
                if not (i > 0 and toks[i - 1][3] in (".", "->", "::")) and not _casts_to_hipblas_half(view, i)]
        if not uses:
            return ()
        return (self._finding(ctx, view, uses, targets),)

    def _finding(self, ctx: FileContext, view: cs.DeviceView, uses: list[int], targets) -> Finding:
        toks = view.tokens
        first = toks[uses[0]]
        counts: dict[str, int] = {}
        for i in uses:
            counts[toks[i][3]] = counts.get(toks[i][3], 0) + 1
        at = half_define_offset(view, unit=ctx.kind in _UNIT_KINDS)
        own = at is not None and not any(base in _BLAS_HEADERS for _, base in view.header_names)
        able = [t for t in targets if cs.hip_at_least(t, HALF_MACRO_SINCE)]
        fix = None
        message = (f"`{first[3]}` passes __half where hipBLAS declares hipblasHalf, which is uint16_t unless "
                   f"{HALF_MACRO} is defined before hipblas/hipblas.h")
        if at is not None and able:
            text = (f"// vado: hipBLAS takes __half (cuBLAS's half type) only with {HALF_MACRO}\n"
                    f"#ifndef {HALF_MACRO}\n#define {HALF_MACRO}\n#endif\n")
            fix = Fix((ctx.edit(at, at, text),), Applicability.SAFE, f"define {HALF_MACRO} before hipblas.h", ("api",))
            message += ("; the port defines it before the first include" if not own else
                        "; the port defines it before the first include (this file includes no BLAS header "
                        "itself: the define comes before every header it includes)")
        elif at is None:
            message += f"; define it before hipblas.h is included (e.g. -D{HALF_MACRO})"
        if len(able) < len(targets):
            old = ", ".join(t.name for t in targets if t not in able)
            message += f" ({old}: HIP before {HALF_MACRO_SINCE} has no such option; cast the arguments to hipblasHalf*)"
        verdicts = {t.name: AUTO if fix is not None and t in able else MANUAL for t in targets}
        return self.finding(ctx, first[1], first[2], message, verdicts, fix=fix,
                            effort=Effort(lines=1, constructs=1, hours=0.0 if fix else 0.25),
                            data={"names": counts, "macro": HALF_MACRO})


def _casts_to_hipblas_half(view: cs.DeviceView, i: int) -> bool:
    """Whether the call at token ``i`` names ``hipblasHalf`` in its arguments: the caller casts to hipBLAS's
    type already (exllama 0.1.0's hip_compat.cuh wraps hipblasHgemm with ``reinterpret_cast<const hipblasHalf*>``
    on each pointer), so the macro is not needed for it."""
    toks = view.tokens
    close = view.pairs.get(i + 1) if i + 1 < len(toks) and toks[i + 1][3] == "(" else None
    return close is not None and any(toks[k][3] == "hipblasHalf" for k in range(i + 2, close))
