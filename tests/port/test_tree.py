"""Tree ports: idempotence, the user's tree untouched, in-place backups, refusals, odd files, renamed sources."""

from __future__ import annotations

import os
import stat
import shutil
import subprocess
from pathlib import Path

import pytest

from vado.errors import UsageError
from vado.knowledge.targets import get_target
from vado.port.file import PortOptions
from vado.port.tree import port_tree

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "vecops"
ROCM = get_target("rocm-7.2")
UNSAFE = PortOptions(unsafe=True)


def snapshot(root: Path) -> dict[str, bytes | str]:
    """Every entry under ``root``: file bytes, or ``-> target`` for a symlink."""
    out: dict[str, bytes | str] = {}
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        if p.is_symlink():
            out[rel] = "-> " + os.readlink(p)
        elif p.is_file():
            out[rel] = p.read_bytes()
    return out


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    shutil.copytree(EXAMPLE, src)
    return src


def test_port_twice_equals_port_once(tree: Path, tmp_path: Path):
    once = port_tree(tree, tmp_path / "out1", ROCM, options=UNSAFE)
    assert once.translated
    twice = port_tree(tmp_path / "out1", tmp_path / "out2", ROCM, options=UNSAFE)
    assert snapshot(tmp_path / "out1") == snapshot(tmp_path / "out2")
    assert twice.translated == ()
    assert all(f.applied == {} for f in twice.files)


def test_output_port_leaves_the_source_untouched(tree: Path, tmp_path: Path):
    before = snapshot(tree)
    port_tree(tree, tmp_path / "out", ROCM, options=UNSAFE)
    assert snapshot(tree) == before
    assert b"hipMalloc" in (tmp_path / "out" / "src" / "main.cu").read_bytes()


def test_in_place_keeps_backups_and_a_second_run_writes_nothing(tree: Path):
    original = (tree / "src" / "main.cu").read_bytes()
    first = port_tree(tree, None, ROCM, in_place=True, options=UNSAFE)
    assert {f.path for f in first.translated} >= {"src/main.cu", "src/lane.cuh", "Makefile", "CMakeLists.txt"}
    assert (tree / "src" / "main.cu.vado-bak").read_bytes() == original
    after_first = snapshot(tree)
    second = port_tree(tree, None, ROCM, in_place=True, options=UNSAFE)
    assert second.translated == ()
    assert snapshot(tree) == after_first  # no new backups, no rewrites


def test_refuses_output_inside_the_source(tree: Path):
    with pytest.raises(UsageError, match="inside the tree"):
        port_tree(tree, tree / "ported", ROCM)


