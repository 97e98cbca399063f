"""C++ namespaces and header paths that move as a whole: ``cub::`` and ``thrust::cuda``.

The mapping tables translate whole identifiers; a namespace is different: the
token ``cub`` is the library only where it qualifies a name (``cub::BlockReduce``,
``::cub::DeviceReduce``, ``using namespace cub;``, ``namespace mycub = cub;``). A variable called ``cub``
is the user's and stays. HIPIFY makes the same ``cub`` → ``hipcub`` rename
(``ROCm/HIPIFY`` ``src/CUDA2HIP_CUB_API_types.cpp``).

rocThrust keeps the ``thrust::`` namespace and its headers; only the CUDA
system backend has another name: ``thrust::cuda::par`` is ``thrust::hip::par``
and ``<thrust/system/cuda/...>`` is ``<thrust/system/hip/...>`` (as in
ginkgo's ``hip/base/thrust.hip.hpp``, which spells both backends).
"""

from __future__ import annotations

from vado.model import Applicability, Edit, Fix
from vado.rules.cuda_syntax import spelling_index
from vado.scan.lexer import Kind, is_native_tokens

#: Namespaces renamed where they qualify a name.
NAMESPACES = {"cub": "hipcub"}
THRUST_CUDA_DIR = "thrust/system/cuda/"
THRUST_HIP_DIR = "thrust/system/hip/"


def namespace_fixes(path: str, toks: list, text: str | None = None) -> list[Fix]:
    """Safe fixes for ``cub::`` → ``hipcub::``, ``thrust::cuda::`` → ``thrust::hip::`` and thrust's CUDA system headers.

    ``text``, the file's text when the caller has it, lets a file that never spells
    thrust's CUDA header directory skip the look at every directive.
    """
    index = spelling_index(toks)
    if not index.has_any((*NAMESPACES, "cuda")) and (
        (text is not None and THRUST_CUDA_DIR not in text)
        or not any(_operand(toks, i)[3][1:].startswith(THRUST_CUDA_DIR) for i in index.directives())
    ):
        return []  # none of the names or headers this pass rewrites
    code = toks.code() if is_native_tokens(toks) else [t for t in toks if t[0] is not Kind.COMMENT]
    fixes: list[Fix] = []
    n = len(code)
    # The tokens this pass can rewrite, in order: the namespace names, "cuda", and directives.
    code_index = spelling_index(code)
    candidates = sorted({i for name in (*NAMESPACES, "cuda") for i in code_index.where(name)}
                        | set(code_index.directive_marks()))
    for i in candidates:
        tok = code[i]
        kind, start, end, text = tok
        if kind is Kind.DIRECTIVE and text.endswith(("include", "include_next")) and i + 1 < n:
            operand = code[i + 1]
            inner = operand[3][1:-1]
            if operand[0] in (Kind.HEADER, Kind.STRING) and inner.startswith(THRUST_CUDA_DIR):
                new = operand[3][0] + THRUST_HIP_DIR + inner[len(THRUST_CUDA_DIR):] + operand[3][-1]
                fixes.append(Fix((Edit(path, operand[1], operand[2], new),), Applicability.SAFE,
                                 f"{operand[3]} → {new}", ("header", "thrust")))
            continue
        if kind is not Kind.IDENT:
            continue
        prev = code[i - 1][3] if i > 0 else ""
        nxt = code[i + 1][3] if i + 1 < n else ""
        if text in NAMESPACES:
            qualifies = nxt == "::"
            using = prev == "namespace" and i > 1 and code[i - 2][3] == "using"
            if (qualifies or using or _aliased(code, i)) and not _nested(code, i) and prev not in (".", "->"):
                new = NAMESPACES[text]
                fixes.append(Fix((Edit(path, start, end, new),), Applicability.SAFE, f"{text}:: → {new}::", ("rename", "cub")))
        elif text == "cuda" and prev == "::" and nxt == "::" and i > 1 and code[i - 2][3] == "thrust" and not _nested(code, i - 2):
            fixes.append(Fix((Edit(path, start, end, "hip"),), Applicability.SAFE,
                             "thrust::cuda:: → thrust::hip::", ("rename", "thrust")))
    return fixes


def _operand(toks, i: int) -> tuple:
    """The first token after ``toks[i]`` that is not a comment (an empty one at the end)."""
    j = i + 1
    while j < len(toks) and toks[j][0] is Kind.COMMENT:
        j += 1
    return toks[j] if j < len(toks) else (Kind.EOD, 0, 0, "")


def _aliased(code: list, i: int) -> bool:
    """Whether the name at ``i`` is what a namespace alias names: ``namespace mycub = cub;`` or ``= ::cub;``."""
    if i + 1 >= len(code) or code[i + 1][3] != ";":
        return False
    j = i - 1 - (i > 0 and code[i - 1][3] == "::")
    return j >= 2 and code[j][3] == "=" and code[j - 1][0] is Kind.IDENT and code[j - 2][3] == "namespace"


def _nested(code: list, i: int) -> bool:
    """Whether the name at ``i`` is qualified by another namespace (``x::cub``): then it is not the library."""
    return i > 1 and code[i - 1][3] == "::" and code[i - 2][0] is Kind.IDENT and code[i - 2][3] not in _KEYWORDS


#: Keywords the lexer gives as identifiers that may stand before ``::name``.
_KEYWORDS = frozenset({"return", "case", "else", "typedef", "typename", "new", "delete", "throw", "using", "co_return",
                       "const", "volatile", "static", "extern", "inline", "constexpr", "auto", "sizeof", "decltype"})
