"""Aggregates that several report formats show, computed once from an :class:`AuditResult`.

Every function here is pure and returns values in a fixed order, so the
formats that use them are deterministic for a given result. The conventions:

- a file counts under a target's verdict from its :class:`FileReport`; a file
  with no verdict for that target counts as *moves as is* (no finding affects it);
- the effort of a file, a family or the whole result is the sum of the effort
  of its findings (workloads keep the effort their report carries);
- "blocked" means at least one target's verdict for the finding is ``blocked``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from vado.model import Applicability, Effort, Finding, Severity, Skip, Verdict
from vado.model.audit import AuditResult, RuleInfo

#: Family order when the rule registry does not know a family (kept in sync by a test).
_KNOWN_FAMILIES = ("API", "LIB", "PTX", "WARP", "ARCH", "DEP", "IMG", "BLD")

VERDICTS: tuple[Verdict, ...] = tuple(Verdict)
SEVERITIES_DESC: tuple[Severity, ...] = tuple(reversed(Severity))

#: How many files the "top files" views list.
TOP_FILES = 10

_SARIF_LEVEL = {
    Severity.CRITICAL: "error",
    Severity.HIGH: "error",
    Severity.MEDIUM: "warning",
    Severity.LOW: "note",
    Severity.INFO: "note",
}


def sarif_level(severity: Severity | str) -> str:
    """SARIF ``level`` for a severity: critical/high → error, medium → warning, low/info → note."""
    return _SARIF_LEVEL[Severity(severity)]


def sorted_findings(result: AuditResult) -> list[Finding]:
    """The findings in file, offset, code order."""
    return sorted(result.findings, key=Finding.sort_key)


def worst_verdict(finding: Finding) -> Verdict:
    """The worst verdict a finding implies over all targets (moves as is when it names none)."""
    return Verdict.worst(finding.verdicts.values())


def is_blocked(finding: Finding) -> bool:
    """True when the finding blocks the move to at least one target."""
    return any(v is Verdict.BLOCKED for v in finding.verdicts.values())


def findings_worst_first(result: AuditResult) -> list[Finding]:
    """Findings with blocked ones first, then manual work, then automatic; by location within each."""
    return sorted(result.findings, key=lambda f: (-worst_verdict(f).rank, f.sort_key()))


def target_names(result: AuditResult) -> list[str]:
    """The audited targets in the result's order, then any other target a verdict names."""
    names = list(result.targets)
    seen = set(names)
    extra: set[str] = set()
    for tv in result.verdicts:
        extra.add(tv.target)
    for fr in result.files:
        extra.update(tv.target for tv in fr.verdicts)
    for f in result.findings:
        extra.update(f.verdicts)
    names.extend(sorted(extra - seen))
    return names


@dataclass(frozen=True)
class TargetSummary:
    """One row of the verdict table: the repository verdict and the files per verdict."""

    target: str
    verdict: Verdict
    files: dict[Verdict, int]
    deciding: tuple[tuple[str, int], ...] = ()
    reason: str = ""


def target_summaries(result: AuditResult) -> list[TargetSummary]:
    """Per target: the repository verdict (worst file verdict when the result has none) and file counts."""
    repo = {tv.target: tv for tv in result.verdicts}
    rows = []
    for name in target_names(result):
        counts = {v: 0 for v in VERDICTS}
        for fr in result.files:
            v = next((tv.verdict for tv in fr.verdicts if tv.target == name), Verdict.MOVES_AS_IS)
            counts[v] += 1
        tv = repo.get(name)
        if tv is not None:
            rows.append(TargetSummary(name, tv.verdict, counts, tuple(tv.deciding), tv.reason))
        else:
            worst = Verdict.worst(v for v, n in counts.items() if n)
            rows.append(TargetSummary(name, worst, counts))
    return rows


@dataclass(frozen=True)
class FamilySummary:
    """Findings of one family: counts by severity, files touched, summed effort."""

    family: str
    description: str
    count: int
    files: int
    severities: dict[Severity, int]
    blocked: int
    effort: Effort


def _family_descriptions() -> dict[str, str]:
    try:
        from vado.rules.registry import FAMILIES
    except ImportError:  # the registry is optional for reports of a saved JSON file
        return {}
    return dict(FAMILIES)


