"""Reports of bench, kernel, serve and tune results: text, Markdown and HTML (inline SVG plots).

Each result is first turned into a :class:`Doc` (facts, tables, charts), and
each format is a pure function of that document, so the three formats always
say the same thing. :func:`compare_doc` lays several bench results side by side
(devices or labels as columns, ratios against the first). HTML pages are self
contained (inline CSS and SVG, no script); every piece of text is escaped.
"""

from __future__ import annotations

import math
import shlex
from dataclasses import dataclass, field
from html import escape
from typing import Sequence, Union

from vado.errors import UsageError
from vado.model.bench import BenchResult, KernelComparison, ServeBenchResult, Stats, TuneResult

FORMATS = ("text", "markdown", "html")


@dataclass
class Table:
    """Rows of cells under a header; ``numeric`` marks right-aligned columns."""

    title: str
    header: list[str]
    rows: list[list[str]]
    numeric: list[bool] = field(default_factory=list)


@dataclass
class LineChart:
    """Series of (x label, y) points over shared categorical x values."""

    title: str
    x_label: str
    y_label: str
    x: list[str]
    series: list[tuple[str, list[float | None]]]


@dataclass
class BarChart:
    """One bar per label; ``marks`` tags bars (``baseline``, ``best``, ``rejected``)."""

    title: str
    y_label: str
    bars: list[tuple[str, float | None, str]]


Block = Union[Table, LineChart, BarChart, str]


@dataclass
class Doc:
    """A report: a title, key facts, then blocks in order (a ``str`` block is a paragraph)."""

    title: str
    facts: list[tuple[str, str]]
    blocks: list[Block]


# --------------------------------------------------------------------------- numbers


