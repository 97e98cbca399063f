"""HIP's cooperative groups on the emulated 64-lane wave (``vado verify --run --wave 64``).

The generated ``hip/hip_cooperative_groups.h`` brings, under ``--wave 64``, vado's HIP cooperative groups
(``verify/data/hip_on_cuda_wave64_cg.cuh``): 64-lane tiles, ``coalesced_threads()`` over the whole wave, HIP's
ballot widths. The compile tests run wherever nvcc is (no GPU); ``cg_emulation/cg_wave64_checks.hip``, whose
expected outputs are HIP's semantics on AMD wave64, runs where an NVIDIA GPU answers (``-m gpu``):

    python3 -m pytest -q -m gpu tests/verify/test_cg_emulation.py

writes the checks' output to ``$VADO_GPU_LOG_DIR`` (default ``gpu-logs/``) as ``cg_wave64_checks.log``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from vado.agent.verify import nvidia_gpu_with_nvcc
from vado.knowledge.targets import get_target
from vado.port.apply import fixpoint
from vado.port.compat import cg_reduce_fixes, cg_shuffle_helper_fixes
from vado.rules.api_cg import CooperativeGroupsTheTargetLacks
from vado.rules.engine import check_context, file_context
from vado.scan.classify import classify
from vado.scan.lexer import tokenize
from vado.verify import hip_on_cuda

NVCC = shutil.which("nvcc") or shutil.which("nvcc", path="/usr/local/cuda/bin")
requires_nvcc = pytest.mark.skipif(NVCC is None, reason="nvcc not installed (CUDA toolkit)")
requires_gpu = pytest.mark.skipif(not nvidia_gpu_with_nvcc(), reason="needs an NVIDIA GPU (nvidia-smi) and nvcc")
CHECKS = Path(__file__).resolve().parent / "cg_emulation" / "cg_wave64_checks.hip"
ROCM = get_target("rocm-7.2")

SMALL = r"""
#include <hip/hip_runtime.h>
#include <hip/hip_cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void k(int* out) {
  cg::thread_block block = cg::this_thread_block();
  BODY
}
"""


#: The fixes of API009 that write vado's own cooperative groups (the scans, invoke_one, the grid and block members,
#: labeled_partition).
_CG_LOCAL_TAGS = {"cg-scan", "cg-invoke", "cg-members", "cg-labeled-partition"}


def _cg_local_fixes(t: str) -> list:
    ctx = file_context("c.hip", t, [ROCM], kind=classify("c.cu"))
    return [f.fix for f in check_context(ctx, [CooperativeGroupsTheTargetLacks])
            if f.fix is not None and _CG_LOCAL_TAGS & set(f.fix.tags)]


def _as_vado_ports_it(text: str) -> str:
    """The check program as a port carries it: the reduce include replaced by vado's local reduce, the scan include
    by vado's local scans, invoke_one and the grid/block members HIP lacks by vado's (API009's fixes and the helper
    block they call). Only these fixes: the program is HIP code already."""
    return fixpoint(text, lambda t: cg_reduce_fixes("c.hip", t, tokenize(t), ROCM) + _cg_local_fixes(t)
                    + cg_shuffle_helper_fixes("c.hip", t, tokenize(t), ROCM)).text


def _write_checks(d: Path) -> Path:
    src = d / CHECKS.name
    src.write_text(_as_vado_ports_it(CHECKS.read_text()))
    assert hip_on_cuda.mark_file_exits(src) >= 20
    return src


def _compile(d: Path, src: Path, wave: int, out: str = "c.o", compile_only: bool = True) -> subprocess.CompletedProcess:
    inc = hip_on_cuda.write_include_dir(d / f"inc{wave}", wave)
    arch = "sm_90" if compile_only else "native"
    cmd = hip_on_cuda.nvcc_port_command(NVCC, [str(src)], str(d / out), inc, arch=arch, flags=["-std=c++17"],
                                        compile_only=compile_only)
    return subprocess.run(cmd, capture_output=True, text=True, timeout=600)


def _small(d: Path, body: str, wave: int = 64) -> subprocess.CompletedProcess:
    src = d / "small.hip"
    src.write_text(SMALL.replace("BODY", body))
    return _compile(d, src, wave, "small.o")


def test_wave64_brings_hips_cooperative_groups_and_warp32_keeps_cudas(tmp_path):
    inc64 = hip_on_cuda.write_include_dir(tmp_path / "i64", 64)
    inc32 = hip_on_cuda.write_include_dir(tmp_path / "i32", 32)
    cg64 = (inc64 / "hip" / "hip_cooperative_groups.h").read_text()
    assert f"#include <{hip_on_cuda.CG_HEADER}>" in cg64 and (inc64 / hip_on_cuda.CG_HEADER).is_file()
    assert cg64.index("<cooperative_groups.h>") < cg64.index(hip_on_cuda.CG_HEADER)
    assert hip_on_cuda.CG_HEADER not in (inc32 / "hip" / "hip_cooperative_groups.h").read_text()
    assert not (inc32 / hip_on_cuda.CG_HEADER).exists()
    # a CUDA library header read after it keeps CUDA's own cooperative groups
    assert "cooperative_groups" in hip_on_cuda.layer_macros(64)
    assert '#pragma push_macro("cooperative_groups")' in (inc64 / "hipcub" / "hipcub.hpp").read_text()
    assert "cooperative_groups" not in hip_on_cuda.layer_macros(32)


def test_the_checks_carry_vados_local_reduce():
    text = _as_vado_ports_it(CHECKS.read_text())
    assert "#include <cooperative_groups/reduce.h>" not in text
    assert "auto reduce(const coalesced_group& group" in text


@requires_nvcc
def test_the_checks_compile(tmp_path):
    proc = _compile(tmp_path, _write_checks(tmp_path), 64)
    assert proc.returncode == 0, proc.stderr[-4000:]


#: What HIP 7.2.4 rejects at compile time, with the word nvcc's error names under the emulation: tiles over 64
#: threads, labeled_partition, thread_block::dim_threads (and block_dim: HIP's name is group_dim), cooperative_groups::
#: reduce (a port gets vado's local one), a tile's numThreads (private in HIP), match_any/match_all of a type other
#: than a 4- or 8-byte integer or floating-point number (HIP's static_assert), a shuffle of a type HIP's __shfl
#: has no overload for.
HIP_REJECTS = [
    ("auto t = cg::tiled_partition<128>(block); out[0] = t.size();", "wavefront size"),
    ("cg::thread_block_tile<256> t = cg::tiled_partition<256>(block); out[0] = t.size();",
     "greater than the wavefront size"),
    ("auto w = cg::tiled_partition<32>(block); auto l = cg::labeled_partition(w, out[0]); out[1] = l.size();",
     "labeled_partition"),
    ("out[0] = block.dim_threads().x;", "dim_threads"),
    ("out[0] = block.block_dim().x;", "block_dim"),
    ("auto w = cg::tiled_partition<32>(block); out[0] = cg::reduce(w, 1, cg::plus<int>());", "reduce"),
    ("out[0] = cg::thread_block_tile<64>::numThreads;", "numThreads"),
    ("auto w = cg::tiled_partition<16>(block); out[0] = (int)w.match_any((short)out[1]);", "T can be int"),
    ("auto c = cg::coalesced_threads(); int p; out[0] = (int)c.match_all((char)out[1], p);", "T can be int"),
    # an 8-byte struct (it fitted the emulation's words until the shuffles took HIP's types only)
    ("float2 f = make_float2(1, 2); auto t = cg::tiled_partition<64>(block); f = t.shfl(f, 1); out[0] = (int)f.y;",
     '"vado_w64_shfl" matches the argument list'),
    ("float2 f = make_float2(1, 2); auto c = cg::coalesced_threads(); f = c.shfl(f, 1); out[0] = (int)f.y;",
     "no matching function for call to '__shfl'"),
    # an enum goes through __shfl(int), whose int HIP cannot return as the enum
    ("enum Color { red }; auto t = cg::tiled_partition<32>(block); Color c = t.shfl(red, 3); out[0] = (int)c;",
     "an enum"),
]


@requires_nvcc
@pytest.mark.parametrize("body,message", HIP_REJECTS)
def test_what_hip_lacks_does_not_compile_here_either(tmp_path, body, message):
    # the emulation rejects them as hipcc does (test_rocm_hipcc_rejects_the_same_bodies shows hipcc's side)
    proc = _small(tmp_path, body)
    assert proc.returncode != 0 and message in proc.stderr, proc.stderr[-3000:]


ROCM_HIPCC = Path(os.environ.get("VADO_ROCM72_HIPCC", "/var/cache/vado/rocm-7.2.4/bin/hipcc"))
requires_rocm = pytest.mark.skipif(not (ROCM_HIPCC.is_file() and os.access(ROCM_HIPCC, os.X_OK))
                                   and os.environ.get("VADO_REQUIRE_ROCM") != "1",
                                   reason="ROCm 7.2.4 hipcc not installed (scripts/rocm-toolchain.sh)")


def _hipcc(src: Path, arch: str = "gfx942") -> subprocess.CompletedProcess:
    return subprocess.run([str(ROCM_HIPCC), f"--offload-arch={arch}", "-x", "hip", "-c", str(src), "-o",
                           str(src.with_suffix(f".{arch}.o"))], capture_output=True, text=True, timeout=600)


@pytest.mark.hipcc
@requires_rocm
@pytest.mark.parametrize("body,message", HIP_REJECTS)
def test_rocm_hipcc_rejects_the_same_bodies(tmp_path, body, message):
    src = tmp_path / "small.hip"
    src.write_text(SMALL.replace("BODY", body))
    proc = _hipcc(src)
    assert proc.returncode != 0 and "error:" in proc.stderr, proc.stderr[-3000:]


@pytest.mark.hipcc
@requires_rocm
@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
def test_the_checks_compile_with_rocm_hipcc(tmp_path, arch):
    # The checks program (as vado ports it: the local reduce in place of <cooperative_groups/reduce.h>) is HIP
    # code that ROCm 7.2.4 builds for a wave64 GPU: every group, member and return type it uses is HIP's
    # (its static_asserts: 64-bit ballot and match masks). That it computes what the expectations say on AMD
    # is shown only by running it there; here it runs on the emulation (test_hip_cooperative_groups_semantics_...).
    src = tmp_path / CHECKS.name
    src.write_text(_as_vado_ports_it(CHECKS.read_text()))
    proc = _hipcc(src, arch)
    assert proc.returncode == 0, proc.stderr[-4000:]


@requires_nvcc
def test_hips_groups_compile_here(tmp_path):
    body = ("auto w = cg::tiled_partition<64>(block); cg::thread_block_tile<64> v = w;\n"
            "  auto c = cg::coalesced_threads(); auto p = cg::binary_partition(c, out[0] > 0);\n"
            "  auto q = cg::tiled_partition(p, 4); cg::thread_group g = cg::tiled_partition(block, 16);\n"
            "  unsigned long long b = w.ballot(1); int pr; w.match_all(3, pr);\n"
            "  out[1] = v.shfl(1, 2) + w.shfl_xor(1, 33) + q.shfl_up(1, 1) + (int)b + g.size() + cg::group_size(w);")
    proc = _small(tmp_path, body)
    assert proc.returncode == 0, proc.stderr[-3000:]
    # under --wave 32 (HIP on NVIDIA) the same port builds against CUDA's cooperative groups
    proc = _small(tmp_path, body.replace("<64>", "<32>").replace("shfl_xor(1, 33)", "shfl_xor(1, 3)"), wave=32)
    assert proc.returncode == 0, proc.stderr[-3000:]


@pytest.fixture(scope="module")
def checks_binary(tmp_path_factory):
    d = tmp_path_factory.mktemp("cg64")
    proc = _compile(d, _write_checks(d), 64, out="cg_wave64_checks", compile_only=False)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return d / "cg_wave64_checks"


def _log(name: str, text: str) -> Path:
    logs = Path(os.environ.get("VADO_GPU_LOG_DIR", "gpu-logs"))
    logs.mkdir(parents=True, exist_ok=True)
    (logs / name).write_text(text)
    return logs / name


@pytest.mark.gpu
@requires_gpu
def test_hip_cooperative_groups_semantics_on_the_gpu(checks_binary):
    try:
        proc = subprocess.run([str(checks_binary)], capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired as exc:  # a wave-wide call that never met its other half
        out = exc.stdout.decode(errors="replace") if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        log = _log("cg_wave64_checks.log", f"$ {checks_binary}\ntimed out after 120 s; the checks that ran:\n{out}")
        pytest.fail(f"the checks hung after the last one in {log}:\n{out}")
    log = _log("cg_wave64_checks.log", f"$ {checks_binary}\nexit {proc.returncode}\n{proc.stdout}{proc.stderr}")
    assert "FAIL" not in proc.stdout and proc.returncode == 0, f"see {log}:\n{proc.stdout}{proc.stderr}"
    # every expect(...) of the checks program printed its "ok" line: none was skipped or cut short
    expected = len(re.findall(r"^\s*expect\(\"", CHECKS.read_text(), re.MULTILINE))
    assert expected >= 20 and proc.stdout.count("\nok ") + proc.stdout.startswith("ok ") == expected
    assert "0 failures" in proc.stdout


def test_kernels_with_cooperative_groups_count_as_cross_lane(tmp_path):
    # a differential that fails under --wave 64 names them (11 of 34 "equal" programs used only these)
    (tmp_path / "k.hip").write_text(
        "namespace cg = cooperative_groups;\n"
        "__global__ void tile(int* p) { auto w = cg::tiled_partition<32>(cg::this_thread_block()); p[0] = w.size(); }\n"
        "__global__ void co(int* p) { if (p[1]) p[0] = cg::coalesced_threads().size(); }\n"
        "__global__ void block_only(int* p) { cg::this_thread_block().sync(); p[0] = 1; }\n")
    assert hip_on_cuda.cross_lane_kernels(tmp_path) == ["k.hip:co", "k.hip:tile"]



@requires_nvcc
def test_a_tile_shuffle_of_a_vector_type_is_rejected_as_hipcc_does(tmp_path):
    # HIP 7.2.4's thread_block_tile::shfl_xor(T) calls __shfl_xor(var, ...), whose overloads are int, unsigned,
    # float, double, long, unsigned long, long long, unsigned long long (and half/bf16): hipcc --offload-arch=gfx942
    # answers "no matching function for call to '__shfl_xor'" for a uint4 (cuda-samples shfl_scan's port). The
    # emulation must not build what hipcc rejects; the scalar sizes HIP has keep building.
    proc = _small(tmp_path, "uint4 u = make_uint4(1, 2, 3, 4); auto t = cg::tiled_partition<32>(block);\n"
                            "  u = t.shfl_xor(u, 1); out[0] = (int)u.w;")
    assert proc.returncode != 0 and '"vado_w64_shfl_xor" matches the argument list' in proc.stderr, proc.stderr[-3000:]
    # an 8-byte struct too: HIP_REJECTS
    # a program's own __shfl_xor for its type is found, as HIP's unqualified call finds it
    src = tmp_path / "own.hip"
    src.write_text(SMALL.replace("__global__", "struct Pair { int a, b; };\n__device__ Pair __shfl_xor(Pair p, int m, int w) {\n"
                                 "  return {__shfl_xor(p.a, m, w), __shfl_xor(p.b, m, w)};\n}\n__global__")
                   .replace("BODY", "auto t = cg::tiled_partition<32>(block); Pair p = {out[0], out[1]};\n"
                                    "  p = t.shfl_xor(p, 1); out[0] = p.a + p.b;"))
    proc = _compile(tmp_path, src, 64, "own.o")
    assert proc.returncode == 0, proc.stderr[-3000:]
    proc = _small(tmp_path, "auto t = cg::tiled_partition<32>(block); double d = t.shfl_xor(1.0, 1);\n"
                            "  long long l = __shfl(7ll, 40); out[0] = (int)d + (int)l + t.shfl_xor(out[1], 3);")
    assert proc.returncode == 0, proc.stderr[-3000:]


ASYNC = r"""
#include <hip/hip_runtime.h>
#include <hip/hip_cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cuda/pipeline>
#include <cuda/barrier>
namespace cg = cooperative_groups;
__global__ void k(double* o, const double* in) {
  __shared__ double s[64];
  cg::thread_block block = cg::this_thread_block();
  cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
  pipe.producer_acquire();
  cuda::memcpy_async(&s[threadIdx.x % 64], &in[threadIdx.x % 64], sizeof(double), pipe);
  pipe.producer_commit();
  cuda::pipeline_consumer_wait_prior<0>(pipe);
  block.sync();
  auto t = cg::tiled_partition<64>(block);
  BODY
}
"""


@requires_nvcc
def test_cudas_cg_detail_headers_included_after_hips_cooperative_groups_compile(tmp_path):
    # cuda-samples dmmaTensorCoreGemm's port includes <cooperative_groups/memcpy_async.h> and cuda/pipeline after
    # hip/hip_cooperative_groups.h: CUDA's details/async.h must not read the renamed namespace (it did:
    # "vado_w64_cg::__v1::details has no member remove_qual"), and the port's groups stay HIP's 64-lane ones.
    src = tmp_path / "async.hip"
    src.write_text(ASYNC.replace("BODY", "static_assert(sizeof(t.ballot(1)) == 8, \"HIP's 64-bit ballot\");\n"
                                         "  o[block.thread_rank()] = s[t.thread_rank()] + t.shfl(1.0, 3);"))
    proc = _compile(tmp_path, src, 64, "async.o")
    assert proc.returncode == 0, proc.stderr[-3000:]
    # HIP 7.2.4 has no cooperative_groups::memcpy_async: a port's call does not compile here either
    src.write_text(ASYNC.replace("BODY", "cg::memcpy_async(t, s, in, sizeof(double) * 64); o[0] = s[1];"))
    proc = _compile(tmp_path, src, 64, "async.o")
    assert proc.returncode != 0 and "memcpy_async" in proc.stderr, proc.stderr[-3000:]


SIM = Path(__file__).resolve().parent / "cg_emulation" / "hip_wave64_sim"
ROCM_HIP = ROCM_HIPCC.parent.parent / "root" / "usr" / "include" / "hip" / "amd_detail"
GXX = shutil.which("g++")
#: The CPU stand-in for a wave64 GPU needs g++ and ROCm 7.2.4's own headers.
requires_stand_in = pytest.mark.skipif((GXX is None or not (ROCM_HIP / "amd_hip_cooperative_groups.h").is_file())
                                       and os.environ.get("VADO_REQUIRE_ROCM") != "1",
                                       reason="needs g++ and ROCm 7.2.4's headers (scripts/rocm-toolchain.sh)")


def _fns64(amd_device_functions: str) -> str:
    """HIP's own ``__fns64`` and ``__fns32`` (amd_device_functions.h), cut out of the installed header."""
    out = []
    for name in ("__fns64", "__fns32"):
        m = re.search(rf"^__device__ static __hip_int32_t {name}\(.*?^}}\n", amd_device_functions, re.MULTILINE | re.DOTALL)
        assert m, f"ROCm's amd_device_functions.h has no {name} of the expected shape"
        out.append(m.group(0))
    return "\n".join(out)


