"""Discovery: which files are planned, which are skipped and why, and reading them."""

from __future__ import annotations

import codecs
import os
import shutil
from pathlib import Path

import pytest

from vado.errors import ScanError, UsageError
from vado.model import Skip, SkipReason
from vado.scan.classify import FileKind
from vado.scan.discover import SourceFile, SourceText, read_source, read_text, walk


def make(root: Path, files: dict[str, bytes | str]) -> Path:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content.encode() if isinstance(content, str) else content)
    return root


def paths(plan) -> list[str]:
    return [f.path for f in plan.files]


def skips(plan) -> dict[str, tuple[SkipReason, str]]:
    return {s.path: (s.reason, s.detail) for s in plan.skips}


def test_plans_relevant_files_sorted_and_typed(tmp_path):
    make(tmp_path, {
        "src/b.cu": "__global__ void k() {}\n",
        "src/a.cuh": "#pragma once\n",
        "src/z/deep.cpp": "int main() {}\n",
        "src.c": "int x;\n",
        "CMakeLists.txt": "project(x CUDA)\n",
        "requirements.txt": "cupy-cuda12x\n",
        "README.md": "# docs\n",
        "notes.txt": "text\n",
        "logo.png": b"\x89PNG\r\n\x1a\n\0\0",
    })  # fmt: skip
    plan = walk(tmp_path)
    assert paths(plan) == ["CMakeLists.txt", "requirements.txt", "src/a.cuh", "src/b.cu", "src/z/deep.cpp", "src.c"]
    assert plan.skips == ()  # README, notes and the image are not CUDA-relevant: not even skips
    cu = plan.files[3]
    assert cu == SourceFile("src/b.cu", tmp_path / "src/b.cu", FileKind.CUDA_SOURCE, 23)
    assert cu.kind is FileKind.CUDA_SOURCE and cu.size == 23 and cu.abs_path.is_absolute()
    assert plan.of_kind(FileKind.CMAKE, FileKind.REQUIREMENTS) == plan.files[:2]
    assert plan.total_bytes == sum(f.size for f in plan)
    assert len(plan) == 6


def test_walk_is_deterministic(tmp_path):
    make(tmp_path, {f"d{i}/f{j}.cu": "x" for i in range(5) for j in range(5)})
    assert walk(tmp_path) == walk(tmp_path)


def test_extension_less_files_are_sniffed(tmp_path):
    make(tmp_path, {
        "include/cuda/std/atomic": "// -*- C++ -*-\n#ifndef _ATOMIC\n#define _ATOMIC\n",
        "include/cuda/barrier": "/* license */\n#pragma once\n__device__ void f();\n",
        "include/vector": "// -*- C++ -*- header\nnamespace std {}\n",
        "scripts/run": "#!/usr/bin/env python3\nprint(1)\n",
        "LICENSE": "MIT License\n",
        "bin/tool": b"\x7fELF\x02\x01\x01\0\0\0",
    })  # fmt: skip
    plan = walk(tmp_path)
    kinds = {f.path: f.kind for f in plan}
    assert kinds == {
        "include/cuda/barrier": FileKind.CUDA_HEADER,
        "include/cuda/std/atomic": FileKind.CXX_HEADER,
        "include/vector": FileKind.CXX_HEADER,
        "scripts/run": FileKind.PYTHON,
    }
    assert plan.skips == ()


def test_git_dir_is_never_entered(tmp_path):
    make(tmp_path, {".git/hooks/x.py": "x", ".git/objects/a.cu": "x", "sub/.git": "gitdir: ../.git/modules/sub", "sub/k.cu": "x"})
    plan = walk(tmp_path)
    assert paths(plan) == ["sub/k.cu"]
    assert plan.skips == ()


# --- .gitignore ---------------------------------------------------------------------


def test_gitignore_semantics(tmp_path):
    make(tmp_path, {
        ".gitignore": "*.gen.cu\n!keep.gen.cu\n/top_only.cu\ngenerated/\n# comment\n\n",
        "a.gen.cu": "x", "keep.gen.cu": "x", "top_only.cu": "x", "sub/top_only.cu": "x",
        "generated/x.cu": "x", "sub/generated/y.cu": "x", "sub/b.gen.cu": "x", "c.cu": "x",
    })  # fmt: skip
    plan = walk(tmp_path)
    assert paths(plan) == ["c.cu", "keep.gen.cu", "sub/top_only.cu"]
    got = skips(plan)
    assert got["a.gen.cu"] == (SkipReason.IGNORED, "matches '*.gen.cu' in .gitignore:1")
    assert got["top_only.cu"] == (SkipReason.IGNORED, "matches '/top_only.cu' in .gitignore:3")
    assert got["generated"] == (SkipReason.IGNORED, "directory matches 'generated/' in .gitignore:4")
    assert got["sub/generated"][0] is SkipReason.IGNORED
    assert got["sub/b.gen.cu"][0] is SkipReason.IGNORED
    assert set(got) == {"a.gen.cu", "top_only.cu", "generated", "sub/generated", "sub/b.gen.cu"}


