"""verify's speed beside the build's own, and whether they agree, unit by unit.

Usage::

    python benchmarks/verify_speed.py PORT [--hipcc PATH] [--jobs N] [--arch gfx942,gfx950]
                                      [--make-var NAME=VALUE ...] [--edit REL] [--skip-build]
                                      [--codegen-all] [--json FILE]

``PORT`` is a ported tree with Makefiles (``vado port SRC -o PORT``). It is copied into a scratch
directory first; everything runs in the copy, nothing is written into ``PORT``.

What is timed (wall clock, ``time.perf_counter``; CPU seconds of the children beside it):

1. **the build**: ``make -k -jN`` with the same variables over every directory whose Makefile verify's
   dry run read (one job server for all of them), with the target's hipcc first on ``PATH`` (``$(shell which hipcc)`` finds it) and
   ``--make-var`` values (``NVCC=…`` for a Makefile that names its compiler so). This is the port's
   real build, compiling and linking.
2. **verify, cold**: ``vado verify COPY --build make -j N`` (the default ``--codegen auto``: the front
   end for the host and every ``--arch`` on each unit, the build's full compile where only code
   generation can tell) with an empty result cache (``VADO_CACHE_DIR`` a fresh directory; the arch
   probe cache is kept warm first so that it is not counted). What it checked is printed with it.
3. **re-verify, nothing changed**: the same command again.
4. **re-verify after a one-file edit**: a comment line appended to ``--edit`` (default: the smallest
   device unit that passed), the same command again.
5. with ``--codegen-all``: ``--codegen all`` (the build's full compile of every unit, no linking) once,
   cold, with its own empty cache.

Agreement: for each unit the build compiles, the build's result is whether the output of its command
(``-o``) exists after ``make -k``; verify's is whether the unit passed for every arch. A build
failure whose log shows only link errors for that output is reported apart (verify compiles, it does
not link). Disagreements are listed, each with what verify checked of that unit (front end or code
generation); with ``--codegen-all``, units where the two verify modes disagree are listed too.

The numbers depend on the machine: the CPU count and load average are printed with them (a machine
shared with other jobs gives slower, noisier numbers; compare CPU seconds).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from vado.build.read import BuildOptions, read_build  # noqa: E402
from vado.verify.sandbox import Limits, run_limited  # noqa: E402

LIMIT = Limits(timeout_s=3600.0, cpu_s=None, memory_mb=None, file_mb=None)


def _children_cpu() -> float:
    r = os.times()
    return r.children_user + r.children_system


def _output_of(tu) -> str:
    words = list(tu.dropped)
    for i, w in enumerate(words):
        if w == "-o" and i + 1 < len(words):
            return words[i + 1]
        if w.startswith("-o="):
            return w[3:]
    return ""


def _raw_commands(dirs, env, make_vars) -> dict[str, tuple[str, list[str]]]:
    """Each unit's own compiler command in the build (source -> (directory, words)), from make -n."""
    from vado.build.cmdline import compiler_family, parse_command, split_command
    from vado.build.make import _ENTER, _LEAVE, shell_commands

    out: dict[str, tuple[str, list[str]]] = {}
    for d in dirs:
        res = run_limited(["make", "-n", "-B", "-k", "-w", *[f"{k}={v}" for k, v in make_vars.items()]], cwd=d,
                          env=env, limits=LIMIT)
        stack = [str(d)]
        for line in res.stdout.replace("\\\n", " ").splitlines():
            m = _ENTER.match(line)
            if m:
                stack.append(m.group(1))
                continue
            if _LEAVE.match(line):
                stack.pop() if len(stack) > 1 else None
                continue
            for words in shell_commands(line):
                words = split_command(words)
                if words and compiler_family(words[0]):
                    for u in parse_command(words, stack[-1]):
                        out.setdefault(u.source, (stack[-1], words))
    return out


def _compiles_alone(cwd: str, words: list[str], env, scratch: Path) -> bool:
    """Whether the build's own command, without its link step (-c, no -o/-l/-L/objects), compiles."""
    keep: list[str] = []
    skip = False
    for w in words:
        if skip:
            skip = False
            continue
        if w == "-o":
            skip = True
            continue
        if w.startswith(("-l", "-L", "-Wl,")) or w.endswith((".o", ".a", ".so")):
            continue
        keep.append(w)
    return run_limited([*keep, "-c", "-o", str(scratch / "alone.o")], cwd=cwd, env=env, limits=LIMIT).ok


