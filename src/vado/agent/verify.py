"""The agent's judge: compile a candidate file for AMD targets and re-run the rules on it.

This is the thin seam between the agent (and the MCP ``verify`` tool) and the
toolchains. A candidate passes when

1. the finding it was meant to resolve is gone: the rules no longer report that
   code as often as before, and no code is reported more often than before (an
   edit that trades one problem for another is not a fix); and
2. it compiles for every offload architecture asked for (``hipcc --offload-arch``)
   — except for compiler errors that sit on lines of findings that are still open
   in the file and will get their own turn.

The compile goes through :mod:`vado.verify.compile` (``HIP_PLATFORM=amd hipcc
--offload-arch=ARCH -x hip -c``; without ``HIP_PLATFORM=amd`` the HIP driver
quietly hands the file to nvcc), so the agent and ``vado verify`` judge alike.

3. where an NVIDIA GPU and nvcc are present and the caller names the original tree
   and the program's arguments, the port's output equals the original's with AMD's
   64-lane waves emulated (:func:`differential_check`: ``vado verify --run --wave
   64``, the original built with nvcc, the port through vado's HIP-on-CUDA
   headers). Without a GPU this step is skipped and the compile evidence says so
   in ``detail``; a port that does not build with nvcc, or a run that cannot
   decide (inconclusive), does not reject a candidate that passed 1 and 2 (the
   reason says so).
"""

from __future__ import annotations

import dataclasses
import functools
import os
import re
import shutil
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from vado.errors import ToolchainError
from vado.model import Evidence, Finding, Target, Verdict
from vado.rules.engine import check_text

if TYPE_CHECKING:
    from vado.build.model import TranslationUnit

#: ``file:line:col: error: message`` as clang prints it (fatal errors included).
_ERROR_LINE = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?P<col>\d+): (?P<fatal>fatal )?error: (?P<msg>.*)$", re.M)


@dataclass(frozen=True)
class CompileError:
    """One compiler error: where and what."""

    file: str
    line: int
    column: int
    message: str
    fatal: bool = False


@dataclass(frozen=True)
class Check:
    """The judge's answer for one candidate: passed or not, why, and the evidence behind it."""

    passed: bool
    reason: str
    evidence: tuple[Evidence, ...] = ()
    errors: tuple[CompileError, ...] = ()
    attributed: tuple[CompileError, ...] = ()
    findings_before: dict[str, int] = field(default_factory=dict)
    findings_after: dict[str, int] = field(default_factory=dict)

    def feedback(self, limit: int = 4000) -> str:
        """What to tell the model about a rejection: the reason and the compiler's errors."""
        parts = [self.reason]
        for ev in self.evidence:
            if not ev.passed and ev.stderr:
                parts.append(f"{' '.join(ev.command)}\n{ev.stderr.strip()}")
        text = "\n\n".join(parts)
        return text if len(text) <= limit else text[: limit - 15] + "\n[… truncated]"


def hipcc_path(explicit: str | None = None, target: Target | None = None) -> str | None:
    """The hipcc to use: ``explicit``, ``$VADO_HIPCC``, else the one whose HIP release fits ``target``.

    Chosen by version as ``vado verify`` does
    (:func:`vado.verify.toolchains.choose_hip_toolchain`): the oldest release at
    or above the target's, else the newest found; without a target, the newest.
    """
    if explicit or os.environ.get("VADO_HIPCC"):
        return explicit or os.environ.get("VADO_HIPCC")
    from vado.verify.toolchains import choose_hip_toolchain

    choice = choose_hip_toolchain(target.hip_version if target is not None else None)
    return choice.toolchain.path if choice.toolchain is not None else shutil.which("hipcc")


def parse_errors(stderr: str) -> list[CompileError]:
    """Compiler errors in clang's ``file:line:col: error:`` form, in order."""
    return [
        CompileError(m["file"], int(m["line"]), int(m["col"]), m["msg"].strip(), bool(m["fatal"]))
        for m in _ERROR_LINE.finditer(stderr)
    ]


@functools.lru_cache(maxsize=4)
def _toolchain(exe: str):
    from vado.verify.toolchains import hip_toolchain

    return hip_toolchain(exe)


