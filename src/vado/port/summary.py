"""Renderings of a :class:`~vado.model.port.PortResult`: a terminal summary and JSON."""

from __future__ import annotations

import io
import json
from collections import Counter

from vado.model import Applicability, to_json
from vado.model.port import PortResult


#: Unsafe fixes listed one per row in the text summary; the JSON form lists all of them.
_MAX_REVIEWED = 500


def render_port_json(result: PortResult) -> str:
    """The whole result as JSON (schema version in ``schema_version``)."""
    doc = to_json(result)
    doc["tool"] = {"name": "vado", "version": result.tool_version}
    return json.dumps(doc, indent=2, sort_keys=False) + "\n"


def render_port_text(result: PortResult, *, width: int | None = None, color: bool = False, diffs: bool = False) -> str:
    """What was translated, what remains and why, for humans."""
    from rich.console import Console
    from rich.table import Table

    buf = io.StringIO()
    console = Console(file=buf, width=width or 100, no_color=not color, color_system="standard" if color else None, highlight=False)
    applied: Counter[str] = Counter()
    remaining: Counter[str] = Counter()
    for f in result.files:
        applied.update(f.applied)
        remaining.update(f.remaining)
    translated = [f for f in result.files if f.status == "translated"]
    unchanged = [f for f in result.files if f.status == "unchanged"]
    failed = [f for f in result.files if f.status == "failed"]
    console.print(f"vado port {result.root} → {result.out} (target {result.target})")
    console.print(f"{len(translated)} files translated, {len(unchanged)} unchanged, {len(failed)} failed, {len(result.skips)} skipped")
    for line in result.left_out:
        console.print(line, markup=False)
    if applied:
        table = Table(title="applied fixes", show_edge=False, box=None)
        table.add_column("kind")
        table.add_column("count", justify="right")
        for tag, n in sorted(applied.items(), key=lambda kv: (-kv[1], kv[0])):
            table.add_row(tag, str(n))
        console.print(table)
    if result.amd_support:
        console.print("existing AMD support: these build files already build for AMD GPUs, so their build "
                      "fixes were left out (--build-fixes applies them):", markup=False)
        for line in result.amd_support:
            console.print(f"  {line}", markup=False)
    reviewed = [(f.path, d) for f in result.files for d in f.unsafe_applied]
    if reviewed:
        # Unsafe fixes applied (build files in a new tree, or all with --unsafe-fixes): each one listed.
        table = Table(title="unsafe fixes applied (review them in the diff)", show_edge=False, box=None)
        table.add_column("file", no_wrap=True)
        table.add_column("fix")
        for path, description in reviewed[:_MAX_REVIEWED]:
            table.add_row(path, description)
        console.print(table)
        if len(reviewed) > _MAX_REVIEWED:
            console.print(f"… and {len(reviewed) - _MAX_REVIEWED} more unsafe fixes (--format json lists every one)")
    if result.remaining:
        table = Table(title="what remains for humans", show_edge=False, box=None)
        table.add_column("location", no_wrap=True)
        table.add_column("code", no_wrap=True)
        table.add_column("fix", no_wrap=True)
        table.add_column("why")
        for f in result.remaining:
            table.add_row(f.span.location(), f.code, _fix_note(f), f.message)
        console.print(table)
        unsafe = sum(1 for f in result.remaining if f.fix is not None and f.fix.applicability is Applicability.UNSAFE)
        if unsafe:
            console.print(f"{unsafe} of them have an unsafe fix: review it, then port again with --unsafe-fixes")
    else:
        console.print("nothing remains: every finding for this target was fixed")
    for f in failed:
        console.print(f"failed: {f.path}: {f.error}", markup=False)
    out = buf.getvalue()
    if diffs:
        # Diffs are data: printed as they are, never wrapped or styled by the console.
        out += "".join(f.diff for f in translated)
    return out


def _fix_note(finding) -> str:
    """``unsafe`` / ``hint`` for a finding that carries a fix not applied, else empty."""
    if finding.fix is None:
        return ""
    return "unsafe" if finding.fix.applicability is Applicability.UNSAFE else "hint"
