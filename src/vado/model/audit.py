"""The result of an audit: one object that every report format renders."""

from __future__ import annotations

from dataclasses import dataclass, field

from vado.model.finding import Effort, Finding
from vado.model.serde import SCHEMA_VERSION
from vado.model.skip import Skip
from vado.model.verdict import TargetVerdict


@dataclass(frozen=True)
class FileReport:
    """One scanned file: its kind, size, verdict per target and effort."""

    path: str
    kind: str
    size: int
    verdicts: tuple[TargetVerdict, ...] = ()
    effort: Effort = field(default_factory=Effort)
    finding_count: int = 0


@dataclass(frozen=True)
class WorkloadReport:
    """A workload: a directory with a build file, or a build target, and its files.

    ``path`` is the directory relative to the root (``.`` for the root itself).
    """

    name: str
    path: str
    files: tuple[str, ...] = ()
    verdicts: tuple[TargetVerdict, ...] = ()
    effort: Effort = field(default_factory=Effort)


@dataclass(frozen=True)
class RuleInfo:
    """Metadata of a rule that appears in the result (for SARIF and docs)."""

    code: str
    name: str
    family: str
    severity: str
    summary: str
    help: str = ""


@dataclass(frozen=True)
class AuditStats:
    """Counters of the run."""

    files_scanned: int = 0
    files_skipped: int = 0
    bytes_scanned: int = 0
    duration_s: float = 0.0
    jobs: int = 1
    #: Findings the audit's filters left out (inline suppressions, the baseline, per-file ignores, the
    #: rule selection), code → count: they are in no verdict, though the code still holds them.
    filtered: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class BuildSummary:
    """The build configuration a run judged, and where it came from.

    ``reader`` is how it was read (``compile-db``, ``cmake-file-api``, ``make``, ``setup.py``, or
    ``guess`` when no build could be read); ``source`` says it in words (``compile_commands.json``,
    ``CMake File API reply in build, configuration Release``, ``make -n in .``, ``setup.py (read, not
    run)``, ``guessed: no build could be read (…)``). ``configuration`` is its name; ``units`` the
    translation units it compiles; ``ran`` the build logic vado executed to read it; ``notes`` what
    was skipped. ``not_built`` lists sources of the tree the configuration neither compiles nor
    includes anywhere: their findings are kept, and they are named here. With ``guessed``, every
    branch counts as it did without a build model (only the platform's macros are known).
    """

    reader: str
    source: str
    configuration: str = "default"
    guessed: bool = False
    units: int = 0
    ran: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    not_built: tuple[str, ...] = ()


@dataclass(frozen=True)
class AuditResult:
    """Everything an audit found, in deterministic order.

    ``verdicts`` is the repository-level verdict per target; ``errors`` holds
    tool failures that did not stop the run (serialised ``VadoError.to_json``).
    """

    root: str
    targets: tuple[str, ...]
    verdicts: tuple[TargetVerdict, ...]
    files: tuple[FileReport, ...]
    workloads: tuple[WorkloadReport, ...]
    findings: tuple[Finding, ...]
    skips: tuple[Skip, ...] = ()
    rules: tuple[RuleInfo, ...] = ()
    stats: AuditStats = field(default_factory=AuditStats)
    errors: tuple[dict, ...] = ()
    #: The build configuration judged (:mod:`vado.build.judged`); None when none was looked for.
    build: BuildSummary | None = None
    #: Build files that already build for AMD GPUs (``setup.py: torch.version.hip``, ``CMakeLists.txt:
    #: enable_language(HIP)``): the project supports ROCm itself (:func:`vado.port.build.existing_amd_support`).
    amd_support: tuple[str, ...] = ()
    tool_version: str = ""
    schema_version: str = SCHEMA_VERSION
