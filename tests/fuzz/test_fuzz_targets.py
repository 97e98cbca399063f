"""Fuzz targets (hypothesis) for the lexer, the build-file and dependency parsers, the port and
the ignore-file matcher.

Each target takes generated text (fragments of the language glued by separators, random
bytes, and fixtures with fragments spliced in) and checks properties that hold for any
input: nothing raises but vado's own errors, the compiled lexer equals the Python one and
covers every byte, a port converges and porting twice equals porting once.

CI runs a short smoke (``VADO_FUZZ_EXAMPLES`` examples per target, 25 by default, a few
seconds each). A long run gives each target ``VADO_FUZZ_SECONDS`` seconds (rounds of
fresh examples until the time is spent) and, with ``VADO_FUZZ_REPORT=FILE``, appends one
JSON line per target with the number of cases run:

    VADO_FUZZ_SECONDS=600 VADO_FUZZ_REPORT=fuzz.jsonl nice -n 15 python -m pytest -q tests/fuzz -p no:cacheprovider
"""

from __future__ import annotations

import json
import os
import random
import re
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from vado.errors import VadoError
from vado.knowledge.targets import get_target
from vado.scan.classify import FileKind

ROOT = Path(__file__).resolve().parents[2]
FUZZ_SECONDS = float(os.environ.get("VADO_FUZZ_SECONDS", "0") or 0)
CI_EXAMPLES = int(os.environ.get("VADO_FUZZ_EXAMPLES", "25") or 25)
REPORT = os.environ.get("VADO_FUZZ_REPORT", "")
ROCM = get_target("rocm-7.2")


def run_target(name: str, strategy, body, *, deadline_ms: float | None = None) -> int:
    """Run ``body`` on examples of ``strategy``: CI's few, or rounds for ``FUZZ_SECONDS``.

    ``deadline_ms`` bounds each case (hypothesis fails a case that takes longer, twice): the
    targets of parsers fed long inputs use it to catch work that grows faster than the input.
    """
    count = [0]
    failures: list[BaseException] = []

    def once(example) -> None:
        count[0] += 1
        body(example)

    rounds_examples = CI_EXAMPLES if FUZZ_SECONDS <= 0 else 500
    runner = settings(
        max_examples=rounds_examples,
        deadline=deadline_ms,
        database=None,
        suppress_health_check=list(HealthCheck),
        phases=[Phase.generate, Phase.shrink],
        derandomize=FUZZ_SECONDS <= 0,  # CI: the same examples every run
    )(given(strategy)(once))
    started = time.monotonic()
    while True:
        try:
            runner()
        except BaseException as exc:  # shrunk failure: report what ran, then fail
            failures.append(exc)
            break
        if FUZZ_SECONDS <= 0 or time.monotonic() - started >= FUZZ_SECONDS:
            break
    elapsed = time.monotonic() - started
    if REPORT:
        with open(REPORT, "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"target": name, "cases": count[0], "seconds": round(elapsed, 1),
                                 "failed": bool(failures)}) + "\n")
    if failures:
        raise failures[0]
    return count[0]


# --- inputs --------------------------------------------------------------------------------------

