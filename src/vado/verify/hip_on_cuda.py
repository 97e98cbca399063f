"""HIP on CUDA: build a HIP port with the nvcc that builds the original, through headers vado generates.

A port says ``#include <hip/hip_runtime.h>`` and calls ``hipMalloc``,
``__shfl_down_sync(mask64, …)``, ``__ballot``. :func:`write_include_dir` writes
a directory to put first on nvcc's include path that answers those includes:

- ``vado_hip_on_cuda.h``: every HIP name of vado's API tables
  (``knowledge/data/api/*.csv``, libraries :data:`LIBRARIES`) as the CUDA name it
  came from (``#define hipMalloc cudaMalloc``), chosen so that a CUDA name CUDA
  13 removed or deprecated loses to one it keeps; then the HIP functions whose
  signature differs from CUDA's (:data:`_OVERRIDES`: ``hipLaunchKernelGGL``,
  ``hipHostMalloc``'s flags, ``HIP_SYMBOL`` …) written as CUDA; then one device
  layer (below).
- ``hip/hip_runtime.h`` and every other HIP header path of the tables
  (``hip/hip_fp16.h``, ``hipcub/hipcub.hpp``, ``hiprand/hiprand_kernel.h`` …):
  the CUDA header it came from, then ``vado_hip_on_cuda.h``. A library header is
  included with the device layer's macros pushed away (``#pragma push_macro``),
  so the CUDA library keeps CUDA's own warp functions.

The device layer is one of two files under ``verify/data/``:

- ``warp32`` (:data:`WAVES` 32): HIP's device functions on CUDA's 32-lane warps,
  as HIP itself runs on NVIDIA GPUs (``hip_on_cuda_warp32.cuh``);
- ``wave64`` (64): AMD's 64-lane wavefronts emulated on the NVIDIA GPU: two warps
  per wave that exchange through shared memory at each wave-wide call (a half that
  waits at ``__syncthreads()`` instead, or has left the kernel, is inactive there: the
  build marks each kernel of a copy of the port with :func:`mark_kernel_exits`),
  ``warpSize`` 64, every shuffle, vote, ballot
  and lane id over 64 lanes, ROCm 7's 64-bit masks (``hip_on_cuda_wave64.cuh``,
  whose header comment lists the limits), and HIP's cooperative groups on that wave
  (``hip_on_cuda_wave64_cg.cuh``: 64-lane tiles, ``coalesced_threads()`` over the
  wave, HIP's ballot widths), which ``hip/hip_cooperative_groups.h`` brings. A port
  that is right on MI300X gives the original's output here; one that keeps a
  32-lane assumption shows it.

:func:`nvcc_port_command` is the nvcc command that builds a port with that
directory. Nothing here needs a GPU: the headers compile with ``nvcc -c`` on any
machine that has nvcc.
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Sequence

from vado import package_files
from vado.errors import UsageError

#: Wave sizes a port can be run with: 32 (CUDA warps, HIP's NVIDIA platform) or 64 (AMD wave64, emulated).
WAVES = (32, 64)
#: API tables whose HIP names the generated header defines, and the CUDA header each library's HIP headers include.
LIBRARIES = {
    "runtime": "cuda_runtime.h",
    "driver": "cuda.h",
    "device": "cuda_runtime.h",
    "complex": "cuComplex.h",
    "cub": "cub/cub.cuh",
    "curand": "curand_kernel.h",
    "cublas": "cublas_v2.h",
    "cublaslt": "cublasLt.h",
    "cufft": "cufft.h",
    "cusparse": "cusparse.h",
}
#: Link flags a library's HIP header brings (the port links what the original linked; these cover HIP-only names).
LINK_FLAGS = {"curand": "-lcurand", "cublas": "-lcublas", "cublaslt": "-lcublasLt", "cufft": "-lcufft",
              "cusparse": "-lcusparse", "driver": "-lcuda"}
#: The generated header's name.
HEADER = "vado_hip_on_cuda.h"
_LAYER_FILES = {32: "hip_on_cuda_warp32.cuh", 64: "hip_on_cuda_wave64.cuh"}
#: HIP's cooperative groups on the emulated wave64 (``--wave 64``): included by ``hip/hip_cooperative_groups.h``
#: after CUDA's ``cooperative_groups.h`` and :data:`HEADER`, under this name.
CG_HEADER = "vado_hip_on_cuda_cg.h"
_CG_LAYER_FILE = "hip_on_cuda_wave64_cg.cuh"
#: The HIP header that brings cooperative groups.
_CG_HIP_HEADER = "hip/hip_cooperative_groups.h"
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
#: The device layers' macros, pushed away around a CUDA library's own headers.
_LAYER_MACROS = re.compile(r"^#define (\w+)[ (]", re.M)
#: The CUDA header a HIP library header stands for where several map to it (otherwise the shortest path wins).
_MAIN_HEADERS = {"hipcub/hipcub.hpp": "cub/cub.cuh", "hipblas/hipblas.h": "cublas_v2.h",
                 "hiprand/hiprand_kernel.h": "curand_kernel.h", "hipsolver/hipsolver.h": "cusolverDn.h",
                 # hipSPARSE → cuSPARSE (cusparse_v2.h is a legacy alias of cusparse.h). ROCm 7.2.4 ships only
                 # hipsparse/hipsparse.h (no top-level hipsparse.h), so the layer has no other path either.
                 "hipsparse/hipsparse.h": "cusparse.h"}
#: HIP headers the tables have no header row for, and the CUDA header each stands for (ROCm's names).
_EXTRA_HEADERS = {"hip/hip_bf16.h": "cuda_bf16.h", "hip/hip_fp8.h": "cuda_fp8.h", "hip/hip_runtime.h": "cuda_runtime.h",
                  "hip/hip_runtime_api.h": "cuda_runtime_api.h", "hip/hip_cooperative_groups.h": "cooperative_groups.h",
                  "hip/hip_complex.h": "cuComplex.h", "hip/math_functions.h": "cuda_runtime.h"}

#: The HIP headers that bring HIP's whole runtime API.
_RUNTIME_API_HEADERS = ("hip/hip_runtime.h", "hip/hip_runtime_api.h")
#: The CUDA runtime headers beside cuda_runtime_api.h that declare parts of what hip_runtime_api.h declares.
_RUNTIME_API_EXTRAS = ("cuda_profiler_api.h",)

#: HIP functions and macros whose form differs from the CUDA name they map to, written as CUDA.
_OVERRIDES = r"""
// HIP spellings whose form differs from CUDA's (vado's overrides of the table's #defines).
#undef hipLaunchKernelGGL
#define hipLaunchKernelGGL(kernel, grid, block, shmem, stream, ...) \
  kernel<<<(grid), (block), (shmem), (stream)>>>(__VA_ARGS__)
