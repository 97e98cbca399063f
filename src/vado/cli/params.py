"""Command parameters declared without importing Typer, for the commands that start fast.

``vado audit FILE`` from an editor or a pre-commit hook is parsed by
:mod:`vado.cli.fastpath` from the command's own signature; importing Typer (and
its Click) only to read that signature was a fifth of such a run. A command
that starts fast declares its parameters with :func:`Option` and
:func:`Argument` from here, which take exactly what ``typer.Option`` and
``typer.Argument`` take and only record it, and ends with :class:`CommandExit`
instead of ``typer.Exit``. :func:`typer_command` turns such a function into the
one the Typer application registers: the same signature with real Typer
parameters, and ``CommandExit`` raised as ``typer.Exit``. Both paths run the
same function with the same values.
"""

from __future__ import annotations

import functools
import inspect
import re
from typing import Any, Callable


class Param:
    """A recorded ``typer.Option(default, *param_decls, **kwargs)`` or ``typer.Argument(default, **kwargs)``.

    ``default``, ``param_decls``, ``min`` and ``max`` read as they do on Typer's
    ``OptionInfo``/``ArgumentInfo`` (what the fast parser needs).
    """

    __slots__ = ("kind", "default", "param_decls", "kwargs")

    def __init__(self, kind: str, default: Any, param_decls: tuple[str, ...], kwargs: dict[str, Any]) -> None:
        self.kind = kind
        self.default = default
        self.param_decls = param_decls
        self.kwargs = kwargs

    @property
    def min(self):
        return self.kwargs.get("min")

    @property
    def max(self):
        return self.kwargs.get("max")

    def to_typer(self):
        """The Typer parameter this records."""
        import typer

        if self.kind == "argument":
            return typer.Argument(self.default, *self.param_decls, **self.kwargs)
        return typer.Option(self.default, *self.param_decls, **self.kwargs)


def Option(default: Any = ..., *param_decls: str, **kwargs: Any) -> Any:  # noqa: N802 - typer.Option's name
    """``typer.Option`` recorded (see the module docstring)."""
    return Param("option", default, param_decls, kwargs)


def Argument(default: Any = ..., *param_decls: str, **kwargs: Any) -> Any:  # noqa: N802 - typer.Argument's name
    """``typer.Argument`` recorded (see the module docstring)."""
    return Param("argument", default, param_decls, kwargs)


class CommandExit(Exception):
    """The end of a command with an exit code: ``typer.Exit`` without Typer."""

    def __init__(self, code: int = 0) -> None:
        super().__init__(code)
        self.exit_code = code


def typer_command(fn: Callable) -> Callable:
    """``fn`` as Typer registers it: its :class:`Param` defaults made Typer's, :class:`CommandExit` as ``typer.Exit``."""
    import typer

    sig = inspect.signature(fn)
    params = [p.replace(default=p.default.to_typer()) if isinstance(p.default, Param) else p
              for p in sig.parameters.values()]

    @functools.wraps(fn)
    def command(**kwargs):
        try:
            return fn(**kwargs)
        except CommandExit as exc:
            raise typer.Exit(exc.exit_code) from None

    command.__signature__ = sig.replace(parameters=params)
    return command


_LIST_TYPE = re.compile(r"^<list\[(?P<item>[^\]]+)\]>$")


def list_types_as_repeats(params: list, ctx: Any) -> list:
    """List-typed parameters shown as ``<path>...`` in help, not Typer's ``<list[Path]>``.

    Typer labels a ``List[Path]`` argument or a repeatable ``List[str]`` option with the Python
    type; help says what to type instead: one value, and ``...`` for more. A parameter with its
    own ``metavar`` keeps it. Works on Typer's parameter objects (after Typer built them).
    """
    for p in params:
        if getattr(p, "is_flag", False) or (getattr(p, "metavar", None) and p.param_type_name == "option"):
            continue
        try:
            shown = p.display_type_rich(ctx)
        except Exception:  # noqa: BLE001 - a parameter Typer cannot label keeps Typer's help
            continue
        m = _LIST_TYPE.match(shown or "")
        if m:
            label = f"<{m.group('item').lower()}>..."
            # An instance attribute shadows the method: only this parameter's help changes.
            p.display_type_rich = lambda ctx=None, _label=label: _label
    return params