_C_FRAGMENTS = [
    "#", "##", "#include", "#include_next", "#define", "#undef", "#pragma once", "#if 0", "#ifdef X", "#ifndef G",
    "#else", "#endif", "#error", "<cuda_runtime.h>", "\"k.cuh\"", "<cub/cub.cuh>", "<<<", ">>>", "<<<1, 32>>>",
    "__global__", "__device__", "__host__", "__shared__", "__constant__", "void", "int", "float", "unsigned",
    "k", "x", "a", "(", ")", "[", "]", "{", "}", ";", ",", ".", "->", "::", "=", "+", "*", "&", "~", "?", ":",
    "threadIdx.x", "blockDim.x", "warpSize", "32", "31", "0xffffffff", "0x" + "f" * 40, "1" * 40, "1'000",
    "0b101", "017", "1e+5", ".5", "1.f", "__shfl_down_sync(0xffffffff, v, 16)", "__shfl_xor_sync(m, v, 1, 32)",
    "__ballot_sync(0xffffffff, p)", "__activemask()", "__syncwarp()", "cudaMalloc(&p, n)", "cudaMemcpy",
    "cudaDeviceSynchronize()", "cudaStream_t", "cublasSgemm", "cublasHandle_t", "cudnnCreate", "curand",
    "cooperative_groups::", "tiled_partition<32>", "atomicAdd", "__popc", "__ffs", "asm", "asm volatile",
    "(\"mov.u32 %0, %%laneid;\" : \"=r\"(l))", "(\"shfl.sync.down.b32 %0, %1, 16, 31, -1;\" : \"=r\"(a) : \"r\"(b))",
    "(\"{ .reg .b32 r<4>; add.s32 %0, %1, 7; }\" : \"=r\"(a) : \"r\"(b))", "\"s\"", "\"\\x\"", "\"\\xg\"",
    "\"\\777\"", "'c'", "'\\''", "R\"(raw)\"", "R\"d(r)d\"", "R\"(", ")\"", "u8\"x\"", "L'x'", "/*", "*/", "//",
    "/* c */", "// c", "\\", "\x00", "\xe9", "\xef\xbb\xbf", "\u202e", "\"", "'", "@", "$", "`", "template<int N>",
    "typename", "namespace", "using", "struct", "class", "extern \"C\"", "return", "for (int i = 0; i < n; ++i)",
    "if (", "while (", "#define W 32", "#define SHFL(x) __shfl_down_sync(~0u, x, 1)", "half", "__half2",
    "nv_bfloat16", "wmma::", "mma.sync", "texture<float, 1>", "surf2Dwrite", "dim3", "size_t",
]
_SEPARATORS = ["", " ", "\n", "\r\n", "\r", "\t", "\\\n", " \\\n", "\n\n", "\f", "\v"]


def _glue(fragments: list[str]):
    return st.lists(st.tuples(st.sampled_from(fragments), st.sampled_from(_SEPARATORS)), max_size=60).map(
        lambda parts: "".join(a + b for a, b in parts))


def _corpus(*patterns: str) -> list[str]:
    out = []
    for pattern in patterns:
        for p in sorted((ROOT / "tests" / "fixtures").rglob(pattern)):
            if p.is_file() and p.stat().st_size < 200_000:
                out.append(p.read_bytes().decode("latin-1"))
    return out or [""]


def _spliced(corpus: list[str], fragments: list[str]):
    """A fixture with fragments inserted at, or text deleted from, random places."""

    @st.composite
    def build(draw):
        text = draw(st.sampled_from(corpus))
        rng = random.Random(draw(st.integers(0, 2**32 - 1)))
        for _ in range(draw(st.integers(1, 8))):
            at = rng.randrange(len(text) + 1)
            if rng.random() < 0.3 and text:
                text = text[:at] + text[at + rng.randrange(1, 40):]
            else:
                text = text[:at] + rng.choice(fragments) + rng.choice(_SEPARATORS) + text[at:]
        return text

    return build()


def file_view(text: str) -> str:
    """``text`` as vado sees a file: its UTF-8 bytes viewed as latin-1 (vado.model.text)."""
    return text.encode("utf-8", "surrogatepass").decode("latin-1")


latin1 = st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=255), max_size=300)
C_CORPUS = _corpus("*.cu", "*.cuh", "*.hip", "*.cpp", "*.h")
c_text = st.one_of(_glue(_C_FRAGMENTS), latin1, _spliced(C_CORPUS, _C_FRAGMENTS)).map(file_view)


# --- the lexer -------------------------------------------------------------------------------------


def _check_lexer(text: str) -> None:
    from vado.scan.lexer import lex, python_tokens

    want = python_tokens(text)
    got = lex(text)
    assert list(got) == want
    pos = 0
    for kind, start, end, spelling in want:
        assert pos <= start <= end <= len(text)
        assert text[start:end] == spelling
        pos = end


def test_fuzz_lexer():
    assert run_target("lexer", c_text, _check_lexer) > 0


