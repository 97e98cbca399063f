"""Precompiled headers for verify's front-end runs: the same headers, parsed once per flag set.

Every HIP unit starts with the header clang includes before its first line
(``__clang_hip_runtime_wrapper.h``, with ``<cmath>``, ``<cstdlib>`` and HIP's device functions): about
0.3 CPU-s of each side's front end (host and each arch), most of a small unit's. Many units then open
with the same system headers (``<stdio.h>``, ``<chrono>``, ``<hip/hip_runtime.h>``: 0.2 CPU-s more
a side). Those are parsed
once per flag set into a precompiled header for each side, kept in one directory (clang picks, for each
side, the file in a ``.gch`` directory that matches that side's target and options), and handed to the
unit's front end with ``-include``.

The result is the same as the plain compile's:

- the prefix is exactly how the unit begins: the angle-bracket includes that open the source, with
  only comments and blank lines before and between them, up to ``<hip/hip_runtime.h>`` (or none:
  the implicit header alone); the unit's own lines include them again, a no-op behind their guards;
- the header is built with the unit's own flags, compiler and working directory where a flag names a
  relative path; clang refuses a precompiled header whose options differ from the compile's;
- a prefix that reads a file of the project (a ``-I`` directory that shadows a system header) is not
  used; the precompiled header's own dependencies join the unit's, for the result cache;
- only passes are taken from a run with a precompiled header: a unit whose front end fails with
  one is run again without it, and that run is the record.

A prefix is used where at least :data:`MIN_SHARE` units share it (building one costs about a front
end per side) and built once the second of them misses the result cache (a one-file re-verify
builds none); where the plan counts only the units that will run (verify looks each one up in the
result cache first: ``planned_runs``), it is built for the first, which then uses it too. The command in a record shows the ``-include``
it ran with; the result cache keys the plain
command, since the results are the same.
"""

from __future__ import annotations

import re
import threading
from pathlib import Path
from typing import Callable, Sequence

#: The header a longer prefix ends with: what most HIP units include before their own code, and the
#: costliest part of their opening (about 0.2 CPU-s a side beside the implicit header's 0.3).
ANCHOR = "hip/hip_runtime.h"

#: Units that must share a prefix before it is built: building one costs about a front end per side,
#: and each unit that uses it saves 0.9 (the implicit header) to 1.5 CPU-s (with ``ANCHOR``).
MIN_SHARE = 4

_LEADING = re.compile(r"[ \t\r\n\f\v]*(?://[^\n]*\n|/\*.*?\*/|#[ \t]*include[ \t]*<([^>\n]+)>[ \t]*(?://[^\n]*)?\n)",
                      re.S)
_PATH_OPTS = ("-I", "-isystem", "-iquote", "-idirafter", "-include", "-imacros", "-isysroot", "--sysroot")


def leading_includes(text: str) -> tuple[str, ...]:
    """The angle-bracket includes a source opens with (comments and blank lines before and between)."""
    out: list[str] = []
    i = 0
    while True:
        m = _LEADING.match(text, i)
        if not m or m.end() == i:
            return tuple(out)
        if m.group(1):
            out.append(m.group(1).strip())
        i = m.end()




def _anchored(block: tuple[str, ...]) -> tuple[str, ...]:
    """``block`` up to and including :data:`ANCHOR` (empty without it)."""
    return block[:block.index(ANCHOR) + 1] if ANCHOR in block else ()


def names_relative_path(flags: Sequence[str]) -> bool:
    """Whether a flag names a relative path (then the header is built in the unit's directory)."""
    for i, w in enumerate(flags):
        if w in _PATH_OPTS:
            if i + 1 < len(flags) and not flags[i + 1].startswith("/"):
                return True
            continue
        for opt in _PATH_OPTS:
            if w.startswith(opt) and len(w) > len(opt):
                if not w[len(opt):].lstrip("=").startswith("/"):
                    return True
                break
    return False


