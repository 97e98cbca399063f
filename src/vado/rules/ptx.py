"""PTX rules: inline PTX assembly and PTX text that only NVIDIA's toolchain understands.

Every ``asm`` statement that holds PTX gets exactly one of PTX001 (every
instruction has a portable idiom), PTX002 (some instruction has none vado
knows) or PTX003 (tensor-core / async-copy / Hopper+ instructions). The facts
are in ``vado/knowledge/data/ptx.yaml`` (:mod:`vado.knowledge.ptx`).
"""

from __future__ import annotations

import re
from typing import Iterable

from vado.model import Applicability, Effort, Finding, Fix, Severity, Verdict
from vado.rules import cuda_syntax as cs
from vado.rules.base import FileContext, Rule, verdicts_for
from vado.scan.lexer import Kind


def _facts():
    # The PTX table and the lowering are imported by the first asm statement: most files
    # have none, and a one-file audit of one of them does not pay for either.
    from vado.knowledge import ptx

    return ptx

_X86_REGISTER = re.compile(r"%%?(?:[re]?[abcd]x|[re]?[sd]i|[re]?[sb]p|r\d+[dwb]?|[xyz]mm\d+|[abcd][lh])\b")


def _is_ptx(view: cs.DeviceView, asm: cs.AsmStatement) -> bool:
    """True when ``asm`` holds PTX (not host x86/ARM assembly).

    Asm in a ``__device__``/``__global__`` body is PTX. Elsewhere (host code,
    macros) the template must look like PTX: an instruction vado knows with a
    dotted type suffix or a PTX special register, and no x86 register names.
    """
    if view.in_device_code(asm.start):
        return True
    prog = asm.program
    if not prog.instructions or _X86_REGISTER.search(asm.template):
        return False
    # In a function vado sees as host code (its __device__ may come from a macro) only a known
    # PTX instruction counts: a bare %register operand is also how SPARC or Alpha assembly reads
    # a timer (FFTW's cycle.h: `rd %%tick`, seen in HeCBench halo-finder).
    host_function = view.function_at(asm.start) is not None
    for ins in prog.instructions:
        if ins.modifiers and _facts().lookup(ins) is not None:
            return True
        if not host_function and any(o.startswith("%") and not o[1:].isdigit() for o in ins.operands):
            return True
    return any(d in (".reg", ".pred", ".shared", ".local") for d in prog.directives)


class _Analysis:
    """What the table says about each instruction of one asm statement."""

    def __init__(self, asm: cs.AsmStatement) -> None:
        self.asm = asm
        self.rows = [(ins, _facts().lookup(ins)) for ins in asm.instructions]

    @property
    def route(self):
        return [(i, r) for i, r in self.rows if r is not None and r.kind == "amd-route"]

    @property
    def unknown(self):
        return [i for i, r in self.rows if r is None]

    @property
    def manual(self):
        return [(i, r) for i, r in self.rows if r is not None and r.kind == "manual"]

    def data_rows(self) -> list[dict]:
        out = []
        for ins, row in self.rows:
            item = {"mnemonic": ins.mnemonic, "known": row is not None}
            if row is not None:
                item.update({"idiom": row.id, "kind": row.kind, "hip": row.hip, "source": row.source_url})
                if row.note:
                    item["note"] = row.note
                if row.min_hip:
                    item["min_hip"] = row.min_hip
            out.append(item)
        return out


def _instr_verdict(target, ins, row) -> Verdict:
    """What one instruction implies for ``target`` (before the automatic-fix upgrade)."""
    fam = target.family
    if row is not None and fam in row.verdicts:
        return row.verdicts[fam]
    kind = row.kind if row is not None else None
    if fam == "scale":
        ok = _facts().scale_supports(ins)
        if ok is True:
            return Verdict.MOVES_AS_IS
        if ok is False:
            return Verdict.BLOCKED if kind == "amd-route" else Verdict.MANUAL
        return Verdict.MANUAL
    if fam == "zluda":
        if kind in ("portable", "manual"):
            return Verdict.MOVES_AS_IS
        return Verdict.BLOCKED if kind == "amd-route" else Verdict.MANUAL
    if fam in ("rocm", "oneapi"):
        if kind == "amd-route":
            return Verdict.BLOCKED
        if kind == "portable" and fam == "rocm" and row.min_hip and not cs.hip_at_least(target, row.min_hip):
            return Verdict.MANUAL
        return Verdict.MANUAL
    return Verdict.MANUAL