def test_deeper_gitignore_wins_and_is_relative_to_its_directory(tmp_path):
    make(tmp_path, {
        ".gitignore": "*.cu\n",
        "lib/.gitignore": "!*.cu\n/local.cu\n",
        "a.cu": "x", "lib/b.cu": "x", "lib/local.cu": "x", "lib/deeper/local.cu": "x",
    })  # fmt: skip
    plan = walk(tmp_path)
    assert paths(plan) == ["lib/b.cu", "lib/deeper/local.cu"]
    assert skips(plan)["lib/local.cu"] == (SkipReason.IGNORED, "matches '/local.cu' in lib/.gitignore:2")


def test_a_negation_cannot_reinclude_below_an_ignored_directory(tmp_path):
    make(tmp_path, {".gitignore": "out/\n!out/keep.cu\n", "out/keep.cu": "x"})
    plan = walk(tmp_path)
    assert paths(plan) == []
    assert skips(plan)["out"][0] is SkipReason.IGNORED


def test_directory_only_pattern_does_not_match_a_file(tmp_path):
    make(tmp_path, {".gitignore": "cache/\n", "cache": "#pragma once\n", "x/cache/a.cu": "x"})
    plan = walk(tmp_path)
    assert paths(plan) == ["cache"]  # a file named cache (sniffed as a header) stays
    assert skips(plan)["x/cache"][0] is SkipReason.IGNORED


def test_git_info_exclude_and_gitignores_above_the_root(tmp_path):
    make(tmp_path, {
        ".git/info/exclude": "*.tmp.cu\n",
        ".gitignore": "proj/skipme.cu\n",
        "proj/.gitignore": "local.cu\n",
        "proj/skipme.cu": "x", "proj/a.tmp.cu": "x", "proj/local.cu": "x", "proj/ok.cu": "x",
    })  # fmt: skip
    plan = walk(tmp_path / "proj")
    assert paths(plan) == ["ok.cu"]
    got = skips(plan)
    assert got["skipme.cu"] == (SkipReason.IGNORED, "matches 'proj/skipme.cu' in ../.gitignore:1")
    assert got["a.tmp.cu"] == (SkipReason.IGNORED, "matches '*.tmp.cu' in ../.git/info/exclude:1")
    assert got["local.cu"][0] is SkipReason.IGNORED


def test_respect_gitignore_off(tmp_path):
    make(tmp_path, {".gitignore": "*.cu\n", "a.cu": "x"})
    assert paths(walk(tmp_path, respect_gitignore=False)) == ["a.cu"]


def test_malformed_gitignore_line_is_a_typed_skip_and_the_rest_applies(tmp_path):
    make(tmp_path, {".gitignore": "ok.cu\nbad\\\n*.tmp.cu\n", "ok.cu": "x", "a.tmp.cu": "x", "keep.cu": "x"})
    plan = walk(tmp_path)
    assert paths(plan) == ["keep.cu"]
    reason, detail = skips(plan)[".gitignore"]
    assert reason is SkipReason.MALFORMED
    assert detail.startswith("line 2: pattern 'bad\\\\' not used")


# --- vendored and build output ------------------------------------------------------


def test_vendored_directories_are_typed_skips(tmp_path):
    make(tmp_path, {
        "third_party/cub/a.cuh": "x", "src/ThirdParty/b.h": "x", "node_modules/m/c.cpp": "x",
        ".venv/lib/site-packages/x.py": "x", "extern/d.cu": "x", "src/e.cu": "x",
    })  # fmt: skip
    plan = walk(tmp_path)
    assert paths(plan) == ["src/e.cu"]
    got = skips(plan)
    assert {p for p, (r, _) in got.items() if r is SkipReason.VENDORED} == {
        ".venv", "extern", "node_modules", "src/ThirdParty", "third_party",
    }
    everything = walk(tmp_path, include_vendored=True)
    assert "third_party/cub/a.cuh" in paths(everything) and ".venv/lib/site-packages/x.py" in paths(everything)
    assert everything.skips == ()


