"""API rules about declarations HIP's headers make differently from CUDA's.

A rename can be right and the port still fail to compile because a HIP header
declares something the CUDA header does not, or declares it with other types:

- hipBLAS declares its half-precision arguments as ``hipblasHalf``, which is
  ``uint16_t`` unless ``HIPBLAS_USE_HIP_HALF`` is defined before the header
  (API006);
- HIP's vector types (``float4``, ``int2`` …) are ``HIP_vector_type`` classes
  with their own arithmetic operators, so a program's own definitions of the
  same operators (``helper_math.h``) become ambiguous (API007);
- HIP defines atomics CUDA lacks (``atomicMin`` on ``float``, ``atomicAdd`` on
  ``double`` before ``sm_60`` …), so a program's own definition of one is a
  redefinition (API008).

The facts are read from the headers of ROCm 7.2.4 (``hipblas/hipblas.h``,
``hip/amd_detail/amd_hip_vector_types.h``, ``hip/amd_detail/amd_hip_atomic.h``)
and checked against Debian's HIP 5.2.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import Iterable, Iterator

from vado.model import Applicability, Effort, Finding, Fix, Severity, Target, Verdict
from vado.rules import cuda_syntax as cs
from vado.rules.base import FileContext, Rule
from vado.scan.lexer import Kind

AUTO, MANUAL = Verdict.AUTOMATIC, Verdict.MANUAL


def _rocm_targets(ctx: FileContext) -> tuple[Target, ...]:
    return tuple(t for t in ctx.targets if t.family == "rocm" and t.hip_version)


def _line_start(text: str, offset: int) -> int:
    return text.rfind("\n", 0, offset) + 1


def _directive_word(tok: tuple) -> str:
    """``#  ifndef`` → ``ifndef``."""
    return tok[3].lstrip("#").strip()


# --------------------------------------------------------------------------- API006

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
_CONDITIONALS = frozenset({"if", "ifdef", "ifndef"})


def _include_operand(toks, i: int) -> bool:
    return i > 0 and toks[i - 1][0] is Kind.DIRECTIVE and _directive_word(toks[i - 1]) in ("include", "include_next")


def half_define_offset(view: cs.DeviceView) -> int | None:
    """Where ``#define HIPBLAS_USE_HIP_HALF`` goes: before the file's first ``#include`` when
    that one is outside every ``#if`` and not after the cuBLAS/hipBLAS include, else right
    before the first cuBLAS/hipBLAS include (under the same conditions as it); None when the
    file includes neither header itself."""
    toks = view.tokens
    blas_index = None
    for tok, base in view.header_names:
        if base in _BLAS_HEADERS:
            k = bisect.bisect_left(view.token_starts, tok[1])
            if _include_operand(toks, k):
                blas_index = k
                break
    if blas_index is None:
        return None
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
    changes. A file that calls the functions but does not include cuBLAS itself
    gets no fix: its includer must define the macro first (or the build must pass
    ``-DHIPBLAS_USE_HIP_HALF``). Targets before ROCm 5.5 (hipBLAS 0.54) lack the
    option and need casts to ``hipblasHalf*``.

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
                if not (i > 0 and toks[i - 1][3] in (".", "->", "::"))]
        if not uses:
            return ()
        return (self._finding(ctx, view, uses, targets),)

    def _finding(self, ctx: FileContext, view: cs.DeviceView, uses: list[int], targets) -> Finding:
        toks = view.tokens
        first = toks[uses[0]]
        counts: dict[str, int] = {}
        for i in uses:
            counts[toks[i][3]] = counts.get(toks[i][3], 0) + 1
        at = half_define_offset(view)
        able = [t for t in targets if cs.hip_at_least(t, HALF_MACRO_SINCE)]
        fix = None
        message = (f"`{first[3]}` passes __half where hipBLAS declares hipblasHalf, which is uint16_t unless "
                   f"{HALF_MACRO} is defined before hipblas/hipblas.h")
        if at is not None and able:
            text = (f"// vado: hipBLAS takes __half (cuBLAS's half type) only with {HALF_MACRO}\n"
                    f"#ifndef {HALF_MACRO}\n#define {HALF_MACRO}\n#endif\n")
            fix = Fix((ctx.edit(at, at, text),), Applicability.SAFE, f"define {HALF_MACRO} before hipblas.h", ("api",))
            message += "; the port defines it before the first include"
        elif at is None:
            message += f"; define it before hipblas.h is included (e.g. -D{HALF_MACRO})"
        if len(able) < len(targets):
            old = ", ".join(t.name for t in targets if t not in able)
            message += f" ({old}: HIP before {HALF_MACRO_SINCE} has no such option; cast the arguments to hipblasHalf*)"
        verdicts = {t.name: AUTO if fix is not None and t in able else MANUAL for t in targets}
        return self.finding(ctx, first[1], first[2], message, verdicts, fix=fix,
                            effort=Effort(lines=1, constructs=1, hours=0.0 if fix else 0.25),
                            data={"names": counts, "macro": HALF_MACRO})


