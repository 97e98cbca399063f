"""Kubernetes GPU resource names and node labels per vendor, and how to translate them.

    >>> from vado.knowledge.kubernetes import vendor_for_resource, translate_resource
    >>> vendor_for_resource("nvidia.com/mig-1g.10gb").vendor
    'nvidia'
    >>> translate_resource("nvidia.com/gpu", "amd")
    'amd.com/gpu'

The table is ``data/kubernetes.yaml``; nothing is read at import time.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any

from vado.errors import KnowledgeError
from vado.knowledge import _data

VENDORS = ("nvidia", "amd", "intel")


@dataclass(frozen=True)
class NodeLabel:
    """One node label a vendor's plugin or labeller sets (``*`` / ``<...>`` mark families)."""

    label: str
    note: str = ""


@dataclass(frozen=True)
class K8sVendorFact:
    """A vendor's device-plugin resources, plugin, and node labels."""

    vendor: str
    resources: tuple[str, ...]
    resource_patterns: tuple[str, ...]
    resource_note: str
    plugin: str
    label_prefixes: tuple[str, ...]
    node_labels: tuple[NodeLabel, ...]
    source: str
    extended_resources: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    extra_sources: tuple[str, ...] = ()
    as_of: str = ""
    confidence: str = ""

    @property
    def default_resource(self) -> str:
        """The resource a portable manifest asks for (``nvidia.com/gpu``, ``amd.com/gpu``, ``gpu.intel.com/xe``)."""
        if self.vendor == "intel":
            # The xe kernel driver is the current one; i915 nodes expose gpu.intel.com/i915 instead.
            return "gpu.intel.com/xe"
        return self.resources[0]

    def to_dict(self) -> dict[str, Any]:
        """Plain-data form (for JSON and the MCP tool)."""
        out: dict[str, Any] = {}
        for key, value in vars(self).items():
            if value in ("", ()):
                continue
            if key == "node_labels":
                value = [{k: v for k, v in vars(lbl).items() if v} for lbl in value]
            elif isinstance(value, tuple):
                value = list(value)
            out[key] = value
        return out


@dataclass(frozen=True)
class LabelEquivalent:
    """The nearest label of another vendor; ``approximate`` when the value means something else."""

    nvidia: str
    amd: str = ""
    intel: str = ""
    approximate: bool = False
    note: str = ""


@dataclass(frozen=True)
class _Table:
    vendors: dict[str, K8sVendorFact]
    patterns: tuple[tuple[re.Pattern[str], str], ...]
    labels: tuple[LabelEquivalent, ...]
    scheduling_notes: tuple[dict[str, Any], ...]


@functools.lru_cache(maxsize=1)
def _table() -> _Table:
    data = _data.load("kubernetes")
    vendors: dict[str, K8sVendorFact] = {}
    patterns: list[tuple[re.Pattern[str], str]] = []
    for raw in _data.require(data, "vendors", "vendors"):
        name = _data.as_str(_data.require(raw, "vendor", "vendors[]"))
        if name not in VENDORS:
            raise KnowledgeError("kubernetes.yaml is malformed", f"unknown vendor {name!r}")
        fact = K8sVendorFact(
            vendor=name,
            resources=_data.as_tuple(_data.require(raw, "resources", name)),
            resource_patterns=_data.as_tuple(raw.get("resource_patterns")),
            resource_note=_data.as_str(raw.get("resource_note")),
            plugin=_data.as_str(raw.get("plugin")),
            label_prefixes=_data.as_tuple(raw.get("label_prefixes")),
            node_labels=tuple(
                NodeLabel(_data.as_str(_data.require(row, "label", name)), _data.as_str(row.get("note")))
                for row in raw.get("node_labels") or ()
            ),
            source=_data.as_str(_data.require(raw, "source", name)),
            extended_resources=_data.as_tuple(raw.get("extended_resources")),
            notes=_data.as_tuple(raw.get("notes")),
            extra_sources=_data.as_tuple(raw.get("extra_sources")),
            as_of=_data.as_str(raw.get("as_of")),
            confidence=_data.as_str(raw.get("confidence")),
        )
        vendors[name] = fact
        patterns.extend((re.compile(p), name) for p in fact.resource_patterns)
    eq = _data.require(data, "label_equivalents", "label_equivalents")
    _data.require(eq, "source", "label_equivalents")
    labels = tuple(
        LabelEquivalent(
            nvidia=_data.as_str(row["nvidia"]),
            amd=_data.as_str(row.get("amd")),
            intel=_data.as_str(row.get("intel")),
            approximate=bool(row.get("approximate", False)),
            note=_data.as_str(row.get("note")),
        )
        for row in _data.require(eq, "list", "label_equivalents")
    )
    notes = tuple(dict(n) for n in data.get("scheduling_notes") or ())
    return _Table(vendors, tuple(patterns), labels, notes)


def vendor(name: str) -> K8sVendorFact:
    """The facts for ``nvidia``, ``amd`` or ``intel``; :class:`KnowledgeError` otherwise."""
    key = name.strip().lower()
    table = _table()
    if key not in table.vendors:
        raise KnowledgeError(f"unknown GPU vendor {name!r}", "known vendors are " + ", ".join(table.vendors),
                             _data.did_you_mean(_data.suggest(key, table.vendors)))
    return table.vendors[key]


def all_vendors() -> tuple[K8sVendorFact, ...]:
    """Every vendor, NVIDIA first."""
    return tuple(_table().vendors.values())


def vendor_for_resource(resource: str) -> K8sVendorFact | None:
    """The vendor whose device plugin serves ``resource`` (``amd.com/cpx_nps4`` → AMD), or None."""
    r = resource.strip()
    table = _table()
    for fact in table.vendors.values():
        if r in fact.resources or r in fact.extended_resources:
            return fact
    for pattern, name in table.patterns:
        if pattern.fullmatch(r):
            return table.vendors[name]
    return None


def vendor_for_label(label: str) -> K8sVendorFact | None:
    """The vendor a node-label key belongs to, by its prefix (``nvidia.com/gpu.product`` → NVIDIA)."""
    key = label.strip().split("=", 1)[0]
    best: tuple[int, K8sVendorFact] | None = None
    for fact in _table().vendors.values():
        for prefix in fact.label_prefixes:
            if key.startswith(prefix) and (best is None or len(prefix) > best[0]):
                best = (len(prefix), fact)
    return best[1] if best else None


def translate_resource(resource: str, to_vendor: str) -> str:
    """The resource to request on ``to_vendor`` for a GPU resource of another vendor.

    Partition resources (MIG profiles, AMD compute partitions) become the vendor's
    whole-GPU resource: partitions do not correspond across vendors.
    """
    target = vendor(to_vendor)
    source = vendor_for_resource(resource)
    if source is None:
        raise KnowledgeError(f"{resource!r} is not a GPU resource vado knows", "it matches no vendor's device plugin",
                             "GPU resources look like nvidia.com/gpu, amd.com/gpu or gpu.intel.com/xe")
    return target.default_resource


def label_equivalent(label: str) -> LabelEquivalent | None:
    """The cross-vendor counterpart of an NVIDIA node label, or None when there is none."""
    key = label.strip().split("=", 1)[0]
    for eq in _table().labels:
        if eq.nvidia == key:
            return eq
    return None


def scheduling_notes() -> tuple[dict[str, Any], ...]:
    """General facts about GPU scheduling on Kubernetes, each with its source."""
    return _table().scheduling_notes


def cache_info():
    """Cache statistics of the table loader (``currsize == 0`` means nothing was read yet)."""
    return _table.cache_info()