def _statement_verdicts(ctx: FileContext, analysis: _Analysis, fix: Fix | None) -> dict[str, Verdict]:
    def verdict_of(target):
        if target.family not in ("rocm", "oneapi", "scale", "zluda"):
            return None
        worst = Verdict.worst(_instr_verdict(target, i, r) for i, r in analysis.rows)
        if analysis.asm.opaque:  # a template vado cannot read: nobody can say it moves
            worst = Verdict.worst([worst, Verdict.MANUAL])
        if target.family == "rocm" and fix is not None and fix.applicability is not Applicability.DISPLAY_ONLY \
                and worst is Verdict.MANUAL and not analysis.route \
                and not analysis.unknown and not analysis.manual:
            needs_newer = any(r.min_hip and not cs.hip_at_least(target, r.min_hip) for _, r in analysis.rows)
            if not needs_newer:
                return Verdict.AUTOMATIC
        return worst

    return verdicts_for(ctx, verdict_of)


def _fix_target(ctx: FileContext):
    """The target the rewrite is written for: the first ROCm target of the run (``vado port`` passes one)."""
    for t in ctx.targets:
        if t.family == "rocm":
            return t
    return ctx.targets[0] if ctx.targets else None


def _build_fix(ctx: FileContext, asm: cs.AsmStatement, analysis: _Analysis) -> tuple[Fix | None, str]:
    """The asm statement rewritten as HIP C++ (:func:`vado.rules.ptx_lower.lower`), or None and the reason."""
    target = _fix_target(ctx)
    if target is None:
        return None, "no target to write the rewrite for"
    from vado.rules.ptx_lower import Refusal, lower
    from vado.rules.warp import wave_mode, wide_warps

    # A file whose warp code is written for 64-lane wavefronts already gets the hardware's lane ids.
    result = lower(asm, target, ctx.text, "native" if wide_warps(ctx) is not None else wave_mode(ctx))
    if isinstance(result, Refusal):
        return None, result.reason
    names = ", ".join(dict.fromkeys(r.hip for _, r in analysis.rows))
    description = f"replace inline PTX with {names}"
    if result.notes:
        description += " (" + "; ".join(result.notes) + ")"
    return Fix(
        edits=(ctx.edit(asm.start, result.end, result.code),),
        applicability=result.applicability,
        description=description,
        tags=("ptx",),
    ), ""


def _ptx_statements(ctx: FileContext) -> Iterable[tuple[cs.AsmStatement, _Analysis]]:
    view = cs.device_view(ctx)
    for asm in view.asm:
        if not asm.instructions and not (asm.opaque and view.in_device_code(asm.start)):
            continue  # asm("" ::: "memory") and friends are compiler barriers, fine everywhere
        if not _is_ptx(view, asm) and not (asm.opaque and view.in_device_code(asm.start)):
            continue
        yield asm, _Analysis(asm)


def _mnemonics(items) -> str:
    names = list(dict.fromkeys(i.mnemonic for i in items))
    text = ", ".join(names[:4])
    return text + (f" and {len(names) - 4} more" if len(names) > 4 else "")


