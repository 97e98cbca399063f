"""PyTorch's ROCm C++ headers, assembled from public pieces, for compile proofs of torch extensions.

A ROCm build of PyTorch installs headers that a CPU or CUDA wheel lacks (``c10/hip``,
``ATen/hip``...). They are not hand-written: PyTorch's ROCm build runs its own hipify
(``tools/amd_build/build_amd.py`` calling ``torch.utils.hipify.hipify_python.hipify``) over
the CUDA sources, then CMake configures two templates. This module redoes that from:

- the headers of a PyTorch wheel (any flavour; a CPU wheel ships ``ATen/cuda``, ``c10/cuda``
  and the hand-written ``ATen/hip/impl/*MasqueradingAsCUDA.h``) and the wheel's own
  ``torch/utils/hipify`` (it imports nothing from torch);
- two CMake templates from PyTorch's repository at the matching tag, which no wheel ships:
  :data:`TEMPLATES`. The user points at a directory holding them (the PyTorch source
  layout); a missing one is named in :class:`TorchHeadersError`.

The result is a directory laid out like a ROCm wheel's ``torch/include``. It is built in a
temporary directory beside the destination and renamed into place, so a half-built tree is
never used. Nothing here prints; hipify's own output is captured in the subprocess.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from vado.errors import ToolchainError

#: The CMake templates (paths in PyTorch's repository) that a ROCm build configures and no
#: wheel ships. hipify renames them (``cuda`` -> ``hip``) before CMake fills them in.
TEMPLATES = (
    "c10/cuda/impl/cuda_cmake_macros.h.in",
    "aten/src/ATen/cuda/CUDAConfig.h.in",
)

# Where the wheel's include tree sits in PyTorch's source layout; hipify decides on
# in-place vs out-of-place output and on its mappings by these source paths.
_SOURCE_PREFIX = {"ATen": "aten/src/ATen", "c10": "c10", "torch": "torch", "caffe2": "caffe2"}

# The header part of build_amd.py's ``includes`` and ``ignores`` (PyTorch 2.x).
_INCLUDES = (
    "c10/cuda/*",
    "aten/src/ATen/cuda/*",
    "aten/src/ATen/native/cuda/*",
    "aten/src/ATen/native/cudnn/*",
    "aten/src/ATen/native/quantized/cudnn/*",
    "aten/src/ATen/native/nested/cuda/*",
    "aten/src/ATen/native/sparse/cuda/*",
    "aten/src/ATen/native/quantized/cuda/*",
    "aten/src/ATen/native/transformers/cuda/*",
    "caffe2/core/*",
    "caffe2/utils/*",
    "torch/*",
)
_IGNORES = (
    "*/hip/*",
    "aten/src/ATen/core/*",
    "aten/src/ATen/cuda/CUDAConfig.h",
    "torch/csrc/jit/codegen/fuser/cuda/resource_strings.h",
    "torch/csrc/jit/tensorexpr/ir_printer.cpp",
)

# What CMake puts into the templates for a ROCm build (cmake/Dependencies.cmake,
# aten/CMakeLists.txt): cuDNN off, ROCm on, MAGMA as in the published ROCm wheels.
_CMAKE_VALUES = {
    "AT_CUDNN_ENABLED": "0",
    "AT_ROCM_ENABLED": "1",
    "AT_MAGMA_ENABLED": "1",
    "NVCC_FLAGS_EXTRA": "",
}
_CMAKE_DEFINED = {"C10_CUDA_BUILD_SHARED_LIBS", "C10_HIP_BUILD_SHARED_LIBS"}

_STAMP = "vado-torch-rocm-headers.json"
_FORMAT = 1


class TorchHeadersError(ToolchainError):
    """The ROCm headers could not be assembled (a piece is missing or hipify failed)."""


@dataclass(frozen=True)
class TorchHeaders:
    """An assembled tree: ``include`` is the ``-I`` root (like a ROCm wheel's ``torch/include``).

    ``hipify`` is the directory holding the ``hipify`` package used (the wheel's), for
    hipifying extension sources the way ``torch.utils.cpp_extension`` does on ROCm.
    """

    root: Path
    include: Path
    hipify: Path
    torch_version: str
    generated: tuple[str, ...] = field(default=())

    def include_dirs(self) -> tuple[Path, ...]:
        """The ``-I`` list ``torch.utils.cpp_extension.include_paths()`` gives on ROCm."""
        inc = self.include
        return (inc, inc / "torch" / "csrc" / "api" / "include")


def default_cache_root() -> Path | None:
    """``$VADO_CACHE_DIR``/``$XDG_CACHE_HOME``/``~/.cache`` + ``vado/torch-rocm-headers`` (None if off)."""
    from vado.knowledge._cache import cache_dir

    base = cache_dir()
    return None if base is None else base / "torch-rocm-headers"


def find_assembled(torch_version: str, cache_root: Path | None = None) -> TorchHeaders | None:
    """The tree assembled earlier for ``torch_version`` (e.g. ``"2.13.0"``), or None."""
    root = cache_root if cache_root is not None else default_cache_root()
    if root is None:
        return None
    return _load(root / torch_version)


def _load(dest: Path) -> TorchHeaders | None:
    try:
        meta = json.loads((dest / _STAMP).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(meta, dict) or meta.get("format") != _FORMAT:
        return None
    include, hip = dest / "include", dest / "hipify"
    if not (include / "c10" / "hip").is_dir() or not (hip / "hipify").is_dir():
        return None
    return TorchHeaders(dest, include, hip, str(meta.get("torch_version", "")),
                        tuple(meta.get("generated", ())))


def assemble(wheel: Path, pytorch_src: Path, *, cache_root: Path | None = None,
             timeout: float = 1800.0) -> TorchHeaders:
    """Build (or reuse) the ROCm header tree from ``wheel`` and the templates under ``pytorch_src``.

    ``wheel`` is a ``torch-*.whl`` file or an installed ``torch`` package directory.
    ``pytorch_src`` holds :data:`TEMPLATES` at their repository paths. Raises
    :class:`TorchHeadersError` naming what is missing or what failed.
    """
    missing = [t for t in TEMPLATES if not (pytorch_src / t).is_file()]
    if missing:
        raise TorchHeadersError(
            "cannot assemble PyTorch's ROCm headers",
            f"missing from {pytorch_src}: {', '.join(missing)}",
            "copy these files from github.com/pytorch/pytorch at the tag of the wheel's version")
    root = cache_root if cache_root is not None else default_cache_root()
    if root is None:
        raise TorchHeadersError("cannot assemble PyTorch's ROCm headers", "caching is off (VADO_CACHE_DIR=off)",
                                "pass a cache directory")
    known = _zip_version(wheel)  # a built tree is found without unpacking 60 MB of headers
    if known is not None:
        found = _load(root / known)
        if found is not None:
            return found
    with tempfile.TemporaryDirectory(prefix="vado-torch-wheel-") as tmp:
        torch_dir = _torch_dir(wheel, Path(tmp))
        version = _torch_version(torch_dir)
        dest = root / version
        found = _load(dest)
        if found is not None:
            return found
        root.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix=f".{version}-", dir=root))
        try:
            generated = _build(torch_dir, pytorch_src, work, timeout)
            meta = {"format": _FORMAT, "torch_version": version, "wheel": str(wheel),
                    "templates": {t: _sha256(pytorch_src / t) for t in TEMPLATES},
                    "generated": generated}
            (work / _STAMP).write_text(json.dumps(meta, indent=1), encoding="utf-8")
            if dest.exists():  # a stale or foreign tree: ours only when it carries our stamp
                if not (dest / _STAMP).is_file():
                    raise TorchHeadersError("cannot assemble PyTorch's ROCm headers",
                                            f"{dest} exists and is not a tree vado made", "remove it or pick another cache")
                shutil.rmtree(dest)
            os.replace(work, dest)
        finally:
            if work.exists():
                shutil.rmtree(work, ignore_errors=True)
    loaded = _load(dest)
    if loaded is None:
        raise TorchHeadersError("cannot assemble PyTorch's ROCm headers", f"{dest} is incomplete after the build")
    return loaded


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _torch_dir(wheel: Path, tmp: Path) -> Path:
    """A directory holding ``torch/include``, ``torch/utils/hipify`` and ``torch/version.py``."""
    if wheel.is_dir():
        torch_dir = wheel if (wheel / "include").is_dir() else wheel / "torch"
    elif zipfile.is_zipfile(wheel):
        wanted = ("torch/include/", "torch/utils/hipify/", "torch/version.py")
        try:
            with zipfile.ZipFile(wheel) as zf:
                names = [n for n in zf.namelist() if n.startswith(wanted) and not n.endswith("/")]
                for n in names:
                    if ".." in Path(n).parts:  # a hostile archive member
                        continue
                    zf.extract(n, tmp)
        except (OSError, zipfile.BadZipFile) as exc:
            raise TorchHeadersError("cannot read the torch wheel", f"{wheel}: {exc}") from exc
        torch_dir = tmp / "torch"
    else:
        raise TorchHeadersError("cannot read the torch wheel", f"{wheel} is neither a wheel nor a directory")
    for need in ("include/c10/cuda", "include/ATen/cuda", "utils/hipify/hipify_python.py"):
        if not (torch_dir / need).exists():
            raise TorchHeadersError("cannot assemble PyTorch's ROCm headers",
                                    f"the torch package at {wheel} has no {need}",
                                    "use a PyTorch 2.x wheel (the CPU wheel is enough)")
    return torch_dir


def _zip_version(wheel: Path) -> str | None:
    """The version a wheel file's ``torch/version.py`` names, or None (not a wheel, unreadable)."""
    try:
        if not wheel.is_file() or not zipfile.is_zipfile(wheel):
            return None
        with zipfile.ZipFile(wheel) as zf:
            text = zf.read("torch/version.py").decode("utf-8", "replace")
    except (OSError, KeyError, zipfile.BadZipFile):
        return None
    m = _VERSION.search(text)
    return m.group(1) if m else None


_VERSION = re.compile(r"""__version__\s*=\s*['"]([0-9][0-9A-Za-z.]*)""")


def _torch_version(torch_dir: Path) -> str:
    try:
        text = (torch_dir / "version.py").read_text(encoding="utf-8")
    except OSError as exc:
        raise TorchHeadersError("cannot tell the torch version", str(exc)) from exc
    m = _VERSION.search(text)
    if not m:
        raise TorchHeadersError("cannot tell the torch version", f"no __version__ in {torch_dir / 'version.py'}")
    return m.group(1)


def _build(torch_dir: Path, pytorch_src: Path, work: Path, timeout: float) -> list[str]:
    """Stage in PyTorch's source layout, hipify, configure the templates, lay out as a wheel."""
    stage, include = work / "stage", work / "include"
    include.mkdir(parents=True)
    src_inc = torch_dir / "include"
    for entry in sorted(os.listdir(src_inc)):
        target = stage / _SOURCE_PREFIX[entry] if entry in _SOURCE_PREFIX else include / entry
        _copy(src_inc / entry, target)
    for t in TEMPLATES:
        _copy(pytorch_src / t, stage / t)
    shutil.copytree(torch_dir / "utils" / "hipify", work / "hipify" / "hipify")
    _run_hipify(work / "hipify", stage, timeout)
    generated = _configure(stage)
    for entry, prefix in _SOURCE_PREFIX.items():
        if (stage / prefix).exists():
            shutil.move(str(stage / prefix), str(include / entry))
    shutil.rmtree(stage)
    for t in TEMPLATES:  # the .in files and their hipified twins are not headers
        for p in include.rglob(Path(t).name.replace("cuda", "hip").replace("CUDA", "HIP")):
            p.unlink()
        for p in include.rglob(Path(t).name):
            p.unlink()
    return generated


def _copy(src: Path, dst: Path) -> None:
    dst.parent.mkdir(parents=True, exist_ok=True)
    if src.is_dir():
        shutil.copytree(src, dst, symlinks=True)
    else:
        shutil.copy2(src, dst)


_HIPIFY_DRIVER = r"""
import os, sys
from hipify import hipify_python
proj = sys.argv[1]
includes = [os.path.join(proj, p) for p in sys.argv[2].split(";")]
ignores = [os.path.join(proj, p) for p in sys.argv[3].split(";")]
hipify_python.hipify(project_directory=proj, output_directory=proj, includes=includes,
                     ignores=ignores, hip_clang_launch=True, show_progress=False)
"""


def _run_hipify(hipify_dir: Path, stage: Path, timeout: float) -> None:
    """Run the wheel's hipify over the staged tree as build_amd.py does (own process: it prints)."""
    env = dict(os.environ, PYTHONPATH=str(hipify_dir), PYTHONDONTWRITEBYTECODE="1")
    cmd = [sys.executable, "-c", _HIPIFY_DRIVER, str(stage), ";".join(_INCLUDES), ";".join(_IGNORES)]
    try:
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, errors="replace", timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        raise TorchHeadersError("hipify of PyTorch's headers timed out", f"after {timeout:.0f} s") from exc
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        raise TorchHeadersError("hipify of PyTorch's headers failed", " | ".join(tail))


def _configure(stage: Path) -> list[str]:
    """Fill the hipified templates as CMake does for ROCm; also the CUDA-named config some headers include."""
    written = []
    for t in TEMPLATES:
        hip_in = stage / t.replace("cuda", "hip").replace("CUDA", "HIP")
        for template, out in ((hip_in, hip_in), (stage / t, stage / t)):
            if not template.is_file():
                raise TorchHeadersError("cannot configure PyTorch's ROCm headers",
                                        f"hipify produced no {template.relative_to(stage)}")
            header = out.with_suffix("")  # drop .in
            header.write_text(_fill(template.read_text(encoding="utf-8")), encoding="utf-8")
            written.append(_include_path(str(header.relative_to(stage))))
    return written


def _include_path(source_path: str) -> str:
    """Where a staged source path lands in the include tree (``aten/src/ATen/x`` -> ``ATen/x``)."""
    for entry, prefix in _SOURCE_PREFIX.items():
        if source_path.startswith(prefix + "/"):
            return entry + source_path[len(prefix):]
    return source_path


def _fill(text: str) -> str:
    def cmakedefine(m: re.Match[str]) -> str:
        name = m.group(1)
        return f"#define {name}" if name in _CMAKE_DEFINED else f"/* #undef {name} */"

    text = re.sub(r"^#cmakedefine\s+(\w+).*$", cmakedefine, text, flags=re.M)

    def at_var(m: re.Match[str]) -> str:
        name = m.group(1)
        if name in _CMAKE_VALUES:
            return _CMAKE_VALUES[name]
        if name.endswith(("_VERSION_MAJOR", "_VERSION_MINOR", "_VERSION_PATCH", "_VERSION_BUILD")):
            return "0"  # a ROCm build leaves the CUDA version fields at zero
        raise TorchHeadersError("cannot configure PyTorch's ROCm headers", f"unknown template variable @{name}@")

    return re.sub(r"@(\w+)@", at_var, text)
