"""ARCH007: tests of ``__CUDA_ARCH__``, ``__CUDACC__`` and ``__NVCC__``, which HIP does not define, and the
branch the port takes for each comparison of an architecture level (the rules in :func:`_one_level` and
:func:`_between_levels`).
"""

from __future__ import annotations

from typing import Iterable

from vado.model import Applicability, Effort, Finding, Fix, Severity
from vado.rules import cuda_syntax as cs
from vado.rules.arch import tuning
from vado.rules.arch.common import AUTO, MANUAL, _by_family
from vado.rules.arch.directives import (
    CUDA_ARCH_FLOOR, CUDA_ARCH_HOPPER, DEVICE_PASS, _CMP, _PREPROC_VERDICTS, _comparison_branches, _directive_name,
    _directive_of, _has_code, _has_error, _has_ptx, _static_assert_condition, _tested_name, group_branches,
)
from vado.rules.base import FileContext, Rule, verdicts_for
from vado.scan.lexer import Kind
from vado.scan.preprocessor import amd_configuration, hip_aware_directives


#: Why the port does not take the branch of an #error: the test demands an NVIDIA architecture level.
_ERROR_REASON = ("the branch CUDA takes there is an #error that demands another NVIDIA architecture level, which "
                 "an AMD GPU is not: the port takes the other branch (what the code needs of the GPU is judged by "
                 "the findings on the code it uses)")


def _one_level(toks, i: int, device: bool) -> tuple[bool, str]:
    """The device-pass value of a comparison that every GPU from sm_75 to before sm_90 answers ``device``,
    and why: that answer, unless its branch is an ``#error`` (a demand for an architecture level, which
    would fail every device pass of the port) or inline PTX beside a portable branch (which no AMD GPU
    runs: ``red.relaxed.gpu.global.add.noftz.f16x2`` vs ``atomicAdd``)."""
    why = ("every NVIDIA GPU from sm_75 to before sm_90 (what AMD's GPUs are counted as) "
           f"{'takes' if device else 'skips'} this branch")
    spans = _comparison_branches(toks, i)
    if spans is None:
        return device, why
    taken, other = spans if device else spans[::-1]
    if _has_error(toks, taken) and not _has_error(toks, other):
        return not device, _ERROR_REASON
    if _has_ptx(toks, taken) and not _has_ptx(toks, other) and _has_code(toks, other):
        return not device, ("CUDA takes the inline-PTX branch for these GPUs, which no AMD GPU runs: the port "
                            "takes the program's portable branch")
    return device, why


def _between_levels(toks, i: int, newer: bool) -> tuple[bool, Applicability, str]:
    """The device-pass value of an ``__CUDA_ARCH__`` comparison at ``i`` that sm_75 and sm_89 answer
    differently (``newer``: sm_89's answer), how safe that choice is, and why.

    AMD's Instinct GPUs are counted as Ampere-class (sm_80–sm_89, the A100 and L40 the workload
    moves from): the branches these levels guard are bf16/fp8 types and intrinsics HIP has, where the
    older branch is a polyfill that collides with HIP's or an ``assert(false)`` for GPUs without them.
    The exception is a newer branch written in inline PTX (``cp.async``, ``ldmatrix``): no AMD GPU
    runs it, and the older branch is the program's own portable version (what CUDA builds for sm_75)."""
    spans = _comparison_branches(toks, i)
    if spans is None:
        return newer, Applicability.UNSAFE, "the fix assumes the newer branch, check it"
    selected, others = spans
    newer_code, older_code = (selected, others) if newer else (others, selected)
    if _has_error(toks, newer_code) and not _has_error(toks, older_code):
        return not newer, Applicability.SAFE, _ERROR_REASON
    if _has_error(toks, older_code) and not _has_error(toks, newer_code):
        return newer, Applicability.SAFE, _ERROR_REASON
    newer_ptx, older_ptx = _has_ptx(toks, newer_code), _has_ptx(toks, older_code)
    if newer_ptx and older_ptx:
        return newer, Applicability.UNSAFE, "both branches are inline PTX, which no AMD GPU runs; the fix assumes the newer one"
    if newer_ptx and not _has_code(toks, older_code):
        # No other branch: taking "none" would drop what the PTX does, silently; keeping it fails to compile.
        return newer, Applicability.UNSAFE, "the newer branch is inline PTX and there is no other: port it by hand"
    if newer_ptx:
        return not newer, Applicability.SAFE, ("the newer branch is inline PTX, which no AMD GPU runs: the port takes "
                                               "the program's portable branch, the one CUDA builds for sm_75")
    return newer, Applicability.SAFE, ("the port takes the branch of Ampere-class GPUs (sm_80–sm_89: A100, L40), whose "
                                       "bf16/fp8 types and intrinsics HIP has")


