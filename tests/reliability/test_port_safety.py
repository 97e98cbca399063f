"""Issue 18: a port never leaves a half-written tree, backups are whole, in-place works from '.'."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from vado.cli.app import app
from vado.knowledge.targets import get_target
from vado.port import apply, tree, tree_jobs

ROCM = get_target("rocm-7.2")
KERNEL = "#include <cuda_runtime.h>\n__global__ void k(){}\nint main(){cudaDeviceSynchronize();}\n"


def run(*args: str):
    return CliRunner().invoke(app, list(args))


@pytest.fixture
def src(tmp_path: Path) -> Path:
    d = tmp_path / "t"
    d.mkdir()
    (d / "a.cu").write_text(KERNEL)
    (d / "b.cu").write_text(KERNEL.replace("k", "k2"))
    (d / "README").write_text("docs\n")
    return d


def test_in_place_with_output_is_a_usage_error(src: Path, tmp_path: Path):
    r = run("port", str(src), "-o", str(tmp_path / "o"), "--in-place")
    assert r.exit_code == 2 and "exclude each other" in r.output
    assert (src / "a.cu").read_text() == KERNEL and not (tmp_path / "o").exists()


@pytest.mark.parametrize("how", ["dot", "relative"])
def test_in_place_from_dot_or_relative_root(src: Path, monkeypatch, how: str):
    if how == "dot":
        monkeypatch.chdir(src)
        root = "."
    else:
        (src.parent / "elsewhere").mkdir()
        monkeypatch.chdir(src.parent / "elsewhere")
        root = "../t"
    r = run("port", root, "--in-place", "-q")
    assert r.exit_code in (0, 1), r.output
    assert "hip_runtime.h" in (src / "a.cu").read_text()
    assert (src / "a.cu.vado-bak").read_text() == KERNEL


def test_interrupted_port_leaves_no_output(src: Path, tmp_path: Path, monkeypatch):
    """A port that dies half way (here: an exception in the third file's write) leaves no OUT at all."""
    calls = []
    real = apply.write_new

    def failing_write_new(path, data, **kw):
        calls.append(path)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(path, data, **kw)

    monkeypatch.setattr(tree_jobs, "write_new", failing_write_new)
    out = tmp_path / "o"
    with pytest.raises(KeyboardInterrupt):
        tree.port_tree(src, out, ROCM)
    assert not out.exists()
    leftovers = [p.name for p in tmp_path.iterdir() if p.name != "t"]
    assert len(leftovers) == 1 and leftovers[0].startswith(".o.vado-partial-")  # hidden, never OUT itself
    # The finished port appears at once, complete.
    monkeypatch.setattr(tree_jobs, "write_new", real)
    result = tree.port_tree(src, out, ROCM)
    assert sorted(p.name for p in out.iterdir()) == ["README", "a.cu", "b.cu"]
    assert all(f.out_path.startswith(str(out)) for f in result.files)


def test_killed_port_leaves_no_truncated_output(src: Path, tmp_path: Path):
    """SIGKILL during the port: OUT does not exist (only a hidden .OUT.vado-partial-* may remain)."""
    for i in range(300):
        (src / f"f{i}.cu").write_text(KERNEL * 50)
    out = tmp_path / "o"
    proc = subprocess.Popen([sys.executable, "-c", "from vado.cli.app import main; main()", "port",
                             str(src), "-o", str(out), "-q"])
    deadline = time.time() + 60
    while time.time() < deadline and not any("vado-partial" in p.name for p in tmp_path.iterdir()):
        time.sleep(0.01)
    time.sleep(0.3)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    if out.exists():  # the port finished before the kill: then it is complete
        assert len(list(out.iterdir())) == 303
    partial = [p for p in tmp_path.iterdir() if "vado-partial" in p.name]
    assert all(p.name.startswith(".o.vado-partial-") for p in partial)


def test_second_port_into_same_output_fails_cleanly(src: Path, tmp_path: Path, monkeypatch):
    out = tmp_path / "o"
    real_publish = tree.publish

    def publish_after_rival(stage, final, files):
        # Another port into the same new directory finishes first.
        shutil.copytree(src, final, dirs_exist_ok=True)
        return real_publish(stage, final, files)

    monkeypatch.setattr(tree, "publish", publish_after_rival)
    from vado.errors import UsageError

    with pytest.raises(UsageError, match="filled while this port ran"):
        tree.port_tree(src, out, ROCM)
    assert sorted(p.name for p in out.iterdir()) == ["README", "a.cu", "b.cu"]
    assert (out / "a.cu").read_text() == KERNEL  # the rival's tree, untouched
    assert not [p for p in tmp_path.iterdir() if "vado-partial" in p.name]


def test_unreadable_file_is_a_skip_not_a_traceback(src: Path, tmp_path: Path, monkeypatch):
    """As a non-root user a file may be unreadable: the copy goes on and reports it."""
    (src / "secret.bin").write_bytes(b"\0" * 10)
    real_open = os.open

    def deny(path, flags, *a, **k):
        if str(path).endswith("secret.bin") and not flags & (os.O_WRONLY | os.O_RDWR):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, flags, *a, **k)

    monkeypatch.setattr(os, "open", deny)
    result = tree.port_tree(src, tmp_path / "o", ROCM)
    assert any(s.path == "secret.bin" and "Permission denied" in s.detail for s in result.skips)
    assert (tmp_path / "o" / "a.cu").is_file() and not (tmp_path / "o" / "secret.bin").exists()