# --------------------------------------------------------------------------- API007

#: HIP's vector element types (``hip/amd_detail/amd_hip_vector_types.h``) and their widths in bits.
VECTOR_ELEMENTS = {
    "char": 8, "uchar": 8, "short": 16, "ushort": 16, "int": 32, "uint": 32,
    "long": 64, "ulong": 64, "longlong": 64, "ulonglong": 64, "float": 32, "double": 64,
}
_VECTOR = re.compile(r"^(" + "|".join(sorted(VECTOR_ELEMENTS, key=len, reverse=True)) + r")([1-4])$")
_COMPONENTS = ("x", "y", "z", "w")
#: Operators HIP_vector_type<T, n> declares as non-templates for every T (ROCm 7.2.4 and HIP 5.2):
#: the compound assignments are members taking ``const HIP_vector_type&``. A program's
#: ``void operator+=(float4& a, float4 b)`` is then as good a match: the call is ambiguous.
HIP_MEMBER_COMPOUND = {"+=": "+", "-=": "-", "*=": "*", "/=": "/"}
#: Binary operators ROCm 7.2.4 declares as non-template friends, ``operator*(HIP_vector_type,
#: const HIP_vector_type&)`` (HIP 5.2 declares them as templates, which a program's own
#: non-template definition outranks). ``+`` and ``-`` are templates in both.
HIP_FRIEND_BINARY = frozenset({"*", "/"})
#: Preprocessor names that show a region already written for HIP.
_HIP_MACROS = re.compile(r"__HIP_PLATFORM_AMD__|__HIP_PLATFORM_HCC__|__HIP_PLATFORM_NVIDIA__|__HIPCC__|__HIP__\b|__HIP_DEVICE_COMPILE__")
GUARD = "#if !defined(__HIP_PLATFORM_AMD__)"
#: The macro the port writes after the parameter list of a program's operator with another meaning:
#: on HIP for AMD (clang) it is clang's ``enable_if`` attribute, which makes overload resolution
#: prefer that operator to any candidate that matches equally well (HIP's own, for every call with
#: two vectors); elsewhere (HIP on NVIDIA: CUDA's plain structs, no rival) it is empty.
PREFERRED = "VADO_PREFERRED_OVER_HIP"
PREFERRED_DEFINITION = (
    f"#ifndef {PREFERRED}\n"
    "#if defined(__HIP_PLATFORM_AMD__) && defined(__clang__)\n"
    f"#define {PREFERRED} __attribute__((enable_if(true, \"the program's operator, not HIP_vector_type's\")))\n"
    "#else\n"
    f"#define {PREFERRED}\n"
    "#endif\n"
    "#endif\n"
)
#: The right parameter's name in the overloads earlier vado releases wrote for such a definition
#: (``vado_operator_mul_float2`` and forwarders); their output is left alone.
RHS = "vado_rhs"


def vector_type(name: str) -> tuple[str, int] | None:
    """``"float4"`` → ``("float", 4)``; None for any other name."""
    m = _VECTOR.match(name)
    return (m.group(1), int(m.group(2))) if m else None


@dataclass(frozen=True)
class _Param:
    type: str
    ref: bool
    const: bool
    name: str


@dataclass(frozen=True)
class OperatorDef:
    """A free operator function on one HIP vector type: where it is and what it computes."""

    op: str
    vtype: str
    first: int  # token index of the declaration's first token
    operator: int  # token index of ``operator``
    params_close: int  # token index of the ``)`` closing the parameter list
    body_close: int
    duplicate: bool  # computes exactly what HIP's own operator computes


def _param(toks, first: int, end: int) -> _Param | None:
    texts = [t[3] for t in toks[first:end]]
    const = "const" in texts
    texts = [t for t in texts if t not in ("const", "__restrict__", "__restrict")]
    ref = "&" in texts
    texts = [t for t in texts if t != "&"]
    if len(texts) != 2 or vector_type(texts[0]) is None or not re.match(r"^[A-Za-z_]\w*$", texts[1]):
        return None
    return _Param(texts[0], ref, const, texts[1])


def _enclosing_open(view: cs.DeviceView, opens: list[int], i: int) -> int | None:
    """The innermost ``{`` whose block holds token ``i``."""
    pairs = view.pairs
    k = bisect.bisect_left(opens, i) - 1
    while k >= 0:
        o = opens[k]
        if pairs.get(o, -1) > i:
            return o
        k -= 1
    return None


