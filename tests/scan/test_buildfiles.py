"""Build-file readers: CMake, Makefile and setup.py facts with exact spans."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from vado.scan.buildfiles import FactKind, classify_flag, cmake_commands, parse_cmake, parse_makefile, parse_setup_py_build

CMAKE = """\
cmake_minimum_required(VERSION 3.18)
project(demo LANGUAGES CXX CUDA)  # CUDA in a comment
find_package(CUDAToolkit REQUIRED)
set(CMAKE_CUDA_ARCHITECTURES 70 80 CACHE STRING "")
set(CMAKE_CUDA_FLAGS "${CMAKE_CUDA_FLAGS} --use_fast_math -Xptxas -v")
set(CMAKE_CXX_FLAGS "-O3 -ffast-math")
cuda_add_library(k STATIC k.cu)
set_target_properties(k PROPERTIES CUDA_ARCHITECTURES "80;90a" CUDA_SEPARABLE_COMPILATION ON)
target_link_libraries(k PRIVATE CUDA::cublas cudart ${CUDA_CUBLAS_LIBRARIES} fmt)
target_compile_options(k PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr>)
message("CUDA is here: enable_language(CUDA)")
#[[ enable_language(CUDA) ]]
"""


def kinds(facts):
    return [(f.kind.value, f.text) for f in facts.facts]


def test_cmake_tokenizer_ignores_comments_and_strings():
    cmds, probs = cmake_commands(CMAKE)
    assert [c.lname for c in cmds] == ["cmake_minimum_required", "project", "find_package", "set", "set", "set",
                                      "cuda_add_library", "set_target_properties", "target_link_libraries",
                                      "target_compile_options", "message"]
    assert not probs


def test_cmake_facts():
    f = parse_cmake(CMAKE)
    assert all(CMAKE[x.start:x.end] == x.text for x in f.facts)
    got = kinds(f)
    assert got.count(("cuda-language", "CUDA")) == 1
    assert ("find-cuda", "CUDAToolkit") in got
    assert ("cuda-command", "cuda_add_library") in got
    assert ("nvcc-flag", "--use_fast_math") in got and ("nvcc-flag", "-Xptxas -v") in got
    assert ("nvcc-flag", "--expt-relaxed-constexpr") in got
    assert ("rdc", "CUDA_SEPARABLE_COMPILATION") in got
    assert [x.data["library"] for x in f.of(FactKind.CUDA_LIBRARY)] == ["cublas", "cudart", "cublas"]
    arch = f.of(FactKind.CUDA_ARCH)
    assert [(a.text, a.data["sm"]) for a in arch] == [("CMAKE_CUDA_ARCHITECTURES", ["70", "80"]),
                                                     ("CUDA_ARCHITECTURES", ["80", "90a"])]
    assert not any(x.text == "-ffast-math" for x in f.facts)


def test_cmake_unclosed_command_is_a_problem_with_partial_facts():
    f = parse_cmake("project(x LANGUAGES CUDA\n")
    assert f.problems and "never closed" in f.problems[0].reason
    assert kinds(f) == [("cuda-language", "CUDA")]


MAKE = """\
# uses nvcc -arch=sm_80 (comment)
CUDA_PATH ?= /usr/local/cuda
NVCC := $(CUDA_PATH)/bin/nvcc
NVCCFLAGS = -O3 -arch=sm_80 --use_fast_math -Xptxas -v -Xcompiler -fPIC \\
  -gencode arch=compute_90,code=sm_90 -rdc=true
