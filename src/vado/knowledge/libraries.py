"""CUDA libraries and API families: how to recognise them and what replaces them per target.

The table is ``data/libraries.yaml``. Lookups are dictionaries built once, on
first use::

    >>> from vado.knowledge.libraries import library_for_header, library_for_identifier
    >>> library_for_header("cudnn.h").id
    'cudnn'
    >>> library_for_identifier("cusparseLtMatmul").id      # longest prefix wins
    'cusparselt'
    >>> library("cublas").rocm.hip_wrapper
    'hipBLAS'

Each vendor section (:attr:`LibraryFact.rocm`, ``intel``, ``scale``, ``zluda``)
keeps its own ``source``, ``as_of`` and ``confidence``.
"""

from __future__ import annotations

import fnmatch
import functools
import re
from dataclasses import dataclass, field, fields
from typing import Any, Iterable

from vado.errors import KnowledgeError
from vado.knowledge import _data

VENDORS = ("rocm", "intel", "scale", "zluda")
API_SHAPES = ("drop-in", "near-drop-in", "rework", "none")
STATUSES = ("supported", "partial", "failing", "none", "unknown")

# Target family → the vendor section that describes it.
_FAMILY_SECTION = {"rocm": "rocm", "oneapi": "intel", "scale": "scale", "zluda": "zluda"}


@dataclass(frozen=True)
class VendorFact:
    """What one vendor stack offers in place of a CUDA library.

    ``api_shape`` is one of :data:`API_SHAPES` (empty when the facts do not say);
    ``status`` (SCALE, ZLUDA) one of :data:`STATUSES`. ``headers`` maps a CUDA
    header to its replacement through the HIP wrapper, ``roc_headers`` through the
    roc* native library; ``links`` / ``roc_links`` likewise for linker and CMake names.
    """

    vendor: str
    source: str
    equivalent: str = ""
    api_shape: str = ""
    status: str = ""
    hip_wrapper: str = ""
    roc_native: str = ""
    shim: str = ""
    versions: dict[str, str] = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)
    roc_headers: dict[str, str] = field(default_factory=dict)
    links: tuple[str, ...] = ()
    roc_links: tuple[str, ...] = ()
    #: ``{replacement header: linker name}`` for a library whose CUDA form is header-only (NVTX 3)
    #: and whose replacement is not: a build whose sources include the CUDA headers must link the
    #: library of the first replacement header found (in this order).
    link_when_included: dict[str, str] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    gaps: tuple[str, ...] = ()
    blockers: tuple[str, ...] = ()
    hipify_coverage: str = ""
    note: str = ""
    extra_sources: tuple[str, ...] = ()
    as_of: str = ""
    confidence: str = ""
    source_note: str = ""

    @property
    def summary(self) -> str:
        """One line naming the replacement (equivalent, wrapper or shim), for messages."""
        for text in (self.equivalent, self.hip_wrapper, self.shim, self.note, self.status):
            if text:
                return text
        return "no equivalent recorded"

    def to_dict(self) -> dict[str, Any]:
        """Plain-data form without empty fields."""
        return _plain(self)


@dataclass(frozen=True)
class LibraryFact:
    """One CUDA library or API family, with detection facts and per-vendor equivalents."""

    id: str
    name: str
    kind: str
    source: str
    aliases: tuple[str, ...] = ()
    headers: tuple[str, ...] = ()
    links: tuple[str, ...] = ()
    identifier_prefixes: tuple[str, ...] = ()
    namespaces: tuple[str, ...] = ()
    identifier_patterns: tuple[str, ...] = ()
    ptx_mnemonics: tuple[str, ...] = ()
    rocm: VendorFact | None = None
    intel: VendorFact | None = None
    scale: VendorFact | None = None
    zluda: VendorFact | None = None

    def on(self, family: str) -> VendorFact | None:
        """The vendor section for a target family (``rocm``, ``oneapi``, ``scale``, ``zluda``)."""
        section = _FAMILY_SECTION.get(family, family)
        return getattr(self, section, None) if section in VENDORS else None

    def to_dict(self) -> dict[str, Any]:
        """Plain-data form (for JSON and the MCP tool), vendor sections included."""
        return _plain(self)


