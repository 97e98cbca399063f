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
    from vado.report._summary import build_lines

    # Which configuration decided the branches the port edits (vado.build.judged); a guess is said on stderr.
    for line in build_lines(result, amd=False) if result.build is not None and not result.build.guessed else ():
        console.print(line.replace("findings in branches it does not compile are marked inactive",
                                   "branches it does not compile are left as they are"), markup=False)
    if applied:
        table = Table(title="applied fixes", show_edge=False, box=None)
        table.add_column("kind")
        table.add_column("count", justify="right")
        for tag, n in sorted(applied.items(), key=lambda kv: (-kv[1], kv[0])):
            table.add_row(tag, str(n))
        console.print(table)
    if result.amd_support:
        console.print("existing AMD support: these build files already build for AMD GPUs, so their build "
                      "fixes were left out (--build-fixes applies them), except that an nvcc flag hipcc rejects "
                      "is kept from hipcc, as it breaks that build too:", markup=False)
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


#: The report a port writes into its output tree (``vado port -o OUT``), beside the ported files.
REPORT_NAME = "vado-port-report.md"


def _md_cell(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


#: How much of "What changed, file by file" the Markdown report lists (the JSON report has all of it).
_MD_CHANGED_FILES = 200
_MD_CHANGES_PER_FILE = 8


def render_port_markdown(result: PortResult, *, archs: tuple[str, ...] = ()) -> str:
    """The port as a Markdown report for the output tree: what was done, what to check next (verify, the
    unsafe fixes with the diffs of their files), and what remains for a person."""
    applied: Counter[str] = Counter()
    for f in result.files:
        applied.update(f.applied)
    translated = [f for f in result.files if f.status == "translated"]
    failed = [f for f in result.files if f.status == "failed"]
    reviewed = [(f, d) for f in result.files for d in f.unsafe_applied]
    lines = [f"# vado port: `{result.root}` → `{result.out}`", "",
             f"Target `{result.target}`; {len(result.files)} files, {len(translated)} translated, "
             f"{len(failed)} failed, {len(result.skips)} skipped; vado {result.tool_version}.", "",
             "## Next steps", ""]
    step = 1
    where = f" for {', '.join(archs)}" if archs else ""
    lines.append(f"{step}. Compile the port: `vado verify {result.out}` builds every translation unit with the "
                 f"target's hipcc{where} and maps errors back to the original lines. Nothing here was compiled yet.")
    step += 1
    if reviewed:
        lines.append(f"{step}. Review the {len(reviewed)} unsafe fix{'es' if len(reviewed) != 1 else ''} applied "
                     f"(below, with the diff of each file they changed): usually right, but they may change behaviour.")
        step += 1
    if result.remaining:
        lines.append(f"{step}. {len(result.remaining)} finding{'s' if len(result.remaining) != 1 else ''} remain for a "
                     f"person (below); `vado agent` can propose edits that verify accepts.")
        step += 1
    if failed:
        lines.append(f"{step}. {len(failed)} file{'s' if len(failed) != 1 else ''} could not be ported (below).")
    lines.append("")
    if applied:
        lines += ["## Applied fixes", "", "| kind | count |", "| --- | ---: |"]
        lines += [f"| {tag} | {n} |" for tag, n in sorted(applied.items(), key=lambda kv: (-kv[1], kv[0]))]
        lines.append("")
    changed = [f for f in translated if f.changes]
    if changed:
        lines += ["## What changed, file by file", ""]
        for f in changed[:_MD_CHANGED_FILES]:
            items = list(f.changes.items())
            said = "; ".join(_md_cell(d) + (f" (×{n})" if n > 1 else "") for d, n in items[:_MD_CHANGES_PER_FILE])
            more = f"; and {len(items) - _MD_CHANGES_PER_FILE} more" if len(items) > _MD_CHANGES_PER_FILE else ""
            lines.append(f"- `{f.path}`: {said}{more}")
        if len(changed) > _MD_CHANGED_FILES:
            lines.append(f"- and {len(changed) - _MD_CHANGED_FILES} more files (`vado port -f json`: each file's "
                         f"`changes`)")
        lines.append("")
    if result.amd_support:
        lines += ["## Existing AMD support", "",
                  "These build files already build for AMD GPUs, so their build fixes were left out "
                  "(`--build-fixes` applies them), except that an nvcc flag hipcc rejects is kept from hipcc, "
                  "as it breaks that build too:", ""]
        lines += [f"- `{line}`" for line in result.amd_support]
        lines.append("")
    if reviewed:
        lines += [f"## Unsafe fixes applied ({len(reviewed)})", "", "| file | fix |", "| --- | --- |"]
        lines += [f"| `{f.path}` | {_md_cell(d)} |" for f, d in reviewed]
        lines += ["", "### Their diffs", ""]
        seen: set[str] = set()
        for f, _ in reviewed:
            if f.path in seen or not f.diff:
                continue
            seen.add(f.path)
            fence = "````" if "```" in f.diff else "```"
            lines += [f"`{f.path}`:", "", f"{fence}diff", f.diff.rstrip("\n"), fence, ""]
    if result.remaining:
        lines += ["## What remains for a person", "", "| location | code | why |", "| --- | --- | --- |"]
        lines += [f"| `{f.span.location()}` | {f.code} | {_md_cell(f.message)} |" for f in result.remaining]
        lines.append("")
    else:
        lines += ["Nothing remains: every finding for this target was fixed.", ""]
    if failed:
        lines += ["## Files not ported", ""]
        lines += [f"- `{f.path}`: {_md_cell(f.error)}" for f in failed]
        lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"