def num(x: float | None, digits: int = 4) -> str:
    """``x`` with ``digits`` significant digits (``-`` for None/NaN), no exponent for everyday magnitudes."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    if x == 0:
        return "0"
    mag = math.floor(math.log10(abs(x)))
    if -4 <= mag < 9:
        decimals = max(0, digits - 1 - mag)
        return f"{x:.{decimals}f}"
    return f"{x:.{digits - 1}e}"


def _ms(x: float | None) -> str:
    return "-" if x is None else num(x * 1e3, 4)


def _pct(x: float) -> str:
    return f"{x:.1f}%"


def _stat_row(name: str, s: Stats | None, note: str = "") -> list[str]:
    if s is None:
        return [name + note, "0", "-", "-", "-", "-", "-", "-", "-"]
    return [name + note, str(s.count), num(s.min), num(s.median), num(s.mean), num(s.p95), num(s.max), num(s.stdev),
            _pct(100 * s.cv)]


_STAT_HEADER = ["series", "n", "min", "median", "mean", "p95", "max", "stdev", "cv"]
_STAT_NUMERIC = [False] + [True] * 8


# --------------------------------------------------------------------------- documents


def _last_line(text: str) -> str:
    # A traceback's last line names the exception; a compiler's last line its summary.
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    return lines[-1][:160] if lines else "(no output)"


def _environment_facts(env) -> list[tuple[str, str]]:
    if env is None:
        return []
    out = []
    gpus = [d for d in env.devices if d.vendor != "cpu"]
    for d in gpus:
        extra = ", ".join(x for x in (d.arch, f"driver {d.driver}" if d.driver else "",
                                      f"{d.memory_mib} MiB" if d.memory_mib else "", d.source) if x)
        out.append(("device", f"{d.name} ({extra})" if extra else d.name))
    out.append(("host", f"{env.host}: {env.cpu}, {env.cpus} CPUs" + (f", Python {env.python}" if env.python else "")))
    if env.toolchains:
        out.append(("toolchains", "; ".join(f"{k}: {v}" for k, v in sorted(env.toolchains.items()))))
    return out


def bench_doc(r: BenchResult) -> Doc:
    """The document of one command or kernel benchmark."""
    direction = "higher is better" if r.higher_is_better else "lower is better"
    facts = [("command", shlex.join(r.command))]
    if r.label:
        facts.insert(0, ("label", r.label))
    if r.kind == "kernel":
        d = r.detail
        facts += [("kernel", f"{d.get('kernel', '?')} in {d.get('source', '?')} ({d.get('api', '?')}, "
                             f"built with {d.get('compiler', '?')}, block {d.get('block', '?')})"),
                  ("launches", f"{r.runs} timed with device events")]
    else:
        facts.append(("runs", f"{r.runs} timed after {r.warmup} warm-up, {r.failures} failed"))
    stats = r.objective_stats()
    facts.append(("objective", f"{r.objective} (median {num(stats.median) if stats else '-'}), {direction}"))
    facts += _environment_facts(r.environment)
    rows = []
    if r.wall is not None or r.kind == "command":
        rows.append(_stat_row("wall_s", r.wall, " *" if r.objective == "wall_s" else ""))
    for name in r.metrics:
        rows.append(_stat_row(name, r.metric_stats.get(name), " *" if r.objective == name else ""))
    blocks: list[Block] = [Table("Timings (* objective)", _STAT_HEADER, rows, _STAT_NUMERIC)]
    if r.roofline is not None:
        rf = r.roofline
        blocks.append(Table(
            f"Roofline on {rf.device} ({rf.bound}-bound)", ["rate", "achieved", "peak", "of peak"],
            [["memory GB/s", num(rf.achieved_gbs), num(rf.peak_gbs), _pct(rf.bandwidth_pct)],
             ["compute TFLOP/s", num(rf.achieved_tflops), num(rf.peak_tflops), _pct(rf.compute_pct)]],
            [False, True, True, True]))
        if rf.peak_source:
            blocks.append(f"Peaks: {rf.peak_source}.")
    sums = r.detail.get("checksums") if r.kind == "kernel" else None
    if sums:
        blocks.append(Table("Checksums of written buffers", ["buffer", "sum"],
                            [[k, repr(float(v))] for k, v in sorted(sums.items())], [False, True]))
    if r.errors:
        blocks.append(Table("Failed runs (first output lines)", ["#", "output"],
                            [[str(i + 1), _last_line(e)] for i, e in enumerate(r.errors)],
                            [True, False]))
    title = f"vado bench {'kernel ' if r.kind == 'kernel' else ''}{r.label or shlex.join(r.command)}"
    return Doc(title, facts, blocks)


def kernel_compare_doc(c: KernelComparison) -> Doc:
    """Original vs port of one kernel on one device."""
    doc = compare_doc([c.original, c.port], title=f"vado bench kernel: original vs port "
                                                 f"({c.original.detail.get('kernel', '?')})")
    doc.facts.insert(0, ("outputs", ("checksums match" if c.outputs_match else f"checksums DIFFER: {c.mismatch}")
                         + f" ({c.tolerance})"))
    doc.facts.insert(1, ("speedup", f"{num(c.speedup)}x (original median time / port median time)"))
    return doc


def serve_doc(r: ServeBenchResult) -> Doc:
    """The document of one inference-server load test, with latency and throughput plots."""
    facts = [("server", r.url), ("model", r.model), ("endpoint", f"/v1/{'chat/' if r.endpoint == 'chat' else ''}completions"),
             ("load", f"prompt length {r.prompt_len} words, output length {r.output_len} tokens, seed {r.seed}")]
    if r.label:
        facts.insert(0, ("label", r.label))
    facts += _environment_facts(r.environment)
    if r.stopped:
        facts.append(("stopped early", r.stopped))
    rows = []
    for lv in r.levels:
        rows.append([
            str(lv.concurrency), str(lv.requests), str(lv.errors) + (f" (+{lv.not_sent} unsent)" if lv.not_sent else ""),
            num(lv.requests_per_s), num(lv.output_tokens_per_s),
            _ms(lv.ttft.median if lv.ttft else None), _ms(lv.ttft.p95 if lv.ttft else None), _ms(lv.p99.get("ttft_s")),
            _ms(lv.tpot.median if lv.tpot else None),
            _ms(lv.itl.median if lv.itl else None), _ms(lv.itl.p95 if lv.itl else None),
            num(lv.latency.median if lv.latency else None), num(lv.latency.p95 if lv.latency else None),
        ])
    header = ["concurrency", "requests", "errors", "req/s", "out tok/s", "TTFT p50 ms", "TTFT p95 ms", "TTFT p99 ms",
              "TPOT p50 ms", "ITL p50 ms", "ITL p95 ms", "latency p50 s", "latency p95 s"]
    blocks: list[Block] = [Table("Per concurrency level", header, rows, [True] * len(header))]
    errors = sorted({e for lv in r.levels for e in lv.error_samples})
    if errors:
        blocks.append(Table("Errors (samples)", ["error"], [[e[:200]] for e in errors], [False]))
    x = [str(lv.concurrency) for lv in r.levels]

    def series(name, getter):
        return (name, [getter(lv) for lv in r.levels])

    ms = lambda v: None if v is None else v * 1e3  # noqa: E731
    blocks.append(LineChart("Latency percentiles vs concurrency", "concurrency", "ms", x, [
        series("TTFT p50", lambda lv: ms(lv.ttft.median) if lv.ttft else None),
        series("TTFT p95", lambda lv: ms(lv.ttft.p95) if lv.ttft else None),
        series("TTFT p99", lambda lv: ms(lv.p99.get("ttft_s"))),
        series("ITL p50", lambda lv: ms(lv.itl.median) if lv.itl else None),
        series("ITL p95", lambda lv: ms(lv.itl.p95) if lv.itl else None),
    ]))
    blocks.append(LineChart("Throughput vs concurrency", "concurrency", "output tokens/s", x, [
        series("output tokens/s", lambda lv: lv.output_tokens_per_s),
    ]))
    return Doc(f"vado bench serve {r.label or r.url}", facts, blocks)


def _config_text(config: dict) -> str:
    return " ".join(f"{k}={v}" for k, v in config.items())


def tune_doc(r: TuneResult) -> Doc:
    """The document of one tuning run: baseline vs best, every trial and why it was kept or rejected."""
    direction = "higher is better" if r.higher_is_better else "lower is better"
    tried = len(r.trials)
    accepted = sum(1 for t in r.trials if t.accepted)
    facts = [
        ("objective", f"{r.objective} (median), {direction}"),
        ("baseline", f"{_config_text(r.baseline.config)}: {num(r.baseline.objective)}"),
        ("best", f"{_config_text(r.best.config)}: {num(r.best.objective)} ({r.gain_pct:+.2f}% vs baseline)"),
        ("search", f"{r.strategy}, {tried} of {r.space_size or tried} configurations tried (budget {r.budget}, "
                   f"seed {r.seed}); {accepted} verified, {tried - accepted} rejected"),
        ("verification", f"outputs compared with the baseline's, {r.tolerance}"),
    ]
    if r.label:
        facts.insert(0, ("label", r.label))
    if r.build:
        facts.append(("build", r.build))
    if r.run:
        facts.append(("run", r.run))
    facts += _environment_facts(r.environment)
    rows = []
    bars = []
    for i, t in enumerate(r.trials):
        s = t.bench.objective_stats() if t.bench else None
        mark = "best" if t == r.best else ("baseline" if i == 0 else ("" if t.accepted else "rejected"))
        status = "kept" if t.accepted else "rejected"
        rows.append([str(i + 1), _config_text(t.config), num(t.objective), _pct(100 * s.cv) if s else "-",
                     f"{status}: {t.reason}" + (" (best)" if t == r.best else "")])
        bars.append((_config_text(t.config), t.objective if t.accepted else None, mark))
    blocks: list[Block] = [
        Table("Trials", ["#", "configuration", r.objective, "cv", "outcome"], rows, [True, False, True, True, False]),
        BarChart(f"{r.objective} per configuration ({direction}; rejected configurations have no bar)", r.objective,
                 bars),
    ]
    return Doc(f"vado tune {r.label or r.objective}", facts, blocks)


def _column_label(r: BenchResult, i: int) -> str:
    dev = r.environment.device_label() if r.environment else ""
    return r.label or dev or f"result {i + 1}"


def compare_data(results: Sequence[BenchResult]) -> dict:
    """Medians of every series of several bench results, and their ratios to the first result's.

    ``better`` is, per later result, how many times better than the first it is
    on the first's objective (above 1: better, whichever the direction).
    """
    if not results:
        raise UsageError("nothing to compare", "", "pass bench result files")
    first = results[0]
    names: list[str] = []
    for r in results:
        for n in (["wall_s"] if r.wall else []) + list(r.metric_stats):
            if n not in names:
                names.append(n)

    def median(r: BenchResult, n: str) -> float | None:
        s = r.wall if n == "wall_s" else r.metric_stats.get(n)
        return s.median if s else None

    medians = {n: [median(r, n) for r in results] for n in names}
    ratios = {n: [(v / vals[0]) if v is not None and vals[0] else None for v in vals] for n, vals in medians.items()}
    base = medians.get(first.objective, [None])[0]
    better = []
    for v in medians.get(first.objective, [None] * len(results))[1:]:
        better.append((v / base if first.higher_is_better else base / v) if v and base else None)
    return {
        "kind": "comparison",
        "labels": [_column_label(r, i) for i, r in enumerate(results)],
        "devices": [r.environment.device_label() if r.environment else "" for r in results],
        "commands": [list(r.command) for r in results],
        "objective": first.objective,
        "higher_is_better": first.higher_is_better,
        "medians": medians,
        "ratios": ratios,
        "better": better,
    }


def compare_doc(results: Sequence[BenchResult], title: str = "vado report: bench results side by side") -> Doc:
    """Several bench results as columns: the median of every series, and its ratio to the first result's."""
    data = compare_data(results)
    labels = data["labels"]
    facts = [(f"[{i + 1}]", f"{labels[i]}: {shlex.join(r.command)}"
              + (f" on {data['devices'][i]}" if data["devices"][i] and data["devices"][i] != labels[i] else ""))
             for i, r in enumerate(results)]
    header = ["series (median)"] + [f"[{i + 1}] {labels[i]}" for i in range(len(results))]
    obj = data["objective"]
    rows = [[n + (" *" if n == obj else "")] + [num(v) for v in vals] for n, vals in data["medians"].items()]
    ratio_rows = [[n] + ["-" if v is None else f"{v:.3f}x" for v in vals] for n, vals in data["ratios"].items()]
    numeric = [False] + [True] * len(results)
    blocks: list[Block] = [Table("Medians (* objective of [1])", header, rows, numeric),
                           Table("Ratio to [1]", header, ratio_rows, numeric)]
    direction = "higher" if data["higher_is_better"] else "lower"
    for i, g in enumerate(data["better"], start=2):
        if g is not None:
            blocks.append(f"[{i}] is {g:.3f}x as good as [1] on {obj} ({direction} is better; above 1x: [{i}] is better).")
    return Doc(title, facts, blocks)


