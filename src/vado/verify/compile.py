"""Compiling every translation unit of a port with hipcc, per offload target.

Each unit is compiled on its own (``-c``), device code included (never
``-fsyntax-only``), with ``HIP_PLATFORM=amd`` and ``--offload-arch=ARCH``, in
a scratch directory: objects and temporaries never land in the user's tree.
Flags come from :mod:`vado.verify.buildflags`.

Units: CUDA sources (``.cu`` and friends; a port keeps their names) and
``.hip`` files are compiled as HIP (``-x hip``) once per arch. C++ sources that
include a HIP header or declare kernels are HIP units too; other C++ sources are
host code, compiled once (arch ``host``).

An arch that the toolchain cannot build at all (its probe kernel fails, see
:func:`vado.verify.toolchains.probe_archs`) is not compiled: every unit gets
an evidence record with status ``unsupported-arch`` and ``passed=False``. It
is never reported as a pass.

Every record is a :class:`vado.model.Evidence` with ``kind="compile"``;
``detail`` holds ``status`` (``pass``, ``fail``, ``timeout``,
``unsupported-arch``), ``flags_source`` and, on failure, ``diagnostics``:
each error with its original CUDA line and finding code
(:mod:`vado.verify.mapping`).
"""

from __future__ import annotations

import os
import re
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

from vado.errors import UsageError
from vado.model import Evidence, Target
from vado.model.text import decode_source
from vado.scan.classify import FileKind
from vado.verify.buildflags import BuildFlags, flags_for
from vado.verify.mapping import DiagnosticMapper, parse_diagnostics
from vado.verify.sandbox import COMPILE_LIMITS, Limits, compiler_confinement, run_limited
from vado.verify.toolchains import ArchProbe, HipToolchain, hip_env, probe_archs

_DEVICE_KINDS = {FileKind.CUDA_SOURCE, FileKind.HIP_SOURCE}
_HOST_KINDS = {FileKind.CXX_SOURCE}
_HIP_MARKERS = re.compile(r"#\s*include\s*[<\"]hip/|__global__|__device__|<<<|hipLaunchKernelGGL")


@dataclass(frozen=True)
class Unit:
    """A translation unit: ``path`` relative to the port root; ``device`` when compiled as HIP."""

    path: str
    abs_path: Path
    device: bool


@dataclass(frozen=True)
class CompileReport:
    """All compile evidence of one ``verify`` run.

    ``unsupported`` lists archs the toolchain cannot build (with the reason);
    ``units`` the units found; ``skipped`` units not compiled and why.
    """

    evidence: tuple[Evidence, ...]
    units: tuple[Unit, ...]
    archs: tuple[str, ...]
    unsupported: dict[str, str] = field(default_factory=dict)
    skipped: tuple[tuple[str, str], ...] = ()

    @property
    def passed(self) -> bool:
        """True when every record passed and there was something to compile."""
        return bool(self.evidence) and all(e.passed for e in self.evidence)

    def counts(self) -> dict[str, int]:
        """Records per status."""
        out: dict[str, int] = {}
        for e in self.evidence:
            s = e.detail.get("status", "pass" if e.passed else "fail")
            out[s] = out.get(s, 0) + 1
        return out


def find_units(root: str | os.PathLike) -> tuple[list[Unit], list[tuple[str, str]]]:
    """Translation units under ``root`` (respecting .gitignore), and files skipped with a reason."""
    from vado.scan.discover import walk

    plan = walk(root)
    units: list[Unit] = []
    for f in plan.files:
        if f.kind in _DEVICE_KINDS:
            units.append(Unit(f.path, f.abs_path, True))
        elif f.kind in _HOST_KINDS:
            try:
                text = decode_source(f.abs_path.read_bytes())
            except OSError:
                continue
            units.append(Unit(f.path, f.abs_path, bool(_HIP_MARKERS.search(text))))
    skipped = [(s.path, f"{s.reason.value}: {s.detail}".rstrip(": ")) for s in plan.skips]
    return units, skipped


def compile_command(tc: HipToolchain, unit: Unit, arch: str, flags: BuildFlags, obj: Path,
                    extra: Sequence[str] = ()) -> list[str]:
    """The hipcc command for one unit and arch (``host`` for a host-only unit)."""
    cmd = [tc.path]
    if unit.device:
        cmd += [f"--offload-arch={arch}", "-x", "hip"]
    cmd += flags.args()
    cmd += list(extra)
    cmd += ["-c", str(unit.abs_path), "-o", str(obj)]
    return cmd


