"""ARCH008: tests of the CUDA version macros (``CUDART_VERSION``, ``__CUDACC_VER_MAJOR__`` …), answered
with the CUDA API level the target's HIP follows (:func:`cuda_api_level`, from HIPIFY's tables).
"""

from __future__ import annotations

import functools
from typing import Iterable

from vado.model import Applicability, Effort, Finding, Fix, Severity
from vado.rules import cuda_syntax as cs
from vado.rules.arch.common import MANUAL, _by_family
from vado.rules.arch.directives import (
    _CMP, _PREPROC_VERDICTS, _comparison_branches, _directive_name, _has_code, _has_error, _has_ptx, _static_assert_condition,
    _tested_name,
)
from vado.rules.base import FileContext, Rule, verdicts_for
from vado.scan.lexer import Kind
from vado.scan.preprocessor import evaluate_expression


_VERSION_MACROS = frozenset({"CUDART_VERSION", "CUDA_VERSION", "__CUDACC_VER_MAJOR__", "__CUDACC_VER_MINOR__",
                             "__CUDACC_VER_BUILD__", "__NVCC_VER_MAJOR__"})


#: How each version macro reads a CUDA release ``(major, minor)``: ``CUDART_VERSION`` and ``CUDA_VERSION``
#: are ``1000 * major + 10 * minor`` (12040 for 12.4, cuda_runtime_api.h / cuda.h), the compiler's
#: ``__CUDACC_VER_MAJOR__`` the major number. The minor and build numbers alone decide nothing.
_VERSION_VALUE = {
    "CUDART_VERSION": lambda v: 1000 * v[0] + 10 * v[1],
    "CUDA_VERSION": lambda v: 1000 * v[0] + 10 * v[1],
    "__CUDACC_VER_MAJOR__": lambda v: v[0],
    "__NVCC_VER_MAJOR__": lambda v: v[0],
}
_LACKING = frozenset({"unavailable", "removed", "newer-than-target"})
#: Sections of HIPIFY's tables HIP implements little of at any version (graphics interoperability): they
#: say nothing about how far HIP follows CUDA's compute API (CUDA 9.1 added 24 EGL functions and nothing else).
_INTEROP_SECTIONS = ("EGL", "OpenGL", "Direct3D", "VDPAU", "Graphics Interoperability")


@functools.lru_cache(maxsize=16)
def _cuda_api_level(name: str, family: str, level: str) -> tuple[int, int] | None:
    from vado.knowledge.api import api_table, availability
    from vado.knowledge.targets import get_target

    target = get_target(name)
    per_release: dict[tuple[int, int], list[int]] = {}
    for e in api_table().entries:
        if e.library not in ("runtime", "driver") or e.kind != "function" or not e.cuda_added:
            continue
        if any(word in e.section for word in _INTEROP_SECTIONS):
            continue
        release = cs.version_tuple(e.cuda_added)[:2]
        if len(release) < 2:
            continue
        counts = per_release.setdefault(release, [0, 0])
        counts[0] += 1
        counts[1] += availability(e, target).status.value not in _LACKING
    found = None
    for release in sorted(per_release):
        total, has = per_release[release]
        if 2 * has < total:
            break
        found = release
    return found


def cuda_api_level(target) -> tuple[int, int] | None:
    """The CUDA release whose runtime API ``target``'s HIP follows, by a stated rule over HIPIFY's tables
    (``knowledge/data/api``: each function's ``cuda_added`` against the target's HIP version): the
    CUDA releases, oldest first, each of whose new runtime and driver functions the target mostly
    (at least half) has, form a run; the level is the last release of that run (graphics
    interoperability left out). For ROCm 7.2 that is CUDA 11.7: HIP 7.2 has 8 of the 11 functions
    11.7 added and none of the 8 that 11.8 added (12.0: 4 of 23, 12.1: 0 of 12), and it keeps CUDA
    11's signatures where CUDA 12 changed them (``hipGraphInstantiate`` takes five arguments).
    None for a target without API facts (not ROCm)."""
    if target.family != "rocm":
        return None
    return _cuda_api_level(target.name, target.family, target.hip_version or target.version)