class InlinePtxWithPortableIdiom(Rule):
    """Inline PTX whose every instruction has a portable HIP/C++ equivalent.

    What it does
    ------------
    Finds ``asm``/``asm volatile``/``__asm__`` statements holding PTX in which
    every instruction is in vado's PTX idiom table with a portable equivalent
    (``mov.u32 %0, %%laneid`` → ``__lane_id()``, ``brev.b32`` → ``__brev``,
    ``membar.gl`` → ``__threadfence()``, ``lop3.b32`` → a bitwise expression …).
    The finding's data lists each instruction and its replacement.

    Why is this bad?
    ----------------
    PTX exists only on NVIDIA GPUs. HIP-Clang for AMD and SYCL compilers reject
    it, so the file does not compile off NVIDIA until the asm is rewritten.
    SCALE translates most inline PTX and ZLUDA compiles the PTX of CUDA binaries,
    so for those targets the block usually moves as is.

    Example
    -------
    .. code-block:: cuda

        unsigned lane;
        asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));

    Use instead
    -----------
    .. code-block:: cuda

        unsigned lane = __lane_id();

    Fix safety
    ----------
    When the asm is self-contained (no ``.reg`` temporaries, labels or guards)
    and every instruction has an expression template, vado rewrites the whole
    statement. The fix is safe when every idiom is exact (bit operations, lane
    id, fences, plain and cache-hinted loads); it is unsafe when one differs at
    the edges (``bfe``/``bfi`` with length 32, shifts by the full width,
    approximate math, clocks and timers with other units, 64-bit ballot masks).
    Otherwise there is no fix and the verdict for ROCm is manual work.

    References
    ----------
    - PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/index.html
    - HIP kernel language: https://github.com/ROCm/HIP/blob/c5e11fcac8249ce4f7e70157588ff9661a870b59/docs/reference/kernel_language.rst
    - SCALE inline PTX: https://github.com/spectral-compute/scale-docs/blob/f20700f5f55e411fd0c0c1b03da5b896b5b6eae3/docs/manual/compiler/inline-ptx.md
    """

    code = "PTX001"
    triggers = cs._ASM_KEYWORDS  # every asm statement starts with one
    can_fix = True
    name = "inline-ptx-with-portable-idiom"
    severity = Severity.MEDIUM
    file_kinds = cs.CUDA_CXX_KINDS

    def check(self, ctx: FileContext) -> Iterable[Finding]:
        for asm, an in _ptx_statements(ctx):
            if an.route or an.unknown or an.manual or asm.opaque:
                continue
            fix, why_not = _build_fix(ctx, asm, an)
            verdicts = _statement_verdicts(ctx, an, fix)
            hips = ", ".join(dict.fromkeys(r.hip for _, r in an.rows))
            how = "vado can rewrite it" if fix is not None else "rewrite it by hand"
            msg = f"inline PTX ({_mnemonics(asm.instructions)}) has portable equivalents: {hips}; {how}"
            n = len(asm.instructions)
            effort = Effort(lines=1, constructs=1, hours=0.0) if fix else Effort(lines=n, constructs=1, hours=round(0.25 + 0.1 * n, 2))
            data = {"instructions": an.data_rows(), "template": asm.template, "volatile": asm.volatile}
            if fix is not None:
                data["replacement"] = fix.edits[0].content
                data["applicability"] = fix.applicability.value
            else:
                data["no_fix"] = why_not
            yield self.finding(ctx, asm.start, asm.end, msg, verdicts, effort=effort, fix=fix, data=data)


class InlinePtxWithoutKnownReplacement(Rule):
    """Inline PTX with instructions vado does not know how to replace.

    What it does
    ------------
    Finds inline PTX that contains an instruction missing from vado's PTX idiom
    table, or one the table marks as having no direct equivalent (named
    barriers, ``%warpid``/``%smid``, ``prmt`` modes, video instructions,
    ``cvt`` to FP8 …), and no tensor-core or async-copy instruction (PTX003).
    A template assembled from macros vado cannot expand is reported here too.

    Why is this bad?
    ----------------
    PTX does not compile for AMD or Intel GPUs, and vado has no idiom to offer,
    so a person has to work out what the block computes and write it in C++ or
    AMD builtins. SCALE translates the instructions in its supported list;
    others fail to compile there as well.

    Example
    -------
    .. code-block:: cuda

        asm("prmt.b32.f4e %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(s));

    Use instead
    -----------
    .. code-block:: cuda

        // what prmt.f4e computes, in C++: a funnel byte shift
        unsigned long long ab = ((unsigned long long)b << 32) | a;
        d = (unsigned)(ab >> (8 * (s & 3)));

    Fix safety
    ----------
    No fix: the instructions have no known equivalent.

    References
    ----------
    - PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/index.html
    - SCALE inline PTX: https://github.com/spectral-compute/scale-docs/blob/f20700f5f55e411fd0c0c1b03da5b896b5b6eae3/docs/manual/compiler/inline-ptx.md
    """

    code = "PTX002"
    triggers = cs._ASM_KEYWORDS  # every asm statement starts with one
    name = "inline-ptx-without-known-replacement"
    severity = Severity.HIGH
    file_kinds = cs.CUDA_CXX_KINDS

    def check(self, ctx: FileContext) -> Iterable[Finding]:
        for asm, an in _ptx_statements(ctx):
            if an.route or not (an.unknown or an.manual or asm.opaque):
                continue
            verdicts = _statement_verdicts(ctx, an, None)
            bits = []
            if an.unknown:
                bits.append(f"unknown to vado: {_mnemonics(an.unknown)}")
            if an.manual:
                described = {i.mnemonic: r.hip for i, r in an.manual}
                bits.append("no direct equivalent: " + "; ".join(
                    f"{m} ({h})" for m, h in list(described.items())[:3]))
            if asm.opaque:
                bits.append("the template is built from macros vado cannot expand")
            msg = "inline PTX needs a manual rewrite: " + "; ".join(bits)
            n = max(1, len(asm.instructions))
            data = {"instructions": an.data_rows(), "template": asm.template, "opaque": asm.opaque,
                    "unknown": [i.mnemonic for i in an.unknown]}
            yield self.finding(ctx, asm.start, asm.end, msg, verdicts,
                               effort=Effort(lines=n, constructs=1, hours=round(0.5 + 0.25 * n, 2)), data=data)


