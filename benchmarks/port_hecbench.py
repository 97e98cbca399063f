"""Port HeCBench's -cuda programs with vado and compile them with ROCm 7.2.4 for gfx942 beside two peers.

Usage::

    python benchmarks/port_hecbench.py --hecbench /work/hecbench/src --sample 150 --seed 1 --jobs 2 \\
        [--hipcc PATH] [--arch gfx942] [--target rocm-7.2] [--variants vado,hand,hipify] \\
        [--timeout 120] [--json out.json] [--mirror GITDIR] [--work DIR] [--cache DIR] [--hipify-perl PATH] \\
        [--throughput-repeat 3] [--scratch DIR] [--throughput-only]

For a seeded random sample of the programs that have both an ``X-cuda`` and an
``X-hip`` directory, three variants are compiled, all three with the same hipcc
(``--hipcc``; by default ``$VADO_HIPCC``, else ROCm 7.2.4's
``/var/cache/vado/rocm-7.2.4/bin/hipcc`` where it exists, else ``hipcc`` on PATH)
for the same architecture (``--arch``, gfx942 = MI300X by default):

* **vado**: ``vado.port.tree.port_tree(X-cuda, out, get_target("rocm-7.2"))``, what
  a new user's ``vado port X-cuda -o out`` does (default options, the default
  target; ``--target`` names another profile).
* **hand-written**: HeCBench's own ``X-hip`` twin.
* **hipify-perl**: HIPIFY's ``bin/hipify-perl`` run over every C-family file of a copy of ``X-cuda``.

The report's header prints the compiler's ``--version`` (HIP and clang versions).
The build method is the same for all three and is described in
``benchmarks/hecbench_build.py``: the Makefile's dry run (``make -n -B``) names the
translation units and their flags (the ``-cuda`` Makefile for vado and hipify-perl,
the ``-hip`` Makefile for the hand-written twin); every unit is compiled with
``HIP_PLATFORM=amd HIPCC --offload-arch=ARCH -x hip -c`` and the portable flags
(include dirs, macros, language standard, optimisation). Device code is generated;
nothing is linked. A program counts as compiled when all its units compile. The
variants are compiled one after the other (every vado build first), and the report
gives the three counts and, for every program that fails in any variant, the first
error line of each variant that failed.

Third-party headers some programs include (Boost, OpenMP, OpenMPI, GSL, bzip2) are
not ROCm's; ``scripts/rocm-toolchain.sh --bench-libs`` installs them in the chroot, the
header lists which are there, and a program that needs a missing one fails alike in
every variant. ``--make-var`` gives every variant's ``make -n`` the same site settings
(by default ``MPI_ROOT`` at Debian's OpenMPI, where HeCBench's CUDA Makefiles name
NVIDIA's HPC SDK and the twins Debian's).

With ``--cache DIR`` each variant's result per program is kept under a key made of
the compiler's ``--version``, the architecture, the units and flags, and a digest of
the files the compile reads (see ``hecbench_build.build_variant``), so a re-run
after a change to vado compiles only the programs whose port changed; the
hand-written and hipify-perl results come from the cache. A cached failure compiled
with other third-party libraries than those present now is compiled again.

The checkout may hold only the ``-cuda`` and ``-hip`` directories, while some
programs read ``../include`` or a ``-sycl`` sibling; ``--mirror`` names a git
repository of HeCBench from which such siblings are extracted (``src/NAME`` at HEAD).
Siblings are copied (hard links where possible) into each variant's directory, not
symlinked: a compiler run in a chroot (the ROCm 7.2.4 wrapper) sees only the
directories it is given, and a symlink out of them would not resolve. A CUDA
sibling (``../Y-cuda``, whose headers some programs include) is translated for
the vado and hipify-perl variants by the same tool, as a port of the whole tree
would; the hand-written twin reads its own siblings (``../Y-hip``) as they are.

Port throughput is the bytes of the files vado ported (sources, headers and build
files) divided by the wall time of porting the sample on ``--jobs`` worker processes,
one program per task, largest programs first. It is measured ``--throughput-repeat``
times (best run reported, every run printed), each time on fresh workers made ready as
``vado port --jobs N`` readies its own (``vado.port.tree.preload``, one port of the
bundled example, ``gc.freeze``), with the ports written under ``--scratch`` (``/dev/shm``
by default: the figure is vado's work, not this machine's disk). What a fresh worker
needs to get ready is printed beside it, and so is the porting phase that writes the
ports the compiles use (into the work directory). ``--throughput-only`` skips the
compiles (no hipcc needed).
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import hecbench_build as hb  # noqa: E402

#: File names hipify-perl is run over (hipconvertinplace-perl.sh's list).
HIPIFY_EXTS = (".cu", ".cuh", ".cpp", ".cxx", ".cc", ".c", ".h", ".hpp", ".hxx", ".inl")
VARIANTS = ("vado", "hand", "hipify")
VARIANT_TITLES = {"vado": "vado", "hand": "hand-written -hip", "hipify": "hipify-perl"}
#: ROCm 7.2.4's hipcc as ``scripts/rocm-toolchain.sh`` installs it (a chroot wrapper).
ROCM_HIPCC = Path("/var/cache/vado/rocm-7.2.4/bin/hipcc")
_SIBLING_RE = re.compile(rb"\.\./([A-Za-z0-9_.+-]+)")
#: The small tree each worker ports once before it is timed (vado's bundled example).
EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "vecops"


def programs_with_twins(root: Path) -> list[str]:
    """Names ``X`` with both ``root/X-cuda`` and ``root/X-hip`` directories, sorted."""
    names = []
    for entry in sorted(os.listdir(root)):
        if entry.endswith("-cuda") and (root / entry).is_dir():
            name = entry[: -len("-cuda")]
            if (root / f"{name}-hip").is_dir():
                names.append(name)
    return names


def choose_sample(names: list[str], size: int, seed: int) -> list[str]:
    """A seeded random sample of ``size`` names (all of them when ``size`` is 0 or too big), sorted."""
    if size <= 0 or size >= len(names):
        return list(names)
    return sorted(random.Random(seed).sample(sorted(names), size))


def referenced_siblings(dirs: list[Path], own: set[str]) -> set[str]:
    """Names ``N`` that the files under ``dirs`` refer to as ``../N`` (other than ``own``)."""
    found: set[str] = set()
    for d in dirs:
        for p in d.rglob("*"):
            if p.is_file() and p.stat().st_size < 4_000_000:
                try:
                    data = p.read_bytes()
                except OSError:
                    continue
                for m in _SIBLING_RE.finditer(data):
                    name = m.group(1).decode("latin-1").rstrip(".")
                    if name and name not in own and name not in {".", ".."}:
                        found.add(name)
    return found


@dataclass
class Layout:
    """Where the inputs are and where the variants go."""

    hecbench: Path
    work: Path
    mirror: Path | None
    #: vado's target for ported siblings ('' for vado's default) and hipify-perl's path.
    target_name: str = ""
    hipify_perl: Path | None = None

    def sibling_source(self, name: str) -> Path | None:
        """A directory for sibling ``name``: the checkout's, or one extracted from the mirror."""
        here = self.hecbench / name
        if here.exists():
            return here
        if self.mirror is None:
            return None
        cache = self.work / "_siblings"
        target = cache / name
        if target.exists():
            return target if any(target.iterdir()) else None
        target.mkdir(parents=True)
        archive = subprocess.run(["git", f"--git-dir={self.mirror}", "archive", "HEAD", f"src/{name}"],
                                 capture_output=True)
        if not archive.stdout:
            # A partial mirror can miss some blobs (data files kept out of git): git archive then
            # reports an error but still writes the files it has, which is what a build reads.
            return None
        subprocess.run(["tar", "-x", "--strip-components=2", "-C", str(target)], input=archive.stdout, check=False)
        return target if any(target.iterdir()) else None

    def link_siblings(self, variant_root: Path, names: set[str], variant: str = "") -> list[Path]:
        """Make ``../NAME`` resolve inside ``variant_root`` for every referenced sibling that exists;
        the sibling directories.

        A sibling is copied (hard-linked where possible: see the module docstring), except a
        CUDA sibling (``NAME-cuda``, whose headers a program includes) of the ``vado`` and
        ``hipify`` variants: it is translated by the same tool as the program itself, as it
        would be when the whole tree is ported.
        """
        found = []
        for name in sorted(names):
            dst = variant_root / name
            if not (dst.exists() or dst.is_symlink()):
                src = self.sibling_source(name)
                if src is None:
                    continue
                if name.endswith("-cuda") and variant == "vado":
                    port_with_vado(str(src), str(dst), self.target_name)
                elif name.endswith("-cuda") and variant == "hipify" and self.hipify_perl is not None:
                    port_with_hipify(str(self.hipify_perl), str(src), str(dst))
                else:
                    link_copy(src, dst)
            found.append(dst)
        return found


