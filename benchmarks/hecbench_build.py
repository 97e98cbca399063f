"""Building one HeCBench program variant for gfx90a: read the Makefile, compile every unit.

The one build method used for all three variants (vado's port, the hand-written
``-hip`` twin, hipify-perl's translation):

1. ``make -n -B`` in the variant's directory prints the commands its own Makefile
   would run, with every variable, ``ifeq`` and pattern rule already expanded.
   The ``-cuda`` Makefile is read for vado's port and hipify-perl's translation
   (hipify-perl does not touch Makefiles, and both start from the same tree);
   the ``-hip`` Makefile is read for the hand-written twin.
2. Every command that compiles a translation unit (a ``.cu``/``.hip``/``.cpp``/
   ``.cc``/``.cxx``/``.c`` argument) gives one unit. Of its flags only the
   portable ones are kept, the same list for nvcc and hipcc command lines:
   ``-I``/``-isystem``/``-D``/``-U``/``-include``/``-std=``/``-O``/``-g``/``-fopenmp``
   and relocatable device code (``-rdc=true``/``-dc`` → ``-fgpu-rdc``). nvcc-only
   flags (``-arch``, ``-Xcompiler``, ``--use_fast_math``, ``-Xptxas``, …), link
   flags and include paths into a CUDA installation are dropped.
3. Each unit is compiled with
   ``HIP_PLATFORM=amd hipcc --offload-arch=gfx90a -x hip -c UNIT -o OBJ`` plus
   those flags (``.c`` files without ``-x hip``, as hipcc itself would). Device
   code is generated (this is not ``-fsyntax-only``); nothing is linked. By
   default the device half only (``--cuda-device-only``): clang still parses and
   checks the host code in that pass, it just does not generate the host object,
   which halves the time on a 2-core machine; ``full=True`` runs the whole ``-c``.

A program compiles when every unit compiles. Without a Makefile the fallback is
every ``.cu`` file under the program directory, with no flags.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import subprocess
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

#: Extensions of translation units a HeCBench Makefile compiles.
UNIT_EXTS = (".cu", ".hip", ".cpp", ".cc", ".cxx", ".c")
#: Compiler drivers whose command lines are read from the dry run.
COMPILERS = frozenset({"nvcc", "hipcc", "g++", "gcc", "c++", "cc", "clang++", "clang", "mpicxx", "mpicc", "icpx", "nvc++", "nvc"})

#: Failure classes, in the order they are tested (the first that matches wins).
#: Each is (name, regex over the compiler's output, what it means).
FAILURE_CLASSES: tuple[tuple[str, str, str], ...] = (
    ("timeout", r"^vado-bench: timed out", "the compile ran past --timeout"),
    ("makefile", r"^vado-bench: (make|no units)", "the Makefile's dry run failed or named no unit"),
    (
        "missing ROCm library (not packaged by Debian)",
        r"fatal error: '(hipblas|hipblaslt|hipfft|hipsolver|hipcub|rocblas|rocfft|rocsolver|rocthrust|thrust|hipsparselt|rccl|miopen|hiptensor|rocwmma|hipblas-common|hip/hip_fp8|rocprim/block)[^']*' file not found",
        "a ROCm library header the Debian HIP 5.2 toolchain does not ship",
    ),
    (
        "CUDA header left",
        r"fatal error: '(cuda[^']*|cub/[^']*|cublas[^']*|cufft[^']*|curand[^']*|cusparse[^']*|cusolver[^']*|nvml[^']*|mma\.h|cooperative_groups[^']*|device_launch_parameters\.h|helper_cuda\.h|helper_functions\.h|nvToolsExt[^']*|nvtx3/[^']*|cuComplex\.h|crt/[^']*|sm_\d+_[^']*|vector_types\.h|math_constants\.h|nccl\.h|cutlass/[^']*|cute/[^']*|cudnn[^']*|nvrtc[^']*)' file not found",
        "an include of a CUDA header (or library) survived the port",
    ),
    ("missing header (other)", r"fatal error: '[^']*' file not found", "a header neither CUDA nor ROCm (often the program's own, or a sibling's)"),
    (
        "inline PTX left",
        r"(error: (invalid|unknown|unexpected) (instruction|token|directive|operand)|invalid output constraint|invalid input constraint|couldn't allocate (output|input) reg|error: unrecognized instruction mnemonic|<inline asm>)",
        "inline PTX assembly reached the AMDGPU assembler",
    ),
    (
        "wave32 assumption",
        r"static_assert|static assertion failed.*(warp|32|64)",
        "a static_assert (usually warp size 32) fails on wave64",
    ),
    (
        "CUDA name left",
        r"(use of undeclared identifier|unknown type name|no member named|no template named|undeclared identifier) '(cuda|cu[A-Z]|CU|cublas|cufft|curand|cusparse|cusolver|nvcuda|__nv|CUDA|cub|nv)\w*'",
        "a CUDA identifier was not translated",
    ),
    (
        "HIP API missing on HIP 5.2",
        r"(use of undeclared identifier|unknown type name|no member named|no template named) '(hip|__hip|__shfl\w*_sync|__(ballot|any|all|activemask|syncwarp|reduce_\w+)_sync|__activemask|__syncwarp|__match\w*|__nanosleep|__ldcs|__ldcg|__ldlu|__ldcv|__stcs|__stcg|__stwb|__stwt|__fns|__dp4a|__vimax|__hmax2?|__hmin2?|__hfma_relu|make_bfloat162|__float22bfloat162_rn|__bfloat\w+|__nv_bfloat\w+|atomicAdd_block|__funnelshift\w+|cooperative_groups|cg|grid_group|thread_block_tile|coalesced_group)\w*'",
        "the port uses a HIP name (or a CUDA device intrinsic) that HIP 5.2 lacks",
    ),
    (
        "no matching HIP overload",
        r"(no matching function for call to|call to '\w+' is ambiguous|no viable conversion|cannot initialize a parameter of type|no matching constructor)",
        "a call resolves differently against HIP's headers",
    ),
    ("syntax", r"error: expected ", "the source does not parse"),
    ("other", r"", "anything else"),
)


@dataclass(frozen=True)
class Unit:
    """One translation unit: its path (relative to the program dir) and the kept flags."""

    source: str
    flags: tuple[str, ...]


@dataclass
class BuildResult:
    """Outcome of building one variant of one program."""

    ok: bool
    units: int
    failed_units: int = 0
    first_error: str = ""
    failure_class: str = ""
    note: str = ""
    seconds: float = 0.0
    output: str = field(default="", repr=False)

    def to_json(self) -> dict:
        """A JSON-ready dict (without the full compiler output)."""
        d = asdict(self)
        d.pop("output")
        return d


def join_continuations(text: str) -> list[str]:
    """The dry run's lines with backslash-newline continuations joined."""
    return re.sub(r"\\\r?\n", " ", text).splitlines()