def serve_compare_doc(results: Sequence[ServeBenchResult]) -> Doc:
    """Several serve load tests side by side, per concurrency level: output tokens/s and TTFT/ITL medians."""
    labels = [r.label or (r.environment.device_label() if r.environment else "") or r.url for r in results]
    facts = [(f"[{i + 1}]", f"{labels[i]}: {r.model} at {r.url}, prompt {r.prompt_len}, output {r.output_len}")
             for i, r in enumerate(results)]
    levels = sorted({lv.concurrency for r in results for lv in r.levels})

    def level(r, c):
        return next((lv for lv in r.levels if lv.concurrency == c), None)

    def table(title, getter, fmt):
        header = ["concurrency"] + [f"[{i + 1}] {labels[i]}" for i in range(len(results))] + \
                 [f"[{i + 1}]/[1]" for i in range(1, len(results))]
        rows = []
        for c in levels:
            vals = [getter(level(r, c)) if level(r, c) else None for r in results]
            ratios = ["-" if v is None or not vals[0] else f"{v / vals[0]:.3f}x" for v in vals[1:]]
            rows.append([str(c)] + [fmt(v) for v in vals] + ratios)
        return Table(title, header, rows, [True] * len(header))

    blocks: list[Block] = [
        table("Output tokens/s", lambda lv: lv.output_tokens_per_s, num),
        table("TTFT p50 (ms)", lambda lv: lv.ttft.median if lv.ttft else None, _ms),
        table("ITL p50 (ms)", lambda lv: lv.itl.median if lv.itl else None, _ms),
    ]
    x = [str(c) for c in levels]
    blocks.append(LineChart("Output tokens/s vs concurrency", "concurrency", "output tokens/s", x, [
        (labels[i], [(level(r, c).output_tokens_per_s if level(r, c) else None) for c in levels])
        for i, r in enumerate(results)]))
    blocks.append(LineChart("TTFT p50 vs concurrency", "concurrency", "ms", x, [
        (labels[i], [(level(r, c).ttft.median * 1e3 if level(r, c) and level(r, c).ttft else None) for c in levels])
        for i, r in enumerate(results)]))
    return Doc("vado report: serve results side by side", facts, blocks)


