"""The ``vado`` command. Commands live one per module and are imported when run.

Exit codes: 0 clean, 1 findings (or verification failed), 2 usage error, 3 the
tool itself failed.
"""

from __future__ import annotations

import importlib
import sys
from typing import TYPE_CHECKING

from vado import __version__

if TYPE_CHECKING:
    import typer

# Typer is imported when the application is made (get_app), not with this module: `vado audit FILE`
# runs without it (vado.cli.fastpath).

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
    ("ci", "ci", "ci"),
)


def _version_callback(value: bool) -> None:
    if value:
        import typer

        typer.echo(f"vado {__version__}")
        raise typer.Exit(0)


def _no_flag_placeholders(params: list) -> list:
    """Flags take no value: help shows none (Typer labels every option with its type, ``<bool>`` for a flag)."""
    for p in params:
        if getattr(p, "is_flag", False) and not getattr(p, "count", False) and p.metavar is None:
            p.metavar = ""
    return params


class _FlagsWithoutType:
    """Mixed into a Typer command or group class: :func:`_no_flag_placeholders` on its parameters."""

    def get_params(self, ctx):
        from vado.cli.params import list_types_as_repeats

        return list_types_as_repeats(_no_flag_placeholders(super().get_params(ctx)), ctx)


def _shown_without_flag_types(base: type) -> type:
    """``base`` (a Typer command or group class, vado's own ones included) with flags shown without a type."""
    if issubclass(base, _FlagsWithoutType):
        return base
    return type(base.__name__, (_FlagsWithoutType, base), {"__module__": base.__module__})


def _make_app() -> typer.Typer:
    import inspect

    import typer
    from typer.core import TyperCommand, TyperGroup
    from typer.models import DefaultPlaceholder

    from vado.cli.params import Param, typer_command

    def _root(
        version: bool = typer.Option(
            False, "--version", "-V", help="Print the version and exit.", callback=_version_callback, is_eager=True
        ),
    ) -> None:
        """Move CUDA workloads to AMD ROCm, and tell the truth about oneAPI/SYCL, SCALE and ZLUDA."""

    def chosen(cls, default: type) -> type:
        if isinstance(cls, DefaultPlaceholder):
            cls = cls.value
        return cls or default

    command_cls = _shown_without_flag_types(TyperCommand)
    app = typer.Typer(
        name="vado",
        cls=_shown_without_flag_types(TyperGroup),
        help="Move CUDA workloads to AMD ROCm, and tell the truth about oneAPI/SYCL, SCALE and ZLUDA.",
        no_args_is_help=True,
        # `vado --install-completion` (bash, zsh, fish, PowerShell) and `--show-completion`.
        add_completion=True,
        pretty_exceptions_enable=False,
        context_settings={"help_option_names": ["-h", "--help"]},
    )
    app.callback()(_root)
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
            # Its own classes (bench's DefaultGroup) are kept, with the same change.
            for info in obj.registered_commands:
                info.cls = _shown_without_flag_types(chosen(info.cls, TyperCommand))
            app.add_typer(obj, name=name, cls=_shown_without_flag_types(chosen(obj.info.cls, TyperGroup)))
        else:
            if any(isinstance(p.default, Param) for p in inspect.signature(obj).parameters.values()):
                obj = typer_command(obj)  # declared through vado.cli.params (audit: it starts without Typer)
            app.command(name, cls=command_cls)(obj)
    return app


_APP: typer.Typer | None = None


def get_app() -> typer.Typer:
    """The Typer application with every command, made on first use.

    ``vado audit FILE`` usually runs without it (:mod:`vado.cli.fastpath`): importing
    every command module and building the application is left to the calls that need it.
    """
    global _APP
    if _APP is None:
        _APP = _make_app()
    return _APP


def __getattr__(name: str):
    # ``from vado.cli.app import app`` (tests, tools) gets the application, made on first use.
    if name == "app":
        return get_app()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
        get_app()()
    except VadoError as exc:  # library errors that escaped a command
        from vado.cli.terminal import get_terminal

        get_terminal().error(exc.what + (f": {exc.why}" if exc.why else ""), exc.tip)
        sys.exit(exc.exit_code)


if __name__ == "__main__":  # pragma: no cover
    main()
