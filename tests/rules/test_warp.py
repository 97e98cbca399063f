"""Unit tests of the WARP rules: precision on look-alikes, verdicts per target, fixes."""

from __future__ import annotations

from vado.model import Applicability, Target, Verdict
from vado.rules import warp
from vado.rules.engine import check_text

RULES = [warp.LiteralWarpWidthArithmetic, warp.ThirtyTwoBitLaneMask, warp.BitCountOfLaneMask,
         warp.SharedArrayOfWarpWidth, warp.HardCodedWarpSize, warp.ShuffleReductionFrom16,
         warp.ImplicitWarpSynchronousReduction]
CDNA = Target(name="rocm-7.2", family="rocm", version="7.2", hip_version="7.2", wavefront={"gfx942": 64, "gfx1100": 32},
              features={"warpsize_constexpr": False})
RDNA = Target(name="rocm-rdna", family="rocm", version="7.2", hip_version="7.2", wavefront={"gfx1100": 32})
OLD = Target(name="rocm-6.4", family="rocm", version="6.4", hip_version="6.4", wavefront={"gfx942": 64},
             features={"warpsize_constexpr": True})
ONEAPI = Target(name="oneapi", family="oneapi", version="2026", wavefront={"pvc": 16})


def check_native(path: str, src: str, targets, **kw):
    """check_text with ``--wave native``: these tests are about the wave64 rewrites (warp32 ones: below)."""
    return check_text(path, src, targets, options={"wave": "native"}, **kw)


def kernel(body: str) -> str:
    return "__global__ void k(float* out, int n) {\n  int tid = threadIdx.x;\n" + body + "\n}\n"


def codes(src: str, targets=(CDNA,)):
    return [(f.code, f.span.line) for f in check_native("k.cu", src, targets, rules=RULES)]


def apply(src: str, f) -> str:
    e = f.fix.edits[0]
    return src[:e.start] + e.content + src[e.end:]


def test_lane_arithmetic_only_on_lane_like_operands():
    src = kernel("int a = tid & 31; int b = n & 31; int c = n / 32; int d = (blockIdx.x) % 32; int e = &out[0] == 0;")
    assert codes(src) == [("WARP001", 3)]


def test_lane_arithmetic_fix_is_unsafe_and_uses_warpsize():
    src = kernel("int lane = threadIdx.x & 31;")
    (f,) = check_native("k.cu", src, (CDNA,), rules=RULES)
    assert f.fix.applicability is Applicability.UNSAFE
    assert "threadIdx.x & (warpSize - 1)" in apply(src, f)


def test_rdna_only_rocm_target_moves_as_is():
    (f,) = check_native("k.cu", kernel("int lane = tid % 32;"), (CDNA, RDNA, ONEAPI), rules=RULES)
    assert f.verdicts == {"rocm-7.2": Verdict.MANUAL, "rocm-rdna": Verdict.MOVES_AS_IS, "oneapi": Verdict.MANUAL}


def test_full_mask_fix_is_safe_and_64_bit():
    src = kernel("float v = __shfl_down_sync(0xffffffff, out[0], 1);")
    (f,) = check_native("k.cu", src, (CDNA,), rules=RULES)
    assert f.code == "WARP002" and f.fix.applicability is Applicability.SAFE
    assert "__shfl_down_sync(0xffffffffffffffffull, out[0], 1)" in apply(src, f)
    assert f.verdicts["rocm-7.2"] is Verdict.AUTOMATIC


def test_hash_constants_and_64_bit_masks_are_not_lane_masks():
    src = kernel("unsigned h = (unsigned)n ^ 0xffffffff; auto m = __ballot_sync(0xffffffffffffffffull, n);"
                 " unsigned long long m2 = __activemask();")
    assert codes(src) == []


def test_popc_of_ballot_fix_and_clz_without_fix():
    src = kernel("int a = __popc(__ballot(n)); int b = __clz(__activemask());")
    found = check_native("k.cu", src, (CDNA,), rules=RULES)
    assert [(f.code, f.fix is not None) for f in found] == [("WARP003", True), ("WARP003", False)]
    assert "__popcll(__ballot(n))" in apply(src, found[0])


def test_shared_array_needs_lane_index():
    src = ("__global__ void k(float* o) {\n __shared__ float a[32];\n __shared__ float b[32];\n"
           " a[threadIdx.x % warpSize] = 1; for (int i = 0; i < 32; ++i) b[i] = 0; }\n")
    assert codes(src) == [("WARP004", 2)]


def test_constexpr_warpsize_depends_on_hip_version():
    src = kernel("constexpr int w = 256 / warpSize; int r = warpSize;")
    found = check_native("k.cu", src, (CDNA, OLD), rules=RULES)
    assert [(f.code, f.verdicts["rocm-7.2"], f.verdicts["rocm-6.4"]) for f in found] == \
        [("WARP005", Verdict.MANUAL, Verdict.MOVES_AS_IS)]


def test_shuffle_loop_fix():
    src = kernel("float v = 0; for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(m, v, o);")
    (f,) = check_native("k.cu", src, (CDNA,), rules=RULES)
    assert f.code == "WARP006" and f.fix.applicability is Applicability.UNSAFE
    assert "int o = warpSize / 2;" in apply(src, f)


def test_warp_synchronous_reduction_breaks_only_on_oneapi():
    src = kernel("if (tid < 32) { out[tid] += out[tid + 32]; out[tid] += out[tid + 16]; }")
    (f,) = check_native("k.cu", src, (CDNA, ONEAPI), rules=RULES)
    assert f.code == "WARP007" and f.verdicts == {"rocm-7.2": Verdict.MOVES_AS_IS, "oneapi": Verdict.MANUAL}