def family_summaries(result: AuditResult) -> list[FamilySummary]:
    """One row per family that has findings, in the registry's family order, unknown families last."""
    descriptions = _family_descriptions()
    order = {fam: i for i, fam in enumerate(list(descriptions) or list(_KNOWN_FAMILIES))}
    groups: dict[str, list[Finding]] = {}
    for f in result.findings:
        groups.setdefault(f.family, []).append(f)
    rows = []
    for fam in sorted(groups, key=lambda x: (order.get(x, len(order)), x)):
        items = groups[fam]
        sev = Counter(f.severity for f in items)
        effort = Effort()
        for f in items:
            effort = effort + f.effort
        rows.append(
            FamilySummary(
                family=fam,
                description=descriptions.get(fam, ""),
                count=len(items),
                files=len({f.span.path for f in items}),
                severities={s: sev.get(s, 0) for s in SEVERITIES_DESC},
                blocked=sum(1 for f in items if is_blocked(f)),
                effort=effort,
            )
        )
    return rows


@dataclass(frozen=True)
class FileSummary:
    """One file with findings: its kind, count, worst verdict per target and summed effort."""

    path: str
    kind: str
    count: int
    verdicts: dict[str, Verdict]
    effort: Effort
    findings: tuple[Finding, ...] = field(default=(), repr=False)


def file_summaries(result: AuditResult) -> list[FileSummary]:
    """Every file that has findings, by path; verdicts come from the file report when present."""
    kinds = {fr.path: fr.kind for fr in result.files}
    file_verdicts = {fr.path: {tv.target: tv.verdict for tv in fr.verdicts} for fr in result.files}
    groups: dict[str, list[Finding]] = {}
    for f in sorted_findings(result):
        groups.setdefault(f.span.path, []).append(f)
    targets = target_names(result)
    rows = []
    for path in sorted(groups):
        items = groups[path]
        effort = Effort()
        for f in items:
            effort = effort + f.effort
        verdicts = file_verdicts.get(path)
        if not verdicts:
            verdicts = {t: Verdict.worst(f.verdicts[t] for f in items if t in f.verdicts) for t in targets}
        rows.append(FileSummary(path, kinds.get(path, ""), len(items), dict(verdicts), effort, tuple(items)))
    return rows


def top_files(result: AuditResult, limit: int = TOP_FILES) -> list[FileSummary]:
    """The files with the most findings (then most hours, then by path), at most ``limit``."""
    rows = file_summaries(result)
    rows.sort(key=lambda r: (-r.count, -r.effort.hours, r.path))
    return rows[:limit]


def total_effort(result: AuditResult) -> Effort:
    """Sum of every finding's effort."""
    effort = Effort()
    for f in result.findings:
        effort = effort + f.effort
    return effort


def fix_counts(result: AuditResult) -> dict[str, int]:
    """Findings per fix applicability (``safe``, ``unsafe``, ``display-only``) and ``none``."""
    counts = {a.value: 0 for a in Applicability}
    counts["none"] = 0
    for f in result.findings:
        counts[f.fix.applicability.value if f.fix is not None else "none"] += 1
    return counts


def skip_summary(result: AuditResult) -> list[tuple[str, int, list[Skip]]]:
    """``(reason, count, skips sorted by path)`` per skip reason, most frequent first."""
    groups: dict[str, list[Skip]] = {}
    for s in result.skips:
        groups.setdefault(s.reason.value, []).append(s)
    return [
        (reason, len(items), sorted(items))
        for reason, items in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    ]


def sorted_skips(result: AuditResult) -> list[Skip]:
    """Skips by path, then reason."""
    return sorted(result.skips, key=lambda s: (s.path, s.reason.value, s.detail))


def sorted_rules(result: AuditResult) -> list[RuleInfo]:
    """Rule descriptions by code; findings whose code has no :class:`RuleInfo` get one made from them."""
    rules = {r.code: r for r in result.rules}
    for f in sorted_findings(result):
        if f.code not in rules:
            rules[f.code] = RuleInfo(
                code=f.code, name=f.name, family=f.family, severity=f.severity.value, summary=f.name
            )
    return [rules[c] for c in sorted(rules)]


def error_line(error: dict) -> str:
    """One line for a serialised ``VadoError``: ``Type: what: why``."""
    text = str(error.get("what", "")) or "unknown error"
    if error.get("why"):
        text += f": {error['why']}"
    kind = error.get("type")
    return f"{kind}: {text}" if kind else text


def verdict_short(v: Verdict) -> str:
    """A compact label for tables: ``as is``, ``automatic``, ``manual``, ``blocked``."""
    return _SHORT[v]


_SHORT = {
    Verdict.MOVES_AS_IS: "as is",
    Verdict.AUTOMATIC: "automatic",
    Verdict.MANUAL: "manual",
    Verdict.BLOCKED: "blocked",
}


def fmt_hours(hours: float) -> str:
    """Hours with at most two decimals and no trailing zeros (``1.5``, ``12``, ``0.25``)."""
    text = f"{hours:.2f}".rstrip("0").rstrip(".")
    return text or "0"


