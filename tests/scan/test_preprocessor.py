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
        toks = [t for t in lex(src) if t[0] is not Kind.COMMENT]
        marks = [i for i, t in enumerate(toks) if t[0] in (Kind.DIRECTIVE, Kind.EOD)]
        t0 = time.perf_counter()
        regions = evaluate(src, toks, marks, TEST)
        return time.perf_counter() - t0, regions

    t_small, r_small = timed(small)
    t_big, r_big = timed(big)
    assert len(r_big.inactive) == 10 * len(r_small.inactive) == 5000
    assert t_big < 30 * t_small + 0.05
    deep = "#if 1\n" * 3000 + "x\n" + "#endif\n" * 3000
    assert timed(deep)[1].inactive == ()
