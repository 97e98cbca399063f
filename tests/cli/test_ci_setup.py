"""The README's CI snippets, run as written: a real pre-commit on real commits, `vado ci install`, and the
action and workflows checked against SchemaStore's GitHub schemas (check-jsonschema) and shellcheck.

The snippets are read from README.md here, so the README and these tests cannot drift apart.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

from vado.cisetup import HOOK_ARGS, HOOK_ENTRY_ARGS, HOOK_FILES, Source, github_workflow, precommit_config

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")

# A kernel whose finding vado's port fixes by itself, and one that needs a person (inline PTX with no equivalent).
AUTOMATIC = "__global__ void k(int* o, int v) {\n  o[threadIdx.x] = __any_sync(0xffffffff, v);\n}\n"
MANUAL = ('__global__ void k(unsigned* a) {\n  unsigned r;\n'
          '  asm volatile("prmt.b32.f4e %0, %1, %2, %3;" : "=r"(r) : "r"(1u), "r"(2u), "r"(3u));\n  a[0] = r;\n}\n')

needs_pre_commit = pytest.mark.skipif(
    subprocess.run([sys.executable, "-m", "pre_commit", "--version"], capture_output=True).returncode != 0,
    reason="pre-commit is not installed (pip install -e '.[test]')")


def _readme_block(lang: str, after: str) -> str:
    """The first ```lang block of the README after the text ``after``, dedented as a user copies it."""
    start = README.index(after)
    m = re.search(rf"^( *)```{lang}\n(.*?)^\1```$", README[start:], re.S | re.M)
    assert m, f"no {lang} block after {after!r}"
    return textwrap.dedent(m.group(2))


def _shims(directory: Path) -> Path:
    """``directory`` holding vado, pre-commit and pip of this interpreter (what the Quick start's .venv/bin holds)."""
    directory.mkdir(parents=True, exist_ok=True)
    # Console scripts as pip writes them: the program's argv[0] is the script's path.
    for name, module in (("vado", "vado.cli.app"), ("pre-commit", "pre_commit.main"), ("pip", "pip._internal.cli.main")):
        p = directory / name
        p.write_text(f"#!{sys.executable}\nimport sys\nfrom {module} import main\nsys.exit(main())\n")
        p.chmod(0o755)
    return directory


def _git_env(tmp_path: Path, path: str) -> dict:
    cfg = tmp_path / "gitconfig"
    cfg.write_text("[init]\n\tdefaultBranch = main\n")
    return {**os.environ, "PATH": path, "GIT_CONFIG_GLOBAL": str(cfg), "GIT_CONFIG_NOSYSTEM": "1",
            "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"), "TMPDIR": str(tmp_path),
            "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
            "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid"}


def _git(repo: Path, env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(repo), *args], env=env, capture_output=True, text=True)


def test_the_readme_hook_is_the_one_vado_ci_writes():
    block = yaml.safe_load(_readme_block("yaml", "**pre-commit**"))
    assert block == yaml.safe_load(precommit_config("vado"))


def test_the_remote_hook_definition_matches_the_local_one():
    hook = next(h for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text()) if h["id"] == "vado")
    assert hook["entry"].split() == ["vado", *HOOK_ENTRY_ARGS]
    assert tuple(hook["args"]) == HOOK_ARGS and hook["files"] == HOOK_FILES


@needs_pre_commit
def test_the_readme_hook_in_a_real_pre_commit_on_real_commits(tmp_path: Path):
    """The README's YAML hook, with vado on PATH: a commit of code vado's port fixes passes, one with work a
    person must do fails with the finding's line, one of files vado does not read is skipped."""
    bin_dir = _shims(tmp_path / "bin")
    env = _git_env(tmp_path, f"{bin_dir}:/usr/local/bin:/usr/bin:/bin")
    repo = tmp_path / "project"
    repo.mkdir()
    assert _git(repo, env, "init", "-q").returncode == 0
    (repo / ".pre-commit-config.yaml").write_text(_readme_block("yaml", "**pre-commit**"))
    inst = subprocess.run([sys.executable, "-m", "pre_commit", "install"], cwd=repo, env=env, capture_output=True, text=True)
    assert inst.returncode == 0, inst.stdout + inst.stderr
    _git(repo, env, "add", ".pre-commit-config.yaml")
    assert _git(repo, env, "commit", "-q", "-m", "config").returncode == 0

    (repo / "auto.cu").write_text(AUTOMATIC)
    _git(repo, env, "add", "auto.cu")
    ok = _git(repo, env, "commit", "-m", "automatic")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "vado audit" in ok.stdout + ok.stderr and "Passed" in ok.stdout + ok.stderr

    (repo / "kernels").mkdir()
    (repo / "kernels" / "manual.cu").write_text(MANUAL)
    _git(repo, env, "add", "kernels/manual.cu")
    bad = _git(repo, env, "commit", "-m", "manual")
    out = bad.stdout + bad.stderr
    assert bad.returncode != 0, out
    assert "Failed" in out and "kernels/manual.cu:3:3: PTX002" in out
    assert "auto.cu" not in out  # only the files of this commit
    assert _git(repo, env, "rev-list", "--count", "HEAD").stdout.strip() == "2"  # the commit did not happen

    _git(repo, env, "reset", "-q", "HEAD", "kernels/manual.cu")
    (repo / "notes.md").write_text("# notes\n")
    _git(repo, env, "add", "notes.md")
    skipped = _git(repo, env, "commit", "-m", "notes")
    assert skipped.returncode == 0 and "Skipped" in skipped.stdout + skipped.stderr


@needs_pre_commit
def test_the_readme_pre_commit_commands_run_as_written(tmp_path: Path):
    """The README's bash block, line for line, from a directory laid out as the Quick start leaves a clone."""
    clone = tmp_path / "clone"
    shutil.copytree(ROOT / "examples", clone / "examples")
    _shims(clone / ".venv" / "bin")
    env = _git_env(tmp_path, "/usr/local/bin:/usr/bin:/bin")  # vado is on no PATH: the hook names it by its path
    script = _readme_block("bash", "**pre-commit**")
    assert ".venv/bin/vado ci install" in script and "pre-commit\" run --all-files" in script
    res = subprocess.run(["bash", "-c", script], cwd=clone, env=env, capture_output=True, text=True)
    out = res.stdout + res.stderr
    # The example project needs a person's work (its requirements pin a CUDA wheel): the hook fails, as the README says.
    assert res.returncode == 1, out
    assert "vado audit" in out and "Failed" in out
    assert re.search(r"requirements\.txt:\d+:\d+: DEP\d+", out), out
    written = list(tmp_path.glob("tmp*/.pre-commit-config.yaml"))
    assert len(written) == 1
    hook = yaml.safe_load(written[0].read_text())["repos"][0]["hooks"][0]
    assert os.path.isabs(hook["entry"].split()[0])


def _ci(*args: str, cwd: Path | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "vado", "ci", *args], cwd=cwd, env=env, capture_output=True, text=True)


def test_ci_install_refuses_what_it_did_not_write(tmp_path: Path):
    own = tmp_path / ".pre-commit-config.yaml"
    own.write_text("repos: []\n")
    res = _ci("install", str(tmp_path))
    assert res.returncode == 2 and "differs" in res.stderr and "vado ci show" in res.stderr
    assert own.read_text() == "repos: []\n"
    # A link the repository planted is never written through, --force or not.
    own.unlink()
    outside = tmp_path / "outside.yaml"
    outside.write_text("mine\n")
    own.symlink_to(outside)
    for extra in ([], ["--force"]):
        assert _ci("install", str(tmp_path), *extra).returncode == 2
        assert outside.read_text() == "mine\n" and own.is_symlink()
    own.unlink()
    first = _ci("install", str(tmp_path))
    assert first.returncode == 0 and "written:" in first.stderr
    again = _ci("install", str(tmp_path))
    assert again.returncode == 0 and "unchanged:" in again.stderr
    own.write_text("repos: []\n")
    assert _ci("install", str(tmp_path), "--force").returncode == 0
    assert yaml.safe_load(own.read_text())["repos"][0]["repo"] == "local"


def test_a_refused_install_writes_nothing(tmp_path: Path):
    wf = tmp_path / ".github" / "workflows" / "vado.yml"
    wf.parent.mkdir(parents=True)
    wf.write_text("name: mine\n")
    res = _ci("install", str(tmp_path), "--action", "me/vado@abc")
    assert res.returncode == 2 and wf.read_text() == "name: mine\n"
    assert not (tmp_path / ".pre-commit-config.yaml").exists()


def test_ci_github_needs_a_known_repository(tmp_path: Path):
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull}
    res = _ci("install", str(tmp_path), "--github", "--no-pre-commit", env=env)
    if Source(origin=_origin()).github is None:
        assert res.returncode == 2 and "--action OWNER/NAME@REF" in res.stderr
    assert _ci("install", str(tmp_path), "--action", "not a ref").returncode == 2
    ok = _ci("install", str(tmp_path), "--action", "my-org/vado@0123abc", "--no-pre-commit")
    assert ok.returncode == 0, ok.stderr
    wf = yaml.safe_load((tmp_path / ".github/workflows/vado.yml").read_text())
    steps = wf["jobs"]["audit"]["steps"]
    assert steps[-1]["uses"] == "my-org/vado@0123abc" and wf["permissions"]["security-events"] == "write"


def _origin() -> str | None:
    res = subprocess.run(["git", "-C", str(ROOT), "remote", "get-url", "origin"], capture_output=True, text=True)
    return res.stdout.strip() if res.returncode == 0 else None


@pytest.mark.parametrize("url", ["https://github.com/my-org/vado.git", "https://github.com/my-org/vado",
                                 "git@github.com:my-org/vado.git", "ssh://git@github.com/my-org/vado.git"])
def test_a_github_origin_names_the_action(url: str):
    assert Source(commit="c0ffee", origin=url).action_ref() == "my-org/vado@c0ffee"


@pytest.mark.parametrize("url", [None, "/srv/git/vado", "https://gitlab.com/my-org/vado.git",
                                 "https://github.com.evil.example/my-org/vado"])
def test_other_origins_name_no_action(url):
    assert Source(commit="c0ffee", origin=url).action_ref() is None


def test_the_hook_runs_without_vado_on_path(tmp_path: Path):
    """What `vado ci install` writes names vado by its absolute path: the hook's command runs with a bare PATH."""
    assert _ci("install", str(tmp_path)).returncode == 0
    hook = yaml.safe_load((tmp_path / ".pre-commit-config.yaml").read_text())["repos"][0]["hooks"][0]
    import shlex

    argv = shlex.split(hook["entry"]) + hook["args"]
    (tmp_path / "manual.cu").write_text(MANUAL)
    res = subprocess.run([*argv, "manual.cu"], cwd=tmp_path, capture_output=True, text=True,
                         env={**os.environ, "PATH": "/usr/bin:/bin"})
    assert res.returncode == 1 and "manual.cu:3:3: PTX002" in res.stdout, res.stderr


# --- GitHub: the action and the workflows, against SchemaStore's schemas, and their shell --------------------------

def _schema_check(schema: str, path: Path) -> subprocess.CompletedProcess:
    exe = shutil.which("check-jsonschema") or str(Path(sys.executable).parent / "check-jsonschema")
    if not os.path.exists(exe):
        pytest.skip("check-jsonschema is not installed (pip install -e '.[test]')")
    return subprocess.run([exe, "--builtin-schema", f"vendor.{schema}", str(path)], capture_output=True, text=True)


def test_action_yml_is_a_valid_action():
    res = _schema_check("github-actions", ROOT / "action.yml")
    assert res.returncode == 0, res.stdout + res.stderr


def test_the_workflow_vado_ci_writes_is_valid(tmp_path: Path):
    wf = tmp_path / "vado.yml"
    wf.write_text(github_workflow("my-org/vado@0123456789abcdef0123456789abcdef01234567"))
    res = _schema_check("github-workflows", wf)
    assert res.returncode == 0, res.stdout + res.stderr
    # The check does reject a broken workflow (a job without runs-on).
    broken = tmp_path / "broken.yml"
    broken.write_text(wf.read_text().replace("    runs-on: ubuntu-latest\n", ""))
    assert _schema_check("github-workflows", broken).returncode != 0


@pytest.mark.skipif(shutil.which("shellcheck") is None, reason="shellcheck is not installed (apt-get install shellcheck)")
def test_the_action_shell_steps_pass_shellcheck(tmp_path: Path):
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    runs = [s for s in action["runs"]["steps"] if "run" in s]
    assert len(runs) >= 4
    for i, step in enumerate(runs):
        assert "${{" not in step["run"], step["name"]  # inputs reach the shell through env, never spliced into it
        script = tmp_path / f"step{i}.sh"
        script.write_text(step["run"])
        res = subprocess.run(["shellcheck", "-s", "bash", str(script)], capture_output=True, text=True)
        assert res.returncode == 0, (step["name"], res.stdout)
