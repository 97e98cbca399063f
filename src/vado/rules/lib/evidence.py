"""Which CUDA libraries a file uses and the evidence (:func:`library_uses`): headers included,
identifiers in the library's own style or in the CUDA→HIP table, library binaries named.
"""

from __future__ import annotations

import functools
import os
import posixpath
from dataclasses import dataclass, field
from typing import Any

from vado.rules.base import FileContext
from vado.scan.facts import source_facts


def _libs():
    from vado.knowledge import libraries

    return libraries


@functools.cache
def _table_libraries() -> frozenset[str]:
    """Ids of the libraries whose names the CUDA→HIP table lists (empty without a table)."""
    try:
        from vado.knowledge import api
    except ImportError:  # pragma: no cover - the table ships with vado
        return frozenset()
    libs = _libs()
    out = set()
    for lib_name in api.api_table().libraries:
        lib = libs.find_library(lib_name) if lib_name else None
        if lib is not None:
            out.add(lib.id)
    return frozenset(out)


def _table_library_of(name: str) -> str | None:
    """The library id of ``name`` in the CUDA→HIP table, or None."""
    try:
        from vado.knowledge import api
    except ImportError:  # pragma: no cover
        return None
    entry = api.lookup(name)
    if entry is None:
        return None
    lib = _libs().find_library(str(getattr(entry, "library", "")))
    return lib.id if lib is not None else None


def _in_library_style(name: str, lib: Any, *, called: bool, covered: bool) -> bool:
    """True when ``name`` continues one of ``lib``'s prefixes the way the library's own names do.

    ``cudnnCreate`` and ``CUDNN_STATUS_SUCCESS`` do; ``cudnn_enabled`` (a user's
    flag) does not. Prefixes that end in ``_`` or are all capitals are styled
    by themselves. A snake-case continuation (``nvshmem_malloc``) counts only
    when it is called and the CUDA→HIP table does not cover the library (the
    table would have listed a real API name).
    """
    best = ""
    for p in lib.identifier_prefixes:
        if name.startswith(p) and len(p) > len(best):
            best = p
    if not best:
        return True  # matched through a namespace or pattern
    if best.endswith("_") or best.isupper():
        return True
    rest = name[len(best):]
    if rest and (rest[0].isupper() or rest[0].isdigit()):
        return True
    return called and not covered and len(rest) > 1 and rest[0] == "_"


@dataclass
class LibraryUse:
    """Evidence that one file uses one library."""

    lib: Any
    first: tuple[int, int]
    headers: list[str] = field(default_factory=list)
    identifiers: dict[str, int] = field(default_factory=dict)
    links: list[str] = field(default_factory=list)
    lines: set[int] = field(default_factory=set)
    #: Every use's ``(start, end)`` (headers, names, links), in the order noted.
    spans: list[tuple[int, int]] = field(default_factory=list)

    def add(self, start: int, end: int) -> None:
        if start < self.first[0]:
            self.first = (start, end)


def _own_header(ctx: FileContext, name: str) -> bool:
    """Whether ``name`` (``cuda/scatter_cuda.h``) is a file of the audited tree (rule option
    ``source_root``) in the including file's folder or a folder above it, inside the tree: the
    ``-I`` roots a project's own ``<cuda/…>`` headers are found from. A link out of the tree, or no
    known root, counts as no."""
    root = (ctx.options or {}).get("source_root")
    if not root or name.startswith("/") or ".." in name.split("/"):
        return False
    real_root = os.path.realpath(root)
    folder = posixpath.dirname(ctx.path.replace(os.sep, "/"))
    while True:
        candidate = os.path.join(root, folder, name)
        try:
            if os.path.isfile(candidate) and os.path.realpath(candidate).startswith(real_root + os.sep):
                return True
        except OSError:
            return False
        if not folder or folder in (".", "/"):
            return False
        folder = posixpath.dirname(folder)


