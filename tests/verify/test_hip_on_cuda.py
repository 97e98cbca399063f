"""HIP on CUDA (vado.verify.hip_on_cuda): the generated headers, nvcc compiles of ports, and the wave64 emulation.

The compile tests run wherever nvcc is (no GPU needed: ``nvcc -c``); the emulation's checks
(tests/fixtures/verify/wave64_checks.hip, expected outputs = AMD wave64 semantics) are marked ``gpu``
and run where an NVIDIA GPU answers nvidia-smi.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from vado.agent.verify import nvidia_gpu_with_nvcc
from vado.errors import UsageError
from vado.verify import hip_on_cuda

NVCC = shutil.which("nvcc") or (shutil.which("nvcc", path="/usr/local/cuda/bin"))
requires_nvcc = pytest.mark.skipif(NVCC is None, reason="nvcc not installed (CUDA toolkit)")


requires_gpu = pytest.mark.skipif(not nvidia_gpu_with_nvcc(), reason="needs an NVIDIA GPU (nvidia-smi) and nvcc")
CHECKS = Path(__file__).resolve().parents[1] / "fixtures" / "verify" / "wave64_checks.hip"

PORT = r"""
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
#include <stdio.h>
__global__ void k(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? x[i] : 0.0f;
  for (int s = warpSize / 2; s > 0; s /= 2) v += __shfl_down_sync(0xffffffffffffffffull, v, s);
  unsigned long long b = __ballot(v > 0.0f);
  if (__lane_id() == 0) y[blockIdx.x] = v + (float)__popcll(b);
}
int main() {
  float *x, *y;
  hipMalloc((void**)&x, 256 * sizeof(float));
  hipMalloc((void**)&y, 4 * sizeof(float));
  hipMemset(x, 0, 256 * sizeof(float));
  hipLaunchKernelGGL(k, dim3(4), dim3(64), 0, 0, x, y, 256);
  hipDeviceProp_t prop;
  hipGetDeviceProperties(&prop, 0);
  float h[4];
  hipMemcpy(h, y, sizeof h, hipMemcpyDeviceToHost);
  printf("%d %g\n", prop.warpSize, h[0]);
  hipFree(x);
  hipFree(y);
  return hipDeviceSynchronize() == hipSuccess ? 0 : 1;
}
"""


def test_defines_come_from_the_api_tables():
    by_hip = {d.hip: d for d in hip_on_cuda.defines()}
    assert by_hip["hipMalloc"].cuda == "cudaMalloc" and by_hip["hipMalloc"].library == "runtime"
    assert by_hip["hipMemcpyHostToDevice"].cuda == "cudaMemcpyHostToDevice"
    assert by_hip["hipDeviceProp_t"].cuda == "cudaDeviceProp"
    assert all(d.hip != d.cuda for d in by_hip.values())
    # A CUDA name that CUDA removed never wins over one that CUDA keeps.
    from vado.knowledge.api import api_table

    rows = {}
    for e in api_table().entries:
        if e.library in hip_on_cuda.LIBRARIES and e.hip_name:
            rows.setdefault(e.hip_name, []).append(e)
    removed = {(e.hip_name, e.cuda_name) for rs in rows.values() for e in rs if e.cuda_removed}
    for d in by_hip.values():
        if (d.hip, d.cuda) in removed:
            assert all(e.cuda_removed for e in rows[d.hip]), d


def test_header_text_and_include_dir(tmp_path):
    text = hip_on_cuda.render_header(64)
    assert "#define hipMalloc cudaMalloc" in text and "#define warpSize vado_warpSize" in text
    assert "#define __shfl_sync(...) vado_w64_shfl_sync(__VA_ARGS__)" in text
    assert "hipLaunchKernelGGL(kernel, grid, block, shmem, stream, ...)" in text
    assert "#define warpSize" not in hip_on_cuda.render_header(32)
    root = hip_on_cuda.write_include_dir(tmp_path / "inc", 64)
    rt = (root / "hip" / "hip_runtime.h").read_text()
    assert "#include <cuda_runtime.h>" in rt and f"#include <{hip_on_cuda.HEADER}>" in rt
    cub = (root / "hipcub" / "hipcub.hpp").read_text()
    # A CUDA library's own code keeps CUDA's warp functions: the layer's macros are pushed away around it.
    assert '#pragma push_macro("__shfl_sync")' in cub and cub.index("push_macro") < cub.index("<cub/cub.cuh>")
    assert "namespace hipcub = cub;" in cub and "#include <cub/cub.cuh>" in cub
    assert "__shfl_sync" in hip_on_cuda.layer_macros(64) and "warpSize" in hip_on_cuda.layer_macros(64)


@requires_nvcc
def test_a_program_may_add_its_own_shuffle_overload(tmp_path):
    # dpid-style: a __shfl_down for float4 beside HIP's; the size condition leaves float4 to it.
    src = PORT.replace("int main() {", "__device__ float4 __shfl_down(const float4 v, unsigned int d, int w = 32) {\n"
                       "  return make_float4(__shfl_down(v.x, d, w), __shfl_down(v.y, d, w), v.z, v.w);\n}\n"
                       "__global__ void k4(float4* p) { p[0] = __shfl_down(p[0], 1u); }\nint main() {")
    proc = _compile(tmp_path, src, 64)
    assert proc.returncode == 0, proc.stderr[-3000:]


def test_unknown_wave_is_a_usage_error():
    with pytest.raises(UsageError, match="unknown wave size 48"):
        hip_on_cuda.render_header(48)


def test_cross_lane_kernels_follow_device_functions(tmp_path):
    (tmp_path / "k.hip").write_text(
        "__device__ int red(int v) { return v + __shfl_xor(v, 1); }\n"
        "__device__ int plain(int v) { return v * 2; }\n"
        "__global__ void uses(int* p) { p[0] = red(p[0]); }\n"
        "__global__ void direct(int* p) { p[0] = warpSize; }\n"
        "// __global__ void commented(int* p) { p[0] = __ballot(1); }\n"
        "__global__ void clean(int* p) { p[0] = plain(p[0]); }\n"
        "__global__ void declared(int* p);\n")
    assert hip_on_cuda.cross_lane_kernels(tmp_path) == ["k.hip:direct", "k.hip:uses"]


def _compile(tmp_path: Path, source: str, wave: int) -> subprocess.CompletedProcess:
    src = tmp_path / f"p{wave}.hip"
    src.write_text(source)
    inc = hip_on_cuda.write_include_dir(tmp_path / f"inc{wave}", wave)
    cmd = hip_on_cuda.nvcc_port_command(NVCC, [str(src)], str(tmp_path / f"p{wave}.o"), inc, arch="sm_90",
                                        flags=["-std=c++17"], compile_only=True)
    return subprocess.run(cmd, capture_output=True, text=True, timeout=600)


MARKS_BEFORE = r"""
#include <hip/hip_runtime.h>
// __global__ void commented(int* x) { }
__global__ void declared(int* x);
template <int N>
__global__ void __launch_bounds__(256, 2) bounded(int* x) {
  if (threadIdx.x >= N) return;
  x[threadIdx.x] = __ballot(1) != 0;
}
__device__ int helper(int v) { return v; }
extern "C" __global__
void split_line(int* x)
{
  x[0] = helper(1);
}
#define DEFINE_KERNEL(name) __global__ void name(int* x) { x[0] = 0; }
DEFINE_KERNEL(from_macro)
"""
MARKS_AFTER = r"""
#include <hip/hip_runtime.h>
// __global__ void commented(int* x) { }
__global__ void declared(int* x);
template <int N>
__global__ void __launch_bounds__(256, 2) bounded(int* x) { VADO_W64_EXIT_GUARD
  if (threadIdx.x >= N) return;
  x[threadIdx.x] = __ballot(1) != 0;
}
__device__ int helper(int v) { return v; }
extern "C" __global__
void split_line(int* x)
{ VADO_W64_EXIT_GUARD
  x[0] = helper(1);
}
#define DEFINE_KERNEL(name) __global__ void name(int* x) { VADO_W64_EXIT_GUARD x[0] = 0; }
DEFINE_KERNEL(from_macro)
"""


def test_every_kernel_body_opens_with_the_exit_guard():
    # Kernels only (a device function returns to its caller), definitions only, none in a comment; the
    # guard stays on the brace's line (line numbers of diagnostics stay) and inside a macro's one line.
    assert hip_on_cuda.mark_kernel_exits(MARKS_BEFORE) == (MARKS_AFTER, 3)
    assert hip_on_cuda.mark_kernel_exits("int main() { return 0; }\n") == ("int main() { return 0; }\n", 0)


def test_kernel_names_skip_launch_bounds(tmp_path):
    (tmp_path / "k.hip").write_text(MARKS_BEFORE)
    assert hip_on_cuda.cross_lane_kernels(tmp_path) == ["k.hip:bounded"]


def test_the_marked_copy_leaves_the_port_alone(tmp_path):
    port = tmp_path / "port"
    (port / "src").mkdir(parents=True)
    (port / "src" / "k.hip").write_text(MARKS_BEFORE)
    (port / "src" / "old.cu").write_bytes(b"// caf\xe9\n__global__ void k() {}\n")  # not UTF-8
    (port / "data.bin").write_bytes(b"\0\1\2")
    (port / "loop").symlink_to(port)  # a symbolic link loop is copied as a link, not followed
    copy = tmp_path / "copy"
    assert hip_on_cuda.copy_with_exit_marks(port, copy) == 4
    assert (port / "src" / "k.hip").read_text() == MARKS_BEFORE
    assert (copy / "src" / "k.hip").read_text() == MARKS_AFTER
    assert (copy / "src" / "old.cu").read_bytes() == b"// caf\xe9\n__global__ void k() { VADO_W64_EXIT_GUARD}\n"
    assert (copy / "data.bin").is_symlink() and (copy / "data.bin").read_bytes() == b"\0\1\2"
    assert (copy / "loop").is_symlink()
    assert hip_on_cuda.copy_with_exit_marks(port, copy) == 4  # a second build replaces the copy


@requires_nvcc
def test_a_wave64_build_compiles_the_marked_copy(tmp_path):
    # The port includes a header outside its tree (../common): the copy still finds it.
    (tmp_path / "common").mkdir()
    (tmp_path / "common" / "reduce.h").write_text(
        "__device__ inline int wave_sum(int v) {\n"
        "  for (int s = warpSize / 2; s > 0; s /= 2) v += __shfl_down(v, s);\n  return v;\n}\n")
    port = tmp_path / "port"
    port.mkdir()
    main = port / "main.hip"
    main.write_text(PORT.replace("#include <stdio.h>", '#include <stdio.h>\n#include "../common/reduce.h"'))
    before = main.read_text()
    ev = hip_on_cuda.build_port(port, tmp_path / "out" / "prog", nvcc=NVCC, arch="sm_90", wave=64)
    assert ev.passed, ev.detail
    assert main.read_text() == before and not list(port.glob("*.o"))
    assert f"{{ {hip_on_cuda.EXIT_GUARD}" in (tmp_path / "out" / "wave64-src" / "main.hip").read_text()
    assert (tmp_path / "out" / "prog").stat().st_size > 0


@requires_nvcc
@pytest.mark.parametrize("wave", [32, 64])
def test_a_small_port_compiles_with_nvcc(tmp_path, wave):
    proc = _compile(tmp_path, PORT, wave)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert (tmp_path / f"p{wave}.o").stat().st_size > 0


@requires_nvcc
def test_a_32_bit_mask_is_rejected_as_rocm_7_does(tmp_path):
    bad = PORT.replace("0xffffffffffffffffull", "0xffffffff")
    proc = _compile(tmp_path, bad, 64)
    assert proc.returncode != 0 and "The mask must be a 64-bit integer" in proc.stderr
    assert _compile(tmp_path, bad, 32).returncode == 0  # HIP on NVIDIA takes CUDA's 32-bit masks


@requires_nvcc
def test_cuda_only_overloads_fail_through_the_layer_as_on_rocm(tmp_path):
    """A HIP name the layer spells as CUDA's must not take the arguments of a C++ overload only CUDA declares:
    hipEventCreate(&e, flags) compiles with CUDA's cudaEventCreate(event, flags) but not with ROCm's HIP."""
    ok = "#include <hip/hip_runtime.h>\nint main() { hipEvent_t e; return hipEventCreate(&e) != hipSuccess; }\n"
    bad = ok.replace("hipEventCreate(&e)", "hipEventCreate(&e, hipEventBlockingSync)")
    for wave in (32, 64):
        assert _compile(tmp_path, ok, wave).returncode == 0
        proc = _compile(tmp_path, bad, wave)
        assert proc.returncode != 0 and "hipEventCreate" in proc.stderr


@requires_nvcc
def test_hip_runtime_brings_the_profiler_calls(tmp_path):
    """ROCm declares hipProfilerStart/Stop in hip_runtime_api.h; CUDA keeps cudaProfilerStart in cuda_profiler_api.h,
    which a port's hip/hip_runtime.h must bring through the layer (cuda-samples matrixMul, asyncAPI)."""
    src = ("#include <hip/hip_runtime.h>\n"
           "int main() { return hipProfilerStart() != hipSuccess || hipProfilerStop() != hipSuccess; }\n")
    for wave in (32, 64):
        proc = _compile(tmp_path, src, wave)
        assert proc.returncode == 0, proc.stderr[-2000:]


