"""Start-up cost of a one-file audit (``vado audit FILE``), side by side for two checkouts of vado.

An editor or a pre-commit hook audits one file at a time, so the time to the first
finding is the interpreter, the imports and the knowledge base, not the scan. This
script runs ``vado audit`` on one file in fresh processes, alternating between the
checkouts so that both see the same machine load, and prints per checkout the
median and best wall time and CPU time (user + system of the child):

    python benchmarks/audit_startup.py --file examples/vecops/src/main.cu \\
        --checkout current=src --checkout orig=/tmp/vado-orig/src --runs 20 --args="-q -f json"

A checkout is ``NAME=PATH`` where PATH is the ``src`` directory holding the ``vado``
package (with its C extension built in place). The first run of each checkout is
a warm-up and is not counted (it fills the OS page cache and vado's knowledge
cache). ``python -c pass`` is measured too: the interpreter's own start.

Each checkout gets a knowledge cache of its own (``VADO_CACHE_DIR`` in a temporary
directory): an entry is keyed by the paths of the data files, so two checkouts
sharing ``~/.cache/vado`` would replace each other's entries on every run, and
every measured run would parse the knowledge base again.

Run it with the interpreter vado is used with (the README's ``.venv/bin/python``): each child
is ``sys.executable``, and a base interpreter's ``site-packages`` may hold ``.pth`` files that
import packages at every start (a sandbox's certificate hook importing certifi costs 30 ms), which
a virtual environment does not read.

Compile the sources first (``python -m compileall -q src``) where Python does not
write bytecode itself (``PYTHONDONTWRITEBYTECODE``): otherwise every run compiles
every module, as an installed vado never does.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _run(cmd: list[str], env: dict[str, str]) -> tuple[float, float, int]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc.returncode


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--file", required=True, help="the source file to audit")
    ap.add_argument("--checkout", action="append", required=True, metavar="NAME=SRC",
                    help="a vado checkout: its src directory (repeat)")
    ap.add_argument("--runs", type=int, default=15, help="counted runs per checkout")
    ap.add_argument("--args", default="-q", help='further vado audit options, as one word: --args="-q -f json" (default: -q)')
    args = ap.parse_args(argv)
    checkouts = []
    for item in args.checkout:
        name, _, src = item.partition("=")
        if not src or not (Path(src) / "vado" / "__init__.py").is_file():
            ap.error(f"--checkout {item!r}: expected NAME=PATH with PATH/vado/__init__.py")
        checkouts.append((name, str(Path(src).resolve())))
    caches = tempfile.TemporaryDirectory(prefix="vado-startup-")
    cases = [("python -c pass", [sys.executable, "-c", "pass"], dict(os.environ))]
    for k, (name, src) in enumerate(checkouts):
        env = dict(os.environ, PYTHONPATH=src, VADO_CACHE_DIR=os.path.join(caches.name, str(k)))
        code = "import sys; from vado.cli.app import main; sys.argv[0] = 'vado'; main()"
        cmd = [sys.executable, "-c", code, "audit", *args.args.split(), args.file]
        cases.append((name, cmd, env))
    results: dict[str, list[tuple[float, float]]] = {name: [] for name, _, _ in cases}
    codes: dict[str, set[int]] = {name: set() for name, _, _ in cases}
    for name, cmd, env in cases:
        _run(cmd, env)  # warm-up
    for _ in range(args.runs):
        for name, cmd, env in cases:
            wall, cpu, rc = _run(cmd, env)
            results[name].append((wall, cpu))
            codes[name].add(rc)
    print(f"{'':16s} {'wall median':>12s} {'wall best':>10s} {'CPU median':>11s} {'CPU best':>9s}  exit codes")
    for name, rows in results.items():
        walls = [w for w, _ in rows]
        cpus = [c for _, c in rows]
        print(f"{name:16s} {statistics.median(walls):11.3f}s {min(walls):9.3f}s {statistics.median(cpus):10.3f}s "
              f"{min(cpus):8.3f}s  {sorted(codes[name])}")
    print(f"load average: {os.getloadavg()[0]:.2f} (1 min), {os.cpu_count()} CPUs")
    caches.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
