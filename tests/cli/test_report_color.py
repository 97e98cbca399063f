"""`vado report AUDIT.json` colours its text report by `vado audit`'s rules: a terminal, NO_COLOR,
FORCE_COLOR, and `--color auto|always|never` over all of them."""

from __future__ import annotations

import os
import pty
import re
import subprocess
import sys
from pathlib import Path

import pytest

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "fleet" / "partial" / "kernels"
ESC = b"\x1b["


def _env(**extra: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "TTY_COMPATIBLE")}
    env.update(TERM="xterm-256color", COLUMNS="120", **extra)
    return env


def _on_a_tty(args: list[str], env: dict) -> bytes:
    leader, follower = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "vado", *args], stdout=follower, stderr=subprocess.DEVNULL, env=env)
    os.close(follower)
    out = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        out += chunk
    assert proc.wait() in (0, 1)
    os.close(leader)
    return out


def _piped(args: list[str], env: dict) -> bytes:
    res = subprocess.run([sys.executable, "-m", "vado", *args], capture_output=True, env=env)
    assert res.returncode in (0, 1), res.stderr
    return res.stdout


@pytest.fixture(scope="module")
def audit_json(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("report-color") / "audit.json"
    res = subprocess.run([sys.executable, "-m", "vado", "audit", str(FIXTURE), "-f", "json", "-o", str(out), "-q"],
                         capture_output=True, env=_env(NO_COLOR="1"))
    assert res.returncode in (0, 1) and out.is_file(), res.stderr
    return out


def _plain(b: bytes) -> str:
    """The text without colour, line ends or the audit's measured times."""
    text = re.sub(r"\x1b\[[0-9;]*m", "", b.decode()).replace("\r\n", "\n")
    return re.sub(r"\d+\.\d+ s\b", "T s", text)


def test_report_colours_a_terminal_as_audit_does(audit_json):
    report = _on_a_tty(["report", str(audit_json)], _env())
    audit = _on_a_tty(["audit", str(FIXTURE)], _env())
    assert ESC in report and ESC in audit
    # The same text as the audit's own report on that terminal but for the measured times.
    assert _plain(report) == _plain(audit)


def test_report_no_color_on_a_terminal(audit_json):
    out = _on_a_tty(["report", str(audit_json)], _env(NO_COLOR="1"))
    assert ESC not in out and b"Findings" in out


def test_report_color_never_on_a_terminal(audit_json):
    out = _on_a_tty(["report", str(audit_json), "--color", "never"], _env())
    assert ESC not in out and b"Findings" in out


def test_report_piped_is_plain_unless_forced(audit_json):
    plain = _piped(["report", str(audit_json)], _env())
    assert ESC not in plain and b"Findings" in plain
    forced = _piped(["report", str(audit_json)], _env(FORCE_COLOR="1"))
    assert ESC in forced
    # NO_COLOR wins over FORCE_COLOR (rich's rule, audit's too); --color always wins over both.
    assert ESC not in _piped(["report", str(audit_json)], _env(FORCE_COLOR="1", NO_COLOR="1"))
    assert ESC in _piped(["report", str(audit_json), "--color", "always"], _env(NO_COLOR="1"))


def test_audit_and_report_agree_piped(audit_json):
    for env, flag in ((_env(), []), (_env(FORCE_COLOR="1"), []), (_env(NO_COLOR="1"), ["--color", "always"]),
                      (_env(FORCE_COLOR="1"), ["--color", "never"])):
        a = _piped(["audit", str(FIXTURE), *flag], env)
        r = _piped(["report", str(audit_json), *flag], env)
        assert (ESC in a) == (ESC in r), (env.get("FORCE_COLOR"), env.get("NO_COLOR"), flag)


def test_report_to_a_file_is_plain_whatever_the_colour(audit_json, tmp_path):
    out = tmp_path / "r.txt"
    subprocess.run([sys.executable, "-m", "vado", "report", str(audit_json), "-o", str(out), "--color", "always"],
                   check=True, capture_output=True, env=_env(FORCE_COLOR="1"))
    assert b"\x1b[" not in out.read_bytes() and b"Findings" in out.read_bytes()


def test_markdown_is_never_coloured(audit_json):
    assert ESC not in _piped(["report", str(audit_json), "-f", "markdown", "--color", "always"], _env())
