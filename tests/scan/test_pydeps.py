"""Dependency parsers: every record's span is the exact text it names."""

from __future__ import annotations

import time

import pytest

from vado.scan.pydeps import (
    DepSource,
    logical_lines,
    normalize_name,
    parse_conda_env,
    parse_pyproject,
    parse_requirement,
    parse_requirements_txt,
    parse_setup_cfg,
    parse_setup_py,
    resolve_include,
    scan_python_imports,
    toml_strings,
)

REQS = """\
# top comment
--extra-index-url https://download.pytorch.org/whl/cu121
-i https://pypi.org/simple
-r base.txt
-c ../../outside.txt
--requirement=dev.txt
torch==2.1.0+cu121 ; python_version >= "3.9"  # pinned
torchvision[extra1,b]>=0.16, <0.17 \\
    --hash=sha256:abc
numpy
git+https://github.com/NVIDIA/apex.git@master#egg=apex
https://download.pytorch.org/whl/cu121/torch-2.1.0%2Bcu121-cp310-cp310-linux_x86_64.whl
name @ https://x.org/a.whl ; sys_platform == "linux"
cupy-cuda12x \\
  ==13.0
-e ./localpkg
"""


def test_requirements_records_and_spans():
    d = parse_requirements_txt(REQS, "sub/requirements.txt")
    names = [(r.name, r.version, r.local) for r in d.requirements]
    assert names == [
        ("torch", "2.1.0+cu121", "cu121"),
        ("torchvision", "", ""),
        ("numpy", "", ""),
        ("apex", "", ""),
        ("torch", "2.1.0+cu121", "cu121"),
        ("name", "", ""),
        ("cupy-cuda12x", "13.0", ""),
        ("", "", ""),
    ]
    torch = d.requirements[0]
    assert REQS[torch.start:torch.end] == 'torch==2.1.0+cu121 ; python_version >= "3.9"'
    assert REQS[torch.spec_start:torch.spec_end] == "==2.1.0+cu121"
    assert torch.marker == 'python_version >= "3.9"'
    tv = d.requirements[1]
    assert tv.extras == ("extra1", "b") and REQS[tv.spec_start:tv.spec_end] == ">=0.16, <0.17"
    cupy = d.requirements[6]
    # A requirement continued over two lines keeps a span that covers both.
    assert REQS[cupy.spec_start:cupy.spec_end] == "==13.0"
    assert REQS[cupy.name_start:cupy.name_end] == "cupy-cuda12x"
    assert d.requirements[-1].editable and d.requirements[-1].url == "./localpkg"
    assert [(i.option, REQS[i.url_start:i.url_end]) for i in d.indexes] == [
        ("--extra-index-url", "https://download.pytorch.org/whl/cu121"),
        ("--index-url", "https://pypi.org/simple"),
    ]
    incs = [(i.option, i.path, i.resolved) for i in d.includes]
    assert incs == [
        ("--requirement", "base.txt", "sub/base.txt"),
        ("--constraint", "../../outside.txt", None),
        ("--requirement", "dev.txt", "sub/dev.txt"),
    ]
    assert not d.problems


@pytest.mark.parametrize("line,reason", [
    ("torch=2.1", "bad version specifier"),
    ("pkg[extra", "bad version specifier"),
    ("--bogus", "unknown pip option"),
    ("-r", "needs a value"),
    ("!!!", "does not start with a project name"),
])
def test_malformed_lines_become_problems(line, reason):
    d = parse_requirements_txt(line + "\n")
    assert not d.requirements
    assert reason in d.problems[0].reason
    assert d.problems[0].start == 0


def test_huge_line_is_fast_and_bounded():
    text = "numpy==1.0 " + "x" * 1_000_000 + "\ntorch==2.1.0+cu121\n"
    t0 = time.perf_counter()
    d = parse_requirements_txt(text)
    assert time.perf_counter() - t0 < 2.0
    assert [r.name for r in d.requirements] == ["torch"]
    assert len(d.problems) == 1


