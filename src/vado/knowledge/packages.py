"""Python packages that tie a workload to CUDA, and their ROCm / Intel XPU counterparts.

The table is ``data/packages.yaml``. Names are compared after PEP 503
normalisation (``Flash_Attn`` → ``flash-attn``); families of CUDA-specific wheel
names (``cupy-cuda12x``, ``nvidia-cublas-cu12``, ``faiss-gpu-cu12``) match by pattern::

    >>> from vado.knowledge.packages import package, match_requirement
    >>> package("Flash_Attn").name
    'flash-attn'
    >>> m = match_requirement("torch==2.5.1+cu121")
    >>> m.fact.name, m.cuda_variant
    ('torch', 'cu121')

Nothing is read at import time; the index is built on first use.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field, fields
from typing import Any

from vado.errors import KnowledgeError
from vado.knowledge import _data

STATUSES = ("official", "partial", "community", "experimental", "none", "unknown", "end-of-life")

_NORMALISE = re.compile(r"[-_.]+")


def normalise(name: str) -> str:
    """PEP 503 normalised project name: lower case, runs of ``-``, ``_`` and ``.`` become ``-``."""
    return _NORMALISE.sub("-", name.strip()).lower()


@dataclass(frozen=True)
class PlatformFact:
    """A package's standing on one platform (``rocm`` or ``intel``).

    ``index_url`` may contain ``{hip_version}``; :meth:`index_for` fills it for a target.
    """

    platform: str
    status: str
    package: str = ""
    index_url: str = ""
    replacement: str = ""
    notes: tuple[str, ...] = ()

    def index_for(self, hip_version: str | None) -> str:
        """The index URL with the target's HIP version filled in (empty when none applies)."""
        if "{hip_version}" in self.index_url:
            return self.index_url.format(hip_version=hip_version) if hip_version else ""
        return self.index_url


