"""Issue 27 (item 3): an in-place port killed at any point is repaired by running it again.

Each trial forks a port that dies (``os._exit``, as SIGKILL would leave it: no clean-up, no
``finally``) at its Nth file-system change, then runs the port again and checks that the tree
is what one uninterrupted port makes: every ``.cu`` renamed, no build file or include naming a
``.cu`` that moved, each original kept in a backup, and none of vado's temp files or journal left.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from vado.errors import UsageError
from vado.knowledge.targets import get_target
from vado.port import inplace
from vado.port.file import PortOptions
from vado.port.tree import port_tree, remove_stale_stages
from vado.safefs import temp_name

ROCM = get_target("rocm-7.2")
UNSAFE = PortOptions(unsafe=True)
KERNEL = '#include <cuda_runtime.h>\n#include "{inc}"\n__global__ void k{n}(float* p){{ p[0] = {n}; }}\n' \
         'void run{n}(float* p){{ cudaMalloc((void**)&p, 4); k{n}<<<1, 1>>>(p); cudaDeviceSynchronize(); }}\n'


def _make(root: Path) -> dict[str, bytes]:
    (root / "src").mkdir(parents=True)
    (root / "src" / "common.cuh").write_text("#pragma once\n")
    for n, name in enumerate(["a", "b", "c"]):
        (root / "src" / f"{name}.cu").write_text(KERNEL.format(inc="common.cuh", n=n))
    (root / "src" / "d.cu").write_text('#include "a.cu"\nvoid d(){}\n')  # a quoted include of a renamed source
    (root / "CMakeLists.txt").write_text("cmake_minimum_required(VERSION 3.18)\nproject(p LANGUAGES CXX CUDA)\n"
                                         "add_executable(app src/a.cu src/b.cu src/c.cu)\n")
    # Sorted after the sources: a run killed after renaming them has not rewritten these yet.
    (root / "src" / "z.mk").write_text("SRCS = a.cu b.cu c.cu\napp: $(SRCS)\n\tnvcc -o $@ $(SRCS)\n")
    (root / "src" / "zz").mkdir()
    (root / "src" / "zz" / "CMakeLists.txt").write_text("add_library(z ../b.cu ../c.cu)\n")
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def _state(root: Path) -> dict[str, bytes]:
    """The tree without backups (their numbering depends on when a run died)."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and ".vado-bak" not in p.name}


_MUTATORS = ("replace", "rename", "unlink", "link", "write", "fsync", "mkdir", "symlink")


def _port_killed_at(root: Path, n: int, backup: bool, rename: bool = True) -> bool:
    """Fork a port of ``root`` that dies at its ``n``th file-system change; whether it died."""
    pid = os.fork()
    if pid == 0:  # the child: count the changes, die at the nth
        try:
            count = [0]

            def counting(real):
                def call(*args, **kwargs):
                    count[0] += 1
                    if count[0] == n:
                        os._exit(137)
                    return real(*args, **kwargs)
                return call

            for name in _MUTATORS:
                setattr(os, name, counting(getattr(os, name)))
            port_tree(root, None, ROCM, in_place=True, backup=backup, options=UNSAFE, rename_sources=rename, force=True)
            os._exit(0)
        except BaseException:
            os._exit(3)
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    assert code in (0, 137), f"the port failed on its own (exit {code}) at change {n}"
    return code == 137


