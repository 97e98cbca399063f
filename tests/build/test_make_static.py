"""Reading a Make build without running make (vado.build.make_static): the same units as `make -n`, one branch of
each conditional, and nothing for a Makefile that needs make to run."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from vado.build.make_static import read_makefiles
from vado.build.read import BuildOptions, read_build

TOP = """\
CC = gcc
DIRS := lib
DEBUG = n
ifeq ($(DEBUG), y)
CFLAGS += -g
else
CFLAGS += -O2
endif
.PHONY: code all
all: code
\t$(CC) $(CFLAGS) -shared -o top.so objs/*.o
code:
\tmkdir -p objs
\t$(MAKE) -C $(DIRS)
"""

LIB = """\
TARGET = libk.a
SRCS = $(wildcard *.cu) $(wildcard *.cc)
OBJS := $(SRCS:.cu=.cu.o)
OBJS := $(OBJS:.cc=.cc.o)
NVCC ?= nvcc
ARCHS := 70 80
NVCC_FLAGS = -O3 -std=c++14 $(foreach a,$(ARCHS),-gencode arch=compute_$(a),code=sm_$(a))
ifeq ($(USE_MPI), 1)
NVCC_FLAGS += -DUSE_MPI -I/opt/mpi/include
endif
ifdef WITH_HALF
NVCC_FLAGS += -DWITH_HALF
endif
INC = -I../include $(addprefix -I,$(EXTRA_INC))
EXTRA_INC = third
all: $(TARGET)
$(TARGET): $(OBJS)
\tar cr $@ $^
%.cu.o: %.cu
\t$(NVCC) $(NVCC_FLAGS) $(INC) -c $< -o $@
%.cc.o: %.cc
\tg++ -O2 -fPIC $(INC) -c $< -o $@
"""


def _tree(root: Path) -> Path:
    (root / "lib").mkdir(parents=True)
    (root / "include").mkdir()
    (root / "Makefile").write_text(TOP)
    (root / "lib" / "Makefile").write_text(LIB)
    (root / "lib" / "a.cu").write_text("__global__ void a() {}\n")
    (root / "lib" / "b.cu").write_text("__global__ void b() {}\n")
    (root / "lib" / "h.cc").write_text("int h() { return 0; }\n")
    (root / "tool").mkdir()
    (root / "tool" / "Makefile").write_text("t: t.cu\n\tnvcc -DTOOL t.cu -o t\n")
    (root / "tool" / "t.cu").write_text("int main() {}\n")
    return root


def _keys(cfg):
    return {(Path(u.source).name, u.compiler, u.language.value, " ".join(u.flag_args())) for u in cfg.units}


def test_the_units_of_the_default_goals_with_one_branch_of_each_conditional(tmp_path: Path):
    cfg = read_makefiles(_tree(tmp_path), env={})
    got = {name: flags for name, _c, _l, flags in _keys(cfg)}
    assert set(got) == {"a.cu", "b.cu", "h.cc", "t.cu"}
    assert "-DUSE_MPI" not in got["a.cu"] and "-DWITH_HALF" not in got["a.cu"]  # branches not taken
    assert "-I" + str(tmp_path / "include") in got["a.cu"] and "-I" + str(tmp_path / "lib" / "third") in got["a.cu"]
    assert "-DTOOL" in got["t.cu"]
    # The environment and make's command line decide a branch, as they do for make.
    on = {n: f for n, _c, _l, f in _keys(read_makefiles(tmp_path, env={"WITH_HALF": "1"}, variables={"USE_MPI": "1"}))}
    assert "-DUSE_MPI" in on["a.cu"] and "-DWITH_HALF" in on["a.cu"]


@pytest.mark.skipif(shutil.which("make") is None, reason="make not installed")
def test_it_agrees_with_make_dry_run(tmp_path: Path):
    from vado.build.make import dry_run

    root = _tree(tmp_path)
    env = {"PATH": "/usr/bin:/bin"}
    static = read_makefiles(root, env={})
    ran = dry_run(root)
    assert _keys(static) == _keys(ran) and len(static.units) == len(ran.units) == 4
    assert {u.directory for u in static.units} == {u.directory for u in ran.units}
    assert env  # the dry run sees this process's environment; the fixture's Makefiles read none of it


def test_a_makefile_that_needs_make_to_run_is_not_read(tmp_path: Path):
    (tmp_path / "Makefile").write_text("ARCH := $(shell nvidia-smi --query-gpu=compute_cap --format=csv)\n"
                                       "k: k.cu\n\tnvcc -arch=$(ARCH) k.cu\n")
    (tmp_path / "k.cu").write_text("__global__ void k() {}\n")
    cfg = read_makefiles(tmp_path, env={})
    assert not cfg.units and "$(shell …)" in cfg.notes[0] and "needs make to run" in cfg.notes[0]
    # compile-db mode then guesses, as before, and says why the Makefile was not read.
    guessed = read_build(tmp_path, BuildOptions(mode="compile-db"))
    assert guessed.guessed and any("$(shell …)" in n for n in guessed.notes)


def test_compile_db_mode_reads_makefiles_and_adds_their_units_to_a_setup_py(tmp_path: Path):
    """dgSPARSE-Lib 973a972: setup.py builds the PyTorch extension, a Makefile the library's own kernels."""
    root = _tree(tmp_path)
    cfg = read_build(root, BuildOptions(mode="compile-db"))
    assert cfg.reader == "make-read" and not cfg.guessed and {Path(u.source).name for u in cfg.units} == {
        "a.cu", "b.cu", "h.cc", "t.cu"}
    (root / "ext").mkdir()
    (root / "ext" / "e.cu").write_text("__global__ void e() {}\n")
    (root / "setup.py").write_text(
        "from setuptools import setup\nfrom torch.utils.cpp_extension import BuildExtension, CUDAExtension\n"
        "setup(name='e', ext_modules=[CUDAExtension('e', ['ext/e.cu'])], cmdclass={'build_ext': BuildExtension})\n")
    both = read_build(root, BuildOptions(mode="compile-db"))
    assert both.reader == "setup.py"
    assert {Path(u.source).name for u in both.units} == {"e.cu", "a.cu", "b.cu", "h.cc", "t.cu"}
    assert any("only the Makefiles compile" in n for n in both.notes)


_GLOB_MAKEFILE = ("CC = nvcc\nprogram = main\nobj = main.o\n$(program): $(obj) Makefile\n\t$(CC) $(obj) -o $@\n"
                  "%.o: %.cu *.h *.cuh Makefile\n\t$(CC) -DX=1 -c $< -o $@\n")


def test_wildcard_prerequisites_are_expanded_as_make_does(tmp_path: Path):
    """HeCBench's Makefiles (attentionMultiHeadKVCache-cuda): `%.o: %.cu *.h *.cuh Makefile`. make expands the
    wildcards to the directory's files; without that the pattern rule never applied and main.cu was no unit."""
    root = tmp_path / "g"
    root.mkdir()
    for n in ("main.cu", "a.h", "b.cuh"):
        (root / n).write_text("int x;\n")
    (root / "Makefile").write_text(_GLOB_MAKEFILE)
    cfg = read_makefiles(root)
    assert [Path(u.source).name for u in cfg.units] == ["main.cu"] and cfg.units[0].defines == ("X=1",)
    if shutil.which("make"):
        from vado.build.make import dry_run

        assert [Path(u.source).name for u in dry_run(root).units] == ["main.cu"]


def test_a_wildcard_prerequisite_that_matches_nothing_leaves_the_rule_unused(tmp_path: Path):
    """Negative: no .cuh file: make keeps the word `*.cuh`, has no such file, and the pattern rule does not apply."""
    root = tmp_path / "g"
    root.mkdir()
    for n in ("main.cu", "a.h"):
        (root / n).write_text("int x;\n")
    (root / "Makefile").write_text(_GLOB_MAKEFILE)
    assert read_makefiles(root).units == ()
