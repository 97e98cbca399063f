"""`vado verify --build`: what the output says about how the build was read, with a fake hipcc."""

import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from vado.cli.app import app

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "verify"))
from _verify_helpers import write_tool  # noqa: E402

FAKE = r"""
if [ "$1" = "--version" ]; then echo "HIP version: 7.2.53211-9999"; echo "clang version 22.1.8"; exit 0; fi
src=""; obj=""; dep=""
while [ $# -gt 0 ]; do
  case "$1" in -c) src="$2"; shift ;; -o) obj="$2"; shift ;; -MF) dep="$2"; shift ;; -include|-Xclang) shift ;;
    -*) ;; *) src="$1" ;; esac
  shift
done
[ -n "$dep" ] && printf '%s: %s\n' "$obj" "$src" > "$dep"
# The front end (-fsyntax-only) writes no object.
[ -z "$obj" ] || : > "$obj"
"""


@pytest.fixture
def env(tmp_path, monkeypatch):
    monkeypatch.setenv("VADO_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("VADO_TOOL_DIRS", "")
    hipcc = write_tool(tmp_path / "bin", "hipcc", FAKE)
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "k.cu").write_text("__global__ void k() {}\n")
    (proj / "unused.cu").write_text("__global__ void u() {}\n")
    (proj / "Makefile").write_text("MODE ?= slow\n$(shell touch made-it)\nifeq ($(MODE),fast)\n  F = -DFAST\nelse\n  F = -DSLOW\nendif\n"
                                   "all:\n\thipcc $(F) -c k.cu -o k.o\n")
    return proj, hipcc


def run(*args):
    return CliRunner().invoke(app, ["verify", *map(str, args), "--no-triton", "--arch", "gfx942"])


def test_auto_dry_runs_make_and_says_so(env):
    proj, hipcc = env
    res = run(proj, "--hipcc", hipcc, "--make-var", "MODE=fast")
    assert res.exit_code == 0, res.output
    doc = run(proj, "--hipcc", hipcc, "--make-var", "MODE=fast", "--format", "json").stdout
    import json

    (ev,) = json.loads(doc)["evidence"]
    assert "-DFAST" in ev["command"] and "-DSLOW" not in ev["command"]
    assert "build: ran `make -n -B -k MODE=fast in .`: executes the project's Makefile logic\n" in res.stdout
    assert "build: 1 units from make\n" in res.stdout
    assert "not compiled (1 sources the build does not compile): unused.cu" in res.stdout
    assert not (proj / "made-it").exists()


def test_compile_db_mode_runs_nothing_and_guesses_loudly(env):
    proj, hipcc = env
    res = run(proj, "--hipcc", hipcc, "--build", "compile-db")
    assert res.exit_code == 0, res.output
    assert "build: ran" not in res.stdout and "build: GUESSED: 2 units" in res.stdout
    assert "build note: no build read (no compile_commands.json, CMake File API reply or setup.py extension in the tree)" in res.stdout
    res = run(proj, "--hipcc", hipcc, "--build", "none", "--format", "json")
    import json

    doc = json.loads(res.stdout)
    assert doc["build"]["guessed"] and all(e["detail"]["guessed"] for e in doc["evidence"])


def test_bad_make_var_is_a_usage_error(env):
    proj, hipcc = env
    assert run(proj, "--hipcc", hipcc, "--make-var", "NOEQUALS").exit_code == 2
    assert run(proj, "--hipcc", hipcc, "--build", "bazel").exit_code == 2