#define hipLaunchKernelNameGGL(name, kernel, grid, block, shmem, stream, ...) \
  kernel<<<(grid), (block), (shmem), (stream)>>>(__VA_ARGS__)
#define HIP_KERNEL_NAME(...) __VA_ARGS__
#define HIP_SYMBOL(x) (x)
#define HIP_DYNAMIC_SHARED(type, var) extern __shared__ type var[];
#define HIP_DYNAMIC_SHARED_ATTRIBUTE
#define hipThreadIdx_x threadIdx.x
#define hipThreadIdx_y threadIdx.y
#define hipThreadIdx_z threadIdx.z
#define hipBlockIdx_x blockIdx.x
#define hipBlockIdx_y blockIdx.y
#define hipBlockIdx_z blockIdx.z
#define hipBlockDim_x blockDim.x
#define hipBlockDim_y blockDim.y
#define hipBlockDim_z blockDim.z
#define hipGridDim_x gridDim.x
#define hipGridDim_y gridDim.y
#define hipGridDim_z gridDim.z
#if defined(__CUDA_ARCH__)
#define __HIP_DEVICE_COMPILE__ 1
#endif
// rocBLAS-era bfloat16 type that HIP still ships (hip/hip_bfloat16.h); CUDA's bfloat16 stands for it.
typedef __nv_bfloat16 hip_bfloat16;
// clang's nontemporal builtins, which hipcc has and nvcc does not: vado's port spells CUDA's __ldcs/__stcs and PTX
// .cs loads with them (vado.port.cache_hints, rules.ptx_lower). The hint is a cache policy, not a value: here a
// plain load and store of the same type.
#if !defined(__clang__) || defined(__CUDA_ARCH__)  // nvcc: its device pass (EDG) lacks them, whatever the host compiler
template <class T>
static __device__ __forceinline__ T __builtin_nontemporal_load(const T* p) { return *p; }
template <class T>
static __device__ __forceinline__ void __builtin_nontemporal_store(T v, T* p) { *p = v; }
#endif
// HIP functions that CUDA overloads in C++ with arguments HIP does not take: CUDA's name would accept them here
// and ROCm would not (cudaEventCreate(event, flags) is hipEventCreateWithFlags in HIP).
#undef hipEventCreate
static inline cudaError_t hipEventCreate(cudaEvent_t* event) { return cudaEventCreate(event); }
#undef hipHostMalloc
template <class T>
static inline cudaError_t hipHostMalloc(T** ptr, size_t size, unsigned int flags = 0) {
  return cudaHostAlloc((void**)ptr, size, flags);
}
#undef hipExtHostAlloc
#define hipExtHostAlloc hipHostMalloc
#undef hipHostFree
#define hipHostFree cudaFreeHost
#undef hipFreeHost
#define hipFreeHost cudaFreeHost
#define hipHostMallocDefault cudaHostAllocDefault
#define hipHostMallocPortable cudaHostAllocPortable
#define hipHostMallocMapped cudaHostAllocMapped
#define hipHostMallocWriteCombined cudaHostAllocWriteCombined
// The device's wave size as the port asks for it at run time: VADO_WAVE_SIZE (64 under --wave 64).
#pragma push_macro("warpSize")
#undef warpSize
static inline cudaError_t vado_hip_get_device_properties(cudaDeviceProp* prop, int device) {
  cudaError_t err = cudaGetDeviceProperties(prop, device);
  if (err == cudaSuccess) prop->warpSize = VADO_WAVE_SIZE;
  return err;
}
#ifdef VADO_W64_DEVICE_PROP
static inline cudaError_t vado_hip_get_device_properties(vado_w64_device_prop* prop, int device) {
  cudaError_t err = vado_hip_get_device_properties(static_cast<cudaDeviceProp*>(prop), device);
  prop->vado_warpSize = VADO_WAVE_SIZE;
  return err;
}
#endif
#pragma pop_macro("warpSize")
static inline cudaError_t vado_hip_device_get_attribute(int* value, cudaDeviceAttr attr, int device) {
  cudaError_t err = cudaDeviceGetAttribute(value, attr, device);
  if (err == cudaSuccess && attr == cudaDevAttrWarpSize) *value = VADO_WAVE_SIZE;
  return err;
}
#undef hipGetDeviceProperties
#define hipGetDeviceProperties vado_hip_get_device_properties
#undef hipDeviceGetAttribute
#define hipDeviceGetAttribute vado_hip_device_get_attribute
"""


@dataclass(frozen=True)
class Define:
    """One HIP name and the CUDA name it stands for, with the table row it came from."""

    hip: str
    cuda: str
    library: str
    kind: str


def _major(version: str) -> float:
    try:
        return float(".".join(version.split(".")[:2]))
    except ValueError:
        return 0.0


_HIP_PREFIX = re.compile(r"^(?:hip|HIP)")
_CUDA_PREFIX = re.compile(r"^(?:cuda|CUDA|cu|CU)")


def counterpart(hip: str, cuda: str) -> bool:
    """Whether ``cuda`` is ``hip`` with CUDA's prefix for HIP's (``hipblasStatus_t``/``cublasStatus_t``,
    ``HIP_R_32F``/``CUDA_R_32F``)."""
    return _HIP_PREFIX.sub("", hip) == _CUDA_PREFIX.sub("", cuda)


@lru_cache(maxsize=1)
def defines() -> tuple[Define, ...]:
    """Every HIP name of :data:`LIBRARIES`' tables that differs from its CUDA name, once, as the best CUDA name.

    Several CUDA names may map to one HIP name (``cudaMallocHost`` and
    ``cudaHostAlloc`` …): a row whose CUDA name CUDA removed or deprecated loses
    to one that CUDA keeps; then the CUDA name that is the HIP name's own
    counterpart (:func:`counterpart`: ``cublasStatus_t`` for ``hipblasStatus_t``,
    not the legacy ``cublasStatus`` that only ``cublas.h`` declares) wins, unless it is a
    driver-API name (``cuda.h``, which ``hip/hip_runtime.h`` does not bring); among
    equals the first row in table order wins. A HIP
    name that is also a CUDA name (``__float2bfloat16`` for ``__float2bfloat16_rn``)
    is left alone: CUDA defines it, and a macro would rename CUDA's own definition.
    """
    from vado.knowledge.api import ApiSupport, api_table

    table = api_table()
    best: dict[str, tuple[tuple[int, int], Define]] = {}
    for e in table.entries:
        if e.library not in LIBRARIES or e.kind == "header" or e.kind == "namespace":
            continue
        hip = e.hip_name or (e.roc_name if e.library == "cub" else "")
        if not hip or hip == e.cuda_name or not _IDENT.match(hip) or not _IDENT.match(e.cuda_name):
            continue
        if hip in table.by_name:
            continue
        if e.support in (ApiSupport.UNSUPPORTED, ApiSupport.REMOVED):
            continue
        rank = (2 if e.cuda_removed else (1 if e.cuda_deprecated else 0), 0 if counterpart(hip, e.cuda_name) and e.library != "driver" else 1)
        d = Define(hip, e.cuda_name, e.library, e.kind)
        if hip not in best or rank < best[hip][0]:
            best[hip] = (rank, d)
    return tuple(d for _, d in sorted(best.values(), key=lambda x: x[1].hip))


def header_map() -> dict[str, str]:
    """``{HIP header path: CUDA header path}`` for the headers of :data:`LIBRARIES` and Thrust.

    A library whose HIP header keeps the CUDA path (rocThrust's ``thrust/…``) maps
    a path to itself: its wrapper reaches the CUDA header with ``#include_next``.
    """
    from vado.knowledge.api import headers

    out: dict[str, str] = {}
    for e in headers():
        if not e.hip_name or (e.library not in LIBRARIES and e.library != "thrust"):
            continue
        # Several CUDA headers may map to one HIP header: the library's main header stands for it.
        if e.hip_name not in out or len(e.cuda_name) < len(out[e.hip_name]):
            out[e.hip_name] = e.cuda_name
    out.update(_MAIN_HEADERS)
    for hip, cuda in _EXTRA_HEADERS.items():
        out.setdefault(hip, cuda)
    out["hip/hip_runtime.h"] = "cuda_runtime.h"  # cuda.h (the driver API) is a header of its own; keep the runtime
    return out


def _layer_text(wave: int) -> str:
    if wave not in WAVES:
        raise UsageError(f"unknown wave size {wave}", "HIP on CUDA runs 32-lane warps or emulates 64-lane waves",
                         "pass --wave 32 or --wave 64")
    return package_files.files("vado.verify").joinpath("data", _LAYER_FILES[wave]).read_text(encoding="utf-8")


def _cg_layer_text() -> str:
    return package_files.files("vado.verify").joinpath("data", _CG_LAYER_FILE).read_text(encoding="utf-8")


def layer_macros(wave: int) -> tuple[str, ...]:
    """The names the device layer redefines as macros (pushed away around CUDA library headers); under
    wave64 also ``cooperative_groups`` (HIP's cooperative groups on the emulated wave, a CUDA library keeps CUDA's)."""
    text = _layer_text(wave) + (_cg_layer_text() if wave == 64 else "")
    return tuple(dict.fromkeys(_LAYER_MACROS.findall(text)))


def _half_guards() -> tuple[str, ...]:
    from vado.port.half_math import BF16, HALF

    return (HALF.guard, BF16.guard)


def render_header(wave: int = 32) -> str:
    """The text of ``vado_hip_on_cuda.h`` for ``wave`` (32 or 64)."""
    layer = _layer_text(wave)
    half_guards = _half_guards()
    lines = [
        f"// {HEADER}: HIP on CUDA, generated by vado (vado.verify.hip_on_cuda) from its API tables; do not edit.",
        f"// Device layer: {'AMD wave64 emulated on the NVIDIA GPU' if wave == 64 else 'CUDA 32-lane warps'}.",
        "#pragma once",
        "#include <cuda_runtime.h>",
        "#include <cuda_fp16.h>",
        "#include <cuda_bf16.h>",
        "#include <stddef.h>",
        "// CUDA's C++ library (libcu++, under Thrust and CUB), read here once with CUDA's own macros: a port may",
        "// include a Thrust header vado has no wrapper for, and libcu++ names a type __any and checks",
        "// CUDART_VERSION, which the layer below and the hiding of CUDA's macros would otherwise break.",
        "#if defined(__cplusplus) && __has_include(<thrust/version.h>)",
        "#include <thrust/version.h>",
        "#include <cuda/std/functional>",
        "#include <cuda/std/utility>",
        "#endif",
        "#define VADO_HIP_ON_CUDA 1",
        "// The include guards of HIP's half and bfloat16 headers: vado's helpers for intrinsics HIP lacks put each",
        "// overload under the guard of the header that declares its type (vado.port.half_math); CUDA's are above.",
        *(f"#define {g} 1" for g in half_guards),
        "",
        "// ---- device layer ----",
        layer.rstrip("\n"),
        "",
        "// ---- HIP names as the CUDA names they came from (knowledge/data/api, libraries: "
        + ", ".join(LIBRARIES) + ") ----",
    ]
    for d in defines():
        lines.append(f"#ifndef {d.hip}\n#define {d.hip} {d.cuda}\n#endif")
    lines.append(_OVERRIDES.strip("\n"))
    lines.append("// The port sees what HIP on AMD shows it: no CUDA version or architecture macros (the CUDA headers\n"
                 "// above were read with them; a CUDA library header included later gets them back for its own text).")
    lines += _hide_cuda_macros()
    return "\n".join(lines) + "\n"


#: CUDA's identifying macros, hidden from the port's own code (HIP on AMD defines none of them).
#: Only the runtime's version: __CUDA_ARCH__, __CUDACC__ and the compiler's version stay, because CUDA's
#: C++ library headers (libcu++, CUB, Thrust), which a port may include without a HIP wrapper, read them.
CUDA_MACROS = ("CUDART_VERSION",)


def _hide_cuda_macros() -> list[str]:
    return [f'#pragma push_macro("{m}")\n#undef {m}' for m in CUDA_MACROS]


def _show_cuda_macros() -> list[str]:
    return [f'#pragma pop_macro("{m}")' for m in reversed(CUDA_MACROS)]


def _wrapper(hip_path: str, cuda_path: str, macros: Sequence[str], wave: int = 32) -> str:
    guard = "VADO_HOC_" + re.sub(r"\W", "_", hip_path).upper()
    body = [f"// {hip_path}: HIP on CUDA (generated by vado): the CUDA header {cuda_path}, then {HEADER}.",
            f"#ifndef {guard}", f"#define {guard}"]
    if cuda_path in ("cuda_runtime.h", "cuda_runtime_api.h", "cuda.h"):
        body.append(f"#include <{cuda_path}>")
        if hip_path in _RUNTIME_API_HEADERS:
            # HIP's runtime API header declares what CUDA keeps in other runtime headers (hipProfilerStart/Stop:
            # cuda_profiler_api.h); a port that includes only hip/hip_runtime.h calls them as ROCm lets it.
            body += [f"#include <{h}>" for h in _RUNTIME_API_EXTRAS]
    else:
        # A CUDA library's own code keeps CUDA's warp functions (the layer's macros are pushed away around it)
        # and sees CUDA's version and architecture macros again.
        body += ["#ifdef VADO_HIP_ON_CUDA", *_show_cuda_macros(), "#endif"]
        body += [f'#pragma push_macro("{m}")\n#undef {m}' for m in macros]
        body.append(f"#include_next <{cuda_path}>" if cuda_path == hip_path else f"#include <{cuda_path}>")
        body += [f'#pragma pop_macro("{m}")' for m in reversed(macros)]
        body += ["#ifdef VADO_HIP_ON_CUDA", *_hide_cuda_macros(), "#endif"]
    if cuda_path != hip_path:
        body.append(f"#include <{HEADER}>")
    if hip_path == _CG_HIP_HEADER and wave == 64:
        body.append(f"#include <{CG_HEADER}>")
    if hip_path.startswith("hipcub/"):
        body.append("namespace hipcub = cub;")
    body += _hip_guards()
    body.append("#endif")
    return "\n".join(body) + "\n"


def hip_guards() -> dict[str, str]:
    """``{CUDA header guard: HIP header guard}``: the include guards ARCH009's rewrite of a guard test
    (``#ifdef __DRIVER_TYPES_H__`` → ``HIP_INCLUDE_HIP_DRIVER_TYPES_H``, helper_cuda.h's idiom) tests."""
    from vado.rules.arch import CUDA_HEADER_GUARDS

    return {cuda: hip for cuda, (_, hip, _) in CUDA_HEADER_GUARDS.items() if hip}


def _hip_guards() -> list[str]:
    """Each HIP guard defined once the CUDA header standing for its HIP header has been read, as HIP's own
    header defines it: a port's ``#ifdef HIP_INCLUDE_HIP_DRIVER_TYPES_H`` keeps the code under it."""
    out = ["// HIP's include guards for the CUDA headers read so far (what the port's guard tests name)."]
    for cuda, hip in hip_guards().items():
        out.append(f"#if defined({cuda}) && !defined({hip})\n#define {hip}\n#endif")
    return out


def write_include_dir(dst: str | os.PathLike, wave: int = 32) -> Path:
    """Write the include directory for ``wave`` at ``dst`` (created; files there are replaced) and return it."""
    root = Path(dst)
    root.mkdir(parents=True, exist_ok=True)
    (root / HEADER).write_text(render_header(wave), encoding="utf-8")
    if wave == 64:
        (root / CG_HEADER).write_text(_cg_layer_text(), encoding="utf-8")
    macros = layer_macros(wave)
    for hip_path, cuda_path in header_map().items():
        path = root / hip_path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_wrapper(hip_path, cuda_path, macros, wave), encoding="utf-8")
    return root


def link_flags(sources: Sequence[str | os.PathLike]) -> list[str]:
    """Link flags for the CUDA libraries whose HIP headers the port's sources include."""
    text = ""
    for s in sources:
        try:
            text += Path(s).read_text(encoding="latin-1")
        except OSError:
            continue
    out = []
    for marker, flag in (("hiprand", "-lcurand"), ("hipblas", "-lcublas"), ("hipblasLt", "-lcublasLt"),
                         ("hipblaslt", "-lcublasLt"), ("hipfft", "-lcufft"), ("hipsparse", "-lcusparse"),
                         ("hipModule", "-lcuda")):
        if marker in text and flag not in out:
            out.append(flag)
    return out


def nvcc_port_command(
    nvcc: str, sources: Sequence[str], out: str, include_dir: str | os.PathLike, *, arch: str = "native",
    flags: Sequence[str] = (), compile_only: bool = False,
) -> list[str]:
    """The nvcc command that builds the HIP ``sources`` with the include directory of :func:`write_include_dir`."""
    cmd = [nvcc, "-O2", f"-arch={arch}", "-x", "cu", f"-I{include_dir}", *flags, *sources]
    if compile_only:
        return [*cmd, "-c", "-o", out] if len(sources) == 1 else [*cmd, "-c"]
    return [*cmd, "-o", out, *link_flags(sources)]


#: Names whose results depend on the wave size: the device layer's functions, the helpers of vado's warp32 port,
#: and the cooperative groups that live in a wave (tiles, coalesced groups and their partitions).
_CROSS_LANE = re.compile(r"\b(?:__shfl\w*|__ballot\w*|__any\w*|__all\w*|__activemask|__lane_id|__match_\w+|"
                         r"__reduce_\w+_sync|__syncwarp|warpSize|vado_\w+32|vado_mask64|"
                         r"tiled_partition|thread_block_tile|coalesced_threads|coalesced_group|binary_partition)\b")
_FUNC = re.compile(r"\b(__global__|__device__)\b[^;{}()]*?\b(\w+)\s*\(", re.S)
_NAME = re.compile(r"\s*(\w+)\s*\(")
#: Attribute-like words written between a kernel's return type and its name (``__launch_bounds__(256)``).
_ATTRIBUTES = {"__launch_bounds__", "__attribute__", "__declspec", "alignas", "__cluster_dims__"}
_COMMENTS = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
#: What :func:`mark_kernel_exits` puts at the top of a kernel body (the wave64 layer defines it).
EXIT_GUARD = "VADO_W64_EXIT_GUARD"
#: nvcc flags of every build under the wave64 emulation: the exit guard's default (the layer redefines it), and
#: HIP's launch guarantee. hipcc compiles every kernel without __launch_bounds__ for blocks of up to 1024 threads
#: (amdgpu-flat-work-group-size 1,1024), so such a launch never lacks registers on AMD; nvcc makes no such
#: promise, and the emulation's exit guard and lane bookkeeping cost registers: torchsort 0.1.10's
#: isotonic_kl_backward_kernel<double> took 64 registers as CUDA builds it and 71 through the layer, and its
#: 1024-thread launch failed ("too many resources requested for launch", H200, 2026-12-05) where the original ran.
#: -maxrregcount=64 (65536 registers / 1024 threads) gives the same promise; nvcc ignores it for a kernel with
#: its own __launch_bounds__, as hipcc's default yields to those.
WAVE64_NVCC_FLAGS = (f"-D{EXIT_GUARD}=", "-maxrregcount=64")


def _blank_comments(text: str) -> str:
    """``text`` with its comments as spaces (same length, same lines: offsets stay valid)."""
    return _COMMENTS.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), text)


