"""Warp32 emulation (``vado port --wave warp32``, the default): the helpers, where they go, and that they compile.

The fixtures that show whole ports are ``tests/fixtures/PORT/wave64-warp32.cu``,
``shfl-hip52-warp32.cu``, ``arch-guards.cu`` and ``PORT-PTX/warp32.cu``; the
compile check below runs their ``.fixed.hip`` through ROCm 7.2.4's hipcc (the
``*_sync`` builtins with 64-bit masks, which Debian's HIP 5.2 lacks) for gfx942
and gfx950 where that toolchain is installed (``VADO_ROCM_HOME``, else
``/var/cache/vado/rocm-7.2.4``, as tests/port/test_project_builds.py).
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from vado.knowledge.targets import get_target
from vado.port.file import PortOptions, port_bytes
from vado.port.wave import HELPER_NAMES, guard, helper_block, helpers
from vado.rules.warp import WARP32_CALLS, warp32_helper, warp32_renames
from vado.scan.classify import classify

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
ROCM72, ROCM64, HIP52 = get_target("rocm-7.2"), get_target("rocm-6.4"), get_target("hip-5.2")


def port(name: str, src: str, target=ROCM72, wave: str = "warp32"):
    return port_bytes(name, classify(name), src.encode(), target, PortOptions(wave=wave))


@pytest.mark.parametrize("target", [ROCM72, ROCM64, HIP52], ids=lambda t: t.name)
def test_every_renamed_function_has_a_helper_and_every_helper_its_dependencies(target):
    table = helpers(target)
    for name in WARP32_CALLS:
        if warp32_renames(name, target):
            assert warp32_helper(name) in table, name
    for helper, (code, deps) in table.items():
        assert helper in HELPER_NAMES and f" {helper}(" in code
        assert set(deps) <= set(table)
        # each dependency is defined before the helper that calls it
        order = list(table)
        assert all(order.index(d) < order.index(helper) for d in deps), helper


def test_votes_and_shuffles_use_mask_less_builtins_on_every_target():
    # ROCm 7's *_sync builtins trap on masks CUDA tolerates (lanes that never arrive, per-lane masks such
    # as bscan's lanemask_lt), so the helpers never pass a mask to them; the vote is masked as CUDA does.
    for target in (ROCM72, ROCM64, HIP52):
        table = helpers(target)
        code = "".join(table[h][0] for h in table if "match" not in h and "reduce" not in h and "syncwarp" not in h
                       and h != "vado_mask64")
        # The HIP-on-NVIDIA branches call CUDA's own functions; the AMD ones only mask-less builtins.
        amd = re.sub(r"#if defined\(__HIP_PLATFORM_NVIDIA__\)\n.*?#else\n", "", code, flags=re.S)
        assert "__ballot(" in amd and "_sync(" not in amd.replace("_sync32(", "(")
        assert "vado_ballot32(vado_pred) & vado_mask" in table["vado_ballot_sync32"][0]
    # Those with no mask-less form call the builtin with the caller's half of the mask, where HIP has it.
    assert "__reduce_add_sync(vado_mask64(vado_mask)" in helpers(ROCM72)["vado_reduce_add_sync32"][0]
    assert not warp32_renames("__match_any_sync", HIP52) and not warp32_renames("__syncwarp", ROCM64)
    assert warp32_renames("__reduce_add_sync", ROCM72) and warp32_renames("__shfl_down_sync", HIP52)


def test_calls_are_renamed_and_only_the_helpers_used_are_written():
    src = ("#include <cuda_runtime.h>\n"
           "__global__ void k(int* o, float v) {\n"
           "  o[0] = __any_sync(0xffffffff, v > 0);\n"
           "  o[1] = __shfl_xor_sync(0xffffffff, o[0], 1);\n"
           "}\n")
    out = port("k.cu", src).after.decode()
    assert "o[0] = vado_any_sync32(0xffffffff, v > 0);" in out and "vado_shfl_xor_sync32(0xffffffff, o[0], 1)" in out
    defined = set(re.findall(r"#define (VADO_\w+)", out))
    assert defined == {guard(h) for h in ("vado_any_sync32", "vado_ballot_sync32", "vado_ballot32", "vado_half32",
                                          "vado_shfl_xor_sync32")}
    assert out.index("#ifndef VADO_HALF32") < out.index("#ifndef VADO_BALLOT32") < out.index("__global__")


def test_header_and_source_each_get_guarded_copies_and_a_second_port_changes_nothing():
    header = "#pragma once\n__device__ unsigned votes(int p) { return __ballot_sync(0xffffffff, p); }\n"
    source = ('#include "votes.cuh"\n__global__ void k(unsigned* o) { o[threadIdx.x] = votes(1) + __activemask(); }\n')
    h, s = port("votes.cuh", header), port("k.cu", source)
    assert "#ifndef VADO_BALLOT_SYNC32" in h.after.decode() and "#ifndef VADO_ACTIVEMASK32" in s.after.decode()
    assert "#ifndef VADO_HALF32" in h.after.decode() and "#ifndef VADO_HALF32" in s.after.decode()
    for name, once in (("votes.cuh", h), ("k.cu", s)):
        again = port_bytes(name, classify(name), once.after, ROCM72, PortOptions())
        assert again.after == once.after and again.applied == {}


def test_a_helper_the_file_already_guards_is_not_written_again():
    src = ("#define VADO_ANY_SYNC32\n"
           "__device__ int vado_any_sync32(unsigned m, int p) { return __any(p); }\n"
           "__global__ void k(int* o) { o[0] = __any_sync(0xffffffff, o[1]); }\n")
    out = port("k.cu", src).after.decode()
    assert out.count("vado_any_sync32(unsigned") == 1 and "o[0] = vado_any_sync32(0xffffffff, o[1])" in out


def test_a_program_macro_named_like_a_parameter_does_not_reach_the_helpers():
    """HeCBench jaccard: ``#define mask 0xFFFFFFFF`` is still defined where the helpers go."""
    src = ("#define mask 0xFFFFFFFF\n#define T float\n#define width 8\n"
           "__global__ void k(T* o) { o[0] = __shfl_sync(mask, o[1], 0); o[1] = __ballot_sync(mask, o[2] > 0); }\n")
    out = port("k.cu", src).after.decode()
    block = out[out.index("// vado:"):out.index("__global__")]
    assert not re.search(r"\b(?:mask|T|width)\b", re.sub(r"//[^\n]*", "", block))


