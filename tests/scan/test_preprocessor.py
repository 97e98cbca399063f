"""The conditional evaluator (vado.scan.preprocessor): three-valued conditions, file defines, regions."""

from __future__ import annotations

import time

import pytest

from vado.scan.lexer import Kind, lex
from vado.scan.preprocessor import Configuration, amd_configuration, configuration, evaluate, parse_defines


def inactive(src: str, config: Configuration) -> list[str]:
    """The inactive bodies' text, blank-stripped."""
    toks = [t for t in lex(src) if t[0] is not Kind.COMMENT]
    marks = [i for i, t in enumerate(toks) if t[0] in (Kind.DIRECTIVE, Kind.EOD)]
    return [src[s:e].strip() for s, e in evaluate(src, toks, marks, config).inactive]


AMD = configuration("amd")
CUDA = configuration("cuda")
TEST = Configuration("test", {"ONE": "1", "TWO": "2", "EXPR": "ONE + TWO"}, frozenset({"OFF"}))


@pytest.mark.parametrize("cond, expect", [
    ("ONE", True), ("OFF", False), ("UNKNOWN", None), ("defined ONE", True), ("defined(OFF)", False),
    ("defined(UNKNOWN)", None), ("!defined(UNKNOWN)", None), ("TWO * 3 - 1 == 5", True), ("EXPR == 3", True),
    ("0 && UNKNOWN", False), ("UNKNOWN && 0", False), ("1 || UNKNOWN", True), ("UNKNOWN || ONE", True),
    ("UNKNOWN && 1", None), ("UNKNOWN || 0", None), ("UNKNOWN ? 1 : 1", True), ("UNKNOWN ? 1 : 0", None),
    ("ONE ? OFF : UNKNOWN", False), ("__has_include(<x.h>)", None), ("__has_include(<x.h>) && 0", False),
    ("F(1) || 1", True), ("7 / 2 == 3 && -7 / 2 == -3 && -7 % 2 == -1", True), ("1 / 0", None),
    ("0x10 == 16 && 010 == 8 && 1'000 == 1000 && 5u == 5", True), ("(1 << 3) | 1", True), ("~0 == -1", True),
    ("true && !false", True), ("1 +", None), ("(1", None), ("'a'", None), ("TWO > ONE >= 1", True),
])
def test_conditions_are_three_valued(cond, expect):
    got = inactive(f"#if {cond}\nA\n#else\nB\n#endif\n", TEST)
    want = {True: ["B"], False: ["A"], None: []}[expect]
    assert got == want, cond


def test_chains_take_the_first_certain_branch_and_unknowns_keep_later_ones():
    src = "#if UNKNOWN\nA\n#elif ONE\nB\n#elif ONE\nC\n#else\nD\n#endif\n"
    assert inactive(src, TEST) == ["C", "D"]
    src = "#ifdef OFF\nA\n#elifdef ONE\nB\n#elifndef ONE\nC\n#endif\n"
    assert inactive(src, TEST) == ["A", "C"]


def test_nested_groups_inside_an_inactive_body_are_covered_once():
    src = "#if 0\nA\n#if ONE\nB\n#else\nC\n#endif\n#endif\nD\n"
    assert inactive(src, TEST) == ["A\n#if ONE\nB\n#else\nC\n#endif"]


def test_file_defines_count_where_certainly_compiled_and_unknown_where_maybe():
    src = "#define LOCAL 1\n#if LOCAL\nA\n#else\nB\n#endif\n#undef LOCAL\n#ifdef LOCAL\nC\n#endif\n"
    assert inactive(src, TEST) == ["B", "C"]
    maybe = "#ifdef UNKNOWN\n#define ONE 0\n#endif\n#if ONE\nA\n#else\nB\n#endif\n"
    assert inactive(maybe, TEST) == []
    skipped = "#if 0\n#define ONE 0\n#endif\n#if ONE\nA\n#else\nB\n#endif\n"
    assert inactive(skipped, TEST) == ["#define ONE 0", "B"]
    func = "#define F(x) 1\n#if F(2)\nA\n#endif\n#if F\nB\n#endif\n"
    assert inactive(func, TEST) == []


