"""Issue 27 (item 1): a full disk during ``vado port -o`` abandons the port: nothing under OUT, exit 3."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from typer.testing import CliRunner

from vado.cli.app import app
from vado.errors import PortError
from vado.knowledge.targets import get_target
from vado.port import tree, tree_copy

ROCM = get_target("rocm-7.2")
KERNEL = "#include <cuda_runtime.h>\n__global__ void k(){}\nint main(){cudaDeviceSynchronize();}\n"


@pytest.fixture
def small_fs(tmp_path: Path):
    """A 256 KiB tmpfs of our own (root only; skipped where mounting is not possible)."""
    mnt = tmp_path / f"fs-{uuid.uuid4().hex[:6]}"
    mnt.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k,nr_inodes=4096", "tmpfs", str(mnt)],
                       capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {r.stderr.strip()}")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], check=False)


def _tree(root: Path, *, big_copy: bool, big_port: bool) -> Path:
    root.mkdir()
    for i in range(8):
        (root / f"k{i}.cu").write_text(KERNEL + ("// padding\n" * 4000 if big_port else ""))
    (root / "sub").mkdir()
    (root / "sub" / "data.bin").write_bytes(os.urandom(600_000 if big_copy else 100))
    (root / "README").write_text("docs\n")
    return root


@pytest.mark.parametrize("where", ["copy", "port"])
def test_full_disk_abandons_the_port(small_fs: Path, tmp_path: Path, where: str):
    src = _tree(tmp_path / "src", big_copy=where == "copy", big_port=where == "port")
    out = small_fs / "out"
    r = CliRunner().invoke(app, ["port", str(src), "-o", str(out), "-q"])
    assert r.exit_code == 3, r.output
    assert "No space left on device" in r.output
    assert not out.exists()
    assert os.listdir(small_fs) == []  # the stage is gone too: the space is given back


def test_full_disk_into_an_existing_empty_out(small_fs: Path, tmp_path: Path):
    """OUT is the (empty) mount point itself: the stage inside it is removed, OUT stays empty."""
    src = _tree(tmp_path / "src", big_copy=True, big_port=False)
    r = CliRunner().invoke(app, ["port", str(src), "-o", str(small_fs), "-q"])
    assert r.exit_code == 3, r.output
    assert os.listdir(small_fs) == []


def test_port_that_fits_still_publishes(small_fs: Path, tmp_path: Path):
    src = _tree(tmp_path / "src", big_copy=False, big_port=False)
    out = small_fs / "out"
    r = CliRunner().invoke(app, ["port", str(src), "-o", str(out), "-q"])
    assert r.exit_code in (0, 1), r.output
    # the CLI also writes its port report into OUT (vado.cli.port)
    assert sorted(p.name for p in out.iterdir()) == ["README", *[f"k{i}.cu" for i in range(8)], "sub",
                                                     "vado-port-report.md"]


@pytest.mark.parametrize("nth", [1, 3, 9, 10])
def test_injected_enospc_at_any_write_abandons_the_port(tmp_path: Path, monkeypatch, nth: int):
    """The same without a mount: the Nth os.write (or sendfile) of the port fails with ENOSPC."""
    src = _tree(tmp_path / "src", big_copy=False, big_port=False)
    calls = {"n": 0}

    def failing(real):
        def call(*args):
            calls["n"] += 1
            if calls["n"] == nth:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            return real(*args)
        return call

    monkeypatch.setattr(os, "write", failing(os.write))
    monkeypatch.setattr(tree_copy, "_SENDFILE", None)  # every copied byte goes through os.write
    out = tmp_path / "out"
    with pytest.raises(PortError, match="No space left") as info:
        tree.port_tree(src, out, ROCM)
    assert info.value.exit_code == 3
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["src"]


def test_deep_tree_is_ported_without_recursion_error(tmp_path: Path):
    """A tree 1,500 directories deep (past Python's recursion limit) is copied and ported."""
    src = tmp_path / "src"
    src.mkdir()
    d = src
    for _ in range(1500):
        d = d / "d"
        os.mkdir(d)  # Path.mkdir(parents=True) would recurse itself
    (d / "k.cu").write_text(KERNEL)
    (src / "top.cu").write_text(KERNEL)
    out = tmp_path / "out"
    try:
        proc = subprocess.run([sys.executable, "-c", "from vado.cli.app import main; main()", "port", str(src), "-o", str(out),
                               "-q"], capture_output=True, text=True, timeout=300)
        assert proc.returncode in (0, 1), proc.stderr[-2000:]
        assert "Traceback" not in proc.stderr
        leaf = out.joinpath(*["d"] * 1500, "k.cu")
        assert "hip_runtime.h" in leaf.read_text() and "hip_runtime.h" in (out / "top.cu").read_text()
    finally:
        # pytest's own clean-up (shutil.rmtree) recurses per level and cannot remove these.
        subprocess.run(["rm", "-rf", str(src), str(out)], check=False)