@requires_nvcc
def test_clangs_nontemporal_builtins_compile_through_the_layer(tmp_path):
    """vado's port writes __ldcs/__stcs (vado.port.cache_hints) and lowered PTX .cs loads as clang's
    __builtin_nontemporal_load/store, which hipcc has and nvcc does not: the layer gives nvcc both, for scalars,
    CUDA's vector types and may_alias words (llm.c dev/cuda common.h's Packed128 loads)."""
    src = ("#include <hip/hip_runtime.h>\n"
           "typedef unsigned int __attribute__((may_alias)) word4;\n"
           "__global__ void k(const float* a, float* b, const float4* c, float4* d, const word4* e, word4* f) {\n"
           "  int i = threadIdx.x;\n"
           "  __builtin_nontemporal_store(__builtin_nontemporal_load(a + i) * 2.0f, b + i);\n"
           "  __builtin_nontemporal_store(__builtin_nontemporal_load(&c[i]), &d[i]);\n"
           "  __builtin_nontemporal_store(__builtin_nontemporal_load(e + i), f + i);\n"
           "}\nint main() { return 0; }\n")
    for wave in (32, 64):
        proc = _compile(tmp_path, src, wave)
        assert proc.returncode == 0, proc.stderr[-2000:]


def _marked_checks(d: Path) -> Path:
    n = hip_on_cuda.mark_file_exits(CHECKS, d / CHECKS.name)
    assert n == (d / CHECKS.name).read_text().count(f"{{ {hip_on_cuda.EXIT_GUARD}") >= 20
    return d / CHECKS.name


