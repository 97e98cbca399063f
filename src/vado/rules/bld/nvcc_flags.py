"""BLD003: Makefiles and CMake files that call nvcc or pass nvcc-only flags, with what a Makefile statement
looks like around a flag (where it starts and ends, the ``ifneq`` that guards an architecture flag)."""

from __future__ import annotations

import re
from typing import Iterator

from vado.model import Applicability, Effort, Finding, Fix, Severity
from vado.rules.base import FileContext, Rule
from vado.rules.bld.common import (
    AS_IS,
    AUTO,
    MANUAL,
    build_facts,
    fact_fix,
    nvcc_only_for_hipcc,
    offload_archs,
    per_family,
    xcompiler_flags,
)
from vado.scan.buildfiles import BuildFact, FactKind
from vado.scan.classify import FileKind


class NvccCommandOrFlag(Rule):
    """A Makefile or CMake file calls nvcc or passes nvcc-only flags.

    What it does
    ------------
    Finds ``nvcc`` invocations (``nvcc``, ``$(CUDA_PATH)/bin/nvcc``, ``$(NVCC)``)
    and nvcc-only flags: ``-arch=sm_XX``, ``-gencode arch=compute_XX,code=sm_XX``,
    ``--use_fast_math``, ``-Xptxas``, ``-Xcompiler``, ``-Xnvlink``,
    ``--expt-relaxed-constexpr``, ``--extended-lambda``, ``-lineinfo``,
    ``-maxrregcount``, ``--threads``, ``-cudart``, ``--default-stream``,
    ``-ccbin``, and ``CUDA_PATH``/``CUDA_HOME``//usr/local/cuda paths.
    (``-rdc`` and device linking are BLD006.)

    Why is this bad?
    ----------------
    hipcc is clang. Measured with hipcc 5.2 (clang 15, ``--offload-arch=gfx90a``):
    ``--use_fast_math``, ``--expt-relaxed-constexpr``, ``--expt-extended-lambda``,
    ``-gencode`` and ``--threads`` are errors; ``-arch=sm_80``, ``-lineinfo`` and
    ``-Xcompiler`` are ignored with a warning; ``-Xptxas -v`` drops ``-Xptxas`` and
    turns on clang's verbose mode; single-dash ``-use_fast_math`` is read as
    ``-u se_fast_math`` and silently does nothing. SCALE's nvcc accepts nvcc's
    flags and ZLUDA keeps the NVIDIA build, so both move as they are.

    Example
    -------
    .. code-block:: make

        NVCC = nvcc
        NVCCFLAGS = -O3 -arch=sm_80 --use_fast_math -Xptxas -v -Xcompiler -fPIC

    Use instead
    -----------
    .. code-block:: make

        NVCC = hipcc
        NVCCFLAGS = -O3 --offload-arch=gfx942 -ffast-math -fPIC

    Fix safety
    ----------
    Safe for flags that only steer nvcc's own tools or that clang does by
    default (``-Xptxas …``, ``-Xnvlink …``, ``--expt-*``, ``--extended-lambda``,
    ``--threads N``, ``-Wno-deprecated-gpu-targets`` are dropped;
    ``-Xcompiler X`` becomes ``X``; ``-lineinfo`` becomes ``-gline-tables-only``).
    Unsafe where behaviour or the chosen GPU may change: ``-arch``/``-gencode`` →
    ``--offload-arch=<the audited ROCm architectures>``, ``--use_fast_math`` →
    ``-ffast-math`` (clang's also assumes no NaN/Inf), ``nvcc`` → ``hipcc``,
    ``-ccbin``/``-cudart`` dropped, ``--default-stream per-thread`` →
    ``-fgpu-default-stream=per-thread``. ``-maxrregcount`` and CUDA paths get
    no fix (use ``__launch_bounds__``; point paths at ``$(ROCM_PATH)``).
    An architecture flag built from a Make variable that only an ``ifneq ($(V),)``
    (or ``ifdef V``) around it guards (llm.c's ``GPU_COMPUTE_CAPABILITY``, read from
    ``nvidia-smi``) loses that guard with the same fix: the AMD list names no
    ``$(V)``, and the guard would drop it on a machine without ``nvidia-smi``.

    References
    ----------
    - https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/hip_porting_guide.html
    - https://clang.llvm.org/docs/ClangCommandLineReference.html
    - https://docs.nvidia.com/cuda/cuda-compiler-driver-nvcc/
    """

    code = "BLD003"
    can_fix = True
    name = "nvcc-command-or-flag"
    severity = Severity.MEDIUM
    file_kinds = frozenset({FileKind.MAKEFILE, FileKind.CMAKE})

    SAFE_DROP = {"xptxas", "xnvlink", "xcudafe", "expt", "threads", "deprecated-targets", "diag"}
    UNSAFE_DROP = {"ccbin", "cudart"}

    def check(self, ctx: FileContext) -> Iterator[Finding]:
        facts = build_facts(ctx)
        archs = offload_archs(ctx)
        arch_flag = " ".join(f"--offload-arch={a}" for a in archs)
        flags = facts.of(FactKind.NVCC_FLAG)
        embeds_ptx = any(_embeds_ptx(f) for f in flags if f.data.get("flag") in ("arch", "gencode"))
        # One --offload-arch list per statement: `-gencode …80 -gencode …90` becomes the list once.
        arch_seen: set[int] = set()
        for f in facts.of(FactKind.NVCC, FactKind.NVCC_FLAG, FactKind.CUDA_PATH):
            if f.kind is FactKind.NVCC:
                if not _defined_without_nvcc(ctx, f):
                    yield self._nvcc(ctx, f)
                continue
            if f.kind is FactKind.CUDA_PATH:
                if f.data.get("form") == "reference":
                    continue  # the definition is reported; its uses follow it
                yield self.finding(
                    ctx, f.start, f.end,
                    f"{f.text} points at NVIDIA's CUDA toolkit; on ROCm use ROCM_PATH (/opt/rocm)",
                    per_family(ctx, rocm=MANUAL, oneapi=MANUAL, scale=AS_IS, zluda=AS_IS),
                    effort=Effort(lines=1, constructs=1, hours=0.1),
                    severity=Severity.LOW,
                    data={"path": f.text},
                )
                continue
            kind = f.data["flag"]
            if kind == "cuda-half-undef":
                continue  # HIP's own headers leave half operators on unless asked: harmless outside PyTorch
            value = f.data.get("value", "")
            content: str | None = None
            safety = Applicability.SAFE
            zluda = AS_IS
            if kind in ("arch", "gencode"):
                statement = _statement_start(ctx, f.start)
                first = statement not in arch_seen
                arch_seen.add(statement)
                content, safety = (arch_flag if first else ""), Applicability.UNSAFE
                zluda = AS_IS if embeds_ptx else MANUAL
                msg = (f"{f.text} builds for NVIDIA {', '.join('sm_' + s for s in f.data.get('sm', [])) or 'GPUs'}; "
                       f"hipcc builds for AMD offload architectures ({arch_flag}"
                       + (")" if first else ", given once by the first architecture flag of this line)"))
                if not embeds_ptx:
                    msg += "; no PTX is embedded, which ZLUDA needs"
            elif kind == "language":
                content, safety = "-x hip", Applicability.UNSAFE
                msg = f"{f.text} is nvcc's name for CUDA source; hipcc (clang) compiles HIP with -x hip"
            elif kind == "fast-math":
                content, safety = "-ffast-math", Applicability.UNSAFE
                msg = f"{f.text} is nvcc-only (hipcc: unsupported option); clang's -ffast-math is the closest"
            elif kind == "xcompiler":
                # A quoted list split across words (`-Xcompiler "-fPIC -Wall"`) is read one word at a
                # time: rewriting the first would leave the closing quote behind.
                content = None if (f.text.count('"') % 2 or f.text.count("'") % 2) else xcompiler_flags(value)
                msg = f"{f.text} passes host-compiler flags through nvcc; hipcc is clang and takes them directly"
            elif kind == "lineinfo":
                content = "-gline-tables-only"
                msg = f"{f.text} is nvcc-only (hipcc ignores it); clang's -gline-tables-only gives line info"
            elif kind == "default-stream":
                if value == "per-thread":
                    content, safety = "-fgpu-default-stream=per-thread", Applicability.UNSAFE
                else:
                    content, safety = "", Applicability.UNSAFE
                msg = f"{f.text} is nvcc-only; clang spells it -fgpu-default-stream="
            elif kind == "maxrregcount":
                msg = f"{f.text} caps registers in nvcc; HIP has no flag for it (use __launch_bounds__)"
            elif kind == "nvcc-only":
                content, safety = nvcc_only_for_hipcc(f.data.get("option", ""), value), Applicability.UNSAFE
                msg = (f"{f.text} is an option of nvcc's own (code generation, fatbinary or diagnostics); "
                       "hipcc (clang) rejects it as an unknown argument")
            elif kind in self.SAFE_DROP:
                content = ""
                msg = f"{f.text} only steers NVIDIA's tools (ptxas/nvlink) or what clang does by default; drop it"
            else:  # ccbin, cudart
                content, safety = "", Applicability.UNSAFE
                msg = f"{f.text} is nvcc-only; hipcc is clang and links the HIP runtime itself"
            fix = None
            cuda_var = _cuda_only_variable(ctx, f.start) if ctx.kind is FileKind.CMAKE else ""
            if cuda_var and content is not None:
                # Only nvcc reads this variable until BLD001 renames it (an unsafe fix): a safe drop alone
                # would take the flag from the CUDA build of a project that keeps its CUDA build files
                # (its own ROCm build, a torch extension: torch_scatter's --expt-relaxed-constexpr).
                safety = Applicability.UNSAFE
                msg += f"; with {cuda_var}'s rename (only nvcc reads {cuda_var})"
            if content is not None:
                fix = fact_fix(ctx, f, content, safety, f"replace {f.text!r} with {content!r}" if content else f"drop {f.text!r}")
                if content and kind in ("arch", "gencode") and ctx.kind is FileKind.MAKEFILE:
                    guard = _arch_guard(ctx, f, [a for a in flags if a.data.get("flag") in ("arch", "gencode")])
                    if guard is not None:
                        var, edits = guard
                        fix = Fix(fix.edits + edits, safety, fix.description + f" outside the ifneq on $({var}) "
                                  "(the AMD architectures do not depend on it)", fix.tags)
                        msg += f"; the condition on $({var}) that guarded it goes with it"
            yield self.finding(
                ctx, f.start, f.end, msg,
                per_family(ctx, rocm=AUTO if fix else MANUAL, oneapi=MANUAL, scale=AS_IS, zluda=zluda),
                effort=Effort(lines=1, constructs=1, hours=0.0 if fix else 0.5),
                fix=fix,
                severity=Severity.LOW if kind in self.SAFE_DROP or kind in ("lineinfo", "xcompiler") else None,
                data={"flag": kind, "option": f.data.get("option", ""), "value": value,
                      "replacement": content, "offload_arch": list(archs)},
            )

    def _nvcc(self, ctx: FileContext, f: BuildFact) -> Finding:
        is_ref = f.text.startswith("$")
        if ctx.kind is FileKind.CMAKE:
            return self.finding(
                ctx, f.start, f.end,
                f"{f.text} names nvcc; CMake's HIP language uses ROCm's clang (CMAKE_HIP_COMPILER), not nvcc",
                per_family(ctx, rocm=MANUAL, oneapi=MANUAL, scale=AS_IS, zluda=AS_IS),
                effort=Effort(lines=1, constructs=1, hours=0.25),
                data={"compiler": f.text},
            )
        fix = None if is_ref else fact_fix(ctx, f, "hipcc", Applicability.UNSAFE, "compile with hipcc")
        return self.finding(
            ctx, f.start, f.end,
            f"{f.text} invokes nvcc; on ROCm compile with hipcc" + (" (fix its definition)" if is_ref else ""),
            per_family(ctx, rocm=AUTO, oneapi=MANUAL, scale=AS_IS, zluda=AS_IS),
            effort=Effort(lines=1, constructs=1, hours=0.0),
            fix=fix,
            severity=Severity.LOW if is_ref else None,
            data={"compiler": f.text, "replacement": None if is_ref else "hipcc"},
        )