def library_uses(ctx: FileContext) -> dict[str, LibraryUse]:
    """Evidence per library id for ``ctx``'s file (computed once per file, kept on the context)."""
    cached = getattr(ctx, "_vado_library_uses", None)
    if cached is not None:
        return cached
    libs = _libs()
    facts = source_facts(ctx)
    uses: dict[str, LibraryUse] = {}

    def note(lib, start: int, end: int) -> LibraryUse:
        use = uses.get(lib.id)
        if use is None:
            use = uses[lib.id] = LibraryUse(lib, (start, end))
        else:
            use.add(start, end)
        use.spans.append((start, end))
        use.lines.add(ctx.lines.position(start)[0])
        return use

    for inc in facts.includes:
        lib = libs.library_for_header(inc.path)
        if lib is None:
            continue
        if not inc.system and not _names_header(lib, inc.path):
            continue  # a quoted include matched only by a wildcard is a user header
        if lib.id == "libcudacxx" and (_own_header(ctx, inc.path) or "." in inc.path.rsplit("/", 1)[-1]):
            # torch_scatter's <cuda/scatter_cuda.h>: the project's csrc/cuda/, not libcu++; libcu++'s own headers
            # have no extension (CUDA 13.0's include/cccl/cuda: <cuda/atomic>, <cuda/std/cstdint>), so a
            # "cuda/q_gemm.cuh" the tree lacks (auto-gptq 0.7.1's sdist ships no headers) is the project's too
            continue
        use = note(lib, inc.start, inc.end)
        if inc.path not in use.headers:
            use.headers.append(inc.path)

    covered = _table_libraries()
    idents = facts.idents
    # The names some library claims, in first-use order (the order of ``idents``).
    for name in sorted(libs.names_with_library(idents.keys()), key=lambda n: idents[n][0]):
        starts = idents[name]
        if name in facts.defines:
            continue  # the file's own macro (CUDNN_CHECK), not the library's
        lib = libs.library_for_identifier(name)
        if lib is None:
            continue
        if name + "::" in _namespace_keys(lib):
            continue  # a namespace counts where it qualifies a name (the scopes below), not as a lone word
        is_covered = lib.id in covered
        if not (is_covered and _table_library_of(name) == lib.id) and not _in_library_style(
            name, lib, called=name in facts.calls, covered=is_covered
        ):
            continue
        plain = [s for s in starts if s not in facts.qualifiers]
        if not plain:
            continue
        use = note(lib, plain[0], plain[0] + len(name))
        use.identifiers[name] = use.identifiers.get(name, 0) + len(plain)
        for s in plain[1:]:
            use.lines.add(ctx.lines.position(s)[0])
            use.spans.append((s, s + len(name)))

    for ns, starts in facts.scopes.items():
        lib = libs.library_for_identifier(ns + "::")
        if lib is None or ns + "::" not in _namespace_keys(lib):
            continue
        use = note(lib, starts[0], starts[0] + len(ns))
        key = ns + "::"
        use.identifiers[key] = use.identifiers.get(key, 0) + len(starts)
        for s in starts[1:]:
            use.lines.add(ctx.lines.position(s)[0])
            use.spans.append((s, s + len(ns)))

    for link in facts.links:
        lib = libs.library_for_link(link.file) or libs.library_for_link(link.name)
        if lib is None:
            continue
        use = note(lib, link.start, link.end)
        if link.file not in use.links:
            use.links.append(link.file)

    setattr(ctx, "_vado_library_uses", uses)
    return uses


def _namespace_keys(lib: Any) -> frozenset[str]:
    return frozenset(ns + "::" for ns in lib.namespaces)


def _names_header(lib: Any, path: str) -> bool:
    """True when ``path`` is one of ``lib``'s headers by exact name or directory prefix."""
    for h in lib.headers:
        if h.endswith("/"):
            if path.startswith(h) or path.startswith("cccl/" + h):
                return True
        elif not any(c in h for c in "*?[") and (path == h or path == "cccl/" + h):
            return True
    return False


def _evidence_text(use: LibraryUse) -> str:
    parts = []
    if use.headers:
        parts.append(", ".join(f"<{h}>" for h in use.headers[:2]) + (" …" if len(use.headers) > 2 else ""))
    if use.identifiers:
        n = sum(use.identifiers.values())
        parts.append(f"{n} identifier use{'s' if n != 1 else ''}")
    if use.links:
        parts.append("loads " + ", ".join(use.links[:2]))
    return "; ".join(parts)
