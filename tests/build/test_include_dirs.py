"""The build's include directories in include resolution (vado.build.include_dirs, vado.scan.project_headers)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from vado.build.include_dirs import IncludeDirs, cmake_include_dirs, project_include_dirs
from vado.model import Verdict

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "PROJECTS"
_REDIRECT = "#pragma once\n#define __ballot_sync(mask, pred) __ballot(pred)\n"
_VOTE = "__device__ int votes_mb(int p) {\n  return __popcll(__ballot_sync(0xffffffff, p));\n}\n"


def _own_hip(tmp_path: Path, hip_cmake_extra: str) -> Path:
    """The own-hip fixture with a vote on its HIP path, a header ``port.hh`` beside the kernel that includes
    ``"macro/redirect.h"``, which lives under ``portable/include`` (reached only through an include directory)."""
    tree = tmp_path / "own-hip"
    shutil.copytree(FIXTURES / "own-hip", tree)
    (tree / "portable" / "include" / "macro").mkdir(parents=True)
    (tree / "portable" / "include" / "macro" / "redirect.h").write_text(_REDIRECT)
    (tree / "src" / "mb-cuda" / "port.hh").write_text('#pragma once\n#include "macro/redirect.h"\n')
    kernel = tree / "src" / "mb-cuda" / "kernel.cu"
    kernel.write_text('#include "port.hh"\n' + kernel.read_text() + _VOTE)
    cm = tree / "src" / "mb-hip" / "CMakeLists.txt"
    cm.write_text(cm.read_text() + hip_cmake_extra)
    return tree


def _vote_verdicts(tree: Path) -> list:
    from vado.audit.pipeline import audit
    from vado.knowledge.targets import get_target

    res = audit(tree, [get_target("rocm-7.2")])
    return [f.verdicts["rocm-7.2"] for f in res.findings
            if f.code == "WARP002" and f.span.path == "src/mb-cuda/kernel.cu" and "__ballot_sync" in f.message]


def test_a_redirect_reached_through_a_cmake_include_directory_is_seen(tmp_path):
    """cuSZ d3cde38's pattern: psz/include/detail/port.hh includes "macro/c_cu2hip_1_fix_primitives.h", found only
    through the include directory portable/include. The HIP build's include directory makes the redirect known."""
    tree = _own_hip(tmp_path, "target_include_directories(mb-hip PRIVATE\n"
                              "  $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/../../portable/include>)\n")
    assert not [v for v in _vote_verdicts(tree) if v is not Verdict.MOVES_AS_IS]


def test_without_the_include_directory_the_mask_finding_stays(tmp_path):
    """Negative: the same header in a directory no build file names is not found, the finding stays manual."""
    tree = _own_hip(tmp_path, "")
    verdicts = _vote_verdicts(tree)
    assert verdicts and all(v is Verdict.MANUAL for v in verdicts), verdicts


def test_a_compile_database_gives_per_unit_directories_first(tmp_path):
    root = tmp_path / "p"
    for d in ("a/inc", "b/inc", "src"):
        (root / d).mkdir(parents=True)
    (root / "src" / "one.cu").write_text("int x;\n")
    (root / "src" / "two.cu").write_text("int y;\n")
    db = [{"directory": str(root), "file": "src/one.cu", "command": f"nvcc -Ia/inc -I{tmp_path}/outside -c src/one.cu"},
          {"directory": str(root), "file": "src/two.cu", "command": "nvcc -Ib/inc -c src/two.cu"}]
    (tmp_path / "outside").mkdir()
    (root / "compile_commands.json").write_text(json.dumps(db))
    dirs = project_include_dirs(root)
    # A directory outside the root is never searched.
    assert set(dirs.union) == {"a/inc", "b/inc"}
    assert dirs.for_file("src/two.cu") == ("b/inc", "a/inc")
    assert dirs.for_file("src/one.cu")[0] == "a/inc"


def test_makefile_flags_read_without_running_make(tmp_path):
    root = tmp_path / "m"
    (root / "include" / "deep").mkdir(parents=True)
    (root / "k.cu").write_text('#include "x.h"\n__global__ void k() {}\n')
    (root / "Makefile").write_text("CFLAGS = -Iinclude/deep\nall: k.o\nk.o: k.cu\n\tnvcc $(CFLAGS) -c k.cu -o k.o\n")
    dirs = project_include_dirs(root)
    assert dirs.for_file("k.cu") == ("include/deep",)


def test_cmake_text_resolution_keeps_existing_directories_inside_the_root(tmp_path):
    root = tmp_path / "c"
    (root / "lib" / "include").mkdir(parents=True)
    text = ("include_directories(${PROJECT_SOURCE_DIR}/lib/include /usr/include ../../etc missing)\n"
            "target_include_directories(t PUBLIC $<INSTALL_INTERFACE:include> $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/lib/include>)\n")
    assert cmake_include_dirs(text, str(root), os.path.realpath(root)) == ["lib/include"]


def test_a_link_out_of_the_root_is_not_an_include_directory(tmp_path):
    root = tmp_path / "l"
    root.mkdir()
    (tmp_path / "elsewhere").mkdir()
    os.symlink(tmp_path / "elsewhere", root / "inc")
    (root / "CMakeLists.txt").write_text("include_directories(inc)\n")
    assert project_include_dirs(root) == IncludeDirs()