HIP52 = Target(name="hip-5.2", family="rocm", version="5.2.3", hip_version="5.2", wavefront={"gfx90a": 64},
               features={"warp_sync_builtins": False})


def lowering(src: str, targets=(HIP52,)):
    return check_native("k.cu", src, targets, rules=[warp.WarpSyncIntrinsicWithoutSyncBuiltins])


def test_sync_lowering_only_for_targets_without_the_builtins():
    src = kernel("out[0] = __shfl_down_sync(0xffffffff, out[0], 1);")
    assert lowering(src, (CDNA, OLD)) == []
    (f,) = lowering(src, (CDNA, HIP52))
    assert f.code == "WARP008" and f.verdicts == {"hip-5.2": Verdict.AUTOMATIC}
    assert f.fix.applicability is Applicability.SAFE


def test_shuffle_with_any_mask_is_safe_votes_need_a_full_mask():
    src = kernel("unsigned m = __ballot_sync(0xffffffff, tid < n);\n"
                 "  if (tid < n) out[0] = __shfl_sync(m, out[0], 0) + __any_sync(m, 1);")
    found = {f.data["call"]: f for f in lowering(src)}
    assert found["__ballot_sync"].fix.applicability is Applicability.SAFE
    assert found["__shfl_sync"].fix.applicability is Applicability.SAFE
    # m holds the lanes below n: the mask-less vote would count every active lane.
    assert found["__any_sync"].fix.applicability is Applicability.UNSAFE
    assert found["__any_sync"].verdicts == {"hip-5.2": Verdict.MANUAL}


def test_edits_drop_the_mask_and_keep_the_rest():
    src = kernel("out[0] = __shfl_xor_sync(mask /* all */, out[0], 4, 16);")
    (f,) = lowering(src)
    text = src
    for e in sorted(f.fix.edits, key=lambda e: e.start, reverse=True):
        text = text[:e.start] + e.content + text[e.end:]
    assert "out[0] = __shfl_xor(out[0], 4, 16);" in text


def test_full_mask_variable_must_be_declared_once_and_never_written():
    def applicability(body: str) -> Applicability:
        (f,) = [f for f in lowering(kernel(body)) if f.data["call"] == "__all_sync"]
        return f.fix.applicability

    assert applicability("const unsigned full = ~0u; out[0] = __all_sync(full, 1);") is Applicability.SAFE
    assert applicability("unsigned full = -1; full >>= 1; out[0] = __all_sync(full, 1);") is Applicability.UNSAFE
    assert applicability("unsigned full = -1; set(&full); out[0] = __all_sync(full, 1);") is Applicability.UNSAFE
    assert applicability("unsigned full = -1; { unsigned full = 3; } out[0] = __all_sync(full, 1);") is Applicability.UNSAFE
    assert applicability("unsigned full = 0xffff; out[0] = __all_sync(full, 1);") is Applicability.UNSAFE
    # A call may take it by reference; the warp functions only read it.
    assert applicability("unsigned full = -1; narrow(full); out[0] = __all_sync(full, 1);") is Applicability.UNSAFE
    assert applicability("unsigned full = -1; out[1] = __any_sync(full, 1); out[0] = __all_sync(full, 1);") \
        is Applicability.SAFE


def test_macro_masks_count_only_when_every_definition_is_full():
    src = "#ifdef WIDE\n#define M 0xffffffffffffffffull\n#else\n#define M 0xffffffff\n#endif\n" + kernel("out[0] = __any_sync(M, 1);")
    assert lowering(src)[0].fix.applicability is Applicability.SAFE
    src = "#ifdef WIDE\n#define M 0xffffffff\n#else\n#define M 0xffff\n#endif\n" + kernel("out[0] = __any_sync(M, 1);")
    assert lowering(src)[0].fix.applicability is Applicability.UNSAFE


def test_api003_leaves_the_sync_functions_to_warp008_where_it_lowers_them():
    from vado.knowledge.targets import get_target

    src = ("__global__ void k(float* v, unsigned m) {\n"
           "  v[0] += __shfl_down_sync(0xffffffff, v[0], 1);\n"
           "  bool b = __any_sync(m, v[0] > 0);\n"
           "}\n"
           "void h(cudaGraphExec_t* e, cudaGraph_t g, cudaGraphInstantiateParams* p) {\n"
           "  cudaGraphInstantiateWithParams(e, g, p);\n"
           "}\n")
    found = check_native("k.cu", src, [get_target("hip-5.2")])
    by_code = {}
    for f in found:
        by_code.setdefault(f.code, []).append(src[f.span.start:f.span.end])
    # One finding per sync call, from WARP008 (safe shuffle, unsafe vote), and none from API003 ...
    assert sorted(by_code["WARP008"]) == ["__any_sync(m, v[0] > 0)", "__shfl_down_sync(0xffffffff, v[0], 1)"]
    # ... which still reports the names no rule lowers (hipGraphInstantiateWithParams is newer than HIP 5.2).
    assert by_code["API003"] == ["cudaGraphInstantiateParams", "cudaGraphInstantiateWithParams"]


# --- warp32 emulation (the default wave mode) ---------------------------------------------------------


def test_warp32_mode_moves_32_lane_patterns_as_is_on_rocm_and_keeps_other_targets():
    src = kernel("int lane = threadIdx.x & 31; unsigned m = __ballot_sync(0xffffffff, lane > 3); out[0] = __popc(m);")
    found = check_text("k.cu", src, (CDNA, ONEAPI), rules=RULES)
    assert {f.code for f in found} >= {"WARP001", "WARP002", "WARP003"}
    for f in found:
        assert f.fix is None and f.verdicts["rocm-7.2"] is Verdict.MOVES_AS_IS
        assert f.verdicts["oneapi"] is Verdict.MANUAL