def _split(line: str) -> list[str]:
    try:
        return shlex.split(line, comments=False)
    except ValueError:
        return line.split()


def _commands(line: str) -> list[list[str]]:
    """The simple commands of one shell line (split on ``&&``, ``;``, ``||``)."""
    out: list[list[str]] = [[]]
    for tok in _split(line):
        if tok in {"&&", ";", "||"}:
            out.append([])
        elif tok.endswith(";") and len(tok) > 1:
            out[-1].append(tok[:-1])
            out.append([])
        else:
            out[-1].append(tok)
    return [c for c in out if c]


def _is_cuda_install_path(path: str) -> bool:
    return os.path.isabs(path) and ("cuda" in path.lower() or "nvidia" in path.lower())


def keep_flags(argv: list[str]) -> tuple[list[str], list[str]]:
    """Split one compiler command into (units, kept flags); see the module docstring."""
    units: list[str] = []
    flags: list[str] = []
    i = 0
    takes_value = {"-o", "-x", "-ccbin", "--compiler-bindir", "-Xcompiler", "--compiler-options", "-Xptxas", "-Xlinker",
                   "-Xcudafe", "-arch", "-code", "-gencode", "--generate-code", "-maxrregcount", "-L", "-l", "-MF", "-MT",
                   "--ptxas-options", "--gpu-architecture", "--gpu-code", "--offload-arch", "-rpath"}
    while i < len(argv):
        a = argv[i]
        nxt = argv[i + 1] if i + 1 < len(argv) else None
        if a in {"-I", "-isystem", "-D", "-U", "-include"} and nxt is not None:
            if not (a in {"-I", "-isystem"} and _is_cuda_install_path(nxt)):
                flags += [a, nxt]
            i += 2
            continue
        if a in {"-Xcompiler", "--compiler-options"} and nxt is not None:
            # Host-compiler flags: keep the portable ones (-fopenmp, -D, -I).
            for sub in nxt.split(","):
                if sub == "-fopenmp" or sub.startswith(("-D", "-I")) and not _is_cuda_install_path(sub[2:]):
                    flags.append(sub)
            i += 2
            continue
        if a in takes_value:
            i += 2
            continue
        if a.startswith(("-I", "-isystem")) and len(a) > 2:
            path = a[8:] if a.startswith("-isystem") else a[2:]
            if not _is_cuda_install_path(path):
                flags.append(a)
        elif a.startswith(("-D", "-U")) and len(a) > 2:
            flags.append(a)
        elif a.startswith(("-std=", "--std=")):
            flags.append("-std=" + a.split("=", 1)[1])
        elif re.fullmatch(r"-O[0-3sz]?|-g|-fopenmp", a):
            flags.append(a)
        elif a in {"-rdc=true", "--relocatable-device-code=true", "-dc", "-fgpu-rdc"}:
            if "-fgpu-rdc" not in flags:
                flags.append("-fgpu-rdc")
        elif not a.startswith("-") and a.endswith(UNIT_EXTS):
            units.append(a)
        i += 1
    return units, flags


