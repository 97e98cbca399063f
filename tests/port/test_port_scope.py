"""A port leaves what is not the project's CUDA code byte for byte as it is; audit and plan agree."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

from vado.knowledge.targets import get_target
from vado.model import SkipReason, Verdict
from vado.port.tree import port_tree

PROJECTS = Path(__file__).resolve().parents[1] / "fixtures" / "PROJECTS"
OWN_HIP = PROJECTS / "own-hip"
PLAIN = PROJECTS / "plain-cuda"
ROCM = get_target("rocm-7.2")


def _hashes(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def test_default_port_leaves_backends_vendored_and_hip_path_byte_identical(tmp_path: Path):
    result = port_tree(OWN_HIP, tmp_path / "out", ROCM)
    before, after = _hashes(OWN_HIP), _hashes(tmp_path / "out")
    assert before.keys() == after.keys()
    changed = sorted(p for p in before if before[p] != after[p])
    # Only mb-common.c is the project's CUDA-free host code outside every HIP path; nothing in it to port.
    assert changed == []
    assert result.own_rocm_build == 'cmake -DMB_HIP=ON -DCMAKE_HIP_ARCHITECTURES="gfx942;gfx950"'
    reasons = {s.path: s.reason for s in result.skips}
    assert reasons["src/mb-sycl/sycl-ops.cpp"] is SkipReason.OTHER_BACKEND
    assert reasons["src/mb-cpu/arch/riscv/quants.c"] is SkipReason.OTHER_BACKEND
    assert reasons["src/mb-cuda/kernel.cu"] is SkipReason.OWN_HIP_PATH
    assert reasons["src/mb-cuda/vendors/hip.h"] is SkipReason.OWN_HIP_PATH
    assert reasons["dependencies"] is SkipReason.VENDORED and reasons["modules/tinylib"] is SkipReason.VENDORED
    from vado.port.summary import render_port_json, render_port_text

    text = render_port_text(result, width=400)
    assert ('has its own ROCm build: cmake -DMB_HIP=ON -DCMAKE_HIP_ARCHITECTURES="gfx942;gfx950"; its HIP path '
            "(8 files) left as is; pass --include-hip-path to port it anyway") in text
    assert "other backends left as is: 5 files (SYCL 3, CPU backend 1, RISC-V CPU 1); pass --include-backends" in text
    assert "vendored code left as is: 3 directories or files" in text
    assert json.loads(render_port_json(result))["own_rocm_build"] == result.own_rocm_build


def test_in_place_port_leaves_them_untouched(tmp_path: Path):
    tree = tmp_path / "tree"
    shutil.copytree(OWN_HIP, tree)
    before = _hashes(tree)
    port_tree(tree, None, ROCM, in_place=True)
    assert _hashes(tree) == before


def test_flags_bring_them_back(tmp_path: Path):
    result = port_tree(OWN_HIP, tmp_path / "out", ROCM, include_hip_path=True, include_backends=True,
                       include_vendored=True)
    translated = {f.path for f in result.translated}
    assert "src/mb-cuda/kernel.cu" in translated
    assert "modules/tinylib/tiny.cu" in translated
    assert not any(s.reason in (SkipReason.OTHER_BACKEND, SkipReason.OWN_HIP_PATH, SkipReason.VENDORED)
                   for s in result.skips)
    # The project's build is still reported; nothing of its HIP path was left out.
    assert not any(line.startswith("has its own ROCm build") for line in result.left_out)


def test_mixed_files_are_ported_and_named(tmp_path: Path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "interop.cu").write_text("#include <sycl/sycl.hpp>\n#include <cuda_runtime.h>\n"
                                    "void f(float** p) { cudaMalloc(p, 4); }\n")
    result = port_tree(src, tmp_path / "out", ROCM)
    assert [f.path for f in result.translated] == ["interop.cu"]
    assert result.left_out == ("1 ported files also use SYCL (review those parts): interop.cu",)


def test_plain_cuda_project_is_still_ported(tmp_path: Path):
    result = port_tree(PLAIN, tmp_path / "out", ROCM)
    assert {f.path for f in result.translated} >= {"sycl_utils/k.cu"}
    assert result.own_rocm_build == "" and result.left_out == ()
    assert "hipMalloc" in (tmp_path / "out" / "sycl_utils" / "k.cu").read_text()


def test_audit_verdict_names_the_own_rocm_build():
    from vado.audit import audit
    from vado.report import render

    result = audit(OWN_HIP, [ROCM, get_target("oneapi")])
    rocm = next(tv for tv in result.verdicts if tv.target == "rocm-7.2")
    assert rocm.verdict is Verdict.MOVES_AS_IS
    assert rocm.reason.startswith('moves as is with its own ROCm build: cmake -DMB_HIP=ON '
                                  '-DCMAKE_HIP_ARCHITECTURES="gfx942;gfx950" (')
    # The other targets still judge the project's CUDA code.
    oneapi = next(tv for tv in result.verdicts if tv.target == "oneapi")
    assert oneapi.verdict is not Verdict.MOVES_AS_IS
    skipped = {s.path: s.reason for s in result.skips}
    assert skipped["src/mb-sycl/sycl-ops.cpp"] is SkipReason.OTHER_BACKEND
    assert "src/mb-sycl/sycl-ops.cpp" not in {f.path for f in result.files}
    kernel = next(f for f in result.files if f.path == "src/mb-cuda/kernel.cu")
    assert next(tv for tv in kernel.verdicts if tv.target == "rocm-7.2").verdict is Verdict.MOVES_AS_IS
    for fmt in ("concise", "json", "sarif"):
        assert "moves as is with its own ROCm build: cmake -DMB_HIP=ON" in render(result, fmt), fmt
    assert "moves as is with its own ROCm build: cmake -DMB\\_HIP=ON" in render(result, "markdown")
    # Asked to judge the HIP path as CUDA code, the audit does.
    forced = audit(OWN_HIP, [ROCM], include_hip_path=True, include_backends=True)
    assert next(tv for tv in forced.verdicts if tv.target == "rocm-7.2").verdict is not Verdict.MOVES_AS_IS


def test_plan_does_not_say_stays_on_nvidia():
    from vado.audit import audit
    from vado.plan.aggregate import order, workload_plans
    from vado.plan.pools import default_pools

    result = audit(OWN_HIP, [ROCM])
    plans = order(workload_plans("own-hip", result, [ROCM], default_pools()), "rocm-7.2")
    assert plans and all(w.wave == "moves as is" for w in plans)


def test_mcp_port_tool_says_what_it_left_out():
    from vado.mcp import tools
    from vado.mcp.root import Root

    answer = tools.port(Root(PROJECTS), "own-hip")
    assert answer["own_rocm_build"].startswith("cmake -DMB_HIP=ON")
    assert any(line.startswith("has its own ROCm build") for line in answer["left_out"])
    assert answer["files_by_status"] == {"unchanged": 1}  # src/mb-common.c, the only file in scope
    forced = tools.port(Root(PROJECTS), "own-hip", include_hip_path=True, include_backends=True)
    assert forced["files_by_status"].get("translated", 0) >= 3


def test_the_projects_own_hip_build_compiles_the_default_port(tmp_path: Path):
    """The port leaves the HIP path as it is, so the project's own HIP configuration (its defines,
    read from its CMake files) still compiles with ROCm's hipcc."""
    import os
    import subprocess
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from _compile_fixtures import require_compiler

    from vado.scan.scope import amd_defines

    compiler = require_compiler("rocm-7.2")
    port_tree(OWN_HIP, tmp_path / "out", ROCM)
    source = tmp_path / "out" / "src" / "mb-cuda" / "kernel.cu"
    cmd = [compiler.path, *(f"--offload-arch={a}" for a in compiler.archs), "-x", "hip", "-c",
           *(f"-D{d}" for d in amd_defines(OWN_HIP)), str(source), "-o", str(tmp_path / "kernel.o")]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, HIP_PLATFORM="amd"), timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]


