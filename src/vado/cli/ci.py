"""``vado ci``: write the pre-commit hook and the GitHub workflow that run this vado in a project."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

ci = typer.Typer(
    help="Run vado in a project's CI: a pre-commit hook that runs this vado, and a GitHub workflow with vado's action.",
    no_args_is_help=True,
)


def _fail(exc) -> typer.Exit:
    from vado.cli.terminal import get_terminal

    get_terminal().error(exc.what + (f": {exc.why}" if exc.why else ""), exc.tip)
    return typer.Exit(exc.exit_code)


_ACTION_HELP = ("The GitHub action to use, OWNER/NAME@REF (the repository that hosts vado, at a commit of it). "
                "Default: this clone's origin on GitHub at its HEAD commit.")


@ci.command("install")
def install(
    repo: Path = typer.Argument(Path("."), help="The project's top directory."),
    action: Optional[str] = typer.Option(None, "--action", metavar="OWNER/NAME@REF", help=_ACTION_HELP),
    github: Optional[bool] = typer.Option(
        None, "--github/--no-github",
        help="Write .github/workflows/vado.yml. Default: when the action is known (--action, or a GitHub origin).",
    ),
    pre_commit: bool = typer.Option(True, "--pre-commit/--no-pre-commit", help="Write .pre-commit-config.yaml."),
    force: bool = typer.Option(False, "--force", help="Replace a .pre-commit-config.yaml or workflow that differs from vado's."),
) -> None:
    """Write .pre-commit-config.yaml (a local hook that runs this vado by its absolute path) and, where vado's
    GitHub repository is known, .github/workflows/vado.yml.

    A file that exists and differs is left alone (exit 2) unless --force: `vado ci show` prints what to add.

    Exit codes: 0 written (or already there), 2 usage error (a file differs, no action known for --github).
    """
    from vado.cisetup import hook_command, install_source
    from vado.cisetup import install as do_install
    from vado.cli.terminal import get_terminal
    from vado.errors import UsageError, VadoError

    term = get_terminal()
    source = install_source()
    chosen = action or source.action_ref()
    try:
        if github and chosen is None:
            raise UsageError("no GitHub repository is known for vado's action",
                             f"this vado runs from {source.path or 'an installed package'}"
                             + (f", whose origin is {source.origin}" if source.origin else ", which has no origin remote"),
                             "pass --action OWNER/NAME@REF: the GitHub repository you push vado to, at a commit of it")
        done = do_install(repo, command=hook_command(), action=chosen if github is not False else None,
                          pre_commit=pre_commit, force=force, source=source)
    except VadoError as exc:
        raise _fail(exc)
    for path, what in done:
        term.info(f"{what}: {path}")
    if pre_commit:
        term.info("then, in the project: pre-commit install (every git commit runs the hook), "
                  "or pre-commit run --all-files once")
    if github is None and chosen is None:
        term.info("no GitHub workflow: this vado's repository on GitHub is not known "
                  "(--action OWNER/NAME@REF names it)")
    elif github is not False and chosen is not None and action is None:
        note = f"the workflow uses {chosen}: that commit must be on GitHub (git push)"
        term.info(note + ("; this clone has changes not committed, which the action will not have" if source.dirty else ""))


@ci.command("show")
def show(
    github: bool = typer.Option(False, "--github", help="Print the GitHub workflow instead of the pre-commit configuration."),
    action: Optional[str] = typer.Option(None, "--action", metavar="OWNER/NAME@REF", help=_ACTION_HELP),
) -> None:
    """Print what `vado ci install` writes: the pre-commit configuration, or the workflow with --github."""
    from vado.cisetup import github_workflow, hook_command, install_source, precommit_config
    from vado.cli.terminal import get_terminal
    from vado.errors import UsageError, VadoError

    term = get_terminal()
    source = install_source()
    try:
        if github:
            chosen = action or source.action_ref()
            if chosen is None:
                raise UsageError("no GitHub repository is known for vado's action", "",
                                 "pass --action OWNER/NAME@REF: the GitHub repository you push vado to, at a commit of it")
            term.data(github_workflow(chosen))
        else:
            term.data(precommit_config(hook_command(), source=source))
    except VadoError as exc:
        raise _fail(exc)