@pytest.mark.parametrize(("backup", "rename"), [(True, True), (False, True), (True, False)])
def test_in_place_port_killed_at_every_point_is_repaired_by_a_rerun(tmp_path: Path, backup: bool, rename: bool):
    clean = tmp_path / "clean"
    originals = _make(clean)
    port_tree(clean, None, ROCM, in_place=True, backup=backup, options=UNSAFE, rename_sources=rename, force=True)
    want = _state(clean)
    if rename:
        assert "src/a.hip" in want and "src/a.cu" not in want and b"a.cu" not in want["src/z.mk"]
    else:  # a half-ported tree (CMake saying HIP) must not pass for a project with its own ROCm build
        assert b"hip" in want["src/z.mk"] and b"hip_runtime" in want["src/common.cuh"]

    trials = 0
    for n in range(1, 400):
        root = tmp_path / f"t{n}"
        _make(root)
        if not _port_killed_at(root, n, backup, rename):
            break  # the port finished before its nth change: every point was tried
        trials += 1
        result = port_tree(root, None, ROCM, in_place=True, backup=backup, options=UNSAFE, rename_sources=rename,
                           force=True)
        assert not result.errors, (n, result.errors)
        assert _state(root) == want, f"killed at change {n}, the re-run left a different tree"
        names = [p.name for p in root.rglob("*")]
        assert not [x for x in names if x.endswith(".vado-tmp") or x == inplace.JOURNAL], (n, names)
        if backup:  # every original is kept whole in a backup
            for rel, data in originals.items():
                if rel.endswith(".cu") and rename:
                    backups = [p.read_bytes() for p in (root / rel).parent.glob(Path(rel).name + ".vado-bak*")]
                    assert data in backups, (n, rel)
    print(f"{trials} kill points, each repaired by a re-run")
    assert trials >= 10


def test_in_place_journal_survives_a_failed_file_and_is_not_a_user_file(tmp_path: Path):
    root = tmp_path / "t"
    _make(root)
    (root / inplace.JOURNAL).write_text("not json\n")
    with pytest.raises(UsageError, match="journal"):
        port_tree(root, None, ROCM, in_place=True, rename_sources=True)
    assert (root / "src" / "a.cu").exists()  # refused before any write


def test_journal_keeps_the_amd_configuration_the_interrupted_port_judged(tmp_path: Path):
    # A half-ported tree may no longer show the project's own HIP option: the re-run judges the
    # branches with the macros the first run had (vado.scan.scope.amd_defines).
    inplace.write_journal(tmp_path, {"a.cu": "a.hip"}, ["a.cu", "b.cuh"], ("MB_USE_HIP", "MB_HIP_GRAPHS"))
    journal = inplace.read_journal(tmp_path)
    assert journal is not None and journal.amd_defines == ("MB_USE_HIP", "MB_HIP_GRAPHS")
    assert journal.renames == {"a.cu": "a.hip"} and journal.files == {"a.cu", "b.cuh"}
    (tmp_path / inplace.JOURNAL).write_text('{"vado_port_journal": 1, "renames": [], "files": [], "amd_defines": 7}')
    with pytest.raises(UsageError):
        inplace.read_journal(tmp_path)


def test_journal_link_is_refused(tmp_path: Path):
    root = tmp_path / "t"
    _make(root)
    (tmp_path / "elsewhere.json").write_text("{}")
    (root / inplace.JOURNAL).symlink_to(tmp_path / "elsewhere.json")
    with pytest.raises(UsageError, match="symlink"):
        port_tree(root, None, ROCM, in_place=True, rename_sources=True)
    assert (tmp_path / "elsewhere.json").read_text() == "{}"