class InlinePtxTensorCoreOrAsync(Rule):
    """Inline PTX for tensor cores, async copies or Hopper/Blackwell machinery.

    What it does
    ------------
    Finds inline PTX that uses ``mma.sync``, ``wmma.*``, ``ldmatrix``,
    ``wgmma.*``, ``cp.async`` (including ``.bulk`` and ``.bulk.tensor``/TMA),
    ``mbarrier.*``, ``tensormap.*``, ``tcgen05.*``, ``setmaxnreg``, cluster
    barriers and distributed shared memory, and names the AMD route for each.

    Why is this bad?
    ----------------
    These instructions drive hardware units whose AMD counterparts work
    differently or do not exist. MFMA/WMMA matrix instructions use other
    fragment layouts, so ``mma.sync`` code is rewritten around rocWMMA or
    ``__builtin_amdgcn_mfma_*``; ``wgmma``, TMA and ``mbarrier`` have no ROCm
    equivalent (kernels are rebuilt with Composable Kernel / CK Tile or Triton);
    ``cp.async`` becomes plain loads into shared memory plus a barrier, or
    ``__builtin_amdgcn_global_load_lds`` on gfx942/gfx950. SCALE emulates
    ``mma``/``wmma`` and supports ``cp.async`` but not ``wgmma``, TMA or
    ``mbarrier``; ZLUDA reports compute capability 8.8 and, per a third-party
    probe, does not translate ``mma``.

    Example
    -------
    .. code-block:: cuda

        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(smem), "l"(gmem));
        asm volatile("cp.async.wait_all;");

    Use instead
    -----------
    .. code-block:: cuda

        *(uint4*)smem_ptr = *(const uint4*)gmem;  // plain load into __shared__
        __syncthreads();

    Fix safety
    ----------
    No fix: the replacement changes the kernel's structure.

    References
    ----------
    - Fact base, Hopper TMA / wgmma / mbarrier: https://github.com/ROCm/flash-attention/issues/71
    - rocWMMA in ROCm 7.2: https://github.com/ROCm/legacy-rocm-build/blob/fff7efbd0c870e1bfba278faa91d517996b7a33a/docs/compatibility/compatibility-matrix.rst
    - SCALE changelog 1.4.2: https://github.com/spectral-compute/scale-docs/blob/f20700f5f55e411fd0c0c1b03da5b896b5b6eae3/docs/manual/changelogs/v1.4.2.md
    - ZLUDA mma probe (third party): https://github.com/mathiasbourgoin/Sarek/pull/271
    """

    code = "PTX003"
    triggers = cs._ASM_KEYWORDS  # every asm statement starts with one
    name = "inline-ptx-tensor-core-or-async"
    severity = Severity.CRITICAL
    file_kinds = cs.CUDA_CXX_KINDS

    def check(self, ctx: FileContext) -> Iterable[Finding]:
        for asm, an in _ptx_statements(ctx):
            route = an.route
            if not route:
                continue
            verdicts = _statement_verdicts(ctx, an, None)
            routes = "; ".join(dict.fromkeys(r.hip for _, r in route))
            msg = f"inline PTX uses {_mnemonics([i for i, _ in route])}: AMD route: {routes}"
            severity = self.severity if any(v is Verdict.BLOCKED for v in verdicts.values()) else Severity.HIGH
            heavy = any(r.id in ("wgmma", "tma", "tcgen05", "mbarrier", "mma", "wmma", "ldmatrix") for _, r in route)
            data = {"instructions": an.data_rows(), "template": asm.template,
                    "routes": {i.mnemonic: r.hip for i, r in route}}
            yield self.finding(ctx, asm.start, asm.end, msg, verdicts, severity=severity, data=data,
                               effort=Effort(lines=len(asm.instructions), constructs=1, hours=8.0 if heavy else 1.0))