def _statement_end(text: str, at: int) -> int:
    """The end of the Makefile line holding ``at`` and the lines it continues, its line break included."""
    while True:
        eol = text.find("\n", at)
        if eol < 0:
            return len(text)
        line = text[text.rfind("\n", 0, eol) + 1 : eol].rstrip("\r")
        if not (line.endswith("\\") and not line.endswith("\\\\")):
            return eol + 1
        at = eol + 1


def _arch_guard(ctx: FileContext, f: BuildFact, arch_facts: list[BuildFact]) -> tuple[str, tuple] | None:
    """``(V, edits removing the if and endif lines)`` when the arch flag ``f`` is built from ``$(V)``
    and sits alone in an ``ifneq ($(V),)``/``ifdef V`` block without ``else``; else None.

    Only a block whose one statement is this flag's line, and a line that names ``$(V)`` only in its
    architecture flags, is unwrapped: anything else the condition guards keeps its guard.
    """
    from vado.scan.buildfiles import makefile_conditionals, tested_for_value

    text = ctx.text
    around = [c for c in makefile_conditionals(text) if c.body <= f.start < c.end_line]
    if not around:
        return None
    block = max(around, key=lambda c: c.start)
    var = tested_for_value(block)
    if not var or block.has_else or not _names(f.text, var):
        return None
    start = _statement_start(ctx, f.start)
    end = _statement_end(text, f.start)
    rest = "".join(line for line in (text[block.body:start] + text[end:block.end_line]).splitlines(keepends=True)
                   if line.strip() and not line.lstrip().startswith("#"))
    if rest:
        return None
    spans = sorted((a.start, a.end) for a in arch_facts if start <= a.start < end)
    kept, at = [], start
    for s, e in spans:
        kept.append(text[at:s])
        at = max(at, e)
    kept.append(text[at:end])
    if _names("".join(kept), var):
        return None
    return var, (ctx.edit(block.start, block.body, ""), ctx.edit(block.end_line, block.end, ""))


