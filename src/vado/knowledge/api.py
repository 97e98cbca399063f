"""CUDA→HIP/ROCm API mappings: what a CUDA name becomes, since when, and on which target.

The rows come from HIPIFY's published support tables (imported by
``tools/import_hipify.py`` into ``data/api/*.csv``; ``data/api/index.yaml`` names
the repository, commit and path of every table). Nothing is read at import time::

    >>> from vado.knowledge.api import lookup
    >>> e = lookup("cudaMallocAsync")
    >>> e.hip_name, e.hip_added
    ('hipMallocAsync', '5.2.0')

:func:`availability` turns a row into a per-target answer: a ROCm target compares
the row's HIP versions with its ``hip_version``; SCALE and ZLUDA keep CUDA names;
oneAPI gets an honest "unknown", since HIPIFY holds no SYCL names.
"""

from __future__ import annotations

import functools
import gc
from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from vado import package_files
from vado.errors import KnowledgeError
from vado.knowledge._data import parse_yaml
from vado.model import Target


class ApiSupport(str, Enum):
    """How far HIPIFY's tables say a CUDA name is carried over to HIP/ROCm."""

    SUPPORTED = "supported"
    UNSUPPORTED = "unsupported"
    DEPRECATED = "deprecated"
    REMOVED = "removed"
    EXPERIMENTAL = "experimental"


@dataclass(frozen=True)
class ApiEntry:
    """One CUDA name and its HIP / roc* (or MIOpen) counterpart, with versions.

    Versions are strings as HIPIFY writes them (CUDA versions on the ``cuda_``
    side, HIP/ROCm release versions on the ``hip_`` and ``roc_`` sides); an empty
    string means the table gives none.
    """

    cuda_name: str
    kind: str
    library: str
    section: str
    hip_name: str
    roc_name: str
    support: ApiSupport
    cuda_added: str = ""
    cuda_deprecated: str = ""
    cuda_changed: str = ""
    cuda_removed: str = ""
    hip_added: str = ""
    hip_deprecated: str = ""
    hip_changed: str = ""
    hip_removed: str = ""
    hip_experimental: str = ""
    hip_unsupported_cuda: str = ""
    roc_added: str = ""
    roc_deprecated: str = ""
    roc_changed: str = ""
    roc_removed: str = ""
    roc_experimental: str = ""
    note: str = ""

    @property
    def rocm_name(self) -> str:
        """The name to use on ROCm: the HIP name, or the roc*/MIOpen one when HIP's is unversioned or absent.

        cuDNN rows name the retired hipDNN wrapper without a version; where a
        versioned roc*/MIOpen name exists it is the one ROCm ships.
        """
        if self.hip_name and (self.hip_added or not (self.roc_name and self.roc_added)):
            return self.hip_name
        return self.roc_name or self.hip_name

    @property
    def uses_roc_name(self) -> bool:
        """Whether :attr:`rocm_name` is the roc*/MIOpen name rather than the HIP one."""
        return bool(self.roc_name) and self.rocm_name == self.roc_name and self.rocm_name != self.hip_name


class AvailabilityStatus(str, Enum):
    """What a CUDA name is on one target."""

    AVAILABLE = "available"
    RENAMED = "renamed"
    UNAVAILABLE = "unavailable"
    DEPRECATED = "deprecated"
    REMOVED = "removed"
    NEWER_THAN_TARGET = "newer-than-target"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class Availability:
    """A CUDA name on one target: status, the name to use, since which version, and why."""

    target: str
    status: AvailabilityStatus
    replacement: str | None
    since: str | None
    reason: str


