"""Shell completion is offered, installs, and completes command names, option names and choices."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
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


def test_bash_completion_of_choices():
    assert set(_complete("vado port --launch ")) == {"chevron", "ggl"}
    assert set(_complete("vado verify --platform ")) == {"auto", "amd", "nvidia"}
    assert set(_complete("vado audit -f ")) == {"text", "concise", "json", "sarif", "markdown", "html", "github", "gitlab", "junit"}


def _vado(tmp_path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "import sys; sys.argv[0] = 'vado'; from vado.cli.app import main; main()", *args],
                          env=dict(os.environ, **(env or {})), capture_output=True, text=True, timeout=60, cwd=tmp_path)


def test_show_completion_prints_a_script_bash_runs(tmp_path):
    import shutil

    res = _vado(tmp_path, "--show-completion", "bash")
    assert res.returncode == 0 and "complete -o default -F _vado_completion vado" in res.stdout
    script = tmp_path / "vado-completion.sh"
    script.write_text(res.stdout)
    if shutil.which("bash") is None:
        return
    # The script calls the `vado` on PATH: here a wrapper around this interpreter and checkout.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    wrapper = bin_dir / "vado"
    wrapper.write_text(f"#!/bin/sh\nexec {sys.executable} -c \"import sys; sys.argv[0] = 'vado'; "
                       f"from vado.cli.app import main; main()\" \"$@\"\n")
    wrapper.chmod(0o755)
    words = {"vado port --launch ''": "3", "vado verify --pla": "2"}
    lines = [f"source {script}"]
    for words_, cword in words.items():
        lines += [f"COMP_WORDS=({words_}); COMP_CWORD={cword}; _vado_completion vado", 'echo "${COMPREPLY[*]}"']
    proc = subprocess.run(["bash", "-c", "\n".join(lines)], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split("\n")[:2] == ["chevron ggl", "--platform"]


@pytest.mark.parametrize("shell,marker", [("zsh", "#compdef vado"), ("fish", "complete --command vado")])
def test_completion_scripts_for_other_shells(tmp_path, shell, marker):
    # What `--show-completion` prints in that shell (it detects the shell it runs in), through
    # Click's own entry point: `eval "$(_VADO_COMPLETE=source_zsh vado)"`.
    res = _vado(tmp_path, env={"_VADO_COMPLETE": f"source_{shell}"})
    assert res.returncode == 0 and marker in res.stdout


# `--install-completion` installs for the shell it detects (the parent process); Typer's switch
# _TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION makes it take the shell as its value instead, so
# that the test does not depend on the shell pytest was started from.
_NO_DETECTION = {"_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION": "1"}


def test_install_completion_writes_the_script_and_sources_it_once(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    env = {"HOME": str(home), **_NO_DETECTION}
    first = _vado(tmp_path, "--install-completion", "bash", env=env)
    assert first.returncode == 0, first.stderr
    installed = home / ".bash_completions" / "vado.sh"
    shown = _vado(tmp_path, "--show-completion", "bash", env=_NO_DETECTION).stdout
    assert installed.read_text().strip() == shown.strip() and "_vado_completion" in shown
    assert f"source '{installed}'" in (home / ".bashrc").read_text()
    again = _vado(tmp_path, "--install-completion", "bash", env=env)
    assert again.returncode == 0
    assert (home / ".bashrc").read_text().count(str(installed)) == 1
    zsh = _vado(tmp_path, "--install-completion", "zsh", env=env)
    assert zsh.returncode == 0 and "#compdef vado" in (home / ".zfunc" / "_vado").read_text()
