"""`vado bench kernel`: kernel signatures, generated drivers, their builds, and reading their output.

Running a driver needs a GPU (skipped without one); building one needs only the compilers, so the
CUDA driver is compiled with nvcc and the HIP driver with hipcc for gfx90a (object files, -c).
"""

import json
import os
import shutil
import stat
import sys
from pathlib import Path

import pytest

from vado.bench import kernel as K
from vado.bench.environment import detect_environment, has_gpu
from vado.errors import ToolchainError, UsageError
from vado.model.bench import DeviceInfo, Environment
from vado.verify.compare import Tolerance

KERNELS = Path(__file__).resolve().parents[2] / "examples" / "kernels"
NO_GPU = Environment(host="h", cpu="c", cpus=1)
H200 = Environment(host="h", cpu="c", cpus=1, devices=(DeviceInfo("nvidia", "NVIDIA H200", "580", 143771, "sm_90", "nvidia-smi"),))


def test_find_kernel_reads_the_example_kernels():
    saxpy = K.find_kernel((KERNELS / "saxpy.cu").read_text())
    assert saxpy.name == "saxpy" and not saxpy.templated
    assert [(p.name, p.pointer, p.const, p.elem_type) for p in saxpy.params] == [
        ("n", False, False, "int"), ("a", False, False, "float"), ("x", True, True, "float"), ("y", True, False, "float")]
    assert saxpy.params[1].floating and not saxpy.params[0].floating
    tr = K.find_kernel((KERNELS / "transpose.cu").read_text())
    assert [(p.name, p.pointer, p.const) for p in tr.params] == [("in", True, True), ("out", True, False), ("width", False, False)]
    bs = K.find_kernel((KERNELS / "warp_reduce.cu").read_text(), "block_sums")
    assert [p.name for p in bs.params] == ["n", "x", "sums"]


def test_find_kernel_choices_and_templates():
    text = "template <int B> __global__ void k1(float* a) {}\n__global__ void k2(const double* __restrict__ b, long m) {}\n"
    with pytest.raises(UsageError, match="which kernel"):
        K.find_kernel(text)
    with pytest.raises(UsageError, match="no __global__ kernel named"):
        K.find_kernel(text, "k3")
    assert K.find_kernel(text, "k1").templated
    k2 = K.find_kernel(text, "k2")
    assert not k2.templated and k2.params[0].elem_type == "double" and k2.params[0].const


def _driver(name="saxpy.cu", **kw):
    sig = K.find_kernel((KERNELS / name).read_text())
    opts = dict(api="cuda", n=1024, grid=None, block=128, iters=7, warmup=2, bytes_expr=None, flops_expr="2.0*n",
                shapes={})
    opts.update(kw)
    return K.driver_source(str(KERNELS / name), sig, **opts)


def test_driver_source_for_cuda():
    src = _driver()
    assert f'#include "{KERNELS / "saxpy.cu"}"' in src and "#define main vado_original_main" in src
    assert "#ifndef VADO_BLOCK\n#define VADO_BLOCK 128\n#endif" in src
    assert src.count("cudaMalloc(") == 2 and "hipMalloc" not in src
    assert "saxpy<<<grid_, block_>>>((int)(n), (float)1, (const float*)d2, (float*)d3);" in src
    # Only the buffer the kernel may write is check-summed.
    assert 'printf("checksum y %.17g\\n", s)' in src and "checksum x" not in src
    assert "double bytes = 1.0*n*sizeof(float) + 2.0*n*sizeof(float);" in src and "double flops = 2.0*n;" in src
    assert "std::vector<float> ms(7);" in src and "for (int w = 0; w < 2; ++w)" in src
    assert "copy_gbs = 2.0" not in src


def test_driver_source_for_hip_with_shapes_and_peak():
    src = _driver("transpose.cu", api="hip", shapes={"width": "32"}, grid="(width/32)*(width/32)", measure_peak=True)
    assert "hipMalloc(" in src and "cudaMalloc" not in src and "hipEventElapsedTime" in src
    assert "const long long width = 32;" in src and "(int)(width)" in src
    assert "dim3 grid_((unsigned)((width/32)*(width/32))), block_(VADO_BLOCK);" in src
    assert "hipMemcpyDeviceToDevice" in src and "copy_gbs = 2.0" in src