def test_backup_is_never_short(tmp_path: Path, monkeypatch):
    """The backup gets its name only when it is complete (written to a temp file, then linked)."""
    target = tmp_path / "k.cu"
    target.write_bytes(b"original\n")
    seen = []
    real_link = os.link

    def watching_link(a, b, *args, **kw):
        seen.append((Path(a).read_bytes(), os.path.lexists(b)))
        return real_link(a, b, *args, **kw)

    monkeypatch.setattr(os, "link", watching_link)
    made = apply.write_atomic(target, b"ported\n", backup=True)
    assert made.read_bytes() == b"original\n" and target.read_bytes() == b"ported\n"
    assert seen == [(b"original\n", False)]
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".vado-tmp")]


def test_backup_interrupted_before_link_leaves_no_backup(tmp_path: Path, monkeypatch):
    target = tmp_path / "k.cu"
    target.write_bytes(b"original\n")

    def killed(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "link", killed)
    with pytest.raises(KeyboardInterrupt):
        apply.write_atomic(target, b"ported\n", backup=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["k.cu"]
    assert target.read_bytes() == b"original\n"


def test_port_into_existing_empty_directory_is_staged_inside_it(src: Path, tmp_path: Path, monkeypatch):
    """An existing empty OUT (say a mount point) is filled at the end, from a hidden stage inside it."""
    out = tmp_path / "o"
    out.mkdir()
    seen = []
    real_port_many = tree_jobs._port_one

    def watch(job, *a, **k):
        seen.append(sorted(os.listdir(out)))
        return real_port_many(job, *a, **k)

    monkeypatch.setattr(tree_jobs, "_port_one", watch)
    tree.port_tree(src, out, ROCM)
    assert all(len(names) == 1 and names[0].startswith(".vado-partial-") for names in seen)
    assert sorted(os.listdir(out)) == ["README", "a.cu", "b.cu"]


def test_rival_in_existing_empty_directory_is_detected(src: Path, tmp_path: Path, monkeypatch):
    out = tmp_path / "o"
    out.mkdir()
    real_publish = tree.publish

    def publish_after_rival(stage, final, files):
        (final / "a.cu").write_text("rival\n")
        return real_publish(stage, final, files)

    monkeypatch.setattr(tree, "publish", publish_after_rival)
    from vado.errors import UsageError

    with pytest.raises(UsageError, match="filled while this port ran"):
        tree.port_tree(src, out, ROCM)
    assert os.listdir(out) == ["a.cu"] and (out / "a.cu").read_text() == "rival\n"