def test_crlf_and_comment_rules():
    text = "torch==2.0 # c\r\nfoo#bar==1\r\n#x\r\n"
    d = parse_requirements_txt(text)
    # pip only strips '#' that starts a line or follows whitespace.
    assert [text[r.start:r.end] for r in d.requirements] == ["torch==2.0"]
    # "foo#bar==1": the '#' is not a comment, so the line is one (malformed) requirement.
    assert [text[p.start:p.end] for p in d.problems] == ["foo#bar==1"]


def test_logical_lines_map_back_to_file_offsets():
    text = "a \\\nb\\\nc\nd"
    lines = logical_lines(text)
    assert [ll.text for ll in lines] == ["a bc", "d"]
    first = lines[0]
    assert text[first.pos(3)] == "c" and text[first.pos(2)] == "b"
    assert first.end_pos(2) == 2  # an end at a join point stays on its line (after "a ")


def test_resolve_include():
    assert resolve_include("a/b/req.txt", "../c.txt") == "a/c.txt"
    assert resolve_include("req.txt", "../c.txt") is None
    assert resolve_include("req.txt", "/etc/c.txt") is None
    assert resolve_include("req.txt", "https://x/y.txt") is None


def test_parse_requirement_forms():
    r = parse_requirement("jax[cuda12]==0.8.2")
    assert r.extras == ("cuda12",) and r.version == "0.8.2"
    r = parse_requirement("Flash_Attn>=2")
    assert r.key == "flash-attn" == normalize_name("Flash_Attn")


PYPROJECT = """\
[build-system]
requires = ["setuptools>=68", "torch==2.9.1"]

[project]
name = "demo"
dependencies = [
  "torch==2.4.0+cu124",  # a comment
  'numpy>=1.26',
]
[project.optional-dependencies]
gpu = ["cupy-cuda12x>=13"]

[dependency-groups]
dev = ["pytest"]

[tool.poetry.dependencies]
python = "^3.10"
torchaudio = "2.4.0+cu124"
vllm = {version = "0.6.3", source = "vllm"}

[[tool.poetry.source]]
name = "pt"
url = "https://download.pytorch.org/whl/cu124"

[tool.uv]
extra-index-url = ["https://download.pytorch.org/whl/cu121"]
"""


def test_pyproject_matches_tomllib_and_keeps_spans():
    import tomllib

    d = parse_pyproject(PYPROJECT)
    data = tomllib.loads(PYPROJECT)
    pep621 = [r for r in d.requirements if r.source is DepSource.PYPROJECT]
    assert [PYPROJECT[r.start:r.end] for r in pep621 if r.group == ""] == data["project"]["dependencies"]
    assert [(r.group, r.name) for r in pep621 if r.group] == [
        ("build-system", "setuptools"), ("build-system", "torch"), ("gpu", "cupy-cuda12x"), ("dev", "pytest")]
    poetry = [(r.name, r.specifier, r.version, r.local) for r in d.requirements if r.source is DepSource.POETRY]
    assert poetry == [("torchaudio", "2.4.0+cu124", "2.4.0+cu124", "cu124"), ("vllm", "0.6.3", "0.6.3", "")]
    ta = next(r for r in d.requirements if r.name == "torchaudio")
    assert PYPROJECT[ta.name_start:ta.name_end] == "torchaudio"
    assert [(i.option, PYPROJECT[i.url_start:i.url_end]) for i in d.indexes] == [
        ("url", "https://download.pytorch.org/whl/cu124"),
        ("extra-index-url", "https://download.pytorch.org/whl/cu121"),
    ]
    assert not d.problems


def test_invalid_toml_is_a_problem_but_strings_are_still_read():
    d = parse_pyproject('[project]\ndependencies = ["torch==2.1+cu118"\nname = \n')
    assert d.problems and "not valid TOML" in d.problems[0].reason
    assert [r.name for r in d.requirements] == ["torch"]


def test_toml_strings_inline_tables_and_multiline():
    text = 'a = {b = {c = "x"}}\nd = """\nline"""\n'
    got = [(s.path, s.value) for s in toml_strings(text)]
    assert got == [(("a", "b", "c"), "x"), (("d",), "line")]