def _close(text: str, k: int, opening: str, closing: str) -> int:
    """The offset just past the bracket that closes the one at ``k``."""
    depth = 0
    while k < len(text):
        c = text[k]
        depth += 1 if c == opening else -1 if c == closing else 0
        k += 1
        if depth == 0:
            break
    return k


def _definitions(text: str) -> list[tuple[str, str, int, int]]:
    """``(qualifier, name, body start, body end)`` of each ``__global__``/``__device__`` function definition."""
    out = []
    for m in _FUNC.finditer(text):
        name, k = m.group(2), _close(text, m.end() - 1, "(", ")")
        while name in _ATTRIBUTES:  # __global__ void __launch_bounds__(256) kernel(...)
            n = _NAME.match(text, k)
            if not n:
                break
            name, k = n.group(1), _close(text, n.end() - 1, "(", ")")
        brace = text.find("{", k)
        semi = text.find(";", k)
        if brace < 0 or (0 <= semi < brace):
            continue  # a declaration
        out.append((m.group(1), name, brace, _close(text, brace, "{", "}")))
    return out


def _bodies(text: str) -> list[tuple[str, str, str]]:
    """``(qualifier, name, body)`` of each ``__global__``/``__device__`` function definition in ``text``."""
    return [(qual, name, text[a:b]) for qual, name, a, b in _definitions(text)]