def test_an_include_guard_is_taken():
    src = "#ifndef MY_H\n#define MY_H\n#define LEVEL 2\n#if LEVEL > 1\nA\n#else\nB\n#endif\n#endif\n"
    assert inactive(src, TEST) == ["B"]
    src2 = "#if !defined(MY_H)\n#define MY_H\n#ifdef OFF\nA\n#endif\n#endif\n"
    assert inactive(src2, TEST) == ["A"]


def test_unbalanced_input_is_tolerated():
    assert inactive("#endif\n#else\n#if 0\nA\n", TEST) == ["A"]
    assert inactive("#if 1\nA\n#else\nB\n#else\nC\n#endif\n#endif\n", TEST) == ["B", "C"]
    assert inactive("#if\nA\n#endif\n#ifdef\nB\n#endif\n", TEST) == []


def test_cuda_and_amd_configurations():
    src = ("#if defined(__HIP_PLATFORM_AMD__)\nAMD\n#else\nNV\n#endif\n"
           "#ifdef __SYCL_DEVICE_ONLY__\nSYCL\n#endif\n"
           "#ifndef __CUDACC__\nHOST_COMPILER\n#endif\n"
           "#ifdef __CUDA_ARCH__\nDEVICE\n#endif\n")
    assert inactive(src, AMD) == ["NV", "SYCL", "HOST_COMPILER"]
    assert inactive(src, CUDA) == ["AMD", "SYCL", "HOST_COMPILER"]


def test_nvcc_tests_in_a_conditional_that_knows_hip_keep_their_meaning():
    # The port rewrites __NVCC__ to __HIPCC__ only where the conditional does not test HIP itself.
    src = "#if defined(__NVCC__)\nNV\n#elif defined(__HIP_PLATFORM_AMD__)\nAMD\n#endif\n#ifdef __NVCC__\nBOTH\n#endif\n"
    assert inactive(src, AMD) == ["NV"]


def test_extra_defines_and_undefined_from_rule_options():
    src = "#if !defined(MY_USE_HIP)\nNV\n#endif\n#ifdef MY_USE_SYCL\nSYCL\n#endif\n#if LEVEL >= 2\nL2\n#endif\n"
    assert inactive(src, amd_configuration({})) == []
    conf = amd_configuration({"amd_defines": ("MY_USE_HIP", "LEVEL=1"), "amd_undefined": ("MY_USE_SYCL",)})
    assert inactive(src, conf) == ["NV", "SYCL", "L2"]
    # An own define of the HIP option makes it a HIP marker: __CUDACC__ beside it keeps its meaning.
    assert inactive("#if defined(__CUDACC__) && !defined(MY_USE_HIP)\nNV\n#endif\n", conf) == ["NV"]
    assert parse_defines(["-DA", "B=2", " C = x ", "1BAD", ""]) == {"A": "1", "B": "2", "C": "x"}


def test_evaluation_is_linear_in_the_directives():
    one = "#if defined(A{0}) && (B{0} > 2 || !defined(C))\nx{0}();\n#elif 0\ny();\n#else\nz();\n#endif\n"
    small = "".join(one.format(i) for i in range(500))
    big = "".join(one.format(i) for i in range(5000))

    def timed(src):
        # The process's CPU time, best of three: a machine busy with other work (CI, parallel helpers) stretches
        # wall time, not the evaluation's own cost, which is what the ratio is about.
        toks = [t for t in lex(src) if t[0] is not Kind.COMMENT]
        marks = [i for i, t in enumerate(toks) if t[0] in (Kind.DIRECTIVE, Kind.EOD)]
        best, regions = float("inf"), None
        for _ in range(3):
            t0 = time.process_time()
            regions = evaluate(src, toks, marks, TEST)
            best = min(best, time.process_time() - t0)
        return best, regions

    t_small, r_small = timed(small)
    t_big, r_big = timed(big)
    assert len(r_big.inactive) == 10 * len(r_small.inactive) == 5000
    assert t_big < 30 * t_small + 0.05
    deep = "#if 1\n" * 3000 + "x\n" + "#endif\n" * 3000
    assert timed(deep)[1].inactive == ()