def test_warp009_renames_each_warp_function_safely_and_only_in_warp32_mode():
    from vado.knowledge.targets import get_target

    src = kernel("out[0] = __shfl_down_sync(0xffffffff, out[1], 1) + __any_sync(0xffffffff, tid) + warpSize;")
    rocm = get_target("rocm-7.2")
    found = check_text("k.cu", src, (rocm,), rules=[warp.WarpFunctionOnWavefront])
    assert [(src[f.span.start:f.span.start + len(f.data["call"])], f.fix.edits[0].content) for f in found] == [
        ("__shfl_down_sync", "vado_shfl_down_sync32"), ("__any_sync", "vado_any_sync32"), ("warpSize", "32")]
    assert all(f.fix.applicability is Applicability.SAFE for f in found)
    assert check_native("k.cu", src, (rocm,), rules=[warp.WarpFunctionOnWavefront]) == []


def test_warp009_leaves_sync_only_functions_on_a_hip_without_them():
    from vado.knowledge.targets import get_target

    src = kernel("out[0] = __match_any_sync(0xffffffff, tid) + __any_sync(0xffffffff, tid);")
    found = check_text("k.cu", src, (get_target("hip-5.2"),), rules=[warp.WarpFunctionOnWavefront])
    assert [f.data["call"] for f in found] == ["__any_sync"]


def test_warp009_rewrites_warpsize_in_kernels_without_warp_functions():
    """Issue 26: `blockIdx.x * warpSize;` is a product, not a pointer declaration named warpSize,
    and a kernel with no warp function still needs the host's 32-lane warp."""
    from vado.knowledge.targets import get_target

    src = "__global__ void k(int* out) {\n  int tl = blockIdx.x * warpSize;\n  out[tl + threadIdx.x] = 1;\n}\n"
    found = check_text("k.cu", src, (get_target("rocm-7.2"),), rules=[warp.WarpFunctionOnWavefront])
    assert [(f.span.line, f.fix.edits[0].content, f.fix.applicability) for f in found] == [(2, "32", Applicability.SAFE)]


def test_declared_warp_size_is_a_declaration_only_where_the_words_make_one():
    from vado.scan.lexer import tokenize

    def declares(src: str) -> bool:
        toks = [t for t in tokenize(src) if t[0].name != "COMMENT"]
        k = max(i for i, t in enumerate(toks) if t[3] == "warpSize")
        return warp.declares_warp_size(toks, k)

    for src in ("int warpSize = 32;", "const int* warpSize = p;", "void f(int& warpSize) {}", "#define warpSize 64\n",
                "static unsigned warpSize;", "void f(const int* warpSize);", "{ int* warpSize; }"):
        assert declares(src), src
    for src in ("int tl = blockIdx.x * warpSize;", "x = n * warpSize;", "f(n * warpSize);", "f(a, n * warpSize);",
                "y = a & warpSize;", "return warpSize;", "z = sizeof warpSize;", "#define L warpSize\n",
                "s = p->n * warpSize;", "int t = i / warpSize;"):
        assert not declares(src), src


def test_own_warp_size_is_left_only_where_it_is_declared():
    from vado.knowledge.targets import get_target

    src = ("__device__ int a(int warpSize, int i) { return i / warpSize; }\n"
           "__device__ int b(int i) { return i / warpSize; }\n")
    found = check_text("k.cu", src, (get_target("rocm-7.2"),), rules=[warp.WarpFunctionOnWavefront])
    assert [f.span.line for f in found] == [2]
    own = "const int warpSize = 32;\n" + src.replace("int warpSize, ", "")
    assert check_text("k.cu", own, (get_target("rocm-7.2"),), rules=[warp.WarpFunctionOnWavefront]) == []


def _warp009(src: str):
    from vado.knowledge.targets import get_target

    return check_text("k.cu", src, (get_target("rocm-7.2"),), rules=[warp.WarpFunctionOnWavefront])


def test_wavefront_aware_file_is_left_as_written():
    """Issue 26 class 2: a warp width chosen per platform (64 under HIP) means the warp code is written
    for 64-lane wavefronts; narrowing it to vado's 32-lane helpers would drop lanes 32-63."""
    from vado.knowledge.targets import get_target

    body = ("template <int W> __device__ bool any_of(bool v) { return __any_sync(FULL, v); }\n"
            "__global__ void k(int* o) { o[threadIdx.x / warpSize] = any_of<WARP_SIZE>(o[0] > 0); }\n")
    for cond in ("#ifdef __HIP_PLATFORM_AMD__", "#if defined(USE_ROCM)", "#ifndef __HIPCC__", "#if GGML_USE_HIP"):
        one, other = ("32", "64") if cond.startswith("#ifndef") else ("64", "32")
        src = f"{cond}\n#define WARP_SIZE {one}\n#else\n#define WARP_SIZE {other}\n#endif\n" + body
        # A project's own switch (GGML_USE_HIP) counts where its ROCm build is known to define it.
        options = {"amd_defines": ("GGML_USE_HIP",)} if "GGML" in cond else None
        (f,) = check_text("k.cu", src, (get_target("rocm-7.2"),), rules=[warp.WarpFunctionOnWavefront], options=options)
        assert f.fix is None and f.verdicts["rocm-7.2"] is Verdict.MOVES_AS_IS and "WARP_SIZE is 64" in f.message, cond
    # Without that knowledge a port built without the switch takes the 32-lane branch: manual, not "as is".
    (f,) = _warp009("#if GGML_USE_HIP\n#define WARP_SIZE 64\n#else\n#define WARP_SIZE 32\n#endif\n" + body)
    assert f.fix is None and f.verdicts["rocm-7.2"] is Verdict.MANUAL and f.data["switch"] == "GGML_USE_HIP"
    wide_call = "template <int W> __device__ float red(float v) { return __shfl_xor(v, 1, W); }\n" \
                "__global__ void k(float* o) { o[0] = red<64>(o[1]); }\n"
    assert [f.data.get("wide") for f in _warp009(wide_call)] == ["red<64> runs a warp helper over 64 lanes"]
    assert _warp009("__global__ void k(float* o) { o[0] = __shfl_down(o[1], 1, 64); }\n")[0].data.get("wide")