def _link_or_copy(src: str, dst: str) -> None:
    """Hard-link ``src`` to ``dst``, or copy it where a link cannot be made (another file system)."""
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


def link_copy(src: Path, dst: Path) -> None:
    """Copy the tree ``src`` to ``dst`` with hard links (a real copy of what cannot be linked)."""
    shutil.copytree(src.resolve(), dst, symlinks=True, copy_function=_link_or_copy)


# ---------------------------------------------------------------- porting (worker processes)

def _warm(example: str = "", target_name: str = "") -> None:
    """Get one worker ready to port: what ``vado port --jobs N`` does before it forks its
    workers (``vado.port.tree.preload``, then ``gc.freeze``), plus one port of ``example``
    so that lazily built tables and caches exist before the clock starts."""
    import gc

    from vado.knowledge.targets import DEFAULT_TARGET, get_target
    from vado.port.tree import port_tree, preload

    target = get_target(target_name or DEFAULT_TARGET)
    preload(target)
    if example:
        scratch = tempfile.mkdtemp(prefix="port_hecbench-warm-")
        try:
            port_tree(example, os.path.join(scratch, "out"), target)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    gc.freeze()


def port_with_vado(src: str, out: str, target_name: str = "") -> dict:
    """Port one ``-cuda`` dir with vado as the default ``vado port SRC -o OUT`` does (for ``target_name``,
    vado's default target when empty); bytes, seconds, failed files, open findings."""
    from vado.knowledge.targets import DEFAULT_TARGET, get_target
    from vado.port.tree import port_tree

    started = time.perf_counter()
    try:
        result = port_tree(src, out, get_target(target_name or DEFAULT_TARGET))
    except Exception as exc:  # a crash of the tool is a measured outcome, not a benchmark failure
        return {"bytes": 0, "seconds": time.perf_counter() - started, "crash": f"{type(exc).__name__}: {exc}",
                "failed_files": [], "remaining": {}}
    remaining = Counter(f.code for f in result.remaining)
    return {
        "bytes": result.bytes_ported,
        "seconds": time.perf_counter() - started,
        "crash": "",
        "failed_files": [f"{f.path}: {f.error}" for f in result.files if f.status == "failed"],
        "remaining": dict(remaining),
    }


