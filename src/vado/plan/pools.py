"""GPU pools: which targets lead into each, and how schedulers steer work onto its nodes.

    >>> from vado.plan.pools import default_pools, pool_of_family
    >>> [p.name for p in default_pools()]
    ['nvidia', 'amd', 'intel']
    >>> pool_of_family("scale")
    'amd'

The defaults are ``data/pools.yaml``; a fleet manifest's ``pools:`` section
overrides fields per pool (:func:`with_overrides`). Nothing is read at import time.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass
from typing import Any

from vado import package_files
from vado.errors import KnowledgeError, UsageError

_AFFINITY_OPERATORS = frozenset({"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"})


@dataclass(frozen=True)
class Pool:
    """A set of nodes with one GPU vendor.

    ``families`` are the target families that lead into it (empty for NVIDIA,
    the source platform). ``node_affinity`` holds Kubernetes node-selector
    requirements (``{"key", "operator", "values"}``) that a pod on this pool must
    meet; ``ray_accelerator_types`` the values of Ray's
    ``ray.io/accelerator-type`` node label on its nodes.
    """

    name: str
    vendor: str
    families: tuple[str, ...] = ()
    node_affinity: tuple[dict[str, Any], ...] = ()
    ray_accelerator_types: tuple[str, ...] = ()
    affinity_source: str = ""
    ray_source: str = ""

    @property
    def resource(self) -> str:
        """The device-plugin resource a pod requests here (``amd.com/gpu``)."""
        from vado.knowledge.kubernetes import vendor

        return vendor(self.vendor).default_resource


def _check_affinity(rows: Any, where: str) -> tuple[dict[str, Any], ...]:
    out = []
    for row in rows or ():
        if not isinstance(row, dict) or not isinstance(row.get("key"), str) or not row["key"]:
            raise UsageError(f"{where}: a node_affinity entry has no key", f"got {row!r}",
                             "write entries as {key: amd.com/gpu.family, operator: Exists}")
        op = row.get("operator", "Exists")
        if op not in _AFFINITY_OPERATORS:
            raise UsageError(f"{where}: unknown node_affinity operator {op!r}",
                             "Kubernetes knows " + ", ".join(sorted(_AFFINITY_OPERATORS)))
        entry: dict[str, Any] = {"key": row["key"], "operator": op}
        values = row.get("values")
        if op in ("In", "NotIn", "Gt", "Lt"):
            if not values:
                raise UsageError(f"{where}: node_affinity {row['key']} uses {op} without values")
            entry["values"] = [str(v).lower() if isinstance(v, bool) else str(v) for v in values]
        out.append(entry)
    return tuple(out)


@functools.lru_cache(maxsize=1)
def default_pools() -> tuple[Pool, ...]:
    """The pools of ``data/pools.yaml``, NVIDIA first."""
    import yaml

    text = package_files.files("vado.plan").joinpath("data", "pools.yaml").read_text(encoding="utf-8")
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:  # pragma: no cover - the shipped file is tested
        raise KnowledgeError("pools.yaml is not valid YAML", str(exc).splitlines()[0]) from exc
    pools = []
    for raw in data.get("pools") or ():
        if not raw.get("affinity_source") or not raw.get("ray_source"):
            raise KnowledgeError("pools.yaml is malformed", f"pool {raw.get('name')!r} lacks a source")
        pools.append(
            Pool(
                name=str(raw["name"]),
                vendor=str(raw["vendor"]),
                families=tuple(str(f) for f in raw.get("families") or ()),
                node_affinity=_check_affinity(raw.get("node_affinity"), "pools.yaml"),
                ray_accelerator_types=tuple(str(t) for t in raw.get("ray_accelerator_types") or ()),
                affinity_source=str(raw["affinity_source"]),
                ray_source=str(raw["ray_source"]),
            )
        )
    return tuple(pools)


def pool_of_family(family: str) -> str | None:
    """The pool a target family leads into (``rocm`` → ``amd``), or None."""
    for pool in default_pools():
        if family in pool.families:
            return pool.name
    return None


def with_overrides(overrides: dict[str, Any] | None) -> tuple[Pool, ...]:
    """The default pools with a fleet manifest's ``pools:`` overrides applied.

    Each override is keyed by pool name and may set ``node_affinity`` (a list of
    requirements, or a mapping ``label: value`` where an empty value means
    ``Exists``) and ``ray_accelerator_types``. Unknown pools or fields raise
    :class:`~vado.errors.UsageError`.
    """
    pools = {p.name: p for p in default_pools()}
    for name, raw in (overrides or {}).items():
        if name not in pools:
            raise UsageError(f"fleet manifest names an unknown pool {name!r}", "pools are " + ", ".join(pools))
        if not isinstance(raw, dict):
            raise UsageError(f"fleet manifest: pool {name} must be a mapping", f"got {raw!r}")
        unknown = set(raw) - {"node_affinity", "ray_accelerator_types"}
        if unknown:
            raise UsageError(f"fleet manifest: pool {name} has unknown fields {sorted(unknown)}",
                             "a pool may set node_affinity and ray_accelerator_types")
        changes: dict[str, Any] = {}
        if "node_affinity" in raw:
            aff = raw["node_affinity"]
            if isinstance(aff, dict):
                aff = [
                    {"key": k, "operator": "Exists"} if v in (None, "") else {"key": k, "operator": "In", "values": [v]}
                    for k, v in aff.items()
                ]
            changes["node_affinity"] = _check_affinity(aff, f"pool {name}")
            changes["affinity_source"] = "fleet manifest"
        if "ray_accelerator_types" in raw:
            types = raw["ray_accelerator_types"]
            if not isinstance(types, list) or not all(isinstance(t, str) and t for t in types):
                raise UsageError(f"fleet manifest: pool {name}: ray_accelerator_types must be a list of names")
            changes["ray_accelerator_types"] = tuple(types)
            changes["ray_source"] = "fleet manifest"
        pools[name] = dataclasses.replace(pools[name], **changes)
    return tuple(pools.values())