def merge_docs(docs: Sequence[Doc], title: str = "vado report") -> Doc:
    """Several documents as one: each becomes a section (its title, its facts as a table, its blocks)."""
    blocks: list[Block] = []
    for d in docs:
        blocks.append(Table(d.title, ["fact", "value"], [[k, v] for k, v in d.facts]))
        blocks += d.blocks
    return Doc(title, [("results", str(len(docs)))], blocks)


def document(result) -> Doc:
    """The document of any bench-family result."""
    if isinstance(result, BenchResult):
        return bench_doc(result)
    if isinstance(result, KernelComparison):
        return kernel_compare_doc(result)
    if isinstance(result, ServeBenchResult):
        return serve_doc(result)
    if isinstance(result, TuneResult):
        return tune_doc(result)
    raise UsageError(f"cannot render a {type(result).__name__}")


# --------------------------------------------------------------------------- text


def _text_table(t: Table) -> list[str]:
    widths = [len(h) for h in t.header]
    for row in t.rows:
        for i, c in enumerate(row):
            widths[i] = max(widths[i], len(c))
    numeric = t.numeric or [False] * len(t.header)

    def line(cells):
        out = []
        for i, c in enumerate(cells):
            out.append(c.rjust(widths[i]) if numeric[i] and i else c.ljust(widths[i]))
        return "  ".join(out).rstrip()

    return [t.title, line(t.header), "  ".join("-" * w for w in widths), *(line(r) for r in t.rows)]


