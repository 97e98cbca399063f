"""From findings to verdicts: per file, per workload, per repository.

A verdict for a target is the worst verdict any finding implies for it; a file
without findings for a target moves as is. The *deciding* findings are those
whose verdict equals the aggregate, counted by code, so a report can say
"blocked by PTX003 ×2, LIB003 ×1".
"""

from __future__ import annotations

from collections import Counter
from pathlib import PurePosixPath
from typing import Iterable, Sequence

from vado.model import Effort, Finding, TargetVerdict, Verdict
from vado.model.audit import FileReport, WorkloadReport
from vado.scan.classify import FileKind

#: File names that make their directory a workload (a unit that builds or installs).
WORKLOAD_MARKERS = frozenset(
    {"cmakelists.txt", "makefile", "gnumakefile", "setup.py", "pyproject.toml", "meson.build", "build.ninja"}
)


def target_verdict(target: str, findings: Iterable[Finding]) -> TargetVerdict:
    """The aggregate verdict of ``findings`` for ``target``, with its deciding codes and reason."""
    relevant = [f.verdicts[target] for f in findings if target in f.verdicts]
    codes: Counter[str] = Counter()
    worst = Verdict.worst(relevant)
    for f in findings:
        if f.verdicts.get(target) == worst and worst is not Verdict.MOVES_AS_IS:
            codes[f.code] += 1
    deciding = tuple(sorted(codes.items(), key=lambda kv: (-kv[1], kv[0])))
    return TargetVerdict(target, worst, deciding, _reason(worst, deciding))


def combine(target: str, verdicts: Iterable[TargetVerdict]) -> TargetVerdict:
    """Aggregate already-computed verdicts of parts (files → workload → repository)."""
    parts = [v for v in verdicts if v.target == target]
    worst = Verdict.worst(v.verdict for v in parts)
    codes: Counter[str] = Counter()
    for v in parts:
        if v.verdict == worst:
            for code, n in v.deciding:
                codes[code] += n
    deciding = tuple(sorted(codes.items(), key=lambda kv: (-kv[1], kv[0])))
    return TargetVerdict(target, worst, deciding, _reason(worst, deciding))


def _reason(verdict: Verdict, deciding: Sequence[tuple[str, int]]) -> str:
    if verdict is Verdict.MOVES_AS_IS:
        return "no finding changes the code for this target"
    listed = ", ".join(f"{code} ×{n}" if n > 1 else code for code, n in deciding[:6])
    more = f" and {len(deciding) - 6} more" if len(deciding) > 6 else ""
    return {
        Verdict.AUTOMATIC: "vado's automatic edits cover ",
        Verdict.MANUAL: "manual work for ",
        Verdict.BLOCKED: "blocked by ",
    }[verdict] + listed + more


def effort_of(findings: Iterable[Finding]) -> Effort:
    """Total effort of the findings that need any change."""
    total = Effort()
    for f in findings:
        if any(v is not Verdict.MOVES_AS_IS for v in f.verdicts.values()):
            total = total + f.effort
    return total


def file_report(path: str, kind: FileKind, size: int, findings: Sequence[Finding], targets: Sequence[str]) -> FileReport:
    """The report line of one file."""
    return FileReport(
        path=path,
        kind=kind.value,
        size=size,
        verdicts=tuple(target_verdict(t, findings) for t in targets),
        effort=effort_of(findings),
        finding_count=len(findings),
    )


def workload_dirs(paths: Iterable[str]) -> list[str]:
    """Directories (relative, ``.`` for the root) that hold a workload marker file."""
    dirs = set()
    for p in paths:
        pp = PurePosixPath(p)
        if pp.name.lower() in WORKLOAD_MARKERS:
            dirs.add(str(pp.parent) if str(pp.parent) != "" else ".")
    return sorted(dirs)


def owning_workload(path: str, dirs: Sequence[str]) -> str:
    """The nearest workload directory above ``path`` (``.`` when none)."""
    parent = PurePosixPath(path).parent
    while True:
        key = str(parent) if str(parent) not in ("", ".") else "."
        if key in dirs:
            return key
        if key == ".":
            return "."
        parent = parent.parent


def workloads(files: Sequence[FileReport], targets: Sequence[str], markers: Iterable[str]) -> list[WorkloadReport]:
    """Group ``files`` into workloads by the directories of ``markers`` (paths of build files).

    Files outside every marked directory form the root workload ``.``, which is
    listed only when it has files.
    """
    dirs = workload_dirs(markers)
    groups: dict[str, list[FileReport]] = {}
    for fr in files:
        groups.setdefault(owning_workload(fr.path, dirs), []).append(fr)
    out = []
    for d in sorted(groups):
        members = groups[d]
        out.append(
            WorkloadReport(
                name=PurePosixPath(d).name if d != "." else ".",
                path=d,
                files=tuple(f.path for f in members),
                verdicts=tuple(combine(t, [v for f in members for v in f.verdicts]) for t in targets),
                effort=sum((f.effort for f in members), Effort()),
            )
        )
    return out