# --- PTX004: PTX as text ----------------------------------------------------------------

_PTX_TEXT = re.compile(r"(?m)^\s*\.version\s+\d+\.\d+\s*$.*?^\s*\.target\s+(sm_\d+\w*|compute_\d+\w*)", re.DOTALL)
_PTX_ENTRY = re.compile(r"\.(?:visible\s+)?\.?entry\s+[A-Za-z_$][\w$]*\s*\(")
_LOADERS = frozenset({"cuModuleLoad", "cuModuleLoadData", "cuModuleLoadDataEx", "cuLinkAddData", "cuLinkAddFile",
                      "cuLinkAddData_v2", "cuLinkAddFile_v2", "cuLibraryLoadData", "cuLibraryLoadFromFile"})
_PTX_JIT = frozenset({"CU_JIT_INPUT_PTX"})
_NVRTC_PTX = frozenset({"nvrtcGetPTX", "nvrtcGetPTXSize"})
#: Prefilter of PtxTextLoadedAtRunTime (see _may_hold_ptx_text): escapes that can yield any
#: character (hex, octal, unknown escapes, splices).
_ANY_CHAR_ESCAPE = re.compile(r"\\(?:[^ntrvfabe\\'\"?0]|0[0-7])")


def _may_hold_ptx_text(view: cs.DeviceView) -> bool:
    """False only when PtxTextLoadedAtRunTime cannot find anything in the file of ``view``.

    The other findings need their names, identifiers of the code. An embedded module
    needs ".version" in the decoded value of a run of adjacent string literals: with
    plain ``"..."`` literals only, that value is their contents, joined, with escapes
    decoded, so ".version" shows in the literals' contents all joined (quotes dropped)
    unless an escape that can yield any character makes it. A literal with a prefix,
    a suffix or a raw delimiter is not read that simply: then the file is checked.
    """
    if view.ident_indices(_PTX_JIT | _NVRTC_PTX | _LOADERS):
        return True
    strings = view.string_indices
    if not strings:
        return False
    text = view.text
    if "version" not in text and ("\\" not in text or _ANY_CHAR_ESCAPE.search(text) is None):
        # A literal is a slice of the text, so none spells ".version" alone, with or without
        # a prefix: only adjacent literals joined may (".ver" "sion"). Read just those.
        strings = [i for k, i in enumerate(strings)
                   if (k and strings[k - 1] == i - 1) or (k + 1 < len(strings) and strings[k + 1] == i + 1)]
        if not strings:
            return False
    return _may_spell_version(view.spelling_index.texts(strings))


def _may_spell_version(literals: list[str]) -> bool:
    """False only when the decoded value of ``literals``, joined, cannot hold ".version"
    (the reasoning of :func:`_may_hold_ptx_text`, for any list of literal tokens)."""
    if any(lit[:1] != '"' or lit[-1:] != '"' or len(lit) < 2 for lit in literals):
        return True
    joined = "".join(literals).replace('"', "")
    return "version" in joined or ("\\" in joined and _ANY_CHAR_ESCAPE.search(joined) is not None)


def _ptx_text_verdict(target) -> Verdict | None:
    fam = target.family
    if fam == "zluda":
        return Verdict.MOVES_AS_IS  # ZLUDA is a PTX JIT: loading PTX text is what it does
    if fam in ("rocm", "oneapi", "scale"):
        return Verdict.MANUAL
    return None