_OUTSIDE_HIP_PATH = """\
// A CUDA tool of the project that its HIP build does not compile through the vendor header.
__global__ void tool_add(unsigned* p, unsigned v) {
#if !defined(MB_USE_HIP)
    asm volatile("red.global.add.u32 [%0], %1;" :: "l"(p), "r"(v));
#else
    atomicAdd(p, v);
#endif
}
"""


def test_project_hip_option_decides_the_amd_configuration_of_audit_and_port(tmp_path: Path):
    # The macros the project's own ROCm build defines (MB_USE_HIP) are the AMD configuration: the PTX
    # branch its option switches off decides no ROCm verdict and is not edited; --include-hip-path
    # (vado's port is then the AMD build) judges it again.
    from vado.audit.pipeline import audit

    root = tmp_path / "proj"
    shutil.copytree(OWN_HIP, root)
    (root / "tools").mkdir(exist_ok=True)
    (root / "tools" / "tool.cu").write_text(_OUTSIDE_HIP_PATH)
    ptx = [f for f in audit(root, [ROCM]).findings if f.span.path == "tools/tool.cu" and f.code.startswith("PTX")]
    assert ptx and all(f.inactive.get(ROCM.name) for f in ptx)
    judged = [f for f in audit(root, [ROCM], include_hip_path=True).findings
              if f.span.path == "tools/tool.cu" and f.code.startswith("PTX")]
    assert judged and not any(f.inactive.get(ROCM.name) for f in judged)
    port_tree(root, tmp_path / "out", ROCM)
    ported = (tmp_path / "out" / "tools" / "tool.cu").read_text()
    assert 'asm volatile("red.global.add.u32 [%0], %1;"' in ported  # the NVIDIA-only branch is left as written


