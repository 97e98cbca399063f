"""Building one HeCBench program variant for an AMD GPU: read the Makefile, compile every unit.

The one build method used for all three variants (vado's port, the hand-written
``-hip`` twin, hipify-perl's translation), with one compiler for all three
(ROCm 7.2.4's hipcc, clang 22, for gfx942 by default; see ``port_hecbench.py``):

1. ``make -n -B`` in the variant's directory prints the commands its own Makefile
   would run, with every variable, ``ifeq`` and pattern rule already expanded.
   The ``-cuda`` Makefile is read for vado's port and hipify-perl's translation
   (hipify-perl does not touch Makefiles, and both start from the same tree);
   the ``-hip`` Makefile is read for the hand-written twin.
2. Every command that compiles a translation unit (a ``.cu``/``.hip``/``.cpp``/
   ``.cc``/``.cxx``/``.c`` argument) gives one unit. Of its flags only the
   portable ones are kept, the same list for nvcc and hipcc command lines:
   ``-I``/``-isystem``/``-D``/``-U``/``-include``/``-std=``/``-O``/``-g``/``-fopenmp``
   and relocatable device code (``-rdc=true``/``-dc`` → ``-fgpu-rdc``); a device
   language named with ``-x`` (nvcc's ``-x cu``) compiles ``.c`` units as HIP too
   (``.c`` files are otherwise host C, without a C++ ``-std=``). nvcc-only
   flags (``-arch``, ``-Xcompiler``, ``--use_fast_math``, ``-Xptxas``, …), link
   flags and include paths into a CUDA installation are dropped.
3. Each unit is compiled with
   ``HIP_PLATFORM=amd HIPCC --offload-arch=ARCH -x hip -c UNIT -o OBJ`` plus
   those flags (``.c`` files without ``-x hip``, as hipcc itself would). Device
   code is generated (this is not ``-fsyntax-only``); nothing is linked. By
   default the device half only (``--cuda-device-only``): clang still parses and
   checks the host code in that pass, it just does not generate the host object,
   which halves the time on a 2-core machine; ``full=True`` runs the whole ``-c``.

A program compiles when every unit compiles. A program directory without a
Makefile is read from its ``CMakeLists.txt`` instead, the ``add_hecbench_benchmark``
call HeCBench's CMake build uses (``cmake/modules/BenchmarkMacros.cmake``), and so is
one whose Makefile's dry run names no unit (a broken rule, a Python extension build): its
``SOURCES`` are the units; ``INCLUDE_DIRS``, the program's own directory (and for a
model other than ``cuda`` the ``../NAME-cuda`` directory) give ``-I`` flags;
``COMPILE_OPTIONS`` go through the same filter as a Makefile's flags; the ``cuda``
model's separable compilation gives ``-fgpu-rdc``. Without either, the fallback is
every ``.cu`` file under the program directory, with no flags.

Results are cached (``build_variant``'s ``cache_dir``) under a key made of the
compiler's ``--version`` text, the architecture, the build half, the units with
their flags and a digest of every file the variant's compile can read (its own
tree and the sibling directories it refers to). A variant whose files did not
change is not compiled again: after a change to vado only vado's port is.
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import re
import shlex
import signal
import subprocess
import threading
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
        "missing ROCm library header",
        r"fatal error: '(hipblas|hipblaslt|hipfft|hipsolver|hipcub|rocblas|rocfft|rocsolver|rocthrust|thrust|hipsparselt|rccl|miopen|hiptensor|rocwmma|hipblas-common|hip/hip_fp8|rocprim/block)[^']*' file not found",
        "a ROCm library header the compiler's installation does not ship",
    ),
    (
        "CUDA header left",
        r"fatal error: '(cuda[^']*|cub/[^']*|cublas[^']*|cufft[^']*|curand[^']*|cusparse[^']*|cusolver[^']*|nvml[^']*|mma\.h|cooperative_groups[^']*|device_launch_parameters\.h|helper_cuda\.h|helper_functions\.h|nvToolsExt[^']*|nvtx3/[^']*|cuComplex\.h|crt/[^']*|sm_\d+_[^']*|vector_types\.h|math_constants\.h|nccl\.h|cutlass/[^']*|cute/[^']*|cudnn[^']*|nvrtc[^']*)' file not found",
        "an include of a CUDA header (or library) survived the port",
    ),
    (
        "third-party library missing (environment)",
        r"fatal error: '(mpi\.h|mpi[^'/]*\.h|boost/[^']*|omp\.h|tbb/[^']*|Eigen/[^']*|gmp\.h|zlib\.h|bzlib\.h|png\.h)' file not found",
        "a library that is neither CUDA nor ROCm (MPI, Boost, the OpenMP runtime...) is not installed for the compiler",
    ),
    ("missing header (other)", r"fatal error: '[^']*' file not found", "a header neither CUDA nor ROCm (often the program's own, or a sibling's)"),
    (
        "inline PTX left",
        r"(error: (invalid|unknown|unexpected) (instruction|token|directive|operand)|invalid output constraint|invalid input constraint|couldn't allocate (output|input) reg|error: unrecognized instruction mnemonic|<inline asm>)",
        "inline PTX assembly reached the AMDGPU assembler",
    ),
    (
        "wave64 mask",
        r"The mask must be a 64-bit integer",
        "a 32-bit lane mask is passed to a *_sync warp function; HIP's need a 64-bit mask",
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
        "HIP API missing",
        r"(use of undeclared identifier|unknown type name|no member named|no template named) '(hip|__hip|__shfl\w*_sync|__(ballot|any|all|activemask|syncwarp|reduce_\w+)_sync|__activemask|__syncwarp|__match\w*|__nanosleep|__ldcs|__ldcg|__ldlu|__ldcv|__stcs|__stcg|__stwb|__stwt|__fns|__dp4a|__vimax|__hmax2?|__hmin2?|__hfma_relu|make_bfloat162|__float22bfloat162_rn|__bfloat\w+|__nv_bfloat\w+|atomicAdd_block|__funnelshift\w+|cooperative_groups|cg|grid_group|thread_block_tile|coalesced_group)\w*'",
        "the code uses a HIP name (or a CUDA device intrinsic) that the compiler's HIP lacks",
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
    """One translation unit: its path and the kept flags, both relative to ``cwd``, the directory
    (relative to the program dir, '' for the program dir itself) the Makefile compiles it in."""

    source: str
    flags: tuple[str, ...]
    cwd: str = ""

    def key(self) -> dict:
        """The unit as the cache key sees it: ``cwd`` only where it is not the program dir, and
        for a C unit the flags it is compiled with (:func:`c_unit_flags`)."""
        d = asdict(self)
        if not self.cwd:
            d.pop("cwd")
        if self.compiles_as_c():
            d["c_flags"] = list(c_unit_flags(self.flags))
        return d

    def compiles_as_c(self) -> bool:
        """Whether the unit is host C: a ``.c`` file its Makefile does not compile as device code."""
        return self.source.endswith(".c") and HIP_LANGUAGE_FLAG not in self.flags


def c_unit_flags(flags: tuple[str, ...]) -> tuple[str, ...]:
    """The flags of a C unit: a C++ standard in the Makefile's flags is for its C++ units (nvcc
    does not pass it to the host C compiler either), so it is dropped."""
    return tuple(f for f in flags if not (f.startswith("-std=") and "++" in f))


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
    #: The third-party libraries (package → version) present when it was compiled (:func:`library_environment`).
    libraries: dict = field(default_factory=dict, repr=False)

    def to_json(self) -> dict:
        """A JSON-ready dict (without the full compiler output)."""
        d = asdict(self)
        d.pop("output")
        d.pop("libraries")
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


#: Values of ``-x`` that name a device language (nvcc's ``cu``, clang's ``cuda`` and ``hip``).
DEVICE_LANGUAGES = frozenset({"cu", "cuda", "hip"})
#: The kept flag that says a Makefile compiles its units as device code whatever their extension.
HIP_LANGUAGE_FLAG = "-xhip"


def _language(arg: str, nxt: str | None) -> str | None:
    """The language an ``-x``/``--x`` option names (joined, ``=`` or separate), or None."""
    if arg in {"-x", "--x"}:
        return nxt or ""
    if arg.startswith(("-x=", "--x=")):
        return arg.split("=", 1)[1]
    if arg.startswith("-x") and len(arg) > 2 and not arg.startswith("-xc++") and arg[2:].isalpha():
        return arg[2:]
    return None


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
        lang = _language(a, nxt)
        if lang is not None:
            # A device-language override (nvcc's ``-x cu``, hipcc's ``-x hip``) makes every unit,
            # ``.c`` ones included, device code: kept as the marker ``-xhip``.
            if lang in DEVICE_LANGUAGES and HIP_LANGUAGE_FLAG not in flags:
                flags.append(HIP_LANGUAGE_FLAG)
            i += 1 if a.startswith(("-x=", "--x=")) or (a.startswith("-x") and len(a) > 2) else 2
            continue
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


_MAKE_DIR_RE = re.compile(r"^\S*make(?:\[\d+\])?: (Entering|Leaving) directory [`'\"](.*)['\"]\s*$")


def _expand_globs(sources: list[str], top: str | os.PathLike | None, cwd: str) -> list[str]:
    """``sources`` with shell patterns (``src/*.cpp``, which ``make -n`` prints as the shell would
    get them) expanded in ``top/cwd``; a pattern that matches nothing is kept as it is."""
    out: list[str] = []
    for src in sources:
        if top is not None and any(c in src for c in "*?["):
            found = sorted(glob.glob(src, root_dir=os.path.join(top, cwd)))
            if found:
                out += found
                continue
        out.append(src)
    return out


def units_from_dry_run(text: str, top: str | os.PathLike | None = None) -> list[Unit]:
    """Every translation unit the dry-run output ``text`` compiles, in order, without repeats.

    Directories are followed: a recursive make's ``Entering``/``Leaving directory`` lines
    (made relative to ``top``, the directory the dry run ran in) and ``cd DIR`` before a
    command on the same line give the unit's ``cwd``.
    """
    units: list[Unit] = []
    seen: set[str] = set()
    dirs = [""]
    for line in join_continuations(text):
        m = _MAKE_DIR_RE.match(line.strip())
        if m:
            if m.group(1) == "Entering":
                where = m.group(2)
                if top is not None and os.path.isabs(where):
                    where = os.path.relpath(where, top)
                dirs.append(os.path.normpath(where) if where not in {"", "."} else "")
            elif len(dirs) > 1:
                dirs.pop()
            continue
        cwd = dirs[-1]
        for argv in _commands(line):
            if argv and argv[0] == "cd" and len(argv) == 2:
                cwd = os.path.normpath(os.path.join(cwd, argv[1]))
                cwd = "" if cwd == "." else cwd
                continue
            if not argv or os.path.basename(argv[0]) not in COMPILERS:
                continue
            sources, flags = keep_flags(argv[1:])
            for src in _expand_globs(sources, top, cwd):
                norm = os.path.normpath(src)
                where = os.path.normpath(os.path.join(cwd, norm))
                if where not in seen:
                    seen.add(where)
                    units.append(Unit(norm, tuple(flags), cwd))
    return units


#: The multi-value keywords of HeCBench's ``add_hecbench_benchmark`` (and its one-value ones).
CMAKE_KEYWORDS = frozenset({"NAME", "MODEL", "SOURCES", "CATEGORIES", "COMPILE_OPTIONS", "LINK_LIBRARIES",
                            "INCLUDE_DIRS", "TEST_ARGS"})
_CMAKE_CALL_RE = re.compile(r"\badd_hecbench_benchmark\s*\(([^()]*)\)", re.IGNORECASE)
_CMAKE_DIR_VARS_RE = re.compile(r"\$\{CMAKE_CURRENT_(SOURCE|LIST)_DIR\}/?")


def units_from_cmake(text: str) -> list[Unit]:
    """The units of the ``add_hecbench_benchmark`` call in the CMake text ``text`` (see the module
    docstring); [] when there is none. Paths are relative to the program directory."""
    text = re.sub(r"#[^\n]*", "", text)
    m = _CMAKE_CALL_RE.search(text)
    if m is None:
        return []
    args: dict[str, list[str]] = {}
    key = ""
    for tok in _split(m.group(1)):
        if tok in CMAKE_KEYWORDS:
            key = tok
            args.setdefault(key, [])
        elif key:
            tok = _CMAKE_DIR_VARS_RE.sub("./", tok)
            if "${" not in tok and "$<" not in tok:
                args[key].append(tok)
    name = (args.get("NAME") or [""])[0]
    model = (args.get("MODEL") or [""])[0].lower()
    flags = [f"-I{os.path.normpath(d)}" for d in args.get("INCLUDE_DIRS", [])]
    flags.append("-I.")
    if model != "cuda" and name:
        flags.append(f"-I../{name}-cuda")
    flags += keep_flags(args.get("COMPILE_OPTIONS", []))[1]
    if model == "cuda" and "-fgpu-rdc" not in flags:
        flags.append("-fgpu-rdc")  # CUDA_SEPARABLE_COMPILATION ON
    units = []
    for src in args.get("SOURCES", []):
        norm = os.path.normpath(src)
        if norm.endswith(UNIT_EXTS) and all(u.source != norm for u in units):
            units.append(Unit(norm, tuple(flags)))
    return units


def _existing_cmake_units(cmake: Path) -> tuple[list[Unit], str]:
    """:func:`units_from_cmake` of ``cmake`` less the sources its own tree lacks, and a note naming them.

    A ``SOURCES`` entry no tree has (tgvnn's ``src/tgv.cu``) fails CMake's own build of the CUDA
    program and of its twin alike; the twin's Makefile leaves it out, so the comparison does too.
    """
    units = units_from_cmake(cmake.read_text(errors="replace"))
    missing = [u.source for u in units if not (cmake.parent / u.source).is_file()]
    units = [u for u in units if u.source not in missing]
    return units, (f"; left out, named but not in the tree: {', '.join(missing)}" if missing else "")


def dry_run(program_dir: Path, makefile: Path, timeout: float = 60,
            make_vars: tuple[str, ...] = ()) -> tuple[list[Unit], str]:
    """The units ``makefile`` compiles when run in ``program_dir``, and a note ('' when it was read).

    ``make_vars`` (``NAME=VALUE``) are given to ``make`` on its command line, where they override
    the Makefile's own assignments. Without a Makefile, or when its dry run names no unit:
    the units of the ``CMakeLists.txt`` beside it (HeCBench's ``add_hecbench_benchmark``), less
    sources that file names and its tree lacks; without a Makefile or that, every ``.cu`` file
    under the directory, no flags.
    Raises :class:`RuntimeError` when ``make -n`` fails or names no unit and there is no such
    ``CMakeLists.txt``.
    """
    cmake = makefile.parent / "CMakeLists.txt"
    if not makefile.is_file() and cmake.is_file():
        units, missing = _existing_cmake_units(cmake)
        if units:
            return units, "no Makefile: units and flags from CMakeLists.txt (add_hecbench_benchmark)" + missing
    if not makefile.is_file():
        cus = sorted(str(p.relative_to(program_dir)) for p in program_dir.rglob("*.cu"))
        if not cus:
            raise RuntimeError("no units: no Makefile and no .cu file")
        return [Unit(c, ()) for c in cus], "no Makefile: every .cu file, no flags"
    env = dict(os.environ, LC_ALL="C")
    try:
        proc = subprocess.run(["make", "-n", "-B", "-f", str(makefile.resolve()), *make_vars], cwd=program_dir,
                              capture_output=True, text=True, errors="replace", timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        raise RuntimeError("make -n timed out") from None
    units = units_from_dry_run(proc.stdout, program_dir.resolve())
    if not units and cmake.is_file():
        units, missing = _existing_cmake_units(cmake)
        if units:
            return units, "make -n named no unit: units and flags from CMakeLists.txt (add_hecbench_benchmark)" + missing
    if not units:
        why = (proc.stderr.strip().splitlines() or ["no compile command"])[-1]
        raise RuntimeError(f"make -n named no unit: {why}")
    return units, ""


#: The default architecture: MI300X, the reference target of ROCm 7.2.
DEFAULT_ARCH = "gfx942"


def hipcc_argv(unit: Unit, obj: str, arch: str = DEFAULT_ARCH, full: bool = False, hipcc: str = "hipcc") -> list[str]:
    """The hipcc command line for one unit (run with ``HIP_PLATFORM=amd``)."""
    if unit.compiles_as_c():
        # hipcc compiles C as C, for the host only.
        return [hipcc, f"--offload-arch={arch}", *c_unit_flags(unit.flags), "-c", unit.source, "-o", obj]
    half = [] if full else ["--cuda-device-only"]
    flags = [f for f in unit.flags if f != HIP_LANGUAGE_FLAG]
    return [hipcc, f"--offload-arch={arch}", *half, *flags, "-x", "hip", "-c", unit.source, "-o", obj]


def compiler_version(hipcc: str) -> str:
    """The text ``hipcc --version`` prints (HIP version, clang version, ...); raises :class:`RuntimeError`
    with the reason when the compiler cannot be run."""
    try:
        proc = subprocess.run([hipcc, "--version"], capture_output=True, text=True, errors="replace", timeout=120,
                              env=dict(os.environ, HIP_PLATFORM="amd", LC_ALL="C"))
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise RuntimeError(f"{hipcc} --version failed: {exc}") from None
    text = (proc.stdout + proc.stderr).strip()
    if proc.returncode != 0 or not text:
        raise RuntimeError(f"{hipcc} --version failed (exit {proc.returncode}): {text[-300:]}")
    return text


#: Third-party libraries HeCBench programs include, by the Debian package that has their headers
#: (``scripts/rocm-toolchain.sh --bench-libs`` installs them in the ROCm chroot).
BENCH_LIBRARIES = {"libboost-dev": "Boost", "libomp-22-dev": "OpenMP (clang 22)", "libopenmpi-dev": "OpenMPI",
                   "libgsl-dev": "GSL", "libbz2-dev": "bzip2"}
#: Make variables given to every variant's dry run. HeCBench's CUDA Makefiles point ``MPI_ROOT`` at
#: NVIDIA's HPC SDK (``allreduce``, ``ccl`` …); the twins and the commented-out default point at
#: Debian's OpenMPI, which ``libopenmpi-dev`` installs: one site setting for all three variants.
DEFAULT_MAKE_VARS = ("MPI_ROOT=/usr/lib/x86_64-linux-gnu/openmpi",)


def library_environment(hipcc: str) -> dict[str, str]:
    """Package → version of the :data:`BENCH_LIBRARIES` installed where ``hipcc`` compiles ('' when absent).

    The ROCm chroot's wrapper (a ``rocm-run`` beside it) is asked inside the chroot; any other
    hipcc is asked on this machine. Part of the cache key: a library installed later changes it.
    """
    runner = Path(hipcc).resolve().parent / "rocm-run"
    argv = ([str(runner)] if runner.is_file() else []) + ["dpkg-query", "-W", "-f=${Package} ${Version}\n",
                                                           *BENCH_LIBRARIES]
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, errors="replace", timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return dict.fromkeys(BENCH_LIBRARIES, "")
    found = dict(line.split(" ", 1) for line in proc.stdout.splitlines() if " " in line)
    return {pkg: found.get(pkg, "").strip() for pkg in BENCH_LIBRARIES}


def version_summary(version_text: str) -> str:
    """The HIP and clang version lines of ``hipcc --version``, joined with ``; ``."""
    keep = [l.strip() for l in version_text.splitlines() if re.search(r"(HIP version|clang version)", l)]
    return "; ".join(keep) if keep else version_text.splitlines()[0].strip()


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


def run_compiler(argv: list[str], cwd: Path, env: dict[str, str], timeout: float) -> tuple[str, int | None]:
    """Run one compile; its output and exit status, or (partial output, None) when it ran past ``timeout``.

    The compiler runs in a session of its own, and a timeout kills the whole session: hipcc
    starts clang, which starts ``clang -cc1`` (and a chroot wrapper adds more levels), and
    killing hipcc alone would leave those running and slowing every later compile down.
    """
    proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            errors="replace", env=env, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
        return out, proc.returncode
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        out, _ = proc.communicate()
        return out, None


def compile_units(program_dir: Path, units: list[Unit], obj_dir: Path, timeout: float, arch: str = DEFAULT_ARCH,
                  full: bool = False, hipcc: str = "hipcc") -> BuildResult:
    """Compile every unit (stopping at the first failure) and say how it went."""
    obj_dir.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, HIP_PLATFORM="amd", LC_ALL="C")
    started = time.perf_counter()
    for n, unit in enumerate(units):
        argv = hipcc_argv(unit, str(obj_dir / f"unit{n}.o"), arch, full, hipcc)
        output, rc = run_compiler(argv, program_dir / unit.cwd, env, timeout)
        if rc is None:
            output, rc = f"vado-bench: timed out after {timeout:g}s compiling {unit.source}", 124
        if rc != 0:
            output = f"[{os.path.join(unit.cwd, unit.source)}] {shlex.join(argv)}\n{output}"
            return BuildResult(False, len(units), 1, first_error(output.split("\n", 1)[1] or output),
                               classify_failure(output.split("\n", 1)[1]), seconds=time.perf_counter() - started,
                               output=output[-20000:])
    return BuildResult(True, len(units), seconds=time.perf_counter() - started)


def cache_key(digest_dirs: list[Path], units: list[Unit], compiler: str, arch: str, full: bool) -> str:
    """The cache key of one build: the files under ``digest_dirs``, the units and their flags, the
    compiler's ``--version`` text, the architecture and the build half."""
    extra = json.dumps({"units": [u.key() for u in units], "compiler": compiler, "arch": arch,
                        "half": "full" if full else "device"}, sort_keys=True)
    return tree_digest(digest_dirs, extra)


def build_variant(program_dir: Path, makefile: Path, obj_dir: Path, timeout: float, cache_dir: Path | None,
                  digest_dirs: list[Path], arch: str = DEFAULT_ARCH, full: bool = False, hipcc: str = "hipcc",
                  compiler: str = "", make_vars: tuple[str, ...] = (),
                  libraries: dict[str, str] | None = None) -> BuildResult:
    """Build the sources in ``program_dir`` with the units ``makefile`` names (read in ``program_dir``).

    The result is cached under ``cache_dir`` by :func:`cache_key` (``compiler`` is the compiler's
    ``--version`` text; ``digest_dirs`` every directory the compile may read). A cached result
    has ``note`` ``"cached"`` added. ``libraries`` (:func:`library_environment`) is kept with the
    result: a cached failure made with other libraries is compiled again (a header installed
    since may be the one it lacked), while a cached success stands (more headers do not undo it).
    """
    try:
        units, note = dry_run(program_dir, makefile, make_vars=make_vars)
    except RuntimeError as exc:
        msg = f"vado-bench: {exc}"
        return BuildResult(False, 0, 0, msg, "makefile", output=msg)
    key = None
    if cache_dir is not None:
        key = cache_key(digest_dirs, units, compiler, arch, full)
        hit = cache_dir / f"{key}.json"
        if hit.is_file():
            try:
                data = json.loads(hit.read_text())
                cached = BuildResult(**data)
            except (ValueError, TypeError):
                cached = None  # a damaged entry is rebuilt and written again
            if cached is not None and not cached.ok and libraries is not None and cached.libraries != libraries:
                cached = None  # failed with other third-party libraries: compile again
            if cached is not None:
                cached.note = ", ".join(x for x in (cached.note, "cached") if x)
                if not cached.ok and cached.output:
                    # Classes may have been refined since the entry was written: classify again.
                    body = cached.output.split("\n", 1)[1] if cached.output.startswith("[") else cached.output
                    cached.failure_class = classify_failure(body)
                return cached
    result = compile_units(program_dir, units, obj_dir, timeout, arch, full, hipcc)
    result.note = note
    result.libraries = dict(libraries or {})
    if key is not None and not result.first_error.startswith("vado-bench: timed out"):
        cache_dir.mkdir(parents=True, exist_ok=True)
        tmp = cache_dir / f"{key}.json.tmp{os.getpid()}.{threading.get_ident()}"
        tmp.write_text(json.dumps(asdict(result)))
        tmp.replace(cache_dir / f"{key}.json")
    return result
