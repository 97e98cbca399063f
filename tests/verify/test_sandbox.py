import sys

import pytest

from vado.errors import ToolchainError
from vado.verify.sandbox import MAX_OUTPUT, Limits, run_limited


def test_ok_and_output():
    out = run_limited([sys.executable, "-c", "print('hi'); import sys; sys.stderr.write('err')"], limits=Limits(30))
    assert out.ok and out.stdout == "hi\n" and out.stderr == "err" and out.why() == ""


def test_exit_code_is_kept():
    out = run_limited([sys.executable, "-c", "raise SystemExit(7)"], limits=Limits(30))
    assert out.returncode == 7 and not out.ok and out.why() == "exit code 7"


def test_timeout_kills_the_process_group():
    code = "import subprocess, sys, time; subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']); time.sleep(60)"
    out = run_limited([sys.executable, "-c", code], limits=Limits(timeout_s=1.0))
    assert out.timed_out and out.why() == "timed out" and out.duration_s < 20


def test_file_size_limit(tmp_path):
    code = f"open({str(tmp_path / 'big')!r}, 'wb').write(b'x' * (3 * 1024 * 1024))"
    out = run_limited([sys.executable, "-c", code], limits=Limits(timeout_s=30, file_mb=1))
    assert not out.ok  # SIGXFSZ or an OSError: the file may not grow past 1 MiB


def test_output_is_capped(tmp_path):
    out = run_limited([sys.executable, "-c", f"print('y' * {MAX_OUTPUT * 2})"], limits=Limits(30))
    assert out.ok and len(out.stdout) < MAX_OUTPUT + 200 and out.stdout.startswith("[... output cut")


def test_missing_program_raises():
    with pytest.raises(ToolchainError) as exc:
        run_limited(["/nonexistent/vado-tool"], limits=Limits(5))
    assert "cannot start" in exc.value.what
