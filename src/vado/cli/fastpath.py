"""Running a command without building the whole Typer/Click application: the fast start of ``vado audit``.

Typer turns every parameter of every command into a Click parameter through
pydantic before it parses a single argument; for ``vado audit FILE`` from an
editor or a pre-commit hook that was a fifth of the run, and importing Typer
another. This module parses the command line of one command directly, from
that command's own signature (its :mod:`vado.cli.params` declarations: what
``typer.Option``/``typer.Argument`` take, names, defaults, types and bounds),
and calls the command function with the values, so both paths run the same
code with the same values; Typer is not imported.

It only takes what it understands: long and short options with a separate or
``=`` value, flags, repeated options, positional arguments, ``--``. Anything
else (``--help``, an unknown option, a value out of bounds or not among the
choices, a missing argument) returns None, and ``vado`` runs the Typer
application, which answers with its usual help or error message.
"""

from __future__ import annotations

import inspect
import typing
from pathlib import Path
from typing import Any, Callable, Sequence

#: Commands that may start this way: name → (module under vado.cli, function).
COMMANDS = {"audit": ("audit", "audit")}


class _Declined(Exception):
    """The command line is not one this parser takes; Typer will."""


def run(command: str, argv: Sequence[str]) -> int | None:
    """Run ``command`` with ``argv`` and return its exit code, or None to leave it to Typer."""
    import importlib

    if command not in COMMANDS:
        return None
    module, func = COMMANDS[command]
    fn = getattr(importlib.import_module(f"vado.cli.{module}"), func)
    try:
        kwargs = parse(fn, argv)
    except _Declined:
        return None
    import gc

    from vado.cli.params import CommandExit

    # One file (an editor, a hook): the run imports most of vado and ends soon after, and the
    # cyclic collector's passes over those tens of thousands of new, long-lived objects were
    # a tenth of it. Acyclic garbage is still freed at once; a cycle waits for the end.
    pause = _one_file(kwargs) and gc.isenabled()
    if pause:
        gc.disable()
    try:
        fn(**kwargs)
    except CommandExit as exc:
        return exc.exit_code
    finally:
        if pause:
            gc.enable()
    return 0


def _one_file(kwargs: dict[str, Any]) -> bool:
    paths = kwargs.get("paths") or ()
    return len(paths) == 1 and Path(paths[0]).is_file()


def parse(fn: Callable, argv: Sequence[str]) -> dict[str, Any]:
    """Keyword arguments of ``fn`` from ``argv``; raises :class:`_Declined` for anything unusual."""
    from vado.cli.params import Param

    hints = typing.get_type_hints(fn)
    options: dict[str, tuple[str, Any, Any]] = {}  # flag → (parameter, info, type)
    positional: list[tuple[str, Any, Any]] = []
    values: dict[str, Any] = {}
    for name, param in inspect.signature(fn).parameters.items():
        info = param.default
        kind = hints.get(name, str)
        if not isinstance(info, Param):
            raise _Declined
        if info.kind == "argument":
            positional.append((name, info, kind))
        else:
            for decl in info.param_decls or ():
                options[decl] = (name, info, kind)
        values[name] = None if info.default is ... else info.default
    given: dict[str, list[str]] = {}
    flags: set[str] = set()
    rest: list[str] = []
    items = list(argv)
    i = 0
    while i < len(items):
        item = items[i]
        i += 1
        if item == "--":
            rest.extend(items[i:])
            break
        if item.startswith("-") and item != "-":
            flag, eq, inline = item.partition("=")
            if flag not in options:
                raise _Declined
            name, info, kind = options[flag]
            if _base(kind) is bool:
                if eq:
                    raise _Declined
                flags.add(name)
                continue
            if eq:
                value = inline
            elif i < len(items):
                value = items[i]
                i += 1
            else:
                raise _Declined
            given.setdefault(name, []).append(value)
            continue
        rest.append(item)
    for name in flags:
        values[name] = True
    for name, raw in given.items():
        _, info, kind = next(v for v in options.values() if v[0] == name)
        values[name] = _convert(raw, kind, info)
    if positional:
        if len(positional) != 1:
            raise _Declined
        name, info, kind = positional[0]
        if not rest:
            if info.default is ...:
                raise _Declined
        else:
            values[name] = _convert(rest, kind, info)
    elif rest:
        raise _Declined
    return values


def _base(kind: Any) -> Any:
    """``X`` of ``Optional[X]``."""
    args = [a for a in typing.get_args(kind) if a is not type(None)]
    if typing.get_origin(kind) is typing.Union and len(args) == 1:
        return args[0]
    return kind


def _convert(raw: list[str], kind: Any, info: Any) -> Any:
    kind = _base(kind)
    if typing.get_origin(kind) in (list, typing.List):
        (item,) = typing.get_args(kind) or (str,)
        return [_one(r, item, info) for r in raw]
    if len(raw) != 1:
        raise _Declined  # a single-valued option given twice: Typer decides
    return _one(raw[0], kind, info)


def _one(text: str, kind: Any, info: Any) -> Any:
    if kind is str:
        return text
    if kind is Path:
        return Path(text)
    if kind is int:
        try:
            value = int(text)
        except ValueError:
            raise _Declined from None
        if (info.min is not None and value < info.min) or (info.max is not None and value > info.max):
            raise _Declined
        return value
    if typing.get_origin(kind) is typing.Literal:
        if text not in typing.get_args(kind):
            raise _Declined
        return text
    raise _Declined
