"""Audit throughput: vado beside torch's hipify and hipify-perl, on the same files, in one run.

Usage::

    python benchmarks/audit_speed.py [HECBENCH_SRC] [--hipify-perl PATH] [--limit N]
                                     [--repeat N] [--skip TOOL ...]

The file set is every C/C++/CUDA source and header (the kinds vado lexes:
``.cu .cuh .c .cc .cpp .cxx .h .hpp .inl`` …, not ``.hip``) of HeCBench's
``src/*-cuda`` program directories (default ``/work/hecbench/src``), found by
vado's own discovery (so ``.gitignore``d and vendored files are left out as
vado leaves them out). Data files, build files and scripts are not counted.
The files are hard-linked into a temporary tree that holds nothing else, and
every tool reads that tree, so each one processes exactly the same bytes; MB
is 10^6 bytes of those files.

What is timed (wall clock, ``time.perf_counter``):

- ``vado jobs=N``: one :func:`vado.audit.audit` call on the tree (discovery,
  reading, lexing, all rules, aggregation), with ``jobs=1`` and ``jobs=2``;
  process start-up of the workers is included.
- ``hipify-perl``: ``perl hipify-perl -quiet-warnings -no-output FILE...``
  (HIPIFY's generated Perl translator; the files in batches of at most 1000 per
  command line, run one after another, so one core). ``-no-output`` still
  translates every file, it only drops the result. ``-examine`` would add
  ``-print-stats`` (a per-file statistics pass and report), closer to an audit
  but slower, so the cheaper mode is timed.
- ``torch hipify``: ``torch.utils.hipify.hipify_python.hipify`` over a fresh
  copy of the tree (copying is not timed), in place (``output_directory`` is
  the copy), ``show_progress=False``; it rewrites and writes every file, which
  is more than an audit does (file writes are included in its time). It reads
  files as UTF-8 and raises ``UnicodeDecodeError`` on the first file that is
  not (HeCBench has latin-1 ``©`` signs), so it gets the UTF-8 files only and
  its MB/s is computed over those; the count left out is printed.

Beside wall-clock seconds the CPU seconds of each run are printed (this
process plus its children: vado's workers, perl), and MB per CPU second: on a
machine shared with other jobs that is the fairer comparison.

Warm-up: every file is read once first (page cache), and each tool is run once
on the first 5% of the files before its timed run, so that imports, table
loading and Perl compilation are warm. With ``--repeat N`` the best of N timed
runs is reported. The machine's load is printed too: numbers from a busy
machine are lower bounds.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DEFAULT_SRC = "/work/hecbench/src"
HIPIFY_PERL_BATCH = 1000


def source_files(src: Path, pattern: str = "*-cuda", limit: int = 0) -> list[tuple[str, Path, int]]:
    """``(relative path, absolute path, size)`` of the C-family files vado scans in ``src/<pattern>``."""
    import fnmatch

    from vado.scan.classify import FileKind
    from vado.scan.discover import walk

    out = []
    programs = sorted(p for p in src.iterdir() if p.is_dir() and fnmatch.fnmatch(p.name, pattern))
    if limit:
        programs = programs[:limit]
    for prog in programs:
        for f in walk(prog).files:
            if f.kind.is_c_family and f.kind is not FileKind.HIP_SOURCE:
                out.append((f"{prog.name}/{f.path}", Path(f.abs_path), f.size))
    return out


def build_tree(files: list[tuple[str, Path, int]], dest: Path) -> list[Path]:
    """Hard-link (or copy) ``files`` under ``dest``; return the new paths in order."""
    paths = []
    for rel, abs_path, _ in files:
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.link(abs_path, target)
        except OSError:
            shutil.copy2(abs_path, target)
        paths.append(target)
    return paths


def cpu_seconds() -> float:
    """CPU seconds used so far by this process and its waited-for children."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def timed(fn) -> tuple[float, float]:
    """``(wall seconds, CPU seconds)`` of ``fn()``."""
    c0, t0 = cpu_seconds(), time.perf_counter()
    fn()
    return time.perf_counter() - t0, cpu_seconds() - c0


def time_vado(root: Path, jobs: int) -> float:
    """Seconds for one audit of ``root``."""
    from vado.audit import audit

    t0 = time.perf_counter()
    audit(root, jobs=jobs)
    return time.perf_counter() - t0