# --- build files and dependency files ----------------------------------------------------------------

_BUILD_FRAGMENTS = [
    "cmake_minimum_required(VERSION 3.18)", "project(p LANGUAGES CXX CUDA)", "enable_language(CUDA)",
    "find_package(CUDAToolkit REQUIRED)", "add_executable(app k.cu)", "add_library(l SHARED a.cu)",
    "target_link_libraries(app CUDA::cudart cublas)", "set(CMAKE_CUDA_ARCHITECTURES 80)",
    "set_target_properties(app PROPERTIES CUDA_ARCHITECTURES \"70;80\")", "if(", "endif()", "${", "}", "$(", ")",
    "[[", "]]", "[==[", "]==]", "#", "\"", "\\", ";", "NVCC ?= nvcc", "app: k.cu", "\t$(NVCC) -arch=sm_80 -o $@ $<",
    "-gencode arch=compute_80,code=sm_80", "--use_fast_math", "-lcublas", "-lcudart", "-Xcompiler -fPIC",
    "ifeq ($(X),1)", "else", "endif", "define X", "endef", "include other.mk", "CUDA_PATH := /usr/local/cuda",
    "torch==2.1.0+cu121", "--extra-index-url https://download.pytorch.org/whl/cu121", "-r other.txt",
    "cupy-cuda12x>=12", "nvidia-cudnn-cu12", "flash-attn @ git+https://x/y", "numpy; python_version<'3.12'",
    "-e .", "[project]", "dependencies = [", "]", "\"torch>=2\",", "[tool.poetry.dependencies]", "torch = {",
    "version = \"2.1\"", "source = \"pt\" }", "{", "[[tool.uv.index]]", "url = \"https://x\"", "'''", "\"\"\"",
    "channels:", "  - nvidia", "dependencies:", "  - pytorch-cuda=12.1", "  - pip:", "    - torch", "- [a, b]",
    "{a: [b, {c: d}]}", "&anchor", "*anchor", "!!python/object", "---", "...", "[options]", "install_requires =",
    "  torch", "[metadata]", "setup(", "ext_modules=[CUDAExtension('x', ['k.cu'])]", "cmdclass={'build_ext': B}",
    "extra_compile_args={'nvcc': ['-O3', '-arch=sm_80']}", "FROM nvidia/cuda:12.1.0-devel-ubuntu22.04",
    "FROM pytorch/pytorch:2.1.0-cuda12.1-cudnn8-runtime AS base", "ARG CUDA=12.1", "ENV X=${CUDA}",
    "RUN pip install torch==2.1.0 --index-url https://download.pytorch.org/whl/cu121 && \\", "RUN conda install -c nvidia cuda",
    "COPY . /app", "ONBUILD", "# syntax=docker/dockerfile:1", "<<EOF", "EOF", "\x00", "\xff", "\u202e",
]
BUILD_CORPUS = _corpus("*CMakeLists.txt", "*Makefile", "*.mk", "*setup.py", "*requirements*.txt", "*pyproject.toml",
                       "*setup.cfg", "*environment.yml", "*Dockerfile*")
build_text = st.one_of(_glue(_BUILD_FRAGMENTS), latin1, _spliced(BUILD_CORPUS, _BUILD_FRAGMENTS),
                       st.integers(1, 3000).map(lambda n: "dependencies = " + "[" * n + "]" * n),
                       st.integers(1, 3000).map(lambda n: "dependencies:\n- " + "{a: " * n + "}" * n)).map(file_view)

#: A name of each kind whose text the build-file and dependency parsers read.
BUILD_NAMES = {
    FileKind.CMAKE: "CMakeLists.txt", FileKind.MAKEFILE: "Makefile", FileKind.SETUP_PY: "setup.py",
    FileKind.PYPROJECT: "pyproject.toml", FileKind.SETUP_CFG: "setup.cfg", FileKind.REQUIREMENTS: "requirements.txt",
    FileKind.CONDA_ENV: "environment.yml", FileKind.DOCKERFILE: "Dockerfile", FileKind.PYTHON: "train.py",
}