def test_stale_temps_are_removed_but_user_files_and_live_temps_stay(tmp_path: Path):
    import fcntl

    root = tmp_path / "t"
    _make(root)
    stale = [root / "src" / temp_name(), root / "src" / ".a.cu.0123abcd.vado-tmp", root / temp_name()]
    for p in stale:
        p.write_text("partial")
    live = root / "src" / temp_name()
    live.write_text("being written")
    mine = [root / "src" / "notes.vado-tmp", root / "src" / ".vado.keep.vado-tmp"]
    for p in mine:
        p.write_text("user")
    fd = os.open(live, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        port_tree(root, None, ROCM, in_place=True)
    finally:
        os.close(fd)
    assert not any(p.exists() for p in stale)
    assert live.exists() and all(p.read_text() == "user" for p in mine)


def test_stale_staging_directories_of_killed_ports_are_removed(tmp_path: Path):
    import fcntl

    src = tmp_path / "src"
    _make(src)
    dead = tmp_path / ".o.vado-partial-0123abcd"
    (dead / "deep").mkdir(parents=True)
    (dead / "deep" / "x.cu").write_text("half")
    alive = tmp_path / ".o.vado-partial-89abcdef"
    alive.mkdir()
    user = tmp_path / ".o.vado-partial-notes"
    user.mkdir()
    link = tmp_path / ".o.vado-partial-feedface"
    link.symlink_to(src)
    fd = os.open(alive, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        port_tree(src, tmp_path / "o", ROCM)
    finally:
        os.close(fd)
    assert not dead.exists() and alive.exists() and user.exists() and link.is_symlink()
    assert (src / "src" / "a.cu").exists() and (tmp_path / "o" / "src" / "a.cu").exists()
    # Inside an empty OUT (a mount point) as well.
    out = tmp_path / "o2"
    (out / ".vado-partial-00000000").mkdir(parents=True)
    assert remove_stale_stages(out) == [".vado-partial-00000000"] and list(out.iterdir()) == []


def test_long_file_names_are_ported_in_place(tmp_path: Path):
    root = tmp_path / "t"
    root.mkdir()
    name = "k" * 240 + ".cu"
    (root / name).write_text(KERNEL.format(inc="x.h", n=1))
    result = port_tree(root, None, ROCM, in_place=True)
    assert not result.errors, result.errors
    assert b"hip" in (root / name).read_bytes()
    backups = [p for p in root.iterdir() if ".vado-bak" in p.name]
    assert len(backups) == 1 and backups[0].read_text() == KERNEL.format(inc="x.h", n=1)
    again = port_tree(root, None, ROCM, in_place=True)  # the backup is never ported, the port is stable
    assert not again.errors and len([p for p in root.iterdir() if ".vado-bak" in p.name]) == 1


# --- --no-backup and version control -------------------------------------------------------------


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.email=t@t", "-c", "user.name=t", *args], cwd=root, check=True,
                   capture_output=True)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "r"
    _make(root)
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "init")
    return root


def test_no_backup_rewrites_committed_unchanged_files(repo: Path):
    result = port_tree(repo, None, ROCM, in_place=True, backup=False)
    assert not result.errors and b"hip" in (repo / "src" / "a.cu").read_bytes()
    assert not list(repo.rglob("*.vado-bak"))


@pytest.mark.parametrize("change", ["modified", "untracked"])
def test_no_backup_refuses_what_git_does_not_hold(repo: Path, change: str):
    if change == "modified":
        (repo / "src" / "b.cu").write_text((repo / "src" / "b.cu").read_text() + "// local edit\n")
    else:
        (repo / "src" / "new.cu").write_text(KERNEL.format(inc="x.h", n=9))
    before = _state(repo)
    with pytest.raises(UsageError, match="without a backup"):
        port_tree(repo, None, ROCM, in_place=True, backup=False)
    assert _state(repo) == before
    result = port_tree(repo, None, ROCM, in_place=True, backup=False, force=True)
    assert not result.errors and _state(repo) != before


def test_no_backup_without_git_is_refused_unless_forced(tmp_path: Path):
    root = tmp_path / "plain"
    _make(root)
    before = _state(root)
    with pytest.raises(UsageError, match="without a backup") as info:
        port_tree(root, None, ROCM, in_place=True, backup=False)
    assert "git" in info.value.why and _state(root) == before


def test_cli_no_backup_refusal_exits_2(tmp_path: Path):
    from typer.testing import CliRunner

    from vado.cli.app import app

    root = tmp_path / "plain"
    _make(root)
    r = CliRunner().invoke(app, ["port", str(root), "--in-place", "--no-backup", "-q"])
    assert r.exit_code == 2 and "--force" in r.output
    r = CliRunner().invoke(app, ["port", str(root), "--in-place", "--no-backup", "--force", "-q"])
    assert r.exit_code in (0, 1) and b"hip" in (root / "src" / "a.cu").read_bytes()