class _EntriesByName(Mapping):
    """CUDA name → its rows, as :class:`ApiEntry` objects made when a name is first read.

    Its keys are every name of the table (``in``, iteration and ``keys()`` never
    make an entry): an audit asks for the few hundred names a tree uses, not for
    the ten thousand rows.
    """

    __slots__ = ("_index", "_entry", "_memo")

    def __init__(self, index: dict[str, tuple[int, ...]], entry) -> None:
        self._index = index
        self._entry = entry
        self._memo: dict[str, tuple[ApiEntry, ...]] = {}

    def __getitem__(self, name: str) -> tuple[ApiEntry, ...]:
        got = self._memo.get(name)
        if got is None:
            got = self._memo[name] = tuple(map(self._entry, self._index[name]))
        return got

    def get(self, name: str, default=None):
        got = self._memo.get(name)
        if got is not None:
            return got
        rows = self._index.get(name)
        if rows is None:
            return default
        got = self._memo[name] = tuple(map(self._entry, rows))
        return got

    def __contains__(self, name: object) -> bool:
        return name in self._index

    def __iter__(self):
        return iter(self._index)

    def __len__(self) -> int:
        return len(self._index)

    def keys(self):
        """The names: a real dict keys view (set operations at C speed)."""
        return self._index.keys()


class ApiTable:
    """All rows, the name index, and the per-table provenance from ``index.yaml``.

    Rows are kept as the cache stores them (one string per row) and become
    :class:`ApiEntry` objects when read: through :attr:`by_name` one name at a
    time, or all at once through :attr:`entries`. Either way a row is one object.
    """

    def __init__(self, tables: tuple[dict[str, Any], ...], index: dict[str, tuple[int, ...]], rows: tuple[str, ...],
                 libraries: tuple[str, ...]) -> None:
        """``index`` maps each CUDA name to the positions of its rows in ``rows``; ``libraries`` are the
        rows' library values (see :func:`_parse_tables`)."""
        self.tables = tables
        self._rows = rows
        self._libraries = frozenset(libraries)
        self._objects: list[ApiEntry | None] = [None] * len(rows)
        self.by_name: Mapping[str, tuple[ApiEntry, ...]] = _EntriesByName(index, self._entry)
        self._entries: tuple[ApiEntry, ...] | None = None
        self._buckets: dict[str, tuple[str, ...]] | None = None

    def _entry(self, i: int) -> ApiEntry:
        e = self._objects[i]
        if e is None:
            # The rows were checked when they were parsed; ApiEntry's generated __init__ (one
            # object.__setattr__ per field of a frozen class) would be most of this.
            values = self._rows[i].split(_SEP)
            fields = dict(zip(_FIELDS, values))
            fields["support"] = _SUPPORTS[values[6]]
            e = object.__new__(ApiEntry)
            e.__dict__.update(fields)
            self._objects[i] = e
        return e

    @property
    def entries(self) -> tuple[ApiEntry, ...]:
        """Every row, in table order."""
        if self._entries is None:
            was_enabled = gc.isenabled()
            gc.disable()  # ten thousand objects and no cycles: collector passes over them only cost time
            try:
                self._entries = tuple(map(self._entry, range(len(self._rows))))
            finally:
                if was_enabled:
                    gc.enable()
        return self._entries

    @property
    def libraries(self) -> frozenset[str]:
        """The ``library`` values of the rows (without making an entry per row)."""
        return self._libraries

    @property
    def buckets(self) -> dict[str, tuple[str, ...]]:
        """Names by :func:`_bucket_key` (for :func:`suggest`)."""
        if self._buckets is None:
            buckets: dict[str, list[str]] = defaultdict(list)
            for name in self.by_name:
                buckets[_bucket_key(name)].append(name)
            self._buckets = {k: tuple(v) for k, v in buckets.items()}
        return self._buckets


_DATA = ("data", "api")
_REQUIRED_COLUMNS = ("cuda_name", "kind", "library", "section", "hip_name", "roc_name", "support")
_STR_FIELDS = tuple(
    f
    for f in ApiEntry.__dataclass_fields__
    if f not in ("cuda_name", "kind", "library", "section", "hip_name", "roc_name", "support")
)
_FIELDS = _REQUIRED_COLUMNS + _STR_FIELDS  # ApiEntry's fields in order
#: Joins a row's fields in the cache (one string per row reads back far faster than a tuple of
#: 23); a field holding it is refused when the CSV is parsed.
_SEP = "\0"
#: When a name appears in several tables, the first library in this order answers ``lookup``.
_LIBRARY_ORDER = (
    "runtime", "driver", "device", "complex", "rtc", "cublas", "cublaslt", "cudnn", "cufft",
    "curand", "cusolver", "cusparse", "cusparselt", "cutensor", "cufile", "cub", "nccl", "nvtx", "thrust",
)