@requires_nvcc
def test_the_emulation_checks_compile(tmp_path):
    inc = hip_on_cuda.write_include_dir(tmp_path / "inc", 64)
    cmd = hip_on_cuda.nvcc_port_command(NVCC, [str(_marked_checks(tmp_path))], str(tmp_path / "c.o"), inc,
                                        arch="sm_90", flags=["-std=c++17"], compile_only=True)
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]


ROCM_HIPCC = Path(os.environ.get("VADO_ROCM72_HIPCC", "/var/cache/vado/rocm-7.2.4/bin/hipcc"))


@pytest.mark.hipcc
@pytest.mark.skipif(not (ROCM_HIPCC.is_file() and os.access(ROCM_HIPCC, os.X_OK)) and os.environ.get("VADO_REQUIRE_ROCM") != "1",
                    reason="ROCm 7.2.4 hipcc not installed (scripts/rocm-toolchain.sh)")
@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
def test_the_emulation_checks_are_hip_that_rocm_builds(tmp_path, arch):
    # The checks are HIP code for a wave64 GPU (64-bit masks, HIP's signatures): ROCm 7.2.4 compiles them. That
    # their expected outputs are what AMD computes is shown by running them there; here they run on the emulation.
    proc = subprocess.run([str(ROCM_HIPCC), f"--offload-arch={arch}", "-x", "hip", "-c", str(CHECKS), "-o",
                           str(tmp_path / "c.o")], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]


