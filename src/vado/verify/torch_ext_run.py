"""Run a PyTorch extension's port on an NVIDIA GPU through HIP on CUDA, next to the original.

A torch-extension port (:mod:`vado.port.torch_ext`) keeps the CUDA spelling and puts what AMD needs
in ``#if defined(USE_ROCM)`` branches; on ROCm, PyTorch's hipify and hipcc build it with
``USE_ROCM`` defined. :func:`write_prelude` and :func:`port_build_copy` let the CUDA build of
PyTorch (``torch.utils.cpp_extension`` with nvcc) compile those ROCm branches instead:

- every ``.cu`` TU of the port is compiled with ``-include`` a prelude that first includes the
  PyTorch, CUDA and library headers the package's sources include (so they are read as the
  CUDA build of PyTorch wrote them), then defines ``USE_ROCM`` and includes vado's HIP-on-CUDA
  layer (:mod:`vado.verify.hip_on_cuda`; wave64: AMD's 64-lane waves emulated, ``warpSize`` 64,
  64-bit masks), and makes ``__ldg`` one template as HIP's is (CUDA PyTorch's ``__ldg(const
  c10::Half*)`` and a ROCm branch's own would otherwise be ambiguous: torch_scatter). The project's ``USE_ROCM`` branches and the port's own then compile with HIP's
  names and AMD's wave semantics, the CUDA-spelled rest with the emulated wave too;
- the sources are a copy whose kernels are marked for the emulation (``mark_kernel_exits``), and
  where a ROCm branch aliases CUB (``namespace cub = hipcub;``: hipcub is CUB itself here) the
  alias is dropped.

Host ``.cpp`` TUs are built as the CUDA build builds them (a host TU's ``USE_ROCM`` branch only
names the HIP version, which the CUDA build of PyTorch cannot include). The limits: PyTorch's
own device helpers (``WARP_SHFL_DOWN``…) and CUB keep CUDA's 32-lane warps, as a CUDA library
does under HIP on CUDA.

:func:`compare_outputs` compares what the op calls of the original and the port returned.
"""

from __future__ import annotations

import math
import os
import re
import shutil
from pathlib import Path
from typing import Any, Iterable, Mapping

from vado.verify import hip_on_cuda

#: Headers a prelude includes before ``USE_ROCM`` is defined: PyTorch's, CUDA's and CUDA libraries'.
_PRE_HEADER = re.compile(
    r"^(?:torch|ATen|c10|caffe2|pybind11|cub|thrust|cuda|cuda_\w+|cuComplex|curand\w*|cublas\w*|cusparse\w*|cufft\w*"
    r"|cooperative_groups|mma|crt|nv/|Python)\b")
_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*<([^>\n]+)>', re.M)
#: ``namespace cub = hipcub;``: a ROCm branch's alias; under HIP on CUDA hipcub is CUB's alias already.
_CUB_ALIAS = re.compile(r"\bnamespace[ \t]+cub[ \t]*=[ \t]*(?:::)?hipcub[ \t]*;")
_SOURCES = (".cu", ".cuh", ".h", ".hpp", ".cpp", ".cc", ".inl")


def prelude_headers(root: str | os.PathLike) -> list[str]:
    """The PyTorch/CUDA headers (``<…>``) the sources under ``root`` include, first-seen order, deduplicated."""
    seen: dict[str, None] = {}
    for path in sorted(Path(root).rglob("*")):
        if not path.is_file() or path.suffix not in _SOURCES:
            continue
        try:
            text = path.read_bytes().decode("latin-1")
        except OSError:
            continue
        for m in _INCLUDE.finditer(text):
            name = m.group(1).strip()
            if _PRE_HEADER.match(name) and name not in seen:
                seen[name] = None
    return list(seen)


def prelude_text(headers: Iterable[str], wave: int = 64) -> str:
    """The text of the prelude for a port's ``.cu`` TUs (see the module docstring)."""
    lines = ["// vado: HIP on CUDA prelude for a torch-extension port (generated).", "#pragma once",
             "// The CUDA build of PyTorch's headers first, as they are:"]
    lines += [f"#include <{h}>" for h in headers]
    lines += ["// Then the port's ROCm branches, on vado's HIP-on-CUDA layer:",
              "#ifndef USE_ROCM", "#define USE_ROCM 1", "#endif",
              "#include <hip/hip_runtime.h>",
              "// HIP's __ldg takes any T; CUDA PyTorch declares __ldg(const c10::Half*) too, which a ROCm branch's",
              "// own __ldg(const at::Half*) (ROCm PyTorch lacks it) would make ambiguous: one template, as in HIP.",
              "template <class VadoT> __device__ __forceinline__ VadoT vado_ldg(const VadoT* p) { return __ldg(p); }",
              "#define __ldg vado_ldg"]
    if wave == 64:
        lines += ["// c10's warp size on an AMD wave64 GPU (ROCm's C10_WARP_SIZE).",
                  "#undef C10_WARP_SIZE", "#define C10_WARP_SIZE 64"]
    return "\n".join(lines) + "\n"


def write_prelude(root: str | os.PathLike, dst: str | os.PathLike, wave: int = 64) -> Path:
    """Write the prelude for the sources under ``root`` to ``dst``; returns ``dst``."""
    out = Path(dst)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(prelude_text(prelude_headers(root), wave), encoding="utf-8")
    return out


def drop_cub_alias(text: str) -> tuple[str, int]:
    """``text`` without ``namespace cub = hipcub;`` (same length and lines), and how many there were."""
    return _CUB_ALIAS.subn(lambda m: " " * len(m.group()), text)