def _at_namespace_scope(view: cs.DeviceView, opens: list[int], i: int) -> bool:
    toks = view.tokens
    o = _enclosing_open(view, opens, i)
    while o is not None:
        before = [t[3] for t in toks[max(0, o - 2):o]]
        if not (before[-1:] == ["namespace"] or before[-2:-1] == ["namespace"] or before[-2:] == ["extern", '"C++"']):
            return False
        o = _enclosing_open(view, opens, o)
    return True


def _statements(toks, open_i: int, close_i: int) -> list[list[str]] | None:
    """The body's statements as token texts; None when it holds a directive or a nested block."""
    out, cur, depth = [], [], 0
    for t in toks[open_i + 1:close_i]:
        if t[0] is Kind.DIRECTIVE:
            return None
        if t[3] == "{":
            depth += 1
        elif t[3] == "}":
            depth -= 1
            if depth == 0 and not cur[:1] == ["return"]:
                return None  # a block statement (if/for …), not a braced initialiser
        if t[3] == ";" and depth == 0:
            out.append(cur)
            cur = []
        else:
            cur.append(t[3])
    return out if not cur else None


def _component_expr(a: str, op: str, b: str, c: str) -> list[str]:
    return [a, ".", c, op, b, ".", c]


def _is_compound_copy(stmts: list[list[str]], a: str, b: str, op: str, rank: int, returns_ref: bool) -> bool:
    if returns_ref:
        if not stmts or stmts[-1] != ["return", a]:
            return False
        stmts = stmts[:-1]
    want = set(_COMPONENTS[:rank])
    seen = set()
    for s in stmts:
        if len(s) == 7 and s[:3] == [a, ".", s[2]] and s[3] == op + "=" and s[4:6] == [b, "."] and s[6] == s[2]:
            c = s[2]
        elif len(s) == 11 and s[:4] == [a, ".", s[2], "="] and s[4:] == _component_expr(a, op, b, s[2]):
            c = s[2]
        else:
            return False
        if c not in want or c in seen:
            return False
        seen.add(c)
    return seen == want


def _is_binary_copy(stmts: list[list[str]], a: str, b: str, op: str, vtype: str, rank: int) -> bool:
    if len(stmts) != 1:
        return False
    s = stmts[0]
    # make_float4(…), or a braced initialiser of the return type: {…} or float4{…}.
    for head, tail in (([f"make_{vtype}", "("], ")"), (["{"], "}"), ([vtype, "{"], "}")):
        if s[1:1 + len(head)] == head and s[-1:] == [tail] and s[:1] == ["return"]:
            inner = s[1 + len(head):-1]
            break
    else:
        return False
    parts, cur = [], []
    for t in inner:
        if t == ",":
            parts.append(cur)
            cur = []
        else:
            cur.append(t)
    parts.append(cur)
    if len(parts) != rank:
        return False
    for c, part in zip(_COMPONENTS, parts):
        if part != _component_expr(a, op, b, c) and not (op == "*" and part == _component_expr(b, op, a, c)):
            return False
    return True


def _declaration_start(toks, i: int) -> int | None:
    """The first token of the declaration whose ``operator`` keyword is at ``i``; None for a template."""
    k = i - 1
    while k >= 0 and (toks[k][0] is Kind.IDENT or toks[k][3] in ("&", "*", "::")):
        k -= 1
    if k >= 0 and not (toks[k][3] in (";", "}", "{") or toks[k][0] is Kind.EOD):
        return None
    return k + 1