def test_build_output_needs_a_marker_except_cmake_build(tmp_path):
    make(tmp_path, {
        "build/CMakeCache.txt": "", "build/gen.cu": "x",
        "build-release/build.ninja": "", "build-release/k.cu": "x",
        "cmake-build-debug/k.cu": "x",
        "tools/build/helper.py": "x",  # a build/ of scripts: scanned
    })  # fmt: skip
    plan = walk(tmp_path)
    assert paths(plan) == ["tools/build/helper.py"]
    got = skips(plan)
    assert got["build"] == (SkipReason.VENDORED, "build output directory (has CMakeCache.txt)")
    assert got["build-release"][0] is SkipReason.VENDORED
    assert got["cmake-build-debug"] == (SkipReason.VENDORED, "build output directory")


# --- binaries, sizes ----------------------------------------------------------------


def test_prebuilt_code_is_reported_without_reading(tmp_path):
    make(tmp_path, {"k.cubin": b"\x7fELF", "k.fatbin": b"\x50\xed", "libx.so.12": b"\x7fELF", "a.o": b"", "a.cu": "x"})
    plan = walk(tmp_path)
    got = skips(plan)
    assert got["k.cubin"][0] is SkipReason.BINARY and "rebuild it from source" in got["k.cubin"][1]
    assert got["k.fatbin"][0] is SkipReason.BINARY
    assert got["libx.so.12"][0] is SkipReason.BINARY and got["a.o"][0] is SkipReason.BINARY
    assert paths(plan) == ["a.cu"]


def test_ptx_files_are_planned(tmp_path):
    make(tmp_path, {"k.ptx": ".version 8.0\n.target sm_90\n"})
    plan = walk(tmp_path)
    assert [(f.path, f.kind) for f in plan] == [("k.ptx", FileKind.PTX)]
    got = read_source(plan.files[0])
    assert isinstance(got, SourceText) and got.encoding == "latin-1"


def test_max_file_size(tmp_path):
    make(tmp_path, {"big.cu": "x" * 101, "small.cu": "x" * 100})
    plan = walk(tmp_path, max_file_size=100)
    assert paths(plan) == ["small.cu"]
    assert skips(plan)["big.cu"] == (SkipReason.TOO_LARGE, "101 bytes, more than the limit of 100")
    with pytest.raises(UsageError):
        walk(tmp_path, max_file_size=-1)


# --- roots ----------------------------------------------------------------------------


def test_missing_root_raises_scan_error_with_tip(tmp_path):
    with pytest.raises(ScanError) as err:
        walk(tmp_path / "nope")
    assert "does not exist" in err.value.what and err.value.tip


def test_single_file_root(tmp_path):
    make(tmp_path, {"d/k.cu": "__global__ void k() {}\n", "d/notes.txt": "x", "d/big.cu": "x" * 50})
    plan = walk(tmp_path / "d/k.cu")
    assert plan.root == tmp_path / "d"
    assert [(f.path, f.kind) for f in plan] == [("k.cu", FileKind.CUDA_SOURCE)]
    assert skips(walk(tmp_path / "d/big.cu", max_file_size=10))["big.cu"][0] is SkipReason.TOO_LARGE
    with pytest.raises(ScanError) as err:
        walk(tmp_path / "d/notes.txt")
    assert "not a file vado reads" in err.value.what


def test_fifo_root_raises(tmp_path):
    fifo = tmp_path / "p.cu"
    os.mkfifo(fifo)
    with pytest.raises(ScanError) as err:
        walk(fifo)
    assert "FIFO" in err.value.why


# --- symlinks -------------------------------------------------------------------------


def test_symlink_alias_of_a_planned_file_is_skipped_once(tmp_path):
    make(tmp_path, {"src/a.cu": "x", "src/sub/b.cu": "y"})
    (tmp_path / "alias.cu").symlink_to("src/a.cu")
    (tmp_path / "aaa").symlink_to("src", target_is_directory=True)  # sorts before src
    plan = walk(tmp_path)
    assert paths(plan) == ["src/a.cu", "src/sub/b.cu"]
    got = skips(plan)
    assert got["alias.cu"] == (SkipReason.IGNORED, "symlink alias of src/a.cu, which is scanned")
    assert got["aaa"] == (SkipReason.IGNORED, "symlink to 'src', which is scanned already")


