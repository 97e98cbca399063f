"""Issue 18: subprocesses are bounded in time and output; workers die with their parent."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from vado.verify.sandbox import MAX_OUTPUT, Limits, run_limited

linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc and prctl are Linux's")


def _alive_with(marker: str) -> list[int]:
    out = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            cmd = Path(f"/proc/{name}/cmdline").read_bytes()
            state = Path(f"/proc/{name}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker.encode() in cmd and state != "Z":
            out.append(int(name))
    return out


@linux
def test_timeout_kills_an_escaped_grandchild():
    marker = f"vado-escape-{os.getpid()}-{time.time_ns()}"
    script = f'setsid sh -c "exec -a {marker} sleep 300" & (setsid sh -c "exec -a {marker}b sleep 300" &); sleep 300'
    started = time.monotonic()
    o = run_limited(["bash", "-c", script], limits=Limits(timeout_s=1.5))
    assert o.timed_out and time.monotonic() - started < 20
    time.sleep(0.2)
    assert _alive_with(marker) == []


@linux
def test_command_that_leaves_a_daemon_behind_returns_and_the_daemon_dies():
    marker = f"vado-daemon-{os.getpid()}-{time.time_ns()}"
    o = run_limited(["bash", "-c", f'(setsid bash -c "exec -a {marker} sleep 300" &); echo done'], limits=Limits(timeout_s=30))
    assert o.ok and o.stdout == "done\n" and o.duration_s < 10
    time.sleep(0.2)
    assert _alive_with(marker) == []


def test_output_is_capped_while_reading():
    code = "import sys\nfor _ in range(200): sys.stdout.write('x' * 1000000)\nsys.stdout.write('THE-END')"
    o = run_limited([sys.executable, "-c", code], limits=Limits(timeout_s=120))
    assert o.ok
    assert len(o.stdout) < MAX_OUTPUT + 200
    assert o.stdout.endswith("THE-END") and "output cut" in o.stdout.splitlines()[0]


def test_exit_status_and_signals_are_the_commands():
    assert run_limited(["sh", "-c", "exit 7"]).returncode == 7
    o = run_limited(["sh", "-c", "kill -SEGV $$"])
    assert o.returncode == -signal.SIGSEGV and o.why() == "killed by SIGSEGV"
    assert run_limited(["cat"], stdin=b"in\n").stdout == "in\n"


def test_missing_program_is_a_toolchain_error(tmp_path: Path):
    from vado.errors import ToolchainError

    with pytest.raises(ToolchainError, match="cannot start"):
        run_limited(["vado-no-such-program-xyz"])
    with pytest.raises(ToolchainError):
        run_limited([str(tmp_path / "nothing")])


@linux
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_port_workers_die_with_their_parent(tmp_path: Path, sig: int):
    src = tmp_path / "t"
    src.mkdir()
    body = "".join(f"__global__ void k{i}(float*a){{ a[0] = __shfl_down_sync(0xffffffff, a[0], 16); }}\n" for i in range(400))
    for i in range(40):
        (src / f"f{i}.cu").write_text(body)
    proc = subprocess.Popen([sys.executable, "-c", "from vado.cli.app import main; main()", "port", str(src),
                             "-o", str(tmp_path / "o"), "-j", "2", "-q"])
    workers: list[int] = []
    deadline = time.time() + 60
    while time.time() < deadline and len(workers) < 2:
        workers = [int(p) for p in os.listdir("/proc") if p.isdigit() and _ppid(int(p)) == proc.pid]
        time.sleep(0.02)
    assert workers, "no worker started"
    proc.send_signal(sig)
    proc.wait()
    time.sleep(1.0)
    assert [w for w in workers if _running(w)] == []


def _ppid(pid: int) -> int:
    try:
        data = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return -1
    return int(data[data.rindex(b")") + 2:].split()[1])


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_die_with_parent_exits_an_orphan():
    code = ("import os,sys\nfrom vado.procs import die_with_parent\n"
            "die_with_parent(os.getppid() + 1)\nsys.exit(0)")
    assert subprocess.run([sys.executable, "-c", code]).returncode == 1


def test_run_capped_behaves_like_subprocess_run():
    from vado.verify.sandbox import run_capped

    done = run_capped([sys.executable, "-c", "import sys; print('out'); print('err', file=sys.stderr); sys.exit(3)"],
                      timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (3, "out\n", "err\n")
    with pytest.raises(subprocess.TimeoutExpired):
        run_capped(["sleep", "30"], timeout=0.5)
    with pytest.raises(FileNotFoundError):
        run_capped(["vado-no-such-program-xyz"], timeout=5)
    big = run_capped([sys.executable, "-c", "import sys; sys.stdout.write('z' * 50_000_000)"], timeout=120)
    assert big.returncode == 0 and len(big.stdout) < MAX_OUTPUT + 200


def test_benchmarked_command_output_is_kept_on_disk_and_cut(monkeypatch):
    from vado.bench import command

    monkeypatch.setattr(command, "MAX_KEPT_OUTPUT", 1000)
    done = command._run_timed([sys.executable, "-c", "import sys; sys.stdout.write('a' * 100000 + 'score: 7')"],
                              60, dict(os.environ), None)
    assert done.returncode == 0 and len(done.stdout) == 1000 and done.stdout.endswith("score: 7")
    with pytest.raises(subprocess.TimeoutExpired):
        command._run_timed(["sleep", "30"], 0.5, dict(os.environ), None)