def operator_defs(view: cs.DeviceView) -> list[OperatorDef]:
    """Free definitions of the operators HIP's vector types declare as non-templates
    (:data:`HIP_MEMBER_COMPOUND`, :data:`HIP_FRIEND_BINARY`) on HIP vector types, in order."""
    toks, pairs = view.tokens, view.pairs
    hits = view.ident_indices(("operator",))
    if not hits:
        return []
    opens = view.punct_indices("{")
    out = []
    for i in hits:
        if i + 2 >= len(toks):
            continue
        op = toks[i + 1][3]
        if op not in HIP_MEMBER_COMPOUND and op not in HIP_FRIEND_BINARY or toks[i + 2][3] != "(":
            continue
        close = pairs.get(i + 2)
        if close is None:
            continue
        j = close + 1
        while j < len(toks) and toks[j][3] == "noexcept":
            j += 1
        if j < len(toks) and toks[j][3] == PREFERRED:
            continue  # marked by an earlier port: C++ already prefers it to HIP's
        if j >= len(toks) or toks[j][3] != "{" or j not in pairs:
            continue  # a declaration, not a definition
        first = _declaration_start(toks, i)
        if first is None or not _at_namespace_scope(view, opens, i):
            continue
        args = cs.split_args(toks, i + 2, close)
        if len(args) != 2:
            continue
        p0, p1 = (_param(toks, a, b) for a, b in args)
        if p0 is None or p1 is None or p0.type != p1.type or p0.name == p1.name or p1.name == RHS:
            continue  # (RHS: an overload vado wrote for a definition with another meaning)
        prefix = [t[3] for t in toks[first:i] if t[3] not in ("const",)]
        returns_ref = prefix[-1:] == ["&"]
        ret = prefix[-2] if returns_ref and len(prefix) >= 2 else (prefix[-1] if prefix else "")
        vtype, (elem, rank) = p0.type, vector_type(p0.type)
        stmts = _statements(toks, j, pairs[j])
        if op in HIP_MEMBER_COMPOUND:
            # Ambiguous with the member when the left side binds as the member's object
            # (a non-const reference) and the right side as its const reference.
            if not p0.ref or p0.const or p1.ref and not p1.const:
                continue
            duplicate = (stmts is not None and (ret == "void" and not returns_ref or ret == vtype and returns_ref)
                         and _is_compound_copy(stmts, p0.name, p1.name, HIP_MEMBER_COMPOUND[op], rank, returns_ref))
        else:
            if p0.ref and not p0.const or p1.ref and not p1.const:
                continue
            duplicate = (stmts is not None and ret == vtype and not returns_ref
                         and _is_binary_copy(stmts, p0.name, p1.name, op, vtype, rank))
        out.append(OperatorDef(op, vtype, first, i, close, pairs[j], duplicate))
    return out


def _hip_aware(view: cs.DeviceView, defs: list[OperatorDef]) -> set[int]:
    """Indices (into ``defs``) of definitions inside an ``#if`` group that tests a HIP macro."""
    toks = view.tokens
    marks = view.directive_marks
    inside: set[int] = set()
    stack: list[bool] = []
    m = 0
    for n, d in enumerate(defs):
        while m < len(marks) and marks[m] < d.first:
            tok = toks[marks[m]]
            if tok[0] is Kind.DIRECTIVE:
                word = _directive_word(tok)
                if word in _CONDITIONALS:
                    end = marks[m + 1] if m + 1 < len(marks) else len(toks)
                    stack.append(any(_HIP_MACROS.search(t[3]) for t in toks[marks[m] + 1:end]))
                elif word == "endif" and stack:
                    stack.pop()
                elif word in ("elif", "else") and stack and not stack[-1]:
                    end = marks[m + 1] if m + 1 < len(marks) else len(toks)
                    stack[-1] = any(_HIP_MACROS.search(t[3]) for t in toks[marks[m] + 1:end])
            m += 1
        if any(stack):
            inside.add(n)
    return inside


def _insertion_before(text: str, offset: int) -> tuple[int, str]:
    """Where a block goes before the declaration at ``offset``, and what it starts with: the start of
    that line, or ``offset`` itself after a newline when code precedes the declaration on its line."""
    start = _line_start(text, offset)
    return (start, "") if not text[start:offset].strip() else (offset, "\n")


def _neighbours(defs: list[OperatorDef]) -> Iterator[tuple[bool, list[OperatorDef]]]:
    """Runs of adjacent definitions of one kind (duplicate of HIP's, or another meaning), in order."""
    group: list[OperatorDef] = []
    for d in defs:
        if group and (group[-1].duplicate != d.duplicate or group[-1].body_close + 1 != d.first):
            yield group[0].duplicate, group
            group = []
        group.append(d)
    if group:
        yield group[0].duplicate, group


