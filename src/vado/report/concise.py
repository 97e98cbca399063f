"""The ``concise`` report: one line per finding, then one line per target's verdict.

``path:line:column: CODE severity message [target: verdict; …]`` is the convention of
compilers and linters (ruff's ``--output-format concise``), which editors, terminals and
pre-commit turn into links. Only the targets for which the finding is work are named (a
finding that moves as is everywhere has no brackets). Paths are the audited files' own, relative
to the working directory where that is shorter, so a one-file audit names the file it was given.

Plain text, without rich: it is the pre-commit hook's format, where the start of a one-file
audit is the cost (rich's import and layout take 50 ms of it).
"""

from __future__ import annotations

import os

from vado.model import Verdict
from vado.model.audit import AuditResult


def display_path(root: str, path: str) -> str:
    """Where the finding's file is, for a reader in the working directory.

    A one-file audit's root is the file itself (``path`` is its name); otherwise ``path`` is
    relative to the audited directory ``root``."""
    if root == path or root.endswith(path) and root[-len(path) - 1] in "/\\":
        full = root
    else:
        full = os.path.join(root, path)
    if os.path.isabs(full):
        rel = os.path.relpath(full)
        return full if rel.startswith("..") else rel
    # `vado audit .` names its files `k.cu`, not `./k.cu` (a CI service matches the path as written).
    return os.path.normpath(full)


def render_concise(result: AuditResult) -> str:
    """``result`` as lines (see the module docstring), ending with a newline."""
    lines = []
    findings = sorted(result.findings, key=lambda f: (f.span.path, f.span.line, f.span.column, f.code))
    paths: dict[str, str] = {}
    for f in findings:
        where = paths.get(f.span.path)
        if where is None:
            where = paths[f.span.path] = display_path(result.root, f.span.path)
        position = f"{f.span.line}:{f.span.column}" if f.span.line else "1:1"
        work = [f"{t}: {v.label}" for t, v in f.verdicts.items() if v is not Verdict.MOVES_AS_IS]
        work += [f"{t}: inactive" for t in f.inactive]
        fix = f" (fix: {f.fix.applicability.value})" if f.fix is not None else ""
        lines.append(f"{where}:{position}: {f.code} {f.severity.value} {f.message}{fix}"
                     + (f" [{'; '.join(work)}]" if work else ""))
    for tv in result.verdicts:
        lines.append(f"{tv.target}: {tv.verdict.label}" + (f" ({tv.reason})" if tv.reason else ""))
    lines.append(f"{len(result.files)} files, {len(result.findings)} findings, {len(result.skips)} skipped")
    return "\n".join(lines) + "\n"