def mark_kernel_exits(text: str) -> tuple[str, int]:
    """``text`` with :data:`EXIT_GUARD` opening the body of each kernel (``__global__`` definition) in it,
    and how many kernels that is.

    Under the wave64 emulation a wave-wide call waits for the other half of its wave
    unless that half waits at a block barrier or has left the kernel; the guard is an
    object whose destructor counts a lane out at every ``return``. The guard goes on
    the line of the opening brace, so line numbers stay and a kernel written inside a
    macro stays one line of it.
    """
    cuts = [brace + 1 for qual, _, brace, _ in _definitions(_blank_comments(text)) if qual == "__global__"]
    out, last = [], 0
    for cut in cuts:
        out += [text[last:cut], f" {EXIT_GUARD}"]
        last = cut
    out.append(text[last:])
    return "".join(out), len(cuts)


#: Files :func:`copy_with_exit_marks` rewrites (the rest of a tree is linked, not copied).
MARKED_SUFFIXES = (".cu", ".cuh", ".hip", ".h", ".hpp", ".hh", ".hxx", ".cpp", ".cc", ".cxx", ".c", ".inl", ".inc",
                    ".tpp", ".ipp")


def mark_file_exits(src: str | os.PathLike, dst: str | os.PathLike | None = None) -> int:
    """Write ``src`` with its kernels marked (:func:`mark_kernel_exits`) to ``dst`` (``src`` itself when None);
    returns how many kernels were marked. Bytes outside the marks stay as they were, whatever the encoding."""
    # latin-1 maps every byte to one character: a file in any encoding comes back byte for byte.
    text, n = mark_kernel_exits(Path(src).read_bytes().decode("latin-1"))
    Path(src if dst is None else dst).write_bytes(text.encode("latin-1"))
    return n