class Prefixes:
    """Precompiled prefixes of one verify run, in ``scratch/pch`` (thread-safe).

    :meth:`plan` is told every unit's opening includes first; :meth:`prefix` then picks each unit's."""

    def __init__(self, scratch: Path, *, planned_runs: bool = False) -> None:
        self.scratch = scratch
        #: :meth:`plan` is told only the units that will run (cache misses): no need to wait for a second.
        self.planned_runs = planned_runs
        self._lock = threading.Lock()
        self._misses: dict[tuple, int] = {}
        self._made: dict[tuple, tuple[str, tuple[str, ...]] | None] = {}
        self._key_locks: dict[tuple, threading.Lock] = {}
        self._planned: dict[tuple, int] = {}

    @staticmethod
    def _base(flags: Sequence[str], sides: tuple[str, ...], cwd: str) -> tuple:
        return (tuple(flags), sides, cwd if names_relative_path(flags) else "")

    def plan(self, block: tuple[str, ...], flags: Sequence[str], sides: tuple[str, ...], cwd: str) -> None:
        """Count one unit's candidate prefixes (the implicit header alone; its opening includes up to
        :data:`ANCHOR`) before any :meth:`use`."""
        base = self._base(flags, sides, cwd)
        with self._lock:
            for headers in {(), _anchored(block)}:
                key = (*base, headers)
                self._planned[key] = self._planned.get(key, 0) + 1

    def prefix(self, block: tuple[str, ...], flags: Sequence[str], sides: tuple[str, ...],
               cwd: str) -> tuple[str, ...] | None:
        """The prefix a unit with these opening includes, flags and sides uses: its opening includes up to
        :data:`ANCHOR` when :data:`MIN_SHARE` planned units share them, else the implicit header alone
        when that many share the flags, else none (a header costs about three front ends to build)."""
        base = self._base(flags, sides, cwd)
        with self._lock:
            for headers in (_anchored(block), ()):
                if self._planned.get((*base, headers), 0) >= MIN_SHARE:
                    return headers
        return None

    def use(self, headers: tuple[str, ...], flags: Sequence[str], sides: tuple[str, ...], cwd: str,
            build: Callable[[Path], tuple[bool, list[str]]]) -> tuple[str, tuple[str, ...]] | None:
        """The header to ``-include`` and the files its precompiled form read, for a unit with this
        prefix, flags and sides that missed the result cache; None the first time (one unit does not
        pay for a header; with ``planned_runs`` the plan already counted only units that run) or when it cannot be made. ``build(header)`` precompiles ``header`` into
        ``header.gch/`` for every side and returns (ok, the files it read)."""
        key = (*self._base(flags, sides, cwd), headers)
        with self._lock:
            self._misses[key] = self._misses.get(key, 0) + 1
            if self._misses[key] < 2 and not self.planned_runs:
                return None
            lock = self._key_locks.setdefault(key, threading.Lock())
            number = len(self._key_locks)
        with lock:
            if key in self._made:
                return self._made[key]
            d = self.scratch / "pch" / str(number)
            d.mkdir(parents=True, exist_ok=True)
            header = d / "prefix.h"
            header.write_text("".join(f"#include <{h}>\n" for h in headers), encoding="utf-8")
            (d / "prefix.h.gch").mkdir(exist_ok=True)
            ok, deps = build(header)
            self._made[key] = (str(header), tuple(deps)) if ok else None
            return self._made[key]

    def refuse(self, header: str) -> None:
        """A run with ``header`` failed where the plain run passed: clang did not take it (an option it
        checks differs), so the units of its prefix run plain from now on."""
        with self._lock:
            for key, made in self._made.items():
                if made is not None and made[0] == header:
                    self._made[key] = None

    @property
    def built(self) -> int:
        """How many prefixes were precompiled."""
        with self._lock:
            return sum(1 for v in self._made.values() if v is not None)