def _names(text: str, var: str) -> bool:
    return f"$({var})" in text or "${" + var + "}" in text


_CUDA_ONLY_VARIABLE = re.compile(r"(?:set|string|list)\s*\(\s*(?:APPEND\s+)?(CMAKE_CUDA_FLAGS(?:_\w+)?|CUDA_NVCC_FLAGS(?:_\w+)?)\b",
                                 re.I)


def _cuda_only_variable(ctx: FileContext, at: int) -> str:
    """The CUDA-only variable (``CMAKE_CUDA_FLAGS[_<CONFIG>]``, ``CUDA_NVCC_FLAGS``) the CMake
    statement holding ``at`` sets or appends to, else ``""``."""
    m = _CUDA_ONLY_VARIABLE.match(ctx.text, _statement_start(ctx, at))
    return m.group(1) if m else ""


def _statement_start(ctx: FileContext, at: int) -> int:
    """Where the statement holding offset ``at`` starts: its CMake command, or its Makefile line with
    the lines it continues (backslash-newline)."""
    text = ctx.text
    if ctx.kind is FileKind.CMAKE:
        from vado.scan.buildfiles import cmake_commands

        cmds, _ = cmake_commands(text)
        for c in cmds:
            if c.start <= at < c.end:
                return c.start
        return at
    start = text.rfind("\n", 0, at) + 1
    while start > 1 and text[start - 2] == "\\":
        start = text.rfind("\n", 0, start - 1) + 1
    return start