def test_feature_macros_derived_from_the_platform_are_off_where_their_condition_is():
    conf = amd_configuration({"amd_defines": ("MY_USE_HIP",)})
    src = ("#if !defined(MY_USE_HIP) && __CUDA_ARCH__ >= 800\n#define ASYNC_OK\n#endif\n"
           "#ifdef ASYNC_OK\nASYNC\n#endif\n"
           "#if 0\n#define DEBUG_DUMP\n#endif\n#ifdef DEBUG_DUMP\nDUMP\n#endif\n")
    # ASYNC_OK's one definition is skipped because of MY_USE_HIP: off. DEBUG_DUMP may come from a -D.
    assert inactive(src, conf) == ["#define ASYNC_OK", "ASYNC", "#define DEBUG_DUMP"]
    assert inactive(src, amd_configuration({})) == ["#define DEBUG_DUMP"]


def test_project_headers_are_followed_inside_the_root(tmp_path):
    from vado.knowledge.targets import get_target
    from vado.rules.engine import check_text

    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "common.cuh").write_text(
        "#pragma once\n#if !defined(MY_USE_HIP) && __CUDA_ARCH__ >= 750\n#define MMA_OK\n#endif\n#define LEVEL 3\n")
    (tmp_path / "outside.cuh").write_text("#define LEVEL 9\n")
    src = ('#include "inc/common.cuh"\n__device__ unsigned f(unsigned x) {\n  unsigned r = x;\n#ifdef MMA_OK\n'
           '  asm("brev.b32 %0, %1;" : "=r"(r) : "r"(x));\n#endif\n#if LEVEL > 2\n  r += 1;\n#endif\n  return r;\n}\n')
    rocm = (get_target("rocm-7.2"),)
    opts = {"amd_defines": ("MY_USE_HIP",), "source_root": str(tmp_path)}
    (ptx,) = [f for f in check_text("k.cu", src, rocm, options=opts) if f.code.startswith("PTX")]
    assert ptx.inactive and not ptx.verdicts
    # without the tree, the header is not read and the branch may be compiled
    (ptx2,) = [f for f in check_text("k.cu", src, rocm, options={"amd_defines": ("MY_USE_HIP",)}) if f.code.startswith("PTX")]
    assert ptx2.verdicts and not ptx2.inactive
    # a header outside the root (../) and a missing one add nothing, and never raise
    sub = tmp_path / "inc"
    escaping = src.replace('"inc/common.cuh"', '"../outside.cuh"')
    assert [f for f in check_text("k.cu", escaping, rocm, options={**opts, "source_root": str(sub)}) if f.code.startswith("PTX")][0].verdicts
    missing = src.replace('"inc/common.cuh"', '"nope.cuh"')
    assert [f for f in check_text("k.cu", missing, rocm, options=opts) if f.code.startswith("PTX")][0].verdicts


def test_project_header_cycles_end(tmp_path):
    from vado.scan.project_headers import project_headers

    (tmp_path / "a.h").write_text('#include "b.h"\n#define A 1\n')
    (tmp_path / "b.h").write_text('#include "a.h"\n#define B 2\n')
    got = project_headers(str(tmp_path)).macros("a.h", AMD)
    assert got["A"] == ("1",) and got["B"] == ("2",)


def test_deciding_directive_is_the_outermost_inactive_branch():
    from vado.scan.preprocessor import deciding_directive

    src = ("int a;\n#ifdef OFF\nint b;\n#ifdef ONE\nint c;\n#endif\n#else\nint d;\n#endif\n"
           "#if UNKNOWN\nint e;\n#endif\n")
    toks = [t for t in lex(src) if t[0] is not Kind.COMMENT]
    marks = [i for i, t in enumerate(toks) if t[0] in (Kind.DIRECTIVE, Kind.EOD)]
    regions = evaluate(src, toks, marks, TEST)
    at = {w: src.index(f"int {w};") for w in "abcde"}
    assert deciding_directive(src, toks, marks, at["b"], regions) == "#ifdef OFF"
    assert deciding_directive(src, toks, marks, at["c"], regions) == "#ifdef OFF"  # off because of the outer test
    assert [deciding_directive(src, toks, marks, at[w], regions) for w in "ade"] == [None, None, None]