def test_symlink_into_an_ignored_directory_is_followed(tmp_path):
    make(tmp_path, {".gitignore": "gen/\n", "gen/k.cu": "x"})
    (tmp_path / "k.cu").symlink_to("gen/k.cu")
    plan = walk(tmp_path)
    assert paths(plan) == ["k.cu"]


def test_follow_symlinks_off(tmp_path):
    make(tmp_path, {"src/a.cu": "x"})
    (tmp_path / "alias.cu").symlink_to("src/a.cu")
    (tmp_path / "notes").symlink_to("src/a.cu")  # irrelevant name: not recorded
    plan = walk(tmp_path, follow_symlinks=False)
    assert paths(plan) == ["src/a.cu"]
    assert skips(plan) == {"alias.cu": (SkipReason.IGNORED, "symlink to 'src/a.cu' not followed")}


# --- reading --------------------------------------------------------------------------


def _only(plan) -> SourceFile:
    assert len(plan.files) == 1, plan
    return plan.files[0]


def test_read_c_family_is_the_latin1_view_with_a_note(tmp_path):
    make(tmp_path, {"a.cu": b"// caf\xe9\nint x;\n", "b.cu": "// café\n".encode()})
    a, b = walk(tmp_path).files
    got = read_source(a)
    assert got.text == "// caf\xe9\nint x;\n" and got.encoding == "latin-1"
    assert got.note == "not valid UTF-8 (first bad byte at offset 6); read byte for byte"
    good = read_source(b)
    assert good.note == "" and good.text.encode("latin-1") == "// café\n".encode()


@pytest.mark.parametrize(
    "data, text, encoding",
    [
        ("numpy>=1.24\n".encode(), "numpy>=1.24\n", "utf-8"),
        (codecs.BOM_UTF8 + b"numpy\n", "numpy\n", "utf-8-sig"),
        (codecs.BOM_UTF16_LE + "numpy\ncupy\n".encode("utf-16-le"), "numpy\ncupy\n", "utf-16"),
        (codecs.BOM_UTF16_BE + "torch\n".encode("utf-16-be"), "torch\n", "utf-16"),
    ],
)
def test_read_text_kinds(tmp_path, data, text, encoding):
    make(tmp_path, {"requirements.txt": data})
    got = read_source(_only(walk(tmp_path)))
    assert (got.text, got.encoding) == (text, encoding)
    assert read_text(got.file) == text


def test_undecodable_text_kind(tmp_path):
    make(tmp_path, {"CMakeLists.txt": b"project(caf\xe9)\n"})
    got = read_source(_only(walk(tmp_path)))
    assert got == Skip("CMakeLists.txt", SkipReason.UNDECODABLE, "not valid utf-8 (first bad byte at offset 11)")


def test_python_coding_cookie(tmp_path):
    make(tmp_path, {"setup.py": b"# -*- coding: latin-1 -*-\nname = 'caf\xe9'\n", "bad.py": b"# coding: nope\nx = 1\n"})
    bad, setup = walk(tmp_path).files
    assert read_text(setup) == "# -*- coding: latin-1 -*-\nname = 'café'\n"
    skip = read_source(bad)
    assert isinstance(skip, Skip) and skip.reason is SkipReason.UNDECODABLE


def test_utf16_c_source_is_undecodable(tmp_path):
    make(tmp_path, {"k.cu": codecs.BOM_UTF16_LE + "__global__ void k();\n".encode("utf-16-le")})
    plan = walk(tmp_path)
    assert paths(plan) == []
    reason, detail = skips(plan)["k.cu"]
    assert reason is SkipReason.UNDECODABLE and "convert the file to UTF-8" in detail


def test_read_a_file_that_vanished_or_grew(tmp_path):
    make(tmp_path, {"a.cu": "x", "b.cu": "y"})
    a, b = walk(tmp_path).files
    (tmp_path / "a.cu").unlink()
    got = read_source(a)
    assert isinstance(got, Skip) and got.reason is SkipReason.UNREADABLE and "Errno 2" in got.detail
    (tmp_path / "b.cu").write_text("y" * 20)
    assert read_source(b, max_file_size=10) == Skip("b.cu", SkipReason.TOO_LARGE, "more than the limit of 10 bytes")


def test_a_root_its_work_tree_ignores_is_scanned(tmp_path):
    make(tmp_path, {".git/HEAD": "ref", ".gitignore": "build/\n*.tmp.cu\n", "build/gen.cu": "x", "build/a.tmp.cu": "x"})
    plan = walk(tmp_path / "build")
    assert paths(plan) == ["a.tmp.cu", "gen.cu"]
    assert walk(tmp_path).skips == (Skip("build", SkipReason.IGNORED, "directory matches 'build/' in .gitignore:1"),)