def test_thirty_two_lane_files_are_still_emulated():
    """Negative cases: a width of 32 only, a condition that is not the HIP build, a template argument
    of 64 to a function that is no warp helper."""
    body = "__global__ void k(float* o) { o[0] = __shfl_down_sync(0xffffffff, o[1], 1) + fill<64>(o); }\n" \
           "template <int N> __device__ float fill(float* o) { return o[N]; }\n"
    for head in ("#define WARP_SIZE 32\n", "#ifdef __CUDA_ARCH__\n#define WARP_SIZE 64\n#endif\n",
                 "#ifdef USE_ROCM\n#define BLOCK 64\n#endif\n"):
        found = _warp009(head + body)
        assert [f.data["call"] for f in found] == ["__shfl_down_sync"], head


_COMPAT_H = ("#pragma once\n#ifndef USE_ROCM\n  #define WARP_SIZE 32\n#else\n  #define WARP_SIZE warpSize\n#endif\n")
_KERNEL_CU = ('#include "../cuda_compat.h"\n'
              "template <int W> __device__ bool warp_reduce(bool v) { return __any_sync(0xffffffff, v); }\n"
              "__global__ void k(float* o, bool* r) {\n"
              "  o[0] = __shfl_xor_sync(0xffffffff, o[1], 1, WARP_SIZE);\n"
              "  r[threadIdx.x / WARP_SIZE] = warp_reduce<WARP_SIZE>(o[0] > 0);\n}\n")


def _header_tree(tmp_path, compat: str, inner: str | None = None):
    (tmp_path / "csrc" / "moe").mkdir(parents=True)
    if inner is None:
        (tmp_path / "csrc" / "cuda_compat.h").write_text(compat)
    else:  # the width two includes away: cuda_compat.h includes it
        (tmp_path / "csrc" / "cuda_compat.h").write_text('#include "width/warp.h"\n#include "cuda_compat.h"\n')
        (tmp_path / "csrc" / "width").mkdir()
        (tmp_path / "csrc" / "width" / "warp.h").write_text(inner + '#include "../cuda_compat.h"\n')
    (tmp_path / "csrc" / "moe" / "kernel.cu").write_text(_KERNEL_CU)
    return tmp_path


def _warp009_in(root, rel: str = "csrc/moe/kernel.cu"):
    from vado.knowledge.targets import get_target

    text = (root / rel).read_text()
    return check_text(rel, text, (get_target("rocm-7.2"),), rules=[warp.WarpFunctionOnWavefront],
                      options={"source_root": str(root)})


def test_platform_width_of_an_included_project_header_leaves_the_warp_code_as_written(tmp_path):
    """Issue 26 class 2 through a header: vLLM's cuda_compat.h picks WARP_SIZE per platform and the
    kernel including it sizes its shuffles and warp templates with it; found transitively and through
    an include cycle, only inside the tree."""
    for inner in (None, "#if defined(__HIP_PLATFORM_AMD__)\n#define WARP_SIZE 64\n#else\n#define WARP_SIZE 32\n#endif\n"):
        root = tmp_path / ("deep" if inner else "flat")
        (f,) = _warp009_in(_header_tree(root, _COMPAT_H, inner))
        assert f.fix is None and f.verdicts["rocm-7.2"] is Verdict.MOVES_AS_IS, inner
        assert "WARP_SIZE is" in f.data["wide"] and ".h" in f.data["wide"]
    # A fallback of the kernel's own (`#ifndef WARP_SIZE` / 32) gives way to the header's definition;
    # a definition of its own that is no fallback is the kernel's, judged on the kernel alone.
    flat = tmp_path / "flat" / "csrc" / "moe" / "kernel.cu"
    for guard, wide in (("#ifndef WARP_SIZE\n", True), ("#if !defined(WARP_SIZE)\n", True), ("#if 1\n", False)):
        flat.write_text(_KERNEL_CU.replace("\ntemplate", f"\n{guard}#define WARP_SIZE 32\n#endif\ntemplate", 1))
        found = _warp009_in(tmp_path / "flat")
        assert any("wide" in f.data for f in found) is wide, guard
    # Without the tree (no source_root) the header is not read: the file is ported as before.
    from vado.knowledge.targets import get_target

    alone = check_text("kernel.cu", _KERNEL_CU, (get_target("rocm-7.2"),), rules=[warp.WarpFunctionOnWavefront])
    assert {f.data.get("call") for f in alone} == {"__shfl_xor_sync", "__any_sync"}


