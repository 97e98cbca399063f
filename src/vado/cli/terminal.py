"""The one terminal facade: every command prints through this, never through print().

Data goes to stdout (or a file), summaries and errors to stderr. Colour follows
NO_COLOR / FORCE_COLOR and whether the stream is a terminal (``--color`` of the
commands that write a text report decides over them); the width follows
COLUMNS, so tests can fix both and compare exact output.
"""

from __future__ import annotations

import os
import sys

_STYLES = (
    {
        "ok": "green",
        "warn": "yellow",
        "error": "bold red",
        "dim": "dim",
        "code": "cyan",
        "verdict.moves-as-is": "green",
        "verdict.moves-with-automatic-edits": "cyan",
        "verdict.needs-manual-work": "yellow",
        "verdict.blocked": "bold red",
        "severity.info": "dim",
        "severity.low": "blue",
        "severity.medium": "yellow",
        "severity.high": "red",
        "severity.critical": "bold red",
    }
)


def _theme():
    from rich.theme import Theme

    return Theme(_STYLES)


class Terminal:
    """Two rich consoles (stdout for data, stderr for messages) and a few message helpers."""

    def __init__(self, *, quiet: bool = False) -> None:
        self.quiet = quiet
        self._out = self._err = None

    # The consoles are made on first use: importing rich is a good part of a quiet one-file
    # audit that writes JSON or SARIF and never needs it.
    @property
    def out(self):
        if self._out is None:
            self._out = _console(stderr=False)
        return self._out

    @property
    def err(self):
        if self._err is None:
            self._err = _console(stderr=True)
        return self._err

    def data(self, text: str) -> None:
        """Write machine-readable text to stdout exactly as given."""
        sys.stdout.write(text)
        if not text.endswith("\n"):
            sys.stdout.write("\n")
        sys.stdout.flush()

    def report_style(self, color: str = "auto") -> dict:
        """``width`` and ``color`` for a text report written to stdout.

        ``color`` is the ``--color`` option. ``auto``: colour on a terminal unless ``NO_COLOR`` is set
        (or ``TERM=dumb``); ``FORCE_COLOR`` counts a pipe as a terminal (rich's rule). ``always`` and
        ``never`` decide whatever the environment says. On a terminal the report takes its width;
        piped or redirected, the report's fixed default width, so files and pipes get the same text
        whatever terminal ran the command.
        """
        terminal = self.out.is_terminal
        width = self.out.width if terminal else None
        if color == "always":
            return {"width": width, "color": True}
        if color == "never" or not terminal:
            return {"width": width, "color": False}
        return {"width": width, "color": not self.out.no_color and not self.out.is_dumb_terminal}

    def show(self, renderable) -> None:
        """Render something rich to stdout."""
        self.out.print(renderable)

    # Messages are text, not markup: `vado: ignore[WARP001]`, `[tool.vado]` and `vado[mcp]` are shown as written.

    def info(self, message: str) -> None:
        """A progress or summary line on stderr (suppressed by --quiet)."""
        if not self.quiet:
            self.err.print(message, markup=False)

    def warn(self, message: str) -> None:
        """A warning on stderr."""
        self.err.print(f"[warn]warning:[/warn] {_escape(message)}")

    def error(self, message: str, tip: str = "") -> None:
        """An error on stderr, with an optional tip on what to do."""
        self.err.print(f"[error]error:[/error] {_escape(message)}")
        if tip:
            self.err.print(f"[dim]tip:[/dim] {_escape(tip)}")

    def progress(self, total: int | None, description: str):
        """A rich progress bar on stderr; disabled when quiet or not a terminal."""
        if self.quiet or not self.err.is_terminal:
            # Nothing is drawn: rich.progress is not even imported (a hook's one-file audit).
            return _NoProgress()
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        return Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=self.err,
            disable=self.quiet or not self.err.is_terminal,
            transient=True,
        )

    def bar(self, description: str, *, enabled: bool = True) -> "ProgressBar":
        """A ``progress(done, total)`` callback drawn as a bar on stderr (see :class:`ProgressBar`).

        ``enabled`` False (JSON on stdout for a program to read, say) draws nothing,
        as ``--quiet`` and a stderr that is not a terminal do.
        """
        return ProgressBar(self if enabled else None, description)


