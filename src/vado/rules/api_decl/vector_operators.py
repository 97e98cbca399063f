"""API007: a program's own arithmetic operators on HIP's vector types (``float4``, ``int2`` …), which
HIP's ``HIP_vector_type`` classes already declare: the definitions (:func:`operator_defs`), which of them
duplicate HIP's, and the guard or preference the port writes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Iterator

from vado.model import Applicability, Effort, Finding, Fix, Severity
from vado.rules import cuda_syntax as cs
from vado.rules.api_decl.common import (
    AUTO, GUARD, MANUAL, _declaration_start, _enclosing_open, _hip_aware, _line_start, _rocm_targets,
)
from vado.rules.base import FileContext, Rule
from vado.scan.lexer import Kind


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
