"""Caches of what a tree's files say, kept for one run of vado over a tree.

Rules and scope readers memoise per process what they read from a tree (which file an ``#include`` names,
the build's include directories, a header's macros), so the files of one tree are not read once per unit.
A long-lived process (``vado mcp``, a notebook, a test session) runs vado again on a tree whose files have
changed since: an audit or port starts by forgetting what an earlier run read (:func:`start_run`), so a
header created or edited between two runs is seen. Caches keyed by what they read (a file's size and
modification time) stay.
"""

from __future__ import annotations

from typing import Callable, TypeVar

F = TypeVar("F", bound=Callable)

_CLEARERS: list[Callable[[], None]] = []


def per_run(fn: F) -> F:
    """Register ``fn``, a ``functools.lru_cache``-wrapped function, as a cache of one run; return it."""
    _CLEARERS.append(fn.cache_clear)
    return fn


def start_run() -> None:
    """Forget what earlier runs in this process read from trees (every cache :func:`per_run` registered)."""
    for clear in _CLEARERS:
        clear()