def test_setup_cfg():
    text = "[metadata]\nname = x\n[options]\ninstall_requires =\n    torch==2.1+cu121\n    # c\n    numpy\n" \
           "[options.extras_require]\ngpu = cupy-cuda12x\n"
    d = parse_setup_cfg(text)
    assert [(r.name, r.group) for r in d.requirements] == [("torch", ""), ("numpy", ""), ("cupy-cuda12x", "gpu")]
    assert all(text[r.name_start:r.name_end] == r.name for r in d.requirements)


def test_setup_py_follows_names_and_never_executes(tmp_path):
    marker = tmp_path / "ran"
    text = (f"import pathlib; pathlib.Path({str(marker)!r}).write_text('x')\n"
            "from setuptools import setup\nBASE = ['torch==2.1+cu121']\n"
            "setup(install_requires=BASE + ['numpy'], extras_require={'gpu': ['cupy-cuda12x']},\n"
            "      setup_requires=('wheel',))\n")
    d = parse_setup_py(text)
    assert [(r.name, r.group) for r in d.requirements] == [
        ("torch", ""), ("numpy", ""), ("cupy-cuda12x", "gpu"), ("wheel", "setup_requires")]
    assert all(text[r.name_start:r.name_end] == r.name for r in d.requirements)
    assert not marker.exists()


def test_setup_py_with_syntax_error_reads_by_pattern():
    text = "from setuptools import setup\nsetup(install_requires=['torch==2.1+cu121', 'pycuda'\n"
    d = parse_setup_py(text)
    assert [r.name for r in d.requirements] == ["torch", "pycuda"]
    assert "does not parse" in d.problems[0].reason


def test_setup_py_non_utf8_bytes_do_not_crash():
    text = b"# \xff\xfe\nsetup(install_requires=['torch'])\n".decode("latin-1")
    d = parse_setup_py(text)
    assert [r.name for r in d.requirements] == ["torch"]


CONDA = """\
name: t
channels: [pytorch, nvidia]
dependencies:
  - python=3.11   # comment
  - nvidia::cuda-nvcc
  - "pytorch-cuda=12.1"
  - pip
  - pip:
    - --extra-index-url https://download.pytorch.org/whl/cu118
    - torch==2.1.0+cu118
    - -r reqs.txt
  - numpy
"""


def test_conda_env():
    d = parse_conda_env(CONDA, "env/environment.yml")
    assert [c.name for c in d.channels] == ["pytorch", "nvidia", "nvidia"]
    assert [(c.name, c.spec, c.channel) for c in d.conda] == [
        ("python", "=3.11", ""), ("cuda-nvcc", "", "nvidia"), ("pytorch-cuda", "=12.1", ""), ("pip", "", ""),
        ("numpy", "", "")]
    assert all(CONDA[c.start:c.end] == c.name for c in d.channels)
    assert [r.name for r in d.requirements] == ["torch"] and d.requirements[0].source is DepSource.CONDA_PIP
    assert CONDA[d.indexes[0].url_start:d.indexes[0].url_end] == "https://download.pytorch.org/whl/cu118"
    assert d.includes[0].resolved == "env/reqs.txt"
    assert not d.problems


def test_conda_invalid_yaml_is_a_problem():
    d = parse_conda_env("dependencies:\n  - [unclosed\n")
    assert d.problems and "not valid YAML" in d.problems[0].reason


def test_python_imports_ast_and_fallback():
    text = ("import torch\nimport pycuda.driver as drv, os\nfrom numba import cuda\nfrom . import local\n"
            "from cuda import cudart, cuda as cu\nk = cp.RawKernel(r'''asm volatile(\"mov.u32 %0, %%laneid;\" : \"=r\"(x));''', 'k')\n")
    f = scan_python_imports(text)
    assert [i.module for i in f.imports] == ["torch", "pycuda.driver", "os", "numba.cuda", "cuda.cudart", "cuda.cuda"]
    assert text[f.imports[1].start:f.imports[1].end] == "pycuda.driver"
    assert text[f.imports[3].start:f.imports[3].end] == "numba import cuda"
    assert f.raw_kernels[0].ptx == ("mov.u32 %0, %%laneid;",)
    broken = scan_python_imports('print "x"\nimport tensorrt\nfrom numba import cuda\n')
    assert [(i.module, i.approximate) for i in broken.imports] == [("tensorrt", True), ("numba.cuda", True)]
    assert broken.problems