LDFLAGS = -L$(CUDA_PATH)/lib64 -lcudart -lcublas -lm
CXXFLAGS = -O2 -ffast-math
k.o: k.cu
\t$(NVCC) $(NVCCFLAGS) -c $< -o $@
\tnvcc -dlink k.o -o k_dlink.o # link
"""


def test_makefile_facts():
    f = parse_makefile(MAKE)
    assert all(MAKE[x.start:x.end] == x.text for x in f.facts)
    flags = [(x.data["flag"], x.text) for x in f.of(FactKind.NVCC_FLAG)]
    assert flags == [("arch", "-arch=sm_80"), ("fast-math", "--use_fast_math"), ("xptxas", "-Xptxas -v"),
                     ("xcompiler", "-Xcompiler -fPIC"), ("gencode", "-gencode arch=compute_90,code=sm_90")]
    assert [x.text for x in f.of(FactKind.RDC)] == ["-rdc=true", "-dlink"]
    assert [x.text for x in f.of(FactKind.NVCC)] == ["$(CUDA_PATH)/bin/nvcc", "$(NVCC)", "nvcc"]
    assert [x.data["library"] for x in f.of(FactKind.CUDA_LIBRARY)] == ["cudart", "cublas"]
    # "CUDA_PATH ?= /usr/local/cuda" is one fact (the literal path), not two.
    assert [x.text for x in f.of(FactKind.CUDA_PATH) if x.data["form"] != "reference"] == ["/usr/local/cuda"]
    assert f.facts[0].start > MAKE.index("\n")  # nothing from the comment line


def test_makefile_comment_continuation_and_escaped_hash():
    text = "# note \\\n-arch=sm_80 still comment\nX = a\\#b -arch=sm_70\n"
    f = parse_makefile(text)
    assert [x.text for x in f.facts] == ["-arch=sm_70"]


def test_classify_flag():
    assert classify_flag("-arch=sm_90a") == "arch"
    assert classify_flag("--use_fast_math") == "fast-math"
    assert classify_flag("-use_fast_math") == "fast-math"
    assert classify_flag("-ffast-math") is None
    assert classify_flag("--relocatable-device-code=true") == "rdc"
    assert classify_flag("-rdc=false") is None


SETUP = """\
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension, load
NVCC = ["-O3", "--use_fast_math", "-gencode arch=compute_80,code=sm_80"]
setup(name="x", ext_modules=[CUDAExtension("x", ["x.cu"],
      extra_compile_args={"cxx": ["-O3", "--use_fast_math"], "nvcc": NVCC + ["-lineinfo"]}, libraries=["cublas"])],
      cmdclass={"build_ext": BuildExtension})
mod = load("m", ["m.cu"], extra_cuda_cflags=["-Xptxas=-v"])
"""


def test_setup_py_extension_facts():
    f = parse_setup_py_build(SETUP)
    assert all(SETUP[x.start:x.end] == x.text for x in f.facts)
    assert [x.text for x in f.of(FactKind.CUDA_EXTENSION)] == ["CUDAExtension", "load"]
    flags = [x.text for x in f.of(FactKind.NVCC_FLAG)]
    # Only the "nvcc" list: the cxx list's --use_fast_math is not an nvcc flag.
    assert flags == ["--use_fast_math", "-gencode arch=compute_80,code=sm_80", "-lineinfo", "-Xptxas=-v"]
    assert [x.data["library"] for x in f.of(FactKind.CUDA_LIBRARY)] == ["cublas"]


def test_setup_py_syntax_error_reads_by_pattern():
    f = parse_setup_py_build("ext = CUDAExtension('x', ['x.cu'], extra_compile_args={'nvcc': ['-rdc=true']}\n")
    assert f.problems and "does not parse" in f.problems[0].reason
    assert [x.kind for x in f.facts] == [FactKind.CUDA_EXTENSION, FactKind.RDC]


def test_flag_option_names_cover_every_flag_pattern():
    """classify_flag looks at a word only when its option name is one a pattern accepts."""
    import random

    from vado.scan.buildfiles import nvcc_flags as B

    rng = random.Random(5)
    alphabet = "-_=aArRcChHsSmM0123456789tuvxXplTdDLiefgonwkb"
    names = sorted(B._FLAG_OPTIONS) + ["-O3", "-I", "-Wall", "-x", "--use-fast_math"]
    values = ["", "=", "=sm_80", "=native", "=true", "=1", "=12", "=x", "=compute_90a", "=lto_90"]
    words = [n + v for n in names for v in values]
    words += ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 14))) for _ in range(30000)]
    for w in words:
        slow = next((k for k, p in B._FLAG_PATTERNS if p.match(w)), None) if w.startswith("-") else None
        assert classify_flag(w) == slow, w


def test_makefile_flags_after_quotes_backslashes_and_assignments():
    text = ('NVFLAGS:=-O3\n'  # one word with the assignment: not a flag
            'A = x\\-arch=sm_70 "-rdc=true"\n'
            "B = a-b '-lcublas'\n"
            'C = nvcc\n')
    facts = parse_makefile(text).facts
    assert [(f.kind, f.text) for f in facts] == [
        (FactKind.NVCC_FLAG, "-arch=sm_70"), (FactKind.RDC, '"-rdc=true"'), (FactKind.CUDA_LIBRARY, "'-lcublas'"),
        (FactKind.NVCC, "nvcc")]


def _every_line_facts(text: str) -> list:
    """The Makefile facts of reading every line in one run, the reference of parse_makefile's runs."""
    from vado.scan.buildfiles import makefile as B

    facts = B._makefile_lines(text.splitlines(keepends=True))
    return [(f.kind, f.start, f.end, f.text, f.context, f.data) for f in B._makefile_result(text, facts)]