class VectorOperatorDuplicatesHip(Rule):
    """A program's own operator on a HIP vector type that HIP's headers already declare.

    What it does
    ------------
    Finds free definitions of ``+=``, ``-=``, ``*=``, ``/=`` (``T& a, T b``) and
    of binary ``*`` and ``/`` (``T a, T b``) where ``T`` is a CUDA vector type
    (``float4``, ``int2``, ``double3`` … the ``helper_math.h`` style), outside any
    ``#if`` that already tests a HIP macro. A definition that computes exactly
    what HIP's operator computes (component by component: ``a.x += b.x; …``,
    ``return make_float4(a.x * b.x, …)`` or ``return {a.x * b.x, …}``) is a
    duplicate and gets a fix; one that computes something else (a complex
    product on ``float2``, say) gets another.

    Why is this bad?
    ----------------
    CUDA's vector types are plain structs without operators. HIP's are
    ``HIP_vector_type`` classes that declare these operators as non-templates
    (compound assignments as members in every HIP; ``*`` and ``/`` as friends in
    ROCm 7.2.4), so a call with two vectors matches the program's definition and
    HIP's equally well: "use of overloaded operator '+=' is ambiguous". HIP's
    other operators (``+``, ``-``, ``%``, mixed vector–scalar forms, unary ``-``)
    are templates, which a program's non-template definition outranks: those
    compile and are left alone, as are operators on the program's own structs.
    HeCBench's hand-written HIP twins drop these definitions (``sobel``,
    ``particles``, ``boxfilter``) and use HIP's.

    Example
    -------
    .. code-block:: cuda

        inline __host__ __device__ void operator+=(float4 &a, float4 b) {
            a.x += b.x; a.y += b.y; a.z += b.z; a.w += b.w;
        }

    Use instead
    -----------
    .. code-block:: cpp

        #if !defined(__HIP_PLATFORM_AMD__)
        inline __host__ __device__ void operator+=(float4 &a, float4 b) {
            a.x += b.x; a.y += b.y; a.z += b.z; a.w += b.w;
        }
        #endif

    Fix safety
    ----------
    Safe for a duplicate: the definition stays for HIP on NVIDIA (where the
    vector types are CUDA's structs again) and is left out on AMD, where HIP's
    operator computes the same component-wise result (IEEE arithmetic per
    component; HIP's ``operator+=`` also returns the vector, where the
    program's returned ``void``, which no caller could use). For 8- and 16-bit
    element types and ``/``, HIP divides in the element type where C++
    promotes to ``int``; the results differ only when a quotient overflows
    (``-128 / -1``), so that fix is marked unsafe.

    A definition with another meaning (HeCBench tgvnn's complex ``float2``
    product) stays, marked ``VADO_PREFERRED_OVER_HIP`` after its parameter
    list: on HIP for AMD that macro is clang's ``enable_if(true, …)``
    attribute, and a function with a satisfied ``enable_if`` wins over one
    without when both match equally well, which is every call with two
    vectors (a const one too). So C++ chooses the program's operator, as on
    CUDA, where vector types have no operators of their own. Elsewhere the
    macro is empty. Safe.

    References
    ----------
    - ``hip/amd_detail/amd_hip_vector_types.h`` of ROCm 7.2.4 (``HIP_vector_type``), measured with its hipcc for gfx942
    - HIP 5.2 ``amd_hip_vector_types.h`` (Debian 12 ``libamdhip64-dev``)
    - HeCBench ``sobel-hip/kernels.cu``, ``particles-hip/particles_kernels.cu``, https://github.com/zjin-lcf/HeCBench
    """

    code = "API007"
    name = "vector-operator-duplicates-hip"
    severity = Severity.HIGH
    file_kinds = cs.CUDA_CXX_KINDS
    can_fix = True
    triggers = frozenset({"operator"})

    def check(self, ctx: FileContext) -> Iterable[Finding]:
        targets = _rocm_targets(ctx)
        if not targets:
            return ()
        view = cs.device_view(ctx)
        defs = operator_defs(view)
        if not defs:
            return ()
        skip = _hip_aware(view, defs)
        defs = [d for n, d in enumerate(defs) if n not in skip]
        return list(self._findings(ctx, view, defs, targets)) if defs else ()

    def _findings(self, ctx: FileContext, view: cs.DeviceView, defs: list[OperatorDef], targets) -> Iterator[Finding]:
        # Neighbouring definitions (a helper header's list) share one finding and one fix.
        for duplicate, group in _neighbours(defs):
            yield self._guarded(ctx, view, group, targets) if duplicate else self._preferred(ctx, view, group, targets)

    def _preferred(self, ctx: FileContext, view: cs.DeviceView, group: list[OperatorDef], targets) -> Finding:
        toks, text = view.tokens, view.text
        names = list(dict.fromkeys(f"{d.vtype} operator{d.op}" for d in group))
        wheres = sorted({"as members" if d.op in HIP_MEMBER_COMPOUND else "as friends (ROCm 7.x)" for d in group})
        start, before = _insertion_before(text, toks[group[0].first][1])
        head = (f"{before}// vado: HIP's vector types declare {', '.join(names)} {' and '.join(wheres)}, component by "
                "component; marked, C++ chooses the program's operator instead, as on CUDA\n" + PREFERRED_DEFINITION)
        edits = [ctx.edit(start, start, head)]
        edits += [ctx.edit(toks[d.params_close][2], toks[d.params_close][2], f" {PREFERRED}") for d in group]
        fix = Fix(tuple(edits), Applicability.SAFE, f"prefer the program's {', '.join(names)} to HIP's", ("api",))
        tok = toks[group[0].operator]
        message = (f"{', '.join(names)} {'is' if len(names) == 1 else 'are'} ambiguous with HIP's own "
                   f"(HIP_vector_type declares {'it' if len(names) == 1 else 'them'} {' and '.join(wheres)}), "
                   "which compute something else; the port marks the program's definitions so that C++ "
                   "prefers them (clang's enable_if attribute)")
        return self.finding(ctx, tok[1], toks[group[0].operator + 1][2], message, {t.name: AUTO for t in targets},
                            fix=fix, effort=Effort(lines=len(group), constructs=len(group), hours=0.0),
                            data={"operators": names, "definitions": len(group), "macro": PREFERRED})

    def _guarded(self, ctx: FileContext, view: cs.DeviceView, group: list[OperatorDef], targets) -> Finding:
        toks, text = view.tokens, view.text
        end_tok = toks[group[-1].body_close]
        start, before = _insertion_before(text, toks[group[0].first][1])
        names = list(dict.fromkeys(f"{d.vtype} operator{d.op}" for d in group))
        head = f"{before}// vado: HIP's vector types already define {', '.join(names)} with this meaning\n{GUARD}\n"
        line_end = text.find("\n", end_tok[2])
        rest = text[end_tok[2]:line_end if line_end >= 0 else len(text)]
        tail = "\n#endif" + ("\n" if rest.strip() else "")
        narrow_div = any(d.op in ("/", "/=") and VECTOR_ELEMENTS[vector_type(d.vtype)[0]] < 32 for d in group)
        applicability = Applicability.UNSAFE if narrow_div else Applicability.SAFE
        fix = Fix((ctx.edit(start, start, head), ctx.edit(end_tok[2], end_tok[2], tail)), applicability,
                  f"keep {', '.join(names)} for non-AMD platforms only", ("api",))
        tok = toks[group[0].operator]
        message = (f"{', '.join(names)} duplicate{'s' if len(names) == 1 else ''} HIP's own operator"
                   f"{'s' if len(names) > 1 else ''} (HIP_vector_type), which makes every use ambiguous; "
                   f"the port keeps the definition{'s' if len(group) > 1 else ''} for non-AMD platforms only")
        verdicts = {t.name: AUTO if applicability is Applicability.SAFE else MANUAL for t in targets}
        return self.finding(ctx, tok[1], toks[group[0].operator + 1][2], message, verdicts, fix=fix,
                            effort=Effort(lines=2, constructs=len(group), hours=0.0),
                            data={"operators": names, "definitions": len(group)})