def copy_with_exit_marks(src: str | os.PathLike, dst: str | os.PathLike) -> int:
    """Copy the tree ``src`` to ``dst`` (replaced) with every kernel marked by :func:`mark_kernel_exits`;
    other files are symbolic links to the originals. Returns how many kernels were marked.

    The emulation's build works on this copy, never on the port itself. Symbolic
    links in ``src`` stay links (a loop is not followed).
    """
    src, dst = Path(src).resolve(), Path(dst)
    if dst.is_dir() and not dst.is_symlink():
        shutil.rmtree(dst)
    elif dst.exists() or dst.is_symlink():
        dst.unlink()
    marked = 0

    def copy(a: str, b: str) -> None:
        nonlocal marked
        if a.endswith(MARKED_SUFFIXES):
            marked += mark_file_exits(a, b)
        else:
            os.symlink(os.path.abspath(a), b)

    shutil.copytree(src, dst, symlinks=True, copy_function=copy)
    return marked


def cross_lane_kernels(root: str | os.PathLike) -> list[str]:
    """Kernels of the tree at ``root`` whose code (or a device function they call) makes a cross-lane call.

    These are the kernels whose results may change with the wave size: a
    differential that fails under ``--wave 64`` names them. Sorted, ``file:kernel``.
    """
    base = Path(root)
    files = [p for p in sorted(base.rglob("*")) if p.is_file() and p.suffix in
             (".cu", ".cuh", ".hip", ".h", ".hpp", ".cpp", ".cc", ".inl")]
    funcs: list[tuple[str, str, str, str]] = []
    for p in files:
        try:
            text = _COMMENTS.sub(" ", p.read_text(encoding="latin-1"))
        except OSError:
            continue
        for qual, name, body in _bodies(text):
            funcs.append((p.relative_to(base).as_posix(), qual, name, body))
    lane = {name for _, _, name, body in funcs if _CROSS_LANE.search(body)}
    changed = True
    while changed:  # device functions that call one that makes cross-lane calls
        changed = False
        for _, qual, name, body in funcs:
            if name not in lane and any(re.search(rf"\b{re.escape(n)}\s*[(<]", body) for n in lane):
                lane.add(name)
                changed = True
    return sorted({f"{rel}:{name}" for rel, qual, name, _ in funcs if qual == "__global__" and name in lane})