def _defined_without_nvcc(ctx: FileContext, f: BuildFact) -> bool:
    """Whether ``$(NVCC)`` refers to a variable this Makefile defines, and no definition names nvcc.

    After a port (``NVCC ?= hipcc``) the reference compiles with hipcc; a variable
    defined elsewhere (an included file, the environment) is still reported.
    """
    if ctx.kind is not FileKind.MAKEFILE or not f.text.startswith("$"):
        return False
    name = f.text[2:-1] if f.text[1:2] in ("(", "{") else f.text[1:]
    if not name or not all(ch.isalnum() or ch == "_" for ch in name):
        return False
    found = False
    for line in ctx.text.splitlines():
        head, sep, value = line.partition("=")
        if not sep:
            continue
        words = head.rstrip(":?+!").split()
        if words and words[-1] == name and (len(words) == 1 or words[0] in ("override", "export")):
            if "nvcc" in value:
                return False
            found = True
    return found


def _embeds_ptx(f: BuildFact) -> bool:
    """Whether an arch flag puts PTX in the binary (``-arch=sm_80`` does; ``code=sm_80`` alone does not)."""
    text = f.text
    if f.data.get("flag") == "gencode":
        code = text.split("code=", 1)[1] if "code=" in text else ""
        return "compute_" in code
    option = f.data.get("option", "")
    return option in ("-arch", "--gpu-architecture") or "compute_" in text
