"""Shell completion is offered, and completes command and option names."""

from __future__ import annotations

import os
import subprocess
import sys

from typer.testing import CliRunner

from vado.cli.app import app


def test_completion_options_are_offered():
    res = CliRunner().invoke(app, ["--help"])
    assert res.exit_code == 0
    assert "--install-completion" in res.stdout and "--show-completion" in res.stdout


def _complete(words: str) -> list[str]:
    env = dict(os.environ, _VADO_COMPLETE="complete_bash", COMP_WORDS=words, COMP_CWORD=str(len(words.split()) - (0 if words.endswith(" ") else 1)))
    proc = subprocess.run([sys.executable, "-c", "import sys; sys.argv[0] = 'vado'; from vado.cli.app import main; main()"],
                          env=env, capture_output=True, text=True, timeout=60)
    return proc.stdout.split()


def test_bash_completion_of_commands_and_options():
    assert {"audit", "port", "verify", "mcp", "skill"} <= set(_complete("vado "))
    assert "--fail-on" in _complete("vado audit --fa")