@dataclass(frozen=True)
class PackageFact:
    """One Python package (or a family of CUDA-specific wheel names) and what to use instead."""

    name: str
    source: str
    rocm: PlatformFact
    intel: PlatformFact
    aliases: tuple[str, ...] = ()
    patterns: tuple[str, ...] = ()
    import_names: tuple[str, ...] = ()
    category: str = ""
    variant: str = ""
    library: str = ""
    note: str = ""
    cuda_variants: str = ""
    cuda_extras: tuple[str, ...] = ()
    wheel_libraries: dict[str, str] = field(default_factory=dict)
    blockers: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    extra_sources: tuple[str, ...] = ()
    as_of: str = ""
    confidence: str = ""
    source_note: str = ""

    def to_dict(self) -> dict[str, Any]:
        """Plain-data form without empty fields (for JSON and the MCP tool)."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if value in ("", (), {}, None):
                continue
            if isinstance(value, PlatformFact):
                value = {k: (list(v) if isinstance(v, tuple) else v) for k, v in vars(value).items() if v not in ("", ())}
            elif isinstance(value, tuple):
                value = list(value)
            elif isinstance(value, dict):
                value = dict(value)
            out[f.name] = value
        return out


@dataclass(frozen=True)
class PackageMatch:
    """A name (or requirement line) matched to its :class:`PackageFact`.

    ``cuda_variant`` is what pins the build to CUDA when the name or spec says so
    (``cu121`` from ``+cu121``, ``12x`` from ``cupy-cuda12x``, ``cuda12`` from
    ``jax[cuda12]``); ``library`` the vado library id of an ``nvidia-*`` wheel.
    """

    fact: PackageFact
    name: str
    cuda_variant: str = ""
    library: str = ""
    extras: tuple[str, ...] = ()
    specifier: str = ""
    pattern: str = ""


@dataclass(frozen=True)
class Requirement:
    """A requirement line split into its parts (a small subset of PEP 508, enough for detection)."""

    name: str
    extras: tuple[str, ...] = ()
    specifier: str = ""
    local_version: str = ""
    marker: str = ""
    url: str = ""


@dataclass(frozen=True)
class IndexFact:
    """What a package index URL pins: the vendor and backend (``cu121``, ``rocm6.4``, ``xpu``)."""

    url: str
    vendor: str
    project: str
    backend: str = ""
    cuda_version: str = ""
    rocm_version: str = ""


def _platform(name: str, raw: dict[str, Any] | None, where: str) -> PlatformFact:
    raw = raw or {}
    status = _data.as_str(raw.get("status")) or "unknown"
    if status not in STATUSES:
        raise KnowledgeError(f"package entry {where}.{name} is malformed", f"status {status!r} is not one of {STATUSES}")
    return PlatformFact(
        platform=name,
        status=status,
        package=_data.as_str(raw.get("package")),
        index_url=_data.as_str(raw.get("index_url")),
        replacement=_data.as_str(raw.get("replacement")),
        notes=_data.as_tuple(raw.get("notes")),
    )


def _entry(raw: dict[str, Any]) -> PackageFact:
    name = normalise(_data.as_str(_data.require(raw, "name", "packages[]")))
    if "rocm" not in raw:
        raise KnowledgeError(f"package entry {name} is malformed", "it has no rocm section")
    return PackageFact(
        name=name,
        source=_data.as_str(_data.require(raw, "source", name)),
        rocm=_platform("rocm", raw.get("rocm"), name),
        intel=_platform("intel", raw.get("intel"), name),
        aliases=tuple(normalise(a) for a in _data.as_tuple(raw.get("aliases"))),
        patterns=_data.as_tuple(raw.get("patterns")),
        import_names=_data.as_tuple(raw.get("import_names")),
        category=_data.as_str(raw.get("category")),
        variant=_data.as_str(raw.get("variant")),
        library=_data.as_str(raw.get("library")),
        note=_data.as_str(raw.get("note")),
        cuda_variants=_data.as_str(raw.get("cuda_variants")),
        cuda_extras=_data.as_tuple(raw.get("cuda_extras")),
        wheel_libraries={str(k): _data.as_str(v) for k, v in (raw.get("wheel_libraries") or {}).items()},
        blockers=_data.as_tuple(raw.get("blockers")),
        notes=_data.as_tuple(raw.get("notes")),
        extra_sources=_data.as_tuple(raw.get("extra_sources")),
        as_of=_data.as_str(raw.get("as_of")),
        confidence=_data.as_str(raw.get("confidence")),
        source_note=_data.as_str(raw.get("source_note")),
    )


@dataclass(frozen=True)
class _Index:
    by_name: dict[str, PackageFact]
    names: dict[str, str]
    patterns: tuple[tuple[re.Pattern[str], str], ...]
    imports: dict[str, str]
    index_patterns: tuple[tuple[re.Pattern[str], str, str], ...]
    index_meta: dict[str, Any]


@functools.lru_cache(maxsize=1)
def _index() -> _Index:
    data = _data.load("packages")
    by_name: dict[str, PackageFact] = {}
    names: dict[str, str] = {}
    patterns: list[tuple[re.Pattern[str], str]] = []
    imports: dict[str, str] = {}
    for raw in _data.require(data, "packages", "packages"):
        fact = _entry(raw)
        if fact.name in by_name:
            raise KnowledgeError("packages.yaml is malformed", f"package {fact.name} is defined twice")
        by_name[fact.name] = fact
        for n in (fact.name, *fact.aliases):
            if names.get(n, fact.name) != fact.name:
                raise KnowledgeError("packages.yaml is malformed", f"name {n!r} is claimed by {names[n]} and {fact.name}")
            names[n] = fact.name
        for p in fact.patterns:
            try:
                patterns.append((re.compile(p), fact.name))
            except re.error as exc:
                raise KnowledgeError(f"package entry {fact.name} is malformed", f"bad pattern {p!r}: {exc}") from exc
        for mod in fact.import_names:
            imports.setdefault(mod, fact.name)
    section = _data.require(data, "indexes", "indexes")
    _data.require(section, "source", "indexes")
    index_patterns = tuple(
        (re.compile(_data.as_str(row["pattern"])), _data.as_str(row["vendor"]), _data.as_str(row["project"]))
        for row in _data.require(section, "list", "indexes")
    )
    return _Index(by_name, names, tuple(patterns), imports, index_patterns, dict(section))


def all_packages() -> tuple[PackageFact, ...]:
    """Every package entry, in the table's order."""
    return tuple(_index().by_name.values())