def port_with_hipify(perl: str, src: str, out: str) -> dict:
    """Copy one ``-cuda`` dir to ``out`` and run hipify-perl over its C-family files."""
    started = time.perf_counter()
    shutil.copytree(src, out, symlinks=True)
    total = 0
    failed = []
    for p in sorted(Path(out).rglob("*")):
        if p.is_file() and p.suffix in HIPIFY_EXTS:
            total += p.stat().st_size
            proc = subprocess.run(["perl", perl, "-quiet-warnings", str(p)], capture_output=True)
            if proc.returncode == 0 and proc.stdout:
                p.write_bytes(proc.stdout)
            elif proc.returncode != 0:
                failed.append(f"{p.name}: {proc.stderr.decode('latin-1')[:200]}")
    return {"bytes": total, "seconds": time.perf_counter() - started, "failed_files": failed}


def _run_pool(jobs: int, fn, argsets: list[tuple], sizes: list[int] | None = None,
              warm=None) -> tuple[list, float]:
    """Run ``fn`` over ``argsets`` on ``jobs`` processes (each warmed up first with ``warm``);
    results in ``argsets`` order and the wall seconds of the work alone.

    With ``sizes``, the biggest tasks are submitted first, so that no worker is left
    with a big one at the end (the order ``vado audit`` uses for its chunks).
    """
    order = sorted(range(len(argsets)), key=lambda k: -sizes[k]) if sizes else list(range(len(argsets)))
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        list(pool.map(_warm_n, [warm] * jobs))
        started = time.perf_counter()
        futures = {k: pool.submit(fn, *argsets[k]) for k in order}
        results = [futures[k].result() for k in range(len(argsets))]
        return results, time.perf_counter() - started