def port_build_copy(port_root: str | os.PathLike, dst: str | os.PathLike, wave: int = 64) -> dict[str, int]:
    """Copy the port at ``port_root`` to ``dst`` for the HIP-on-CUDA build; counts of what changed.

    wave64: kernels marked for the emulation (:func:`vado.verify.hip_on_cuda.copy_with_exit_marks`,
    unmarked files are links); both waves: CUB aliases dropped (:func:`drop_cub_alias`)."""
    dst = Path(dst)
    if wave == 64:
        kernels = hip_on_cuda.copy_with_exit_marks(port_root, dst)
    else:
        if dst.exists():
            shutil.rmtree(dst)
        shutil.copytree(port_root, dst, symlinks=True)
        kernels = 0
    aliases = 0
    for path in sorted(dst.rglob("*")):
        if path.suffix not in _SOURCES or not path.is_file():
            continue
        text = path.read_bytes().decode("latin-1")
        new, n = drop_cub_alias(text)
        if n:
            if path.is_symlink():
                path.unlink()
            path.write_bytes(new.encode("latin-1"))
            aliases += n
    return {"kernels_marked": kernels, "cub_aliases": aliases}


def _leaves(value: Any, prefix: str = "") -> Iterable[tuple[str, Any]]:
    if isinstance(value, Mapping):
        for k in sorted(value):
            yield from _leaves(value[k], f"{prefix}.{k}" if prefix else str(k))
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            yield from _leaves(v, f"{prefix}[{i}]")
    else:
        yield prefix, value


def compare_value(a: Any, b: Any, rtol: float, atol: float) -> tuple[str, str]:
    """How two leaves agree: ``("match"|"close"|"differ", why)``. Tensors by dtype, shape and values (floats
    within ``rtol``/``atol`` of each value, NaN where NaN; integers and booleans exactly); other values by
    equality.

    ``close``: some float values are off by more than their own tolerance, but every difference is within
    ``rtol`` of the tensor's largest magnitude (``atol + rtol * max|value|``). That is what a different order of
    float additions gives (atomicAdd from many threads, a reduction in another shape): an element that is a sum
    cancelling to near zero keeps the absolute error of the large terms. It is reported as such, not as a match."""
    if hasattr(a, "dtype") and hasattr(b, "dtype"):
        if a.dtype != b.dtype or tuple(a.shape) != tuple(b.shape):
            return "differ", f"dtype/shape {a.dtype}{tuple(a.shape)} vs {b.dtype}{tuple(b.shape)}"
        if a.is_floating_point():
            a64, b64 = a.double(), b.double()
            nan = a64.isnan() != b64.isnan()
            if bool(nan.any()):
                return "differ", f"NaN at {int(nan.sum())} places"
            fa, fb = a64.nan_to_num(0.0), b64.nan_to_num(0.0)
            diff = (fa - fb).abs()
            bad = diff > atol + rtol * fb.abs()
            worst = float(diff.max()) if diff.numel() else 0.0
            if not bool(bad.any()):
                return "match", f"max |diff| {worst:.3g}"
            scale = float(torch_max_abs(fa, fb))
            what = f"{int(bad.sum())}/{a.numel()} values differ (max |diff| {worst:.3g}"
            if worst <= atol + rtol * scale:
                return "close", what + f", within {rtol:g} of the largest |value| {scale:.3g}: order of float additions)"
            return "differ", what + f"; largest |value| {scale:.3g})"
        same = bool((a == b).all()) if a.numel() else True
        return ("match" if same else "differ"), "equal" if same else f"{int((a != b).sum())}/{a.numel()} values differ"
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return "match", "NaN"
    return ("match" if a == b else "differ"), "equal" if a == b else f"{a!r} vs {b!r}"


def torch_max_abs(*tensors: Any) -> float:
    """The largest magnitude over ``tensors`` (0.0 when all are empty)."""
    return max((float(t.abs().max()) for t in tensors if t.numel()), default=0.0)


def compare_outputs(orig: Mapping[str, Any], port: Mapping[str, Any], rtol: float = 1e-5,
                    atol: float = 1e-6) -> dict[str, dict[str, Any]]:
    """Per call: ``{"status": "match"|"close"|"differ"|"error"|"both-error", "detail": …}`` (``close``:
    :func:`compare_value`).

    A call's outputs are whatever it returned (tensors, tuples, dicts of them) or ``{"error": str}``."""
    out: dict[str, dict[str, Any]] = {}
    for name in sorted(set(orig) | set(port)):
        a, b = orig.get(name), port.get(name)
        a_err = isinstance(a, Mapping) and "error" in a and len(a) == 1
        b_err = isinstance(b, Mapping) and "error" in b and len(b) == 1
        if a is None or b is None:
            out[name] = {"status": "error", "detail": f"no result from the {'original' if a is None else 'port'}"}
            continue
        if a_err or b_err:
            status = "both-error" if a_err and b_err else "error"
            out[name] = {"status": status, "detail": {"original": a.get("error") if a_err else "ok",
                                                      "port": b.get("error") if b_err else "ok"}}
            continue
        la, lb = dict(_leaves(a)), dict(_leaves(b))
        if la.keys() != lb.keys():
            out[name] = {"status": "differ", "detail": f"outputs {sorted(la)} vs {sorted(lb)}"}
            continue
        details, statuses = {}, set()
        for key in la:
            status, why = compare_value(la[key], lb[key], rtol, atol)
            statuses.add(status)
            details[key or "out"] = why
        status = "differ" if "differ" in statuses else "close" if "close" in statuses else "match"
        out[name] = {"status": status, "detail": details}
    return out