def time_hipify_perl(script: Path, paths: list[Path]) -> float:
    """Seconds for ``perl SCRIPT -quiet-warnings -no-output`` over ``paths`` (batched, sequential)."""
    t0 = time.perf_counter()
    for i in range(0, len(paths), HIPIFY_PERL_BATCH):
        batch = [str(p) for p in paths[i:i + HIPIFY_PERL_BATCH]]
        subprocess.run(["perl", str(script), "-quiet-warnings", "-no-output", *batch],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - t0


def time_torch_hipify(root: Path, scratch: Path, extensions: tuple[str, ...]) -> float:
    """Seconds for torch's hipify over a fresh copy of ``root`` (the copy is not timed)."""
    from torch.utils.hipify import hipify_python

    work = scratch / "torch-hipify"
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(root, work)
    hipify_python.HIPIFY_FINAL_RESULT.clear()  # a module-level dict it fills on every call
    sink = io.StringIO()
    t0 = time.perf_counter()
    with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        hipify_python.hipify(project_directory=str(work), output_directory=str(work), includes=["*"],
                             extensions=extensions, header_extensions=extensions, show_progress=False,
                             is_pytorch_extension=False)
    elapsed = time.perf_counter() - t0
    shutil.rmtree(work, ignore_errors=True)
    return elapsed


def _is_utf8(path: Path) -> bool:
    try:
        path.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _hipify_perl_default() -> Path | None:
    """Extract ``bin/hipify-perl`` from the local HIPIFY mirror, if there is one."""
    mirror = Path("/work/.mirror/ROCm+HIPIFY/repo")
    if not mirror.exists():
        return None
    out = Path(tempfile.gettempdir()) / "vado-bench-hipify-perl"
    proc = subprocess.run(["git", "-C", str(mirror), "show", "HEAD:bin/hipify-perl"], capture_output=True, check=False)
    if proc.returncode != 0:
        return None
    out.write_bytes(proc.stdout)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("src", nargs="?", default=DEFAULT_SRC, help="HeCBench's src directory")
    parser.add_argument("--hipify-perl", type=Path, help="path of hipify-perl (default: from the HIPIFY mirror)")
    parser.add_argument("--limit", type=int, default=0, help="only the first N programs")
    parser.add_argument("--repeat", type=int, default=1, help="timed runs per tool; the best is reported")
    parser.add_argument("--skip", nargs="*", default=[], choices=["vado", "hipify-perl", "torch"], help="tools to leave out")
    args = parser.parse_args(argv)

    src = Path(args.src)
    if not src.is_dir():
        print(f"{src}: not a directory (fetch github:zjin-lcf/HeCBench and pass its src/)", file=sys.stderr)
        return 2
    files = source_files(src, limit=args.limit)
    total = sum(size for _, _, size in files)
    mb = total / 1e6
    extensions = tuple(sorted({Path(rel).suffix for rel, _, _ in files if Path(rel).suffix}))
    print(f"{len(files)} C/C++/CUDA files of {src}/*-cuda, {mb:.2f} MB ({', '.join(extensions)}); "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    results: dict[str, tuple[float, float]] = {}
    with tempfile.TemporaryDirectory(prefix="vado-speed-") as tmp:
        tmp_path = Path(tmp)
        root = tmp_path / "src"
        paths = build_tree(files, root)
        for p in paths:  # page cache
            p.read_bytes()
        warm_n = max(1, len(files) // 20)
        warm_root = tmp_path / "warm"
        warm_paths = build_tree(files[:warm_n], warm_root)

        def best(fn) -> tuple[float, float]:
            return min(timed(fn) for _ in range(max(1, args.repeat)))

        if "vado" not in args.skip:
            time_vado(warm_root, 2)
            for jobs in (1, 2):
                results[f"vado jobs={jobs}"] = best(lambda: time_vado(root, jobs))
        perl = args.hipify_perl or _hipify_perl_default()
        if "hipify-perl" not in args.skip:
            if perl is None or shutil.which("perl") is None:
                print("hipify-perl: not found (pass --hipify-perl PATH); skipped")
            else:
                time_hipify_perl(perl, warm_paths)
                results["hipify-perl"] = best(lambda: time_hipify_perl(perl, paths))
        utf8 = [f for f in files if _is_utf8(f[1])]
        torch_mb = sum(size for _, _, size in utf8) / 1e6
        if "torch" not in args.skip and len(utf8) < len(files):
            print(f"torch hipify: {len(files) - len(utf8)} files that are not UTF-8 left out "
                  f"(it cannot read them); its MB/s is over {torch_mb:.2f} MB")
        if "torch" not in args.skip:
            try:
                import torch.utils.hipify.hipify_python  # noqa: F401
            except ImportError:
                print("torch hipify: torch is not installed (pip install torch); skipped")
            else:
                torch_root = tmp_path / "utf8"
                build_tree(utf8, torch_root)
                torch_warm = tmp_path / "utf8-warm"
                build_tree(utf8[:warm_n], torch_warm)
                time_torch_hipify(torch_warm, tmp_path, extensions)
                results["torch hipify"] = best(lambda: time_torch_hipify(torch_root, tmp_path, extensions))
    sizes = {name: (torch_mb if name == "torch hipify" else mb) for name in results}
    speed = {name: (sizes[name] / secs, sizes[name] / max(cpu, 1e-9)) for name, (secs, cpu) in results.items()}
    print(f"\n  {'tool':<14} {'MB':>6} {'seconds':>8} {'MB/s':>7} {'CPU s':>8} {'MB/CPU s':>9}")
    for name, (secs, cpu) in results.items():
        print(f"  {name:<14} {sizes[name]:>6.2f} {secs:>8.2f} {speed[name][0]:>7.2f} {cpu:>8.2f} {speed[name][1]:>9.2f}")
    peers = [n for n in results if not n.startswith("vado")]
    print("\n  ratios (vado MB/s / peer MB/s; wall clock, then per CPU second)")
    for v in (n for n in results if n.startswith("vado")):
        for p in peers:
            print(f"  {v} / {p}: {speed[v][0] / speed[p][0]:.2f}x wall, {speed[v][1] / speed[p][1]:.2f}x CPU")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