def _read(name: str) -> str:
    try:
        return package_files.files("vado.knowledge").joinpath(*_DATA, name).read_text(encoding="utf-8")
    except (FileNotFoundError, OSError) as exc:
        raise KnowledgeError(
            f"API data file {name} could not be read",
            str(exc),
            "reinstall vado (pip install -e .), or regenerate with tools/import_hipify.py",
        ) from exc


def _bucket_key(name: str) -> str:
    # Names share long prefixes (cuda*, cublas*, __half*); three letters after the
    # leading underscores keep buckets small without losing near misses.
    return name.lstrip("_").lower()[:3]


@functools.cache
def api_table() -> ApiTable:
    """Load every API table once (lazily, on first call) and index it by CUDA name.

    The parsed rows are kept in the user's cache (:mod:`vado.knowledge._cache`):
    a later process builds the table from them without reading YAML or CSV.
    """
    from vado.knowledge._cache import cached

    folder = package_files.files("vado.knowledge").joinpath(*_DATA)
    try:
        sources = sorted(p for p in folder.iterdir() if p.name == "index.yaml" or p.name.endswith(".csv"))
    except OSError:
        sources = []
    # The name says the entry's layout (tables, name index, rows joined by _SEP, libraries): a new
    # layout needs a new name, or an entry of the old one, keyed by the same files, would be read as the new.
    tables, index, rows, libraries = cached("api-rows-libraries", sources, _parse_tables)
    return ApiTable(tuple(tables), index, rows, libraries)


_SUPPORTS = {s.value: s for s in ApiSupport}


def _parse_tables() -> tuple[list, dict[str, tuple[int, ...]], tuple[str, ...], tuple[str, ...]]:
    """(index.yaml's tables, CUDA name → the positions of its rows, each row's fields joined by ``_SEP``,
    the rows' libraries).

    A row's fields are in :class:`ApiEntry` field order, its support as its value;
    a name's rows are in table order.
    """
    import csv
    import io

    import yaml  # deferred: importing vado.knowledge must stay cheap

    try:
        index = parse_yaml(_read("index.yaml"))
    except yaml.YAMLError as exc:
        raise KnowledgeError("API index.yaml is not valid YAML", str(exc).splitlines()[0]) from exc
    if not isinstance(index, dict) or not isinstance(index.get("tables"), list):
        raise KnowledgeError("API index.yaml is malformed", "it has no 'tables' list")
    files = sorted({f for t in index["tables"] for f in t.get("files", ())}, key=lambda f: _order(f[: -len(".csv")]))
    out: list[str] = []
    names: dict[str, list[int]] = {}
    libraries: set[str] = set()
    supports = {s.value for s in ApiSupport}
    for file in files:
        # csv.reader and one column map per file: DictReader's dict per row was half of
        # this function, which every process that ports or audits runs once.
        rows = csv.reader(io.StringIO(_read(file)))
        header = next(rows, [])
        column = {name: k for k, name in enumerate(header)}
        missing = [f for f in _REQUIRED_COLUMNS if f not in column]
        if missing:
            raise KnowledgeError(f"API data file {file} is malformed", f"row 1: no column {missing[0]!r}")
        # Every field in ApiEntry's order; a column the file lacks reads as "" (the field's default).
        picks = [column.get(f, -1) for f in _REQUIRED_COLUMNS + _STR_FIELDS]
        width = len(header)
        for i, row in enumerate(rows):
            if len(row) < width:
                row = row + [""] * (width - len(row))  # DictReader fills short rows with None
            if row[picks[6]] not in supports:
                raise KnowledgeError(f"API data file {file} is malformed",
                                     f"row {i + 2}: {row[picks[6]]!r} is not a valid ApiSupport")
            fields = [row[k] if k >= 0 else "" for k in picks]
            joined = _SEP.join(fields)
            if joined.count(_SEP) != len(fields) - 1:
                raise KnowledgeError(f"API data file {file} is malformed", f"row {i + 2}: a field holds a NUL character")
            names.setdefault(fields[0], []).append(len(out))
            out.append(joined)
            libraries.add(fields[2])
    return index["tables"], {k: tuple(v) for k, v in names.items()}, tuple(out), tuple(sorted(libraries))


