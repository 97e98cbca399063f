"""``vado lookup NAME``: what a CUDA name becomes on each target, since when, and why not where it doesn't."""

from __future__ import annotations

import json
from typing import Literal, Optional

import typer


def lookup(
    name: Optional[str] = typer.Argument(None, help="A CUDA API name (cudaMallocAsync) or header (cublas_v2.h)."),
    target: Optional[str] = typer.Option(None, "--target", "-t", help="One target (default: every profile)."),
    format: Literal["text", "json"] = typer.Option("text", "--format", "-f", help="Output format."),
    show_stats: bool = typer.Option(False, "--stats", help="Rows per library and support level."),
) -> None:
    """Look up a CUDA name in vado's API tables (imported from HIPIFY) and say what it is on each target."""
    from vado.cli.terminal import get_terminal
    from vado.errors import VadoError
    from vado.knowledge import api

    term = get_terminal()
    try:
        if show_stats:
            _stats(term, api.stats(), format)
            return
        if not name:
            term.error("no name given", "run `vado lookup NAME`, or `vado lookup --stats`")
            raise typer.Exit(2)
        entry = api.lookup(name)
        if entry is None:
            close = api.suggest(name)
            tip = ("did you mean: " + ", ".join(close) + "?") if close else "check the spelling; names are case-sensitive"
            term.error(f"unknown CUDA name {name!r}: no HIPIFY table lists it", tip)
            raise typer.Exit(2)
        targets = _load_targets(target)
    except VadoError as exc:
        term.error(exc.what + (f": {exc.why}" if exc.why else ""), exc.tip)
        raise typer.Exit(exc.exit_code)
    answers = [api.availability(entry, t) for t in targets]
    if format == "json":
        _json(term, entry, answers)
    else:
        _text(term, entry, answers)


def _load_targets(name: str | None):
    """The target profiles to answer for: one when ``--target`` names it, else all of them."""
    from vado.errors import KnowledgeError, UsageError
    from vado.knowledge.targets import all_targets, get_target

    if name is None:
        return all_targets()
    try:
        return (get_target(name),)
    except KnowledgeError as exc:
        raise UsageError(exc.what, exc.why, exc.tip) from exc


def _json(term, entry, answers) -> None:
    from vado.knowledge.api import source_of
    from vado.model import SCHEMA_VERSION, to_json

    source = source_of(entry)
    doc = {
        "schema_version": SCHEMA_VERSION,
        "entry": to_json(entry),
        "source": source,
        "targets": to_json(answers),
    }
    term.data(json.dumps(doc, indent=2))


def _versions(prefix: str, entry) -> str:
    parts = []
    for what in ("added", "deprecated", "changed", "removed", "experimental"):
        value = getattr(entry, f"{prefix}_{what}", "")
        if value:
            parts.append(f"{what} {value}")
    return ", ".join(parts)


def _text(term, entry, answers) -> None:
    from rich.table import Table

    head = f"[code]{entry.cuda_name}[/code]  [dim]{entry.library} {entry.kind}"
    if entry.section and entry.section != entry.library:
        head += f", {entry.section}"
    term.out.print(head + "[/dim]", highlight=False)
    cuda = _versions("cuda", entry)
    if cuda:
        term.out.print(f"  CUDA: {cuda}", markup=False)
    for label, prefix, value in (("HIP", "hip", entry.hip_name), ("ROC", "roc", entry.roc_name)):
        if value:
            versions = _versions(prefix, entry)
            term.out.print(f"  {label}:  {value}" + (f" ({versions})" if versions else ""), markup=False)
    term.out.print(f"  support: {entry.support.value}", markup=False)
    if entry.note:
        term.out.print(f"  note: {entry.note}", markup=False)
    term.out.print()
    table = Table(show_edge=False, box=None, pad_edge=False)
    table.add_column("target", no_wrap=True)
    table.add_column("status", no_wrap=True)
    table.add_column("use", no_wrap=True)
    table.add_column("since", no_wrap=True)
    table.add_column("why")
    for a in answers:
        table.add_row(a.target, a.status.value, a.replacement or "-", a.since or "-", a.reason)
    term.show(table)


def _stats(term, stats: dict[str, dict[str, int]], format: str) -> None:
    levels = ("supported", "deprecated", "removed", "experimental", "unsupported")
    if format == "json":
        total = {lv: sum(s.get(lv, 0) for s in stats.values()) for lv in (*levels, "total")}
        term.data(json.dumps({"libraries": stats, "total": total}, indent=2))
        return
    from rich.table import Table

    table = Table(show_edge=False, box=None, pad_edge=False)
    table.add_column("library", no_wrap=True)
    for lv in levels:
        table.add_column(lv, justify="right", no_wrap=True)
    table.add_column("total", justify="right", no_wrap=True)
    sums = dict.fromkeys((*levels, "total"), 0)
    for lib, s in stats.items():
        table.add_row(lib, *(str(s.get(lv, 0)) for lv in levels), str(s.get("total", 0)))
        for key in sums:
            sums[key] += s.get(key, 0)
    table.add_row("[bold]total[/bold]", *(f"[bold]{sums[lv]}[/bold]" for lv in levels), f"[bold]{sums['total']}[/bold]")
    term.show(table)