class PtxTextLoadedAtRunTime(Rule):
    """PTX handled as text: embedded PTX modules, ``.ptx`` files, PTX JIT input, NVRTC PTX output.

    What it does
    ------------
    Finds string literals that hold a PTX module (``.version`` … ``.target
    sm_XX``), ``.ptx`` file names passed to ``cuModuleLoad``/``cuLinkAddFile``
    and friends, the ``CU_JIT_INPUT_PTX`` input type, and ``nvrtcGetPTX`` calls.

    Why is this bad?
    ----------------
    The program ships or produces NVIDIA's virtual ISA and hands it to the CUDA
    driver's JIT. ``hipModuleLoadData`` loads AMD code objects, not PTX, so the
    kernels must be rebuilt from source (hipcc, or hipRTC at run time) and the
    loading code changed. ``hiprtcGetCode`` returns a code object, so code that
    reads the PTX text (patching, caching by content) breaks. ZLUDA JIT-compiles
    PTX and is not affected; whether SCALE's driver accepts PTX text at run time
    is not documented in the sources vado has.

    Example
    -------
    .. code-block:: cuda

        cuModuleLoad(&mod, "kernels.ptx");

    Use instead
    -----------
    .. code-block:: cuda

        // build kernels.hip with hipcc --genco --offload-arch=gfx942 -o kernels.co
        hipModuleLoad(&mod, "kernels.co");

    Fix safety
    ----------
    No fix: the build must produce AMD code objects first.

    References
    ----------
    - HIP RTC: https://github.com/ROCm/HIP/blob/c5e11fcac8249ce4f7e70157588ff9661a870b59/docs/how-to/hip_rtc.md
    - SCALE comparison (ZLUDA is a PTX JIT): https://github.com/spectral-compute/scale-docs/blob/f20700f5f55e411fd0c0c1b03da5b896b5b6eae3/docs/manual/comparison.md
    """

    code = "PTX004"
    name = "ptx-text-loaded-at-run-time"
    severity = Severity.HIGH
    file_kinds = cs.CUDA_CXX_KINDS

    def check(self, ctx: FileContext) -> Iterable[Finding]:
        view = cs.device_view(ctx)
        if not _may_hold_ptx_text(view):
            return
        toks = view.tokens
        verdicts = verdicts_for(ctx, _ptx_text_verdict)
        # Adjacent literals form one string: join runs of STRING tokens (consecutive indices).
        strings = view.string_indices
        r, nstr = 0, len(strings)
        while r < nstr:
            i = j = strings[r]
            r += 1
            while r < nstr and strings[r] == j + 1:
                j += 1
                r += 1
            j += 1
            literals = [t[3] for t in toks[i:j]]
            if not _may_spell_version(literals):  # most runs of a file that has one PTX string
                continue
            value = "".join(cs.decode_string(lit) for lit in literals)
            if (_PTX_TEXT.search(value) or (_PTX_ENTRY.search(value) and ".version" in value)):
                yield self.finding(ctx, toks[i][1], toks[j - 1][2], "string literal holds a PTX module; AMD GPUs need code objects built from source",
                                   verdicts, effort=Effort(lines=j - i, constructs=1, hours=2.0), data={"what": "embedded-ptx"})
        n = len(toks)
        for k in view.ident_indices(_PTX_JIT | _NVRTC_PTX | _LOADERS):
            tok = toks[k]
            name = tok[3]
            if name in _PTX_JIT:
                yield self.finding(ctx, tok[1], tok[2], "CU_JIT_INPUT_PTX feeds PTX to the CUDA JIT linker; AMD links code objects",
                                   verdicts, effort=Effort(lines=1, constructs=1, hours=1.0), data={"what": "jit-input-ptx"})
            elif name in _NVRTC_PTX and k + 1 < n and toks[k + 1][3] == "(":
                yield self.finding(ctx, tok[1], tok[2],
                                   f"{name} returns PTX; hipRTC's hiprtcGetCode returns an AMD code object instead",
                                   verdicts, severity=Severity.MEDIUM, effort=Effort(lines=1, constructs=1, hours=0.5),
                                   data={"what": "nvrtc-ptx", "hip": "hiprtcGetCode" if name == "nvrtcGetPTX" else "hiprtcGetCodeSize"})
            elif name in _LOADERS and k + 1 < n and toks[k + 1][3] == "(" and (k + 1) in view.pairs:
                close = view.pairs[k + 1]
                for a, b in cs.split_args(toks, k + 1, close):
                    for t in toks[a:b]:
                        if t[0] is Kind.STRING and cs.decode_string(t[3]).lower().endswith(".ptx"):
                            yield self.finding(ctx, t[1], t[2], f"{name} loads a .ptx file; AMD GPUs load code objects (hipModuleLoad)",
                                               verdicts, effort=Effort(lines=1, constructs=1, hours=1.0),
                                               data={"what": "ptx-file", "loader": name})