def _check_build(text: str) -> None:
    from vado.rules.engine import check_text
    from vado.scan import buildfiles, dockerfile, pydeps

    buildfiles.parse_cmake(text)
    buildfiles.parse_makefile(text)
    buildfiles.parse_setup_py_build(text)
    dockerfile.parse_dockerfile(text)
    pydeps.parse_requirements_txt(text)
    pydeps.parse_pyproject(text)
    pydeps.parse_setup_cfg(text)
    pydeps.parse_conda_env(text)
    pydeps.toml_strings(text)
    for kind, name in BUILD_NAMES.items():
        for f in check_text(name, text, [ROCM], kind=kind):
            assert 0 <= f.span.start <= f.span.end <= len(text)


def test_fuzz_build_and_dependency_parsers():
    assert run_target("build-and-dependency-parsers", build_text, _check_build) > 0


# --- the port ---------------------------------------------------------------------------------------


def _check_port(case: tuple[FileKind, str]) -> None:
    from vado.port.file import PortOptions, port_bytes

    kind, text = case
    name = {FileKind.CUDA_SOURCE: "k.cu", FileKind.CUDA_HEADER: "k.cuh"}.get(kind) or BUILD_NAMES[kind]
    for options in (PortOptions(), PortOptions(unsafe=True, launch="ggl")):
        try:
            once = port_bytes(name, kind, text.encode("latin-1"), ROCM, options)
        except VadoError as exc:
            # A port may refuse a file with a clear error, never by failing to converge on plain text.
            assert "did not converge" not in exc.message, (text, exc.message)
            continue
        twice = port_bytes(name, kind, once.after, ROCM, options)
        assert twice.after == once.after, "porting twice differs from porting once"


port_case = st.one_of(
    st.tuples(st.sampled_from([FileKind.CUDA_SOURCE, FileKind.CUDA_HEADER]), c_text),
    st.tuples(st.sampled_from(sorted(BUILD_NAMES, key=lambda k: k.value)), build_text),
)


def test_fuzz_port_applier():
    assert run_target("port-applier", port_case, _check_port) > 0


def _check_apply(case) -> None:
    from vado.model import Edit, Fix
    from vado.model.edit import Applicability
    from vado.port.apply import apply_edits, select_fixes, unified_diff

    text, spans = case
    data = text.encode("latin-1")
    fixes = []
    for a, b, content in spans:
        lo, hi = sorted((a % (len(data) + 1), b % (len(data) + 1)))
        fixes.append(Fix((Edit("f", lo, hi, content),), Applicability.SAFE, "fuzz", ()))
    accepted, rejected = select_fixes(fixes, path="f", size=len(data))
    assert len(accepted) + len(rejected) == len(fixes)
    edits = [e for f in accepted for e in f.edits]
    after = apply_edits(data, edits)
    unified_diff(data, after, "f")


apply_case = st.tuples(latin1, st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 10**6), latin1.map(lambda s: s[:20])),
                                        max_size=12))


def test_fuzz_edit_applier():
    assert run_target("edit-applier", apply_case, _check_apply) > 0


# --- ignore files -------------------------------------------------------------------------------------

_GLOB_PIECES = ["a", "b", "ab", "*", "**", "?", "[ab]", "[!a]", "/", ".", "\\*", "x", "[a-c]"]
glob_case = st.tuples(
    st.lists(st.sampled_from(_GLOB_PIECES), min_size=1, max_size=8).map("".join),
    st.lists(st.text(alphabet="abx./", max_size=14), min_size=1, max_size=6),
)


def _check_glob(case) -> None:
    from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

    from vado.scan.discover import _linear_stars

    pattern, paths = case
    try:
        plain = GitIgnoreSpecPattern(pattern)
        fast = GitIgnoreSpecPattern(pattern)
    except Exception:  # pathspec refuses the pattern: vado reports it as malformed
        return
    if plain.regex is None:
        return
    _linear_stars(fast)
    for path in paths:
        if plain.regex.pattern.count("[^/]*") > 6 and len(path) > 10:
            continue  # the reference itself would take exponential time
        assert bool(plain.regex.match(path)) == bool(fast.regex.match(path)), (pattern, path, fast.regex.pattern)