def test_unconditional_header_width_of_32_is_still_emulated(tmp_path):
    """Negative cases: the header defines WARP_SIZE 32 for every platform, or 64 under a condition that
    is not the HIP build, or a header outside the tree defines it."""
    for i, compat in enumerate(("#define WARP_SIZE 32\n", "#ifdef __CUDA_ARCH__\n#define WARP_SIZE 64\n#endif\n")):
        found = _warp009_in(_header_tree(tmp_path / str(i), compat))
        assert {f.data.get("call") for f in found} == {"__shfl_xor_sync", "__any_sync"}, compat
        assert not any("wide" in f.data for f in found)
    outside = tmp_path / "outside"
    _header_tree(outside, _COMPAT_H)
    inner = outside / "csrc"  # the tree is csrc/moe only: ../cuda_compat.h is outside it
    from vado.knowledge.targets import get_target

    found = check_text("kernel.cu", _KERNEL_CU, (get_target("rocm-7.2"),), rules=[warp.WarpFunctionOnWavefront],
                       options={"source_root": str(inner / "moe")})
    assert {f.data.get("call") for f in found} == {"__shfl_xor_sync", "__any_sync"}


def test_own_hip_path_code_that_cuts_lane_masks_is_not_moves_as_is(tmp_path):
    """The project's own HIP path is compiled by its ROCm build as written, without warp32 emulation: warp code
    there that keeps a ballot or active mask in 32 bits, or counts one with __popc, runs on 64-lane wavefronts
    with the upper lanes' bits cut off (gunrock 01f125c queue.hxx: warp-aggregated allocation ranks lanes 32-63
    with the low half's bits). Such a finding is manual work, and the file's and repository's verdicts say so;
    the same code in the branch only the CUDA build compiles stays out of the ROCm verdict."""
    import shutil
    from pathlib import Path

    from vado.audit.pipeline import audit
    from vado.knowledge.targets import get_target

    fixture = Path(__file__).resolve().parents[1] / "fixtures" / "PROJECTS" / "own-hip"
    rocm = [get_target("rocm-7.2")]
    tree = tmp_path / "own-hip"
    shutil.copytree(fixture, tree)
    kernel = tree / "src" / "mb-cuda" / "kernel.cu"
    rank = ("__device__ int mb_rank{0}() {{\n    unsigned mask = __activemask();\n"
            "    return __popc(mask) + __ffs(mask) - 1;\n}}\n")
    kernel.write_text(kernel.read_text() + "#if !defined(MB_USE_HIP)\n" + rank.format("_cuda") + "#endif\n")
    before = audit(tree, rocm)
    assert next(v for v in before.verdicts if v.target == "rocm-7.2").verdict is Verdict.MOVES_AS_IS
    assert not [f for f in before.findings if f.code in ("WARP002", "WARP003") and f.verdicts.get("rocm-7.2")]

    kernel.write_text(kernel.read_text() + rank.format(""))
    res = audit(tree, rocm)
    kept = [f for f in res.findings if f.code in ("WARP002", "WARP003") and f.verdicts.get("rocm-7.2")]
    assert sorted(f.code for f in kept) == ["WARP002", "WARP003", "WARP003"]
    assert all(f.verdicts["rocm-7.2"] is Verdict.MANUAL and "own HIP path" in f.message and f.fix is None for f in kept)
    report = next(r for r in res.files if r.path == "src/mb-cuda/kernel.cu")
    file_verdict = next(v for v in report.verdicts if v.target == "rocm-7.2")
    assert file_verdict.verdict is Verdict.MANUAL and "64-lane wavefronts" in file_verdict.reason
    repo = next(v for v in res.verdicts if v.target == "rocm-7.2")
    assert repo.verdict.rank >= Verdict.MANUAL.rank and "WARP002" in dict(repo.deciding)


def test_own_hip_path_lane_mask_built_from_a_32_lane_lane_id_is_manual(tmp_path):
    """On the project's own HIP path a lane id taken modulo 32 that builds a lane mask (``1 << lane``) names
    lanes 0-31 only, while that path's ballots and active masks span 64 lanes (gunrock 01f125c util.hxx
    lanemask_lt: ``lane = threadIdx.x & 31; return (1 << lane) - 1;``, which queue.hxx ANDs with
    __activemask() to rank lanes: it read 'moves as is'). Lane arithmetic that builds no mask stays as is there,
    and under warp32 emulation (a port of CUDA code) the same line is right and moves as is."""
    import shutil
    from pathlib import Path

    from vado.audit.pipeline import audit
    from vado.knowledge.targets import get_target

    fixture = Path(__file__).resolve().parents[1] / "fixtures" / "PROJECTS" / "own-hip"
    rocm = [get_target("rocm-7.2")]
    tree = tmp_path / "own-hip"
    shutil.copytree(fixture, tree)
    kernel = tree / "src" / "mb-cuda" / "kernel.cu"
    kernel.write_text(kernel.read_text() + "__device__ unsigned lanemask_lt_mb() {\n  int lane = threadIdx.x & 31;\n"
                      "  return (1u << lane) - 1u;\n}\n__device__ int warp_of_mb() {\n  int w = threadIdx.x / 32;\n"
                      "  return w;\n}\n")
    res = audit(tree, rocm)
    lane = [f for f in res.findings if f.code == "WARP001" and f.verdicts.get("rocm-7.2")]
    manual = [f for f in lane if f.verdicts["rocm-7.2"] is Verdict.MANUAL]
    assert len(manual) == 1 and "lane mask" in manual[0].message and "own HIP path" in manual[0].message
    assert not [f for f in lane if "/ 32" in f.message and f.verdicts["rocm-7.2"] is not Verdict.MOVES_AS_IS]
    # The same code outside an own HIP path: warp32 emulation makes it right.
    single = tmp_path / "k.cu"
    single.write_text("__device__ unsigned lanemask_lt() {\n  int lane = threadIdx.x & 31;\n  return (1u << lane) - 1u;\n}\n")
    plain = [f for f in audit(single, rocm).findings if f.code == "WARP001"]
    assert plain and all(f.verdicts["rocm-7.2"] is Verdict.MOVES_AS_IS for f in plain)