@pytest.fixture(scope="module")
def checks_binary(tmp_path_factory):
    d = tmp_path_factory.mktemp("w64")
    inc = hip_on_cuda.write_include_dir(d / "inc", 64)
    cmd = hip_on_cuda.nvcc_port_command(NVCC, [str(_marked_checks(d))], str(d / "checks"), inc, arch="native",
                                        flags=["-std=c++17"])
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return d / "checks"


@pytest.mark.gpu
@requires_gpu
def test_wave64_semantics_on_the_gpu(checks_binary):
    proc = subprocess.run([str(checks_binary)], capture_output=True, text=True, timeout=120)
    assert "FAIL" not in proc.stdout and proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count("ok ") >= 20 and "0 failures" in proc.stdout


@pytest.mark.gpu
@requires_gpu
def test_wave_wide_calls_in_blocks_of_1024_threads(checks_binary):
    proc = subprocess.run([str(checks_binary), "big"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stdout.count("ok ") == 2, proc.stdout + proc.stderr


@pytest.mark.gpu
@requires_gpu
def test_a_divergent_wave_wide_call_times_out(checks_binary):
    with pytest.raises(subprocess.TimeoutExpired):
        subprocess.run([str(checks_binary), "diverge"], capture_output=True, text=True, timeout=15)


def test_device_printf_formats_are_the_kernels_and_device_functions_only(tmp_path):
    from vado.verify.hip_on_cuda import device_printf_formats

    (tmp_path / "k.cu").write_text(
        '#include <cstdio>\n'
        '__device__ void show(int v) { printf("v=%d\\n", v); }\n'
        '__global__ void k(int* x) {\n  // printf("commented out\\n");\n'
        '  printf("[%d, %d]:\\t\\tValue is:%d\\n" /* two literals */ " tail %s\\n", blockIdx.x, threadIdx.x, x[0], "s");\n}\n'
        'int main() { printf("host %d\\n", 1); return 0; }\n')
    assert device_printf_formats(tmp_path) == ["[%d, %d]:\t\tValue is:%d\n tail %s\n", "v=%d\n"]
