"""``x = {};`` for CUDA's half and bfloat16 types: the type named, because HIP's classes make ``{}`` ambiguous.

CUDA's ``__half2`` has one assignment from a braced list; HIP's (``hip/amd_detail/amd_hip_fp16.h``
of ROCm 7.2.4) has several (``__half2``, ``__half2_raw``, by copy and by move), so ``res2 = {};``
is "use of overloaded operator '=' is ambiguous" (HeCBench quant3MatMul; its hand-written twin
writes ``half2(0)``). ``res2 = half2{};`` value-initialises the same type: zero, as ``{}`` does in
CUDA (the classes' default constructors are defaulted, so value-initialisation zero-fills them).
"""

from __future__ import annotations

from vado.model import Applicability, Edit, Fix, Target
from vado.port.overloads import declared_types
from vado.rules.cuda_syntax import spelling_index
from vado.scan.lexer import Kind

#: CUDA's 16-bit float types whose HIP classes have more than one assignment operator.
HALF_TYPES = frozenset({"half", "__half", "half2", "__half2", "__nv_bfloat16", "__nv_bfloat162", "nv_bfloat16",
                        "nv_bfloat162"})
#: Tokens after which ``NAME = {}`` starts a statement (an assignment, not a declaration's initialiser).
_STATEMENT_START = frozenset({";", "{", "}", ")", "else", "do"})


def braced_zero_fixes(path: str, toks: list, target: Target) -> list[Fix]:
    """``NAME = {};`` → ``NAME = TYPE{};`` where ``NAME`` is declared with a CUDA half/bfloat16 type, on ROCm."""
    if target.family != "rocm":
        return []
    index = spelling_index(toks)
    if not index.has_any(HALF_TYPES):
        return []
    code = [t for t in toks if t[0] is not Kind.COMMENT]
    fixes = []
    for k in range(1, len(code) - 4):
        name, eq, lb, rb, semi = code[k:k + 5]
        if not (name[0] is Kind.IDENT and eq[3] == "=" and lb[3] == "{" and rb[3] == "}" and semi[3] == ";"
                and code[k - 1][3] in _STATEMENT_START):
            continue
        types = declared_types(toks, index, name[3])
        if len(types) != 1 or not types <= HALF_TYPES:
            continue  # not declared with one of these types (or declared more than one way): left alone
        (ty,) = types
        fixes.append(Fix((Edit(path, lb[1], lb[1], ty),), Applicability.SAFE,
                         f"{name[3]} = {{}} → {name[3]} = {ty}{{}} (HIP's {ty} has several assignment operators "
                         "a braced list matches)", ("helper",)))
    return fixes