def _plain(obj: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for f in fields(obj):
        value = getattr(obj, f.name)
        if value in ("", (), {}, None):
            continue
        if isinstance(value, VendorFact):
            value = value.to_dict()
        elif isinstance(value, tuple):
            value = list(value)
        elif isinstance(value, dict):
            value = dict(value)
        out[f.name] = value
    return out


def _vendor(vendor: str, raw: dict[str, Any], where: str) -> VendorFact:
    where = f"{where}.{vendor}"
    shape = _data.as_str(raw.get("api_shape"))
    if shape and shape not in API_SHAPES:
        raise KnowledgeError(f"library entry {where} is malformed", f"api_shape {shape!r} is not one of {API_SHAPES}")
    status = _data.as_str(raw.get("status"))
    if status and status not in STATUSES:
        raise KnowledgeError(f"library entry {where} is malformed", f"status {status!r} is not one of {STATUSES}")
    return VendorFact(
        vendor=vendor,
        source=_data.as_str(_data.require(raw, "source", where)),
        equivalent=_data.as_str(raw.get("equivalent")),
        api_shape=shape,
        status=status,
        hip_wrapper=_data.as_str(raw.get("hip_wrapper")),
        roc_native=_data.as_str(raw.get("roc_native")),
        shim=_data.as_str(raw.get("shim")),
        versions={str(k): _data.as_str(v) for k, v in (raw.get("versions") or {}).items()},
        headers={str(k): _data.as_str(v) for k, v in (raw.get("headers") or {}).items()},
        roc_headers={str(k): _data.as_str(v) for k, v in (raw.get("roc_headers") or {}).items()},
        links=_data.as_tuple(raw.get("links")),
        roc_links=_data.as_tuple(raw.get("roc_links")),
        link_when_included={str(k): _data.as_str(v) for k, v in (raw.get("link_when_included") or {}).items()},
        notes=_data.as_tuple(raw.get("notes")),
        gaps=_data.as_tuple(raw.get("gaps")),
        blockers=_data.as_tuple(raw.get("blockers")),
        hipify_coverage=_data.as_str(raw.get("hipify_coverage")),
        note=_data.as_str(raw.get("note")),
        extra_sources=_data.as_tuple(raw.get("extra_sources")),
        as_of=_data.as_str(raw.get("as_of")),
        confidence=_data.as_str(raw.get("confidence")),
        source_note=_data.as_str(raw.get("source_note")),
    )


def _entry(raw: dict[str, Any]) -> LibraryFact:
    lib_id = _data.as_str(_data.require(raw, "id", "libraries[]"))
    detect = raw.get("detect") or {}
    sections = {v: _vendor(v, raw[v], lib_id) for v in VENDORS if raw.get(v)}
    if "rocm" not in sections:
        raise KnowledgeError(f"library entry {lib_id} is malformed", "it has no rocm section")
    return LibraryFact(
        id=lib_id,
        name=_data.as_str(_data.require(raw, "name", lib_id)),
        kind=_data.as_str(raw.get("kind") or "library"),
        source=sections["rocm"].source,
        aliases=_data.as_tuple(raw.get("aliases")),
        headers=_data.as_tuple(detect.get("headers")),
        links=_data.as_tuple(detect.get("links")),
        identifier_prefixes=_data.as_tuple(detect.get("identifier_prefixes")),
        namespaces=_data.as_tuple(detect.get("namespaces")),
        identifier_patterns=_data.as_tuple(detect.get("identifier_patterns")),
        ptx_mnemonics=_data.as_tuple(detect.get("ptx_mnemonics")),
        **sections,
    )


def _is_glob(text: str) -> bool:
    return any(c in text for c in "*?[")


@dataclass(frozen=True)
class _Index:
    by_id: dict[str, LibraryFact]
    names: dict[str, str]  # lowercased id / alias / display name → id
    header_exact: dict[str, str]
    header_dirs: tuple[tuple[str, str], ...]  # (prefix, id), longest first
    header_globs: tuple[tuple[str, str], ...]
    link_exact: dict[str, str]
    link_globs: tuple[tuple[str, str], ...]
    prefixes: dict[str, str]
    prefix_lengths: tuple[int, ...]  # descending
    patterns: tuple[tuple[re.Pattern[str], str], ...]
    ptx: tuple[tuple[str, str], ...]  # (mnemonic prefix, id), longest first
    sources: tuple[dict[str, Any], ...]


def _claim(table: dict[str, str], key: str, lib_id: str, what: str) -> None:
    if table.get(key, lib_id) != lib_id:
        raise KnowledgeError("libraries.yaml is malformed", f"{what} {key!r} is claimed by {table[key]} and {lib_id}")
    table[key] = lib_id


@functools.lru_cache(maxsize=1)
def _index() -> _Index:
    data = _data.load("libraries")
    by_id: dict[str, LibraryFact] = {}
    names: dict[str, str] = {}
    header_exact: dict[str, str] = {}
    header_dirs: list[tuple[str, str]] = []
    header_globs: list[tuple[str, str]] = []
    link_exact: dict[str, str] = {}
    link_globs: list[tuple[str, str]] = []
    prefixes: dict[str, str] = {}
    patterns: list[tuple[re.Pattern[str], str]] = []
    ptx: list[tuple[str, str]] = []
    for raw in _data.require(data, "libraries", "libraries"):
        lib = _entry(raw)
        if lib.id in by_id:
            raise KnowledgeError("libraries.yaml is malformed", f"library {lib.id} is defined twice")
        by_id[lib.id] = lib
        for n in (lib.id, lib.name, *lib.aliases):
            names.setdefault(n.lower(), lib.id)
        for h in lib.headers:
            if h.endswith("/"):
                header_dirs.append((h, lib.id))
            elif _is_glob(h):
                header_globs.append((h, lib.id))
            else:
                _claim(header_exact, h, lib.id, "header")
        for name in lib.links:
            if _is_glob(name):
                link_globs.append((name, lib.id))
            else:
                _claim(link_exact, name, lib.id, "link name")
        for p in lib.identifier_prefixes:
            _claim(prefixes, p, lib.id, "identifier prefix")
        for ns in lib.namespaces:
            # The namespace itself (a lone token) and anything qualified by it.
            _claim(prefixes, ns + "::", lib.id, "namespace")
        for pat in lib.identifier_patterns:
            patterns.append((re.compile(pat), lib.id))
        for m in lib.ptx_mnemonics:
            ptx.append((m, lib.id))
    header_dirs.sort(key=lambda t: -len(t[0]))
    ptx.sort(key=lambda t: -len(t[0]))
    return _Index(
        by_id=by_id,
        names=names,
        header_exact=header_exact,
        header_dirs=tuple(header_dirs),
        header_globs=tuple(header_globs),
        link_exact=link_exact,
        link_globs=tuple(link_globs),
        prefixes=prefixes,
        prefix_lengths=tuple(sorted({len(p) for p in prefixes}, reverse=True)),
        patterns=tuple(patterns),
        ptx=tuple(ptx),
        sources=tuple(data.get("detect_sources") or ()),
    )


def all_libraries() -> tuple[LibraryFact, ...]:
    """Every library entry, in the table's order."""
    return tuple(_index().by_id.values())


def library_ids() -> tuple[str, ...]:
    """Stable ids of every entry (``cublas``, ``cudnn``, …)."""
    return tuple(_index().by_id)


def find_library(name: str) -> LibraryFact | None:
    """The entry whose id, display name or alias is ``name`` (case-insensitive), or None."""
    index = _index()
    lib_id = index.names.get(name.strip().lower())
    return index.by_id[lib_id] if lib_id else None


def library(name: str) -> LibraryFact:
    """The entry for an id, display name or alias; :class:`KnowledgeError` with suggestions if unknown."""
    found = find_library(name)
    if found is not None:
        return found
    index = _index()
    close = _data.suggest(name.strip().lower(), index.names)
    ids = list(dict.fromkeys(index.names[c] for c in close))
    raise KnowledgeError(
        f"unknown library {name!r}",
        f"the knowledge base has {len(index.by_id)} CUDA libraries",
        _data.did_you_mean(ids) or "see vado.knowledge.libraries.library_ids()",
    )


def _normalise_header(header: str) -> str:
    h = header.strip().strip('<>"').strip().replace("\\", "/")
    while h.startswith("./"):
        h = h[2:]
    # CUDA 13 installs Thrust, CUB and libcu++ under include/cccl/.
    if h.startswith("cccl/"):
        h = h[len("cccl/"):]
    return h


@functools.lru_cache(maxsize=65536)  # trees include the same few headers over and over; the globs are slow
def library_for_header(header: str) -> LibraryFact | None:
    """The library an ``#include`` belongs to (``"cudnn.h"``, ``<cutlass/gemm/gemm.h>``), or None."""
    index = _index()
    h = _normalise_header(header)
    if not h:
        return None
    lib_id = index.header_exact.get(h)
    if lib_id is None:
        for prefix, cand in index.header_dirs:
            if h.startswith(prefix):
                lib_id = cand
                break
    if lib_id is None:
        base = h.rsplit("/", 1)[-1]
        for pattern, cand in index.header_globs:
            if fnmatch.fnmatchcase(h, pattern) or fnmatch.fnmatchcase(base, pattern):
                lib_id = cand
                break
    return index.by_id[lib_id] if lib_id else None


_LIB_SUFFIX = re.compile(r"(\.so(\.\d+)*|\.a|\.dylib|\.lib|\.dll)$")


def _link_candidates(name: str) -> list[str]:
    n = name.strip().strip('"')
    if n.startswith("-l"):
        n = n[2:]
    if "::" not in n:
        n = n.rsplit("/", 1)[-1]
        n = _LIB_SUFFIX.sub("", n)
        if n.startswith("lib") and len(n) > 3:
            n = n[3:]
    out = [n]
    if n.endswith("_static"):
        out.append(n[: -len("_static")])
    return out


def library_for_link(name: str) -> LibraryFact | None:
    """The library a linker or CMake name refers to (``-lcudnn``, ``libcublas.so.12``, ``CUDA::cufft``), or None."""
    index = _index()
    for cand in _link_candidates(name):
        if not cand:
            continue
        lib_id = index.link_exact.get(cand)
        if lib_id is None:
            for pattern, gid in index.link_globs:
                if fnmatch.fnmatchcase(cand, pattern):
                    lib_id = gid
                    break
        if lib_id:
            return index.by_id[lib_id]
    return None


@functools.cache
def _prefix_heads() -> frozenset[str] | None:
    """The first two characters of every known prefix (None when patterns are known too):
    a name starting otherwise has no library, which settles most of a file's names at once."""
    index = _index()
    if index.patterns or any(len(p) < 2 for p in index.prefixes):
        return None
    return frozenset(p[:2] for p in index.prefixes)


@functools.lru_cache(maxsize=65536)
def _identifier_id(name: str) -> str | None:
    heads = _prefix_heads()
    # Prefixes are matched as name[:length], and ``name + "::"`` for a namespace token;
    # both start with name[:2] when the name has two characters or more.
    if heads is not None and len(name) >= 2 and name[:2] not in heads:
        return None
    index = _index()
    prefixes = index.prefixes
    n = len(name)
    for length in index.prefix_lengths:
        if length <= n:
            hit = prefixes.get(name[:length])
            if hit is not None:
                return hit
    if "::" not in name:
        # A lone namespace token (``thrust`` in ``thrust :: sort`` lexed apart).
        hit = prefixes.get(name + "::")
        if hit is not None:
            return hit
    for pattern, lib_id in index.patterns:
        if pattern.match(name):
            return lib_id
    return None


def library_for_identifier(name: str) -> LibraryFact | None:
    """The library an identifier belongs to, by its longest known prefix (``cudnnCreate`` → cuDNN).

    Qualified names (``thrust::sort``, ``cute::Tensor``) and lone namespace tokens
    match through the namespace. Results are memoised, so calling this per token is cheap.
    """
    lib_id = _identifier_id(name.strip())
    return _index().by_id[lib_id] if lib_id else None


def names_with_library(names: Iterable[str]) -> set[str]:
    """The members of ``names`` (a set or dict keys view) that :func:`library_for_identifier` maps.

    Set operations do the work: a file's names are compared with the names seen
    before at C speed, and only new ones are looked up (a tree reuses most).
    """
    seen_with, seen_without = _NAMES_WITH_LIBRARY, _NAMES_WITHOUT_LIBRARY
    fresh = names - seen_with - seen_without
    if fresh:
        if len(seen_without) > 1_000_000:  # a bound for huge trees: stop remembering
            return {n for n in names if library_for_identifier(n) is not None}
        for name in fresh:
            (seen_with if library_for_identifier(name) is not None else seen_without).add(name)
    return names & seen_with


_NAMES_WITH_LIBRARY: set[str] = set()
_NAMES_WITHOUT_LIBRARY: set[str] = set()



def library_for_ptx(instruction: str) -> LibraryFact | None:
    """The API family a PTX instruction belongs to (``wgmma.mma_async…`` → Hopper TMA/wgmma), or None."""
    text = instruction.strip()
    for mnemonic, lib_id in _index().ptx:
        if text.startswith(mnemonic):
            return _index().by_id[lib_id]
    return None


def detect_sources() -> tuple[dict[str, Any], ...]:
    """Where the detection facts (header pairs, CMake targets, header names) come from."""
    return tuple(dict(s) for s in _index().sources)


@functools.lru_cache(maxsize=1)
def _cmake_packages() -> dict[str, str]:
    table = _data.load("libraries").get("cmake_packages") or {}
    return {str(k): _data.as_str(v) for k, v in (table.get("targets") or {}).items()}


def cmake_package_for(target: str) -> str | None:
    """The CMake package whose config defines the ROCm imported ``target`` (``roc::hipblas`` → ``hipblas``)."""
    return _cmake_packages().get(target)


def cache_info():
    """Cache statistics of the table loader (``currsize == 0`` means nothing was read yet)."""
    return _index.cache_info()