def _static_assert_comparison(toks, i: int) -> int | None:
    """For ``static_assert(__CUDA_ARCH__ OP N`` + ``,`` or ``)`` at ``i``: the end (exclusive) of ``__CUDA_ARCH__ OP N``."""
    span = _static_assert_condition(toks, i)
    if span != (i, i + 3) or toks[i - 2][3] != "static_assert":
        return None
    op, num = toks[i + 1], toks[i + 2]
    return i + 3 if op[3] in _CMP and num[0] is Kind.NUMBER else None


class CudaArchMacroTest(Rule):
    """Preprocessor tests of ``__CUDA_ARCH__`` (and ``__CUDACC__``, ``__NVCC__``), which HIP does not define.

    What it does
    ------------
    Finds ``#ifdef __CUDA_ARCH__``, ``defined(__CUDA_ARCH__)``, ``#if
    __CUDA_ARCH__ >= 700``-style comparisons, ``__CUDA_ARCH__`` used as a
    value in code, and ``#ifdef __CUDACC__`` / ``#ifdef __NVCC__`` (nvcc's
    "compiled as CUDA" tests).

    Why is this bad?
    ----------------
    nvcc defines ``__CUDA_ARCH__`` in the device pass (to the target's compute
    capability, ``700`` for sm_70); hipcc defines ``__HIP_DEVICE_COMPILE__``
    there instead (and per-architecture macros such as ``__gfx942__``), never
    ``__CUDA_ARCH__``. A port that keeps the test compiles every device pass
    as if it were the host pass: ``#ifdef __CUDA_ARCH__`` branches vanish,
    kernels whose bodies sit in such a branch compile to empty functions, and
    ``#if __CUDA_ARCH__ >= 700`` silently selects the legacy branch. Nothing
    fails to compile. hipcc defines ``__HIPCC__``, not ``__CUDACC__`` or
    ``__NVCC__``: a ``#ifdef __NVCC__`` that marks helpers ``__device__``
    leaves them host-only (HeCBench ssim).

    Example
    -------
    .. code-block:: cuda

        #ifdef __CUDA_ARCH__
          v = __ldg(p);
        #endif
        #if __CUDA_ARCH__ >= 700
          __syncwarp();
        #endif

    Use instead
    -----------
    .. code-block:: cuda

        #ifdef __HIP_DEVICE_COMPILE__
          v = __ldg(p);
        #endif
        #if defined(__HIP_DEVICE_COMPILE__)
          __syncwarp();
        #endif

    Fix safety
    ----------
    ``defined(__CUDA_ARCH__)`` → ``defined(__HIP_DEVICE_COMPILE__)`` (and
    ``#ifdef``/``#ifndef``, and a bare ``#if __CUDA_ARCH__``) is safe: both
    name the device pass. ``__CUDACC__`` and ``__NVCC__`` → ``__HIPCC__`` are safe (each
    is defined in both passes of a CUDA compile, as ``__HIPCC__`` is in a HIP one). A comparison
    ``__CUDA_ARCH__ OP N`` is evaluated for both passes: on the host pass
    ``__CUDA_ARCH__`` is undefined, so it is ``0 OP N``; on the device pass
    vado counts an AMD GPU as an NVIDIA architecture from sm_75 (the oldest
    CUDA 13 compiles for: the C++ features those levels gate, fp16 and
    double atomics, ``__ldg``, the ``*_sync`` warp functions, exist in HIP)
    up to, not including, sm_90 (Hopper's clusters, TMA and wgmma do not
    exist on AMD). Where the answer is the same for the whole range
    (``N <= 750`` or ``N >= 900``) the comparison becomes
    ``defined(__HIP_DEVICE_COMPILE__)``, its negation, ``1`` or ``0``: safe,
    since the branch kept is the one CUDA takes for every such GPU, and what
    HIP lacks inside it is then reported by its own rule (ARCH001 for
    wmma, PTX rules for inline PTX) instead of vanishing. Levels in between
    (``< 800``, ``>= 800``) are answered for an Ampere-class GPU (sm_80–sm_89,
    the A100 or L40 the workload moves from), also safe: what these levels
    guard is bf16/fp8 support HIP has, and the older branch is a polyfill that
    collides with HIP's own functions or an ``assert(false)`` for GPUs
    without it (HeCBench attention-paged, attentionMultiHeadKVCache). Where
    the branch so chosen is inline PTX (``cp.async``, ``ldmatrix``, or
    ``red.relaxed.gpu.global.add.noftz.f16x2`` under ``>= 700``), which no AMD
    GPU runs, and the other branch is portable code (``atomicAdd``), the port
    takes the other branch. Where the branch so chosen holds an ``#error``
    (a demand for an NVIDIA architecture level, ``#if __CUDA_ARCH__ < 900``
    / ``#error "needs sm_90"``), the port takes the other branch: kept, it
    would fail every device pass; what the code needs of the GPU is judged by
    the findings on the code it uses. Likewise ``static_assert(__CUDA_ARCH__
    >= 800, …)`` in code (undeclared in both passes of a HIP compile) becomes
    ``static_assert(true, …)``. PTX in both branches, PTX with no other branch
    (taking none would drop what it does), or a comparison outside an ``#if``,
    gets the newer branch with an unsafe fix: choose by hand. ``==``/``!=``
    tests and ``__CUDA_ARCH__`` used as a value in code get no fix, with one
    exception: an exact-level test whose conditional only gives the same
    macros or constants other numbers in every branch (``#if __CUDA_ARCH__ ==
    800`` / ``#define MAX_BLOCKS 2`` / ``#else`` / ``#define MAX_BLOCKS 1``,
    karpathy/llm.c) selects no code but a tuning value: a low-severity note
    says which value AMD gets (hipcc leaves ``__CUDA_ARCH__`` undefined, so
    the test is false: the ``#else`` one) and where it is used (a
    ``__launch_bounds__`` minimum), and the test becomes hipcc's answer
    (``0``; ``1`` for ``!=``), safe since that is what hipcc reads anyway. A
    conditional whose branches differ in code, intrinsics, PTX or the names
    they define, or that has no ``#else``, stays work by hand. A
    ``__CUDACC__``/``__NVCC__`` test in a conditional that also tests a HIP
    macro (``#if defined(__NVCC__) … #elif defined(__HIP_PLATFORM_AMD__)``,
    or the project's own HIP option given as the rule option ``amd_defines``)
    is the project's own HIP path: it is left as written, with no finding.

    References
    ----------
    - HIP porting guide (``__HIP_DEVICE_COMPILE__`` replaces ``__CUDA_ARCH__``): https://github.com/ROCm/HIP/blob/c5e11fcac8249ce4f7e70157588ff9661a870b59/docs/how-to/hip_porting_guide.md
    - CUDA programming guide, ``__CUDA_ARCH__``: https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#cuda-arch
    - CUDA 13.0 release notes (sm_75 is the oldest supported architecture): https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html
    """

    code = "ARCH007"
    triggers = frozenset({"__CUDA_ARCH__", "__CUDACC__", "__NVCC__"})
    can_fix = True
    name = "cuda-arch-macro-test"
    severity = Severity.HIGH
    file_kinds = cs.CUDA_CXX_KINDS

    def check(self, ctx: FileContext) -> Iterable[Finding]:
        view = cs.device_view(ctx)
        toks = view.tokens
        hits = view.ident_indices(self.triggers)
        # The program's own #define of the name: its tests mean what the program says.
        own = {toks[i][3] for i in hits if _tested_name(toks, i) == "define" and _directive_name(toks[i - 1]) == "#define"}
        aware = None
        for i in hits:
            tok = toks[i]
            name = tok[3]
            if name in own:
                continue
            how = _tested_name(toks, i)
            if how is None or how == "define" and _directive_name(toks[i - 1]) in ("#define", "#undef"):
                continue
            if name == "__CUDACC__" and (ctx.options or {}).get("torch_extension"):
                continue  # a torch extension's ROCm build hipifies it to __HIPCC__ (cuda_to_hip_mappings), which hipcc defines
            if name in ("__CUDACC__", "__NVCC__"):
                if aware is None:
                    aware = hip_aware_directives(toks, view.directive_marks, amd_configuration(ctx.options))
                if aware and _directive_of(toks, i) in aware:
                    continue  # the project's own HIP path: the conditional tells HIP apart already
                if how in ("ifdef", "value"):
                    yield self._fixed(ctx, tok[1], tok[2], "__HIPCC__", Applicability.SAFE,
                                      f"hipcc defines __HIPCC__, not {name}: the test is false in every pass of the port")
                continue
            if how == "ifdef":
                yield self._fixed(ctx, tok[1], tok[2], "__HIP_DEVICE_COMPILE__", Applicability.SAFE,
                                  "HIP does not define __CUDA_ARCH__: the device pass compiles the host branch "
                                  "(use __HIP_DEVICE_COMPILE__)")
                continue
            if how == "value":
                yield from self._value(ctx, toks, i)
                continue
            end = _static_assert_comparison(toks, i) if how == "code" else None
            if end is not None:
                text = cs.text_of(ctx.text, toks, i, end)
                yield self._fixed(ctx, tok[1], toks[end - 1][2], "true", Applicability.SAFE,
                                  f"static_assert({text}) demands an NVIDIA architecture level, and HIP does not "
                                  "define __CUDA_ARCH__ (an undeclared name in both passes of the port): the port "
                                  "answers it as met; what the code needs of the GPU is judged by the findings on "
                                  "the code it uses")
                continue
            yield self.finding(ctx, tok[1], tok[2], "__CUDA_ARCH__ is not defined by HIP; this use needs a value by hand "
                               "(AMD GPUs: __gfx942__, __gfx950__ … in the device pass)",
                               verdicts_for(ctx, _by_family({**_PREPROC_VERDICTS, "rocm": MANUAL})),
                               effort=Effort(lines=1, constructs=1, hours=0.5), data={"macro": name})

    def _value(self, ctx: FileContext, toks, i: int) -> Iterable[Finding]:
        tok = toks[i]
        n = len(toks)
        op = toks[i + 1] if i + 1 < n else None
        if op is None or op[0] is Kind.EOD or op[3] in ("&&", "||", ")", "?"):
            if i == 0 or toks[i - 1][3] in ("(", "!", "&&", "||") or toks[i - 1][0] is Kind.DIRECTIVE:
                yield self._fixed(ctx, tok[1], tok[2], DEVICE_PASS, Applicability.SAFE,
                                  "HIP does not define __CUDA_ARCH__: `#if __CUDA_ARCH__` is false in the device pass")
                return
        num = toks[i + 2] if i + 2 < n else None
        level = cs.int_value(num[3]) if num is not None and num[0] is Kind.NUMBER else None
        if op is not None and op[3] in _CMP and level is not None and op[3] not in ("==", "!="):
            host = _CMP[op[3]](0, level)
            low, high = _CMP[op[3]](CUDA_ARCH_FLOOR, level), _CMP[op[3]](CUDA_ARCH_HOPPER - 1, level)
            text = cs.text_of(ctx.text, toks, i, i + 3)
            why = f"HIP does not define __CUDA_ARCH__, so `{text}` is {'true' if host else 'false'} in every pass of the port; "
            safe = Applicability.SAFE
            if low == high:
                device, reason = _one_level(toks, i, low)
                why += reason
            else:
                device, safe, reason = _between_levels(toks, i, high)
                why += f"sm_75 and sm_89 answer differently: {reason}"
            repl = {(True, False): DEVICE_PASS, (False, True): f"!{DEVICE_PASS}",
                    (True, True): "1", (False, False): "0"}[(device, host)]
            yield self._fixed(ctx, tok[1], num[2], repl, safe, why)
            return
        if op is not None and op[3] in ("==", "!=") and level is not None:
            tuned = self._tuning(ctx, toks, i, op[3], level, num)
            if tuned is not None:
                yield tuned
                return
        yield self.finding(ctx, tok[1], tok[2], "HIP does not define __CUDA_ARCH__: this test of its value is false in the device "
                           "pass; rewrite it with __HIP_DEVICE_COMPILE__ or __gfx942__-style macros",
                           verdicts_for(ctx, _by_family({**_PREPROC_VERDICTS, "rocm": MANUAL})),
                           effort=Effort(lines=1, constructs=1, hours=0.5), data={"macro": "__CUDA_ARCH__"})

    def _tuning(self, ctx: FileContext, toks, i: int, op: str, level: int, num) -> Finding | None:
        """An ``__CUDA_ARCH__ == N`` / ``!= N`` test in an ``#if``/``#elif`` whose group only picks numbers for the
        same macros or constants (:func:`vado.rules.arch.tuning.tuning_choice`): a note with the values AMD gets
        and where they are used, and the comparison written as hipcc answers it (``__CUDA_ARCH__`` undefined);
        None for any other exact-architecture test."""
        d = _directive_of(toks, i)
        if d is None or _directive_name(toks[d]) not in ("#if", "#elif"):
            return None
        branches = group_branches(toks, d)
        choice = tuning.tuning_choice(toks, branches) if branches else None
        if choice is None:
            return None
        text = cs.text_of(ctx.text, toks, i, i + 3)
        host = _CMP[op](0, level)
        repl = "1" if host else "0"
        names = ", ".join(choice.names)
        why = (f"`{text}` only picks a tuning value ({names}: "
               + " / ".join(", ".join(v) for v in choice.values)
               + " in the group's branches), not different code; no AMD GPU is that NVIDIA architecture and hipcc "
               f"leaves __CUDA_ARCH__ undefined, so the port reads the test as {'true' if host else 'false'}")
        if choice.amd is not None:
            got = ", ".join(f"{n} = {v}" for n, v in zip(choice.names, choice.values[choice.amd]))
            which = _directive_name(toks[branches[choice.amd].directive])
            why += f" and AMD gets {got} (the {which} branch)"
        else:
            why += "; which branch AMD gets depends on the other names in the conditions"
        group = range(branches[0].directive, branches[-1].body.stop)
        view = cs.device_view(ctx)
        used = tuning.uses(toks, choice.names, group, view.ident_indices(set(choice.names)))
        if used:
            why += "; used as " + "; ".join(f"{what} (line {ctx.span(toks[k][1], toks[k][2]).line})" for k, what in used)
        why += ": a performance choice to measure again on the AMD GPU, not a correctness question"
        fix = Fix((ctx.edit(toks[i][1], num[2], repl),), Applicability.SAFE, f"{text} → {repl}", ("arch",))
        verdicts = verdicts_for(ctx, _by_family({**_PREPROC_VERDICTS, "rocm": AUTO}))
        data = {"replacement": repl, "tuning": {"names": list(choice.names),
                                                "values": [list(v) for v in choice.values],
                                                "amd": None if choice.amd is None else list(choice.values[choice.amd])}}
        return self.finding(ctx, toks[i][1], num[2], why, verdicts, fix=fix, severity=Severity.LOW,
                            effort=Effort(lines=1, constructs=1, hours=0.0), data=data)

    def _fixed(self, ctx: FileContext, start: int, end: int, repl: str, applicability: Applicability, why: str) -> Finding:
        safe = applicability is Applicability.SAFE
        fix = Fix((ctx.edit(start, end, repl),), applicability, f"{ctx.text[start:end]} → {repl}", ("arch",))
        verdicts = verdicts_for(ctx, _by_family({**_PREPROC_VERDICTS, "rocm": AUTO if safe else MANUAL}))
        return self.finding(ctx, start, end, why, verdicts, fix=fix,
                            effort=Effort(lines=1, constructs=1, hours=0.0 if safe else 0.25),
                            data={"replacement": repl})