def _order(library: str) -> int:
    return _LIBRARY_ORDER.index(library) if library in _LIBRARY_ORDER else len(_LIBRARY_ORDER)


def lookup(name: str) -> ApiEntry | None:
    """The row for a CUDA name (API name or header path), or None when no table has it."""
    rows = api_table().by_name.get(name.strip())
    return rows[0] if rows else None


def lookup_all(name: str) -> tuple[ApiEntry, ...]:
    """Every row for a CUDA name (a few names appear in more than one library's table)."""
    return api_table().by_name.get(name.strip(), ())


def suggest(name: str, n: int = 5) -> list[str]:
    """Close matches for an unknown name, best first (difflib over a prefix bucket, so it stays fast)."""
    import difflib

    table = api_table()
    name = name.strip()
    pool = list(table.buckets.get(_bucket_key(name), ()))
    if len(pool) < n:
        # Short or unusual prefixes: widen to buckets sharing the first letter.
        first = _bucket_key(name)[:1]
        pool += [c for k, names in table.buckets.items() if k[:1] == first and k != _bucket_key(name) for c in names]
    matches = difflib.get_close_matches(name, pool, n=n, cutoff=0.6)
    if not matches:
        lowered = name.lower()
        matches = sorted(c for c in pool if lowered in c.lower())[:n]
    return matches


def stats() -> dict[str, dict[str, int]]:
    """CUDA names per library and per support level: ``{library: {level: count, ..., "total": n}}``.

    A name with several rows (its HIP spelling changed: hipBLAS's ``_v2`` names,
    removed in 3.0, beside the plain names that replaced them) counts once, at
    the level of its current row (the first that is not removed), so
    "removed" counts only names left without a HIP counterpart.
    """
    current: dict[tuple[str, str], ApiEntry] = {}
    for e in api_table().entries:
        key = (e.library, e.cuda_name)
        seen = current.get(key)
        if seen is None or (seen.support.value == "removed" and e.support.value != "removed"):
            current[key] = e
    out: dict[str, Counter] = defaultdict(Counter)
    for (library, _), e in current.items():
        out[library][e.support.value] += 1
        out[library]["total"] += 1
    return {lib: dict(c) for lib, c in sorted(out.items())}


def headers() -> tuple[ApiEntry, ...]:
    """All rows of kind ``header`` (CUDA include → ROCm include)."""
    return tuple(e for e in api_table().entries if e.kind == "header")


def sources() -> tuple[dict[str, Any], ...]:
    """Per-table provenance from ``index.yaml``: name, library, rows, source repo/commit/path."""
    return api_table().tables


def source_of(entry: ApiEntry) -> dict[str, str] | None:
    """The source (repo, commit, path) of the table ``entry`` was imported from."""
    tables = api_table().tables
    # A curated table names its rows' section after itself: its source, not the library's HIPIFY table.
    for t in tables:
        if t.get("name") == entry.section:
            return t.get("source")
    # Header rows join their library's CSV but come from HIPIFY's include map ("headers" table),
    # except the curated NCCL/NVTX/Thrust headers, which come with their library's facts.
    wanted = "headers" if entry.kind == "header" and entry.library not in ("nccl", "nvtx", "thrust") else entry.library
    for t in tables:
        if t.get("library") == wanted:
            return t.get("source")
    return None


# --------------------------------------------------------------------------- targets


