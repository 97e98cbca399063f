"""Finding the toolchains that prove a port: hipcc, nvcc, Triton's AMD backend, GPUs.

Discovery is explicit and testable: every function takes the ``PATH`` to search
(``path_env``) and the well-known install directories (``tool_dirs``), so tests
can put small fake tools in a temporary directory, or search nothing at all.

- **hipcc** from a ROCm install (``$ROCM_PATH/bin``, ``/opt/rocm/bin``), the
  ROCm 7.2.4 chroot that ``scripts/rocm-toolchain.sh`` builds from Debian's
  packages (its wrapper ``$VADO_ROCM_HOME/bin/hipcc``, by default
  ``/var/cache/vado/rocm-*/bin/hipcc``), or Debian's ``hipcc`` package (HIP
  5.2). :func:`choose_hip_toolchain` picks one by version for a target: the
  oldest release at or above the target's HIP version (HIP 5.2 for the
  ``hip-5.2`` profile, 7.2 for ``rocm-7.2``), and says loudly when every one
  found is older than the target. It is always run with
  ``HIP_PLATFORM=amd``: without it hipcc silently hands the work to nvcc. Its
  ``--version`` gives the HIP version, the clang version and clang's directory;
  that clang lists the ``gfx`` processors it knows
  (``--target=amdgcn-amd-amdhsa --print-supported-cpus``). Knowing a processor
  is not building for it (the device libraries must support it too), so
  :func:`probe_archs` compiles a tiny kernel per arch and caches the answer.
- **nvcc**: ``$VADO_NVCC``, ``PATH``, ``$CUDA_HOME/bin``, ``/usr/local/cuda/bin``.
- **Triton**: imported in a child interpreter (``sys.executable`` by default),
  which reports its version and whether ``triton.backends.amd`` imports.
- **GPUs**: ``nvidia-smi -L``, ``amd-smi list``, ``rocm-smi --showproductname``.
- **Debian packages**: ``dpkg-query`` for the HIP 5.2 packages.
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import re
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Sequence

from vado.errors import ToolchainError
from vado.verify.sandbox import COMPILE_LIMITS, PROBE_LIMITS, Limits, run_limited

if TYPE_CHECKING:
    from vado.model import Target

#: Offload targets vado asks about when none are named: CDNA2/3/4 and RDNA3/4.
DEFAULT_ARCHS = ("gfx942", "gfx950", "gfx90a", "gfx1100", "gfx1200")
#: Triton targets and their wavefront size (64 on CDNA, 32 on RDNA).
TRITON_ARCHS = {"gfx90a": 64, "gfx940": 64, "gfx942": 64, "gfx950": 64, "gfx1100": 32, "gfx1200": 32}
#: Debian packages that make up its HIP 5.2 toolchain.
DEBIAN_PACKAGES = ("hipcc", "libamdhip64-dev", "rocm-device-libs", "libamd-comgr-dev", "libhsa-runtime-dev", "rocminfo")

#: The script that builds ROCm 7.2.4 in a chroot from Debian's packages (shipped with vado).
ROCM_TOOLCHAIN_SCRIPT = Path(__file__).resolve().parent / "data" / "rocm-toolchain.sh"
#: The first line of the chroot's hipcc wrapper names the chroot (written by that script).
CHROOT_MARK = "# vado-rocm-chroot:"
#: Where that script keeps its chroots when ``$VADO_ROCM_HOME`` does not say.
CHROOT_PARENT = "/var/cache/vado"

ROCM_CHROOT_TIP = (
    f"as root, `bash {ROCM_TOOLCHAIN_SCRIPT}` builds ROCm 7.2.4 from Debian's packages in a chroot "
    "(about 4 minutes and 8 GB, once) and vado finds its hipcc"
)
HIPCC_TIP = (
    "install ROCm (https://rocm.docs.amd.com, package rocm-hip-sdk); or " + ROCM_CHROOT_TIP + "; or Debian's "
    "HIP 5.2 for the hip-5.2 target (apt-get install hipcc libamdhip64-dev rocm-device-libs); "
    "or pass --hipcc PATH / set VADO_HIPCC"
)
NVCC_TIP = (
    "install the CUDA toolkit (https://developer.nvidia.com/cuda-downloads, or apt-get install "
    "nvidia-cuda-toolkit); or pass --nvcc PATH / set VADO_NVCC"
)
TRITON_TIP = "pip install triton (the PyPI wheel carries the AMD backend; compiling needs no GPU)"
GPU_TIP = "differential runs (vado verify --run) need an NVIDIA or AMD GPU; without one they are skipped"

_PROBE_SOURCE = """#include <hip/hip_runtime.h>
__global__ void vado_probe(float* p) { p[threadIdx.x] = __shfl_xor(p[threadIdx.x], 1); }
"""
_GFX = re.compile(r"\bgfx[0-9a-f]+\b(?!-)")


def hip_env(base: dict[str, str] | None = None) -> dict[str, str]:
    """The environment hipcc runs in: ``HIP_PLATFORM=amd`` always (else it falls back to nvcc)."""
    env = dict(os.environ if base is None else base)
    env["HIP_PLATFORM"] = "amd"
    return env


def default_tool_dirs() -> tuple[str, ...]:
    """Install directories searched besides ``PATH``.

    ``VADO_TOOL_DIRS`` (``os.pathsep``-separated; empty for none) replaces the
    defaults: ``$ROCM_PATH/bin``, ``/opt/rocm/bin``, ``$CUDA_HOME/bin``,
    ``/usr/local/cuda/bin``.
    """
    if "VADO_TOOL_DIRS" in os.environ:
        return tuple(d for d in os.environ["VADO_TOOL_DIRS"].split(os.pathsep) if d)
    dirs = []
    for var, fallback in (("ROCM_PATH", "/opt/rocm"), ("CUDA_HOME", "/usr/local/cuda")):
        if os.environ.get(var):
            dirs.append(os.path.join(os.environ[var], "bin"))
        dirs.append(os.path.join(fallback, "bin"))
    return tuple(dict.fromkeys(dirs))


def _which(name: str, path_env: str | None, tool_dirs: Sequence[str]) -> str | None:
    found = shutil.which(name, path=path_env if path_env is not None else os.environ.get("PATH", ""))
    if found:
        return found
    for d in tool_dirs:
        cand = os.path.join(d, name)
        if os.path.isfile(cand) and os.access(cand, os.X_OK):
            return cand
    return None


def _search_env(path_env: str | None) -> dict[str, str]:
    env = dict(os.environ)
    if path_env is not None:
        env["PATH"] = path_env
    return env


# ---------------------------------------------------------------------------
# hipcc


@dataclass(frozen=True)
class HipToolchain:
    """A hipcc and what it says about itself.

    ``known_archs`` are the processors its clang knows (not necessarily
    buildable: see :func:`probe_archs`). ``flavour`` is ``rocm``, ``debian``
    (a hipcc under ``/usr/bin`` with no ROCm tree around it) or ``chroot``
    (the wrapper of ``scripts/rocm-toolchain.sh``; ``chroot`` names its root).
    """

    path: str
    hip_version: str
    clang_version: str
    clang_path: str = ""
    known_archs: tuple[str, ...] = ()
    flavour: str = "rocm"
    chroot: str = ""

    @property
    def label(self) -> str:
        """``hipcc (HIP 5.2.21153-0, clang 15.0.6)``."""
        return f"hipcc (HIP {self.hip_version}, clang {self.clang_version})"

    @property
    def release(self) -> tuple[int, int]:
        """The HIP release as ``(major, minor)``: ``(7, 2)`` for ``7.2.53211-9999``."""
        return hip_release(self.hip_version)


def hip_release(version: str | None) -> tuple[int, int]:
    """``(major, minor)`` of a HIP version string (``5.2.21153-0``, ``7.2``); ``(0, 0)`` when unreadable."""
    m = re.match(r"\s*(\d+)(?:\.(\d+))?", version or "")
    return (int(m.group(1)), int(m.group(2) or 0)) if m else (0, 0)


def chroot_of(hipcc: str) -> str:
    """The chroot a ``scripts/rocm-toolchain.sh`` wrapper runs in, or ``""`` for any other hipcc."""
    try:
        with open(hipcc, "rb") as f:
            head = f.read(512).decode("utf-8", "replace")
    except OSError:
        return ""
    for line in head.splitlines()[:3]:
        if line.startswith(CHROOT_MARK):
            return line[len(CHROOT_MARK):].strip()
    return ""


def rocm_chroot_wrappers() -> tuple[str, ...]:
    """hipcc wrappers of ROCm chroots built by ``scripts/rocm-toolchain.sh``, newest release first.

    ``$VADO_ROCM_HOME/bin/hipcc`` when that variable is set (empty: none), else
    every ``/var/cache/vado/rocm-*/bin/hipcc``.
    """
    if "VADO_ROCM_HOME" in os.environ:
        homes = [os.environ["VADO_ROCM_HOME"]] if os.environ["VADO_ROCM_HOME"] else []
    else:
        homes = sorted(glob.glob(os.path.join(CHROOT_PARENT, "rocm-*")), key=_release_key, reverse=True)
    out = []
    for home in homes:
        cand = os.path.join(home, "bin", "hipcc")
        if os.path.isfile(cand) and os.access(cand, os.X_OK):
            out.append(cand)
    return tuple(out)


def _release_key(path: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", os.path.basename(path))[:3])


def find_hipcc(explicit: str | None = None, *, path_env: str | None = None,
               tool_dirs: Sequence[str] | None = None) -> str | None:
    """Path of hipcc: ``explicit``, ``$VADO_HIPCC``, ``PATH``, then the install dirs.

    The first one found, whatever its version; :func:`choose_hip_toolchain`
    picks by version.
    """
    for cand in (explicit, os.environ.get("VADO_HIPCC")):
        if cand:
            return cand
    return _which("hipcc", path_env, default_tool_dirs() if tool_dirs is None else tool_dirs)


def hipcc_candidates(*, path_env: str | None = None, tool_dirs: Sequence[str] | None = None,
                     chroots: Sequence[str] | None = None) -> tuple[str, ...]:
    """Every hipcc vado can use here, once each: ROCm chroot wrappers, ``PATH``, the install dirs.

    ``chroots`` replaces :func:`rocm_chroot_wrappers` (tests pass ``()``).
    """
    dirs = default_tool_dirs() if tool_dirs is None else tool_dirs
    found: list[str] = list(rocm_chroot_wrappers() if chroots is None else chroots)
    on_path = shutil.which("hipcc", path=path_env if path_env is not None else os.environ.get("PATH", ""))
    if on_path:
        found.append(on_path)
    for d in dirs:
        cand = os.path.join(d, "hipcc")
        if os.path.isfile(cand) and os.access(cand, os.X_OK):
            found.append(cand)
    seen: set[str] = set()
    out = []
    for cand in found:
        key = os.path.realpath(cand)
        if key not in seen:
            seen.add(key)
            out.append(cand)
    return tuple(out)


@dataclass(frozen=True)
class HipChoice:
    """Which hipcc proves a port for a target, and what else was found.

    ``toolchain`` is the choice (``None`` when none runs). ``older`` is true when
    it is older than the target's HIP release: its errors may be for the wrong
    reasons and its passes prove nothing for the target. ``problems`` are
    candidates that did not answer ``--version``.
    """

    toolchain: HipToolchain | None
    found: tuple[HipToolchain, ...] = ()
    problems: tuple[str, ...] = ()
    wanted: tuple[int, int] = (0, 0)
    explicit: bool = False

    @property
    def older(self) -> bool:
        """The chosen toolchain's release is below the target's."""
        return self.toolchain is not None and self.toolchain.release < self.wanted

    def warning(self, target_name: str) -> str:
        """A loud one-line warning when the choice is older than the target (else ``""``)."""
        if not self.older:
            return ""
        tc = self.toolchain
        return (f"{tc.path} is HIP {tc.hip_version}, older than {target_name} (HIP {self.wanted[0]}.{self.wanted[1]}): "
                "a port made for the newer release may fail here for the wrong reasons, and a pass proves "
                "nothing for it")


def choose_hip_toolchain(target_hip: str | None, explicit: str | None = None, *, path_env: str | None = None,
                         tool_dirs: Sequence[str] | None = None, chroots: Sequence[str] | None = None) -> HipChoice:
    """The hipcc for a target whose HIP release is ``target_hip`` (``"7.2"``; ``None``: the newest).

    ``explicit`` (``--hipcc``) or ``$VADO_HIPCC`` names the one to use. Otherwise
    every candidate (:func:`hipcc_candidates`) is asked its version, and the
    oldest release at or above the target's is chosen — HIP 5.2 checks the
    ``hip-5.2`` profile, ROCm 7.2 checks ``rocm-7.2`` — or, when all are older,
    the newest (:attr:`HipChoice.older` then says so). Never raises.
    """
    wanted = hip_release(target_hip) if target_hip else (0, 0)
    named = explicit or os.environ.get("VADO_HIPCC")
    paths = (named,) if named else hipcc_candidates(path_env=path_env, tool_dirs=tool_dirs, chroots=chroots)
    found: list[HipToolchain] = []
    problems: list[str] = []
    for path in paths:
        try:
            found.append(hip_toolchain(path, path_env=path_env))
        except ToolchainError as exc:
            problems.append(f"{path}: {exc.why or exc.what}")
    if not found:
        return HipChoice(None, (), tuple(problems), wanted, bool(named))
    if target_hip is None:
        best = max(found, key=lambda t: t.release)
    else:
        fit = [t for t in found if t.release >= wanted]
        best = min(fit, key=lambda t: t.release) if fit else max(found, key=lambda t: t.release)
    return HipChoice(best, tuple(found), tuple(problems), wanted, bool(named))


def require_hip_toolchain(target: "Target", explicit: str | None = None, *, allow_older: bool = False,
                          path_env: str | None = None, tool_dirs: Sequence[str] | None = None) -> HipChoice:
    """:func:`choose_hip_toolchain` for ``target``, raising :class:`ToolchainError` when it cannot prove it.

    Raises when no hipcc runs, and when the only ones are older than the
    target's HIP release unless ``allow_older`` (the caller then reports
    :meth:`HipChoice.warning`).
    """
    choice = choose_hip_toolchain(target.hip_version, explicit, path_env=path_env, tool_dirs=tool_dirs)
    if choice.toolchain is None:
        why = "; ".join(choice.problems) or "no hipcc on PATH, in $ROCM_PATH/bin, /opt/rocm/bin or a vado ROCm chroot"
        raise ToolchainError("hipcc not found", why, HIPCC_TIP)
    if choice.older and not allow_older:
        tc = choice.toolchain
        w = choice.wanted
        raise ToolchainError(
            f"no toolchain for {target.name}",
            f"{'the hipcc given' if choice.explicit else 'the newest hipcc found'} is HIP {tc.hip_version} ({tc.path}), older than {target.name}'s HIP {w[0]}.{w[1]}: "
            "its errors would be for the wrong reasons and its passes would prove nothing for the target",
            f"{ROCM_CHROOT_TIP}; or pass --target for the release you have (e.g. --target hip-5.2 for a port "
            "made with --target hip-5.2); or --allow-old-toolchain to compile anyway",
        )
    return choice


def hip_toolchain(hipcc: str, *, path_env: str | None = None, limits: Limits = PROBE_LIMITS) -> HipToolchain:
    """Ask ``hipcc --version`` (under ``HIP_PLATFORM=amd``) for its HIP and clang versions.

    Raises :class:`ToolchainError` when it cannot run or prints no HIP version.
    """
    env = hip_env(_search_env(path_env))
    out = run_limited([hipcc, "--version"], env=env, limits=limits)
    text = out.stdout + "\n" + out.stderr
    hip = re.search(r"HIP version:\s*(\S+)", text)
    if not out.ok or not hip:
        raise ToolchainError(
            f"{hipcc} --version failed",
            out.why() or "it printed no 'HIP version:' line",
            HIPCC_TIP,
        )
    clang = re.search(r"clang version\s+(\S+)", text)
    installed = re.search(r"InstalledDir:\s*(\S.*)", text)
    clang_path = ""
    chroot = chroot_of(hipcc)
    if chroot:
        # The wrapper's clang (a link to it) runs the chroot's clang: InstalledDir is a path inside.
        cand = os.path.join(os.path.dirname(hipcc), "clang")
        clang_path = cand if os.path.exists(cand) else ""
    elif installed:
        major = clang.group(1).split(".")[0] if clang else ""
        # Debian installs only the versioned name (clang-15) in /usr/bin.
        for name in ("clang", "clang++", f"clang-{major}"):
            cand = os.path.join(installed.group(1).strip(), name)
            if os.path.isfile(cand):
                clang_path = cand
                break
    known: tuple[str, ...] = ()
    if clang_path:
        res = run_limited([clang_path, "--target=amdgcn-amd-amdhsa", "-nogpulib", "--print-supported-cpus"],
                          env=env, limits=limits)
        known = tuple(sorted(set(_GFX.findall(res.stdout + res.stderr)), key=_arch_key))
    real = os.path.realpath(hipcc)
    if chroot:
        flavour = "chroot"
    else:
        flavour = "debian" if real.startswith("/usr/bin/") and not os.path.isdir("/opt/rocm") else "rocm"
    return HipToolchain(hipcc, hip.group(1), clang.group(1) if clang else "unknown", clang_path, known, flavour, chroot)


def _arch_key(arch: str) -> tuple[int, str]:
    digits = arch[3:]
    # gfx90a < gfx940 < gfx1100: major version is the leading 1–2 digits, then the rest.
    major = int(digits[:-2]) if len(digits) > 2 and digits[:-2].isdigit() else 0
    return (major, digits)


@dataclass(frozen=True)
class ArchProbe:
    """Whether a hipcc builds device code for ``arch``, and the compiler's reason when not."""

    arch: str
    ok: bool
    reason: str = ""
    cached: bool = False


