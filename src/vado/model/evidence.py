"""Evidence: what a real tool did when vado asked it to prove something."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Evidence:
    """One recorded run of a toolchain or program.

    ``kind`` is ``compile``, ``run``, ``compare``, ``bench`` …; ``subject`` what
    was proved (a translation unit, a program); ``passed`` the outcome. The
    command, exit code, output and duration are kept so a failure can be replayed.
    """

    kind: str
    subject: str
    passed: bool
    command: tuple[str, ...] = ()
    returncode: int | None = None
    stdout: str = ""
    stderr: str = ""
    duration_s: float = 0.0
    target: str = ""
    arch: str = ""
    toolchain: str = ""
    toolchain_version: str = ""
    detail: dict = field(default_factory=dict)