_MAKE_PIECES = ["nvcc", "$(NVCC)", "-arch=sm_80", "-arch", "sm_70", "-lcublas", "CUDA_PATH", "/usr/local/cuda", "#",
                "\\", "\n", "\t", " ", "CFLAGS:=-O3", "X=", "-Xptxas", "'-rdc=true'", '"', "-gencode", "-rdc", "false",
                "a-b", "CUDA_HOME", "x", "+=", "export ", "\r\n", "\\\\", "=", "\x0b", "\x85", "\\\n", "#\\\n", "\u2028"]


def test_makefile_runs_read_as_every_line_would():
    import random

    rng = random.Random(12)
    for _ in range(20000):
        text = "".join(rng.choice(_MAKE_PIECES) + rng.choice(["", " ", "\n", "\\\n"]) for _ in range(rng.randint(0, 30)))
        got = [(f.kind, f.start, f.end, f.text, f.context, f.data) for f in parse_makefile(text).facts]
        assert got == _every_line_facts(text), repr(text)


def test_makefile_runs_read_again_give_the_same_facts_at_their_place():
    """A run of lines is read once and kept; the same run elsewhere, in the same or another
    Makefile, gives the same facts at its own offsets, each with data of its own."""
    from vado.scan.buildfiles import parse_makefile

    run = "NVCC = nvcc\nCFLAGS = -O3 -arch=sm_80 \\\n  -Xptxas -v -lcublas\n"
    first = parse_makefile(run).facts
    shifted = parse_makefile("# header\n\nall:\n" + run).facts
    again = parse_makefile(run).facts
    offset = len("# header\n\nall:\n")
    assert len(first) >= 4
    assert [(f.kind, f.start + offset, f.end + offset, f.text, f.context, f.data) for f in first] == [
        (f.kind, f.start, f.end, f.text, f.context, f.data) for f in shifted]
    assert [(f.kind, f.start, f.end, f.text, f.data) for f in again] == [(f.kind, f.start, f.end, f.text, f.data) for f in first]
    again[0].data["changed"] = True  # a consumer's change stays in its own facts
    assert "changed" not in parse_makefile(run).facts[0].data


_MAKE_BITS = ["nvcc", "NVCC", "cuda", "CUDA", "-", "--", "-x", "\"-x", "'-", "\\-", "a-b", "#-", " ", "\t", "\n", "\r\n", "\r",
              "\x0c", "\x1c", "\x85", "\xa0", "\\\n", "\"", "'", "x", "nvcuda", "cu", "da"]


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(_MAKE_BITS), max_size=40).map("".join))
def test_makefile_marks_find_the_lines_the_candidate_pattern_defines(text):
    """The reader's fast marks (_MAKE_MARK with _opens_dash_word) find a candidate on exactly
    the lines where _MAKE_CANDIDATE, the definition, matches."""
    import bisect
    import itertools

    from vado.scan.buildfiles import makefile as bf

    starts = list(itertools.accumulate(map(len, text.splitlines(keepends=True)), initial=0))

    def line(at: int) -> int:
        return bisect.bisect_right(starts, at) - 1

    want = {line(m.end() - 1) for m in bf._MAKE_CANDIDATE.finditer(text)}
    got = {line(m.start()) for m in bf._MAKE_MARK.finditer(text)
           if text[m.start()] != "-" or bf._opens_dash_word(text, m.start())}
    assert got == want


