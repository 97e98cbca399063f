"""``vado skill``: the Claude Code skill that teaches an assistant vado's audit → port → verify loop."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

skill = typer.Typer(
    help="The Claude Code skill for porting with vado's MCP tools: install it into a repository, or print it.",
    no_args_is_help=True,
)


def _fail(exc) -> typer.Exit:
    from vado.cli.terminal import get_terminal

    get_terminal().error(exc.what + (f": {exc.why}" if exc.why else ""), exc.tip)
    return typer.Exit(exc.exit_code)


def vado_command() -> str:
    """The absolute path of the vado executable that runs now (``sys.argv[0]``, else the one on PATH).

    ``.mcp.json`` names it so that an assistant starts this vado whatever its own PATH holds (the
    README's install puts vado in ``.venv/bin``, which is on no PATH). ``vado`` when none is found."""
    import shutil
    import sys

    argv0 = Path(sys.argv[0])
    if argv0.name in ("vado", "vado.exe") and argv0.is_file():
        return str(argv0.resolve())
    found = shutil.which("vado")
    return str(Path(found).resolve()) if found else "vado"


@skill.command("install")
def install(
    repo: Path = typer.Argument(Path("."), help="The repository's top directory."),
    force: bool = typer.Option(False, "--force", help="Replace a SKILL.md or a 'vado' MCP entry that differs from vado's."),
    no_mcp: bool = typer.Option(False, "--no-mcp", help="Install the skill only; leave .mcp.json alone."),
    plugin: Optional[Path] = typer.Option(None, "--plugin", metavar="DIR", help="Write a Claude Code plugin directory instead (claude --plugin-dir DIR)."),
) -> None:
    """Install the skill as .claude/skills/vado-port/SKILL.md and register `vado mcp` in .mcp.json.

    Exit codes: 0 installed (or already there), 2 usage error (a file differs: --force).
    """
    from vado.assistant import install as do_install
    from vado.assistant import write_plugin
    from vado.cli.terminal import get_terminal
    from vado.errors import VadoError

    term = get_terminal()
    try:
        done = (write_plugin(plugin, force=force) if plugin is not None
                else do_install(repo, force=force, mcp=not no_mcp, command=vado_command()))
    except VadoError as exc:
        raise _fail(exc)
    for path, what in done:
        term.info(f"{what}: {path}")
    import importlib.util

    if importlib.util.find_spec("mcp") is None:
        term.warn("the skill works through `vado mcp`, which needs the MCP SDK: install vado with its mcp extra "
                  "(pip install 'vado[mcp]'; from a clone: pip install -e '.[mcp]')")
    if plugin is None:
        term.info("start Claude Code in the repository and ask it to port the CUDA code to ROCm; "
                  "it loads the skill and vado's MCP tools (approve the 'vado' server when asked)")


@skill.command("mcp-config")
def mcp_config(
    client: str = typer.Argument(..., metavar="CLIENT", help="claude, codex or cursor."),
    root: Optional[Path] = typer.Option(None, "--root", "-r", help="The repository the server may read and write "
                                        "(default: . for Claude Code and Cursor, which start it there; the current "
                                        "directory's absolute path for Codex)."),
) -> None:
    """Print what registers this vado's MCP server with an assistant, naming vado by its absolute path.

    Exit codes: 0 printed, 2 an unknown assistant."""
    from vado.assistant import mcp_config as render
    from vado.cli.terminal import get_terminal
    from vado.errors import VadoError

    where = str(root.resolve()) if root is not None else (str(Path.cwd()) if client == "codex" else ".")
    try:
        text = render(client, vado_command(), where)
    except VadoError as exc:
        raise _fail(exc)
    get_terminal().data(text)


@skill.command("show")
def show() -> None:
    """Print the skill (SKILL.md) to stdout."""
    from vado.assistant import skill_text
    from vado.cli.terminal import get_terminal

    get_terminal().data(skill_text())
