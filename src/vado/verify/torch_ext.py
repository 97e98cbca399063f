"""Compile proof of a PyTorch extension for an AMD GPU, the way ``torch.utils.cpp_extension`` builds it on ROCm.

On ROCm, ``CUDAExtension`` runs PyTorch's hipify over the extension's sources at build time
(``hipify_python.hipify(..., is_pytorch_extension=True, hipify_extra_files_only=True)``:
``x.cu`` becomes ``x.hip``, a ``.cpp`` that changes becomes ``x_hip.cpp``), then compiles
``.hip`` files with hipcc (``COMMON_HIPCC_FLAGS + COMMON_HIP_FLAGS`` and ``--offload-arch``)
and ``.cpp`` files with the host compiler (``COMMON_HIP_FLAGS``). :func:`compile_extension`
does the same in a copy of the project (the user's tree is never written), against headers
from :mod:`vado.verify.torch_headers`, and compiles objects only (no link).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from vado.verify.torch_headers import TorchHeaders, TorchHeadersError

# torch/utils/cpp_extension.py (2.13): COMMON_HIP_FLAGS (+ -fPIC off Windows) and COMMON_HIPCC_FLAGS.
COMMON_HIP_FLAGS = ("-D__HIP_PLATFORM_AMD__=1", "-DUSE_ROCM=1", "-DHIPBLAS_V2", "-fPIC")
COMMON_HIPCC_FLAGS = ("-DCUDA_HAS_FP16=1", "-D__HIP_NO_HALF_OPERATORS__=1", "-D__HIP_NO_HALF_CONVERSIONS__=1",
                      "-DHIP_ENABLE_WARP_SYNC_BUILTINS=1")

_HIPIFY_DRIVER = r"""
import json, os, sys
from hipify import hipify_python
proj, sources, inc = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3])
res = hipify_python.hipify(project_directory=proj, output_directory=proj, header_include_dirs=inc,
                           includes=[os.path.join(proj, "*")], extra_files=sources, show_detailed=False,
                           is_pytorch_extension=True, hipify_extra_files_only=True, show_progress=False)
