"""API008: a program's own definition of an atomic HIP's headers already define (``atomicMin`` on
``float``, ``atomicAdd`` on ``double`` …): the definitions (:func:`atomic_defs`) and the guard the port
writes around them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable

from vado.model import Applicability, Effort, Finding, Fix, Severity
from vado.rules import cuda_syntax as cs
from vado.rules.api_decl.common import (
    AUTO, GUARD, MANUAL, _declaration_start, _enclosing_open, _hip_aware, _line_start, _rocm_targets,
)
from vado.rules.base import FileContext, Rule


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