def test_backend_directories_port_leaves_both_backends_and_ports_the_rest(tmp_path: Path):
    """The Ginkgo layout: the HIP backend, the shared code and the CUDA backend the ROCm build never
    compiles stay byte-identical; CUDA every configuration builds (tools/bench.cu) is ported."""
    src = PROJECTS / "backend-dirs"
    result = port_tree(src, tmp_path / "out", ROCM)
    before, after = _hashes(src), _hashes(tmp_path / "out")
    kept = {p for p in before if p.startswith(("cuda/", "hip/", "common/", "tools/probe.cu"))}
    assert kept and all(after.get(p) == before[p] for p in kept)
    assert {f.path for f in result.translated} == {"tools/bench.cu"}
    reasons = {s.path: (s.reason, s.detail) for s in result.skips}
    reason, detail = reasons["cuda/device.cu"]
    assert reason is SkipReason.OWN_HIP_PATH and "not compiled by the project's own ROCm build" in detail


def test_backend_directories_audit_names_the_own_build():
    from vado.audit.pipeline import audit

    report = audit(PROJECTS / "backend-dirs", [ROCM])
    cuda = next(fr for fr in report.files if fr.path == "cuda/device.cu")
    assert all(tv.verdict is Verdict.MOVES_AS_IS for tv in cuda.verdicts)
    assert "not compiled by the project's own ROCm build" in cuda.verdicts[0].reason
    repo = report.verdicts[0]
    assert "cmake -DKD_BUILD_HIP=ON" in repo.reason


SINGLE_SOURCE = PROJECTS / "single-source-hip"


def test_single_source_project_is_its_own_hip_path():
    """One CUDA source for both GPU builds (bitsandbytes' pattern): the HIP branch compiles the .cu
    files as HIP (LANGUAGE HIP) and names a CUDA-only tensor-core source apart; audit says it moves
    as is with the project's own build, switched by a string cache variable (-DBACKEND=hip)."""
    from vado.audit.pipeline import audit
    from vado.scan.scope import Scope, project_scope

    scope = project_scope(SINGLE_SOURCE, arches=("gfx942",))
    assert scope.own_rocm_build() == "cmake -DBACKEND=hip -DCMAKE_HIP_ARCHITECTURES=gfx942"
    assert scope.hip.hip_language == ("src/ops.cu", "src/kernels.cu")
    assert scope.hip.cuda_only == ("src/mma_sm80.cu",)
    assert scope.hip.defines == ("BUILD_HIP",)
    got = {p: fs.scope for p, fs in scope.files.items()}
    assert got == {"CMakeLists.txt": Scope.HIP_PATH, "src/compat.cuh": Scope.HIP_PATH, "src/host.cpp": Scope.PROJECT,
                   "src/kernels.cu": Scope.HIP_PATH, "src/kernels.cuh": Scope.HIP_PATH, "src/mma.cuh": Scope.HIP_PATH,
                   "src/mma_sm80.cu": Scope.HIP_PATH, "src/ops.cu": Scope.HIP_PATH}
    assert scope.of("src/mma_sm80.cu").why.startswith("compiled only by the project's CUDA build")
    assert scope.of("src/mma.cuh").why.startswith("compiled only by the project's CUDA build")
    rocm = next(v for v in audit(SINGLE_SOURCE, [ROCM]).verdicts if v.target == ROCM.name)
    assert rocm.verdict is Verdict.MOVES_AS_IS
    assert rocm.reason.startswith("moves as is with its own ROCm build: cmake -DBACKEND=hip")


