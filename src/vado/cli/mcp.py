"""``vado mcp``: serve vado's tools to coding assistants over the Model Context Protocol."""

from __future__ import annotations

from pathlib import Path

import typer


def mcp(
    root: Path = typer.Option(Path("."), "--root", "-r", help="Directory the tools may read and write; paths outside it are refused."),
    http: bool = typer.Option(False, "--http", help="Serve streamable HTTP on a loopback address instead of stdio."),
    host: str = typer.Option("127.0.0.1", "--host", help="With --http: the loopback address to listen on."),
    port: int = typer.Option(8765, "--port", help="With --http: the port (the endpoint is http://HOST:PORT/mcp)."),
    allow_exec: bool = typer.Option(False, "--allow-exec", help="Also offer what builds and runs the project's code: "
                                    "verify's differential run (builds original and port, runs both) and bench_kernel "
                                    "(runs a kernel of the tree on the GPU). Off: the tools only read, port into new "
                                    "directories and run compilers confined to the root."),
) -> None:
    """Run vado as an MCP server (stdio by default) for Claude Code, Codex, Cursor and other assistants."""
    from vado.cli.terminal import get_terminal
    from vado.errors import VadoError

    import importlib.util

    if importlib.util.find_spec("mcp") is None:
        # The SDK is an extra (vado[mcp]): the linter's own install stays small.
        get_terminal().error("vado mcp needs the MCP SDK, which is not installed",
                             "install vado with its mcp extra: pip install 'vado[mcp]' (from a clone: "
                             "pip install -e '.[mcp]')")
        raise typer.Exit(3)
    from vado.mcp.server import serve

    def on_start(url: str, token: str) -> None:
        err = get_terminal().err  # shown even with --quiet, never wrapped: the user copies the token
        for line in (f"vado MCP server at {url}",
                     f"every request needs the header  Authorization: Bearer {token}",
                     "(a new token each start; give it only to your own MCP client)"):
            err.print(line, soft_wrap=True, markup=False, highlight=False)

    try:
        serve(str(root), http=http, host=host, port=port, on_start=on_start, allow_exec=allow_exec)
    except VadoError as exc:
        get_terminal().error(exc.what + (f": {exc.why}" if exc.why else ""), exc.tip)
        raise typer.Exit(exc.exit_code)
