"""The ``vado`` command. Commands live one per module and are imported when run.

Exit codes: 0 clean, 1 findings (or verification failed), 2 usage error, 3 the
tool itself failed.
"""

from __future__ import annotations

import importlib
import sys

import typer

from vado import __version__

app = typer.Typer(
    name="vado",
    help="Move CUDA workloads to AMD ROCm, and tell the truth about oneAPI/SYCL, SCALE and ZLUDA.",
    no_args_is_help=True,
    # `vado --install-completion` (bash, zsh, fish, PowerShell) and `--show-completion`.
    add_completion=True,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)

#: (command name, module under vado.cli, function name). Each module registers nothing
#: at import; this table is the single list of commands.
COMMANDS: tuple[tuple[str, str, str], ...] = (
    ("lookup", "lookup", "lookup"),
    ("explain", "explain", "explain"),
    ("audit", "audit", "audit"),
    ("port", "port", "port"),
    ("plan", "plan", "plan"),
    ("mcp", "mcp", "mcp"),
    ("agent", "agent", "agent"),
    ("verify", "verify", "verify"),
    ("doctor", "doctor", "doctor"),
    ("bench", "bench", "bench"),
    ("tune", "tune", "tune"),
    ("report", "report", "report"),
    ("skill", "skill", "skill"),
)


def _version_callback(value: bool) -> None:
    if value:
        typer.echo(f"vado {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", "-V", help="Print the version and exit.", callback=_version_callback, is_eager=True
    ),
) -> None:
    """Move CUDA workloads to AMD ROCm, and tell the truth about oneAPI/SYCL, SCALE and ZLUDA."""


def _register() -> None:
    for name, module, func in COMMANDS:
        try:
            mod = importlib.import_module(f"vado.cli.{module}")
        except ModuleNotFoundError as exc:
            if exc.name == f"vado.cli.{module}":
                continue
            raise
        obj = getattr(mod, func)
        # A command with subcommands (`vado bench kernel …`) is a Typer app of its own.
        if isinstance(obj, typer.Typer):
            app.add_typer(obj, name=name)
        else:
            app.command(name)(obj)


_register()


def main() -> None:
    """Entry point of the ``vado`` script."""
    from vado.errors import VadoError

    try:
        if len(sys.argv) > 1:
            # `vado audit FILE` from an editor or a hook: parsed from the command's own
            # signature without building the Typer application (vado.cli.fastpath).
            from vado.cli.fastpath import run as run_fast

            code = run_fast(sys.argv[1], sys.argv[2:])
            if code is not None:
                sys.exit(code)
        app()
    except VadoError as exc:  # library errors that escaped a command
        from vado.cli.terminal import get_terminal

        get_terminal().error(exc.what + (f": {exc.why}" if exc.why else ""), exc.tip)
        sys.exit(exc.exit_code)


if __name__ == "__main__":  # pragma: no cover
    main()