def test_native_mode_keeps_the_wave64_rewrites():
    src = "__global__ void k(int* o) { o[0] = __any_sync(0xffffffff, o[1]); o[2] = threadIdx.x % warpSize; }\n"
    out = port("k.cu", src, wave="native").after.decode()
    assert "__any_sync(0xffffffffffffffffull, o[1])" in out and "warpSize" in out and "vado_" not in out


def test_warp_size_becomes_32_in_device_code_macros_and_host_property_reads():
    # The device property is 64 on MI300X; the port's kernels keep 32-lane warps, so host launch
    # arithmetic with it must see 32 (HeCBench softmax-online sized its grid with props.warpSize).
    src = ("#define LANES warpSize\n"
           "__global__ void k(int* o) { o[threadIdx.x / warpSize] = LANES; }\n"
           "int lanes(const cudaDeviceProp& p) { return p.warpSize; }\n"
           "void set(cudaDeviceProp* p) { p->warpSize = 32; }\n"
           "int deep(const cudaDeviceProp* ps) { return ps[0].warpSize + ps->warpSize; }\n")
    out = port("k.cu", src).after.decode()
    assert "#define LANES 32\n" in out and "o[threadIdx.x / 32] = LANES;" in out and "return 32;" in out
    assert "p->warpSize = 32;" in out  # written, not read
    assert "ps[0].warpSize + 32" in out  # an indexed access is left alone


def test_a_program_that_declares_warp_size_keeps_it():
    src = ("__global__ void k(int* o, int warpSize) { o[threadIdx.x / warpSize] = 1; }\n")
    out = port("k.cu", src).after.decode()
    assert "threadIdx.x / warpSize" in out


def test_helper_block_text_is_stable():
    block = helper_block(ROCM72, {"vado_lane32"})
    assert block.startswith("// vado: warp32 emulation") and block.endswith("#endif\n\n")
    assert "static __device__ __forceinline__ unsigned vado_lane32() { return __lane_id() & 31u; }" in block


def _rocm_hipcc() -> Path | None:
    home = os.environ.get("VADO_ROCM_HOME")
    hipcc = (Path(home) if home else Path("/var/cache/vado/rocm-7.2.4")) / "bin" / "hipcc"
    return hipcc if hipcc.is_file() and os.access(hipcc, os.X_OK) else None


COMPILED = ["PORT/wave64-warp32.fixed.hip", "PORT/shfl-hip52-warp32.fixed.hip", "PORT/arch-guards.fixed.hip",
            "PORT-PTX/warp32.fixed.hip", "PORT-PTX/laneid.fixed.hip"]


