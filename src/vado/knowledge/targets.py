"""Target profiles: the named, versioned platforms vado audits and ports for.

Profiles live in ``data/targets.yaml`` (each with its ``source``) and become
:class:`vado.model.Target` objects on first use::

    >>> from vado.knowledge.targets import get_target
    >>> get_target("rocm").name
    'rocm-7.2'
    >>> get_target("rocm-7.2").wavefront_of("gfx942")
    64

Nothing is read at import time; the parsed table is cached for the process.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from vado.errors import KnowledgeError
from vado.knowledge import _data
from vado.model import Target

#: The production default when the user names no target.
DEFAULT_TARGET = "rocm-7.2"

FAMILIES = ("rocm", "oneapi", "scale", "zluda")


@dataclass(frozen=True)
class ArchFact:
    """One offload architecture: its generation, products and lane widths."""

    arch: str
    generation: str
    wavefront: int
    lane_widths: tuple[int, ...]
    products: tuple[str, ...] = ()
    note: str = ""
    vendor: str = "amd"
    source: str = ""


@dataclass(frozen=True)
class _Table:
    targets: dict[str, Target]
    order: tuple[str, ...]
    aliases: dict[str, str]
    archs: dict[str, ArchFact]
    audit_defaults: tuple[str, ...]
    provenance: dict[str, dict[str, Any]]


def _arch_table(section: dict[str, Any], vendor: str, where: str) -> dict[str, ArchFact]:
    source = _data.as_str(_data.require(section, "source", where))
    out: dict[str, ArchFact] = {}
    for i, row in enumerate(_data.require(section, "list", where)):
        name = _data.as_str(_data.require(row, "arch", f"{where}[{i}]"))
        widths = tuple(int(w) for w in _data.require(row, "lane_widths", name))
        out[name] = ArchFact(
            arch=name,
            generation=_data.as_str(row.get("generation")),
            wavefront=int(_data.require(row, "wavefront", name)),
            lane_widths=widths,
            products=_data.as_tuple(row.get("products")),
            note=_data.as_str(row.get("note")),
            vendor=vendor,
            source=source,
        )
    return out


def _build_target(raw: dict[str, Any], archs: dict[str, ArchFact]) -> Target:
    name = _data.as_str(_data.require(raw, "name", "targets[]"))
    family = _data.as_str(_data.require(raw, "family", name))
    if family not in FAMILIES:
        raise KnowledgeError(f"target {name} is malformed", f"unknown family {family!r}")
    arch_names = _data.as_tuple(_data.require(raw, "archs", name))
    missing = [a for a in arch_names if a not in archs]
    if missing:
        raise KnowledgeError(f"target {name} is malformed", f"architectures {missing} are not in the arch tables")
    default_arch = _data.as_tuple(raw.get("default_arch"))
    if any(a not in arch_names for a in default_arch):
        raise KnowledgeError(f"target {name} is malformed", "default_arch names an architecture the target lacks")
    features = raw.get("features") or {}
    if any(not isinstance(v, bool) for v in features.values()):
        raise KnowledgeError(f"target {name} is malformed", "every feature must be true or false")
    hip = raw.get("hip_version")
    return Target(
        name=name,
        family=family,
        version=_data.as_str(_data.require(raw, "version", name)),
        description=_data.as_str(raw.get("description")),
        hip_version=None if hip is None else _data.as_str(hip),
        wavefront={a: archs[a].wavefront for a in arch_names},
        default_arch=default_arch,
        libraries={str(k): _data.as_str(v) for k, v in (raw.get("libraries") or {}).items()},
        features={str(k): v for k, v in features.items()},
        source=_data.as_str(_data.require(raw, "source", name)),
        lane_widths={a: archs[a].lane_widths for a in arch_names},
        attributes={str(k): _data.as_str(v) for k, v in (raw.get("attributes") or {}).items()},
        notes={str(k): _data.as_str(v) for k, v in (raw.get("notes") or {}).items()},
    )


@functools.lru_cache(maxsize=1)
def _table() -> _Table:
    data = _data.load("targets")
    archs = _arch_table(_data.require(data, "archs", "archs"), "amd", "archs")
    archs.update(_arch_table(_data.require(data, "intel_archs", "intel_archs"), "intel", "intel_archs"))
    targets: dict[str, Target] = {}
    aliases: dict[str, str] = {}
    provenance: dict[str, dict[str, Any]] = {}
    for raw in _data.require(data, "targets", "targets"):
        target = _build_target(raw, archs)
        if target.name in targets:
            raise KnowledgeError("targets.yaml is malformed", f"target {target.name} is defined twice")
        targets[target.name] = target
        provenance[target.name] = {
            "source": target.source,
            "extra_sources": list(_data.as_tuple(raw.get("extra_sources"))),
            "as_of": _data.as_str(raw.get("as_of")),
            "confidence": _data.as_str(raw.get("confidence")),
        }
        for alias in _data.as_tuple(raw.get("aliases")):
            key = alias.lower()
            if key in aliases and aliases[key] != target.name:
                raise KnowledgeError("targets.yaml is malformed", f"alias {alias!r} names two targets")
            aliases[key] = target.name
    for key in aliases:
        if key in targets:
            raise KnowledgeError("targets.yaml is malformed", f"alias {key!r} shadows a target name")
    audit = _data.as_tuple(_data.require(data, "default_audit_targets", "default_audit_targets"))
    if any(a not in targets for a in audit) or _data.as_str(data.get("default_target")) != DEFAULT_TARGET:
        raise KnowledgeError("targets.yaml is malformed", "its defaults name unknown targets or disagree with the code")
    return _Table(targets, tuple(targets), aliases, archs, audit, provenance)


def target_names() -> tuple[str, ...]:
    """Canonical target names in the knowledge base's order."""
    return _table().order


