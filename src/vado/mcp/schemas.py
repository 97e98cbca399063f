"""Output schemas of the MCP tools: what each answer holds, published as the tools' ``outputSchema``.

The SDK derives a JSON schema from a tool's return annotation and checks every
answer against it. The types below name the keys an assistant relies on; each
allows more keys (``extra="allow"``), so a key added by one tool's author never
makes an answer fail its own schema. The token-budget cut
(:func:`vado.mcp.paging.shrink`) adds ``truncated_by_budget`` and ``hint``.
"""

from __future__ import annotations

from typing import Any, Literal, Optional

from pydantic import ConfigDict, with_config
from typing_extensions import NotRequired, TypedDict

VerdictName = Literal["moves-as-is", "moves-with-automatic-edits", "needs-manual-work", "blocked"]
_OPEN = ConfigDict(extra="allow")


@with_config(_OPEN)
class TargetVerdictOut(TypedDict):
    """The repository's verdict for one target and the codes that decide it (count per code)."""

    target: str
    verdict: VerdictName
    deciding: list[list[Any]]
    reason: str


@with_config(_OPEN)
class FindingOut(TypedDict):
    """One finding: code, where, why; ``fix`` is the applicability of vado's fix (compact) or its details (full)."""

    code: str
    severity: Literal["info", "low", "medium", "high", "critical"]
    path: str
    line: int
    column: int
    message: str
    fix: Any


@with_config(_OPEN)
class FileCount(TypedDict):
    path: str
    findings: int


@with_config(_OPEN)
class AuditOut(TypedDict):
    """``audit``: verdicts, counts over every finding, and one page of findings."""

    root: str
    targets: list[str]
    verdicts: list[TargetVerdictOut]
    files_scanned: int
    files_skipped: int
    finding_count: int
    counts_by_code: dict[str, int]
    code_names: dict[str, str]
    files_with_most_findings: list[FileCount]
    offset: int
    findings: list[FindingOut]
    next_offset: Optional[int]
    truncated: bool
    skip_count: int
    skips: list[dict[str, Any]]
    errors: list[dict[str, Any]]
    build: NotRequired[Optional[dict[str, Any]]]
    hint: NotRequired[str]


@with_config(_OPEN)
class ExplainOut(TypedDict):
    """``explain``: a rule's documentation by section (What it does, Why is this bad?, Example, …)."""

    code: str
    name: str
    severity: str
    summary: str
    file_kinds: list[str]
    sections: dict[str, str]


@with_config(_OPEN)
class LookupOut(TypedDict):
    """``lookup``: a CUDA name's entry, its HIP name and availability per target, or close matches."""

    name: str
    found: bool
    entry: NotRequired[dict[str, Any]]
    rocm_name: NotRequired[Optional[str]]
    source: NotRequired[Any]
    targets: NotRequired[list[dict[str, Any]]]
    did_you_mean: NotRequired[list[str]]


@with_config(_OPEN)
class FactsOut(TypedDict):
    """``facts``: knowledge-base entries that match a name, each with its source."""

    matches: NotRequired[list[dict[str, Any]]]


@with_config(_OPEN)
class PortedFileOut(TypedDict):
    path: str
    status: str
    applied: dict[str, int]
    remaining: dict[str, int]
    error: NotRequired[str]
    diff: NotRequired[str]


@with_config(_OPEN)
class PortOut(TypedDict):
    """``port``: totals over the whole port, one page of files, and the findings left in them."""

    source: str
    output: Optional[str]
    dry_run: bool
    target: str
    file_count: int
    files_by_status: dict[str, int]
    applied_by_code: dict[str, int]
    remaining_by_code: dict[str, int]
    remaining_count: int
    offset: int
    files: list[PortedFileOut]
    diffs: list[dict[str, str]]
    next_offset: Optional[int]
    remaining: list[FindingOut]
    errors: list[dict[str, Any]]
    skip_count: int
    skips: list[dict[str, Any]]
    left_out: list[str]
    own_rocm_build: str
    build: NotRequired[Optional[dict[str, Any]]]
    hint: NotRequired[str]


@with_config(_OPEN)
class VerifyOut(TypedDict):
    """``verify``: whether every file compiled for every arch, with the evidence per file (and the wave64 differential)."""

    passed: bool
    archs: list[str]
    files: list[dict[str, Any]]
    #: How the compiler ran: confined to the root, toolchain and scratch, or unconfined (and what that leaves open).
    confinement: NotRequired[str]
    build: NotRequired[dict[str, Any]]
    differential: NotRequired[dict[str, Any]]


@with_config(_OPEN)
class BenchOut(TypedDict):
    """``bench_kernel``: vado's kernel benchmark result (times, throughput, checksums)."""
