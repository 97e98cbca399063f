"""The text report: one verdict line per file (not one per finding), colour only when asked."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

from vado.report import _summary as S
from vado.report.terminal import render_terminal

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "fleet" / "partial" / "kernels"


def test_one_verdict_line_per_file(sample):
    text = render_terminal(sample, width=200)
    files = S.file_summaries(sample)
    arrows = [line for line in text.splitlines() if line.lstrip().startswith("→")]
    assert len(arrows) == len(files) < len(sample.findings)
    # Each file's line carries its worst verdict per target.
    for fs, line in zip(files, arrows):
        for t, v in fs.verdicts.items():
            assert f"{t}: {S.verdict_short(v)}" in line


def test_plain_unless_colour_is_asked(sample):
    assert "\x1b[" not in render_terminal(sample)
    coloured = render_terminal(sample, color=True)
    assert "\x1b[" in coloured
    import re

    assert re.sub(r"\x1b\[[0-9;]*m", "", coloured) == render_terminal(sample)


def _run_on_a_tty(env: dict) -> bytes:
    leader, follower = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "vado", "audit", str(FIXTURE)], stdout=follower,
                            stderr=subprocess.DEVNULL, env=env)
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
    proc.wait()
    os.close(leader)
    return out


def test_cli_colours_a_terminal_and_respects_no_color():
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    env.update(TERM="xterm-256color", COLUMNS="120")
    assert b"\x1b[" in _run_on_a_tty(env)
    assert b"\x1b[" not in _run_on_a_tty({**env, "NO_COLOR": "1"})


def test_cli_piped_output_is_plain():
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    out = subprocess.run([sys.executable, "-m", "vado", "audit", str(FIXTURE)], capture_output=True, env=env).stdout
    assert b"\x1b[" not in out and b"Findings" in out