@functools.lru_cache(maxsize=4096)  # a few hundred distinct versions, read for every row of every target
def parse_version(text: str | None) -> tuple[int, ...] | None:
    """The release numbers of a version: ``"6.2.0"`` → ``(6, 2, 0)``, ``"2.5.1+cu121"`` → ``(2, 5, 1)``.

    PEP 440 versions are read by :mod:`packaging` (local labels such as ``+cu121``
    and pre-releases are not release numbers); anything else by its leading numeric
    components. None for an empty or non-numeric version.
    """
    if not text:
        return None
    plain = _plain_release(str(text).strip())
    if plain is not None:
        return plain
    pep440 = _pep440(str(text).strip())
    if pep440 is not None:
        return pep440.release
    parts = []
    for piece in str(text).strip().split("."):
        digits = ""
        for ch in piece:
            if not ch.isdigit():
                break
            digits += ch
        if not digits:
            break
        parts.append(int(digits))
        if len(digits) != len(piece):
            break  # "2a" ends the numbers: what follows is no release component
    return tuple(parts) or None


def _plain_release(text: str) -> tuple[int, ...] | None:
    """The numbers of a version that is nothing but a release (``6.2.0``), else None.

    Such a version means to PEP 440 exactly its numbers (trailing zeros aside, which
    :func:`version_less` pads): the tables' versions are almost all of this form, and
    reading them without :mod:`packaging` spares a one-file audit its import.
    """
    parts = text.split(".")
    if all(p.isdigit() and p.isascii() for p in parts):
        return tuple(int(p) for p in parts)
    return None


@functools.lru_cache(maxsize=4096)
def _pep440(text: str):
    from packaging.version import InvalidVersion, Version

    try:
        return Version(text)
    except InvalidVersion:
        return None


@functools.lru_cache(maxsize=16384)
def version_less(a: str, b: str) -> bool:
    """``a < b`` as PEP 440 orders versions (``"5.2"`` equals ``"5.2.0"``, ``"7.0.0rc1" < "7.0.0"``);
    numerically, with missing components read as 0, where either is not PEP 440."""
    ra, rb = _plain_release(str(a).strip()) if a else None, _plain_release(str(b).strip()) if b else None
    if ra is not None and rb is not None:
        # Two plain releases order as PEP 440 orders them: numerically, missing components read as 0.
        width = max(len(ra), len(rb))
        return ra + (0,) * (width - len(ra)) < rb + (0,) * (width - len(rb))
    pa, pb = _pep440(str(a).strip()) if a else None, _pep440(str(b).strip()) if b else None
    if pa is not None and pb is not None:
        return pa < pb
    va, vb = parse_version(a) or (), parse_version(b) or ()
    width = max(len(va), len(vb))
    return va + (0,) * (width - len(va)) < vb + (0,) * (width - len(vb))


#: Libraries SCALE implements itself under CUDA names (facts: compat.yaml ``scale.api_coverage``).
_SCALE_NATIVE = {
    "runtime": "SCALE implements the CUDA Runtime API under CUDA names",
    "driver": "SCALE implements the CUDA Driver API under CUDA names",
    "device": "SCALE's compiler provides CUDA's device functions and math under CUDA names",
    "complex": "cuComplex is header code that SCALE compiles as it is",
    "rtc": "SCALE's NVRTC runs the SCALE compiler as a subprocess",
    "cub": "CUB is header code compiled by SCALE's nvcc-compatible compiler",
}
#: What is known of SCALE's library wrappers; status stays "unknown" (no per-function data).
_SCALE_LIBRARIES = {
    "cublas": ("", "SCALE forwards cuBLAS calls to rocBLAS/hipBLAS; per-function coverage is not in vado's data"),
    "cufft": ("1.3.0", "SCALE implements most of cuFFT (since 1.3.0); per-function coverage is not in vado's data"),
    "cusolver": ("", "SCALE covers part of cuSOLVER (extended in 1.3.0); per-function coverage is not in vado's data"),
    "cusparse": ("", "SCALE covers part of cuSPARSE (extended in 1.3.0); per-function coverage is not in vado's data"),
    "thrust": ("", "Thrust's own test suite fails in SCALE 1.7.1's published validation"),
}
_SCALE_NVTX_SINCE = "1.3.0"