# --------------------------------------------------------------------------- API008

#: The atomics HIP's headers define as plain (non-template) ``__device__`` functions
#: ``T name(T* address, T val)``, returning the old value, that CUDA lacks for some ``T``
#: (so programs write their own): ``(name, T)`` → the first HIP release whose header was
#: read to define it. Source: ``hip/amd_detail/amd_hip_atomic.h`` of ROCm 7.2.4 (every row)
#: and of HIP 5.2 (Debian 12 ``libamdhip64-dev``: all but the ``long long`` min/max, which
#: only 7.2.4's defines). Only operations whose meaning does not depend on how they are
#: written are listed (add, subtract, exchange, minimum, maximum); ``atomicCAS`` on
#: ``float``/``double`` is not, because a CAS loop compares bit patterns where HIP compares values.
HIP_ATOMIC_OVERLOADS: dict[tuple[str, str], str] = {
    **{(op, t): "5.2"
       for op in ("atomicAdd", "atomicSub", "atomicExch", "atomicMin", "atomicMax")
       for t in ("int", "unsigned int", "unsigned long", "unsigned long long", "float", "double")},
    ("atomicMin", "long long"): "7.2",
    ("atomicMax", "long long"): "7.2",
}
#: Where :data:`HIP_ATOMIC_OVERLOADS` comes from (shown in findings' data).
HIP_ATOMIC_HEADER = "hip/amd_detail/amd_hip_atomic.h"
_ATOMIC_NAMES = frozenset(name for name, _t in HIP_ATOMIC_OVERLOADS)
#: Spellings of the element types, normalised (``unsigned`` → ``unsigned int``).
_TYPE_SPELLINGS = {
    "int": "int", "signed int": "int", "signed": "int",
    "unsigned": "unsigned int", "unsigned int": "unsigned int",
    "unsigned long": "unsigned long", "unsigned long int": "unsigned long",
    "unsigned long long": "unsigned long long", "unsigned long long int": "unsigned long long",
    "long long": "long long", "long long int": "long long", "signed long long": "long long",
    "float": "float", "double": "double",
}
_DROPPED_QUALIFIERS = frozenset({"__restrict__", "__restrict", "restrict"})
_FUNCTION_SPECIFIERS = frozenset({"__device__", "__host__", "__forceinline__", "__noinline__", "inline",
                                  "static", "extern", "__inline__", "constexpr"})