def test_own_hip_path_lane_arithmetic_by_32_beside_64_lane_steps_is_manual(tmp_path):
    """On the project's own HIP path, a function whose AMD branch scans over the whole 64-lane wavefront (a width-64
    shuffle) and then picks lanes by 32 (``threadIdx.x % 32 == 31``) adds lanes 31 and 63: lanes 0-31 twice
    (cuSZ d3cde38 histsp.cuhip.inl, which its HIP build compiles; it read 'moves as is'). Kept as manual work; a
    function whose steps are all 32-lane, and the 32 of the CUDA-only branch, stay as they were."""
    import shutil
    from pathlib import Path

    from vado.audit.pipeline import audit
    from vado.knowledge.targets import get_target

    fixture = Path(__file__).resolve().parents[1] / "fixtures" / "PROJECTS" / "own-hip"
    rocm = [get_target("rocm-7.2")]
    tree = tmp_path / "own-hip"
    shutil.copytree(fixture, tree)
    kernel = tree / "src" / "mb-cuda" / "kernel.cu"
    scan = ("__global__ void hist_mb(const unsigned* in, unsigned* out) {\n  unsigned sum = in[threadIdx.x];\n"
            "#ifdef __HIP_PLATFORM_AMD__\n  for (int d = 1; d < 64; d *= 2) {\n    unsigned n = __shfl_up(sum, d, 64);\n"
            "    if (threadIdx.x % 64 >= d) sum += n;\n  }\n#else\n  for (int d = 1; d < 32; d *= 2) {\n"
            "    unsigned n = __shfl_up_sync(0xffffffff, sum, d);\n    if (threadIdx.x % 32 >= d) sum += n;\n  }\n"
            "#endif\n  if (threadIdx.x % 32 == 31) atomicAdd(out, sum);\n}\n"
            "__device__ int warp_of_mb() {\n  int w = threadIdx.x / 32;\n  return w;\n}\n")
    kernel.write_text(kernel.read_text() + scan)
    res = audit(tree, rocm)
    lane = [f for f in res.findings if f.code == "WARP001" and f.span.path == "src/mb-cuda/kernel.cu"]
    kept = [f for f in lane if f.verdicts.get("rocm-7.2") is Verdict.MANUAL]
    assert len(kept) == 1 and "`% 32 == 31` holds for lanes 31 and 63" in kept[0].message, [f.message for f in lane]
    assert "own HIP path" in kept[0].message and kept[0].fix is None
    assert "__shfl_up(sum, d, 64)" in kept[0].message
    # The CUDA branch's own `% 32` is inactive for ROCm and says nothing of 64 lanes; warp_of_mb moves as is.
    assert not [f for f in lane if f is not kept[0] and f.verdicts.get("rocm-7.2") is not None
                and f.verdicts["rocm-7.2"] is not Verdict.MOVES_AS_IS]
    assert not [f for f in lane if f is not kept[0] and "64-lane wavefront (line" in f.message]
    report = next(r for r in res.files if r.path == "src/mb-cuda/kernel.cu")
    file_verdict = next(v for v in report.verdicts if v.target == "rocm-7.2")
    assert file_verdict.verdict is Verdict.MANUAL and "lane arithmetic by 32" in file_verdict.reason


def test_own_hip_path_32_bit_mask_to_a_sync_function_is_not_moves_as_is(tmp_path):
    """ROCm 7's ``*_sync`` warp functions assert a 64-bit mask at compile time: on the project's own HIP path, built
    as written, ``__ballot_sync(0xffffffff, p)`` does not compile (cuSZ d3cde38 lrz_c.cuhip.inl; checked with ROCm
    7.2.4 hipcc for gfx942). Manual work that says so, unless the file or a project header it includes redirects
    the call through a macro (ggml's vendors/hip.h), and the file's verdict says that build does not compile it."""
    import shutil
    from pathlib import Path

    from vado.audit.pipeline import audit
    from vado.knowledge.targets import get_target

    fixture = Path(__file__).resolve().parents[1] / "fixtures" / "PROJECTS" / "own-hip"
    rocm = [get_target("rocm-7.2")]
    tree = tmp_path / "own-hip"
    shutil.copytree(fixture, tree)
    kernel = tree / "src" / "mb-cuda" / "kernel.cu"
    vote = "__device__ int votes_mb(int p) {\n  return __popcll(__ballot_sync(0xffffffff, p));\n}\n"
    # Under a CUDA switch the project's HIP build leaves out (RAJA 2141422b policy/cuda/*.hpp, RAJA_CUDA_ACTIVE;
    # the #else of #ifndef MB_USE_CUDA), whose value vado does not know: not that build's code.
    switched = ("#if defined(MB_CUDA_ACTIVE)\n__device__ int c_mb(int p) { return __ballot_sync(0xffffffff, p); }\n"
                "#endif\n#ifndef MB_USE_CUDA\n#else\n__device__ int e_mb(int p) { return __any_sync(0xffffffff, p); }\n"
                "#endif\n")
    kernel.write_text(kernel.read_text() + vote + switched)
    res = audit(tree, rocm)
    masks = [f for f in res.findings if f.code == "WARP002" and f.span.path == "src/mb-cuda/kernel.cu"]
    manual = [f for f in masks if f.verdicts.get("rocm-7.2") is Verdict.MANUAL]
    lines = kernel.read_text().splitlines()
    assert len(manual) == 1 and "votes_mb" in lines[manual[0].span.line - 2], [(f.span.line, f.message) for f in masks]
    masks = manual
    assert "asserts a 64-bit mask" in masks[0].message and masks[0].fix is None
    report = next(r for r in res.files if r.path == "src/mb-cuda/kernel.cu")
    file_verdict = next(v for v in report.verdicts if v.target == "rocm-7.2")
    assert file_verdict.verdict is Verdict.MANUAL and "ROCm 7 rejects" in file_verdict.reason
    # Redirected by a macro of a project header the file includes: the project's own spelling, as written.
    (tree / "src" / "mb-cuda" / "hip_compat.h").write_text(
        "#pragma once\n#define __ballot_sync(mask, pred) __ballot(pred)\n")
    kernel.write_text('#include "hip_compat.h"\n' + kernel.read_text())
    again = [f for f in audit(tree, rocm).findings if f.code == "WARP002" and f.span.path == "src/mb-cuda/kernel.cu"]
    assert all(f.verdicts["rocm-7.2"] is Verdict.MOVES_AS_IS for f in again), [f.message for f in again]
    report = next(r for r in audit(tree, rocm).files if r.path == "src/mb-cuda/kernel.cu")
    assert next(v for v in report.verdicts if v.target == "rocm-7.2").verdict is Verdict.MOVES_AS_IS