def test_single_source_projects_own_rocm_build_builds_the_same_objects_after_the_port(tmp_path: Path):
    """The project's own CMake HIP configuration, built with the ROCm 7.2.4 chroot's cmake, gives the same
    object files, byte for byte, from the tree and from its default port (built at the same path)."""
    import os
    import subprocess

    cmake = Path(os.environ.get("VADO_ROCM_HOME", "/var/cache/vado/rocm-7.2.4")) / "bin" / "cmake"
    if not cmake.exists():
        import pytest

        if os.environ.get("VADO_REQUIRE_ROCM") == "1":
            pytest.fail(f"no ROCm 7.2.4 cmake at {cmake}")
        pytest.skip(f"no ROCm 7.2.4 cmake at {cmake}")
    result = port_tree(SINGLE_SOURCE, tmp_path / "out", ROCM)
    assert not [f.path for f in result.files if f.status == "translated"]
    objects = []
    for tree in (SINGLE_SOURCE, tmp_path / "out"):
        work = tmp_path / "w"
        shutil.rmtree(work, ignore_errors=True)
        shutil.copytree(tree, work / "src")
        for step in (["-S", str(work / "src"), "-B", str(work / "build"), "-DBACKEND=hip",
                      "-DCMAKE_HIP_ARCHITECTURES=gfx942"], ["--build", str(work / "build")]):
            # cwd: the chroot wrapper shows the working directory and the directories its arguments name
            proc = subprocess.run([str(cmake), *step], capture_output=True, text=True, timeout=900, cwd=work)
            assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
        objects.append(_hashes(work / "build" / "CMakeFiles" / "sso.dir"))
    assert {p for p in objects[0] if p.endswith(".o")} == {"src/host.cpp.o", "src/kernels.cu.o", "src/ops.cu.o"}
    assert {p: h for p, h in objects[0].items() if p.endswith(".o")} == \
        {p: h for p, h in objects[1].items() if p.endswith(".o")}


def test_own_hip_path_code_that_cuts_lane_masks_remains_for_a_person(tmp_path: Path):
    """The port leaves the project's own HIP path as it is, and where that path's code cuts a lane mask to 32 bits
    in the branch its ROCm build compiles (gunrock 01f125c queue.hxx), says so instead of 'nothing remains'. The
    same code in the branch only CUDA compiles is nothing for a person, and the file is not edited either way."""
    tree = tmp_path / "own-hip"
    shutil.copytree(OWN_HIP, tree)
    kernel = tree / "src" / "mb-cuda" / "kernel.cu"
    rank = ("__device__ int mb_rank{0}() {{\n    unsigned mask = __activemask();\n"
            "    return __popc(mask) + __ffs(mask) - 1;\n}}\n")
    kernel.write_text(kernel.read_text() + "#if !defined(MB_USE_HIP)\n" + rank.format("_cuda") + "#endif\n")
    cuda_only = port_tree(tree, tmp_path / "out1", ROCM)
    assert not [f for f in cuda_only.remaining if f.code.startswith("WARP")]
    assert (tmp_path / "out1" / "src" / "mb-cuda" / "kernel.cu").read_bytes() == kernel.read_bytes()

    kernel.write_text(kernel.read_text() + rank.format(""))
    result = port_tree(tree, tmp_path / "out2", ROCM)
    left = [f for f in result.remaining if f.span.path == "src/mb-cuda/kernel.cu"]
    assert sorted(f.code for f in left) == ["WARP002", "WARP003", "WARP003"]
    assert all(f.verdicts["rocm-7.2"] is Verdict.MANUAL and "own HIP path" in f.message for f in left)
    assert (tmp_path / "out2" / "src" / "mb-cuda" / "kernel.cu").read_bytes() == kernel.read_bytes()


TORCH_ROCM = PROJECTS / "torch-rocm-aware"


