#!/usr/bin/env python3
"""Wave64 fidelity on an NVIDIA GPU: HeCBench programs with warp-level CUDA, original against port under --wave 64.

For each program: the original (``-cuda``) built with nvcc; vado's default port
(``vado.port.tree.port_tree``, target rocm-7.2) and hipify-perl's translation,
both built with the same nvcc through vado's HIP-on-CUDA headers with AMD's
64-lane waves emulated (:mod:`vado.verify.hip_on_cuda`, ``--wave 64``). All run on
the Makefile's ``run`` arguments: the original twice (tokens that differ between
its runs are masked), each port once; stdout compared token by token (timing
lines ignored, numbers within ``--rtol``/``--atol``, the run's own paths
normalised), as :func:`vado.verify.differential.differential` does.

Programs: every ``-cuda`` program whose sources spell ``__shfl``, ``__ballot``,
``__any_sync``, ``__all_sync``, ``__activemask``, ``warpSize`` or ``%laneid``, that
uses no CUDA library beyond CUB/Thrust headers (no cuBLAS, cuFFT, cuRAND, cuSPARSE,
cuSOLVER, cuDNN, NCCL, NVRTC, the driver library or MPI), whose data is not kept outside git (DVC) and
whose Makefile's ``run`` target names its arguments, every file among them present (a file of another
program, ``../mis-cuda/internet.egr``, is copied beside each variant); a program whose headers it
includes (``-I../blockAccess-cuda``) is copied, ported or translated with it. From those, ``--count``
chosen with ``random.Random(--seed)``. Each variant's kernels are marked as ``vado verify --wave 64``
marks a port's (:func:`vado.verify.hip_on_cuda.mark_kernel_exits`).

Three steps (the GPU machine gets the work directory and runs step 2)::

    python benchmarks/wave64_differential.py prepare --work .gpu-work --seed 15 --count 38
    bash benchmarks/wave64_device.sh [--programs a,b] [--args NAME=ARGS]   # on the GPU, with .gpu-work
    python benchmarks/wave64_differential.py report RUN1.json RUN2.json ...

``wave64_device.sh`` also builds and runs the emulation's own checks. ``--args`` gives a program a
smaller workload (recorded in the results beside its Makefile's) where the emulation, slower than
the hardware, would not finish in time.

``prepare`` also compiles both ports here with ``nvcc -c`` (``--check``) so that a
header problem shows before any GPU time is spent.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from vado.verify.differential import TIMING_LINES  # noqa: E402
from vado.verify.hip_on_cuda import WAVE64_NVCC_FLAGS  # noqa: E402

WARP = re.compile(r"__shfl|__ballot|__any_sync|__all_sync|__activemask|warpSize|%laneid")
LIBS = re.compile(r"cublas|cufft|curand|cusparse|cusolver|cudnn|nccl|<mpi\.h>|nvml|cutlass|nvrtc|-lcuda\b")
SOURCE_EXTS = (".cu", ".cuh", ".h", ".hpp", ".cpp", ".cc", ".c", ".inl")
VARIANTS = ("orig", "vado", "hipify")
#: Seconds one nvcc build may take on the GPU machine.
BUILD_TIMEOUT = 360
#: Timing and speed lines (one pattern with vado verify's differential runs).
TIMING = TIMING_LINES


def ignored_lines(prog: dict) -> str:
    """The regular expression of the output lines compare() leaves out for ``prog``: timing lines
    (:data:`TIMING`), and the lines its list entry marks as output the harness cannot compare
    (``ignore_lines``: ``{"pattern": ..., "why": ...}``: timings printed without a unit word, numbers that
    depend on how far the GPU got while the host went on)."""
    extra = (prog.get("ignore_lines") or {}).get("pattern")
    return TIMING if not extra else f"(?i)(?:{TIMING[4:]})|(?:{extra})"


#: A printf conversion (``%-8.3lf``) and what it prints, as a regular expression.
_CONVERSION = re.compile(r"%([-+ #0]*)(\d+|\*)?(?:\.(\d+|\*))?(?:hh|h|ll|l|j|z|t|L)?([diouxXeEfFgGaAcsp%])")
_PRINTS = {"d": r"[-+]?\d+", "i": r"[-+]?\d+", "u": r"\d+", "o": r"[0-7]+", "x": r"(?:0x)?[0-9a-f]+",
           "X": r"(?:0X)?[0-9A-F]+", "c": r".", "s": r".*?", "p": r"\S+", "%": "%"}


def device_line_patterns(formats: list[str]) -> list[re.Pattern]:
    """One pattern per line a device ``printf`` of ``formats`` prints whole (each ``\\n``-ended part of a format;
    a part without literal text, such as ``"%d\\n"``, still matches only a line of that shape). See
    :func:`vado.verify.hip_on_cuda.device_printf_formats`."""
    out = []
    for fmt in formats:
        for part in fmt.split("\n")[:-1]:  # the text after the last newline does not end a line
            rx, last = [], 0
            for m in _CONVERSION.finditer(part):
                rx.append(re.escape(part[last:m.start()]))
                conv = m.group(4)
                rx.append(r"\s*" + _PRINTS.get(conv, r"[-+]?(?:\S+)") if conv != "%" else "%")
                last = m.end()
            rx.append(re.escape(part[last:]))
            if part.strip():
                out.append(re.compile("".join(rx) + r"\s*"))
    return out


def order_device_lines(text: str, patterns: list[re.Pattern]) -> str:
    """``text`` with each run of consecutive lines that a device printf printed (a pattern of
    :func:`device_line_patterns` matches the whole line) sorted: CUDA leaves the order of different threads'
    printf lines unspecified, and a host line between two runs (the host prints after a synchronisation)
    keeps them apart, so the lines are compared as a multiset between host lines and everything else in order."""
    if not patterns:
        return text
    lines, out, run = text.split("\n"), [], []
    for line in lines:
        if any(p.fullmatch(line) for p in patterns):
            run.append(line)
            continue
        out += sorted(run) + [line]
        run = []
    return "\n".join(out + sorted(run))


#: A random seed taken from the wall clock: ``srand(time(NULL))``, ``std::mt19937 gen(time(0))``, ``seed = time(…)``.
CLOCK_SEED = re.compile(r"\b(?:srand\w*|\w*seed\w*|mt19937\w*\s+\w+|default_random_engine\s+\w+)\s*[(=][^;{}]*?"
                        r"\btime\s*\(\s*(?:NULL|0|nullptr)?\s*\)", re.I)
#: The C of the shim that pins ``time()`` (LD_PRELOAD) for the runs of a program that seeds from the clock.
FIXED_TIME_C = """#include <time.h>
/* vado wave64 harness: time() pinned, so that input a program seeds from the clock is the same in every run. */
time_t time(time_t *t) { time_t v = (time_t)1700000000; if (t) *t = v; return v; }
"""


def clock_seeds(root: Path) -> list[str]:
    """Where the sources under ``root`` seed a random generator from the wall clock (``file:line: text``): such a
    program's input differs from one second to the next, so its runs (the original's two and each port's) get
    the same ``time()`` (:data:`FIXED_TIME_C`, preloaded); the rest of the clock is left alone."""
    out = []
    for f in _sources(root):
        text = f.read_text(encoding="latin-1")
        for m in CLOCK_SEED.finditer(text):
            out.append(f"{f.relative_to(root)}:{text.count(chr(10), 0, m.start()) + 1}: {' '.join(m.group().split())[:120]}")
    return out


def _sources(d: Path) -> list[Path]:
    return [p for p in sorted(d.rglob("*")) if p.is_file() and p.suffix in SOURCE_EXTS]


def _text(d: Path) -> str:
    return "".join(p.read_text(encoding="latin-1") for p in _sources(d))


def run_args(program_dir: Path) -> str | None:
    """The arguments of the Makefile's ``run`` target (``./main ARGS``), or None."""
    try:
        proc = subprocess.run(["make", "-n", "-B", "run"], cwd=program_dir, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    for line in reversed(re.sub(r"\\\n", " ", proc.stdout).splitlines()):  # a command continued with "\"
        m = re.match(r"^\s*(?:\S*=\S*\s+)*\./(\S+)\s*(.*)$", line)
        if m:
            return " ".join(m.group(2).split())
    return None


def eligible(hecbench: Path) -> list[dict]:
    """Programs that fit (see the module docstring), with their units and run arguments."""
    from hecbench_build import dry_run

    out = []
    for d in sorted(hecbench.glob("*-cuda")):
        if not (d / "Makefile").is_file():
            continue
        text = _text(d)
        mk = (d / "Makefile").read_text(encoding="latin-1")
        if not WARP.search(text) or LIBS.search(text) or LIBS.search(mk):
            continue
        if sum(p.stat().st_size for p in d.rglob("*") if p.is_file()) > 1 << 20:
            continue
        if any(d.glob("*.dvc")):
            continue  # its data is kept outside git (DVC) and absent here
        args = run_args(d)
        if args is None or "$(" in args:
            continue
        files = [w for w in args.split() if "/" in w or re.search(r"\.\w{2,4}$", w)]
        if any(not (d / w).exists() for w in files):
            continue
        # Files of another program the arguments name (../mis-cuda/graph.egr), relative to HeCBench's src.
        data = [os.path.relpath((d / w).resolve(), hecbench.resolve()) for w in files if w.startswith("../")]
        if any(x.startswith("..") for x in data):
            continue
        units, err = dry_run(d, d / "Makefile")
        if not units or any(u.cwd for u in units):
            continue
        # Programs whose headers it includes with -I../other-cuda: built beside it in each variant.
        siblings = sorted({f[len("-I../"):].split("/")[0] for u in units for f in u.flags if f.startswith("-I../")})
        if any(not (hecbench / x).is_dir() for x in siblings):
            continue
        out.append({"name": d.name[: -len("-cuda")], "args": args, "siblings": siblings, "data": data,
                    "units": [{"source": u.source, "flags": [f for f in u.flags if f != "-fgpu-rdc"],
                               "rdc": "-fgpu-rdc" in u.flags} for u in units]})
    return out


def program_dir(work: Path, name: str, variant: str) -> Path:
    """Where ``variant`` of program ``name`` lives: ``src/NAME/VARIANT/prog``, its -I../ siblings and the
    files of other programs its arguments name beside it in ``src/NAME/VARIANT``."""
    return work / "src" / name / variant / "prog"


def hipify_tree(src: Path, dst: Path, hipify: Path) -> list[str]:
    """hipify-perl over every source file of ``src`` (copied to ``dst``, translated in place, one perl run);
    returns the files it left untranslated."""
    shutil.copytree(src, dst)
    files = _sources(dst)
    if not files:
        return []
    before = {p: p.read_bytes() for p in files}
    subprocess.run(["perl", str(hipify), "-inplace", "-quiet-warnings", *map(str, files)], capture_output=True,
                   timeout=600)
    for backup in dst.rglob("*.prehip"):
        backup.unlink()
    return [p.name for p in files if p.read_bytes() == before[p] and WARP.search(before[p].decode("latin-1"))]


def nvcc_argv(prog: dict, variant: str, work: Path, nvcc: str = "nvcc", arch: str = "sm_90",
              compile_only: bool = False) -> list[str]:
    """The one nvcc command that builds ``variant`` of ``prog`` (all units, the union of their kept flags)."""
    flags: list[str] = []
    for u in prog["units"]:
        for f in u["flags"]:
            f = "-Xcompiler=-fopenmp" if f == "-fopenmp" else f
            if f not in flags:
                flags.append(f)
    if "-Xcompiler=-fopenmp" in flags and not compile_only:
        flags.append("-lgomp")
    rdc = any(u["rdc"] for u in prog["units"])
    # nvcc-only options HeCBench Makefiles pass and keep_flags drops (they change what compiles, not results).
    # Every source as CUDA (HeCBench's Makefiles; hipcc compiles a port's .cpp as HIP), except an original
    # whose build compiles its .cpp files with the host compiler (``host_cpp``: cuda-samples' CMake does).
    as_cuda = [] if variant == "orig" and prog.get("host_cpp") else ["-x", "cu"]
    cmd = [nvcc, "-O3", f"-arch={arch}", *as_cuda, "--expt-relaxed-constexpr", "--extended-lambda",
           *(["-rdc=true"] if rdc else [])]
    if variant != "orig":
        cmd += [f"-I{(work / 'inc64').resolve()}", *WAVE64_NVCC_FLAGS]
    # Directories several programs share (cuda-samples' Common/), each variant its own copy under
    # shared/VARIANT: searched for headers, and the sources named from them built with the program.
    shared = work / "shared" / variant
    cmd += [f"-I{(shared / d).resolve()}" for d in prog.get("shared", [])]
    cmd += [*flags, *[u["source"] for u in prog["units"]],
            *[str((shared / s).resolve()) for s in prog.get("shared_sources", [])]]
    if compile_only:
        return [*cmd, "-c"]
    return [*cmd, "-o", "vado-main", *prog.get("libs", [])]


def prepare(args) -> None:
    from vado.knowledge.targets import get_target
    from vado.port.tree import port_tree
    from vado.verify.hip_on_cuda import cross_lane_kernels, device_printf_formats, mark_file_exits, write_include_dir

    work = Path(args.work)
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    pool = eligible(Path(args.hecbench))
    rng = random.Random(args.seed)
    chosen = sorted(rng.sample(pool, min(args.count, len(pool))), key=lambda p: p["name"])
    print(f"{len(pool)} eligible programs; seed {args.seed}: {len(chosen)} chosen", flush=True)
    for w in (32, 64):
        write_include_dir(work / f"inc{w}", w)
    target = get_target("rocm-7.2")
    hecbench = Path(args.hecbench)
    skip = shutil.ignore_patterns("*.o", "main")
    for prog in chosen:
        name = prog["name"]
        base = work / "src" / name
        # Each variant: the program and the programs it includes headers from (-I../other-cuda), copied,
        # ported by vado or translated by hipify-perl, as a user would port both directories.
        for d in [f"{name}-cuda", *prog.get("siblings", [])]:
            at = {v: program_dir(work, name, v) if d == f"{name}-cuda" else base / v / d for v in VARIANTS}
            shutil.copytree(hecbench / d, at["orig"], ignore=skip)
            port_tree(hecbench / d, at["vado"], target)
            prog.setdefault("hipify_failed", []).extend(hipify_tree(at["orig"], at["hipify"], Path(args.hipify)))
        for rel in prog.get("data", []):
            for v in VARIANTS:
                (base / v / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(hecbench / rel, base / v / rel)
        prog["kernels"] = {v: cross_lane_kernels(program_dir(work, name, v)) for v in ("vado", "hipify")}
        prog["device_printf"] = device_printf_formats(base / "orig")
        prog["clock_seeds"] = clock_seeds(base / "orig")
        for v in ("vado", "hipify"):  # as vado verify --wave 64 builds a port: its kernels count lanes that leave
            for f in _sources(base / v):
                mark_file_exits(f)
    if args.check:
        check(chosen, work, args.jobs)
    (work / "manifest.json").write_text(json.dumps({"seed": args.seed, "eligible": [p["name"] for p in pool],
                                                   "programs": chosen}, indent=1))
    size = sum(p.stat().st_size for p in work.rglob("*") if p.is_file())
    print(f"prepared {work} ({size / 1e6:.1f} MB)")


def check(chosen: list[dict], work: Path, jobs: int, variants: tuple[str, ...] = ("vado", "hipify")) -> dict:
    """``nvcc -c`` of ``variants`` here (no GPU): a header problem shows before GPU time is spent. Records
    each result in the program's ``cpu_compile`` and returns how many compiled per variant."""
    def one(item):
        prog, variant = item
        d = program_dir(work, prog["name"], variant)
        proc = subprocess.run(nvcc_argv(prog, variant, work, compile_only=True), cwd=d, capture_output=True,
                              text=True, timeout=900)
        for o in d.glob("*.o"):
            o.unlink()
        return prog["name"], variant, proc.returncode, _first_error(proc.stderr)

    items = [(p, v) for p in chosen for v in variants if not p.get("stopped", {}).get(v)]
    ok = {v: 0 for v in variants}
    with cf.ThreadPoolExecutor(jobs) as ex:
        for name, variant, rc, err in ex.map(one, items):
            prog = next(p for p in chosen if p["name"] == name)
            prog.setdefault("cpu_compile", {})[variant] = "ok" if rc == 0 else err
            ok[variant] += rc == 0
            print(f"  {name} {variant}: {'ok' if rc == 0 else 'FAIL ' + err}", flush=True)
    print("compiled here (nvcc -c): " + ", ".join(f"{v} {ok[v]}/{sum(1 for p, x in items if x == v)}" for v in variants),
          flush=True)
    return ok


def _first_error(stderr: str) -> str:
    for line in stderr.splitlines():
        if "error" in line:
            return line.strip()[:300]
    return (stderr.strip().splitlines() or [""])[-1][:300]


def _build(item):
    prog, variant, work, nvcc = item
    d = program_dir(work, prog["name"], variant)
    t = time.time()
    try:
        proc = subprocess.run(nvcc_argv(prog, variant, work, nvcc=nvcc), cwd=d, capture_output=True, text=True,
                              timeout=BUILD_TIMEOUT)
    except subprocess.TimeoutExpired:
        return prog["name"], variant, False, f"nvcc ran past {BUILD_TIMEOUT}s", time.time() - t
    return prog["name"], variant, proc.returncode == 0, _first_error(proc.stderr) if proc.returncode else "", time.time() - t


def _run(d: Path, args: str, timeout: float, preload: Path | None = None) -> dict:
    from vado.verify.sandbox import Limits, run_limited

    env = {**os.environ, "LD_PRELOAD": str(preload)} if preload else None
    outcome = run_limited([str(d / "vado-main"), *args.split()], cwd=d, env=env,
                          limits=Limits(timeout_s=timeout, cpu_s=None, memory_mb=None, file_mb=4096))
    return {"rc": outcome.returncode, "timed_out": outcome.timed_out, "stdout": outcome.stdout[-200000:],
            "stderr": outcome.stderr[-4000:], "seconds": round(outcome.duration_s, 2), "bin": str(d / "vado-main"),
            "dir": str(d)}


def _fixed_time_shim(work: Path) -> Path | None:
    """Build the ``time()`` shim (:data:`FIXED_TIME_C`) into ``work``; None where the host compiler fails."""
    src, lib = work / "vado-fixed-time.c", work / "vado-fixed-time.so"
    src.write_text(FIXED_TIME_C)
    cc = shutil.which("cc") or shutil.which("gcc") or "cc"
    try:
        proc = subprocess.run([cc, "-shared", "-fPIC", "-O2", "-o", str(lib), str(src)], capture_output=True, timeout=120)
    except (OSError, subprocess.SubprocessError):
        return None
    return lib if proc.returncode == 0 else None


#: A program's own check failing (HeCBench prints "verify = FAIL", "FAILED"): an original that prints it is no
#: baseline, and it may stop early on it (bscan breaks out of its repetitions at the first mismatch), so its run
#: time says nothing about the port's.
OWN_CHECK_FAILED = re.compile(r"\bFAIL(?:ED|URE)?\b")
OWN_CHECK_PASSED = re.compile(r"\bPASS(?:ED)?\b")


def own_check_failed(run_result: dict) -> str | None:
    """The first output line of ``run_result`` in which the program says its own check failed, or None."""
    for line in run_result["stdout"].splitlines():
        if OWN_CHECK_FAILED.search(line):
            return line.strip()[:200]
    return None


def own_check(run_result: dict) -> str:
    """What a program's own check says: "failed", "passed" (a PASS line and no FAIL line), "timed out" or "none"."""
    if run_result["timed_out"]:
        return "timed out"
    if own_check_failed(run_result):
        return "failed"
    return "passed" if OWN_CHECK_PASSED.search(run_result["stdout"]) else "none"


def compare(o1: dict, o2: dict, port: dict, rtol: float, atol: float, ignore: str = TIMING,
            device_printf: list[str] | None = None) -> dict:
    """The verdict for one port: pass, fail (with the first difference), inconclusive, or original-failed;
    output lines matching ``ignore`` (see :func:`ignored_lines`) are left out, and the lines the device
    printf formats ``device_printf`` print are compared as a multiset between host lines
    (:func:`order_device_lines`)."""
    from vado.verify.compare import Tolerance, compare_text
    from vado.verify.differential import mask_unstable, normalise

    if o1["rc"] != 0 or o1["timed_out"]:
        return {"status": "original-failed", "why": f"original exit {o1['rc']}" + (" (timeout)" if o1["timed_out"] else "")}
    if o2["rc"] != o1["rc"]:
        return {"status": "inconclusive", "why": "the original's two runs exit differently"}
    failed = own_check_failed(o1)
    if failed:  # matching a failing original proves nothing; the port's own check is reported
        return {"status": "original-failed", "why": f"the original's own check fails: {failed}",
                "port_own_check": own_check(port)}
    if port["timed_out"]:
        return {"status": "inconclusive", "why": "the port timed out (a divergent wave-wide cross-lane call)"}
    if port["rc"] != 0:
        tail = (port["stdout"].strip().splitlines()[-1:] or [""])[0] + " " + (port["stderr"].strip().splitlines()[-1:] or [""])[0]
        return {"status": "fail", "why": f"the port exits {port['rc']}: {tail.strip()[:300]}"}
    patterns = device_line_patterns(device_printf or [])
    texts = [order_device_lines(normalise(r["stdout"], r["bin"], Path(r["dir"]), Path(r["dir"])), patterns)
             for r in (o1, o2, port)]
    (ta, tb), unstable = mask_unstable(texts[0], texts[1], texts[2], ignore_lines=ignore)
    c = compare_text(ta, tb, Tolerance(rtol, atol), "stdout")
    out = {"status": "pass" if c.passed else "fail", "unstable_tokens": unstable, "summary": c.summary()}
    if not c.passed:
        out["first_difference"] = c.first[0] if c.first else {"problem": c.problem}
    return out


def run(args) -> None:
    work = Path(args.work).resolve()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    started = time.time()
    manifest = json.loads((work / "manifest.json").read_text())
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    info = {"nvcc": subprocess.run([nvcc, "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-1:],
            "gpu": subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                                  capture_output=True, text=True).stdout.strip()}
    print(info, flush=True)
    progs = manifest["programs"]
    if args.programs:
        by_name = {p["name"]: p for p in progs}
        progs = [by_name[n] for n in args.programs.split(",") if n in by_name]  # in the order given
    overrides = dict(a.split("=", 1) for a in args.args)
    for prog in progs:
        if prog["name"] in overrides:
            prog["makefile_args"], prog["args"] = prog["args"], overrides[prog["name"]]
    builds: dict = {}
    fixed_time = _fixed_time_shim(work) if any(p.get("clock_seeds") for p in progs) else None
    build_pool = cf.ThreadPoolExecutor(args.jobs)
    doc = {"seed": manifest.get("seed"), "set": manifest.get("set"), "info": info, "rtol": args.rtol, "atol": args.atol, "timeout_s": args.timeout,
           "results": []}

    def one(prog):
        # Each program is built (its three variants at once) and run as soon as it is built: a slow
        # compile holds up only its own program.
        name = prog["name"]
        b = builds[name] = {}
        # A port stopped by a finding (prepare recorded it) is neither built nor run: the finding says why.
        stopped = prog.get("stopped", {})
        todo = [v for v in VARIANTS if not stopped.get(v)]
        for _, variant, ok, err, secs in build_pool.map(_build, [(prog, v, work, nvcc) for v in todo]):
            b[variant] = {"ok": ok, "error": err, "seconds": round(secs, 1)}
        res = {"name": name, "args": prog["args"], "builds": b, "kernels": prog.get("kernels", {}),
               **{k: prog[k] for k in ("source", "tags", "cpu_compile") if k in prog}}
        if "makefile_args" in prog:
            res["makefile_args"] = prog["makefile_args"]
        if prog.get("ignore_lines"):
            res["ignore_lines"] = prog["ignore_lines"]
        def early(status: str, why: str) -> dict:
            # A port stopped by a finding stays stopped whatever became of the original.
            return {v: {"status": "stopped", "why": stopped[v]} if stopped.get(v) else {"status": status, "why": why}
                    for v in ("vado", "hipify")}

        if time.time() - started > args.deadline:
            res["status"] = early("not-run", "the run's deadline passed")
            return res
        if not b["orig"]["ok"]:
            res["status"] = early("original-build-failed", b["orig"]["error"])
            return res
        # A program seeding its input from the clock: every run gets the same time() (clock_seeds).
        pin = fixed_time if prog.get("clock_seeds") else None
        if pin is None and prog.get("clock_seeds"):
            res["status"] = early("not-run", "time() could not be pinned for a program seeding from the clock")
            return res
        if pin is not None:
            res["time_pinned"] = prog["clock_seeds"]
        o1 = _run(program_dir(work, name, "orig"), prog["args"], args.timeout, pin)
        o2 = _run(program_dir(work, name, "orig"), prog["args"], args.timeout, pin)
        res["original"] = {k: o1[k] for k in ("rc", "timed_out", "seconds")}
        res["status"] = {}
        # The emulation is slower than the hardware it stands for (a wave-wide call is a handshake through
        # shared memory, a barrier is two): the port gets 50x the original's time.
        port_timeout = min(args.timeout * 3, max(30.0, 50 * max(o1["seconds"], o2["seconds"])))
        if own_check_failed(o1):  # it may have stopped at its first mismatch: its time is no measure
            port_timeout = args.timeout * 3
        for v in ("vado", "hipify"):
            if stopped.get(v):
                res["status"][v] = {"status": "stopped", "why": stopped[v]}
                continue
            if not b[v]["ok"]:
                res["status"][v] = {"status": "build-failed", "why": b[v]["error"]}
                continue
            pr = _run(program_dir(work, name, v), prog["args"], port_timeout, pin)
            verdict = compare(o1, o2, pr, args.rtol, args.atol, ignored_lines(prog), prog.get("device_printf"))
            verdict["seconds"] = pr["seconds"]
            if pr["timed_out"] and verdict["status"] == "inconclusive" and not prog.get("kernels", {}).get(v):
                # No kernel of it makes a wave-wide call, so none can wait for a half that never comes: the
                # time went to the emulation's barriers (each a meeting of the wave's two halves).
                verdict["why"] = (f"the port ran past {port_timeout:.0f} s (the original: {o1['seconds']:.1f} s) with no "
                                  "kernel making a wave-wide cross-lane call: the emulation's cost, not a hang "
                                  "(a smaller workload, args, decides)")
            if verdict["status"] in ("fail", "inconclusive"):
                verdict["kernels"] = prog.get("kernels", {}).get(v, [])
                verdict["port_output_tail"] = (pr["stdout"][-600:] + pr["stderr"][-400:]).strip()
            res["status"][v] = verdict
        return res

    # A call's time limit (timeout's SIGTERM) cuts the run short: the programs still building or running are
    # written as cut off (none is left out of the results without a word), then the run ends.
    in_flight: dict[str, dict] = {}

    def cut_off(signum, frame):
        done = {r["name"] for r in doc["results"]}
        for name, prog in list(in_flight.items()):
            if name not in done:
                doc["results"].append({"name": name, "args": prog["args"], "builds": builds.get(name, {}),
                                       **{k: prog[k] for k in ("source", "tags") if k in prog},
                                       "status": {v: {"status": "not-run", "why": "still building or running when the call's time limit came"}
                                                  for v in ("vado", "hipify")}})
        (out / "wave64_results.json").write_text(json.dumps(doc, indent=1))
        print(f"cut off: {', '.join(sorted(set(in_flight) - done)) or 'nothing in flight'}", flush=True)
        os._exit(124)

    signal.signal(signal.SIGTERM, cut_off)

    def tracked(prog):
        in_flight[prog["name"]] = prog
        try:
            return one(prog)
        except Exception as exc:  # noqa: BLE001 - one program's harness error (a binary gone, a tool that
            # would not start) is that program's result, never the end of the run for every program after it
            return {"name": prog["name"], "args": prog["args"], "builds": builds.get(prog["name"], {}),
                    **{k: prog[k] for k in ("source", "tags") if k in prog},
                    "status": {v: {"status": "not-run", "why": f"harness error: {type(exc).__name__}: {exc}"}
                               for v in ("vado", "hipify")}}

    # Runs share one GPU: a few at a time keeps the wall time short.
    with cf.ThreadPoolExecutor(args.parallel_runs) as ex:
        for fut in cf.as_completed([ex.submit(tracked, p) for p in progs]):
            res = fut.result()
            in_flight.pop(res["name"], None)
            doc["results"].append(res)
            # Written after every program: a run cut short still leaves what it measured.
            (out / "wave64_results.json").write_text(json.dumps(doc, indent=1))
            print(f"{res['name']}: " + ", ".join(f"{v}={res['status'][v]['status']}" for v in ("vado", "hipify")),
                  flush=True)
    build_pool.shutdown()
    print(summary(doc))


def merge_results(docs: list[dict]) -> dict:
    """Several runs' results as one document: a later run's result for a program replaces an earlier one,
    except where the later run did not reach the program (its deadline passed)."""
    merged: dict = {}
    for d in docs:
        for r in d["results"]:
            if r["name"] in merged and all(r["status"][v]["status"] == "not-run" for v in ("vado", "hipify")):
                continue
            merged[r["name"]] = r
    return {**docs[0], "results": sorted(merged.values(), key=lambda r: r["name"])}


def _original_cell(r: dict) -> str:
    """What became of the original: build-failed, not-run, timed-out, exit-N or ran (exit 0)."""
    b = r.get("builds", {}).get("orig")
    if b is not None and not b["ok"]:
        return "build-failed"
    o = r.get("original")
    if o is None:
        return "not-run"
    return "timed-out" if o["timed_out"] else ("ran" if o["rc"] == 0 else f"exit-{o['rc']}")


def summary(doc: dict) -> str:
    chosen = f"set {doc['set']}" if doc.get("set") else f"seed {doc['seed']}"
    lines = [f"{chosen}; tolerance rtol={doc['rtol']} atol={doc['atol']}; timing lines ignored; "
             "pass = output equal to the original's, fail = differs, stopped = stopped before the run by a finding"]
    counts = {v: {} for v in ("vado", "hipify")}
    for r in doc["results"]:
        cells = [f"orig={_original_cell(r)}"]
        for v in ("vado", "hipify"):
            st = r["status"][v]["status"]
            counts[v][st] = counts[v].get(st, 0) + 1
            cells.append(f"{v}={st}")
        lines.append(f"  {r['name']:<28} " + "  ".join(cells))
        if r.get("time_pinned"):  # said, not hidden: every run of it got the same time()
            lines.append(f"      time() pinned in every run (its input is seeded from the clock: {r['time_pinned'][0]})")
        if r.get("ignore_lines"):  # said, not hidden: output the harness does not compare, and why
            lines.append(f"      not compared: lines matching {r['ignore_lines']['pattern']!r}: {r['ignore_lines']['why']}")
        for v in ("vado", "hipify"):
            s = r["status"][v]
            if isinstance(s, dict) and s["status"] != "pass":
                extra = s.get("why") or json.dumps(s.get("first_difference"))[:200]
                if s.get("port_own_check"):
                    extra += f"; the port's own check: {s['port_own_check']}"
                kern = f" [kernels: {', '.join(s.get('kernels', [])[:4])}]" if s.get("kernels") else ""
                lines.append(f"      {v}: {extra}{kern}")
    for v in ("vado", "hipify"):
        lines.append(f"{v}: " + ", ".join(f"{k} {n}" for k, n in sorted(counts[v].items())) + f" (of {len(doc['results'])})")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("prepare")
    p.add_argument("--hecbench", default="/work/hecbench/src")
    p.add_argument("--hipify", default="/work/hipify/hipify-perl")
    p.add_argument("--work", default=str(ROOT / ".gpu-work"))
    p.add_argument("--seed", type=int, default=15)
    p.add_argument("--count", type=int, default=32)
    p.add_argument("--check", action="store_true", help="nvcc -c both ports here")
    p.add_argument("--jobs", type=int, default=2)
    r = sub.add_parser("run")
    r.add_argument("--work", default=str(ROOT / ".gpu-work"))
    r.add_argument("--out", default=os.environ.get("OUT", "."))
    r.add_argument("--jobs", type=int, default=16)
    r.add_argument("--parallel-runs", type=int, default=6)
    r.add_argument("--timeout", type=float, default=45.0)
    r.add_argument("--deadline", type=float, default=480.0, help="seconds after which no new program starts")
    r.add_argument("--programs", default="", help="comma-separated names, run in this order (default: every program of the manifest)")
    r.add_argument("--args", action="append", default=[], metavar="NAME=ARGS",
                   help="run NAME with ARGS instead of its Makefile's (a smaller workload where the emulation, "
                        "slower than the hardware, would time out); recorded in the results")
    r.add_argument("--rtol", type=float, default=1e-3)
    r.add_argument("--atol", type=float, default=1e-5)
    s = sub.add_parser("report")
    s.add_argument("results", nargs="+", help="wave64_results.json files (later ones replace programs of earlier ones, except "
                        "where a later run did not reach the program)")
    a = ap.parse_args()
    if a.cmd == "prepare":
        prepare(a)
    elif a.cmd == "run":
        run(a)
    else:
        docs = [json.loads(Path(p).read_text()) for p in a.results]
        print(summary(merge_results(docs)))


if __name__ == "__main__":
    main()