def test_nvcc_language_flag_variable_arch_and_quoted_xcompiler():
    from vado.scan.buildfiles import FactKind, parse_makefile

    text = 'app:\n\tnvcc -x cu -arch=$(ARCH) -Xcompiler "-fPIC -Wall" -Xcompiler \'-O2\' -c k.cpp\n'
    flags = {f.data["flag"]: f for f in parse_makefile(text).of(FactKind.NVCC_FLAG)}
    assert flags["language"].text == "-x cu"
    assert flags["arch"].text == "-arch=$(ARCH)" and flags["arch"].data["sm"] == []
    quoted = [f for f in parse_makefile(text).of(FactKind.NVCC_FLAG) if f.data["flag"] == "xcompiler"]
    assert [f.text for f in quoted] == ['-Xcompiler "-fPIC -Wall"', "-Xcompiler '-O2'"]
    assert quoted[0].data["value"] == "-fPIC -Wall"
    # `-x c++` is not nvcc's CUDA language name; an unclosed quote keeps the value to one word.
    assert not [f for f in parse_makefile("a:\n\tg++ -x c++ k.cpp\n").facts if f.data.get("flag") == "language"]
    broken = parse_makefile('a:\n\tnvcc -Xcompiler "-fPIC k.cu\n').of(FactKind.NVCC_FLAG)
    assert [f.text for f in broken] == ['-Xcompiler "-fPIC']


def test_windows_and_macos_branches_are_left_out():
    from vado.scan.buildfiles import other_platform_ranges, parse_makefile

    text = ("ifeq ($(OS),Windows_NT)\n  NVCC = nvcc.exe\n  F = -Xcompiler \"/EHsc /W0\"\nelse\n  NVCC = nvcc\nendif\n"
            "ifneq ($(OS), Windows_NT)\n  ifeq ($(shell uname), Darwin)\n    L = -lcublas\n  else\n    L = -lcurand\n"
            "  endif\nelse\n  L = -lcudnn\nendif\n")
    kinds = sorted((text.count("\n", 0, r[0]) + 1, r[2]) for r in other_platform_ranges(text))
    assert kinds == [(1, "windows"), (8, "macos"), (13, "windows")]
    facts = parse_makefile(text).facts
    assert sorted(f.text for f in facts) == ["-lcurand", "nvcc"]
    assert other_platform_ranges("NVCC = nvcc\n") == []


def test_makefile_conditionals_and_the_variable_they_require():
    from vado.scan.buildfiles import makefile_conditionals, tested_for_value

    text = ("ifneq ($(CI),true)\n  ifdef CC_X\n    A = 1\n  endif\nendif\n"
            "define check\n  ifeq ($(1),yes)\n  endif\nendef\n"
            "ifneq ($(strip $(SM)),)\n  F += x\nelse ifeq ($(OS),Windows_NT)\n  F += y\nendif\n"
            "ifneq \"$(V)\" \"\"\nendif\nifneq (,${W})\nendif\nifeq ($(Z),)\nendif\nendif\nifdef OPEN\n")
    blocks = makefile_conditionals(text)
    # define … endef is text; the stray endif and the unclosed ifdef give no block.
    assert [(b.keyword, b.condition, b.has_else) for b in blocks] == [
        ("ifdef", "CC_X", False), ("ifneq", "($(CI),true)", False), ("ifneq", "($(strip $(SM)),)", True),
        ("ifneq", '"$(V)" ""', False), ("ifneq", "(,${W})", False), ("ifeq", "($(Z),)", False)]
    inner = blocks[0]
    assert text[inner.start:inner.body] == "  ifdef CC_X\n" and text[inner.end_line:inner.end] == "  endif\n"
    assert [tested_for_value(b) for b in blocks] == ["CC_X", "", "SM", "V", "W", ""]
    assert makefile_conditionals("A = 1\n") == []