def _cache_dir() -> Path:
    base = os.environ.get("VADO_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "vado"
    )
    return Path(base)


def _probe_key(tc: HipToolchain) -> str:
    try:
        st = os.stat(tc.path)
        stamp = f"{st.st_mtime_ns}:{st.st_size}"
    except OSError:
        stamp = "?"
    return hashlib.sha256(f"{os.path.realpath(tc.path)}|{stamp}|{tc.hip_version}|{tc.clang_version}".encode()).hexdigest()[:16]


def _first_error(stderr: str) -> str:
    for line in stderr.splitlines():
        if "error" in line:
            return line.strip()[:200]
    return stderr.strip().splitlines()[-1][:200] if stderr.strip() else ""


def probe_archs(tc: HipToolchain, archs: Iterable[str], *, use_cache: bool = True,
                limits: Limits = COMPILE_LIMITS) -> dict[str, ArchProbe]:
    """Compile a tiny kernel for each arch with ``tc``; which ones build, and why not.

    Answers are cached per hipcc (path, mtime, size, versions) in
    ``$VADO_CACHE_DIR`` (default ``~/.cache/vado``) as ``arch-probe.json``.
    """
    archs = list(dict.fromkeys(archs))
    cache_file = _cache_dir() / "arch-probe.json"
    key = _probe_key(tc)
    cache: dict = {}
    if use_cache:
        try:
            cache = json.loads(cache_file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            cache = {}
    known = cache.get(key, {}) if isinstance(cache.get(key), dict) else {}
    result: dict[str, ArchProbe] = {}
    todo = [a for a in archs if a not in known]
    if todo:
        with tempfile.TemporaryDirectory(prefix="vado-probe-") as tmp:
            src = Path(tmp) / "probe.hip"
            src.write_text(_PROBE_SOURCE, encoding="utf-8")
            for arch in todo:
                out = run_limited(
                    [tc.path, f"--offload-arch={arch}", "-c", str(src), "-o", str(Path(tmp) / f"{arch}.o")],
                    cwd=tmp, env=hip_env(), limits=limits,
                )
                known[arch] = {"ok": out.ok, "reason": "" if out.ok else (_first_error(out.stderr) or out.why())}
                result[arch] = ArchProbe(arch, out.ok, known[arch]["reason"], cached=False)
        if use_cache:
            cache[key] = known
            try:
                cache_file.parent.mkdir(parents=True, exist_ok=True)
                tmpf = cache_file.with_suffix(".tmp")
                tmpf.write_text(json.dumps(cache, indent=1, sort_keys=True), encoding="utf-8")
                os.replace(tmpf, cache_file)
            except OSError:
                pass  # a cache that cannot be written only costs time
    for arch in archs:
        if arch not in result:
            entry = known[arch]
            result[arch] = ArchProbe(arch, bool(entry.get("ok")), str(entry.get("reason", "")), cached=True)
    return {a: result[a] for a in archs}


# ---------------------------------------------------------------------------
# nvcc, Triton, GPUs, packages


@dataclass(frozen=True)
class NvccToolchain:
    """An nvcc and its CUDA release (``13.0``) and full version (``V13.0.88``)."""

    path: str
    release: str
    version: str

    @property
    def label(self) -> str:
        """``nvcc (CUDA 13.0, V13.0.88)``."""
        return f"nvcc (CUDA {self.release}, {self.version})"


def find_nvcc(explicit: str | None = None, *, path_env: str | None = None,
              tool_dirs: Sequence[str] | None = None) -> str | None:
    """Path of nvcc: ``explicit``, ``$VADO_NVCC``, ``PATH``, then the install dirs."""
    for cand in (explicit, os.environ.get("VADO_NVCC")):
        if cand:
            return cand
    return _which("nvcc", path_env, default_tool_dirs() if tool_dirs is None else tool_dirs)


def nvcc_toolchain(nvcc: str, *, path_env: str | None = None) -> NvccToolchain:
    """``nvcc --version`` parsed; raises :class:`ToolchainError` when it does not answer."""
    out = run_limited([nvcc, "--version"], env=_search_env(path_env), limits=PROBE_LIMITS)
    m = re.search(r"release\s+(\d+(?:\.\d+)*),\s*(V\S+)", out.stdout + out.stderr)
    if not out.ok or not m:
        raise ToolchainError(f"{nvcc} --version failed", out.why() or "no 'release X.Y, VX.Y.Z' line", NVCC_TIP)
    return NvccToolchain(nvcc, m.group(1), m.group(2))


@dataclass(frozen=True)
class TritonInfo:
    """Triton as seen by one interpreter: version, and whether the AMD backend imports."""

    python: str
    found: bool
    version: str = ""
    amd_backend: bool = False
    problem: str = ""


_TRITON_PROBE = (
    "import json\n"
    "r = {'found': False}\n"
    "try:\n"
    "    import triton\n"
    "    r.update(found=True, version=triton.__version__)\n"
    "    try:\n"
    "        import triton.backends.amd.compiler  # noqa\n"
    "        from triton.backends.compiler import GPUTarget  # noqa\n"
    "        r['amd'] = True\n"
    "    except Exception as e:\n"
    "        r.update(amd=False, problem=type(e).__name__ + ': ' + str(e)[:200])\n"
    "except Exception as e:\n"
    "    r['problem'] = type(e).__name__ + ': ' + str(e)[:200]\n"
    "print(json.dumps(r))\n"
)


def triton_python() -> str:
    """The interpreter Triton kernels are compiled with: ``$VADO_PYTHON`` or this one."""
    return os.environ.get("VADO_PYTHON") or sys.executable


def triton_info(python: str | None = None) -> TritonInfo:
    """Import Triton in a child ``python`` and report what it has (never raises)."""
    python = python or triton_python()
    try:
        out = run_limited([python, "-c", _TRITON_PROBE], limits=PROBE_LIMITS)
    except ToolchainError as exc:
        return TritonInfo(python, False, problem=exc.why)
    try:
        data = json.loads(out.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return TritonInfo(python, False, problem=f"probe failed ({out.why() or 'no answer'})")
    return TritonInfo(python, bool(data.get("found")), str(data.get("version", "")),
                      bool(data.get("amd")), str(data.get("problem", "")))


@dataclass(frozen=True)
class Gpu:
    """One GPU a vendor tool listed."""

    vendor: str
    name: str
    tool: str


def find_gpus(*, path_env: str | None = None, tool_dirs: Sequence[str] = ()) -> tuple[tuple[Gpu, ...], tuple[str, ...]]:
    """GPUs listed by ``nvidia-smi -L``, ``amd-smi list`` and ``rocm-smi``; and notes on tools that failed."""
    gpus: list[Gpu] = []
    notes: list[str] = []
    env = _search_env(path_env)
    smi = _which("nvidia-smi", path_env, tool_dirs)
    if smi:
        out = run_limited([smi, "-L"], env=env, limits=PROBE_LIMITS)
        if out.ok:
            for line in out.stdout.splitlines():
                m = re.match(r"GPU \d+:\s*(.*?)(?:\s*\(UUID:.*)?$", line.strip())
                if m:
                    gpus.append(Gpu("nvidia", m.group(1), "nvidia-smi"))
        else:
            notes.append(f"nvidia-smi -L failed ({out.why()}): {_first_error(out.stderr + out.stdout)}".rstrip(": "))
    amd = _which("amd-smi", path_env, tool_dirs)
    if amd:
        out = run_limited([amd, "list"], env=env, limits=PROBE_LIMITS)
        if out.ok:
            for line in out.stdout.splitlines():
                if re.match(r"\s*GPU:\s*\d+", line):
                    gpus.append(Gpu("amd", line.strip(), "amd-smi"))
        else:
            notes.append(f"amd-smi list failed ({out.why()})")
    rocm = _which("rocm-smi", path_env, tool_dirs) if not any(g.vendor == "amd" for g in gpus) else None
    if rocm:
        out = run_limited([rocm, "--showproductname"], env=env, limits=PROBE_LIMITS)
        if out.ok:
            for line in out.stdout.splitlines():
                m = re.search(r"Card [Ss]eries:\s*(.+)$", line)
                if m:
                    gpus.append(Gpu("amd", m.group(1).strip(), "rocm-smi"))
        else:
            notes.append(f"rocm-smi failed ({out.why()})")
    return tuple(gpus), tuple(notes)


def debian_packages(names: Sequence[str] = DEBIAN_PACKAGES, *, path_env: str | None = None) -> dict[str, str]:
    """Installed versions of Debian packages (``{}`` without dpkg-query)."""
    dq = _which("dpkg-query", path_env, ())
    if not dq:
        return {}
    out = run_limited([dq, "-W", "-f=${Package} ${Version} ${db:Status-Abbrev}\\n", *names],
                      env=_search_env(path_env), limits=PROBE_LIMITS)
    found: dict[str, str] = {}
    for line in out.stdout.splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[2].startswith("ii"):
            found[parts[0]] = parts[1]
    return found


# ---------------------------------------------------------------------------
# doctor


@dataclass(frozen=True)
class DoctorReport:
    """Everything ``vado doctor`` found, plus the tips for what is missing."""

    hip: HipToolchain | None = None
    hip_problem: str = ""
    archs: tuple[ArchProbe, ...] = ()
    #: Every hipcc found (the chosen one included), by discovery order.
    hip_all: tuple[HipToolchain, ...] = ()
    nvcc: NvccToolchain | None = None
    nvcc_problem: str = ""
    triton: TritonInfo | None = None
    gpus: tuple[Gpu, ...] = ()
    gpu_notes: tuple[str, ...] = ()
    packages: dict[str, str] = field(default_factory=dict)
    tips: tuple[str, ...] = ()

    def to_json(self) -> dict:
        """A plain-JSON view (for ``vado doctor --format json``)."""
        from dataclasses import asdict

        d = asdict(self)
        d["archs"] = [asdict(a) for a in self.archs]
        return d


def doctor(
    *,
    hipcc: str | None = None,
    nvcc: str | None = None,
    python: str | None = None,
    archs: Sequence[str] = DEFAULT_ARCHS,
    probe: bool = True,
    path_env: str | None = None,
    tool_dirs: Sequence[str] | None = None,
    use_cache: bool = True,
    chroots: Sequence[str] | None = None,
) -> DoctorReport:
    """Discover every toolchain vado can use and say how to get the missing ones."""
    dirs = default_tool_dirs() if tool_dirs is None else tuple(tool_dirs)
    tips: list[str] = []
    hip = None
    hip_problem = ""
    probes: tuple[ArchProbe, ...] = ()
    # The hipcc that proves ports of the default target (rocm-7.2), chosen by version as verify does.
    from vado.knowledge.targets import get_target

    default_hip = get_target().hip_version
    choice = choose_hip_toolchain(default_hip, hipcc, path_env=path_env, tool_dirs=dirs, chroots=chroots)
    hip = choice.toolchain
    if hip is None:
        hip_problem = "; ".join(choice.problems) or "not found"
        tips.append(f"hipcc: {HIPCC_TIP}")
    else:
        if choice.older:
            tips.append(f"hipcc: {choice.warning(get_target().name)}; {ROCM_CHROOT_TIP}")
        if probe:
            probes = tuple(probe_archs(hip, archs, use_cache=use_cache).values())
            missing = [p.arch for p in probes if not p.ok]
            if missing:
                tips.append(
                    f"offload targets {', '.join(missing)} do not build with HIP {hip.hip_version}: "
                    "install a ROCm release that supports them (see the ROCm compatibility matrix)"
                    + ("" if hip.release >= hip_release(default_hip) else f", or {ROCM_CHROOT_TIP}")
                )
    nv = None
    nvcc_problem = ""
    npath = find_nvcc(nvcc, path_env=path_env, tool_dirs=dirs)
    if npath:
        try:
            nv = nvcc_toolchain(npath, path_env=path_env)
        except ToolchainError as exc:
            nvcc_problem = exc.why
    else:
        nvcc_problem = "not found"
    if nv is None:
        tips.append(f"nvcc: {NVCC_TIP}")
    tri = triton_info(python)
    if not tri.found:
        tips.append(f"triton: {TRITON_TIP}")
    elif not tri.amd_backend:
        tips.append(f"triton {tri.version} has no usable AMD backend: {TRITON_TIP}")
    gpus, notes = find_gpus(path_env=path_env, tool_dirs=dirs)
    if not gpus:
        tips.append(f"gpu: {GPU_TIP}")
    packages = debian_packages(path_env=path_env)
    return DoctorReport(hip, hip_problem, probes, choice.found, nv, nvcc_problem, tri, gpus, notes, packages, tuple(tips))