def test_driver_source_refuses_bad_input():
    with pytest.raises(UsageError):
        _driver(api="sycl")
    with pytest.raises(UsageError):
        _driver(iters=0)
    with pytest.raises(UsageError):
        _driver(shapes={"1bad": "3"})


def test_build_commands():
    assert K.build_command("d.cu", "d", compiler="nvcc", source_is_hip=False, arch="sm_90") == [
        "nvcc", "-arch=sm_90", "-O3", "-std=c++17", "-x", "cu", "d.cu", "-o", "d"]
    assert K.build_command("d.hip", "d.o", compiler="hipcc", source_is_hip=True, arch="gfx90a", compile_only=True) == [
        "hipcc", "-c", "-O3", "-std=c++17", "-x", "hip", "--offload-arch=gfx90a", "d.hip", "-o", "d.o"]
    with pytest.raises(UsageError):
        K.build_command("d", "d", compiler="icpx", source_is_hip=True, arch=None)


def test_compiler_choice_follows_the_gpu():
    amd = Environment("h", "c", 1, (DeviceInfo("amd", "AMD Instinct MI300X", arch="gfx942"),))
    assert K.choose_compiler(True, amd) == "hipcc"
    assert K.choose_compiler(False, H200) == "nvcc"
    assert K.choose_compiler(True, H200) in ("hip-nvidia", "nvcc")


def test_prepare_refuses_mismatched_compilers(tmp_path):
    with pytest.raises(UsageError, match="CUDA source"):
        K.prepare_driver(str(KERNELS / "saxpy.cu"), compiler="hipcc", environment=NO_GPU, workdir=str(tmp_path))
    with pytest.raises(UsageError, match="template"):
        (tmp_path / "t.cu").write_text("template <int B> __global__ void k(float* a) {}\n")
        K.prepare_driver(str(tmp_path / "t.cu"), compiler="nvcc", environment=NO_GPU, workdir=str(tmp_path))


def test_bench_kernel_needs_a_gpu(tmp_path):
    with pytest.raises(ToolchainError, match="no GPU"):
        K.bench_kernel(str(KERNELS / "saxpy.cu"), environment=NO_GPU, workdir=str(tmp_path))


def _hip_saxpy(tmp_path) -> Path:
    # The port of saxpy.cu is the same file with HIP's runtime header (what `vado port` writes for it).
    p = tmp_path / "saxpy.hip"
    p.write_text((KERNELS / "saxpy.cu").read_text().replace("#include <cuda_runtime.h>", "#include <hip/hip_runtime.h>"))
    return p


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not installed")
def test_cuda_driver_compiles_with_nvcc(tmp_path):
    b = K.prepare_driver(str(KERNELS / "transpose.cu"), compiler="nvcc", compile_only=True, n=64 * 64,
                         shapes={"width": "64"}, grid="(width/32)*(width/32)", environment=NO_GPU, workdir=str(tmp_path))
    assert b.api == "cuda" and b.command[:2] == ("nvcc", "-c")
    K.build_driver(b, timeout_s=300)
    assert os.path.getsize(b.exe) > 0


@pytest.mark.slow
@pytest.mark.hipcc
@pytest.mark.skipif(shutil.which("hipcc") is None, reason="hipcc not installed")
def test_hip_driver_compiles_with_hipcc_for_gfx90a(tmp_path):
    b = K.prepare_driver(str(_hip_saxpy(tmp_path)), compiler="hipcc", arch="gfx90a", compile_only=True,
                         environment=NO_GPU, workdir=str(tmp_path / "w"))
    assert b.api == "hip" and b.driver.endswith(".hip")
    K.build_driver(b, timeout_s=300)
    assert os.path.getsize(b.exe) > 0


@pytest.mark.slow
def test_hip_driver_compiles_for_nvidia_through_clang(tmp_path):
    from vado.verify import hip_nvidia

    if not (hip_nvidia.is_ready() and hip_nvidia.find_clang() and K.hip_include_dir()):
        pytest.skip("HIP-on-NVIDIA tree not set up (vado.verify.hip_nvidia.setup)")
    b = K.prepare_driver(str(_hip_saxpy(tmp_path)), compiler="hip-nvidia", compile_only=True, environment=NO_GPU,
                         workdir=str(tmp_path / "w"))
    assert "-D__HIP_PLATFORM_NVIDIA__" in b.command and not any(c.startswith("-l") for c in b.command)
    K.build_driver(b, timeout_s=300)


