"""Audit HeCBench's CUDA programs and print what vado says about them.

Usage::

    python benchmarks/audit_hecbench.py [HECBENCH_SRC] [--jobs N] [--programs GLOB]
                                        [--json OUT.json] [--limit N]

``HECBENCH_SRC`` is HeCBench's ``src`` directory (default ``/work/hecbench/src``,
a checkout of github:zjin-lcf/HeCBench; never commit it). A *program* is one
``src/<name>-cuda`` directory (HeCBench keeps one Makefile per program); the
``-hip``/``-sycl``/``-omp`` ports beside them are left out. The program
directories are hard-linked (copied where links are impossible) into a
temporary tree so that one :func:`vado.audit.audit` call sees exactly them.

Printed:

- programs per verdict, for every audited target: a program's verdict is the
  worst verdict of the workloads inside it (nested Makefiles make several);
- findings per family and the 15 most frequent codes;
- files, bytes and time of the audit.

``--json`` also writes vado's full JSON report (``vado audit --format json``).
"""

from __future__ import annotations

import argparse
import fnmatch
import os
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

DEFAULT_SRC = "/work/hecbench/src"


def cuda_programs(src: Path, pattern: str = "*-cuda") -> list[Path]:
    """The program directories of ``src`` whose name matches ``pattern``, sorted."""
    return sorted(p for p in src.iterdir() if p.is_dir() and fnmatch.fnmatch(p.name, pattern))


def link_tree(programs: list[Path], dest: Path) -> None:
    """Hard-link (or copy) every program directory into ``dest``."""
    for prog in programs:
        try:
            shutil.copytree(prog, dest / prog.name, copy_function=os.link, symlinks=True)
        except OSError:
            shutil.rmtree(dest / prog.name, ignore_errors=True)
            shutil.copytree(prog, dest / prog.name, symlinks=True)


def program_of(path: str) -> str:
    """``bfs-cuda`` for ``bfs-cuda/src/main.cu``."""
    return path.split("/", 1)[0]


def summarize(result) -> dict:
    """Programs per verdict per target, findings per family and per code, from an AuditResult."""
    from vado.audit.aggregate import combine

    by_program: dict[str, list] = {}
    for w in result.workloads:
        by_program.setdefault(program_of(w.path or w.name), []).extend(w.verdicts)
    # Programs without a workload (no build file) still count, from their files.
    for f in result.files:
        prog = program_of(f.path)
        if prog not in by_program:
            by_program[prog] = list(f.verdicts)
    verdicts: dict[str, Counter] = {}
    for target in result.targets:
        counts: Counter = Counter()
        for prog, parts in by_program.items():
            counts[combine(target, parts).verdict.value] += 1
        verdicts[target] = counts
    families = Counter(f.code.rstrip("0123456789") for f in result.findings)
    codes = Counter(f.code for f in result.findings)
    programs_with = Counter()
    for code in codes:
        programs_with[code] = len({program_of(f.span.path) for f in result.findings if f.code == code})
    return {"programs": len(by_program), "verdicts": verdicts, "families": families, "codes": codes,
            "programs_with": programs_with}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("src", nargs="?", default=DEFAULT_SRC, help="HeCBench's src directory")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--programs", default="*-cuda", help="program directory glob (default *-cuda)")
    parser.add_argument("--limit", type=int, default=0, help="audit only the first N programs")
    parser.add_argument("--json", metavar="OUT", help="also write vado's JSON report here")
    args = parser.parse_args(argv)

    from vado.audit import audit
    from vado.model.verdict import Verdict

    src = Path(args.src)
    if not src.is_dir():
        print(f"{src}: not a directory (fetch github:zjin-lcf/HeCBench and pass its src/)", file=sys.stderr)
        return 2
    programs = cuda_programs(src, args.programs)
    if args.limit:
        programs = programs[: args.limit]
    with tempfile.TemporaryDirectory(prefix="vado-hecbench-") as tmp:
        root = Path(tmp) / "src"
        root.mkdir()
        link_tree(programs, root)
        started = time.perf_counter()
        result = audit(root, jobs=args.jobs)
        elapsed = time.perf_counter() - started
        if args.json:
            from vado.report.json_report import render_json

            Path(args.json).write_text(render_json(result), encoding="utf-8")
    s = summarize(result)
    st = result.stats
    print(f"HeCBench {src} ({args.programs}): {s['programs']} programs, {st.files_scanned} files, "
          f"{st.bytes_scanned / 1e6:.1f} MB, {len(result.findings)} findings, {elapsed:.1f} s with --jobs {args.jobs}")
    order = [v.value for v in Verdict.__members__.values()]
    print("\nPrograms per verdict")
    width = max(len(v) for v in order)
    print(f"  {'verdict':<{width}}  " + "  ".join(f"{t:>9}" for t in result.targets))
    for v in order:
        print(f"  {v:<{width}}  " + "  ".join(f"{s['verdicts'][t].get(v, 0):>9}" for t in result.targets))
    print("\nFindings per family")
    for fam, n in s["families"].most_common():
        print(f"  {fam:<5} {n:>7}")
    print("\nTop 15 codes (findings, programs)")
    for code, n in s["codes"].most_common(15):
        print(f"  {code:<8} {n:>7}  {s['programs_with'][code]:>4}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
