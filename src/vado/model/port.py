"""The result of a port: what each file became and what is left for humans."""

from __future__ import annotations

from dataclasses import dataclass, field

from vado.model.audit import BuildSummary
from vado.model.finding import Finding
from vado.model.skip import Skip


@dataclass(frozen=True)
class PortedFile:
    """One file of the ported tree.

    ``status`` is ``translated`` (edits applied), ``unchanged`` (copied as is),
    ``copied`` (not a file vado ports, copied verbatim) or ``failed`` (see
    ``error``). ``applied`` counts applied fixes by tag (``rename``, ``header``,
    ``wave64``, ``ptx``, ``build``, ``launch`` …); ``remaining`` counts the
    findings still open in the port by code; ``unsafe_applied`` describes each applied
    fix marked unsafe (build-file fixes in a new output tree, or all with ``--unsafe-fixes``);
    ``changes`` says what the port changed and why: each applied fix's description with its count.
    """

    path: str
    out_path: str
    kind: str
    status: str
    applied: dict[str, int] = field(default_factory=dict)
    remaining: dict[str, int] = field(default_factory=dict)
    diff: str = ""
    error: str = ""
    unsafe_applied: tuple[str, ...] = ()
    changes: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class PortResult:
    """A whole port: files, the findings left open in the port, skips, errors."""

    root: str
    out: str
    target: str
    files: tuple[PortedFile, ...]
    remaining: tuple[Finding, ...] = ()
    skips: tuple[Skip, ...] = ()
    errors: tuple[dict, ...] = ()
    bytes_ported: int = 0
    duration_s: float = 0.0
    tool_version: str = ""
    schema_version: str = "1.0"
    #: Build files that already build for AMD GPUs, with what shows it (``CMakeLists.txt: enable_language(HIP``):
    #: their project has AMD support, which the port left intact (no build-file fixes by default).
    amd_support: tuple[str, ...] = ()
    #: How to enable the project's own ROCm build (``cmake -DGGML_HIP=ON -DGPU_TARGETS=gfx942``) when it
    #: has a complete one: its HIP path was left as is (``--include-hip-path`` ports it). Empty otherwise.
    own_rocm_build: str = ""
    #: What the port left as it is, and why, one line per group (other backends, the own HIP path,
    #: vendored code), for the summary.
    left_out: tuple[str, ...] = ()
    #: The build configuration the port judged (which branches it edits): where it came from, or
    #: that it is a guess (:mod:`vado.build.judged`). None when none was looked for.
    build: BuildSummary | None = None

    @property
    def translated(self) -> tuple[PortedFile, ...]:
        """Files that vado changed."""
        return tuple(f for f in self.files if f.status == "translated")