@dataclass(frozen=True)
class AtomicDef:
    """A program's own definition of an atomic HIP defines with the same parameter types."""

    name: str
    elem: str  # the element type, normalised
    ret: str  # the return type as written (``void``, ``float`` …), normalised where known
    first: int  # token index of the declaration's first token
    name_at: int
    body_close: int


def _element_type(words: list[str], pointer: bool) -> str | None:
    """The normalised element type of a parameter's tokens (name included, or not), or None."""
    words = [w for w in words if w not in _DROPPED_QUALIFIERS]
    if pointer:
        if words.count("*") != 1:
            return None
        star = words.index("*")
        before, after = words[:star], words[star + 1:]
        if "const" in before or "volatile" in before or any(w not in ("const",) and not re.match(r"^[A-Za-z_]\w*$", w)
                                                           for w in after) or len(after) > 2:
            return None  # ``const float*`` or ``volatile float*`` is another overload
        words = before
    else:
        if any(not re.match(r"^[A-Za-z_]\w*$", w) for w in words) or "volatile" in words:
            return None
        words = [w for w in words if w != "const"]  # a top-level const is not part of the signature
    for cut in (0, 1):  # with and without a trailing parameter name
        spelled = " ".join(words[:len(words) - cut]) if cut else " ".join(words)
        if spelled in _TYPE_SPELLINGS and (cut == 0 or re.match(r"^[A-Za-z_]\w*$", words[-1])):
            return _TYPE_SPELLINGS[spelled]
    return None


def atomic_defs(view: cs.DeviceView) -> list[AtomicDef]:
    """File-scope ``__device__`` definitions of :data:`HIP_ATOMIC_OVERLOADS` names with HIP's parameter types."""
    toks, pairs = view.tokens, view.pairs
    hits = view.ident_indices(_ATOMIC_NAMES)
    if not hits:
        return []
    opens = view.punct_indices("{")
    out = []
    for i in hits:
        if i + 1 >= len(toks) or toks[i + 1][3] != "(" or (i + 1) not in pairs:
            continue
        close = pairs[i + 1]
        j = close + 1
        if j >= len(toks) or toks[j][3] != "{" or j not in pairs:
            continue  # a call or a declaration, not a definition
        first = _declaration_start(toks, i)
        if first is None or first == i or _enclosing_open(view, opens, i) is not None:
            continue  # no return type, or inside a namespace, class or function
        prefix = [t[3] for t in toks[first:i]]
        if "__device__" not in prefix or "::" in prefix:
            continue
        ret_words = [w for w in prefix if w not in _FUNCTION_SPECIFIERS]
        args = cs.split_args(toks, i + 1, close)
        if len(args) != 2:
            continue
        words = [[t[3] for t in toks[a:b]] for a, b in args]
        ptr, val = _element_type(words[0], True), _element_type(words[1], False)
        if ptr is None or ptr != val or (toks[i][3], ptr) not in HIP_ATOMIC_OVERLOADS:
            continue
        ret = " ".join(ret_words)
        out.append(AtomicDef(toks[i][3], ptr, _TYPE_SPELLINGS.get(ret, ret), first, i, pairs[j]))
    return out