class ProgressBar:
    """The CLI's side of a library's ``progress(done, total)`` callback: a rich bar on stderr.

    Use it as a context manager and pass it as the callback::

        with term.bar("porting") as bar:
            port_tree(..., progress=bar)

    The library reports counts and never prints; this draws them. Nothing is drawn
    with ``--quiet`` or when stderr is not a terminal (a pipe, a CI log, a test), so
    what the command writes there is the same with and without it. The bar is
    removed when the block ends (``transient``): the summary line follows it.
    """

    def __init__(self, term: "Terminal | None", description: str) -> None:
        self._cm = term.progress(None, description) if term is not None else _NoProgress()
        self._description = description
        self.bar = self._cm
        self.task = 0

    def __enter__(self) -> "ProgressBar":
        self.bar = self._cm.__enter__()
        self.task = self.bar.add_task(self._description, total=None)
        return self

    def __exit__(self, *exc):
        return self._cm.__exit__(*exc)

    def __call__(self, done: int, total: int) -> None:
        self.bar.update(self.task, completed=done, total=total)


class _NoProgress:
    """What :meth:`Terminal.progress` gives when nothing is shown: the calls rich's bar takes, doing nothing."""

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        return None

    def add_task(self, *args, **kwargs) -> int:
        return 0

    def update(self, *args, **kwargs) -> None:
        return None

    def advance(self, *args, **kwargs) -> None:
        return None


def _console(*, stderr: bool):
    from rich.console import Console

    width = None
    if os.environ.get("COLUMNS", "").isdigit():
        width = int(os.environ["COLUMNS"])
    no_color = bool(os.environ.get("NO_COLOR"))
    if stderr:
        return Console(theme=_theme(), width=width, no_color=no_color, highlight=False, stderr=True)
    return Console(theme=_theme(), width=width, no_color=no_color, highlight=False, soft_wrap=False)


def get_terminal(quiet: bool = False) -> Terminal:
    """A terminal for one command invocation."""
    return Terminal(quiet=quiet)


def check_output_path(path) -> None:
    """Refuse an output path that cannot be written as a file: a directory, or one in a missing directory.

    Raises :class:`vado.errors.UsageError` (exit code 2) before any work is done,
    so that ``-o out/report.sarif`` without ``out/`` fails at once and clearly.
    """
    from pathlib import Path

    from vado.errors import UsageError

    p = Path(path)
    if p.is_dir():
        raise UsageError(f"{p} is a directory", "the output is one file", f"pass a file name, e.g. {p / 'report'}")
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise UsageError(f"cannot write {p}", f"the directory {parent} does not exist", f"create it first (mkdir -p {parent})")


def write_output(term, path, text: str) -> None:
    """Write a command's ``-o`` file, or report why not and exit.

    Exit 2 for a path that cannot be a file (:func:`check_output_path`), 3 when
    the write itself fails; ``wrote PATH`` on stderr otherwise.
    """
    import typer

    from vado.errors import VadoError

    try:
        check_output_path(path)
        path.write_text(text, encoding="utf-8")
    except VadoError as exc:
        term.error(exc.what + (f": {exc.why}" if exc.why else ""), exc.tip)
        raise typer.Exit(2)
    except OSError as exc:
        term.error(f"cannot write {path}: {exc.strerror or exc}", "check the path and its permissions")
        raise typer.Exit(3)
    term.info(f"wrote {path}")


def __getattr__(name: str):
    # ``_THEME``, the rich Theme of the CLI, is made on request so that importing this module needs no rich.
    if name == "_THEME":
        return _theme()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _escape(text: str) -> str:
    from rich.markup import escape

    return escape(text)