class CudaVersionMacroTest(Rule):
    """Preprocessor tests of the CUDA toolkit version (``CUDART_VERSION``, ``CUDA_VERSION``, ``__CUDACC_VER_MAJOR__``).

    What it does
    ------------
    Finds ``#if CUDART_VERSION >= 11000``, ``#if CUDA_VERSION < 12000``,
    ``#if __CUDACC_VER_MAJOR__ >= 11`` and ``#ifdef CUDART_VERSION`` /
    ``defined(CUDA_VERSION)``.

    Why is this bad?
    ----------------
    HIP defines none of them, so in the port every comparison sees 0:
    ``>=`` tests are false and the branch written for old CUDA toolkits (or
    nothing) is compiled, silently. ``#ifdef CUDART_VERSION`` (is the runtime
    API header included?) is false too.

    Example
    -------
    .. code-block:: cuda

        #if CUDART_VERSION >= 12000
          cudaGraphInstantiate(&exec, graph, 0);
        #else
          cudaGraphInstantiate(&exec, graph, NULL, NULL, 0);
        #endif

    Use instead
    -----------
    .. code-block:: cuda

        // the branch whose API matches HIP's (hipGraphInstantiate keeps the 5-argument form)
        #if 0
          hipGraphInstantiate(&exec, graph, 0);
        #else
          hipGraphInstantiate(&exec, graph, NULL, NULL, 0);
        #endif

    Fix safety
    ----------
    ``defined(CUDART_VERSION)``/``defined(CUDA_VERSION)`` → ``defined(HIP_VERSION)``
    is safe: CUDA defines them in the runtime and driver API headers, and
    ``HIP_VERSION`` comes with ``hip_runtime.h``/``hip_runtime_api.h``, which
    the port includes in their place. A comparison ``NAME OP N`` of
    ``CUDART_VERSION``, ``CUDA_VERSION`` or ``__CUDACC_VER_MAJOR__`` is decided
    for the ROCm target, safely, by a stated rule: the target's HIP follows
    the CUDA API of the release :func:`cuda_api_level` finds in vado's API
    tables (CUDA 11.7 for ROCm 7.2: the end of the run of releases, oldest
    first, whose new runtime and driver functions HIP 7.2 mostly has; 11.8
    added 8 and HIP has none), so the comparison becomes ``1`` or
    ``0`` as that release answers it. Two exceptions, each stated in the
    finding: where the branch so chosen calls a CUDA function the target
    lacks and the other branch calls none, the port takes the other branch
    (the one whose APIs the target has); where the branch so chosen is an
    ``#error`` demanding a toolkit version, the port takes the other one (the
    calls are judged by their own findings). The minor and build numbers
    alone, ``==``/``!=`` and tests outside an ``#if`` get no fix: choose by
    hand.

    References
    ----------
    - HIP version macros (``hip_version.h``): https://rocm.docs.amd.com/projects/HIP/en/latest/reference/hip_runtime_api/modules/version.html
    - CUDA runtime API (``CUDART_VERSION``): https://docs.nvidia.com/cuda/cuda-runtime-api/
    - HIPIFY's support tables (the CUDA release each function was added in, the HIP release that has it): https://github.com/ROCm/HIPIFY/tree/014177bc2e434ce3e834aa4f3d0e2abb1efa9796/docs/tables
    """

    code = "ARCH008"
    triggers = _VERSION_MACROS
    can_fix = True
    name = "cuda-version-macro-test"
    severity = Severity.MEDIUM
    file_kinds = cs.CUDA_CXX_KINDS

    def check(self, ctx: FileContext) -> Iterable[Finding]:
        view = cs.device_view(ctx)
        toks = view.tokens
        hits = view.ident_indices(self.triggers)
        own = {toks[i][3] for i in hits if i > 0 and _directive_name(toks[i - 1]) == "#define"}
        asserted: set[int] = set()  # static_asserts already reported (one finding per assertion)
        for i in hits:
            tok = toks[i]
            name = tok[3]
            if name in own:
                continue
            how = _tested_name(toks, i)
            if how == "code":
                span = _static_assert_condition(toks, i)
                if span is not None and span[0] not in asserted:
                    asserted.add(span[0])
                    yield self._asserted(ctx, toks, span)
                continue
            if how == "ifdef" and name in ("CUDART_VERSION", "CUDA_VERSION"):
                fix = Fix((ctx.edit(tok[1], tok[2], "HIP_VERSION"),), Applicability.SAFE, f"{name} → HIP_VERSION", ("arch",))
                yield self.finding(ctx, tok[1], tok[2], f"HIP does not define {name}: the test is false in the port "
                                   "(HIP_VERSION comes with the HIP runtime headers)",
                                   verdicts_for(ctx, _by_family(_PREPROC_VERDICTS)), fix=fix,
                                   effort=Effort(lines=1, constructs=1), data={"macro": name})
            elif how in ("ifdef", "value"):
                n = len(toks)
                cmp = toks[i + 1][3] if i + 1 < n else ""
                num = toks[i + 2] if i + 2 < n else None
                value = cs.int_value(num[3]) if num is not None and num[0] is Kind.NUMBER else None
                if how == "value" and cmp in _CMP and value is not None:
                    decided = self._decided(ctx, toks, i, cmp, value)
                    if decided is not None:
                        yield decided
                        continue
                    taken = _CMP[cmp](0, value)
                    text = cs.text_of(ctx.text, toks, i, i + 3)
                    msg = (f"HIP does not define {name}: `{text}` is {'true' if taken else 'false'} in the port, which compiles "
                           f"the {'guarded' if taken else 'other'} branch; choose the branch whose API matches HIP by hand")
                else:
                    msg = f"HIP does not define {name}: the port reads it as 0; choose the branch whose API matches HIP by hand"
                yield self.finding(ctx, tok[1], tok[2], msg, verdicts_for(ctx, _by_family({**_PREPROC_VERDICTS, "rocm": MANUAL})),
                                   effort=Effort(lines=2, constructs=1, hours=0.25), data={"macro": name})

    def _asserted(self, ctx: FileContext, toks, span: tuple[int, int]) -> Finding:
        """The finding for ``static_assert(COND, …)`` whose ``COND`` (tokens ``span``) tests the CUDA version:
        HIP defines none of the macros, so in the port they are undeclared names and the assertion does not
        compile. Answered for the first ROCm target's CUDA API level (:func:`cuda_api_level`) when every name
        in ``COND`` is a version macro with a value there: met → ``true`` (safe); not met → by hand."""
        start, end = span
        text = cs.text_of(ctx.text, toks, start, end)
        target = next((t for t in ctx.targets if t.family == "rocm"), None)
        level = cuda_api_level(target) if target is not None else None
        value = None
        if level is not None:
            values = {n: read(level) for n, read in _VERSION_VALUE.items()}
            values["__CUDACC_VER_MINOR__"] = level[1]
            value = evaluate_expression([toks[k][3] for k in range(start, end)], values)
        lead = (f"static_assert({text}) tests the CUDA toolkit version, and HIP defines none of these macros: in the "
                "port they are undeclared names and the assertion does not compile")
        first = toks[start]
        if value:
            release = f"{level[0]}.{level[1]}"
            fix = Fix((ctx.edit(first[1], toks[end - 1][2], "true"),), Applicability.SAFE, f"{text} → true", ("arch",))
            why = (f"{lead}; {target.name}'s HIP follows the CUDA API up to CUDA {release} (HIPIFY's tables), which "
                   "meets it: the port answers it as met")
            return self.finding(ctx, first[1], toks[end - 1][2], why, verdicts_for(ctx, _by_family(_PREPROC_VERDICTS)),
                                fix=fix, effort=Effort(lines=1, constructs=1),
                                data={"replacement": "true", "cuda_api_level": release})
        if value == 0:
            why = (f"{lead}; {target.name}'s HIP follows the CUDA API up to CUDA {level[0]}.{level[1]} (HIPIFY's "
                   "tables), which does not meet it: check by hand what the code needs of the toolkit")
        else:
            why = f"{lead}; decide by hand what the code needs of the toolkit"
        return self.finding(ctx, first[1], toks[end - 1][2], why,
                            verdicts_for(ctx, _by_family({**_PREPROC_VERDICTS, "rocm": MANUAL})),
                            effort=Effort(lines=1, constructs=1, hours=0.25))

    def _decided(self, ctx: FileContext, toks, i: int, cmp: str, value: int) -> Finding | None:
        """The finding with a fix that answers ``NAME cmp value`` for the first ROCm target, or None."""
        name = toks[i][3]
        read = _VERSION_VALUE.get(name)
        target = next((t for t in ctx.targets if t.family == "rocm"), None)
        level = cuda_api_level(target) if read is not None and target is not None and cmp not in ("==", "!=") else None
        spans = _comparison_branches(toks, i) if level is not None else None
        if spans is None:
            return None
        text = cs.text_of(ctx.text, toks, i, i + 3)
        release = f"{level[0]}.{level[1]}"
        answer = _CMP[cmp](read(level), value)
        why = (f"HIP does not define {name} (it reads 0 there, and `{text}` would silently be "
               f"{'true' if _CMP[cmp](0, value) else 'false'}); {target.name}'s HIP follows the CUDA API up to CUDA "
               f"{release} (the last of the CUDA releases, oldest first, whose new runtime and driver functions it "
               f"mostly has, per HIPIFY's tables), for which `{text}` is {'true' if answer else 'false'}")
        taken, other = spans if answer else spans[::-1]
        if _has_error(toks, taken) and not _has_error(toks, other):
            answer = not answer
            why += ("; that branch is an #error demanding a CUDA toolkit version, which a HIP build is not: the port "
                    "takes the other branch (its calls are judged by their own findings)")
        elif _has_ptx(toks, taken) and not _has_ptx(toks, other) and _has_code(toks, other):
            # A newer toolkit's branch in inline PTX (red.release.gpu, cp.async) beside the program's portable
            # version: no AMD GPU runs PTX, and the portable branch is what CUDA itself builds on older toolkits.
            answer = not answer
            why += ("; that branch is inline PTX, which no AMD GPU runs, and the other is the program's portable "
                    "version: the port takes the portable branch")
        else:
            lacking = _lacking_apis(toks, taken, target)
            if lacking and not _lacking_apis(toks, other, target) and _has_code(toks, other):
                answer = not answer
                why += (f"; that branch calls {', '.join(lacking[:3])}, which {target.name} lacks, and the other "
                        "branch's calls it has: the port takes the other branch")
        repl = "1" if answer else "0"
        fix = Fix((ctx.edit(toks[i][1], toks[i + 2][2], repl),), Applicability.SAFE, f"{text} → {repl}", ("arch",))
        return self.finding(ctx, toks[i][1], toks[i][2], why, verdicts_for(ctx, _by_family(_PREPROC_VERDICTS)), fix=fix,
                            effort=Effort(lines=1, constructs=1),
                            data={"macro": name, "replacement": repl, "cuda_api_level": release})


def _lacking_apis(toks, span: range, target) -> list[str]:
    """The CUDA runtime/driver names called in ``span`` that ``target`` lacks (HIPIFY's tables), in order."""
    from vado.knowledge.api import availability, lookup

    out: list[str] = []
    for k in span:
        tok = toks[k]
        if tok[0] is Kind.IDENT and tok[3].startswith("cu") and tok[3] not in out:
            entry = lookup(tok[3])
            if entry is not None and availability(entry, target).status.value in _LACKING:
                out.append(tok[3])
    return out
