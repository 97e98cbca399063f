"""cuBLASLt descriptor attributes hipBLASLt has no counterpart for: the scale type (given once, at
``hipblasLtMatmulDescCreate``: :func:`scale_type_fixes`) and FP8 fast accumulation
(:func:`fast_accum_fixes`).
"""

from __future__ import annotations

from vado.model import Applicability, Edit, Fix, Target
from vado.port.compat.calls import _arg_text, _calls, _written_between
from vado.port.compat.helpers import _api_status
from vado.port.compat.placement import _top_level_starts
from vado.scan.lexer import Kind

# --------------------------------------------------------------------------- cuBLASLt scale type

#: cuBLASLt's descriptor attribute for the scale type, which hipBLASLt has no attribute for: its
#: descriptor takes the scale type once, as ``hipblasLtMatmulDescCreate``'s third argument
#: (hipblaslt.h, ROCm 7.2.4: ``hipblasLtMatmulDescAttributes_t`` has no ``SCALE_TYPE``).
SCALE_TYPE_ATTRIBUTE = "CUBLASLT_MATMUL_DESC_SCALE_TYPE"
_DESC_CREATE = frozenset({"cublasLtMatmulDescCreate", "hipblasLtMatmulDescCreate"})
_DESC_SET = frozenset({"cublasLtMatmulDescSetAttribute", "hipblasLtMatmulDescSetAttribute"})


def _assigned_value(code: list, name: str, before: int, start: int) -> tuple[int, str] | None:
    """The last ``name = VALUE;`` (a declaration's initialiser or an assignment) in tokens
    ``[start, before)``, when VALUE is one identifier: ``(index of name, VALUE)``."""
    for k in range(before - 1, start - 1, -1):
        t = code[k]
        if t[0] is Kind.IDENT and t[3] == name and k + 3 < len(code) and code[k + 1][3] == "=":
            if code[k + 2][0] is Kind.IDENT and code[k + 3][3] == ";":
                return k, code[k + 2][3]
            return None
    return None


def scale_type_fixes(path: str, text: str, toks: list, target: Target) -> list[Fix]:
    """``cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_SCALE_TYPE, &v, size)``, which
    hipBLASLt cannot express, becomes ``HIPBLAS_STATUS_SUCCESS`` where it sets the scale type the
    descriptor was created with, so the call changed nothing in cuBLASLt either.

    Only when that is seen in the code: in the same top-level function, ``desc`` is created once
    (``cublasLtMatmulDescCreate(&desc, compute, S)``) before the call, ``v`` gets an identifier ``V``
    (``T v = V;``) that names the same type as ``S`` (after the port's renaming) and is not written
    between that and the call. Anything else gets no fix: the compiler and API001 report the name.
    """
    if (target.family != "rocm" or SCALE_TYPE_ATTRIBUTE not in text or _api_status(SCALE_TYPE_ATTRIBUTE, target) != "unavailable"
            or _api_status("cublasLtMatmulDescSetAttribute", target) not in ("renamed", "available", "deprecated")):
        return []  # not a hipBLASLt target (the call is not ported there), or one with the attribute
    from vado.port.translate import rename_map

    names = rename_map(target)

    def same(a: str, b: str) -> bool:
        ra, rb = names.get(a), names.get(b)
        return (ra.new if ra else a) == (rb.new if rb else b)

    code = [t for t in toks if t[0] is not Kind.COMMENT]
    creates = _calls(code, set(_DESC_CREATE))
    sets = [c for c in _calls(code, set(_DESC_SET)) if len(c[3]) == 4 and _arg_text(code, c[3][1]) == SCALE_TYPE_ATTRIBUTE]
    if not sets:
        return []
    starts = _top_level_starts(code, [c[0] for c in creates + sets])
    fixes: list[Fix] = []
    for i, _name, close, args in sets:
        desc, value = _arg_text(code, args[0]), _arg_text(code, args[2])
        here = starts[i][0]
        made = [(j, _arg_text(code, a[2])) for j, _n, _c, a in creates
                if len(a) == 3 and starts[j][0] == here and _arg_text(code, a[0]) == "&" + desc]
        if len(made) != 1 or made[0][0] > i or not value.startswith("&") or not value[1:].isidentifier():
            continue
        created_with = made[0][1]
        found = _assigned_value(code, value[1:], i, made[0][0])
        if found is None or not same(found[1], created_with) or _written_between(code, value[1:], found[0] + 1, i):
            continue
        why = f"hipBLASLt takes the scale type only at hipblasLtMatmulDescCreate, which got {created_with} too"
        fixes.append(Fix((Edit(path, code[i][1], code[close][2], f"HIPBLAS_STATUS_SUCCESS /* vado: {why} */"),),
                         Applicability.SAFE, f"{SCALE_TYPE_ATTRIBUTE} set to the descriptor's own scale type: {why}", ("helper",)))
    return fixes


# --------------------------------------------------------------------------- cuBLASLt fast accumulation

#: cuBLASLt's FP8 fast-accumulation switch; hipBLASLt 7.2.4's ``hipblasLtMatmulDescAttributes_t``
#: (hipblaslt/hipblaslt.h) has no such attribute.
FAST_ACCUM_ATTRIBUTE = "CUBLASLT_MATMUL_DESC_FAST_ACCUM"


def fast_accum_fixes(path: str, text: str, toks: list, target: Target) -> list[Fix]:
    """``cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &v, size)`` becomes
    ``HIPBLAS_STATUS_SUCCESS`` (the call expression only, so a status check around it still compiles)
    on targets whose hipBLASLt has no fast-accumulation attribute.

    The attribute lets cuBLASLt accumulate FP8 products in a faster, less precise way (off by
    default); hipBLASLt has no such mode and accumulates in the descriptor's compute type, which is
    what cuBLASLt does with the attribute off. Safe: the product is never less precise than CUDA's,
    though with ``v`` non-zero it may differ in the last bits (the finding says so). Calls with
    another argument count are left to the compiler and API001.
    """
    if (target.family != "rocm" or FAST_ACCUM_ATTRIBUTE not in text or _api_status(FAST_ACCUM_ATTRIBUTE, target) != "unavailable"
            or _api_status("cublasLtMatmulDescSetAttribute", target) not in ("renamed", "available", "deprecated")):
        return []
    code = [t for t in toks if t[0] is not Kind.COMMENT]
    fixes: list[Fix] = []
    for i, _name, close, args in _calls(code, set(_DESC_SET)):
        if len(args) != 4 or _arg_text(code, args[1]) != FAST_ACCUM_ATTRIBUTE:
            continue
        why = ("hipBLASLt has no FP8 fast-accumulation mode; it accumulates in the descriptor's compute type, "
               "as cuBLASLt does with the attribute off")
        fixes.append(Fix((Edit(path, code[i][1], code[close][2], f"HIPBLAS_STATUS_SUCCESS /* vado: {why} */"),),
                         Applicability.SAFE,
                         f"{FAST_ACCUM_ATTRIBUTE} dropped: {why} (results may differ in the last bits from CUDA's fast mode)",
                         ("helper",)))
    return fixes
