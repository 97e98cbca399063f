"""``vado explain CODE``: a rule's documentation, from its docstring."""

from __future__ import annotations

import json
from typing import Literal, Optional

import typer


def explain(
    code: Optional[str] = typer.Argument(None, help="Rule code (PTX001) or name (inline-ptx-asm)."),
    list_all: bool = typer.Option(False, "--list", help="List every rule code with its summary."),
    format: Literal["text", "json"] = typer.Option("text", "--format", "-f", help="Output format."),
) -> None:
    """Explain what a finding code means, why it matters and what to do about it."""
    from vado.cli.terminal import get_terminal
    from vado.errors import UsageError
    from vado.rules.base import DOC_SECTIONS
    from vado.rules.registry import FAMILIES, all_rules, get_rule

    term = get_terminal()
    if list_all or code is None:
        rules = all_rules()
        if format == "json":
            term.data(json.dumps([_rule_json(r) for r in rules], indent=2))
            return
        from rich.table import Table

        table = Table(show_edge=False, box=None, pad_edge=False)
        table.add_column("code", style="code", no_wrap=True)
        table.add_column("name", no_wrap=True)
        table.add_column("severity", no_wrap=True)
        table.add_column("summary")
        family = None
        for r in rules:
            fam = r.code.rstrip("0123456789")
            if fam != family:
                family = fam
                table.add_row(f"[bold]{fam}[/bold]", f"[dim]{FAMILIES.get(fam, '')}[/dim]", "", "")
            table.add_row(r.code, r.name, r.severity.value, r.one_line())
        term.show(table)
        return
    try:
        rule = get_rule(code)
    except UsageError as exc:
        term.error(exc.what + ": " + exc.why, exc.tip)
        raise typer.Exit(2)
    if format == "json":
        term.data(json.dumps(_rule_json(rule), indent=2))
        return
    sections = rule.doc_sections()
    term.out.print(f"[code]{rule.code}[/code] {rule.name}  [dim]({rule.severity.value})[/dim]")
    intro = sections.get("", "")
    if intro:
        term.out.print(rst_to_text(intro), markup=False, highlight=False)
    for title in DOC_SECTIONS:
        body = sections.get(title)
        if body:
            term.out.print()
            term.out.print(f"[bold]{title}[/bold]")
            term.out.print(rst_to_text(body), markup=False, highlight=False)


def rst_to_text(text: str) -> str:
    """A rule docstring's reStructuredText as plain text for a terminal: code blocks indented by four
    spaces without their directive, ````literal```` as `literal`, links as ``text (url)``."""
    import re

    from vado.report.sarif import rst_to_markdown

    out: list[str] = []
    in_code = False
    for line in rst_to_markdown(text).splitlines():
        if line.startswith("```"):
            in_code = not in_code
            continue
        if in_code:
            out.append("    " + line if line else "")
        else:
            out.append(re.sub(r"\[([^\]]+)\]\(([^)]+)\)", r"\1 (\2)", line))
    return "\n".join(out)


def _rule_json(rule) -> dict:
    sections = rule.doc_sections()
    return {
        "code": rule.code,
        "name": rule.name,
        "family": rule.code.rstrip("0123456789"),
        "severity": rule.severity.value,
        "summary": rule.one_line(),
        "file_kinds": sorted(k.value for k in rule.file_kinds),
        "sections": {k: v for k, v in sections.items() if k},
    }