def units_from_dry_run(text: str) -> list[Unit]:
    """Every translation unit the dry-run output ``text`` compiles, in order, without repeats."""
    units: list[Unit] = []
    seen: set[str] = set()
    for line in join_continuations(text):
        for argv in _commands(line):
            if not argv or os.path.basename(argv[0]) not in COMPILERS:
                continue
            sources, flags = keep_flags(argv[1:])
            for src in sources:
                norm = os.path.normpath(src)
                if norm not in seen:
                    seen.add(norm)
                    units.append(Unit(norm, tuple(flags)))
    return units


def dry_run(program_dir: Path, makefile: Path, timeout: float = 60) -> tuple[list[Unit], str]:
    """The units ``makefile`` compiles when run in ``program_dir``, and a note ('' when it was read).

    Without a Makefile: every ``.cu`` file under the directory, no flags.
    Raises :class:`RuntimeError` when ``make -n`` fails or names no unit.
    """
    if not makefile.is_file():
        cus = sorted(str(p.relative_to(program_dir)) for p in program_dir.rglob("*.cu"))
        if not cus:
            raise RuntimeError("no units: no Makefile and no .cu file")
        return [Unit(c, ()) for c in cus], "no Makefile: every .cu file, no flags"
    env = dict(os.environ, LC_ALL="C")
    try:
        proc = subprocess.run(["make", "-n", "-B", "-f", str(makefile.resolve())], cwd=program_dir, capture_output=True,
                              text=True, errors="replace", timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        raise RuntimeError("make -n timed out") from None
    units = units_from_dry_run(proc.stdout)
    if not units:
        why = (proc.stderr.strip().splitlines() or ["no compile command"])[-1]
        raise RuntimeError(f"make -n named no unit: {why}")
    return units, ""


def hipcc_argv(unit: Unit, obj: str, arch: str = "gfx90a", full: bool = False) -> list[str]:
    """The hipcc command line for one unit (run with ``HIP_PLATFORM=amd``)."""
    if unit.source.endswith(".c"):
        # hipcc compiles C as C, for the host only.
        return ["hipcc", f"--offload-arch={arch}", *unit.flags, "-c", unit.source, "-o", obj]
    half = [] if full else ["--cuda-device-only"]
    return ["hipcc", f"--offload-arch={arch}", *half, *unit.flags, "-x", "hip", "-c", unit.source, "-o", obj]


def first_error(output: str) -> str:
    """The first ``error:`` line of a compiler's output (or its last line)."""
    for line in output.splitlines():
        if "error:" in line or line.startswith("vado-bench:"):
            return line.strip()[:300]
    lines = [l for l in output.splitlines() if l.strip()]
    return lines[-1].strip()[:300] if lines else ""


def classify_failure(output: str) -> str:
    """The failure class (a name from :data:`FAILURE_CLASSES`) of a failed build's output.

    The first error decides; a class is matched against the first error line, then
    (for PTX, whose errors name ``<inline asm>`` on a later line) the whole output.
    """
    head = first_error(output)
    for name, pattern, _ in FAILURE_CLASSES:
        if pattern and re.search(pattern, head, re.MULTILINE):
            return name
    for name, pattern, _ in FAILURE_CLASSES:
        if name == "inline PTX left" and re.search(pattern, output):
            return name
    return "other"


def tree_digest(dirs: list[Path], extra: str) -> str:
    """A digest of every file under ``dirs`` (names and bytes) plus ``extra``: the cache key."""
    h = hashlib.sha256(extra.encode())
    for d in dirs:
        for p in sorted(d.rglob("*")):
            if p.is_file() and not p.name.endswith(".o"):
                h.update(str(p.relative_to(d)).encode() + b"\0")
                with open(p, "rb") as fh:
                    h.update(hashlib.sha256(fh.read()).digest())
    return h.hexdigest()


def compile_units(program_dir: Path, units: list[Unit], obj_dir: Path, timeout: float, arch: str = "gfx90a",
                  full: bool = False) -> BuildResult:
    """Compile every unit (stopping at the first failure) and say how it went."""
    obj_dir.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, HIP_PLATFORM="amd", LC_ALL="C")
    started = time.perf_counter()
    for n, unit in enumerate(units):
        argv = hipcc_argv(unit, str(obj_dir / f"unit{n}.o"), arch, full)
        try:
            proc = subprocess.run(argv, cwd=program_dir, capture_output=True, text=True, errors="replace",
                                  timeout=timeout, env=env)
            output, rc = proc.stdout + proc.stderr, proc.returncode
        except subprocess.TimeoutExpired:
            output, rc = f"vado-bench: timed out after {timeout:g}s compiling {unit.source}", 124
        if rc != 0:
            output = f"[{unit.source}] {shlex.join(argv)}\n{output}"
            return BuildResult(False, len(units), 1, first_error(output.split("\n", 1)[1] or output),
                               classify_failure(output.split("\n", 1)[1]), seconds=time.perf_counter() - started,
                               output=output[-20000:])
    return BuildResult(True, len(units), seconds=time.perf_counter() - started)


def build_variant(program_dir: Path, makefile: Path, obj_dir: Path, timeout: float, cache_dir: Path | None,
                  digest_dirs: list[Path], arch: str = "gfx90a", full: bool = False) -> BuildResult:
    """Build the sources in ``program_dir`` with the units ``makefile`` names (read in ``program_dir``).

    The result is cached under ``cache_dir`` by a digest of ``digest_dirs`` and the unit list.
    """
    try:
        units, note = dry_run(program_dir, makefile)
    except RuntimeError as exc:
        msg = f"vado-bench: {exc}"
        return BuildResult(False, 0, 0, msg, "makefile", output=msg)
    key = None
    if cache_dir is not None:
        key = tree_digest(digest_dirs, json.dumps([asdict(u) for u in units]) + arch + ("full" if full else "device"))
        hit = cache_dir / f"{key}.json"
        if hit.is_file():
            data = json.loads(hit.read_text())
            return BuildResult(**data)
    result = compile_units(program_dir, units, obj_dir, timeout, arch, full)
    result.note = note
    if key is not None and not result.first_error.startswith("vado-bench: timed out"):
        cache_dir.mkdir(parents=True, exist_ok=True)
        (cache_dir / f"{key}.json").write_text(json.dumps(asdict(result)))
    return result