def match_package(name: str) -> PackageMatch | None:
    """Match a distribution name (any spelling) to its entry, with what pins it to CUDA."""
    index = _index()
    n = normalise(name)
    if not n:
        return None
    canonical = index.names.get(n)
    if canonical is not None:
        fact = index.by_name[canonical]
        return PackageMatch(fact=fact, name=n, library=fact.library)
    for pattern, canonical in index.patterns:
        m = pattern.fullmatch(n)
        if m is None:
            continue
        fact = index.by_name[canonical]
        groups = m.groupdict()
        library = fact.library
        if fact.wheel_libraries:
            lib = groups.get("lib") or ""
            library = fact.wheel_libraries.get(lib, "")
            if not library:
                # nvidia-<lib> wheels this table does not name (e.g. nvidia-modelopt) are not CUDA runtime wheels.
                continue
        return PackageMatch(fact=fact, name=n, cuda_variant=_cuda_variant(n, groups), library=library, pattern=pattern.pattern)
    return None


def _cuda_variant(name: str, groups: dict[str, str | None]) -> str:
    if groups.get("cuda"):
        return f"cu{groups['cuda']}"
    # The suffix as written: cupy-cuda12x → "cuda12x", nvidia-dali-cuda120 → "cuda120", faiss-gpu-cu12 → "cu12".
    m = re.search(r"(?:^|-)(cuda\d+x?|cu\d+)(?:-|$)", name)
    return m.group(1) if m else ""


def package(name: str) -> PackageFact | None:
    """The entry for a distribution name (``Flash_Attn``, ``cupy-cuda12x``, ``nvidia-cublas-cu12``), or None."""
    match = match_package(name)
    return match.fact if match else None


def get_package(name: str) -> PackageFact:
    """Like :func:`package`, but an unknown name raises :class:`KnowledgeError` with suggestions."""
    fact = package(name)
    if fact is not None:
        return fact
    close = _data.suggest(normalise(name), _index().names)
    raise KnowledgeError(
        f"unknown package {name!r}",
        "it is not in vado's table of CUDA-bound Python packages",
        _data.did_you_mean(list(dict.fromkeys(_index().names[c] for c in close))),
    )


_REQ = re.compile(
    r"""^\s*(?P<name>[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)\s*
        (?:\[(?P<extras>[^\]]*)\])?\s*
        (?:@\s*(?P<url>\S+))?\s*
        (?P<spec>[^;]*?)\s*
        (?:;\s*(?P<marker>.*))?$""",
    re.VERBOSE,
)


def parse_requirement(line: str) -> Requirement | None:
    """Split a requirement line (``torch==2.5.1+cu121``, ``jax[cuda12]>=0.4``); None for options and comments.

    Pip options such as ``--extra-index-url URL`` are not requirements: classify
    their URL with :func:`classify_index_url`.
    """
    text = line.split(" #", 1)[0].strip()
    if not text or text.startswith(("#", "-")):
        return None
    m = _REQ.match(text)
    if m is None:
        return None
    spec = (m.group("spec") or "").strip()
    local = ""
    lm = re.search(r"\+([A-Za-z0-9.]+)", spec)
    if lm:
        local = lm.group(1)
    extras = tuple(e.strip() for e in (m.group("extras") or "").split(",") if e.strip())
    return Requirement(
        name=m.group("name"),
        extras=extras,
        specifier=spec,
        local_version=local,
        marker=(m.group("marker") or "").strip(),
        url=m.group("url") or "",
    )


