"""Porting: fixes become edits, and one applier writes them (:mod:`vado.port.apply`).

Every change vado makes to a file goes through :func:`apply_edits` (pure),
:func:`select_fixes` / :func:`fixpoint` (which fixes, until stable) and
:func:`write_atomic` (temp file, fsync, rename, never overwrite without a backup).
"""

from vado.port.apply import (
    BACKUP_SUFFIX,
    ApplyResult,
    FixpointResult,
    RejectKind,
    RejectReason,
    Rejection,
    apply_edits,
    apply_to_file,
    backup_path,
    fixpoint,
    select_fixes,
    unified_diff,
    write_atomic,
)

__all__ = [
    "BACKUP_SUFFIX",
    "ApplyResult",
    "FixpointResult",
    "RejectKind",
    "RejectReason",
    "Rejection",
    "apply_edits",
    "apply_to_file",
    "backup_path",
    "fixpoint",
    "select_fixes",
    "unified_diff",
    "write_atomic",
]