def test_refuses_a_non_empty_output(tree: Path, tmp_path: Path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    with pytest.raises(UsageError, match="not empty"):
        port_tree(tree, out, ROCM)
    assert (out / "keep.txt").read_text() == "mine"


def test_non_utf8_bytes_survive(tmp_path: Path):
    src = tmp_path / "src"
    src.mkdir()
    # latin-1 é in a comment and a string: the port must keep every byte it does not rewrite.
    (src / "k.cu").write_bytes(b"// caf\xe9\n#include <cuda_runtime.h>\nconst char* s = \"\xff\xfe\";\n"
                               b"void f(void** p) { cudaMalloc(p, 4); }\n")
    port_tree(src, tmp_path / "out", ROCM)
    assert (tmp_path / "out" / "k.cu").read_bytes() == (
        b"// caf\xe9\n#include <hip/hip_runtime.h>\nconst char* s = \"\xff\xfe\";\nvoid f(void** p) { hipMalloc(p, 4); }\n")


def test_symlinks_are_copied_as_links_and_not_written_through(tmp_path: Path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "k.cu").write_text("void f(void** p) { cudaMalloc(p, 4); }\n")
    os.symlink("k.cu", src / "alias.cu")
    result = port_tree(src, tmp_path / "out", ROCM)
    out = tmp_path / "out"
    assert os.readlink(out / "alias.cu") == "k.cu"
    assert b"hipMalloc" in (out / "k.cu").read_bytes()
    assert [f.path for f in result.files if f.status == "failed"] == []


@pytest.mark.skipif(os.geteuid() == 0 if hasattr(os, "geteuid") else True, reason="root reads unreadable files")
def test_unreadable_file_is_reported_not_fatal(tmp_path: Path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "ok.cu").write_text("void f(void** p) { cudaMalloc(p, 4); }\n")
    bad = src / "bad.cu"
    bad.write_text("void g() {}\n")
    bad.chmod(0)
    try:
        result = port_tree(src, tmp_path / "out", ROCM)
    except Exception:  # the copy of an unreadable file is the user's problem, but never a traceback
        pytest.fail("an unreadable file crashed the port")
    finally:
        bad.chmod(0o644)
    assert any("bad.cu" in s.path for s in result.skips) or any(f.status == "failed" for f in result.files)


def test_file_that_fails_is_reported_not_fatal(tmp_path: Path, monkeypatch):
    """A file whose read fails after discovery (deleted, permissions) is a failed entry, the rest is ported."""
    import vado.port.tree_jobs as tree_mod  # the module that reads and ports each file

    src = tmp_path / "src"
    src.mkdir()
    (src / "ok.cu").write_text("void f(void** p) { cudaMalloc(p, 4); }\n")
    (src / "gone.cu").write_text("void g() {}\n")
    real_read = tree_mod.read_file

    def flaky_read(path):
        if str(path).endswith("gone.cu"):
            raise PermissionError(13, "Permission denied")
        return real_read(path)

    monkeypatch.setattr(tree_mod, "read_file", flaky_read)
    result = port_tree(src, tmp_path / "out", ROCM)
    status = {f.path: (f.status, f.error) for f in result.files}
    assert status["gone.cu"] == ("failed", "Permission denied")
    assert status["ok.cu"][0] == "translated"
    assert result.errors and result.errors[0]["what"] == "porting gone.cu failed"


def test_each_ported_file_lands_once_in_the_output(tmp_path: Path):
    """The tree copy leaves ported files out; each is written by its port or copied as it was."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "changed.cu").write_text("void f(void** p) { cudaMalloc(p, 4); }\n")
    (src / "same.cpp").write_text("int g() { return 1; }\n")
    (src / "data.bin").write_bytes(b"\x00\x01")
    (src / "changed.cu").chmod(0o750)
    os.utime(src / "same.cpp", (1_000_000_000, 1_000_000_000))
    result = port_tree(src, tmp_path / "out", ROCM)
    out = tmp_path / "out"
    assert {f.path: f.status for f in result.files} == {"changed.cu": "translated", "same.cpp": "unchanged"}
    assert b"hipMalloc" in (out / "changed.cu").read_bytes()
    assert (out / "changed.cu").stat().st_mode & 0o777 == 0o750  # the source's mode
    assert (out / "same.cpp").read_bytes() == (src / "same.cpp").read_bytes()
    assert (out / "same.cpp").stat().st_mtime == 1_000_000_000  # a copy, with its times
    assert (out / "data.bin").read_bytes() == b"\x00\x01"


@pytest.mark.parametrize("rename", [False, True])
def test_a_file_whose_port_fails_stays_in_the_output_as_it_was(tmp_path: Path, monkeypatch, rename: bool):
    import vado.port.tree_jobs as tree_mod  # the module that reads and ports each file
    from vado.errors import PortError

    src = tmp_path / "src"
    src.mkdir()
    (src / "ok.cu").write_text("void f(void** p) { cudaMalloc(p, 4); }\n")
    (src / "bad.cu").write_text("void g(void** p) { cudaMalloc(p, 8); }\n")
    real = tree_mod.port_bytes

    def failing(path, *args, **kwargs):
        if path == "bad.cu":
            raise PortError("fixes did not converge", "a test", "none")
        return real(path, *args, **kwargs)

    monkeypatch.setattr(tree_mod, "port_bytes", failing)
    result = port_tree(src, tmp_path / "out", ROCM, rename_sources=rename)
    assert {f.path: f.status for f in result.files}["bad.cu"] == "failed"
    assert (tmp_path / "out" / "bad.cu").read_bytes() == (src / "bad.cu").read_bytes()
    assert not (tmp_path / "out" / "bad.hip").exists()
    assert (tmp_path / "out" / ("ok.hip" if rename else "ok.cu")).is_file()


def test_rename_sources_renames_cu_and_updates_build_references(tree: Path, tmp_path: Path):
    out = tmp_path / "out"
    result = port_tree(tree, out, ROCM, options=UNSAFE, rename_sources=True)
    assert not (out / "src" / "main.cu").exists()
    assert (out / "src" / "lane.cuh").exists()  # headers keep their names
    main = (out / "src" / "main.hip").read_text()
    assert "hipMalloc" in main
    cmake = (out / "CMakeLists.txt").read_text()
    assert "add_executable(vecops src/main.hip)" in cmake
    assert "LANGUAGE HIP" not in cmake  # .hip files are HIP by their extension
    make = (out / "Makefile").read_text()
    assert "vecops: src/main.hip src/lane.cuh" in make and "-o $@ src/main.hip" in make
    entry = next(f for f in result.files if f.path == "src/main.cu")
    assert entry.out_path.endswith("main.hip") and "+++ b/src/main.hip" in entry.diff
    # Porting the renamed tree again changes nothing.
    port_tree(out, tmp_path / "out2", ROCM, options=UNSAFE, rename_sources=True)
    assert snapshot(out) == snapshot(tmp_path / "out2")


def test_rename_sources_in_place_keeps_the_cu_as_backup(tree: Path):
    original = (tree / "src" / "main.cu").read_bytes()
    port_tree(tree, None, ROCM, in_place=True, options=UNSAFE, rename_sources=True)
    assert not (tree / "src" / "main.cu").exists()
    assert (tree / "src" / "main.cu.vado-bak").read_bytes() == original
    assert b"hipMalloc" in (tree / "src" / "main.hip").read_bytes()


def test_rename_sources_refuses_to_overwrite_an_existing_hip_file(tree: Path, tmp_path: Path):
    (tree / "src" / "main.hip").write_text("// already here\n")
    with pytest.raises(UsageError, match="cannot rename"):
        port_tree(tree, tmp_path / "out", ROCM, rename_sources=True)
    assert not (tmp_path / "out").exists()


def _hipcc():
    return os.environ.get("VADO_HIPCC") or shutil.which("hipcc")


@pytest.mark.skipif(_hipcc() is None, reason="hipcc not installed (apt-get install hipcc)")
@pytest.mark.parametrize("wave", ["warp32", "native"])
def test_example_port_compiles_for_gfx90a_except_hipblas(tree: Path, tmp_path: Path, wave: str):
    """The unsafe port of examples/vecops compiles, in both wave modes: lane.cuh from a small TU, and main.cu's kernels.

    Debian's hipcc is HIP 5.2, which lacks the *_sync warp builtins a rocm-7.2
    port keeps, so the compiled port is the hip-5.2 one. With --wave native the
    rocm-7.2 port of lane.cuh differs from it only on the lines with those
    builtins; with warp32 both call the same vado_*32 helpers and differ only in
    the helpers' bodies (mask-less builtins on HIP 5.2). main.cu is compiled
    without its hipBLAS include and host main() (Debian has no hipBLAS).
    """
    options = PortOptions(unsafe=True, wave=wave)
    out52, out72 = tmp_path / "p52", tmp_path / "p72"
    port_tree(tree, out52, get_target("hip-5.2"), options=options)
    port_tree(tree, out72, ROCM, options=options)
    lane52 = (out52 / "src" / "lane.cuh").read_text()
    lane72 = (out72 / "src" / "lane.cuh").read_text()
    if wave == "native":
        assert len(lane52.splitlines()) == len(lane72.splitlines())
        assert [a for a, b in zip(lane52.splitlines(), lane72.splitlines()) if a != b and "_sync(" not in b] == []
    else:
        def user_code(text: str) -> str:
            return text[text.rindex("#endif\n"):]  # after the last helper
        assert user_code(lane52) == user_code(lane72)
        assert "vado_ballot_sync32(0xffffffff" in lane72 and "unsigned mask = " in lane72
    main = (out52 / "src" / "main.cu").read_text()
    assert "#include <hipblas/hipblas.h>\n" in main
    kernels = main[: main.index("int main(")].replace("#include <hipblas/hipblas.h>\n", "")
    (tmp_path / "kernels.hip").write_text(kernels)
    (tmp_path / "lane_tu.hip").write_text(
        '#include "lane.cuh"\n__global__ void k(float* o) { o[0] = block_sum(o[threadIdx.x]) + count_positive(o[1]) + lane_id(); }\n')
    env = dict(os.environ, HIP_PLATFORM="amd")
    for tu in ("lane_tu.hip", "kernels.hip"):
        proc = subprocess.run([_hipcc(), "--offload-arch=gfx90a", "-c", "-I", str(out52 / "src"), str(tmp_path / tu),
                               "-o", str(tmp_path / (tu + ".o"))], capture_output=True, text=True, env=env, timeout=300)
        assert proc.returncode == 0, proc.stderr[-3000:]


def test_unchanged_and_ported_files_keep_the_sources_mode_and_unchanged_ones_their_times(tmp_path: Path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "same.h").write_text("int x;\n")
    (src / "k.cu").write_text("void f(void** p) { cudaMalloc(p, 4); }\n")
    (src / "same.h").chmod(0o640)
    (src / "k.cu").chmod(0o750)
    os.utime(src / "same.h", ns=(1_600_000_000_123_456_789, 1_500_000_000_987_654_321))
    result = port_tree(src, tmp_path / "out", ROCM)
    assert {f.path: f.status for f in result.files} == {"same.h": "unchanged", "k.cu": "translated"}
    out = tmp_path / "out"
    assert stat.S_IMODE((out / "same.h").stat().st_mode) == 0o640
    assert stat.S_IMODE((out / "k.cu").stat().st_mode) == 0o750
    assert (out / "same.h").stat().st_mtime_ns == 1_500_000_000_987_654_321
    assert (out / "same.h").read_bytes() == b"int x;\n"


def test_files_vado_does_not_port_are_copied_whole_with_mode_and_times(tmp_path: Path):
    from vado.port.tree_copy import copy_file

    src = tmp_path / "src"
    src.mkdir()
    big = bytes(range(256)) * 5000  # past one sendfile block of 64 KiB
    (src / "input.bin").write_bytes(big)
    (src / "empty.dat").write_bytes(b"")
    (src / "input.bin").chmod(0o604)
    os.utime(src / "input.bin", ns=(1_600_000_000_000_000_001, 1_500_000_000_000_000_002))
    port_tree(src, tmp_path / "out", ROCM)
    out = tmp_path / "out"
    assert (out / "input.bin").read_bytes() == big and (out / "empty.dat").read_bytes() == b""
    assert stat.S_IMODE((out / "input.bin").stat().st_mode) == 0o604
    assert (out / "input.bin").stat().st_mtime_ns == 1_500_000_000_000_000_002
    with pytest.raises(FileExistsError):  # never over an existing file
        copy_file(str(src / "input.bin"), str(out / "input.bin"))


def test_two_workers_port_what_one_does_and_leave_the_collector_as_they_found_it(tmp_path: Path):
    import gc

    src = tmp_path / "src"
    (src / "sub").mkdir(parents=True)
    for k in range(6):
        (src / f"k{k}.cu").write_text(f"__global__ void k{k}(int* p) {{ p[threadIdx.x & 31] = {k}; }}\n"
                                      "void f(void** p) { cudaMalloc(p, 4); }\n")
    (src / "sub" / "h.cuh").write_text("#include <cuda_runtime.h>\n")
    (src / "Makefile").write_text("all:\n\tnvcc -arch=sm_80 k0.cu -o k\n")
    frozen = gc.get_freeze_count()
    one = port_tree(src, tmp_path / "one", ROCM, jobs=1)
    two = port_tree(src, tmp_path / "two", ROCM, jobs=2)
    assert gc.get_freeze_count() == frozen and gc.isenabled()
    assert snapshot(tmp_path / "one") == snapshot(tmp_path / "two")
    strip = lambda r: [(f.path, f.status, f.applied, f.remaining, f.diff) for f in r.files]  # noqa: E731
    assert strip(one) == strip(two) and one.remaining == two.remaining