def match_requirement(line: str) -> PackageMatch | None:
    """Match a requirement line; CUDA pins in local versions (``+cu121``) and extras (``[cuda12]``) are kept."""
    req = parse_requirement(line)
    if req is None:
        return None
    match = match_package(req.name)
    if match is None:
        return None
    variant = match.cuda_variant
    if not variant and re.fullmatch(r"cu\d+", req.local_version or ""):
        variant = req.local_version
    if not variant and req.url:
        # A direct wheel URL: …/whl/cu121/torch-2.5.1%2Bcu121-….whl
        um = re.search(r"(?:/|%2B|\+)(cu\d+)(?:/|-|\.|$)", req.url)
        if um:
            variant = um.group(1)
    if not variant:
        for extra in req.extras:
            if any(re.fullmatch(p, normalise(extra)) for p in match.fact.cuda_extras):
                variant = normalise(extra)
                break
    return PackageMatch(
        fact=match.fact,
        name=match.name,
        cuda_variant=variant,
        library=match.library,
        extras=req.extras,
        specifier=req.specifier,
        pattern=match.pattern,
    )


def package_for_import(module: str) -> PackageFact | None:
    """The entry whose import name is ``module`` or its longest dotted prefix (``flash_attn.cute.x`` → FA4)."""
    imports = _index().imports
    parts = module.strip().split(".")
    for i in range(len(parts), 0, -1):
        name = imports.get(".".join(parts[:i]))
        if name is not None:
            return _index().by_name[name]
    return None


def classify_index_url(url: str) -> IndexFact | None:
    """What a ``--index-url`` / ``--extra-index-url`` pins (``…/whl/cu121`` → nvidia, CUDA 12.1), or None."""
    u = url.strip()
    for pattern, vendor, project in _index().index_patterns:
        m = pattern.fullmatch(u) or pattern.match(u)
        if m is None:
            continue
        g = m.groupdict()
        cuda = g.get("cuda") or ""
        return IndexFact(
            url=u,
            vendor=vendor,
            project=project,
            backend=g.get("backend") or "",
            cuda_version=f"{cuda[:-1]}.{cuda[-1]}" if len(cuda) >= 2 else cuda,
            rocm_version=g.get("rocm") or "",
        )
    return None


def rocm_index_url(hip_version: str) -> str:
    """The PyTorch ROCm wheel index for a HIP version (``"7.2"`` → ``…/whl/rocm7.2``); a suggestion to verify."""
    template = _data.as_str(_index().index_meta.get("rocm_index_template"))
    return template.format(hip_version=hip_version)


def torch_rocm_indexes(version: str) -> tuple[str, ...]:
    """The ROCm wheel indexes (``rocm6.4`` …, oldest first) that carry torch ``version``; empty when the
    table does not list that release (``indexes.torch_rocm_indexes`` in packages.yaml)."""
    table = (_index().index_meta.get("torch_rocm_indexes") or {}).get("releases") or {}
    return tuple(_data.as_str(x) for x in table.get(version) or ())


def therock_index_url(arch: str) -> str:
    """TheRock nightly index for an architecture (``gfx942`` → ``…/v2/gfx94X-dcgpu/``), or empty when unknown."""
    meta = _index().index_meta
    family = (meta.get("therock_families") or {}).get(arch)
    return _data.as_str(meta.get("therock_index_template")).format(family=family) if family else ""


def index_provenance() -> dict[str, Any]:
    """Source, as_of and confidence of the index facts."""
    meta = _index().index_meta
    return {k: meta[k] for k in ("source", "extra_sources", "as_of", "confidence", "rocm_index_confidence") if k in meta}


def cache_info():
    """Cache statistics of the table loader (``currsize == 0`` means nothing was read yet)."""
    return _index.cache_info()