def _text_bars(c: BarChart, width: int = 40) -> list[str]:
    vals = [v for _, v, _ in c.bars if v is not None]
    top = max(vals) if vals else 0.0
    lw = max((len(lbl) for lbl, _, _ in c.bars), default=0)
    out = [c.title]
    for lbl, v, mark in c.bars:
        if v is None:
            out.append(f"{lbl.ljust(lw)}  (rejected)")
            continue
        n = int(round(width * v / top)) if top > 0 else 0
        out.append(f"{lbl.ljust(lw)}  {'#' * n}{' ' * (width - n)}  {num(v)}{'  ' + mark if mark else ''}")
    return out


def render_doc_text(doc: Doc) -> str:
    """Plain text: facts, tables, bar charts as rows of ``#`` (line charts are HTML only)."""
    lines = [doc.title]
    kw = max((len(k) for k, _ in doc.facts), default=0)
    lines += [f"  {k.ljust(kw)}  {v}" for k, v in doc.facts]
    for b in doc.blocks:
        if isinstance(b, LineChart):
            continue
        lines.append("")
        if isinstance(b, Table):
            lines += _text_table(b)
        elif isinstance(b, BarChart):
            lines += _text_bars(b)
        else:
            lines.append(b)
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- markdown


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_doc_markdown(doc: Doc) -> str:
    """GitHub-flavoured Markdown: facts as a list, tables as pipe tables, bar charts as tables."""
    lines = [f"# {doc.title}", ""]
    lines += [f"- **{_md_cell(k)}**: {_md_cell(v)}" for k, v in doc.facts]
    for b in doc.blocks:
        if isinstance(b, LineChart):
            continue
        lines.append("")
        if isinstance(b, BarChart):
            b = Table(b.title, ["configuration", b.y_label, ""],
                      [[lbl, num(v), mark] for lbl, v, mark in b.bars], [False, True, False])
        if isinstance(b, Table):
            numeric = b.numeric or [False] * len(b.header)
            lines.append(f"## {b.title}")
            lines.append("")
            lines.append("| " + " | ".join(_md_cell(h) for h in b.header) + " |")
            lines.append("|" + "|".join("---:" if numeric[i] and i else "---" for i in range(len(b.header))) + "|")
            lines += ["| " + " | ".join(_md_cell(c) for c in r) + " |" for r in b.rows]
        else:
            lines.append(b)
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- html

_CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:2rem auto;max-width:72rem;
padding:0 1rem;color:#1b1b1b;background:#fff}h1{font-size:1.5rem}h2{font-size:1.15rem;margin-top:2rem;
border-bottom:1px solid #ddd}table{border-collapse:collapse;margin:.5rem 0}th,td{border:1px solid #ddd;
padding:.25rem .5rem;text-align:left;vertical-align:top}th{background:#f6f6f6}td.n{text-align:right;
font-variant-numeric:tabular-nums}dl{display:grid;grid-template-columns:max-content auto;gap:.1rem 1rem}
dt{font-weight:600}dd{margin:0}svg{display:block;margin:.5rem 0}svg text{font:12px system-ui,sans-serif;fill:#1b1b1b}
"""

#: Series colours (Okabe–Ito, colour-blind safe).
PALETTE = ("#0072b2", "#e69f00", "#009e73", "#cc79a7", "#d55e00", "#56b4e9", "#f0e442")
_MARK_COLOURS = {"baseline": "#0072b2", "best": "#009e73", "": "#888888"}


def e(text: object) -> str:
    """Escaped text for element content and attribute values."""
    return escape(str(text), quote=True)


def _c(x: float) -> str:
    """A coordinate with one decimal: stable output across platforms."""
    return f"{x:.1f}"


def _nice_top(v: float) -> float:
    if v <= 0:
        return 1.0
    mag = 10 ** math.floor(math.log10(v))
    for m in (1, 2, 2.5, 5, 10):
        if m * mag >= v:
            return m * mag
    return 10 * mag


def svg_line_chart(c: LineChart, width: int = 640, height: int = 300) -> str:
    """An inline SVG line chart over categorical x values, with axes, ticks and a legend."""
    left, right, top, bottom = 64, 150, 28, 44
    pw, ph = width - left - right, height - top - bottom
    vals = [v for _, ys in c.series for v in ys if v is not None]
    ymax = _nice_top(max(vals) if vals else 1.0)
    n = len(c.x)

    def X(i):
        return left + (pw * (i + 0.5) / n if n else 0)

    def Y(v):
        return top + ph - ph * v / ymax

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img" '
           f'aria-label="{e(c.title)}">', f'<text x="{left}" y="16" font-weight="600">{e(c.title)}</text>']
    for k in range(5):
        v = ymax * k / 4
        y = Y(v)
        out.append(f'<line x1="{left}" y1="{_c(y)}" x2="{left + pw}" y2="{_c(y)}" stroke="#e5e5e5"/>')
        out.append(f'<text x="{left - 6}" y="{_c(y + 4)}" text-anchor="end">{e(num(v, 3))}</text>')
    out.append(f'<line x1="{left}" y1="{top + ph}" x2="{left + pw}" y2="{top + ph}" stroke="#444"/>')
    out.append(f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + ph}" stroke="#444"/>')
    for i, lbl in enumerate(c.x):
        out.append(f'<text x="{_c(X(i))}" y="{top + ph + 16}" text-anchor="middle">{e(lbl)}</text>')
    out.append(f'<text x="{left + pw / 2:.1f}" y="{height - 6}" text-anchor="middle">{e(c.x_label)}</text>')
    out.append(f'<text x="14" y="{top + ph / 2:.1f}" text-anchor="middle" '
               f'transform="rotate(-90 14 {top + ph / 2:.1f})">{e(c.y_label)}</text>')
    for si, (name, ys) in enumerate(c.series):
        colour = PALETTE[si % len(PALETTE)]
        pts = [(X(i), Y(v)) for i, v in enumerate(ys) if v is not None]
        if len(pts) > 1:
            out.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="'
                       + " ".join(f"{_c(x)},{_c(y)}" for x, y in pts) + '"/>')
        for x, y in pts:
            out.append(f'<circle cx="{_c(x)}" cy="{_c(y)}" r="3" fill="{colour}"/>')
        ly = top + 14 * si + 6
        out.append(f'<rect x="{left + pw + 14}" y="{ly - 8}" width="10" height="10" fill="{colour}"/>')
        out.append(f'<text x="{left + pw + 30}" y="{ly + 1}">{e(name)}</text>')
    out.append("</svg>")
    return "\n".join(out)


def svg_bar_chart(c: BarChart, width: int = 640) -> str:
    """Horizontal bars, one per configuration; the baseline and best coloured, rejected ones marked."""
    bar, gap, label_w, value_w = 18, 6, 220, 150
    pw = width - label_w - value_w
    height = 28 + len(c.bars) * (bar + gap)
    vals = [v for _, v, _ in c.bars if v is not None]
    top = max(vals) if vals else 1.0
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img" '
           f'aria-label="{e(c.title)}">', f'<text x="0" y="16" font-weight="600">{e(c.title)}</text>']
    for i, (lbl, v, mark) in enumerate(c.bars):
        y = 26 + i * (bar + gap)
        out.append(f'<text x="{label_w - 6}" y="{y + bar - 5}" text-anchor="end">{e(lbl[:34])}</text>')
        if v is None:
            out.append(f'<text x="{label_w + 4}" y="{y + bar - 5}" fill="#c62828">rejected</text>')
            continue
        w = pw * v / top if top > 0 else 0
        out.append(f'<rect x="{label_w}" y="{y}" width="{_c(w)}" height="{bar}" '
                   f'fill="{_MARK_COLOURS.get(mark, "#888888")}"/>')
        out.append(f'<text x="{_c(label_w + w + 6)}" y="{y + bar - 5}">{e(num(v))}{" " + e(mark) if mark else ""}</text>')
    out.append("</svg>")
    return "\n".join(out)


def _html_table(t: Table) -> str:
    numeric = t.numeric or [False] * len(t.header)
    rows = ["<tr>" + "".join(f"<th>{e(h)}</th>" for h in t.header) + "</tr>"]
    for r in t.rows:
        rows.append("<tr>" + "".join(f'<td class="n">{e(c)}</td>' if numeric[i] and i else f"<td>{e(c)}</td>"
                                     for i, c in enumerate(r)) + "</tr>")
    return f"<h2>{e(t.title)}</h2>\n<table>\n" + "\n".join(rows) + "\n</table>"


def render_doc_html(doc: Doc) -> str:
    """One self-contained HTML page: facts, tables and inline SVG charts."""
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">', f"<title>{e(doc.title)}</title>",
             f"<style>{_CSS}</style></head><body>", f"<h1>{e(doc.title)}</h1>", "<dl>"]
    parts += [f"<dt>{e(k)}</dt><dd>{e(v)}</dd>" for k, v in doc.facts]
    parts.append("</dl>")
    for b in doc.blocks:
        if isinstance(b, Table):
            parts.append(_html_table(b))
        elif isinstance(b, LineChart):
            parts.append(svg_line_chart(b))
        elif isinstance(b, BarChart):
            parts.append(svg_bar_chart(b))
        else:
            parts.append(f"<p>{e(b)}</p>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


_RENDERERS = {"text": render_doc_text, "markdown": render_doc_markdown, "html": render_doc_html}


def render(result, fmt: str) -> str:
    """``result`` (a bench, kernel-compare, serve or tune result) in ``fmt`` (text, markdown, html)."""
    return render_doc(document(result), fmt)


def render_doc(doc: Doc, fmt: str) -> str:
    """A document in ``fmt``; UsageError for an unknown format."""
    if fmt not in _RENDERERS:
        raise UsageError(f"unknown format {fmt!r}", f"bench reports are {', '.join(FORMATS)} or json",
                         "pass one of those to --format")
    return _RENDERERS[fmt](doc)