#: ``printf("…" "…", …)``: the format's string literals (adjacent ones concatenate).
_PRINTF = re.compile(r'\bprintf\s*\(\s*((?:"(?:[^"\\\n]|\\.)*"\s*)+)')
_C_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "'": "'", "?": "?", "0": "\0", "a": "\a",
              "b": "\b", "f": "\f", "v": "\v"}


def _c_string(literals: str) -> str:
    """The text of adjacent C string literals (``"a\\n" "b"`` → ``a``, newline, ``b``); an unknown escape stays."""
    parts = re.findall(r'"((?:[^"\\\n]|\\.)*)"', literals)
    return "".join(re.sub(r"\\(.)", lambda m: _C_ESCAPES.get(m.group(1), m.group(0)), part) for part in parts)


def device_printf_formats(root: str | os.PathLike) -> list[str]:
    """The format strings of the ``printf`` calls in the ``__global__``/``__device__`` functions of the tree at
    ``root``, escapes decoded, sorted and without repeats.

    A differential uses them to tell the lines a kernel printed from the host's: CUDA does not specify the order in
    which the device's printf lines of different threads reach the output, so those are compared as a multiset
    between two host lines, and the rest in order.
    """
    out: set[str] = set()
    for p in sorted(Path(root).rglob("*")):
        if not p.is_file() or p.suffix not in (".cu", ".cuh", ".hip", ".h", ".hpp", ".cpp", ".cc", ".inl"):
            continue
        try:
            text = _blank_comments(p.read_text(encoding="latin-1"))
        except OSError:
            continue
        for _, _, body in _bodies(text):
            out.update(_c_string(m.group(1)) for m in _PRINTF.finditer(body))
    return sorted(out)