def _warm_n(warm) -> None:
    if warm is not None:
        warm()
    time.sleep(0.2)  # keep this worker busy so the other one gets a warm-up task too


def tree_bytes(path: Path) -> int:
    """Bytes of the regular files under ``path`` (symlinks not followed)."""
    total = 0
    for dirpath, _dirs, files in os.walk(path):
        for f in files:
            p = os.path.join(dirpath, f)
            if not os.path.islink(p):
                total += os.path.getsize(p)
    return total


def _default_scratch() -> Path | None:
    """A RAM-backed directory for the throughput runs, when the machine has one."""
    shm = Path("/dev/shm")
    return shm if shm.is_dir() and os.access(shm, os.W_OK) else None


def _fresh_start(example: str, target_name: str = "") -> float:
    """Seconds a fresh process takes to be ready to port (imports, tables, rename map, one tiny port)."""
    code = ("import sys, time; t = time.perf_counter(); sys.path.insert(0, sys.argv[1]); "
            "import port_hecbench as ph; ph._warm(sys.argv[2], sys.argv[3]); print(time.perf_counter() - t)")
    proc = subprocess.run([sys.executable, "-c", code, str(Path(__file__).resolve().parent), example, target_name],
                          capture_output=True, text=True)
    try:
        return float(proc.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return float("nan")


def speed_check() -> float:
    """Seconds of a fixed pure-Python loop: how fast this (shared) machine runs Python right now.

    Printed beside the throughput so that runs on a busy machine can be told from slow code.
    """
    started = time.perf_counter()
    total = 0
    for i in range(6_000_000):
        total += i * i
    return time.perf_counter() - started


def measure_throughput(hecbench: Path, sample: list[str], jobs: int, repeat: int, scratch: Path | None,
                       example: str, target_name: str = "") -> dict:
    """Port the sample ``repeat`` times into ``scratch`` on warmed workers; every run's seconds."""
    argsets_dirs = [str(hecbench / f"{n}-cuda") for n in sample]
    sizes = [tree_bytes(Path(d)) for d in argsets_dirs]
    runs = []
    nbytes = 0
    for _ in range(max(1, repeat)):
        base = Path(tempfile.mkdtemp(prefix="port_hecbench-tp-", dir=str(scratch) if scratch else None))
        try:
            argsets = [(d, str(base / n), target_name) for d, n in zip(argsets_dirs, sample)]
            results, wall = _run_pool(jobs, port_with_vado, argsets, sizes,
                                      functools.partial(_warm, example, target_name))
        finally:
            shutil.rmtree(base, ignore_errors=True)
        nbytes = sum(r["bytes"] for r in results)
        runs.append(wall)
    return {"bytes": nbytes, "runs_s": runs, "best_s": min(runs), "scratch": str(scratch or tempfile.gettempdir()),
            "fresh_start_s": _fresh_start(example, target_name), "speed_check_s": speed_check()}


def print_throughput(tp: dict | None, jobs: int, work_phase: tuple[float, float, str] | None) -> None:
    """The throughput lines: the best warm run into the scratch directory, every run, a fresh
    worker's start-up, and (when given) the porting phase into the work directory."""
    cores = os.cpu_count()
    print()
    if tp is not None:
        mb = tp["bytes"] / 1e6
        runs = ", ".join(f"{r:.2f}" for r in tp["runs_s"])
        print(f"vado port throughput: {mb:.2f} MB in {tp['best_s']:.2f} s = {mb / tp['best_s']:.1f} MB/s on {jobs} "
              f"worker processes ({cores} cores on this machine, shared)")
        print(f"  best of {len(tp['runs_s'])} runs ({runs} s), each on freshly started workers made ready the way "
              f"`vado port --jobs N` readies its own (rules, tables and rename map loaded, one small port, gc.freeze);")
        print(f"  ports written under {tp['scratch']}; largest programs submitted first")
        print(f"  a fresh worker needs {tp['fresh_start_s']:.2f} s to get ready (once per process, not in the figure)")
        print(f"  machine speed check: a fixed pure-Python loop took {tp['speed_check_s']:.2f} s "
              f"(lower is faster; it varies with the load on a shared machine)")
    if work_phase is not None:
        nbytes, wall, where = work_phase
        mbps = nbytes / 1e6 / wall if wall else 0.0
        print(f"  the porting phase for the compiles, into {where}: {nbytes / 1e6:.2f} MB in {wall:.2f} s = {mbps:.1f} MB/s")


# ---------------------------------------------------------------- driver

def prepare(layout: Layout, name: str, variants: tuple[str, ...] = VARIANTS) -> dict[str, tuple[Path, Path, list[Path]]]:
    """Sibling copies for each variant; returns variant -> (program dir, Makefile, dirs to digest).

    The dirs to digest are every directory the variant's compile may read: its own tree
    (vado's port and hipify-perl's translation once they are written) and its siblings.
    """
    cuda, hip = layout.hecbench / f"{name}-cuda", layout.hecbench / f"{name}-hip"
    base = layout.work / name
    own = {f"{name}-cuda", f"{name}-hip"}
    sibs = referenced_siblings([cuda, hip], own)
    hand_root = base / "hand"
    hand_root.mkdir(parents=True, exist_ok=True)
    if not (hand_root / hip.name).exists():
        shutil.copytree(hip, hand_root / hip.name, symlinks=True)
    if not (hand_root / cuda.name).exists():
        link_copy(cuda, hand_root / cuda.name)  # the twin reads ../X-cuda (references, data) in places
    siblings = {}
    for variant in VARIANTS:
        root = base / variant
        root.mkdir(parents=True, exist_ok=True)
        siblings[variant] = layout.link_siblings(root, sibs, variant) if variant in variants else []
    return {
        "vado": (base / "vado" / cuda.name, cuda / "Makefile", [base / "vado" / cuda.name, *siblings["vado"]]),
        "hipify": (base / "hipify" / cuda.name, cuda / "Makefile", [base / "hipify" / cuda.name, *siblings["hipify"]]),
        "hand": (hand_root / hip.name, hip / "Makefile", [hand_root / hip.name, hand_root / cuda.name, *siblings["hand"]]),
    }


def default_hipcc() -> str:
    """``$VADO_HIPCC``, else ROCm 7.2.4's hipcc where it is installed, else ``hipcc`` on PATH."""
    env = os.environ.get("VADO_HIPCC", "").strip()
    if env:
        return env
    if ROCM_HIPCC.is_file():
        return str(ROCM_HIPCC)
    return "hipcc"


def resolve_hipcc(name: str) -> str | None:
    """The path of the compiler ``name`` (a path, or a command on PATH); None when there is none."""
    if os.sep in name:
        return name if os.path.isfile(name) and os.access(name, os.X_OK) else None
    return shutil.which(name)


def failure_table(sample: list[str], variants: list[str], outcomes: dict) -> list[dict]:
    """One row per program that fails in any variant: its name and, per variant, ``ok`` or
    the failure class and first error line."""
    rows = []
    for n in sample:
        if all(outcomes[(n, v)].ok for v in variants):
            continue
        row = {"program": n}
        for v in variants:
            r = outcomes[(n, v)]
            row[v] = {"ok": True} if r.ok else {"ok": False, "class": r.failure_class, "first_error": r.first_error}
        rows.append(row)
    return rows


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print the report; 0 on success, 2 on bad arguments."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hecbench", required=True, type=Path, help="HeCBench's src/ directory")
    ap.add_argument("--sample", type=int, default=150, help="how many programs (0: all with a -hip twin)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=120, help="seconds per translation unit")
    ap.add_argument("--json", type=Path, help="write per-program results here")
    ap.add_argument("--mirror", type=Path, help="a HeCBench git dir to take missing ../NAME siblings from")
    ap.add_argument("--work", type=Path, help="scratch directory (default: a temporary one, removed)")
    ap.add_argument("--cache", type=Path,
                    help="cache each variant's compile result here (keyed by compiler, arch, flags and the files' digest)")
    ap.add_argument("--hipcc", default=None,
                    help=f"the compiler for all three variants (default: $VADO_HIPCC, else {ROCM_HIPCC} if it exists, "
                         "else hipcc on PATH)")
    ap.add_argument("--arch", default=hb.DEFAULT_ARCH, help=f"offload architecture (default {hb.DEFAULT_ARCH})")
    ap.add_argument("--make-var", action="append", metavar="NAME=VALUE",
                    help="a make variable for every variant's dry run, overriding the Makefile's (repeatable; "
                         f"default: {' '.join(hb.DEFAULT_MAKE_VARS)}; give --make-var '' for none)")
    ap.add_argument("--target", default=None, help="vado's target profile for the port (default: vado's default, rocm-7.2)")
    ap.add_argument("--hipify-perl", type=Path, default=Path(shutil.which("hipify-perl") or "hipify-perl"),
                    help="path of hipify-perl (default: the one on PATH)")
    ap.add_argument("--full", action="store_true", help="compile host and device halves (default: device half)")
    ap.add_argument("--programs", help="comma-separated names instead of a random sample")
    ap.add_argument("--variants", default=",".join(VARIANTS),
                    help="comma-separated variants to build, of vado,hand,hipify (default all)")
    ap.add_argument("--throughput-repeat", type=int, default=3,
                    help="port the sample this many more times for the throughput, best run reported (0: skip)")
    ap.add_argument("--scratch", type=Path, default=_default_scratch(),
                    help="where the throughput runs write their ports (default /dev/shm: the port, not the disk)")
    ap.add_argument("--throughput-only", action="store_true", help="measure the throughput only: no compiles")
    args = ap.parse_args(argv)

    if not args.hecbench.is_dir():
        print(f"error: --hecbench {args.hecbench} is not a directory", file=sys.stderr)
        return 2
    variants = [v for v in args.variants.split(",") if v]
    if not variants or any(v not in VARIANTS for v in variants) or len(set(variants)) != len(variants):
        print(f"error: --variants takes a comma-separated list of {', '.join(VARIANTS)}", file=sys.stderr)
        return 2
    if not re.fullmatch(r"gfx[0-9a-f]+(:[a-z0-9+-]+)*", args.arch):
        print(f"error: --arch {args.arch!r} is not an AMD GPU architecture such as gfx942", file=sys.stderr)
        return 2
    from vado.errors import VadoError
    from vado.knowledge.targets import DEFAULT_TARGET, get_target

    target_name = args.target or DEFAULT_TARGET
    try:
        target = get_target(target_name)
    except VadoError as exc:
        print(f"error: --target {target_name}: {exc.what}" + (f" ({exc.why})" if exc.why else ""), file=sys.stderr)
        return 2
    if target.family != "rocm":
        print(f"error: --target {target_name} is a {target.family} target; vado port writes HIP code", file=sys.stderr)
        return 2
    if args.throughput_only:
        variants = ["vado"]
    order = [v for v in VARIANTS if v in variants]  # vado first: its results are the ones awaited
    if "hipify" in variants and not args.hipify_perl.is_file():
        print(f"error: hipify-perl not found at {args.hipify_perl} (pass --hipify-perl)", file=sys.stderr)
        return 2
    hipcc = compiler = ""
    libraries: dict[str, str] = {}
    if not args.throughput_only:
        wanted = args.hipcc or default_hipcc()
        hipcc = resolve_hipcc(wanted) or ""
        if not hipcc:
            print(f"error: hipcc not found: {wanted} (pass --hipcc PATH or set VADO_HIPCC)", file=sys.stderr)
            return 2
        try:
            compiler = hb.compiler_version(hipcc)
        except RuntimeError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        libraries = hb.library_environment(hipcc)
    make_vars = tuple(v for v in (hb.DEFAULT_MAKE_VARS if args.make_var is None else args.make_var) if v)
    bad = [v for v in make_vars if not re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", v)]
    if bad:
        print(f"error: --make-var takes NAME=VALUE, not {bad[0]!r}", file=sys.stderr)
        return 2
    names = programs_with_twins(args.hecbench)
    if args.programs:
        asked = [n for n in args.programs.split(",") if n]
        unknown = [n for n in asked if n not in names]
        if unknown:
            print(f"error: --programs names no program with both -cuda and -hip twins: {', '.join(unknown)}",
                  file=sys.stderr)
            return 2
        sample = asked
    else:
        sample = choose_sample(names, args.sample, args.seed)
    own_work = args.work is None
    work = Path(tempfile.mkdtemp(prefix="port_hecbench-")) if own_work else args.work
    if not own_work and work.exists() and any(p for p in work.iterdir() if p.name not in {"_siblings"}):
        print(f"error: --work {work} is not empty", file=sys.stderr)
        return 2
    work.mkdir(parents=True, exist_ok=True)
    layout = Layout(args.hecbench.resolve(), work.resolve(), args.mirror, target_name,
                    args.hipify_perl if "hipify" in variants else None)
    jobs = max(1, args.jobs)
    titles = dict(VARIANT_TITLES, vado=f"vado ({target_name})")

    print(f"HeCBench at {args.hecbench}: {len(names)} programs have both -cuda and -hip twins")
    print(f"sample: {len(sample)} programs, seed {args.seed}" + (" (named with --programs)" if args.programs else ""))
    print("  " + " ".join(sample))
    print(f"vado ports with port_tree(X-cuda, out, get_target({target_name!r})), as `vado port X-cuda -o out`"
          + (" does by default" if target_name == DEFAULT_TARGET else f" --target {target_name} does"))
    if not args.throughput_only:
        half = "" if args.full else " --cuda-device-only"
        print(f"compiler (all variants): {hipcc}")
        print(f"  {hb.version_summary(compiler)}")
        have = [f"{hb.BENCH_LIBRARIES[p]} {v}" for p, v in libraries.items() if v]
        lack = [hb.BENCH_LIBRARIES[p] for p, v in libraries.items() if not v]
        print("third-party headers where it compiles: " + (", ".join(have) or "none")
              + (f"; lacking {', '.join(lack)} (scripts/rocm-toolchain.sh --bench-libs installs them)" if lack else ""))
        if make_vars:
            print(f"make variables (every variant): {' '.join(make_vars)}")
        print(f"build: HIP_PLATFORM=amd hipcc --offload-arch={args.arch}{half} -x hip -c UNIT + the Makefile's "
              "-I/-D/-std/-O flags,")
        print("  units and flags from `make -n -B` (-cuda Makefile for vado and hipify-perl, -hip Makefile for the twin);")
        print("  device code is generated, nothing is linked; a program compiles when all its units do."
              + ("" if args.full else "\n  (device half of -c: host code is parsed and checked but no host object is made; --full for both)"))
        if args.cache:
            print(f"cache: {args.cache} (keyed by compiler version, arch, units and flags, and the files' digest)")
    sys.stdout.flush()

    example = str(EXAMPLE) if EXAMPLE.is_dir() else ""
    throughput = None
    if args.throughput_only:
        throughput = measure_throughput(args.hecbench, sample, jobs, args.throughput_repeat or 1, args.scratch, example,
                                        target_name)
        print_throughput(throughput, jobs, None)
        if own_work:
            shutil.rmtree(work, ignore_errors=True)
        if args.json:
            args.json.write_text(json.dumps({"seed": args.seed, "sample": sample, "jobs": jobs, "target": target_name,
                                             "throughput": throughput}, indent=1, sort_keys=True))
        return 0

    plans = {n: prepare(layout, n, tuple(order)) for n in sample}
    port_info: dict[str, dict] = {}
    outcomes: dict[tuple[str, str], hb.BuildResult] = {}
    vado_wall = vado_bytes = 0.0
    hip_wall = hip_bytes = 0.0
    build_wall = 0.0
    ntasks = len(sample) * len(order)

    def build(task):
        n, v = task
        prog, makefile, digest = plans[n][v]
        return task, hb.build_variant(prog, makefile, layout.work / n / f"{v}.objs", args.timeout, args.cache, digest,
                                        arch=args.arch, full=args.full, hipcc=hipcc, compiler=compiler,
                                        make_vars=make_vars, libraries=libraries)

    for v in order:
        if v == "vado":
            argsets = [(str(args.hecbench / f"{n}-cuda"), str(plans[n]["vado"][0]), target_name) for n in sample]
            sizes = [tree_bytes(args.hecbench / f"{n}-cuda") for n in sample]
            results, vado_wall = _run_pool(jobs, port_with_vado, argsets, sizes,
                                           functools.partial(_warm, example, target_name))
            port_info["vado"] = dict(zip(sample, results))
            vado_bytes = sum(r["bytes"] for r in results)
        elif v == "hipify":
            argsets = [(str(args.hipify_perl), str(args.hecbench / f"{n}-cuda"), str(plans[n]["hipify"][0]))
                       for n in sample]
            results, hip_wall = _run_pool(jobs, port_with_hipify, argsets)
            port_info["hipify"] = dict(zip(sample, results))
            hip_bytes = sum(r["bytes"] for r in results)
        started = time.perf_counter()
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            for (task, res) in pool.map(build, [(n, v) for n in sample]):
                outcomes[task] = res
                # Progress goes to stderr so a long run can be followed (and stdout stays the report).
                state = "ok" if res.ok else f"FAIL [{res.failure_class}] {res.first_error[:200]}"
                cached = " (cached)" if "cached" in res.note else ""
                print(f"[{len(outcomes)}/{ntasks}] {task[0]} {task[1]}: {state}{cached}", file=sys.stderr, flush=True)
        build_wall += time.perf_counter() - started
    if "vado" in order and args.throughput_repeat > 0:
        throughput = measure_throughput(args.hecbench, sample, jobs, args.throughput_repeat, args.scratch, example,
                                        target_name)

    counts = {v: sum(outcomes[(n, v)].ok for n in sample) for v in order}
    from_cache = {v: sum("cached" in outcomes[(n, v)].note for n in sample) for v in order}
    print()
    print(f"compiled with {hb.version_summary(compiler)} for {args.arch} (of {len(sample)}, seed {args.seed}):")
    for v in order:
        print(f"  {titles[v]:<20} {counts[v]:>4}/{len(sample)}   ({from_cache[v]} results from the cache)")
    print(f"  (build phase {build_wall:.0f} s on {jobs} jobs)")

    for v in order:
        classes = Counter(outcomes[(n, v)].failure_class for n in sample if not outcomes[(n, v)].ok)
        if classes:
            print(f"failures of {titles[v]} by class: " + ", ".join(f"{c} {k}" for k, c in classes.most_common()))
    table = failure_table(sample, order, outcomes)
    print(f"\nprograms that fail in any variant ({len(table)}), first error per variant:")
    for row in table:
        print(f"  {row['program']}")
        for v in order:
            cell = row[v]
            print(f"    {v:<7} " + ("ok" if cell["ok"] else f"[{cell['class']}] {cell['first_error']}"))
    if "vado" in order and "hand" in order:
        lost = [n for n in sample if outcomes[(n, "hand")].ok and not outcomes[(n, "vado")].ok]
        print(f"\nhand-written twin compiles but vado's port does not ({len(lost)}): " + " ".join(lost))
        won = [n for n in sample if not outcomes[(n, "hand")].ok and outcomes[(n, "vado")].ok]
        print(f"vado's port compiles but the hand-written twin does not ({len(won)}): " + " ".join(won))
    if "vado" in order:
        print_throughput(throughput, jobs, (vado_bytes, vado_wall, str(work)))
        crashes = [(n, r["crash"]) for n, r in port_info["vado"].items() if r["crash"] or r["failed_files"]]
        for n, why in crashes:
            print(f"  port problem in {n}: {why or port_info['vado'][n]['failed_files']}")
    if "hipify" in order:
        mbps = hip_bytes / 1e6 / hip_wall if hip_wall else 0.0
        print(f"hipify-perl throughput: {hip_bytes / 1e6:.2f} MB in {hip_wall:.2f} s = {mbps:.1f} MB/s "
              f"on {jobs} worker processes (one perl process per file)")

    if args.json:
        data = {
            "seed": args.seed,
            "sample": sample,
            "sample_size": len(sample),
            "variants": order,
            "target": target_name,
            "arch": args.arch,
            "full": args.full,
            "compiler": {"path": hipcc, "version": compiler, "summary": hb.version_summary(compiler)},
            "libraries": libraries,
            "make_vars": list(make_vars),
            "counts": counts,
            "from_cache": from_cache,
            "jobs": jobs,
            "timeout_s": args.timeout,
            "build_wall_s": build_wall,
            "failures": table,
            "vado_port": {"bytes": vado_bytes, "wall_s": vado_wall, "throughput": throughput},
            "hipify_port": {"bytes": hip_bytes, "wall_s": hip_wall},
            "programs": {
                n: {v: dict(outcomes[(n, v)].to_json(), **({"port": port_info[v][n]} if v in port_info else {}))
                    for v in order}
                for n in sample
            },
        }
        args.json.write_text(json.dumps(data, indent=1, sort_keys=True))
        logs = args.json.with_suffix(".logs")
        logs.mkdir(exist_ok=True)
        for (n, v), r in outcomes.items():
            if not r.ok and r.output:
                (logs / f"{n}.{v}.txt").write_text(r.output)
    if own_work:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