def test_fuzz_ignore_patterns_match_as_pathspec():
    assert run_target("ignore-patterns", glob_case, _check_glob) > 0


# --- string literals ------------------------------------------------------------------------------------


def _check_string(text: str) -> None:
    from vado.rules.cuda_syntax import decode_string, int_value

    decode_string('"' + text + '"')
    decode_string(text)
    int_value(re.sub(r"[^0-9a-fA-FxXuUlL']", "", text) or "0")


def test_fuzz_literals():
    assert run_target("literals", st.one_of(latin1, _glue(["\\", "x", "\\x", "7", "0", "\\\n", "\"", "u", "f"])), _check_string) > 0


@pytest.fixture(autouse=True, scope="module")
def _no_color():
    os.environ.setdefault("NO_COLOR", "1")
    yield


# --- bounded work on long inputs (issue 27) ------------------------------------------------------
#
# One fragment repeated into a line of up to ~64 KB, after a prefix that puts it where a parser
# looks (a setup.cfg key, a requirement, a conda item, a CMake argument, an asm template). The
# parsers are linear: such a case takes milliseconds; the quadratic ones before took 10-30 s for
# 50 KB. The deadline is generous for a loaded 2-core machine and far below the quadratic cost.

LONG_DEADLINE_MS = 4000
_LONG_PIECES = [" ", "\t", "a", "-1", ".", "#", ":", "=", "\"", "'", "[", "]", "[[", "]]", "[=[", "\\", ";", "{",
                "}", "(", ")", "a:", "x{}", "%0, ", "@p ", "-", ".whl", "https://x/", "# c", " #", "\xa0", "\x85"]