def test_own_hip_path_sources_its_rocm_build_does_not_compile_keep_moves_as_is(tmp_path):
    """A source the project's ROCm build leaves out (its CUDA-only sources) runs on no wavefront: its lane mask
    cut to 32 bits is not the ROCm build's problem, so it stays out of the ROCm verdict."""
    from vado.audit.pipeline import audit
    from vado.knowledge.targets import get_target

    root = tmp_path / "rm"
    (root / "src").mkdir(parents=True)
    (root / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.24)\nproject(rm CXX)\noption(WITH_HIP \"HIP\" OFF)\n"
        "set(CUDA_SOURCES src/keep.cu src/awq.cu)\n"
        "if(WITH_HIP)\n  enable_language(HIP)\n  list(REMOVE_ITEM CUDA_SOURCES src/awq.cu)\n"
        "  set_source_files_properties(${CUDA_SOURCES} PROPERTIES LANGUAGE HIP)\nelse()\n  enable_language(CUDA)\n"
        "endif()\nadd_library(rm SHARED ${CUDA_SOURCES})\n")
    (root / "src" / "keep.cu").write_text("#include <cuda_runtime.h>\n__global__ void k(float* x) { x[0] = 1.0f; }\n")
    (root / "src" / "awq.cu").write_text(
        "#include <cuda_runtime.h>\n__global__ void k2(int* x) {\n  unsigned mask = __activemask();\n"
        "  x[threadIdx.x] = __popc(mask);\n}\n")
    res = audit(root, [get_target("rocm-7.2")])
    assert not [f for f in res.findings if f.verdicts.get("rocm-7.2") is Verdict.MANUAL and f.code.startswith("WARP")]
    assert next(v for v in res.verdicts if v.target == "rocm-7.2").verdict is Verdict.MOVES_AS_IS


PULSAR = """#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void render(int* done_count, const int* done) {
  cg::coalesced_group warp = cg::coalesced_threads();
#if defined(__CUDACC__) && defined(__HIP_PLATFORM_AMD__)
  unsigned long long bits = __ballot(done[threadIdx.x]);
  int n = __popcll(bits);
#else
  unsigned bits = warp.ballot(done[threadIdx.x]);
  int n = __popc(bits);
#endif
  if (warp.thread_rank() == 0) atomicAdd(done_count, n);
}
"""


def test_a_torch_extensions_amd_branch_under_cuda_cc_is_its_own_wavefront_code():
    # pytorch3d 9381c40 pulsar renderer.render.device.h: PyTorch's hipify makes every __CUDACC__ __HIPCC__, so the
    # `defined(__CUDACC__) && defined(__HIP_PLATFORM_AMD__)` branch is what its ROCm build runs: HIP's 64-bit
    # __ballot counted from rank 0 of the whole-wave coalesced group. Split by half (as main's port did), each
    # wave added its count twice, and the header's host units lost __lane_id. Plain hipcc takes the #else.
    from vado.knowledge.targets import get_target

    rocm = (get_target("rocm-7.2"),)

    def active(options):
        found = check_text("renderer.render.device.h", PULSAR, rocm, rules=[warp.WarpFunctionOnWavefront],
                           options=options)
        return sorted((f.data.get("call"), f.span.line) for f in found if f.verdicts)
    assert active({"torch_extension": True, "amd_defines": ("USE_ROCM=1",)}) == []
    assert active({}) == [("coalesced_threads", 4)]
    # the host C++ units of the extension do not define __HIPCC__: a .cpp reads the #else
    found = check_text("render.cpp", PULSAR, rocm, rules=[warp.WarpFunctionOnWavefront],
                       options={"torch_extension": True})
    assert [f.span.line for f in found if f.data.get("call") == "__ballot" and f.verdicts] == []


_UTILS_CUH = ("#pragma once\n#define FULL_MASK 0xffffffff\n#ifdef USE_ROCM\n"
              "#define SHFL_UP_SYNC(mask, var, delta) __shfl_up(var, delta)\n"
              "#define SHFL_SYNC(mask, var, delta) __shfl(var, delta)\n#else\n#define SHFL_UP_SYNC __shfl_up_sync\n"
              "#define SHFL_SYNC __shfl_sync\n#endif\n")