#: Libraries ZLUDA ships a shim for (facts: compat.yaml ``zluda.library_shims``).
_ZLUDA_SHIMS = {
    "cublas": "zluda_blas",
    "cublaslt": "zluda_blaslt",
    "cudnn": "zluda_dnn8/zluda_dnn9",
    "cufft": "zluda_fft",
    "cusparse": "zluda_sparse",
}
_ZLUDA_IN_BINARY = {
    "runtime": "ZLUDA runs the CUDA binary: the runtime sits on ZLUDA's driver implementation",
    "driver": "ZLUDA implements the CUDA Driver API for the unchanged binary",
    "device": "ZLUDA translates the binary's PTX, so device functions keep their CUDA names",
    "complex": "cuComplex is inline header code inside the binary",
    "cub": "CUB is template code compiled into the binary's PTX",
    "thrust": "Thrust is template code compiled into the binary's PTX",
}


def availability(entry: ApiEntry, target: Target) -> Availability:
    """What ``entry`` is on ``target``: available, renamed, newer than the target, ... and why."""
    family = target.family
    if family == "rocm":
        av = _on_rocm(entry, target)
        if av.status in (AvailabilityStatus.REMOVED, AvailabilityStatus.NEWER_THAN_TARGET):
            return _other_spelling_on_rocm(entry, target, av)
        return av
    if family == "scale":
        return _on_scale(entry, target)
    if family == "zluda":
        return _on_zluda(entry, target)
    if family == "oneapi":
        return Availability(
            target.name,
            AvailabilityStatus.UNKNOWN,
            None,
            None,
            "SYCLomatic migrates CUDA code to SYCL; HIPIFY's tables hold no SYCL names and vado "
            "records no per-name SYCLomatic mapping",
        )
    return Availability(target.name, AvailabilityStatus.UNKNOWN, None, None, f"no API facts for family {family!r}")


def _on_rocm(e: ApiEntry, target: Target) -> Availability:
    name = e.rocm_name
    if e.support is ApiSupport.UNSUPPORTED or not name:
        if e.kind == "header" and e.note.startswith("not needed"):
            return Availability(target.name, AvailabilityStatus.AVAILABLE, "", None, e.note)
        reason = f"HIPIFY lists no HIP or ROCm library counterpart for {e.cuda_name}"
        return Availability(target.name, AvailabilityStatus.UNAVAILABLE, None, None, _with_note(reason, e))
    side = "roc" if e.uses_roc_name else "hip"
    added = getattr(e, f"{side}_added")
    deprecated = getattr(e, f"{side}_deprecated")
    removed = getattr(e, f"{side}_removed")
    experimental = getattr(e, f"{side}_experimental")
    level = target.hip_version or target.version
    # HIPIFY versions the roc*/MIOpen columns by ROCm release, the HIP column by HIP
    # release; the two numberings coincide, so both compare with the HIP level.
    label = "ROCm" if side == "roc" else "HIP"
    since = added or None
    if removed and not version_less(level, removed):
        return Availability(
            target.name, AvailabilityStatus.REMOVED, name, since, f"{name} was removed in {label} {removed}; {target.name} has {label} {level}"
        )
    if added and version_less(level, added):
        return Availability(
            target.name,
            AvailabilityStatus.NEWER_THAN_TARGET,
            name,
            since,
            f"{name} appeared in {label} {added}; {target.name} has {label} {level}",
        )
    if deprecated and not version_less(level, deprecated):
        return Availability(
            target.name, AvailabilityStatus.DEPRECATED, name, since, f"{name} is deprecated since {label} {deprecated}"
        )
    parts = []
    if name == e.cuda_name:
        status, parts = AvailabilityStatus.AVAILABLE, ["same name on ROCm"]
    else:
        status = AvailabilityStatus.RENAMED
        parts = [f"{e.cuda_name} becomes {name}" + (" (ROCm library name)" if side == "roc" else "")]
    if added:
        parts.append(f"since {label} {added}")
    if experimental:
        parts.append(f"experimental in {label} {experimental}")
    if removed:
        parts.append(f"removed in {label} {removed}")
    return Availability(target.name, status, name, since, _with_note("; ".join(parts), e))