def compile_hip(
    source: Path,
    *,
    arch: str = "gfx90a",
    include_dirs: Sequence[Path] = (),
    hipcc: str | None = None,
    timeout_s: float = 300.0,
    target: Target | None = None,
    tu: "TranslationUnit | None" = None,
    codegen: str = "auto",
) -> Evidence:
    """Check ``source`` as HIP for ``arch`` through ``vado.verify`` and return the evidence.

    The compile is :func:`vado.verify.compile.verify_compile` on this one unit, with ``codegen`` as
    ``vado verify --codegen`` (:mod:`vado.verify.codegen`; ``auto``: the front end, and the full compile
    to an object where only code generation can tell; ``detail["checked"]`` says which ran):
    the same command and arch probe as ``vado verify``; the flags are ``tu``'s (the
    build model's unit for this source, :mod:`vado.build`) when given, else guessed
    from the build files (marked ``guessed`` in the evidence). Raises :class:`ToolchainError` when no hipcc is
    found. A failed compile is evidence with ``passed=False``, its command, exit
    code and stderr kept.
    """
    from vado.knowledge.targets import get_target
    from vado.verify.compile import Unit, verify_compile
    from vado.verify.sandbox import Limits

    exe = hipcc_path(hipcc, target)
    if exe is None:
        raise ToolchainError(
            "hipcc not found",
            "verify compiles candidates for AMD GPUs with hipcc",
            "install ROCm or `apt-get install hipcc`, or set VADO_HIPCC=/path/to/hipcc",
        )
    source = Path(source)
    # A unit of the build keeps the build's include paths alone (nothing put before its system headers).
    extra = [] if tu is not None else [f"-I{inc}" for inc in include_dirs]
    report = verify_compile(
        source, _toolchain(exe), [arch], target=target or get_target("rocm-7.2"),
        extra_flags=extra, limits=Limits(timeout_s=timeout_s, cpu_s=int(timeout_s) * 2, memory_mb=16384),
        units=[Unit(source.name, source, tu.language.device if tu is not None else True, tu)], codegen=codegen,
    )
    (ev,) = report.evidence
    detail = dict(ev.detail)
    detail.setdefault("differential_run", "not done here: see differential_check (needs an NVIDIA GPU and nvcc)")
    return dataclasses.replace(
        ev,
        command=ev.command if ev.command[:1] == ("HIP_PLATFORM=amd",) else ("HIP_PLATFORM=amd", *ev.command),
        detail=detail,
    )


def open_findings(path: str, text: str, target: Target) -> list[Finding]:
    """Findings in ``text`` that still need work on ``target`` (any verdict but moves-as-is)."""
    return [
        f for f in check_text(path, text, [target])
        if f.verdicts.get(target.name, Verdict.MOVES_AS_IS) is not Verdict.MOVES_AS_IS
    ]


def _attributed(err: CompileError, name: str, findings: Sequence[Finding]) -> bool:
    if os.path.basename(err.file) != name:
        return False
    return any(f.span.line <= err.line <= max(f.span.end_line, f.span.line) for f in findings)


def nvidia_gpu_with_nvcc() -> bool:
    """Whether this machine has an NVIDIA GPU and an nvcc (the differential gate's condition)."""
    from vado.verify.toolchains import find_gpus, find_nvcc

    try:
        gpus, _ = find_gpus(tool_dirs=())
    except Exception:  # a broken nvidia-smi is no GPU to run on
        return False
    return any(g.vendor == "nvidia" for g in gpus) and find_nvcc(None) is not None


def differential_check(
    port_root: Path, original_root: Path, run_args: str, *, wave: int = 64, nvcc: str | None = None,
    timeout_s: float = 120.0,
) -> Check | None:
    """Original against port on this machine's NVIDIA GPU with ``wave``-lane semantics; None without a GPU.

    ``run_args`` are the program's arguments (split like a shell would, never run
    by one). The check fails when the outputs differ (its reason names the first
    difference and the kernels with cross-lane calls); a port that does not build
    with nvcc or a run that cannot decide gives a passing check whose reason says
    nothing was proved.
    """
    import shlex

    from vado.knowledge.targets import get_target
    from vado.verify.compare import Tolerance
    from vado.verify.differential import TIMING_LINES
    from vado.verify.run import RunSpec, verify

    if not nvidia_gpu_with_nvcc():
        return None
    template = "{bin} " + " ".join(shlex.quote(a).replace("{", "{{").replace("}", "}}") for a in shlex.split(run_args))
    spec = RunSpec(template=template.strip(), tolerance=Tolerance(1e-5, 1e-8), shapes=(None,), platform="nvidia",
                   wave=wave, ignore_lines=TIMING_LINES)
    result = verify(port_root, archs=("gfx942",), target=get_target("rocm-7.2"), original=original_root, nvcc=nvcc,
                    do_compile=False, do_triton=False, run=spec, timeout_s=timeout_s)
    evidence = tuple(result.evidence)
    d = result.differential
    if d is None:
        return Check(True, f"differential not decided ({result.run_skipped or 'not run'}): nothing proved on the GPU",
                     evidence)
    if d.passed:
        return Check(True, f"the port's output equals the original's with {wave}-lane waves on the GPU", evidence)
    if d.inconclusive:
        reason = next((r.inconclusive for r in d.rounds if r.inconclusive), "")
        return Check(True, f"differential inconclusive ({reason}): nothing proved on the GPU", evidence)
    first = d.first_difference or {}
    what = (f"line {first.get('line')}: original {first.get('original')!r}, port {first.get('port')!r}"
            if "original" in first else first.get("problem", "outputs differ"))
    kernels = f"; kernels with cross-lane calls: {', '.join(d.kernels)}" if d.kernels else ""
    return Check(False, f"the port's output differs from the original's with {wave}-lane waves: {what}{kernels}",
                 evidence)