def _run_on_the_stand_in(d: Path, text: str) -> subprocess.CompletedProcess:
    """Build ``text`` (HIP with a host main) against ROCm 7.2.4's own warp and cooperative-groups headers on the
    CPU stand-in for a wave64 GPU, and run it."""
    (d / "fns64.h").write_text(_fns64((ROCM_HIP / "amd_device_functions.h").read_text()))
    src, exe = d / "prog.cpp", d / "prog-sim"
    src.write_text(text)
    defines = {"HIP_SIM_WARP_FUNCTIONS": ROCM_HIP / "amd_warp_functions.h", "HIP_SIM_FNS64": d / "fns64.h",
               "HIP_SIM_CG_HELPER": ROCM_HIP / "hip_cooperative_groups_helper.h",
               "HIP_SIM_CG": ROCM_HIP / "amd_hip_cooperative_groups.h"}
    cmd = [GXX, "-std=c++17", "-O1", "-pthread", "-w", "-I", str(SIM), *(f'-D{k}="{v}"' for k, v in defines.items()),
           "-x", "c++", str(src), "-o", str(exe)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return subprocess.run([str(exe)], capture_output=True, text=True, timeout=300)



@requires_stand_in
def test_the_checks_expectations_are_what_hips_own_cooperative_groups_compute(tmp_path):
    # The expected outputs of the checks program were worked out from HIP's code by hand. Here HIP's own code
    # computes them: ROCm 7.2.4's amd_hip_cooperative_groups.h, its helper and amd_warp_functions.h (the
    # shuffles, ballot, lane id), built for the host and run on a CPU stand-in for a wave64 GPU whose
    # cross-lane builtins (ds_bpermute, ballot, mbcnt, EXEC) follow the ISA (cg_emulation/hip_wave64_sim). Every
    # expect() of the program must pass there too; vado's local reduce is the port's, as on the GPU. What this
    # leaves to the GPU run: that the emulation on an NVIDIA GPU computes the same (test_hip_cooperative_groups_
    # semantics_on_the_gpu), and that AMD hardware follows the ISA as the stand-in does.
    run = _run_on_the_stand_in(tmp_path, _as_vado_ports_it(CHECKS.read_text()))
    assert run.returncode == 0 and "FAIL" not in run.stdout, run.stdout[-3000:] + run.stderr[-1000:]
    expected = len(re.findall(r"^\s*expect\(\"", CHECKS.read_text(), re.MULTILINE))
    assert run.stdout.count("ok ") == expected and "0 failures" in run.stdout, run.stdout


CONVERTS = r"""
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
namespace lib {
struct BF { float f; BF() = default; __device__ BF(float x) : f(x) {} __device__ operator float() const { return f; } };
struct H { float f; H() = default; __device__ H(float x) : f(x) {} __device__ operator float() const { return f; }
           __device__ operator __half() const { return __float2half(f); } };
}
__global__ void k(float* out) {
  lib::BF b(out[0]);
  b = __shfl_down(b, 1); b = __shfl(b, 3, 16); b = __shfl_xor_sync(~0ull, b, 1); b = __shfl_up_sync(~0ull, b, 2);
  lib::H h(out[2]);
  h = __shfl_down_sync(~0ull, h, 1);
#ifdef AMBIGUOUS
  h = __shfl_down(h, 1);
#endif
  out[1] = (float)b + (float)h;
}
"""


def _converts(d: Path, ambiguous: bool) -> Path:
    src = d / ("ambiguous.hip" if ambiguous else "converts.hip")
    src.write_text(CONVERTS.replace("#ifdef AMBIGUOUS", "#if 1" if ambiguous else "#if 0"))
    return src


@requires_nvcc
def test_a_class_converting_to_float_shuffles_as_hips_overloads_take_it(tmp_path):
    # c10::BFloat16 converts to float only (its __nv_bfloat16/__hip_bfloat16 conversion is explicit): HIP's
    # non-template __shfl_down(float, ...) takes it, and HIP's __shfl_*_sync templates return it converted back.
    # torch_scatter's ROCm branch (SHFL_DOWN_SYNC -> __shfl_down(var, delta) over scalar_t) failed to build under
    # the emulation on the H200 for exactly this, while ROCm 7.2.4 builds it. A class converting to float and
    # to __half (c10::Half) is ambiguous for __shfl_down, under hipcc and here; the _sync templates, which see
    # only amd_warp_functions.h's overloads, take it (test_rocm_hipcc_agrees_on_converting_classes).
    proc = _compile(tmp_path, _converts(tmp_path, False), 64)
    assert proc.returncode == 0, proc.stderr[-3000:]
    proc = _compile(tmp_path, _converts(tmp_path, True), 64, "ambiguous.o")
    assert proc.returncode != 0 and '"vado_w64_shfl_down" matches the argument list' in proc.stderr, proc.stderr[-3000:]


@pytest.mark.hipcc
@requires_rocm
def test_rocm_hipcc_agrees_on_converting_classes(tmp_path):
    proc = _hipcc(_converts(tmp_path, False))
    assert proc.returncode == 0, proc.stderr[-3000:]
    proc = _hipcc(_converts(tmp_path, True))
    assert proc.returncode != 0 and "call to '__shfl_down' is ambiguous" in proc.stderr, proc.stderr[-3000:]


LABELED = r"""
#include <cooperative_groups.h>
#include <cstdio>
namespace cg = cooperative_groups;
__global__ void k(int* out, const int* labels) {
  int t = threadIdx.x;
  if (labels[t] >= 0) {
    cg::coalesced_group active = cg::coalesced_threads();
    cg::coalesced_group g = cg::labeled_partition(active, labels[t]);
    out[2 * t] = g.size();
    out[2 * t + 1] = g.thread_rank();
  }
}
"""

LABELED_MAIN = r"""
int main() {
  const int n = 96;
  int labels[n], out[2 * n];
  for (int t = 0; t < n; ++t) labels[t] = t % 11 == 3 ? -1 : (t * 7) % 5 + (t % 13 == 0 ? 1000 : 0);
  int *d_labels, *d_out;
  hipMalloc((void**)&d_labels, sizeof labels);
  hipMalloc((void**)&d_out, sizeof out);
  hipMemset(d_out, 0xff, sizeof out);
  hipMemcpy(d_labels, labels, sizeof labels, hipMemcpyHostToDevice);
  hipLaunchKernelGGL(k, dim3(1), dim3(n), 0, 0, d_out, (const int*)d_labels);
  hipMemcpy(out, d_out, sizeof out, hipMemcpyDeviceToHost);
  for (int t = 0; t < n; ++t) std::printf("%d %d %d %d\n", t, labels[t], out[2 * t], out[2 * t + 1]);
  return 0;
}
"""


@requires_stand_in
def test_the_ports_labeled_partition_groups_lanes_by_label_with_hips_own_code(tmp_path):
    # HIP 7.2.4 has no labeled_partition: the port writes one from binary_partition, a ballot per bit of the label,
    # every lane of the group calling at once with its own side's mask. Run on the CPU stand-in for a wave64 GPU with
    # ROCm 7.2.4's own binary_partition and ballot and __hip_check_mask's rule (the lanes calling with a mask are
    # exactly the mask): no trap, and each lane's group is the lanes of its 32-lane warp with its label, ranked in
    # lane order, as on CUDA: the port splits coalesced_threads() by warp (WARP009) before labeling (a block of 96:
    # three warps, the last in a partial wave; lanes with label -1 do not call). warpAggregatedAtomicsCG's
    # port (this code) trapped under the emulation on the H200 in a few blocks: the emulation's limit (README), not
    # HIP's behaviour.
    from vado.port.file import port_bytes
    from vado.scan.classify import FileKind

    ported = port_bytes("k.cu", FileKind.CUDA_SOURCE, LABELED.encode(), ROCM).after.decode()
    assert "VADO_CG_LABELED_PARTITION" in ported
    run = _run_on_the_stand_in(tmp_path, ported + LABELED_MAIN)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-1000:]
    rows = [tuple(map(int, line.split())) for line in run.stdout.split("\n") if line.strip()]
    assert len(rows) == 96
    label = {t: lab for t, lab, _, _ in rows}
    for t, lab, size, rank in rows:
        if lab < 0:
            assert (size, rank) == (-1, -1)  # never written
            continue
        warp = [u for u in range(t // 32 * 32, min(t // 32 * 32 + 32, 96)) if label[u] == lab]
        assert (size, rank) == (len(warp), warp.index(t)), (t, lab, size, rank, warp)


@requires_stand_in
def test_the_stand_in_stops_where_hips_mask_check_traps(tmp_path):
    # the negative case of the test above: 64 lanes call __ballot_sync with a mask naming two of them
    run = _run_on_the_stand_in(tmp_path, "#include <hip/hip_runtime.h>\n#include <cstdio>\n"
                               "__global__ void k(int* out) { out[threadIdx.x] = (int)__ballot_sync(3ull, 1); }\n"
                               "int main() { int* d; hipMalloc((void**)&d, 256);\n"
                               "  hipLaunchKernelGGL(k, dim3(1), dim3(64), 0, 0, d); std::printf(\"done\\n\"); }\n")
    assert run.returncode != 0 and "__hip_check_mask" in run.stdout and "done" not in run.stdout, run.stdout[-2000:]


EARLY_RETURN = r"""
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;
__global__ void k(int* out, const int* labels) {
  int t = threadIdx.x;
  if (labels[t] < 0) return;  // gsplat's projection backward: lanes of culled Gaussians leave first
  auto warp = cg::tiled_partition<32>(cg::this_thread_block());
  auto g = cg::labeled_partition(warp, labels[t]);
  int sum = cg::reduce(g, t + 1, cg::plus<int>());
  out[3 * t] = g.size();
  out[3 * t + 1] = g.thread_rank();
  out[3 * t + 2] = sum;
}
"""

EARLY_RETURN_MAIN = r"""
int main() {
  const int n = 160;
  int labels[n], out[3 * n];
  // lane 0 of the first warp, a run in the middle of the second, every lane of the fourth (a whole half of the
  // second wave) and the odd lanes of the fifth (a wave with one warp) return before the partition
  for (int t = 0; t < n; ++t)
    labels[t] = (t == 0 || (t >= 40 && t < 50) || (t >= 96 && t < 128) || (t >= 128 && t % 2)) ? -1 : (t * 5) % 3;
  int *d_labels, *d_out;
  hipMalloc((void**)&d_labels, sizeof labels);
  hipMalloc((void**)&d_out, sizeof out);
  hipMemset(d_out, 0xff, sizeof out);
  hipMemcpy(d_labels, labels, sizeof labels, hipMemcpyHostToDevice);
  hipLaunchKernelGGL(k, dim3(1), dim3(n), 0, 0, d_out, (const int*)d_labels);
  hipMemcpy(out, d_out, sizeof out, hipMemcpyDeviceToHost);
  for (int t = 0; t < n; ++t) std::printf("%d %d %d %d %d\n", t, labels[t], out[3 * t], out[3 * t + 1], out[3 * t + 2]);
  return 0;
}
"""


def _early_return_port() -> str:
    from vado.port.file import port_bytes
    from vado.scan.classify import FileKind

    ported = port_bytes("k.cu", FileKind.CUDA_SOURCE, EARLY_RETURN.encode(), ROCM).after.decode()
    assert "VADO_CG_LABELED_PARTITION" in ported and "VADO_CG_REDUCE" in ported
    return "#include <cstdio>\n" + ported + EARLY_RETURN_MAIN


@requires_stand_in
def test_the_ports_labeled_partition_of_a_tile_leaves_out_lanes_that_returned(tmp_path):
    # gsplat 1.5.3's projection backward: lanes return early, then labeled_partition(tiled_partition<32>(block),
    # gid), a reduce over the group and an atomicAdd by its rank 0. CUDA's labeled_partition of a tile is a
    # __match_any_sync over the tile, which leaves out lanes that have left the kernel (PTX match.sync on sm_70 and
    # later waits for the mask's non-exited threads): each lane's group is the lanes of its 32-lane tile still
    # running with its label, ranked in lane order. HIP's binary_partition of the tile ballots over the tile's
    # whole build_mask(), so __hip_check_mask traps on the lanes that returned (the port's first form did that;
    # under the emulation on the H200 it was `unspecified launch failure`); the port's labeled_partition now
    # starts from coalesced_threads() (EXEC), split by tile. Run with ROCm 7.2.4's own binary_partition, ballot
    # and mask rule on the CPU stand-in for a wave64 GPU: no trap, CUDA's groups, sizes, ranks and sums.
    run = _run_on_the_stand_in(tmp_path, _early_return_port())
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-1000:]
    rows = [tuple(map(int, line.split())) for line in run.stdout.split("\n") if line.strip()]
    assert len(rows) == 160
    label = {t: lab for t, lab, *_ in rows}
    for t, lab, size, rank, total in rows:
        if lab < 0:
            assert (size, rank, total) == (-1, -1, -1)  # returned: never written
            continue
        group = [u for u in range(t // 32 * 32, t // 32 * 32 + 32) if label.get(u, -1) == lab]
        assert (size, rank, total) == (len(group), group.index(t), sum(u + 1 for u in group)), (t, lab, size, rank)


@requires_stand_in
def test_hips_binary_partition_of_a_tile_traps_when_a_lane_returned(tmp_path):
    # The negative case: HIP's own binary_partition of the tile (what the port's first labeled_partition called)
    # stops at __hip_check_mask once a lane of the tile has returned, where CUDA goes on without it.
    run = _run_on_the_stand_in(tmp_path, "#include <hip/hip_runtime.h>\n#include <hip/hip_cooperative_groups.h>\n"
                               "#include <cstdio>\nnamespace cg = cooperative_groups;\n"
                               "__global__ void k(int* out) { if (threadIdx.x == 3) return;\n"
                               "  auto w = cg::tiled_partition<32>(cg::this_thread_block());\n"
                               "  out[threadIdx.x] = cg::binary_partition(w, threadIdx.x & 1).size(); }\n"
                               "int main() { int* d; hipMalloc((void**)&d, 256);\n"
                               "  hipLaunchKernelGGL(k, dim3(1), dim3(64), 0, 0, d); std::printf(\"done\\n\"); }\n")
    assert run.returncode != 0 and "__hip_check_mask" in run.stdout and "done" not in run.stdout, run.stdout[-2000:]


@pytest.mark.hipcc
@requires_rocm
@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
def test_the_early_return_labeled_partition_port_compiles_with_rocm_hipcc(tmp_path, arch):
    src = tmp_path / "early.hip"
    src.write_text(_early_return_port())
    proc = _hipcc(src, arch)
    assert proc.returncode == 0, proc.stderr[-4000:]


@requires_nvcc
def test_the_early_return_labeled_partition_port_builds_under_the_emulation(tmp_path):
    # the same port builds and links under the emulation (nvcc through the wave64 layer); the checks program
    # runs its shape on the GPU (k_labeled_after_return)
    src = tmp_path / "early.hip"
    src.write_text(_early_return_port())
    assert hip_on_cuda.mark_file_exits(src) >= 1
    proc = _compile(tmp_path, src, 64, out="early", compile_only=False)
    assert proc.returncode == 0, proc.stderr[-4000:]


@requires_nvcc
def test_the_ports_labeled_partition_leaves_hip_on_nvidia_to_cudas_own(tmp_path):
    # HIP on NVIDIA (__HIP_PLATFORM_NVIDIA__: hipcc's nvcc path, vado's hip_nvidia build) is CUDA's cooperative
    # groups, which have labeled_partition; the local one would not even link there (it assigns coalesced_group,
    # whose thread_group::operator= CUDA declares and never defines: ptxas "Unresolved extern function").
    src = tmp_path / "early.hip"
    src.write_text(_early_return_port())
    inc = hip_on_cuda.write_include_dir(tmp_path / "inc32", 32)
    cmd = hip_on_cuda.nvcc_port_command(NVCC, [str(src)], str(tmp_path / "e.o"), inc, arch="sm_90",
                                        flags=["-std=c++17", "-D__HIP_PLATFORM_NVIDIA__"], compile_only=True)
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