def _other_spelling_on_rocm(e: ApiEntry, target: Target, own: Availability) -> Availability:
    """The answer of another row of ``e``'s name and library when ``e``'s HIP name is removed or too new.

    A CUDA name whose HIP counterpart was renamed has one row per spelling, each with
    its versions: ``cublasDotEx`` is ``hipblasDotEx_v2`` from HIP 6.0 until hipBLAS 3.0
    (ROCm 7.0) removed it, and ``hipblasDotEx`` (with the same arguments) since 7.0.
    The row the target has answers; when none does, the earliest spelling that is only
    newer than the target does (the smallest upgrade), else ``e``'s own answer.
    """
    rows = api_table().by_name.get(e.cuda_name, ())
    best = own
    for other in rows:
        if other is e or other.library != e.library:
            continue
        av = _on_rocm(other, target)
        if av.status in (AvailabilityStatus.AVAILABLE, AvailabilityStatus.RENAMED, AvailabilityStatus.DEPRECATED):
            return av
        if (av.status is AvailabilityStatus.NEWER_THAN_TARGET
                and (best.status is not AvailabilityStatus.NEWER_THAN_TARGET or version_less(av.since or "", best.since or ""))):
            best = av
    return best


def _on_scale(e: ApiEntry, target: Target) -> Availability:
    lib = e.library
    if e.kind == "header" and lib in _SCALE_NATIVE:
        return Availability(target.name, AvailabilityStatus.AVAILABLE, e.cuda_name, None, "SCALE compiles CUDA sources with their CUDA #includes")
    if lib in _SCALE_NATIVE:
        reason = _SCALE_NATIVE[lib] + "; per-function gaps are listed in SCALE's coverage pages, not in vado's data"
        return Availability(target.name, AvailabilityStatus.AVAILABLE, e.cuda_name, None, reason)
    if lib == "nvtx":
        if version_less(target.version, _SCALE_NVTX_SINCE):
            return Availability(target.name, AvailabilityStatus.NEWER_THAN_TARGET, e.cuda_name, _SCALE_NVTX_SINCE, f"SCALE implements NVTX since {_SCALE_NVTX_SINCE}; {target.name} is {target.version}")
        return Availability(target.name, AvailabilityStatus.AVAILABLE, e.cuda_name, _SCALE_NVTX_SINCE, f"SCALE implements NVTX since {_SCALE_NVTX_SINCE} (nvtx3 header-only since 1.5.0)")
    if lib in _SCALE_LIBRARIES:
        since, reason = _SCALE_LIBRARIES[lib]
        if since and version_less(target.version, since):
            return Availability(target.name, AvailabilityStatus.NEWER_THAN_TARGET, e.cuda_name, since, reason)
        return Availability(target.name, AvailabilityStatus.UNKNOWN, e.cuda_name, since or None, reason)
    return Availability(target.name, AvailabilityStatus.UNKNOWN, None, None, f"SCALE's coverage of {lib} is not documented in vado's facts")


def _on_zluda(e: ApiEntry, target: Target) -> Availability:
    lib = e.library
    if e.kind == "header" and (lib in _ZLUDA_IN_BINARY or lib in _ZLUDA_SHIMS):
        return Availability(target.name, AvailabilityStatus.AVAILABLE, e.cuda_name, None, "ZLUDA works on binaries; sources and #includes are not changed")
    if lib in _ZLUDA_IN_BINARY:
        return Availability(target.name, AvailabilityStatus.AVAILABLE, e.cuda_name, None, _ZLUDA_IN_BINARY[lib])
    if lib == "curand" and "device api" in e.section.lower():
        return Availability(target.name, AvailabilityStatus.AVAILABLE, e.cuda_name, None, "cuRAND's device API is header code compiled into the binary's PTX")
    if lib in _ZLUDA_SHIMS:
        return Availability(target.name, AvailabilityStatus.AVAILABLE, e.cuda_name, None, f"ZLUDA ships a {lib} shim ({_ZLUDA_SHIMS[lib]}); per-function coverage is not in vado's data")
    shims = ", ".join(sorted(_ZLUDA_SHIMS)) + ", nvml"
    return Availability(target.name, AvailabilityStatus.UNAVAILABLE, None, None, f"ZLUDA ships no {lib} library (its shims: {shims})")


def _with_note(reason: str, e: ApiEntry) -> str:
    return f"{reason} ({e.note})" if e.note else reason
