"""Rendering a fleet plan: text, Markdown, self-contained HTML, JSON, and the placement files.

Every renderer is a pure function of a :class:`~vado.model.plan.FleetPlan`;
:func:`write_outputs` writes them all (and one Kubernetes patch file per
workload, manifest and pool, plus ``ray.json``) into a directory.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from vado.errors import ReportError
from vado.model import SCHEMA_VERSION, Verdict, from_json, to_json
from vado.model.plan import FleetPlan, Readiness, WorkloadPlan

TOOL_NAME = "vado"
FORMATS = ("text", "json", "markdown", "html")
_VERDICTS = tuple(Verdict)
_READINESS = tuple(Readiness)
READINESS_COLOURS = {
    Readiness.NOW: "#2e7d32",
    Readiness.AFTER_PORT: "#1565c0",
    Readiness.AFTER_MANUAL_WORK: "#ef8f00",
    Readiness.NO: "#c62828",
}


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word[:-1] + 'ies' if word.endswith('y') else word + 's'}"


def _hours(h: float) -> str:
    return f"{h:g}"


def _primary_effort(w: WorkloadPlan, primary: str):
    return w.effort_by_target.get(primary, w.effort)


def _fit_text(w: WorkloadPlan, pool: str) -> str:
    fit = next((f for f in w.fits if f.pool == pool), None)
    if fit is None:
        return "—"
    return fit.readiness.value if fit.route == "cuda" else f"{fit.readiness.value} ({fit.route})"


# --- JSON --------------------------------------------------------------------------


def plan_document(plan: FleetPlan) -> dict[str, Any]:
    """The JSON document of ``plan`` as Python values."""
    body = to_json(plan)
    doc: dict[str, Any] = {"schema_version": SCHEMA_VERSION, "kind": "vado-plan",
                           "tool": {"name": TOOL_NAME, "version": plan.tool_version}}
    for key, value in body.items():
        if key not in ("schema_version", "tool_version"):
            doc[key] = value
    return doc


def render_json(plan: FleetPlan) -> str:
    """``plan`` as indented JSON ending in a newline; two renders of one plan are identical."""
    return json.dumps(plan_document(plan), indent=2, ensure_ascii=False) + "\n"


def load_plan_json(text: str | bytes) -> FleetPlan:
    """Read a document written by :func:`render_json` back; :class:`ReportError` when it is not one."""
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ReportError("cannot read the plan", f"it is not JSON ({exc})",
                          "pass a plan.json written by `vado plan`") from None
    if not isinstance(data, dict) or data.get("kind") != "vado-plan":
        raise ReportError("cannot read the plan", "it is JSON but not a vado plan", "pass a plan.json written by `vado plan`")
    version = str(data.get("schema_version", ""))
    if version.split(".")[0] != SCHEMA_VERSION.split(".")[0]:
        raise ReportError("cannot read the plan", f"it has schema version {version}",
                          "re-run `vado plan` with this vado")
    body = {k: v for k, v in data.items() if k not in ("tool", "kind")}
    body["tool_version"] = (data.get("tool") or {}).get("version", "")
    try:
        return from_json(FleetPlan, body)
    except (TypeError, ValueError, KeyError, AttributeError) as exc:
        raise ReportError("cannot read the plan", f"its content does not decode ({type(exc).__name__}: {exc})") from None


# --- text --------------------------------------------------------------------------


def _table(head: list[str], rows: list[list[str]], right: set[int] = frozenset()) -> list[str]:
    widths = [max(len(str(r[i])) for r in [head, *rows]) for i in range(len(head))]

    def line(cells):
        return "  ".join(str(c).rjust(widths[i]) if i in right else str(c).ljust(widths[i])
                         for i, c in enumerate(cells)).rstrip()

    return [line(head), *(line(r) for r in rows)]


def render_text(plan: FleetPlan) -> str:
    """A terminal summary: the migration order with verdicts per target and pools."""
    st = plan.stats
    lines = [
        f"vado plan: {_plural(st.repos, 'repository')}, {_plural(st.workloads, 'workload')}; primary target {plan.primary}",
        "",
        "Migration order (cheapest wins first)",
    ]
    head = ["#", "workload", "wave", *plan.targets, "hours", *plan.pools]
    rows = []
    for w in plan.workloads:
        rows.append([str(w.order), w.key, w.wave]
                    + [w.verdict_for(t).label if w.verdict_for(t) else "—" for t in plan.targets]
                    + [_hours(_primary_effort(w, plan.primary).hours)]
                    + [_fit_text(w, p) for p in plan.pools])
    lines += _table(head, rows, {0, 3 + len(plan.targets)}) if rows else ["  no workloads"]
    blocked = [w for w in plan.workloads if w.blockers]
    if blocked:
        lines += ["", "Blockers"]
        for w in blocked:
            codes = ", ".join(f"{b.code}×{b.count} ({', '.join(b.targets)})" for b in w.blockers)
            lines.append(f"  {w.key}: {codes}")
    failed = [r for r in plan.repos if r.error]
    if failed:
        lines += ["", "Failed repositories"]
        for r in failed:
            err = r.error or {}
            lines.append(f"  {r.name}: {err.get('what', '')}" + (f": {err['why']}" if err.get("why") else ""))
    return "\n".join(lines) + "\n"


# --- Markdown ----------------------------------------------------------------------


def _md(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _md_table(head: list[str], rows: list[list[str]]) -> list[str]:
    out = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    out += ["| " + " | ".join(_md(c) for c in r) + " |" for r in rows]
    return out


def render_markdown(plan: FleetPlan) -> str:
    """``plan`` as a Markdown document."""
    st = plan.stats
    out = [
        "# vado migration plan",
        "",
        f"{st.repos} repositories ({st.repos_failed} failed, {st.repos_cached} from the cache), "
        f"{st.workloads} workloads, {st.files_scanned} files ({st.files_rescanned} rescanned). "
        f"Targets: {', '.join(f'`{t}`' for t in plan.targets)}; the order is for `{plan.primary}`. "
        f"Executor: {st.executor} ({st.workers} workers), {st.duration_s:.2f} s. vado {plan.tool_version}.",
        "",
        "## Migration order",
        "",
        "Cheapest wins first: workloads that move as is, then those vado's automatic edits cover, then manual "
        "work, each wave by effort for the primary target. Blocked workloads stay on NVIDIA.",
        "",
    ]
    rows = [[str(w.order), f"`{w.key}`", w.wave]
            + [w.verdict_for(t).label if w.verdict_for(t) else "—" for t in plan.targets]
            + [_hours(_primary_effort(w, plan.primary).hours), str(_primary_effort(w, plan.primary).lines)]
            for w in plan.workloads]
    out += _md_table(["#", "Workload", "Wave", *[f"`{t}`" for t in plan.targets], "Hours", "Lines"], rows) if rows else ["No workloads."]
    out += ["", "## Pools", "",
            "Where each workload can run, and when: `now`, `after-port` (after `vado port`), "
            "`after-manual-work`, or `no`; the route into the pool in brackets.", ""]
    rows = [[f"`{w.key}`"] + [_fit_text(w, p) for p in plan.pools] + [", ".join(w.placement.pools) or "—"]
            for w in plan.workloads]
    out += _md_table(["Workload", *plan.pools, "Placed on"], rows) if rows else ["No workloads."]
    out += ["", "## Blockers", ""]
    blocked = [w for w in plan.workloads if w.blockers]
    if blocked:
        for w in blocked:
            out.append(f"- `{w.key}`:")
            for b in w.blockers:
                out.append(f"  - `{b.code}` ×{b.count} blocks {', '.join(f'`{t}`' for t in b.targets)}"
                           + (f": {_md(b.summary)}" if b.summary else ""))
    else:
        out.append("Nothing blocks any workload.")
    out += ["", "## Repositories", ""]
    rows = []
    for r in plan.repos:
        verdicts = ", ".join(f"{tv.target}: {tv.verdict.label}" for tv in r.verdicts) or "—"
        status = "error: " + (r.error or {}).get("what", "") if r.error else ("cached" if r.cached else f"{r.files_rescanned} rescanned")
        rows.append([r.name, f"`{r.source}`", r.commit[:12] or "—", verdicts, str(r.workloads), str(r.files_scanned),
                     str(r.findings), status])
    out += _md_table(["Repository", "Source", "Commit", "Verdicts", "Workloads", "Files", "Findings", "Audit"], rows)
    notes = [(r.name, n) for r in plan.repos for n in r.notes]
    if notes:
        out += [""] + [f"- {name}: {_md(n)}" for name, n in notes]
    out += ["", "## Placement", ""]
    for w in plan.workloads:
        if not w.placement.pools:
            continue
        out.append(f"### `{w.key}`")
        out.append("")
        out.append(f"Pools: {', '.join(w.placement.pools)}.")
        for k in w.placement.kubernetes:
            where = f"`{k.manifest}` {k.kind} `{k.name}`" if k.manifest else f"pod template `{k.name}` (no manifest)"
            out.append(f"- Kubernetes, {k.pool}: {where}")
            for n in k.notes:
                out.append(f"  - {_md(n)}")
        out.append(f"- Ray, any pool: `{json.dumps(w.placement.ray.any_pool, sort_keys=True)}`")
        for n in w.placement.ray.notes:
            out.append(f"  - {_md(n)}")
        out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


# --- HTML --------------------------------------------------------------------------


def _stacked(title: str, rows: list[tuple[str, list[tuple[int, str, str]]]], unit: str) -> str:
    """Inline SVG: one bar per row, split into ``(count, colour, label)`` segments."""
    from vado.report.html import _BAR_GAP, _BAR_HEIGHT, _LABEL_WIDTH, _PLOT_WIDTH, _clip_label, _num, _svg_open, e

    if not rows:
        return ""
    height = len(rows) * (_BAR_HEIGHT + _BAR_GAP) + _BAR_GAP
    parts = [_svg_open(height, title)]
    for i, (label, segments) in enumerate(rows):
        y = _BAR_GAP + i * (_BAR_HEIGHT + _BAR_GAP)
        total = sum(n for n, _, _ in segments)
        parts.append(f'<text x="{_LABEL_WIDTH - 8}" y="{y + 14}" text-anchor="end">{e(_clip_label(label))}'
                     f"<title>{e(label)}</title></text>")
        x = float(_LABEL_WIDTH)
        for n, colour, name in segments:
            if not n or not total:
                continue
            w = _PLOT_WIDTH * n / total
            parts.append(f'<rect x="{_num(x)}" y="{y}" width="{_num(w)}" height="{_BAR_HEIGHT}" fill="{colour}">'
                         f"<title>{e(label)}: {n} {e(name)}</title></rect>")
            x += w
        parts.append(f'<text x="{_LABEL_WIDTH + _PLOT_WIDTH + 6}" y="{y + 14}">{total} {e(unit)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _legend(items: list[tuple[str, str]]) -> str:
    from vado.report.html import e

    return '<p class="legend">' + "".join(f'<span><i style="background:{c}"></i>{e(n)}</span>' for n, c in items) + "</p>"


def render_html(plan: FleetPlan) -> str:
    """``plan`` as one self-contained HTML page (inline CSS and SVG, no script)."""
    from vado.report.html import _CSS, VERDICT_COLOURS, _table, _verdict_badge, bar_chart, e

    st = plan.stats
    body = ["<h1>vado migration plan</h1>",
            f'<p class="muted">{st.repos} repositories ({st.repos_failed} failed, {st.repos_cached} from the cache), '
            f"{st.workloads} workloads, {st.files_scanned} files ({st.files_rescanned} rescanned). Targets: "
            f"{', '.join(f'<code>{e(t)}</code>' for t in plan.targets)}; order for <code>{e(plan.primary)}</code>. "
            f"Executor {e(st.executor)} ({st.workers} workers), {st.duration_s:.2f} s. vado {e(plan.tool_version)}.</p>"]

    body.append("<h2>Workloads per verdict</h2>")
    rows = [(t, [(sum(1 for w in plan.workloads if w.verdict_for(t) is v), VERDICT_COLOURS[v], v.label) for v in _VERDICTS])
            for t in plan.targets]
    body.append(_stacked("Workloads per verdict, per target", rows, "workloads"))
    body.append(_legend([(v.label, VERDICT_COLOURS[v]) for v in _VERDICTS]))

    body.append("<h2>Pools</h2>")
    rows = [(p, [(sum(1 for w in plan.workloads for f in w.fits if f.pool == p and f.readiness is r),
                  READINESS_COLOURS[r], r.value) for r in _READINESS]) for p in plan.pools]
    body.append(_stacked("Workloads per readiness, per pool", rows, "workloads"))
    body.append(_legend([(r.value, READINESS_COLOURS[r]) for r in _READINESS]))

    body.append("<h2>Migration order</h2>")
    body.append("<p>Cheapest wins first: moves as is, then automatic edits, then manual work, each by effort for the "
                "primary target; blocked workloads stay on NVIDIA.</p>")
    items = [(f"{w.order}. {w.key}", _primary_effort(w, plan.primary).hours,
              VERDICT_COLOURS[w.verdict_for(plan.primary) or Verdict.MOVES_AS_IS]) for w in plan.workloads]
    if any(v for _, v, _ in items):
        body.append(bar_chart(f"Effort for {plan.primary} (hours)", items, value_text=lambda h: f"{_hours(h)} h"))
    rows_html = []
    for w in plan.workloads:
        eff = _primary_effort(w, plan.primary)
        rows_html.append([str(w.order), f"<code>{e(w.key)}</code>", e(w.wave)]
                         + [_verdict_badge(w.verdict_for(t)) if w.verdict_for(t) else "—" for t in plan.targets]
                         + [e(_hours(eff.hours)), str(eff.lines)]
                         + [e(_fit_text(w, p)) for p in plan.pools])
    body.append(_table(["#", "Workload", "Wave", *[f"<code>{e(t)}</code>" for t in plan.targets], "Hours", "Lines",
                        *[e(p) for p in plan.pools]], rows_html, {0, 3 + len(plan.targets), 4 + len(plan.targets)}))

    body.append("<h2>Blockers</h2>")
    blocked = [w for w in plan.workloads if w.blockers]
    if blocked:
        rows_html = [[f"<code>{e(w.key)}</code>", f"<code>{e(b.code)}</code>", str(b.count),
                      ", ".join(f"<code>{e(t)}</code>" for t in b.targets), e(b.summary) or "—"]
                     for w in blocked for b in w.blockers]
        body.append(_table(["Workload", "Code", "Count", "Blocks", "What"], rows_html, {2}))
    else:
        body.append("<p>Nothing blocks any workload.</p>")

    body.append("<h2>Repositories</h2>")
    rows_html = []
    for r in plan.repos:
        verdicts = "<br>".join(f"{e(tv.target)} {_verdict_badge(tv.verdict)}" for tv in r.verdicts) or "—"
        status = (f'<span class="s-high">{e((r.error or {}).get("what", ""))}</span>' if r.error
                  else ("cached" if r.cached else f"{r.files_rescanned} rescanned"))
        rows_html.append([e(r.name), f"<code>{e(r.source)}</code>", f"<code>{e(r.commit[:12])}</code>" if r.commit else "—",
                          verdicts, str(r.workloads), str(r.files_scanned), str(r.findings), status])
    body.append(_table(["Repository", "Source", "Commit", "Verdicts", "Workloads", "Files", "Findings", "Audit"],
                       rows_html, {4, 5, 6}))

    body.append("<h2>Placement</h2>")
    for w in plan.workloads:
        if not w.placement.pools:
            continue
        body.append(f"<h3><code>{e(w.key)}</code>: {e(', '.join(w.placement.pools))}</h3><ul>")
        for k in w.placement.kubernetes:
            where = f"<code>{e(k.manifest)}</code> {e(k.kind)} <code>{e(k.name)}</code>" if k.manifest else \
                f"pod template <code>{e(k.name)}</code> (no manifest)"
            notes = "".join(f"<li>{e(n)}</li>" for n in k.notes)
            body.append(f"<li>Kubernetes, {e(k.pool)}: {where}" + (f"<ul>{notes}</ul>" if notes else "") + "</li>")
        body.append(f"<li>Ray, any pool: <code>{e(json.dumps(w.placement.ray.any_pool, sort_keys=True))}</code></li></ul>")
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            "<title>vado migration plan</title>\n"
            f"<style>{_CSS}</style>\n</head>\n<body>\n" + "\n".join(body) + "\n</body>\n</html>\n")


def render(plan: FleetPlan, fmt: str) -> str:
    """``plan`` in ``fmt`` (one of :data:`FORMATS`)."""
    return {"text": render_text, "json": render_json, "markdown": render_markdown, "html": render_html}[fmt](plan)


# --- files -------------------------------------------------------------------------


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_") or "root"


def placement_files(plan: FleetPlan) -> dict[str, str]:
    """Relative path → content of every placement file: Kubernetes patches and ``ray.json``."""
    import yaml

    files: dict[str, str] = {}
    ray: dict[str, Any] = {}
    for w in plan.workloads:
        if not w.placement.pools:
            continue
        base = f"k8s/{_slug(w.repo)}/{_slug(w.path if w.path != '.' else 'root')}"
        for k in w.placement.kubernetes:
            stem = _slug(Path(k.manifest).stem + f"-{k.kind.lower()}-{k.name}") if k.manifest else "pod-template"
            header = f"# vado plan: {w.key} on {k.pool}" + "".join(f"\n# note: {n}" for n in k.notes) + "\n"
            files[f"{base}/{k.pool}/{stem}.patch.yaml"] = header + yaml.safe_dump(k.patch, sort_keys=False)
            if k.patched:
                files[f"{base}/{k.pool}/{stem}.yaml"] = header + yaml.safe_dump(k.patched, sort_keys=False)
        ray[w.key] = {"pools": list(w.placement.pools), **to_json(w.placement.ray)}
    files["ray.json"] = json.dumps(ray, indent=2, ensure_ascii=False) + "\n"
    # Workloads that run as they are on several pools: one DRA claim for the first free GPU (vado.plan.dra).
    from vado.plan.dra import dra_files
    from vado.plan.placement import _first_image
    from vado.plan.pools import default_pools

    pools = [p for p in default_pools() if p.name in plan.pools]
    files.update(dra_files(
        plan, pools,
        base_of=lambda w: f"k8s/{_slug(w.repo)}/{_slug(w.path if w.path != '.' else 'root')}",
        images_of=lambda w: {k.pool: _first_image(k) for k in w.placement.kubernetes if _first_image(k)},
    ))
    return files


def write_outputs(plan: FleetPlan, outdir: str | os.PathLike) -> list[Path]:
    """Write ``plan.md``, ``plan.html``, ``plan.json`` and the placement files under ``outdir``."""
    root = Path(outdir)
    files = {"plan.md": render_markdown(plan), "plan.html": render_html(plan), "plan.json": render_json(plan),
             **placement_files(plan)}
    written = []
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written