_SPMM_CU = ('#include "utils.cuh"\n'
            "__global__ void spmm(const int* col, float* out) {\n"
            "  int row = threadIdx.x >> 5, lane_idx = threadIdx.x & (32 - 1);\n"
            "  int c = col[row * 32 + lane_idx];\n"
            "  for (int i = 0; i < 32; i++) out[row * 32 + i] += SHFL_SYNC(FULL_MASK, c, i);\n}\n")


def _own_hip_tree(tmp_path, kernel: str = _SPMM_CU, more: str = ""):
    (tmp_path / "csrc" / "cuda").mkdir(parents=True)
    (tmp_path / "csrc" / "cuda" / "utils.cuh").write_text(_UTILS_CUH)
    (tmp_path / "csrc" / "cuda" / "spmm_cuda.cu").write_text(kernel)
    if more:
        (tmp_path / "csrc" / "cuda" / "more_cuda.cu").write_text(more)
    return tmp_path


def test_own_hip_macro_used_by_32_lane_kernels_of_another_file_gets_the_32_lane_helper(tmp_path):
    """torch_sparse 0.6.18: utils.cuh maps SHFL_SYNC to HIP's __shfl(var, delta) under USE_ROCM, and the kernels of
    spmm_cuda.cu (which includes it) index 32-lane warps: the project's ROCm path is wrong on 64-lane wavefronts and
    the call gets vado_shfl32, found through the tree. SHFL_UP_SYNC, which no kernel uses, keeps today's finding."""
    found = {f.data["call"]: f for f in _warp009_in(_own_hip_tree(tmp_path), "csrc/cuda/utils.cuh")}
    shfl = found["__shfl"]
    assert shfl.fix is not None and "own-hip-warp32" in shfl.fix.tags and shfl.data["helper"] == "vado_shfl32"
    assert "existing ROCm path is wrong on 64-lane wavefronts" in shfl.message
    assert any(e.startswith("spmm_cuda.cu:3 ") for e in shfl.data["own_hip_32"]), shfl.data
    up = found["__shfl_up"]
    assert "own_hip_32" not in up.data and "own-hip-warp32" not in up.fix.tags
    # Without the tree the users are not read: today's finding, whose fix the port leaves out of the branch.
    from vado.knowledge.targets import get_target

    alone = check_text("utils.cuh", _UTILS_CUH, (get_target("rocm-7.2"),), rules=[warp.WarpFunctionOnWavefront])
    assert not any("own_hip_32" in f.data for f in alone)


def test_own_hip_macro_with_a_wavefront_sized_or_silent_user_stays_for_a_person(tmp_path):
    """Negative cases: one user sizes its lanes by warpSize, a platform width or & 63, or shows no lane index at
    all: the call is not proven 32-lane code and keeps today's finding."""
    users = ("__global__ void k(float* o) { int l = threadIdx.x % warpSize; o[l] = SHFL_SYNC(0, o[l], 0); }\n",
             "__global__ void k(float* o) { int l = threadIdx.x & (WARP_SIZE - 1); o[l] = SHFL_SYNC(0, o[l], 0); }\n",
             "__global__ void k(float* o) { int l = threadIdx.x & 63; o[l] = SHFL_SYNC(0, o[l], 0); }\n",
             "__global__ void k(float* o) { o[threadIdx.x] = SHFL_SYNC(0, o[threadIdx.x], 0); }\n")
    for n, user in enumerate(users):
        root = _own_hip_tree(tmp_path / str(n), more='#include "utils.cuh"\n' + user)
        found = {f.data["call"]: f for f in _warp009_in(root, "csrc/cuda/utils.cuh")}
        assert "own_hip_32" not in found["__shfl"].data, user
        assert "own-hip-warp32" not in found["__shfl"].fix.tags, user


def test_own_hip_xor_shuffle_is_not_judged():
    """mmcv 2.x filtered_lrelu.cu: `s |= __shfl_xor(s, 1)` under MMCV_WITH_HIP in a kernel that indexes 32-lane
    warps (`15 << ((threadIdx.x & 31) & ~3)`). A lane mask below 32 never leaves its 32-lane half, so the call is
    the same on a 64-lane wavefront: no proof the ROCm path is wrong, and today's finding stays."""
    src = ("__global__ void k(unsigned* o) {\n  unsigned s = o[threadIdx.x], m = 15 << ((threadIdx.x & 31) & ~3);\n"
           "#ifdef MMCV_WITH_HIP\n  s |= __shfl_xor(s, 1);\n#else\n  s |= __shfl_xor_sync(m, s, 1);\n#endif\n"
           "  o[threadIdx.x] = s;\n}\n")
    from vado.knowledge.targets import get_target

    found = check_text("k.cu", src, (get_target("rocm-7.2"),), rules=[warp.WarpFunctionOnWavefront],
                       options={"amd_defines": ("MMCV_WITH_HIP",)})
    own = [f for f in found if f.data.get("call") == "__shfl_xor"]
    assert own and not any("own_hip_32" in f.data for f in own)
    # The same kernel with an indexed shuffle is proven: every lane of 32-63 reads lanes 0-31.
    found = check_text("k.cu", src.replace("__shfl_xor(s, 1)", "__shfl(s, 1)"), (get_target("rocm-7.2"),),
                       rules=[warp.WarpFunctionOnWavefront], options={"amd_defines": ("MMCV_WITH_HIP",)})
    (f,) = [f for f in found if f.data.get("call") == "__shfl"]
    assert f.data["own_hip_wrong"] and "lanes 32-63 read or vote with lanes 0-31" in f.message