def test_one_regex_settles_paths_no_ignore_pattern_matches():
    """The combined regex says "no pattern matches" exactly when pathspec would find none."""
    import random

    from pathspec import GitIgnoreSpec

    from vado.scan.discover import _IgnoreFile, _parse_ignore_file

    data = (b"*.o\n!keep.o\nbuild/\n/abs/x\n**/deep/*.c\nfoo[ab]*\n\\#lit\n*/main\nmain\n*.txt\n!CMakeLists.txt\n"
            b"dir/**/y\n!README*.md\n?.tmp\n")
    patterns, lines, malformed, any_pattern = _parse_ignore_file(data)
    assert not malformed and any_pattern is not None
    fast = _IgnoreFile("", "", ".gitignore", GitIgnoreSpec(list(patterns)), lines, any_pattern)
    slow = _IgnoreFile("", "", ".gitignore", GitIgnoreSpec(list(patterns)), lines, None)
    rng = random.Random(3)
    parts = ["a", "main", "CMakeLists.txt", "x.o", "keep.o", "build", "abs", "x", "deep", "y.c", "fooa1", "#lit",
             "README.md", "d.txt", "z.cu", "dir", "y", "q.tmp", "qq.tmp"]
    for _ in range(20000):
        path = "/".join(rng.choice(parts) for _ in range(rng.randint(1, 4)))
        is_dir = rng.random() < 0.3
        assert fast.check(path, is_dir) == slow.check(path, is_dir), path


def test_a_negated_directory_pattern_keeps_directories_a_catch_all_ignores(tmp_path):
    """``*`` then ``!*.*`` then ``!*/`` (Learn-CUDA-Programming 10bd9b5: ignore the binaries, which have no
    extension): every directory stays in the walk, as with git; pathspec alone ranks ``*``'s match of a
    directory above ``!*/``'s and left the whole tree out."""
    make(tmp_path, {
        ".gitignore": "# Ignore all\n*\n\n# Unignore all with extensions\n!*.*\n\n# Unignore all dirs\n!*/\n",
        "Chapter03/sub/reduction.cu": "x", "Chapter03/sub/Makefile": "all:\n", "Chapter03/sub/reduction": "\x7fELF",
    })  # fmt: skip
    plan = walk(tmp_path)
    assert paths(plan) == ["Chapter03/sub/reduction.cu"]
    got = skips(plan)
    assert got["Chapter03/sub/Makefile"] == (SkipReason.IGNORED, "matches '*' in .gitignore:2")
    assert "Chapter03" not in got and "Chapter03/sub" not in got


_GIT_PATTERNS = ("*", "!*/", "!*.*", "build/", "!build/", "*.o", "/top/", "sub/", "!sub/", "a*/", "**/deep/",
                 "!keep*", "docs", "/docs/", "x/y/", "!x/", "*/y/", "deep/**", "!deep/**/z/")
_GIT_PATHS = ("a.cu", "build/b.cu", "top/t.cu", "x/top/t.cu", "sub/s.cu", "sub/sub/s.cu", "ab/c.cu", "docs/d.cu",
              "x/docs/d.cu", "x/y/z.cu", "q/x/y/z.cu", "deep/z/k.cu", "m/deep/n.cu", "keep1/k.cu", "Makefile", "x/Makefile")


@pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")
def test_directory_decisions_agree_with_git(tmp_path):
    """Random .gitignore files from a pool of directory, negated and catch-all patterns: the walk keeps exactly
    the files ``git ls-files --others --exclude-standard`` lists (git itself is the oracle)."""
    import random
    import subprocess

    rng = random.Random(26)
    for case in range(80):
        root = tmp_path / f"c{case}"
        lines = rng.sample(_GIT_PATTERNS, rng.randint(1, 5))
        if case % 2:  # a catch-all first, as the ignore files that keep only what they name begin
            lines = ["*"] + [line for line in lines if line != "*"]
        make(root, {".gitignore": "\n".join(lines) + "\n", **{p: "x" for p in _GIT_PATHS}})
        subprocess.run(["git", "init", "-q", str(root)], check=True)
        listed = subprocess.run(["git", "-C", str(root), "ls-files", "--others", "--exclude-standard"],
                                check=True, capture_output=True, text=True).stdout.split()
        kept = [p for p in paths(walk(root)) if p != ".gitignore"]
        assert sorted(kept) == sorted(p for p in listed if p != ".gitignore"), lines
