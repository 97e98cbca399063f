"""The Make dry run: only the branch the Makefile takes counts; the tree is never written."""

import shutil

import pytest

from vado.build.make import dry_run, parse_dry_run, shell_commands
from vado.build.model import Language

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make not installed")

MAKEFILE = """\
USE_FAST ?= 0
PRECISION ?= BF16
$(shell mkdir -p objdir)
ifeq ($(USE_FAST), 1)
  FLAGS = -DFAST -Ifast_inc
else
  FLAGS = -DSLOW
endif
ifeq ($(PRECISION), FP32)
  PFLAGS = -DENABLE_FP32
else ifeq ($(PRECISION), FP16)
  PFLAGS = -DENABLE_FP16
else
  PFLAGS = -DENABLE_BF16
endif
ifeq ($(OS), Windows_NT)
  FLAGS += -I"C:/windows/include"
endif

all: prog host

prog: k.cu
\tmkdir -p objdir && $(NVCC) $(FLAGS) $(PFLAGS) -std=c++17 k.cu -o prog

host: main.c
\t$(CC) -O2 -Idev main.c -o host

unused: other.cu
\t$(NVCC) -DNEVER other.cu -o unused
"""


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "proj"
    root.mkdir()
    (root / "Makefile").write_text(MAKEFILE)
    for f in ("k.cu", "main.c", "other.cu"):
        (root / f).write_text("int x;\n")
    return root


def test_only_the_branch_taken_counts(project):
    cfg = dry_run(project, variables={"NVCC": "nvcc", "CC": "cc"})
    by = {u.relpath(cfg.root): u for u in cfg.units}
    assert set(by) == {"k.cu", "main.c"}  # not other.cu: the default goal does not build it
    assert by["k.cu"].defines == ("SLOW", "ENABLE_BF16") and by["k.cu"].language is Language.CUDA
    assert by["main.c"].language is Language.C and by["main.c"].flag_args()[0] == f"-I{project}/dev"
    assert cfg.reader == "make" and not cfg.guessed and cfg.ran == ("make -n -B -k NVCC=nvcc CC=cc in .",)
    assert not (project / "objdir").exists()  # $(shell mkdir) ran in a scratch copy


def test_variables_pick_the_other_branch(project):
    cfg = dry_run(project, variables={"NVCC": "nvcc", "USE_FAST": "1", "PRECISION": "FP16"})
    (k,) = [u for u in cfg.units if u.source.endswith("k.cu")]
    assert k.defines == ("FAST", "ENABLE_FP16") and k.includes[0].path == str(project / "fast_inc")


def test_tools_are_found_through_path(project, tmp_path):
    (project / "Makefile").write_text("HIPCC := $(shell which hipcc)\nall:\n\t$(HIPCC) -DX -c k.cu -o k.o\n")
    fake = tmp_path / "bin" / "my-hipcc"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    cfg = dry_run(project, tools={"hipcc": str(fake)})
    (u,) = cfg.units
    assert u.language is Language.HIP and u.defines == ("X",)


def test_recursive_make_directories(tmp_path):
    root = tmp_path / "r"
    (root / "sub").mkdir(parents=True)
    (root / "Makefile").write_text("all:\n\t+$(MAKE) -C sub\n")
    (root / "sub" / "Makefile").write_text("all:\n\tcc -DSUB -c s.c -o s.o\n")
    (root / "sub" / "s.c").write_text("int s;\n")
    cfg = dry_run(root)
    (u,) = cfg.units
    assert u.source == str(root / "sub" / "s.c") and u.directory == str(root / "sub")
    assert len(cfg.ran) == 1  # sub/ was entered by the root's make: not dry-run again


def test_a_failing_makefile_is_a_note(tmp_path):
    (tmp_path / "Makefile").write_text("$(error nvcc not found)\n")
    cfg = dry_run(tmp_path)
    assert cfg.units == () and "nvcc not found" in cfg.notes[0]


def test_shell_splitting_and_continuations():
    assert shell_commands("cd sub && nvcc -c 'a b.cu'; echo done") == [["cd", "sub"], ["nvcc", "-c", "a b.cu"],
                                                                       ["echo", "done"]]
    text = "make: Entering directory '/x/sub'\ngcc -c \\\n  a.c\nmake: Leaving directory '/x/sub'\ncd lib && g++ -c b.cc\n"
    us = parse_dry_run(text, "/x")
    assert [(u.source, u.directory) for u in us] == [("/x/sub/a.c", "/x/sub"), ("/x/lib/b.cc", "/x/lib")]


def test_a_fifo_in_the_tree_does_not_block_the_copy(project):
    import os

    os.mkfifo(project / "pipe")
    cfg = dry_run(project, variables={"NVCC": "nvcc"})
    assert {u.relpath(cfg.root) for u in cfg.units} == {"k.cu", "main.c"}


def test_files_that_cannot_be_copied_are_a_note(project, monkeypatch):
    import shutil as sh

    from vado.build import make

    real = sh.copytree

    def partial(src, dst, **kw):
        real(src, dst, **kw)
        raise sh.Error([(str(project / "secret.h"), str(dst), "Permission denied")])

    monkeypatch.setattr(make.shutil, "copytree", partial)
    cfg = dry_run(project, variables={"NVCC": "nvcc"})
    assert "1 files could not be copied for the dry run (unreadable)" in cfg.notes
    assert {u.relpath(cfg.root) for u in cfg.units} == {"k.cu", "main.c"}


def test_absolute_output_paths_of_the_scratch_copy_are_mapped_back(tmp_path):
    """make -n runs in a scratch copy; an output path the Makefile makes absolute ($(abspath ../build))
    names the user's tree in the unit, like its source (nccl-tests' BUILDDIR)."""
    root = tmp_path / "r"
    (root / "src").mkdir(parents=True)
    (root / "src" / "Makefile").write_text("B := $(abspath ../build)\nall:\n\tcc -c k.c -o $(B)/k.o\n")
    (root / "src" / "k.c").write_text("int k;\n")
    (root / "Makefile").write_text("all:\n\t+$(MAKE) -C src\n")
    (u,) = dry_run(root).units
    assert u.source == str(root / "src" / "k.c")
    assert str(root / "build" / "k.o") in u.dropped, u.dropped
