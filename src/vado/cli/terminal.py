"""The one terminal facade: every command prints through this, never through print().

Data goes to stdout (or a file), summaries and errors to stderr. Colour follows
NO_COLOR / FORCE_COLOR and whether the stream is a terminal; the width follows
COLUMNS, so tests can fix both and compare exact output.
"""

from __future__ import annotations

import os
import sys

from rich.console import Console
from rich.theme import Theme

_THEME = Theme(
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


class Terminal:
    """Two rich consoles (stdout for data, stderr for messages) and a few message helpers."""

    def __init__(self, *, quiet: bool = False) -> None:
        width = None
        if os.environ.get("COLUMNS", "").isdigit():
            width = int(os.environ["COLUMNS"])
        no_color = bool(os.environ.get("NO_COLOR"))
        self.out = Console(theme=_THEME, width=width, no_color=no_color, highlight=False, soft_wrap=False)
        self.err = Console(theme=_THEME, width=width, no_color=no_color, highlight=False, stderr=True)
        self.quiet = quiet

    def data(self, text: str) -> None:
        """Write machine-readable text to stdout exactly as given."""
        sys.stdout.write(text)
        if not text.endswith("\n"):
            sys.stdout.write("\n")
        sys.stdout.flush()

    def show(self, renderable) -> None:
        """Render something rich to stdout."""
        self.out.print(renderable)

    def info(self, message: str) -> None:
        """A progress or summary line on stderr (suppressed by --quiet)."""
        if not self.quiet:
            self.err.print(message)

    def warn(self, message: str) -> None:
        """A warning on stderr."""
        self.err.print(f"[warn]warning:[/warn] {message}")

    def error(self, message: str, tip: str = "") -> None:
        """An error on stderr, with an optional tip on what to do."""
        self.err.print(f"[error]error:[/error] {message}")
        if tip:
            self.err.print(f"[dim]tip:[/dim] {tip}")

    def progress(self, total: int | None, description: str):
        """A rich progress bar on stderr; disabled when quiet or not a terminal."""
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


def get_terminal(quiet: bool = False) -> Terminal:
    """A terminal for one command invocation."""
    return Terminal(quiet=quiet)