def _timed(cmd, cwd, env) -> tuple[float, float, object]:
    cpu0, t0 = _children_cpu(), time.perf_counter()
    out = run_limited(cmd, cwd=cwd, env=env, limits=LIMIT)
    return time.perf_counter() - t0, _children_cpu() - cpu0, out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("port")
    ap.add_argument("--hipcc", default="/var/cache/vado/rocm-7.2.4/bin/hipcc")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--arch", default="gfx942,gfx950")
    ap.add_argument("--make-var", action="append", default=[])
    ap.add_argument("--edit", default="")
    ap.add_argument("--skip-build", action="store_true")
    ap.add_argument("--codegen-all", action="store_true", help="also time --codegen all once (cold)")
    ap.add_argument("--json", default="", help="also write the numbers here")
    args = ap.parse_args()
    make_vars = dict(v.split("=", 1) for v in args.make_var)
    scratch = Path(tempfile.mkdtemp(prefix="vado-verify-speed-"))
    copy = scratch / Path(args.port).resolve().name
    shutil.copytree(args.port, copy, symlinks=True, ignore=shutil.ignore_patterns(".git"))
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at start (shared: other jobs "
          f"run here, so wall times are noisy; CPU seconds are printed beside them)")
    cfg = read_build(copy, BuildOptions(mode="make", make_vars=make_vars, tools={"hipcc": args.hipcc}))
    n_units = len(cfg.units)
    print(f"tree: {args.port} ({n_units} units from {cfg.reader}; ran: {'; '.join(cfg.ran)})")
    for n in cfg.notes:
        print(f"  note: {n}")
    env = dict(os.environ)
    tools = scratch / "tools"
    tools.mkdir()
    os.symlink(args.hipcc, tools / "hipcc")
    env["PATH"] = f"{tools}{os.pathsep}{env.get('PATH', '')}"
    results: dict = {"units": n_units, "cpus": os.cpu_count(), "jobs": args.jobs}

    build_ok: dict[str, bool] = {}
    link_only: set[str] = set()
    if not args.skip_build:
        dirs = sorted({Path(u.directory) for u in cfg.units}, key=lambda p: len(p.parts))
        # One make -jN over every directory (a driver Makefile that enters each with $(MAKE), sharing
        # make's job server), so that the build runs as parallel as verify does.
        driver = scratch / "all.mk"
        names = [f"d{i}" for i in range(len(dirs))]
        driver.write_text(".PHONY: all " + " ".join(names) + "\nall: " + " ".join(names) + "\n" + "".join(
            f"{n}:\n\t+$(MAKE) -k -C '{d}' {' '.join(f'{k}={v}' for k, v in make_vars.items())}\n"
            for n, d in zip(names, dirs)))
        wall, cpu, _out = _timed(["make", "-k", f"-j{args.jobs}", "-f", str(driver)], scratch, env)
        print(f"build:         make -k -j{args.jobs} over {len(dirs)} dirs: {wall:7.1f} s wall, {cpu:7.1f} CPU-s")
        results["build_wall_s"], results["build_cpu_s"] = wall, cpu
        for u in cfg.units:
            o = _output_of(u)
            path = Path(o if os.path.isabs(o) else os.path.join(u.directory, o))
            build_ok[u.source] = bool(o) and path.exists()
        failed = [src for src, ok in build_ok.items() if not ok]
        if failed:
            raw = _raw_commands(dirs, env, make_vars)
            for src in failed:
                if src in raw and _compiles_alone(raw[src][0], raw[src][1], env, scratch):
                    link_only.add(src)

    cache = scratch / "cache"
    vado = [sys.executable, "-m", "vado", "verify", str(copy), "--build", "make", "--hipcc", args.hipcc,
            "-j", str(args.jobs), "--arch", args.arch, "--format", "json", "--no-triton",
            "--report", str(scratch / "report.json")]
    for k, v in make_vars.items():
        vado += ["--make-var", f"{k}={v}"]
    venv = dict(os.environ, VADO_CACHE_DIR=str(cache))
    # vado from this checkout, whatever is installed.
    venv["PYTHONPATH"] = os.pathsep.join(filter(None, [str(Path(__file__).resolve().parents[1] / "src"),
                                                       venv.get("PYTHONPATH", "")]))
    # Warm the arch probe (not what is measured): one tiny verify run with its own tree.
    probe_tree = scratch / "probe"
    probe_tree.mkdir()
    (probe_tree / "p.hip").write_text("__global__ void k() {}\n")
    run_limited([sys.executable, "-m", "vado", "verify", str(probe_tree), "--build", "none", "--hipcc", args.hipcc,
                 "--arch", args.arch, "--no-triton"], env=venv, limits=LIMIT)
    shutil.rmtree(cache / "verify", ignore_errors=True)

    def verify_once(label: str, extra: tuple[str, ...] = (), env=None) -> dict:
        load = os.getloadavg()[0]
        w, c, out = _timed([*vado, *extra], None, env or venv)
        try:
            doc = json.loads((scratch / "report.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            print(out.stderr[-2000:])
            raise SystemExit(3)
        hits = doc.get("cache_hits", 0)
        recs = [e for e in doc["evidence"] if e["kind"] == "compile"]
        fe = len({e["subject"] for e in recs if e["detail"].get("checked") == "front end"})
        cg = len({e["subject"] for e in recs if e["detail"].get("checked") == "code generation"})
        pch = len({e["subject"] for e in recs if e["detail"].get("precompiled_prefix") and not e["detail"].get("cached")})
        print(f"{label:<13} {w:7.1f} s wall, {c:7.1f} CPU-s (load {load:.1f} at start; {len(recs)} records, {hits} from "
              f"the cache; units checked: {fe} front end only, {cg} with code generation; {pch} front ends ran with a "
              f"precompiled prefix)")
        if hits:
            ran = sorted({e["subject"] for e in recs if not e["detail"].get("cached")})
            print(f"{'':<13} ran again: " + (", ".join(ran[:8]) + (f", … {len(ran) - 8} more" if len(ran) > 8 else "")
                                              if ran else "nothing"))
        key = label.strip(":").replace(" ", "_").replace("-", "_")
        results[key + "_wall_s"] = w
        results[key + "_cpu_s"] = c
        results[key + "_load"] = load
        return doc

    cold = verify_once("verify:")
    for line in cold.get("checked", []):
        print(f"  {line}")
    verify_once("re-verify:")
    # The smallest device unit that passed (a unit that fails before reading anything is never cached,
    # and would time nothing).
    passed_dev = {os.path.normpath(os.path.join(str(copy), e["subject"])) for e in cold["evidence"]
                  if e["kind"] == "compile" and e["passed"] and e["arch"] != "host"}
    candidates = [u.source for u in cfg.units if os.path.normpath(u.source) in passed_dev] or [u.source for u in cfg.units]
    edit = args.edit or min(candidates, key=lambda s: os.path.getsize(s))
    edit_path = Path(edit if os.path.isabs(edit) else copy / edit)
    with open(edit_path, "a", encoding="utf-8") as f:
        f.write("\n// edited by benchmarks/verify_speed.py\n")
    print(f"edited: {os.path.relpath(edit_path, copy)}")
    verify_once("after edit:")
    full = None
    if args.codegen_all:
        full = verify_once("codegen all:", ("--codegen", "all"), dict(venv, VADO_CACHE_DIR=str(scratch / "cache-all")))

    def unit_results(doc) -> tuple[dict[str, bool], dict[str, str]]:
        ok: dict[str, bool] = {}
        what: dict[str, str] = {}
        for e in doc["evidence"]:
            if e["kind"] == "compile":
                src = os.path.normpath(os.path.join(str(copy), e["subject"]))
                ok[src] = ok.get(src, True) and bool(e["passed"])
                if what.get(src) != "code generation":
                    what[src] = str(e["detail"].get("checked", ""))
        return ok, what

    passed, checked = unit_results(cold)
    if full is not None:
        full_passed, _ = unit_results(full)
        differ = sorted(s for s in passed if s in full_passed and passed[s] != full_passed[s])
        print(f"codegen auto vs all: {len(passed) - len(differ)}/{len(passed)} units agree")
        for src in differ:
            print(f"  DIFFER {os.path.relpath(src, copy)}: auto {'pass' if passed[src] else 'fail'} "
                  f"({checked.get(src)}), all {'pass' if full_passed[src] else 'fail'}")
        results["auto_vs_all_differ"] = len(differ)
    if build_ok:
        disagree = []
        for src, ok in build_ok.items():
            v = passed.get(src)
            if v is None:
                continue
            if v != ok and not (v and src in link_only):
                disagree.append((os.path.relpath(src, copy), ok, v))
        agree = len(build_ok) - len(disagree)
        print(f"agreement:  {agree}/{len(build_ok)} units (build pass/fail = verify pass/fail); "
              f"{len(link_only)} build failures are link-only (verify compiles, does not link): "
              + ", ".join(sorted(os.path.relpath(s, copy) for s in link_only)))
        for rel, ok, v in disagree:
            print(f"  DISAGREE {rel}: build {'pass' if ok else 'fail'}, verify {'pass' if v else 'fail'} "
                  f"(verify checked: {checked.get(os.path.join(str(copy), rel))})")
        results["disagreements"] = len(disagree)
        results["build_pass"] = sum(build_ok.values())
        results["verify_pass"] = sum(1 for s in build_ok if passed.get(s))
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
