"""The CI files that run vado in a project: a pre-commit hook and a GitHub workflow (``vado ci``).

vado is not on PyPI and has no release tag, so a hook or a workflow cannot name a published vado.
What it can name is the vado that is installed here:

- the pre-commit configuration is a ``repo: local`` hook (``language: system``) whose ``entry`` is
  the vado executable that wrote it, by its absolute path (the README's install puts vado in a
  clone's ``.venv/bin``, on no PATH); it needs no network and no hook environment;
- the GitHub workflow ``uses:`` this repository's ``action.yml`` at the commit this install came
  from, which only works where that commit is on GitHub: the clone's ``origin`` remote names the
  repository, or the caller does (``action``).

Files are written through :mod:`vado.safefs` (never through a link, never over a file that differs
unless ``force``). The library does not print; :mod:`vado.cli.ci` does.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

from vado.errors import UsageError
from vado.safefs import read_under, write_under

PRE_COMMIT_CONFIG = ".pre-commit-config.yaml"
WORKFLOW = ".github/workflows/vado.yml"

#: The hook's command and default arguments, as in the repository's ``.pre-commit-hooks.yaml`` (a test keeps them equal).
HOOK_ENTRY_ARGS = ("audit", "--jobs", "1", "--format", "concise", "--quiet")
HOOK_ARGS = ("--fail-on", "rocm-7.2:needs-manual-work")
HOOK_NAME = "vado audit (CUDA → ROCm portability)"
#: The files vado reads, as ``.pre-commit-hooks.yaml``'s ``files``.
HOOK_FILES = (r"(\.(cu|cuh|cuda|c|cc|cpp|cxx|c\+\+|h|hh|hpp|hxx|inl|ipp|tpp|ptx|cmake|py)|(^|/)(CMakeLists\.txt"
              r"|[Mm]akefile|GNUmakefile|[^/]*\.mk|Dockerfile[^/]*|[^/]*\.[Dd]ockerfile|requirements[^/]*\.(txt|in)"
              r"|setup\.py|pyproject\.toml|environment[^/]*\.ya?ml))$")

_GITHUB_REMOTE = re.compile(r"^(?:https://(?:[^@/]+@)?github\.com/|git@github\.com:|ssh://git@github\.com/)"
                            r"(?P<owner>[A-Za-z0-9_.-]+)/(?P<name>[A-Za-z0-9_.-]+?)(?:\.git)?/?$")
_ACTION_REF = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+@[A-Za-z0-9_./-]+$")


@dataclass(frozen=True)
class Source:
    """Where the running vado came from: its checkout (``path``), ``commit``, ``origin`` URL and whether
    the checkout has changes git does not hold (``dirty``). All None where vado is not run from a clone."""

    path: Path | None = None
    commit: str | None = None
    origin: str | None = None
    dirty: bool = False

    @property
    def github(self) -> str | None:
        """``OWNER/NAME`` when ``origin`` is a GitHub repository."""
        m = _GITHUB_REMOTE.match(self.origin or "")
        return f"{m.group('owner')}/{m.group('name')}" if m else None

    def action_ref(self) -> str | None:
        """``OWNER/NAME@COMMIT``: this checkout's action on GitHub, where its origin is there."""
        return f"{self.github}@{self.commit}" if self.github and self.commit else None


def _git(checkout: Path, *args: str) -> str | None:
    import subprocess

    from vado.verify.sandbox import run_capped

    try:
        res = run_capped(["git", "-C", str(checkout), *args], timeout=20)
    except (OSError, subprocess.TimeoutExpired):  # no git, a hung one: the source is unknown, not an error
        return None
    return res.stdout.strip() if res.returncode == 0 else None


def install_source() -> Source:
    """The checkout this vado runs from (an editable install or ``PYTHONPATH``), else an empty :class:`Source`."""
    import vado

    checkout = Path(vado.__file__).resolve().parents[2]  # src/vado/__init__.py -> the checkout
    if not ((checkout / ".git").exists() and (checkout / "pyproject.toml").is_file()):
        return Source()
    commit = _git(checkout, "rev-parse", "HEAD")
    origin = _git(checkout, "remote", "get-url", "origin")
    status = _git(checkout, "status", "--porcelain", "--untracked-files=no")
    return Source(path=checkout, commit=commit, origin=origin or None, dirty=bool(status))


def _q(text: str) -> str:
    """``text`` as a YAML single-quoted scalar (no escapes: a regular expression reads as written)."""
    if any(c in text for c in "\n\r\t") or not text.isprintable():
        return json.dumps(text, ensure_ascii=False)  # a JSON string is a valid YAML double-quoted one
    return "'" + text.replace("'", "''") + "'"


def _shell_word(text: str) -> str:
    import shlex

    return shlex.quote(text)


def hook_command() -> list[str]:
    """The command that starts the vado running now, for a hook that runs without this shell's PATH:
    its script by absolute path, else this interpreter with ``-m vado`` (``python -m vado``)."""
    import sys

    from vado.cli.skill import vado_command

    command = vado_command()
    return [command] if os.path.isabs(command) else [sys.executable, "-m", "vado"]