def check_candidate(
    file: Path,
    rel_path: str,
    before_text: str,
    target: Target,
    *,
    resolve_code: str | None,
    archs: Sequence[str] = ("gfx90a",),
    include_dirs: Sequence[Path] = (),
    hipcc: str | None = None,
    compile: bool = True,
    tree: Path | None = None,
    original: Path | None = None,
    run_args: str | None = None,
) -> Check:
    """Judge the candidate now written at ``file`` (``rel_path`` in findings) against ``before_text``.

    ``resolve_code`` is the finding code the edit was meant to remove (None for a
    compile-error item, where only the compile counts). ``compile=False`` skips
    the compiler (for files that are not translation units, e.g. headers). With
    ``tree`` (the candidate's whole port), ``original`` and ``run_args``, a
    candidate that passed also goes through :func:`differential_check` where a
    GPU exists.
    """
    from vado.model.text import decode_source

    after_text = decode_source(file.read_bytes())
    before = Counter(f.code for f in open_findings(rel_path, before_text, target))
    after_findings = open_findings(rel_path, after_text, target)
    after = Counter(f.code for f in after_findings)
    counts = {"findings_before": dict(before), "findings_after": dict(after)}
    if resolve_code is not None and after[resolve_code] >= before[resolve_code]:
        return Check(False, f"the rules still report {resolve_code} here ({after[resolve_code]} before the edit: {before[resolve_code]})", **counts)
    grown = sorted(code for code in after if after[code] > before[code])
    if grown:
        return Check(False, "the edit introduces new findings: " + ", ".join(f"{c} ({before[c]} → {after[c]})" for c in grown), **counts)
    if not compile:
        return _gated(Check(True, "the finding is gone (not a translation unit: not compiled)", **counts),
                      tree, original, run_args)
    evidence: list[Evidence] = []
    errors: list[CompileError] = []
    attributed: list[CompileError] = []
    for arch in archs:
        ev = compile_hip(file, arch=arch, include_dirs=include_dirs, hipcc=hipcc, target=target)
        evidence.append(ev)
        for err in parse_errors(ev.stderr):
            (attributed if _attributed(err, file.name, after_findings) else errors).append(err)
        if not ev.passed and not parse_errors(ev.stderr):
            # A failure without a located error (a crash, a timeout, a link step) cannot be excused.
            errors.append(CompileError(file.name, 0, 0, f"hipcc exited {ev.returncode} without a located error"))
    if errors:
        first = errors[0]
        return Check(
            False,
            f"hipcc rejects the candidate for {', '.join(archs)}: {first.file}:{first.line}: {first.message}",
            tuple(evidence), tuple(errors), tuple(attributed), **counts,
        )
    fatal = [e for e in attributed if e.fatal]
    if fatal:
        # A fatal error (a missing header) stops the compiler before it reaches the edit:
        # nothing about the candidate was proved, so it cannot be kept.
        first = fatal[0]
        return Check(
            False,
            f"cannot verify: hipcc stops at {first.file}:{first.line} ({first.message}), a line of another open finding",
            tuple(evidence), (), tuple(attributed), **counts,
        )
    note = "" if not attributed else f" (compiler errors left only on lines of {len({e.line for e in attributed})} other open finding(s))"
    return _gated(Check(True, f"the finding is gone and it compiles for {', '.join(archs)}{note}", tuple(evidence), (),
                        tuple(attributed), **counts), tree, original, run_args)


def _gated(check: Check, tree: Path | None, original: Path | None, run_args: str | None) -> Check:
    """``check`` (a pass) put through :func:`differential_check` when the caller named the tree, original and arguments."""
    if tree is None or original is None or run_args is None:
        return check
    gate = differential_check(tree, original, run_args)
    if gate is None:
        return check
    evidence = check.evidence + gate.evidence
    if not gate.passed:
        return dataclasses.replace(check, passed=False, reason=gate.reason, evidence=evidence)
    return dataclasses.replace(check, reason=f"{check.reason}; {gate.reason}", evidence=evidence)
