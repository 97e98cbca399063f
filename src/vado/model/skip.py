"""Skips: a file vado did not process is a result with a typed reason, not an error."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class SkipReason(str, Enum):
    """Why a path was not scanned or ported."""

    BINARY = "binary"
    TOO_LARGE = "too-large"
    UNREADABLE = "unreadable"
    UNDECODABLE = "undecodable"
    SYMLINK_LOOP = "symlink-loop"
    SYMLINK_OUTSIDE = "symlink-outside-root"
    IGNORED = "ignored"
    VENDORED = "vendored"
    MALFORMED = "malformed"
    NOT_A_FILE = "not-a-file"
    #: Code for another backend (SYCL, MUSA, Vulkan, Metal, a CPU instruction set …): not ported by default.
    OTHER_BACKEND = "other-backend"
    #: The project's own HIP path (its vendor header, the sources its ROCm build compiles): not ported by default.
    OWN_HIP_PATH = "own-hip-path"


@dataclass(frozen=True, order=True)
class Skip:
    """``path`` (relative to the scanned root) was skipped for ``reason``; ``detail`` says more."""

    path: str
    reason: SkipReason
    detail: str = ""