def test_audit_of_a_torch_extension_that_builds_for_rocm_says_so_and_what_remains():
    # flash-attention 0251105 was "blocked" by the CUTLASS kernels its CK-based ROCm build never compiles; mmcv
    # a8073c7's warp header (64 under MMCV_WITH_HIP, which its setup.py defines on ROCm) was "manual work: no build
    # of the port is known to define it".
    from vado.audit import audit
    from vado.report import render

    result = audit(TORCH_ROCM, [ROCM])
    rocm = next(tv for tv in result.verdicts if tv.target == "rocm-7.2")
    assert rocm.reason.startswith(
        "builds for ROCm already: pip install . (with a ROCm build of PyTorch) compiles 2 sources of its extensions, "
        "hipified at build time (2 sources only its CUDA build compiles, and the headers only they include, are left "
        "as they are); these ")
    # the renames, includes and the __CUDACC__ test hipify takes care of are no work left (nor an ARCH007 finding)
    assert "more are renames and includes its hipify makes" in rocm.reason
    assert not [f for f in result.findings if f.code == "ARCH007"]
    by_path = {f.path: f for f in result.files}
    for path in ("csrc/cuda/src/fwd.cu", "csrc/cuda/src/kernel.h", "csrc/cuda/api.cpp"):
        assert next(tv for tv in by_path[path].verdicts if tv.target == "rocm-7.2").verdict is Verdict.MOVES_AS_IS
    assert not any(f.code in ("PTX003", "LIB003") and f.verdicts.get("rocm-7.2") for f in result.findings)
    warp = [f for f in result.findings if f.span.path == "csrc/common/warp.cuh" and f.code == "WARP009"]
    assert warp and all("no build of the port is known to define it" not in f.message for f in warp)
    # the sub-project's setup.py gates its CUDA source on CUDA_HOME: that is still said (BLD005), its source judged
    sub = [f for f in result.findings if f.span.path == "projects/sub/setup.py" and f.code == "BLD005"]
    assert any("CUDA_HOME is not None decides" in f.message for f in sub)
    assert next(tv for tv in by_path["projects/sub/csrc/sub.cu"].verdicts
                if tv.target == "rocm-7.2").verdict is not Verdict.MOVES_AS_IS
    assert "builds for ROCm already" in render(result, "concise")


def test_port_of_a_torch_extension_that_builds_for_rocm_leaves_its_cuda_only_sources_and_build(tmp_path: Path):
    from vado.port.summary import render_port_text

    out = tmp_path / "out"
    result = port_tree(TORCH_ROCM, out, ROCM)
    assert ("builds for ROCm already (pip install . (with a ROCm build of PyTorch)); 3 files its ROCm build "
            "does not compile left as is") in render_port_text(result, width=400)
    before, after = _hashes(TORCH_ROCM), _hashes(out)
    changed = sorted(p for p in before if before[p] != after.get(p))
    # what only the CUDA build compiles, the ROCm-aware setup.py and the __CUDACC__ header hipify renames: as they are
    for path in ("csrc/cuda/src/fwd.cu", "csrc/cuda/src/kernel.h", "csrc/cuda/api.cpp", "setup.py",
                 "csrc/common/host.h", "csrc/ck/api.cpp"):
        assert path not in changed, path
    # the 32-bit mask HIP rejects, in a USE_ROCM branch of the header both builds read; the sub-project is ported
    assert changed == ["csrc/common/warp.cuh", "projects/sub/csrc/sub.cu", "projects/sub/setup.py"]
    # the __CUDACC__ test hipify renames is no work left for a person either
    assert not [f for f in result.remaining if f.code == "ARCH007"]
    warp = (out / "csrc/common/warp.cuh").read_text()
    assert "#if defined(USE_ROCM)" in warp and "__shfl_down_sync(0xffffffff, v, o)" in warp


def test_cub_names_hipcub_lacks_remain_after_the_namespace_rename(tmp_path: Path):
    """GPUSorting 09a6081's CubDispatcher.cuh: the port renames cub:: to hipcub:: (HIPIFY's rename), and the names
    hipCUB 4.2.0 does not declare (tools/hipcub_names.py's table) stay findings of the port's result, as hipcub::
    names, never counted as fixed; the names hipCUB has leave nothing."""
    tree = tmp_path / "t"
    tree.mkdir()
    fixture = Path(__file__).resolve().parents[1] / "fixtures" / "LIB" / "LIB012.cu"
    shutil.copy(fixture, tree / "dispatch.cu")
    result = port_tree(tree, tmp_path / "out", ROCM)
    ported = (tmp_path / "out" / "dispatch.cu").read_text()
    assert "hipcub::DispatchRadixSort" in ported and "hipcub::DoubleBuffer" in ported
    left = sorted(f.data["name"] for f in result.remaining if f.code == "LIB012")
    assert left == ["AgentRadixSortOnesweepPolicy", "ChainedPolicy", "DispatchRadixSort", "RADIX_RANK_MATCH_EARLY_COUNTS_ANY",
                    "RADIX_SORT_STORE_DIRECT", "detail::BlockReduceRaking"]
    assert all(f.verdicts["rocm-7.2"] is Verdict.MANUAL and "lacks hipcub::" in f.message
               for f in result.remaining if f.code == "LIB012")