def _status(outcome) -> str:
    if outcome.timed_out:
        return "timeout"
    return "pass" if outcome.ok else "fail"


def verify_compile(
    root: str | os.PathLike,
    tc: HipToolchain,
    archs: Sequence[str],
    *,
    target: Target,
    original: str | os.PathLike | None = None,
    extra_flags: Sequence[str] = (),
    limits: Limits = COMPILE_LIMITS,
    jobs: int = 1,
    probes: dict[str, ArchProbe] | None = None,
    use_cache: bool = True,
    units: Sequence[Unit] | None = None,
    progress: Callable[[Evidence], None] | None = None,
) -> CompileReport:
    """Compile every unit of the port at ``root`` for every arch in ``archs``.

    ``original`` is the CUDA tree the port came from (for mapping errors back
    to its lines). ``probes`` may carry arch probes already made. Raises
    :class:`UsageError` when ``root`` is not a directory or file, or no arch is
    asked for.
    """
    root_path = Path(root)
    if not root_path.exists():
        raise UsageError(f"{root} does not exist", "verify reads a ported tree", "pass the directory `vado port -o` wrote")
    archs = list(dict.fromkeys(a.strip() for a in archs if a.strip()))
    if not archs:
        raise UsageError("no offload target", "--arch was empty", "pass --arch gfx90a,gfx942")
    if units is not None:
        found, skipped = list(units), []
    else:
        found, skipped = find_units(root_path)
    if root_path.is_file():
        root_path = root_path.parent
    probes = probes or probe_archs(tc, archs, use_cache=use_cache)
    unsupported = {a: (probes[a].reason or "the probe kernel does not build") for a in archs if not probes[a].ok}
    mapper = DiagnosticMapper(root_path, original, [target])
    version = f"HIP {tc.hip_version}, clang {tc.clang_version}"
    jobs_list: list[tuple[Unit, str]] = []
    evidence: list[Evidence] = []
    for unit in found:
        for arch in (archs if unit.device else ["host"]):
            if arch in unsupported:
                ev = Evidence(
                    kind="compile", subject=unit.path, passed=False, target=target.name, arch=arch,
                    toolchain="hipcc", toolchain_version=version,
                    detail={"status": "unsupported-arch", "reason": unsupported[arch]},
                )
                evidence.append(ev)
                if progress:
                    progress(ev)
            else:
                jobs_list.append((unit, arch))

    with tempfile.TemporaryDirectory(prefix="vado-verify-") as scratch:
        scratch_path = Path(scratch)

        def one(item: tuple[Unit, str]) -> Evidence:
            unit, arch = item
            flags = flags_for(root_path, unit.abs_path)
            obj = scratch_path / arch / (unit.path.replace("/", "__") + ".o")
            obj.parent.mkdir(parents=True, exist_ok=True)
            cmd = compile_command(tc, unit, arch, flags, obj, extra_flags)
            # The compiler sees the tree, the toolchain and its scratch directory only: a source that
            # names a file outside (#include, #embed, __has_include) finds nothing (vado.verify.sandbox).
            view = compiler_confinement(tc.path, read_only=[root_path], writable=[scratch], flags=extra_flags)
            out = run_limited(cmd, cwd=scratch, env=hip_env(), limits=limits, confine=view)
            status = _status(out)
            detail: dict = {"status": status, "flags_source": flags.source, "confinement": out.confinement}
            if not out.ok:
                diags = [mapper.map(d, Path(scratch)) for d in parse_diagnostics(out.stderr)]
                detail["diagnostics"] = [d.to_json() for d in diags]
                if out.timed_out:
                    detail["reason"] = f"timed out after {limits.timeout_s:g}s"
            return Evidence(
                kind="compile", subject=unit.path, passed=out.ok, command=out.command,
                returncode=out.returncode, stdout=out.stdout, stderr=out.stderr,
                duration_s=out.duration_s, target=target.name, arch=arch,
                toolchain="hipcc", toolchain_version=version, detail=detail,
            )

        # Threads suffice: each job waits on a child process.
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            for ev in pool.map(one, jobs_list):
                evidence.append(ev)
                if progress:
                    progress(ev)
    order = {(u.path): i for i, u in enumerate(found)}
    arch_order = {a: i for i, a in enumerate(["host", *archs])}
    evidence.sort(key=lambda e: (order.get(e.subject, 0), arch_order.get(e.arch, 99)))
    return CompileReport(tuple(evidence), tuple(found), tuple(archs), unsupported, tuple(skipped))