out = {s: (res[s].hipified_path if s in res and res[s].hipified_path else s) for s in sources}
sys.stderr.write("\n@@VADO@@" + json.dumps(out))
"""


@dataclass(frozen=True)
class TUResult:
    """One translation unit: its source (relative to the project), what was compiled, the outcome."""

    source: str
    compiled: str
    ok: bool
    command: tuple[str, ...]
    log: str
    seconds: float = 0.0

    def first_error(self) -> str:
        """The first ``error:`` line of the log ('' when none)."""
        for line in self.log.splitlines():
            if "error:" in line:
                return line.strip()
        return ""


def hipify_sources(project: Path, sources: Sequence[str], headers: TorchHeaders,
                   include_dirs: Sequence[str] = (), timeout: float = 600.0) -> dict[str, str]:
    """Hipify ``sources`` (relative to ``project``) in place in ``project``; {source: hipified, relative}."""
    abs_sources = [str((project / s).resolve()) for s in sources]
    env = dict(os.environ, PYTHONPATH=str(headers.hipify), PYTHONDONTWRITEBYTECODE="1")
    import json

    cmd = [sys.executable, "-c", _HIPIFY_DRIVER, str(project.resolve()), json.dumps(abs_sources),
           json.dumps(list(include_dirs))]
    try:
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, errors="replace",
                              timeout=timeout, cwd=project)
    except subprocess.TimeoutExpired as exc:
        raise TorchHeadersError("hipify of the extension timed out", f"after {timeout:.0f} s") from exc
    marker = proc.stderr.rfind("@@VADO@@")
    if proc.returncode != 0 or marker < 0:
        tail = " | ".join(proc.stderr.strip().splitlines()[-3:])
        raise TorchHeadersError("hipify of the extension failed", tail)
    mapping = json.loads(proc.stderr[marker + len("@@VADO@@"):])
    root = str(project.resolve())
    return {s: os.path.relpath(mapping[a], root) for s, a in zip(sources, abs_sources)}


def tu_command(hipcc: str, source: Path, obj: Path, headers: TorchHeaders, *, arch: str, name: str,
               include_dirs: Sequence[Path] = (), defines: Sequence[str] = (),
               extra: Sequence[str] = ()) -> list[str]:
    """The compile line cpp_extension uses on ROCm for ``source`` (a ``.hip`` or a host ``.cpp``)."""
    py_inc = sysconfig.get_paths()["include"]
    cmd = [hipcc]
    if source.suffix == ".hip":
        cmd += [*COMMON_HIPCC_FLAGS, *COMMON_HIP_FLAGS, f"--offload-arch={arch}", "-fno-gpu-rdc"]
    else:  # a host TU: hipcc in host-only mode stands in for the host compiler (same clang)
        cmd += ["-x", "c++", *COMMON_HIP_FLAGS]
    cmd += [f"-I{d}" for d in include_dirs]
    cmd += [f"-I{d}" for d in headers.include_dirs()] + [f"-I{py_inc}"]
    cmd += [f"-D{d}" for d in defines]
    cmd += [f"-DTORCH_EXTENSION_NAME={name}", "-DTORCH_API_INCLUDE_EXTENSION_H", "-D_GLIBCXX_USE_CXX11_ABI=1",
            "-std=c++17", *extra, "-c", str(source), "-o", str(obj)]
    return cmd


def compile_extension(project: Path, sources: Sequence[str], headers: TorchHeaders, hipcc: str, *,
                      arch: str = "gfx942", name: str = "ext", include_dirs: Sequence[str] = (),
                      defines: Sequence[str] = (), extra: Sequence[str] = (),
                      flag_include_dirs: Sequence[str] = (), timeout: float = 600.0,
                      extra_host: Sequence[str] | None = None) -> list[TUResult]:
    """Hipify a copy of ``project`` as cpp_extension does on ROCm and compile each of ``sources`` to an object.

    ``sources`` and ``include_dirs`` are relative to ``project`` (as in the extension's setup.py):
    ``include_dirs`` are the ``CUDAExtension(include_dirs=…)``, which hipify searches (the headers it
    finds there it rewrites too); ``flag_include_dirs`` are directories setup.py passes as ``-I`` flags
    in ``extra_compile_args`` instead, which the compiler searches and hipify does not. ``extra`` are the
    device compiler's flags (``extra_compile_args["nvcc"]``, which hipcc reads on ROCm), ``extra_host`` the
    host compiler's (``["cxx"]``); without ``extra_host`` host TUs get ``extra`` too.
    """
    results: list[TUResult] = []
    with tempfile.TemporaryDirectory(prefix="vado-torchext-") as tmp:
        work = Path(tmp) / "src"
        shutil.copytree(project, work, symlinks=True)
        mapping = hipify_sources(work, sources, headers, include_dirs, timeout)
        incs = [work / d for d in include_dirs]
        flag_incs = [f"-I{work / d}" for d in flag_include_dirs]
        host_extra = [*(extra if extra_host is None else extra_host), *flag_incs]
        extra = [*extra, *flag_incs]
        for i, src in enumerate(sources):
            hip = work / mapping[src]
            obj = Path(tmp) / f"tu{i}.o"
            cmd = tu_command(hipcc, hip, obj, headers, arch=arch, name=name, include_dirs=incs,
                             defines=defines, extra=extra if hip.suffix == ".hip" else host_extra)
            start = time.monotonic()
            try:
                proc = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=timeout,
                                      cwd=work)
                ok, log = proc.returncode == 0 and obj.is_file(), proc.stdout + proc.stderr
            except subprocess.TimeoutExpired:
                ok, log = False, f"timed out after {timeout:.0f} s"
            except OSError as exc:
                ok, log = False, f"cannot run {hipcc}: {exc}"
            results.append(TUResult(src, mapping[src], ok, tuple(cmd), log.replace(str(work) + "/", ""),
                                    round(time.monotonic() - start, 1)))
    return results