class AtomicOverloadDuplicatesHip(Rule):
    """A program's own ``__device__`` atomic that HIP's headers already define with the same parameters.

    What it does
    ------------
    Finds file-scope ``__device__`` definitions of ``atomicAdd``, ``atomicSub``,
    ``atomicExch``, ``atomicMin`` and ``atomicMax`` taking ``(T* address, T val)``
    for an element type ``T`` that HIP's ``amd_hip_atomic.h`` defines them for
    (``float``, ``double``, ``unsigned long`` …; ``long long`` min/max in ROCm 7),
    outside any ``#if`` that already tests a HIP macro, and keeps them for
    non-AMD platforms only.

    Why is this bad?
    ----------------
    CUDA has no ``atomicMin``/``atomicMax`` on ``float`` or ``double``, no
    ``atomicSub`` on floating point and no ``atomicAdd`` on ``double`` before
    ``sm_60``, so programs write their own (usually a CAS loop), sometimes under
    a ``__CUDA_ARCH__`` test, which HIP's compiler evaluates with the macro
    undefined. HIP defines all of them as plain ``__device__`` functions, and the
    program's definition is a second one: "redefinition of 'atomicMin'".
    HeCBench's hand-written HIP twins drop these definitions (``michalewicz``).

    Example
    -------
    .. code-block:: cuda

        __device__ __forceinline__ float atomicMin(float *addr, float value) {
          unsigned ret = *(unsigned *)addr;
          while (value < __uint_as_float(ret)) {
            unsigned old = ret;
            if ((ret = atomicCAS((unsigned *)addr, old, __float_as_uint(value))) == old) break;
          }
          return __uint_as_float(ret);
        }

    Use instead
    -----------
    .. code-block:: cpp

        #if !defined(__HIP_PLATFORM_AMD__)
        __device__ __forceinline__ float atomicMin(float *addr, float value) { /* as before */ }
        #endif

    Fix safety
    ----------
    Safe when the definition returns ``T`` or ``void``: HIP's function performs
    the same read-modify-write atomically on the same address and returns the
    old value, which is what CUDA's atomics (and the CAS loops written to stand
    in for them) return; a ``void`` definition's callers use no value. Only a
    NaN operand can tell them apart (a ``<`` CAS loop never stores one; HIP's
    hardware minimum and maximum may), and floating-point sums may round in
    another order, as they do between runs on CUDA. A definition returning
    another type gets no fix: rename it.

    References
    ----------
    - ``hip/amd_detail/amd_hip_atomic.h`` of ROCm 7.2.4, measured with its hipcc for gfx942
    - HIP 5.2 ``amd_hip_atomic.h`` (Debian 12 ``libamdhip64-dev``), the redefinition measured with its hipcc for gfx90a
    - CUDA C++ Programming Guide, "Atomic Functions" (the element types CUDA defines them for)
    - HeCBench ``michalewicz-cuda/main.cu`` and ``michalewicz-hip/main.cu``, https://github.com/zjin-lcf/HeCBench
    """

    code = "API008"
    name = "atomic-overload-duplicates-hip"
    severity = Severity.HIGH
    file_kinds = cs.CUDA_CXX_KINDS
    can_fix = True
    triggers = _ATOMIC_NAMES

    def check(self, ctx: FileContext) -> Iterable[Finding]:
        targets = _rocm_targets(ctx)
        if not targets:
            return ()
        view = cs.device_view(ctx)
        defs = atomic_defs(view)
        if not defs:
            return ()
        skip = _hip_aware(view, defs)
        out = []
        for n, d in enumerate(defs):
            if n in skip:
                continue
            since = HIP_ATOMIC_OVERLOADS[(d.name, d.elem)]
            hit = tuple(t for t in targets if cs.hip_at_least(t, since))
            if hit:
                out.append(self._finding(ctx, view, d, hit))
        return out

    def _finding(self, ctx: FileContext, view: cs.DeviceView, d: AtomicDef, targets) -> Finding:
        toks, text = view.tokens, view.text
        signature = f"{d.name}({d.elem}*, {d.elem})"
        name_tok = toks[d.name_at]
        data = {"function": d.name, "type": d.elem, "header": HIP_ATOMIC_HEADER}
        if d.ret not in (d.elem, "void"):
            message = (f"{signature} is already defined by HIP ({HIP_ATOMIC_HEADER}), returning the old {d.elem}; "
                       f"this definition returns {d.ret or 'something else'}, so it cannot simply be dropped: rename it")
            return self.finding(ctx, toks[d.first][1], name_tok[2], message, {t.name: MANUAL for t in targets},
                                effort=Effort(lines=1, constructs=1, hours=0.5), data=data)
        start_tok, end_tok = toks[d.first], toks[d.body_close]
        start = _line_start(text, start_tok[1])
        before = "" if not text[start:start_tok[1]].strip() else "\n"
        if before:
            start = start_tok[1]
        head = f"{before}// vado: HIP already defines {signature} ({HIP_ATOMIC_HEADER}) with this meaning\n{GUARD}\n"
        line_end = text.find("\n", end_tok[2])
        rest = text[end_tok[2]:line_end if line_end >= 0 else len(text)]
        tail = "\n#endif" + ("\n" if rest.strip() else "")
        fix = Fix((ctx.edit(start, start, head), ctx.edit(end_tok[2], end_tok[2], tail)), Applicability.SAFE,
                  f"keep {signature} for non-AMD platforms only", ("api",))
        message = (f"{signature} is already defined by HIP ({HIP_ATOMIC_HEADER}), so this definition is a redefinition "
                   "there; the port keeps it for non-AMD platforms only and HIP's, which computes the same, is used")
        return self.finding(ctx, start_tok[1], name_tok[2], message, {t.name: AUTO for t in targets}, fix=fix,
                            effort=Effort(lines=2, constructs=1, hours=0.0), data=data)