def test_the_hipcub_name_table_is_the_generated_one():
    """The table says where it comes from, and agrees with ROCm 7.2.4's real headers where they are here."""
    from vado.rules.lib.cub_names import hipcub_lacks

    lacks = hipcub_lacks()
    assert {"DispatchRadixSort", "ChainedPolicy", "AgentRadixSortOnesweepPolicy"} <= lacks
    assert not {"BlockReduce", "DeviceRadixSort", "DoubleBuffer", "BlockRadixRankMatch"} & lacks
    header = (Path(__file__).resolve().parents[2] / "src" / "vado" / "knowledge" / "data" / "cub_hipcub_names.csv")
    assert "Generated by tools/hipcub_names.py" in header.read_text().split("name,hipcub")[0]
    hipcub = Path("/var/cache/vado/rocm-7.2.4/root/usr/include/hipcub")
    if hipcub.is_dir():
        text = "\n".join(p.read_text(errors="replace") for p in hipcub.rglob("*.hpp"))
        assert "DispatchRadixSort" not in text and "ChainedPolicy" not in text
        assert "class BlockReduce" in text


def _own_hip_warp_size(root: Path, amd_width: int) -> Path:
    """A project with its own ROCm build whose AMD branch defines WARP_SIZE (32: as its CUDA branch does; 64: the
    wavefront) and maps a shuffle to HIP's width-less __shfl, used by a kernel that indexes warps by WARP_SIZE."""
    (root / "src").mkdir(parents=True)
    (root / "CMakeLists.txt").write_text('project(p LANGUAGES CXX)\noption(P_HIP "hip" OFF)\nif(P_HIP)\n'
                                         "  enable_language(HIP)\nendif()\nadd_library(p src/k.cu)\n")
    (root / "src" / "common.h").write_text(
        "#pragma once\n#ifdef __HIP_PLATFORM_AMD__\n#include <hip/hip_runtime.h>\n"
        f"#define WARP_SIZE {amd_width}\n#define SHFL(v, i) __shfl(v, i)\n#else\n#include <cuda_runtime.h>\n"
        "#define WARP_SIZE 32\n#define SHFL(v, i) __shfl_sync(0xffffffffu, v, i)\n#endif\n")
    (root / "src" / "k.cu").write_text(
        '#include "common.h"\n__global__ void bcast(float* x) {\n  int lane = threadIdx.x % WARP_SIZE;\n'
        "  float v = SHFL(x[threadIdx.x], 0);\n  x[threadIdx.x] = v + lane;\n}\n")
    return root


def test_own_hip_path_that_defines_the_warp_as_32_lanes_is_wrong_on_wave64(tmp_path: Path):
    """`#ifdef __HIP_PLATFORM_AMD__ #define WARP_SIZE 32` with a width-less __shfl whose users index lanes by it: the
    project's own ROCm path is 32-lane code on gfx942's 64-lane wavefronts (no -mwavefrontsize32 on gfx9). The audit
    says so with the evidence lines instead of 'moves as is with its own ROCm build'; WARP_SIZE 64 stays its own
    wavefront-aware code."""
    from vado.audit.pipeline import audit

    result = audit(_own_hip_warp_size(tmp_path / "w32", 32), [ROCM])
    (wrong,) = [f for f in result.findings if f.code == "WARP009" and f.span.path == "src/common.h"
                and f.verdicts.get("rocm-7.2") is Verdict.MANUAL]
    assert "(WARP_SIZE is 32 in the AMD branch, common.h:4) `int lane = threadIdx.x % WARP_SIZE;`" in wrong.message
    assert "no 32-lane wavefront mode" in wrong.message and wrong.fix is None
    repo = {tv.target: tv for tv in result.verdicts}["rocm-7.2"]
    assert repo.verdict is Verdict.MANUAL

    fine = audit(_own_hip_warp_size(tmp_path / "w64", 64), [ROCM])
    assert {tv.target: tv for tv in fine.verdicts}["rocm-7.2"].verdict is Verdict.MOVES_AS_IS
    assert not [f for f in fine.findings if f.code == "WARP009" and f.verdicts.get("rocm-7.2") is Verdict.MANUAL]