def resolve_name(name: str) -> str:
    """The canonical name for ``name`` or one of its aliases (``"sycl"`` → ``"oneapi"``).

    Raises :class:`KnowledgeError` with close matches when the name is unknown.
    """
    table = _table()
    key = name.strip().lower()
    if key in table.targets:
        return key
    if key in table.aliases:
        return table.aliases[key]
    choices = list(table.targets) + list(table.aliases)
    close = _data.suggest(key, choices)
    # Report canonical names, not the alias that happened to be closest.
    canonical = list(dict.fromkeys(table.aliases.get(c, c) for c in close))
    tip = _data.did_you_mean(canonical) or "run `vado targets` to list them"
    raise KnowledgeError(f"unknown target {name!r}", "known targets are " + ", ".join(table.order), tip)


def get_target(name: str = DEFAULT_TARGET) -> Target:
    """The :class:`Target` profile named ``name`` (a canonical name or an alias)."""
    table = _table()
    return table.targets[resolve_name(name)]


def all_targets() -> tuple[Target, ...]:
    """Every profile, in the knowledge base's order."""
    table = _table()
    return tuple(table.targets[n] for n in table.order)


def default_audit_targets() -> tuple[Target, ...]:
    """The targets an audit reports when the user names none: rocm-7.2, oneapi, scale, zluda."""
    table = _table()
    return tuple(table.targets[n] for n in table.audit_defaults)


def arch_info(arch: str) -> ArchFact | None:
    """Facts about one offload architecture (``gfx942``, ``intel_gpu_pvc``), or None when unknown."""
    return _table().archs.get(arch.strip().lower())


def all_archs() -> tuple[ArchFact, ...]:
    """Every architecture the tables know, AMD first."""
    return tuple(_table().archs.values())


def target_provenance(name: str) -> dict[str, Any]:
    """Where a profile's facts come from: ``source``, ``extra_sources``, ``as_of``, ``confidence``."""
    return dict(_table().provenance[resolve_name(name)])


def cache_info():
    """Cache statistics of the table loader (``currsize == 0`` means nothing was read yet)."""
    return _table.cache_info()
