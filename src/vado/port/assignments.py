"""``x = {};`` for CUDA's half and bfloat16 types: the type named, because HIP's classes make ``{}`` ambiguous.

CUDA's ``__half2`` has one assignment from a braced list; HIP's (``hip/amd_detail/amd_hip_fp16.h``
of ROCm 7.2.4) has several (``__half2``, ``__half2_raw``, by copy and by move), so ``res2 = {};``
is "use of overloaded operator '=' is ambiguous" (HeCBench quant3MatMul; its hand-written twin
writes ``half2(0)``). ``res2 = half2{};`` value-initialises the same type: zero, as ``{}`` does in
CUDA (the classes' default constructors are defaulted, so value-initialisation zero-fills them).
"""

from __future__ import annotations

from vado.model import Applicability, Edit, Fix, Target
from vado.scan.lexer import Kind

#: CUDA's 16-bit float types whose HIP classes have more than one assignment operator.
HALF_TYPES = frozenset({"half", "__half", "half2", "__half2", "__nv_bfloat16", "__nv_bfloat162", "nv_bfloat16",
                        "nv_bfloat162"})
#: Tokens after which ``NAME = {}`` starts a statement (an assignment, not a declaration's initialiser).
_STATEMENT_START = frozenset({";", "{", "}", ")", "else", "do"})


def _declared_types(code: list) -> dict[str, str]:
    """``{variable: type}`` for ``TYPE NAME`` declarations of :data:`HALF_TYPES` in the file (any scope)."""
    out: dict[str, str] = {}
    for k in range(len(code) - 2):
        t, name, after = code[k], code[k + 1], code[k + 2]
        if t[0] is Kind.IDENT and t[3] in HALF_TYPES and name[0] is Kind.IDENT and after[3] in (";", ",", "=", "[", ")"):
            out.setdefault(name[3], t[3])
    return out


def braced_zero_fixes(path: str, toks: list, target: Target) -> list[Fix]:
    """``NAME = {};`` → ``NAME = TYPE{};`` where ``NAME`` is declared with a CUDA half/bfloat16 type, on ROCm."""
    if target.family != "rocm":
        return []
    code = [t for t in toks if t[0] is not Kind.COMMENT]
    types = _declared_types(code)
    if not types:
        return []
    fixes = []
    for k in range(1, len(code) - 4):
        name, eq, lb, rb, semi = code[k:k + 5]
        if (name[0] is Kind.IDENT and name[3] in types and eq[3] == "=" and lb[3] == "{" and rb[3] == "}"
                and semi[3] == ";" and code[k - 1][3] in _STATEMENT_START):
            ty = types[name[3]]
            fixes.append(Fix((Edit(path, lb[1], lb[1], ty),), Applicability.SAFE,
                             f"{name[3]} = {{}} → {name[3]} = {ty}{{}} (HIP's {ty} has several assignment operators "
                             "a braced list matches)", ("helper",)))
    return fixes
