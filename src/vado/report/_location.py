"""Where a finding is, as CI services want it: relative to the repository's top, else to the working directory."""

from __future__ import annotations

import os
from pathlib import Path

from vado.model import Finding
from vado.model.audit import AuditResult
from vado.report.concise import display_path


def repo_prefix(result: AuditResult, repo_root: str | None) -> str | None:
    """``dir/`` that puts the audited root's paths under ``repo_root``; ``""`` at its top; None without one
    (or when the root lies outside it)."""
    if repo_root is None:
        return None
    root_dir = Path(os.path.abspath(result.root))
    if root_dir.is_file():
        root_dir = root_dir.parent
    try:
        rel = root_dir.relative_to(Path(os.path.abspath(repo_root)))
    except ValueError:
        return None
    return "" if str(rel) == "." else rel.as_posix() + "/"


class Locator:
    """Paths of one result's findings: repository-relative under ``repo_root``, else as the concise report names them."""

    def __init__(self, result: AuditResult, repo_root: str | None = None) -> None:
        self.result = result
        self.prefix = repo_prefix(result, repo_root)
        self._paths: dict[str, str] = {}

    def path(self, finding_or_path: Finding | str) -> str:
        """The path of a finding (or of an audited file's path) as a CI service shows it."""
        rel = finding_or_path if isinstance(finding_or_path, str) else finding_or_path.span.path
        got = self._paths.get(rel)
        if got is None:
            got = self.prefix + rel if self.prefix is not None else display_path(self.result.root, rel)
            self._paths[rel] = got.replace(os.sep, "/")
            got = self._paths[rel]
        return got


def verdict_note(finding: Finding) -> str:
    """`` [target: verdict; …]`` for the targets where the finding is work, and the targets whose build
    does not compile its branch (``inactive for rocm-7.2``); ``""`` when there is neither."""
    from vado.model import Verdict

    work = [f"{t}: {v.label}" for t, v in finding.verdicts.items() if v is not Verdict.MOVES_AS_IS]
    work += [f"inactive for {t} (a branch that build does not compile{_deciding(finding)})"
             for t in getattr(finding, "inactive", {}) or {}]
    return f" [{'; '.join(work)}]" if work else ""


def _deciding(finding: Finding) -> str:
    """``: `#ifdef ENABLE_CUDNN```: the test that switches the finding's code off, where the engine found it."""
    why = (getattr(finding, "data", None) or {}).get("inactive_branch")
    return f": `{why}`" if why else ""
