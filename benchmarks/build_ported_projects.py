"""Port whole CUDA projects with a default ``vado port`` and build them with ROCm.

Usage::

    python benchmarks/build_ported_projects.py [--cuda-samples DIR] [--llm-c DIR] [--project DIR ...]
                                               [--rocm-bin DIR] [--samples GLOB] [--limit N]
                                               [--jobs N] [--work DIR] [--json OUT.json]

Each project is ported into a new tree (``vado port SRC -o OUT``, no other option: the
build-file fixes a new output tree gets by default are what is measured), then built with
ROCm's tools, with no manual edit:

- ``--cuda-samples``: a checkout of github:NVIDIA/cuda-samples (never commit it). The whole
  tree is ported once (the samples include ``Common/``), then every
  ``Samples/<group>/<sample>/CMakeLists.txt`` matching ``--samples`` is configured and built
  on its own (``cmake -S sample -B build && cmake --build build``).
- ``--llm-c``: a checkout of github:karpathy/llm.c; ``make train_gpt2cu`` in the port
  (cuBLASLt → hipBLASLt, cuDNN off).
- ``--project``: any tree with a ``CMakeLists.txt`` (configured and built) or a ``Makefile``
  (``make``) at its root; vado's ``examples/vecops`` is built both ways.

Tools come from ``--rocm-bin`` (default ``$VADO_ROCM_HOME/bin`` or
``/var/cache/vado/rocm-7.2.4/bin``): the wrappers ``scripts/rocm-toolchain.sh`` writes, whose
``cmake`` and ``make`` run inside the ROCm 7.2.4 chroot. Printed: one line per build (ok or
the first error line of the failing step), then the counts. ``--json`` writes every build's
step, return code and the tail of its log.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

DEFAULT_ROCM_BIN = "/var/cache/vado/rocm-7.2.4/bin"


@dataclass
class Build:
    name: str
    ok: bool
    step: str  # the step that failed ("port", "configure", "build") or "done"
    seconds: float
    error: str = ""
    log: str = ""
    products: tuple[str, ...] = ()


def rocm_bin(arg: str | None) -> Path:
    if arg:
        return Path(arg)
    home = os.environ.get("VADO_ROCM_HOME")
    return Path(home) / "bin" if home else Path(DEFAULT_ROCM_BIN)


def port(src: Path, out: Path) -> tuple[bool, str]:
    """``vado port SRC -o OUT`` (defaults only) in a subprocess, as a user runs it."""
    cli = "import sys; from vado.cli.app import main; sys.argv[0] = 'vado'; main()"
    proc = subprocess.run([sys.executable, "-c", cli, "port", str(src), "-o", str(out), "-q", "-j", "2"],
                          capture_output=True, text=True)
    # Exit 1 means findings remain for humans, which is not a failure to port.
    return proc.returncode in (0, 1), proc.stdout[-4000:] + proc.stderr[-4000:]


def first_error(log: str) -> str:
    """The first compiler or linker error of a log (``error:``), else the first line that mentions one."""
    for pattern in (r"\berror:|undefined reference|No rule to make|CMake Error", r"\berror\b|Error"):
        for line in log.splitlines():
            if re.search(pattern, line):
                return line.strip()[:200]
    lines = [ln for ln in log.splitlines() if ln.strip()]
    return lines[-1][:200] if lines else ""


def run(cmd: list[str], cwd: Path, timeout: int) -> tuple[int, str]:
    try:
        proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)
        return proc.returncode, proc.stdout + proc.stderr
    except subprocess.TimeoutExpired as exc:
        return 124, f"timed out after {timeout}s: {exc}"


def cmake_build(name: str, src: Path, bindir: Path, jobs: int, timeout: int, cwd: Path | None = None) -> Build:
    """Configure and build ``src``; ``cwd`` is where the tools run (the chroot wrapper makes the working
    directory visible inside, so a sample that includes ``../../../Common`` runs from the tree's root)."""
    started = time.perf_counter()
    build = src / "build-rocm"
    shutil.rmtree(build, ignore_errors=True)
    rc, log = run([str(bindir / "cmake"), "-S", str(src), "-B", str(build)], cwd or src, timeout)
    if rc:
        return Build(name, False, "configure", time.perf_counter() - started, first_error(log), log[-6000:])
    rc, log2 = run([str(bindir / "cmake"), "--build", str(build), "-j", str(jobs)], cwd or src, timeout)
    if rc:
        return Build(name, False, "build", time.perf_counter() - started, first_error(log2), log2[-6000:])
    made = products(build)
    if not made:
        # The project configured but chose to build nothing here (a sample that needs OpenGL, MPI …).
        return Build(name, False, "nothing built", time.perf_counter() - started,
                     first_message(log) or "no executable or library in the build tree", log[-6000:])
    return Build(name, True, "done", time.perf_counter() - started, products=made)


def products(build: Path) -> tuple[str, ...]:
    """Executables and libraries a build made (CMake's own files left out)."""
    out = []
    for p in build.rglob("*"):
        if "CMakeFiles" in p.parts or not p.is_file():
            continue
        if p.suffix in (".a", ".so") or (os.access(p, os.X_OK) and p.suffix == ""):
            out.append(str(p.relative_to(build)))
    return tuple(sorted(out))


def first_message(log: str) -> str:
    """The first line a CMake ``message()`` printed that says a sample is skipped."""
    for line in log.splitlines():
        if re.search(r"will not build|not found|skipping|not supported", line, re.I):
            return line.strip()[:200]
    return ""


def make_build(name: str, src: Path, bindir: Path, jobs: int, timeout: int, goals: list[str]) -> Build:
    started = time.perf_counter()
    rc, log = run([str(bindir / "make"), "-C", str(src), f"-j{jobs}", *goals], src, timeout)
    if rc:
        return Build(name, False, "build", time.perf_counter() - started, first_error(log), log[-6000:])
    return Build(name, True, "done", time.perf_counter() - started, products=tuple(goals))


def ported(src: Path, work: Path, name: str) -> tuple[Path | None, str]:
    out = work / name
    ok, log = port(src, out)
    return (out if ok else None), log


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cuda-samples", type=Path)
    ap.add_argument("--llm-c", type=Path)
    ap.add_argument("--project", type=Path, action="append", default=[])
    ap.add_argument("--rocm-bin")
    ap.add_argument("--samples", default="*", help="glob over Samples/<group>/<sample> (default: all)")
    ap.add_argument("--limit", type=int, default=0, help="build at most N cuda-samples (0: all)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=900, help="seconds per configure or build step")
    ap.add_argument("--work", type=Path, help="where ported trees go (default: a temporary directory, removed)")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)

    bindir = rocm_bin(args.rocm_bin)
    if not (bindir / "cmake").exists():
        print(f"no ROCm tools at {bindir}: run scripts/rocm-toolchain.sh or pass --rocm-bin", file=sys.stderr)
        return 2
    if not (args.cuda_samples or args.llm_c or args.project):
        print("nothing to build: pass --cuda-samples, --llm-c or --project", file=sys.stderr)
        return 2
    work = (args.work or Path(tempfile.mkdtemp(prefix="vado-builds-"))).resolve()
    work.mkdir(parents=True, exist_ok=True)
    builds: list[Build] = []

    def report(b: Build) -> None:
        builds.append(b)
        state = "ok" if b.ok else (f"SKIPPED ({b.step}): {b.error}" if b.step == "nothing built"
                                   else f"FAILED at {b.step}: {b.error}")
        print(f"{b.name:60s} {b.seconds:6.1f}s  {state}", flush=True)

    for proj in args.project:
        out, log = ported(proj, work, proj.resolve().name)
        if out is None:
            report(Build(str(proj), False, "port", 0.0, first_error(log), log))
            continue
        if (out / "CMakeLists.txt").exists():
            report(cmake_build(f"{proj.name} (cmake)", out, bindir, args.jobs, args.timeout))
        if (out / "Makefile").exists():
            report(make_build(f"{proj.name} (make)", out, bindir, args.jobs, args.timeout, []))

    if args.llm_c:
        out, log = ported(args.llm_c, work, "llm.c")
        if out is None:
            report(Build("llm.c", False, "port", 0.0, first_error(log), log))
        else:
            report(make_build("llm.c train_gpt2cu", out, bindir, args.jobs, args.timeout,
                              ["train_gpt2cu", "NO_MULTI_GPU=1", "NO_USE_MPI=1"]))

    if args.cuda_samples:
        out, log = ported(args.cuda_samples, work, "cuda-samples")
        if out is None:
            report(Build("cuda-samples", False, "port", 0.0, first_error(log), log))
        else:
            samples = sorted(p.parent for p in (out / "Samples").glob("*/*/CMakeLists.txt"))
            samples = [s for s in samples if fnmatch.fnmatch(f"{s.parent.name}/{s.name}", args.samples)]
            if args.limit:
                samples = samples[: args.limit]
            for s in samples:
                report(cmake_build(f"cuda-samples {s.parent.name}/{s.name}", s, bindir, args.jobs, args.timeout, out))

    ok = sum(b.ok for b in builds)
    skipped = sum(b.step == "nothing built" for b in builds)
    print(f"\n{ok} of {len(builds)} builds configured, compiled and linked"
          + (f"; {skipped} configured but built nothing (optional dependencies absent)" if skipped else ""))
    steps: dict[str, int] = {}
    for b in builds:
        if not b.ok:
            steps[b.step] = steps.get(b.step, 0) + 1
    if steps:
        print("failed at: " + ", ".join(f"{k} {v}" for k, v in sorted(steps.items())))
    if args.json:
        args.json.write_text(json.dumps([asdict(b) for b in builds], indent=2) + "\n")
    if not args.work:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if ok == len(builds) else 1


if __name__ == "__main__":
    sys.exit(main())