def fmt_bytes(n: int) -> str:
    """Bytes for humans with one decimal (``532 B``, ``1.2 KiB``, ``3.4 MiB``)."""
    size = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{int(size)} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    raise AssertionError("unreachable")


def filtered_note(result: AuditResult) -> str:
    """What the audit's filters left out of every verdict (suppressions, baseline, selection), or "".

    A suppressed finding is in no verdict (the ruff model: CI passes on what a person accepted), so a
    verdict over a filtered audit says less than it seems to: this line says how much less."""
    left = getattr(result.stats, "filtered", None) or {}
    if not left:
        return ""
    n = sum(left.values())
    codes = ", ".join(f"{c}×{k}" for c, k in sorted(left.items(), key=lambda kv: (-kv[1], kv[0]))[:6])
    more = "" if len(left) <= 6 else f" and {len(left) - 6} more codes"
    return (f"{plural(n, 'finding')} left out by suppressions, the baseline or the rule selection "
            f"({codes}{more}) count in no verdict above; the code still holds them "
            f"(--no-suppressions, and no --baseline, count them)")


def plural(n: int, word: str) -> str:
    """``1 finding``, ``2 findings``."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def build_lines(result, *, amd: bool = True) -> list[str]:
    """What the report says of the configuration judged (:attr:`AuditResult.build`): where it came
    from, and the sources it does not build; none when no build was looked for. Then the build files
    that already build for AMD GPUs (:attr:`AuditResult.amd_support`) unless ``amd`` is False (the port's
    summary says them its own way)."""
    b = getattr(result, "build", None)
    amd = list(getattr(result, "amd_support", None) or ()) if amd else []
    from vado.audit.scope import own_rocm_path_wrong

    wrong = own_rocm_path_wrong(getattr(result, "findings", None) or ()) if amd else ""
    tail = ([f"Existing AMD support: {'; '.join(amd)} (the project builds for AMD GPUs itself; a port keeps "
             "its build files and its own ROCm code" + (", except the calls below" if wrong else "") + ")."]
            if amd else [])
    if wrong:
        tail.append(wrong[0].upper() + wrong[1:] + ".")
    if b is None:
        return tail
    if b.guessed:
        lines = [f"Build judged: {b.source}; #if branches are judged on the platform's macros only."]
    else:
        lines = [f"Build judged: {b.source} ({plural(b.units, 'unit')}, configuration {b.configuration}); "
                 "findings in branches it does not compile are marked inactive."]
    if b.ran:
        lines.append("To read it vado ran: " + "; ".join(b.ran) + ".")
    if b.not_built:
        shown = ", ".join(b.not_built[:10]) + (f" and {len(b.not_built) - 10} more" if len(b.not_built) > 10 else "")
        lines.append(f"Not built by this configuration (compiled by no unit, included by no file; findings kept): {shown}.")
    return lines + tail


@dataclass(frozen=True)
class TargetOverview:
    """What a reader who does not read code needs about one target: the verdict, the files, the work.

    ``moving`` counts files that move as is or with vado's automatic edits; ``work`` those that need
    manual work or are blocked. ``effort`` sums the findings that change something for this target.
    ``work_codes`` are the deciding codes with their rule summaries, most frequent first.
    """

    target: str
    verdict: Verdict
    files: int
    moving: int
    work: int
    blocked: int
    effort: Effort
    work_codes: tuple[tuple[str, int, str], ...] = ()


def target_overviews(result: AuditResult, limit: int = 3) -> list[TargetOverview]:
    """One :class:`TargetOverview` per target, in the result's target order; ``limit`` deciding codes each."""
    from vado.report.rst_text import inline

    # Rule summaries are docstring lines (reStructuredText): plain text, without the closing full stop.
    summaries_by_code = {r.code: inline(r.summary).strip().rstrip(".") for r in result.rules}
    out = []
    for ts in target_summaries(result):
        effort = Effort()
        for f in result.findings:
            if f.verdicts.get(ts.target, Verdict.MOVES_AS_IS) is not Verdict.MOVES_AS_IS:
                effort = effort + f.effort
        out.append(
            TargetOverview(
                target=ts.target,
                verdict=ts.verdict,
                files=sum(ts.files.values()),
                moving=ts.files[Verdict.MOVES_AS_IS] + ts.files[Verdict.AUTOMATIC],
                work=ts.files[Verdict.MANUAL] + ts.files[Verdict.BLOCKED],
                blocked=ts.files[Verdict.BLOCKED],
                effort=effort,
                work_codes=tuple((c, n, summaries_by_code.get(c, "")) for c, n in ts.deciding[:limit]),
            )
        )
    return out