def _fake_driver(tmp_path, samples, checksum=12.5) -> K.KernelBuild:
    """A stand-in for a built driver: prints what the generated driver prints."""
    line = {"kernel_ms": sorted(samples)[len(samples) // 2], "best_ms": min(samples), "gbs": 0, "gflops": 0,
            "iters": len(samples), "block": 128, "bytes": 3e9, "flops": 2e9, "copy_gbs": 0.0, "samples_ms": samples}
    exe = tmp_path / "driver"
    exe.write_text(f"#!{sys.executable}\nprint('checksum y {checksum!r}')\nprint({json.dumps(json.dumps(line))})\n")
    exe.chmod(exe.stat().st_mode | stat.S_IEXEC)
    sig = K.find_kernel((KERNELS / "saxpy.cu").read_text())
    return K.KernelBuild(sig, "saxpy.cu", "cuda", "nvcc", str(tmp_path / "d.cu"), str(exe), ("nvcc",), str(tmp_path))


def test_run_driver_reads_samples_and_sets_them_against_the_roofline(tmp_path):
    r = K.run_driver(_fake_driver(tmp_path, [1.0, 2.0, 1.5]), environment=H200)
    assert r.kind == "kernel" and r.runs == 3 and r.objective == "kernel_ms" and not r.higher_is_better
    assert r.metrics["kernel_ms"] == (1.0, 2.0, 1.5)
    # 3e9 bytes in 1.5 ms = 2000 GB/s; 2e9 FLOP in 1.5 ms = 1333 GFLOP/s.
    assert r.metric_stats["gbs"].median == pytest.approx(2000.0)
    assert r.metric_stats["gflops"].median == pytest.approx(4000 / 3)
    rf = r.roofline
    assert rf.device == "NVIDIA H200" and rf.peak_gbs == 4300.0  # the measured copy ceiling beats the datasheet
    assert rf.bandwidth_pct == pytest.approx(100 * 2000 / 4300, abs=0.01)
    assert rf.peak_tflops == 67.0 and rf.compute_pct == pytest.approx(100 * 1.3333 / 67, abs=0.01)
    assert rf.bound == "memory" and "measured copy" in rf.peak_source
    assert r.detail["checksums"] == {"y": 12.5} and r.detail["kernel"] == "saxpy"


def test_roofline_overrides_and_unknown_devices():
    rf = K.roofline("Some GPU", 100.0, 1000.0, peak_gbs=200.0, peak_tflops=2.0)
    assert (rf.bandwidth_pct, rf.compute_pct, rf.bound) == (50.0, 50.0, "memory")
    assert K.roofline("Some GPU", 100.0, 0.0) is None
    rf = K.roofline("AMD Instinct MI300X", 530.0, 0.0, measured_copy_gbs=0.0)
    assert rf.peak_gbs == 5300.0 and rf.bandwidth_pct == 10.0
    assert K.roofline("NVIDIA H200", 1.0, 1.0, precision="bf16").peak_tflops == 989.0


def test_checksum_comparison_uses_verify():
    tol = Tolerance(rtol=1e-6)
    assert K.compare_checksums({"y": 1.0}, {"y": 1.0000000001}, tol) == (True, "")
    ok, why = K.compare_checksums({"y": 1.0}, {"y": 1.1}, tol)
    assert not ok and "differ" in why
    assert not K.compare_checksums({"y": 1.0}, {"z": 1.0}, tol)[0]


def test_parse_driver_output_without_a_result_line():
    with pytest.raises(ToolchainError):
        K.parse_driver_output("checksum y 1\n")


@pytest.mark.gpu
@pytest.mark.skipif(not has_gpu(detect_environment()), reason="needs an NVIDIA or AMD GPU")
def test_saxpy_on_the_gpu_here(tmp_path):
    r = K.bench_kernel(str(KERNELS / "saxpy.cu"), n=1 << 20, iters=10, flops_expr="2.0*n", workdir=str(tmp_path))
    assert r.metric_stats["kernel_ms"].median > 0 and r.detail["checksums"]["y"] > 0