def _long_line(prefixes: list[str]):
    @st.composite
    def build(draw):
        piece = "".join(draw(st.lists(st.sampled_from(_LONG_PIECES), min_size=1, max_size=3)))
        full = 64_000 // len(piece)
        count = draw(st.one_of(st.just(full), st.integers(full // 2, full), st.integers(1, full)))  # mostly long
        tail = draw(st.sampled_from(["", "\n", "x\n", ".whl\n", ")\n", "\" : \"=r\"(a));\n"]))
        return draw(st.sampled_from(prefixes)) + piece * count + tail

    return build()


_DEP_PREFIXES = ["", "a", "[options]\ninstall_requires =\n    ", "[options]\n", "[options.extras_require]\nx = ",
                 "dependencies:\n  - ", "name: ", "https://x/a-1", "./a-1", "torch==1.0+", "a @ https://x/",
                 "[project]\ndependencies = [\"", "-r "]


def _check_long_dependency_line(text: str) -> None:
    from vado.scan import pydeps

    pydeps.parse_requirements_txt(text)
    pydeps.parse_setup_cfg(text)
    pydeps.parse_conda_env(text)
    pydeps.parse_pyproject(text)


def test_fuzz_long_dependency_lines_are_bounded():
    assert run_target("long-dependency-lines", _long_line(_DEP_PREFIXES), _check_long_dependency_line,
                      deadline_ms=LONG_DEADLINE_MS) > 0


def _check_long_cmake_line(text: str) -> None:
    from vado.scan import buildfiles

    buildfiles.cmake_syntax._cmake_commands.cache_clear()
    buildfiles.parse_cmake(text)


def test_fuzz_long_cmake_lines_are_bounded():
    prefixes = ["", "set(X ", 'set(X "', "set(X [[", "#[[", "#", "f(", "project(p LANGUAGES CUDA "]
    assert run_target("long-cmake-lines", _long_line(prefixes), _check_long_cmake_line,
                      deadline_ms=LONG_DEADLINE_MS) > 0


def _check_long_asm(text: str) -> None:
    from vado.rules.cuda_syntax import parse_ptx
    from vado.rules.engine import check_text

    parse_ptx(text)
    source = '__global__ void k(int *p){ int a; asm volatile("' + text.replace('"', "").replace("\n", " ") + \
        '" : "=r"(a) : "r"(p[0])); p[0]=a; }\n'
    for f in check_text("k.cu", source, [ROCM], kind=FileKind.CUDA_SOURCE):
        assert 0 <= f.span.start <= f.span.end <= len(source)


def test_fuzz_long_asm_operands_are_bounded():
    prefixes = ["", "mov.u32 %0, ", "L1: ", "{ ", "@p ", ".reg .b32 r; ", "shfl.sync.down.b32 %0, %1, "]
    assert run_target("long-asm-operands", _long_line(prefixes), _check_long_asm, deadline_ms=LONG_DEADLINE_MS) > 0


# The hand-written scanners equal the regular expressions they replaced (kept as references).

_CMAKE_PIECES = ["a", "set", " ", "\n", "(", ")", "#", "[", "]", "[[", "]]", "[=[", "]=]", "=", '"', "\\", ";", "\t",
                 "\xa0", "\x85", "é"]


def _check_cmake_token(text: str) -> None:
    from vado.scan import buildfiles

    for i in range(len(text)):
        m = buildfiles.cmake_syntax._CMAKE_TOKEN.match(text, i)
        ref = None if m is None else (m.lastgroup, m.start(), m.end())
        got = buildfiles.cmake_syntax._cmake_token(text, i, set())
        assert (got and got[:3]) == ref, (text, i)
        if m is not None and m.lastgroup == "bracket":
            assert got[3] == len(m.group("eq"))


def test_fuzz_cmake_tokens_equal_their_regular_expression():
    strategy = st.lists(st.sampled_from(_CMAKE_PIECES), max_size=30).map("".join)
    assert run_target("cmake-token-reference", strategy, _check_cmake_token) > 0


def _check_dependency_scanners(text: str) -> None:
    from vado.scan import pydeps

    m = pydeps.requirements_txt._COMMENT.search(text)
    assert pydeps.requirements_txt._comment_start(text) == (m.start() if m else len(text))
    m = pydeps.requirement._ARCHIVE.search(text)
    assert pydeps.requirement._archive_name(text) == ((m.group(1), m.group(2)) if m else None)


def test_fuzz_dependency_scanners_equal_their_regular_expressions():
    pieces = [" ", "\t", "#", "a", "Z", "9", "_", ".", "-", "-1", "/", "\n", ".whl", ".tar.gz", ".ZIP", ".tgz", ".tar.bz2",
              "\xa0", "\x85", "٣"]
    strategy = st.lists(st.sampled_from(pieces), max_size=20).map("".join)
    assert run_target("dependency-scanner-reference", strategy, _check_dependency_scanners) > 0


def _reference_ptx_statements(src: str) -> list[str]:
    """The PTX statement split before issue 27 (quadratic: it joined the statement at every character)."""
    out: list[str] = []
    cur: list[str] = []
    depth = 0
    for ch in src:
        at_start = not "".join(cur).strip() or re.fullmatch(r"\s*(?:[A-Za-z_$][\w$]*\s*:\s*)+", "".join(cur)) is not None
        if ch in "{}" and depth == 0 and at_start:
            out.append("".join(cur))
            cur = []
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth = max(0, depth - 1)
        if ch == ";" and depth == 0:
            out.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    out.append("".join(cur))
    return out


def test_fuzz_ptx_statements_equal_the_reference():
    from vado.rules.cuda_syntax import _ptx_statements

    pieces = ["a", "b1", "_", "$", " ", "\t", "\n", ":", ";", "{", "}", "%0", ".", "é", "\xa0", "\x85", "L1:", "mov.u32"]
    strategy = st.lists(st.sampled_from(pieces), max_size=30).map("".join)
    assert run_target("ptx-statement-reference", strategy,
                      lambda t: _check_equal(_ptx_statements(t), _reference_ptx_statements(t))) > 0


def _check_equal(got, want) -> None:
    assert got == want