@pytest.mark.hipcc
@pytest.mark.skipif(_rocm_hipcc() is None, reason="ROCm 7.2.4 hipcc not installed (scripts/rocm-toolchain.sh)")
@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
@pytest.mark.parametrize("fixed", COMPILED)
def test_warp32_ports_compile_with_rocm_7_2(fixed: str, arch: str, tmp_path: Path):
    """ROCm 7's *_sync builtins reject 32-bit masks with a static assertion; the helpers pass 64-bit ones."""
    proc = subprocess.run([str(_rocm_hipcc()), f"--offload-arch={arch}", "-x", "hip", "-c",
                           "-I", str(FIXTURES / "PORT" / "include"), str(FIXTURES / fixed), "-o", str(tmp_path / "o.o")],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]


_CUDA_COMPAT_H = "#pragma once\n#ifndef USE_ROCM\n  #define WARP_SIZE 32\n#else\n  #define WARP_SIZE warpSize\n#endif\n"
_WARP_SIZE_KERNEL = ('#include "../cuda_compat.h"\n'
                     "template <int W> __device__ bool warp_reduce(bool v) { return __any_sync(0xffffffff, v); }\n"
                     "__global__ void k(float* o, bool* r) {\n"
                     "  o[0] = __shfl_xor_sync(0xffffffff, o[1], 1, WARP_SIZE);\n"
                     "  r[threadIdx.x / WARP_SIZE] = warp_reduce<WARP_SIZE>(o[0] > 0);\n}\n")


@pytest.mark.parametrize("compat, wide", [(_CUDA_COMPAT_H, True), ("#pragma once\n#define WARP_SIZE 32\n", False)],
                         ids=["per-platform", "always-32"])
def test_port_tree_follows_the_platform_width_into_the_project_header(tmp_path, compat, wide):
    """Issue 26 class 2 through a header (vLLM's csrc/cuda_compat.h): a tree port (which passes the tree
    as ``source_root``) leaves a kernel sized by the header's per-platform WARP_SIZE as written, with the
    WARP009 note; a header whose WARP_SIZE is 32 everywhere leaves the kernel to the 32-lane helpers."""
    from vado.audit.pipeline import audit
    from vado.port.tree import port_tree

    (tmp_path / "src" / "csrc" / "moe").mkdir(parents=True)
    (tmp_path / "src" / "csrc" / "cuda_compat.h").write_text(compat)
    (tmp_path / "src" / "csrc" / "moe" / "kernel.cu").write_text(_WARP_SIZE_KERNEL)
    port_tree(tmp_path / "src", tmp_path / "out", ROCM72)
    ported = (tmp_path / "out" / "csrc" / "moe" / "kernel.cu").read_text()
    assert ("vado_shfl_xor_sync32" not in ported and "vado_any_sync32" not in ported) is wide
    assert ("__shfl_xor_sync(0xffffffffffffffffull, o[1], 1, WARP_SIZE)" in ported) is wide
    assert "warp_reduce<WARP_SIZE>" in ported
    notes = [f for f in audit(tmp_path / "src", (ROCM72,)).findings
             if f.code == "WARP009" and f.span.path.endswith("kernel.cu")]
    assert any("csrc/cuda_compat.h" in f.data.get("wide", "") for f in notes) is wide


def test_port_tree_reads_device_qualifier_macros_from_the_project_header(tmp_path):
    """Issue 26: a device function qualified through a macro of a project header (``FINLINE``, defined as
    another macro that holds ``__device__``) is device code: its warpSize becomes 32 beside the 32-lane
    helpers its shuffles become, and a host function qualified by a plain macro keeps its own warpSize."""
    from vado.port.tree import port_tree

    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "common.h").write_text("#pragma once\n#define DEVICE_INLINE __device__ __forceinline__\n"
                                              "#define FINLINE DEVICE_INLINE\n#define HOST_ONLY static inline\n")
    (tmp_path / "src" / "k.cu").write_text(
        '#include "common.h"\n'
        "FINLINE float wsum(float v) {\n"
        "  for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_down_sync(0xffffffff, v, o);\n  return v;\n}\n"
        "__global__ void k(float* x) { x[threadIdx.x] = wsum(x[threadIdx.x]); }\n"
        "HOST_ONLY int blocks(int n, int warpSize) { return n / warpSize; }\n")
    port_tree(tmp_path / "src", tmp_path / "out", ROCM72)
    ported = (tmp_path / "out" / "k.cu").read_text()
    assert "for (int o = 32 / 2; o > 0; o /= 2) v += vado_shfl_down_sync32(0xffffffff, v, o);" in ported
    assert "HOST_ONLY int blocks(int n, int warpSize) { return n / warpSize; }" in ported
