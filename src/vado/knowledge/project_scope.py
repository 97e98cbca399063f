"""The tables of ``data/project_scope.yaml``: copies of known libraries, and other backends' markers.

Read by :mod:`vado.scan.discover` (a directory that holds a copy of a known library is
vendored wherever it sits) and :mod:`vado.scan.scope` (code for SYCL, MUSA, Vulkan, Metal,
OpenCL, CANN and CPU instruction sets is not the project's CUDA code).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from vado.errors import KnowledgeError

__all__ = ["Backend", "LibraryCopy", "backends", "library_copies", "single_file_libraries"]


@dataclass(frozen=True)
class LibraryCopy:
    """A library whose copy is recognised by ``markers`` (paths below the copy's top directory),
    or, for a copy of its include directory alone, by a directory named ``header_dir[0]`` that
    holds ``header_dir[1]``."""

    name: str
    markers: tuple[str, ...]
    header_dir: tuple[str, str] | None = None


@dataclass(frozen=True)
class Backend:
    """A backend other than CUDA/HIP: the headers that mark its code and the words naming its directories."""

    name: str
    label: str
    headers: tuple[str, ...]
    dirs: tuple[str, ...]


def _table(key: str) -> list[dict]:
    from vado.knowledge._data import load

    data = load("project_scope")
    table = data.get(key)
    if not isinstance(table, dict) or not table.get("source") or not isinstance(table.get("entries"), list):
        raise KnowledgeError(f"project_scope.yaml: table {key!r} is malformed", "it needs a source and entries")
    return [e for e in table["entries"] if isinstance(e, dict) and e.get("name")]


@functools.lru_cache(maxsize=1)
def library_copies() -> tuple[LibraryCopy, ...]:
    """Every known library and its markers."""
    out = []
    for e in _table("libraries"):
        hd = e.get("header_dir")
        header_dir = (str(hd["name"]), str(hd["file"])) if isinstance(hd, dict) and hd.get("name") and hd.get("file") else None
        out.append(LibraryCopy(str(e["name"]), tuple(str(m) for m in e.get("markers") or ()), header_dir))
    return tuple(out)


@functools.lru_cache(maxsize=1)
def single_file_libraries() -> dict[str, str]:
    """File name → library name, for single-file libraries recognised by name."""
    return {str(f): str(e["name"]) for e in _table("single_files") for f in e.get("files") or ()}


@functools.lru_cache(maxsize=1)
def backends() -> tuple[Backend, ...]:
    """Every backend other than CUDA/HIP that vado recognises."""
    return tuple(
        Backend(str(e["name"]), str(e.get("label") or e["name"]), tuple(str(h) for h in e.get("headers") or ()),
                tuple(str(d).lower() for d in e.get("dirs") or ()))
        for e in _table("backends")
    )
