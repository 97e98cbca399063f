"""Progress bars of port, verify and plan: drawn on a terminal's stderr, never with -q, JSON output or a pipe."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from vado.cli.app import app

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "verify"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "plan"))
from _verify_helpers import requires_cc  # noqa: E402
from plan_helpers import FLEET  # noqa: E402

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "vecops"


@pytest.fixture
def terminal(monkeypatch):
    """Make rich treat stderr as a terminal (https://rich.readthedocs.io: TTY_COMPATIBLE)."""
    def use(on: bool) -> None:
        if on:
            monkeypatch.setenv("TTY_COMPATIBLE", "1")
        else:
            monkeypatch.delenv("TTY_COMPATIBLE", raising=False)
            monkeypatch.delenv("FORCE_COLOR", raising=False)
    return use


def _port(tmp_path: Path, name: str, *args: str):
    return CliRunner().invoke(app, ["port", str(EXAMPLE), "-o", str(tmp_path / name), *args])


def test_port_draws_a_bar_on_a_terminal_only(tmp_path: Path, terminal):
    terminal(False)
    plain = _port(tmp_path, "out1")
    # Not a terminal: stderr holds the summary (what was done, what next) and nothing else, as before the bar existed.
    assert re.match(r"ported \d+ files \(\d+\.\d\d MB\) in \d+\.\d\ds into ", plain.stderr), plain.stderr
    assert "\r" not in plain.stderr and "\x1b" not in plain.stderr and "porting" not in plain.stderr
    assert "next: vado verify" in plain.stderr
    terminal(True)
    res = _port(tmp_path, "out2")
    assert "porting" in res.stderr and re.search(r"(\d+)/\1", res.stderr), res.stderr
    assert res.stdout.replace("out2", "out1") == plain.stdout  # the bar is on stderr only
    assert "porting" not in _port(tmp_path, "quiet", "-q").stderr
    json_run = _port(tmp_path, "json", "-f", "json")
    assert "porting" not in json_run.stderr and json_run.stdout.lstrip().startswith("{")


def test_plan_draws_a_bar_on_a_terminal_only(tmp_path: Path, terminal):
    repos = [str(FLEET / r) for r in ("portable", "partial")]
    terminal(False)
    res = CliRunner().invoke(app, ["plan", *repos, "--no-cache"])
    assert res.exit_code == 0 and "auditing repositories" not in res.stderr
    assert res.stderr.startswith("planned 2 repositories")
    terminal(True)
    res = CliRunner().invoke(app, ["plan", *repos, "--no-cache"])
    assert res.exit_code == 0 and "auditing repositories" in res.stderr and "2/2" in res.stderr
    res = CliRunner().invoke(app, ["plan", *repos, "--no-cache", "-f", "json"])
    assert res.exit_code == 0 and "auditing repositories" not in res.stderr
    res = CliRunner().invoke(app, ["plan", *repos, "--no-cache", "-q"])
    assert res.exit_code == 0 and res.stderr == ""


@requires_cc
def test_verify_draws_a_bar_on_a_terminal_only(tmp_path: Path, terminal, monkeypatch):
    monkeypatch.setenv("VADO_CACHE_DIR", str(tmp_path / "cache"))
    src = tmp_path / "p.c"
    src.write_text('#include <stdio.h>\n#include <stdlib.h>\nint main(int c, char** v) { printf("%d\\n", atoi(v[1])); return 0; }\n')
    prog = tmp_path / "p"
    subprocess.run([shutil.which("cc"), str(src), "-o", str(prog)], check=True, timeout=120)
    args = ["verify", str(tmp_path), "--target", "hip-5.2", "--no-compile", "--no-triton", "--run", "{bin} {n}",
            "--original-bin", str(prog), "--port-bin", str(prog), "--shapes", "63,64"]
    terminal(False)
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0 and res.stderr == "8 evidence records; verification passed\n", res.stderr
    terminal(True)
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0 and "verifying" in res.stderr and "2/2" in res.stderr
    res = CliRunner().invoke(app, [*args, "-f", "json"])
    assert res.exit_code == 0 and "verifying" not in res.stderr
