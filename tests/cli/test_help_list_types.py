"""Help shows list-typed parameters as ``<path>...`` (one value, more may follow), never ``<list[Path]>``."""

from __future__ import annotations

import subprocess
import sys

import pytest
from typer.testing import CliRunner

from vado.cli.app import app

from test_help_choices import COMMANDS


@pytest.mark.parametrize("argv,cmd", COMMANDS, ids=[" ".join(a) or "vado" for a, _ in COMMANDS])
def test_no_python_list_types_in_help(argv, cmd, monkeypatch):
    monkeypatch.setenv("COLUMNS", "240")
    monkeypatch.setenv("NO_COLOR", "1")
    res = CliRunner().invoke(app, [*argv, "--help"])
    assert res.exit_code == 0, res.output
    assert "<list[" not in res.stdout


def test_audit_and_plan_show_repeats(monkeypatch):
    monkeypatch.setenv("COLUMNS", "240")
    monkeypatch.setenv("NO_COLOR", "1")
    audit = CliRunner().invoke(app, ["audit", "--help"]).stdout
    assert "<path>..." in audit and "<str>..." in audit
    plan = CliRunner().invoke(app, ["plan", "--help"]).stdout
    assert "repos...      <str>..." in plan


def test_the_fast_path_help_agrees(monkeypatch):
    # `python -m vado audit --help` goes through vado.cli.fastpath's entry; it must show the same labels.
    out = subprocess.run([sys.executable, "-m", "vado", "audit", "--help"], capture_output=True, text=True,
                         env={**__import__("os").environ, "COLUMNS": "240", "NO_COLOR": "1"}).stdout
    assert "<list[" not in out and "<path>..." in out