def precommit_config(command: str | list[str] = "vado", *, source: Source | None = None) -> str:
    """``.pre-commit-config.yaml`` with vado's hook as a ``repo: local`` hook that runs ``command``.

    ``command`` starts vado: ``vado`` (found on PATH when the hook runs), an absolute path, or an argv
    prefix such as ``[python, -m, vado]`` (:func:`hook_command`).
    """
    from vado import __version__

    origin = ""
    if source is not None and source.path is not None:
        origin = f" from {source.path}" + (f" at {source.commit[:12]}" if source.commit else "")
    words = [command] if isinstance(command, str) else list(command)
    entry = " ".join([*map(_shell_word, words), *HOOK_ENTRY_ARGS])
    args = ", ".join(a if a.startswith("--") else _q(a) for a in HOOK_ARGS)
    return (
        "# pre-commit (https://pre-commit.com): vado audits the files each commit changes and fails the commit\n"
        "# only on work a person must do (a ROCm verdict of needs-manual-work or blocked); `args: []` uses\n"
        f"# [tool.vado]'s fail-on. Written by `vado ci install` (vado {__version__}{origin}).\n"
        "repos:\n"
        "  - repo: local\n"
        "    hooks:\n"
        "      - id: vado\n"
        f"        name: {_q(HOOK_NAME)}\n"
        f"        entry: {_q(entry)}\n"
        f"        args: [{args}]\n"
        "        language: system\n"
        "        require_serial: true\n"
        f"        files: {_q(HOOK_FILES)}\n"
    )


def github_workflow(action: str) -> str:
    """``.github/workflows/vado.yml``: vado's action (``OWNER/NAME@REF``) on pull requests and pushes."""
    if not _ACTION_REF.match(action):
        raise UsageError(f"{action!r} is not an action reference", "expected OWNER/NAME@REF",
                         "name the GitHub repository that hosts vado and a commit of it, e.g. my-org/vado@<sha>")
    return (
        "# vado audit on every pull request and push: findings go to code scanning (annotations where the\n"
        "# upload is not available) and the verdicts to the job summary; the job fails only on work a person\n"
        f"# must do. Written by `vado ci install`; the action's inputs (fail-on, args, version) are in {action.split('@')[0]}'s action.yml.\n"
        "name: vado\n"
        "on:\n"
        "  pull_request:\n"
        "  push:\n"
        "permissions:\n"
        "  contents: read\n"
        "  security-events: write\n"
        "jobs:\n"
        "  audit:\n"
        "    runs-on: ubuntu-latest\n"
        "    steps:\n"
        "      - uses: actions/checkout@v4\n"
        f"      - uses: {action}\n"
        "        with:\n"
        "          path: .\n"
    )


def _state(root: Path, rel: str, text: str, force: bool) -> str:
    """What writing ``text`` to ``root/rel`` does: written, unchanged or replaced; raises without ``force``."""
    try:
        current = read_under(root, rel, limit=1 << 20)
    except OSError as exc:
        raise UsageError(f"cannot read {root / rel}", exc.strerror or str(exc), "check the file") from None
    if current is None:
        return "written"
    if current == text.encode("utf-8"):
        return "unchanged"
    if not force:
        raise UsageError(f"{root / rel} exists and differs from vado's", "vado does not merge into a file it did not write",
                         "add vado's part by hand (`vado ci show` prints it), or pass --force to replace the file")
    return "replaced"


def install(repo: str | os.PathLike, *, command: str | list[str], action: str | None = None, pre_commit: bool = True,
            force: bool = False, source: Source | None = None) -> list[tuple[Path, str]]:
    """Write the pre-commit configuration (``pre_commit``) and, with ``action``, the GitHub workflow into
    ``repo``; ``[(path, what happened)]``.

    Every file is checked before the first is written: a differing file (without ``force``) or a link on
    the way refuses the whole install and leaves ``repo`` as it was.
    """
    root = Path(repo)
    if not root.is_dir():
        raise UsageError(f"{root} is not a directory", "", "pass the project's top directory")
    files: list[tuple[str, str]] = []
    if pre_commit:
        files.append((PRE_COMMIT_CONFIG, precommit_config(command, source=source)))
    if action is not None:
        files.append((WORKFLOW, github_workflow(action)))
    if not files:
        raise UsageError("nothing to write", "both the pre-commit hook and the workflow are off",
                         "leave out --no-pre-commit, or name the action with --action OWNER/NAME@REF")
    states = [_state(root, rel, text, force) for rel, text in files]
    done = []
    for (rel, text), state in zip(files, states):
        if state != "unchanged":
            try:
                write_under(root, rel, text.encode("utf-8"), replace=force)
            except OSError as exc:
                raise UsageError(f"cannot write {root / rel}", exc.strerror or str(exc), "check the directory") from None
        done.append((root / rel, state))
    return done