def _moved_flag(flag: str, root: Path, copy: Path) -> str:
    """An ``-I`` flag into ``root`` as the same directory of ``copy``; other flags as they are."""
    if flag.startswith("-I"):
        path = Path(flag[2:])
        if path == root or root in path.parents:
            return f"-I{copy / path.relative_to(root)}"
    return flag


def build_port(
    root: str | os.PathLike, out_bin: str | os.PathLike, *, nvcc: str, arch: str = "native", wave: int = 32,
    extra: Sequence[str] = (), limits=None, role: str = "port",
):
    """Build the HIP tree at ``root`` into ``out_bin`` with ``nvcc`` and the include directory for ``wave``.

    The include directory is written beside ``out_bin``; the units and flags are
    those :func:`vado.verify.build.build_program` uses for the original. Returns a
    ``build`` evidence record (a failed build keeps its diagnostics).
    """
    from vado.model import Evidence
    from vado.verify.build import _merged_flags, build_evidence
    from vado.verify.compile import find_units
    from vado.verify.sandbox import COMPILE_LIMITS, run_limited

    root_path = Path(root).resolve()
    units, _ = find_units(root_path)
    toolchain = f"nvcc (HIP on CUDA, {'wave64 emulation' if wave == 64 else 'warp32'})"
    if not units:
        return Evidence(kind="build", subject=role, passed=False, toolchain=toolchain,
                        detail={"status": "fail", "reason": "no translation units"})
    out_bin = Path(out_bin)
    out_bin.parent.mkdir(parents=True, exist_ok=True)
    inc = write_include_dir(out_bin.parent / f"hip-on-cuda-{wave}", wave)
    files = [str(u.abs_path) for u in units]
    flags = _merged_flags(root_path, units)
    if wave == 64:
        # The emulation needs to know when a lane leaves its kernel: it builds a copy whose kernels are
        # marked (mark_kernel_exits), with the port's include paths moved to the copy and the port's own
        # directories after them (a quoted include that climbs out of the tree still finds its file).
        copy = out_bin.parent / "wave64-src"
        copy_with_exit_marks(root_path, copy)
        files = [str(copy / u.abs_path.relative_to(root_path)) for u in units]
        moved = [_moved_flag(f, root_path, copy.resolve()) for f in flags]
        flags = [*moved, *[f for f in flags if f.startswith("-I") and f not in moved], *WAVE64_NVCC_FLAGS]
    cmd = nvcc_port_command(nvcc, files, str(out_bin), inc, arch=arch, flags=[*flags, *extra])
    outcome = run_limited(cmd, cwd=out_bin.parent, limits=limits or COMPILE_LIMITS)
    return build_evidence(outcome, role, arch=arch, toolchain=toolchain, how="hip-on-cuda", wave=wave)
