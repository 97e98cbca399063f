"""Container images: recognise NVIDIA base images and suggest the AMD counterpart for a target.

    >>> from vado.knowledge.images import match_image
    >>> fact = match_image("nvcr.io/nvidia/pytorch:26.03-py3")
    >>> fact.kind, fact.rocm.reference
    ('ngc-pytorch', 'rocm/pytorch:rocm7.2_ubuntu24.04_py3.12_pytorch_release_2.9.1')
    >>> match_image("rocm/pytorch:latest") is None
    True

A suggested tag is built from the target profile and the table's defaults; the
parts that did not come from the NVIDIA reference are listed in
:attr:`ImageSuggestion.suggested_parts`, and :attr:`ImageSuggestion.seen_in_sources`
says whether the exact reference appears in the researched sources.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Any

from vado.errors import KnowledgeError
from vado.knowledge import _data

_REGISTRY_PREFIXES = ("docker.io/library/", "docker.io/", "index.docker.io/", "registry.hub.docker.com/")


@dataclass(frozen=True)
class ImageSuggestion:
    """The AMD image to use instead, and how sure vado is of it.

    ``status`` is ``counterpart`` (an image exists), ``none`` (no AMD build of this
    product; see ``alternatives``) or ``unknown``. ``reference`` is empty unless
    ``status`` is ``counterpart``; ``incomplete`` marks a tag with a ``<part>``
    the facts could not fill (see ``suggested_parts``).
    """

    status: str
    image: str = ""
    tag: str = ""
    suggested_parts: dict[str, str] = field(default_factory=dict)
    seen_in_sources: bool = False
    incomplete: bool = False
    alternatives: tuple[str, ...] = ()
    run_flags: str = ""
    notes: tuple[str, ...] = ()
    source: str = ""
    as_of: str = ""
    confidence: str = ""

    @property
    def reference(self) -> str:
        """``image:tag`` (or the bare image when no tag applies)."""
        if not self.image:
            return ""
        return f"{self.image}:{self.tag}" if self.tag else self.image


@dataclass(frozen=True)
class ImageFact:
    """An NVIDIA image reference, parsed, with its AMD and Intel counterparts."""

    ref: str
    kind: str
    name: str
    vendor: str
    parts: dict[str, str]
    rocm: ImageSuggestion
    intel_counterpart: str = ""
    contents: str = ""
    source: str = ""
    as_of: str = ""
    confidence: str = ""

    def to_dict(self) -> dict[str, Any]:
        """Plain-data form (for JSON and the MCP tool)."""
        rocm = {k: (list(v) if isinstance(v, tuple) else v) for k, v in vars(self.rocm).items() if v not in ("", (), {}, None)}
        rocm["reference"] = self.rocm.reference
        out = {k: v for k, v in vars(self).items() if k != "rocm" and v not in ("", {}, None)}
        out["rocm"] = rocm
        return out


@dataclass(frozen=True)
class _Entry:
    id: str
    name: str
    pattern: re.Pattern[str]
    raw: dict[str, Any]


@dataclass(frozen=True)
class _Table:
    entries: tuple[_Entry, ...]
    others: tuple[tuple[re.Pattern[str], str], ...]


@functools.lru_cache(maxsize=1)
def _table() -> _Table:
    data = _data.load("images")
    entries = []
    for raw in _data.require(data, "nvidia", "nvidia"):
        image_id = _data.as_str(_data.require(raw, "id", "nvidia[]"))
        _data.require(raw, "source", image_id)
        _data.require(_data.require(raw, "rocm", image_id), "source", f"{image_id}.rocm")
        try:
            pattern = re.compile(_data.as_str(_data.require(raw, "pattern", image_id)))
        except re.error as exc:
            raise KnowledgeError(f"image entry {image_id} is malformed", str(exc)) from exc
        entries.append(_Entry(image_id, _data.as_str(raw.get("name")), pattern, raw))
    others = []
    for row in data.get("others") or ():
        _data.require(row, "source", "others[]")
        others.append((re.compile(_data.as_str(row["pattern"])), _data.as_str(row["vendor"])))
    return _Table(tuple(entries), tuple(others))


def _strip_registry(ref: str) -> str:
    r = ref.strip()
    for prefix in _REGISTRY_PREFIXES:
        if r.startswith(prefix):
            return r[len(prefix):]
    return r


def image_vendor(ref: str) -> str | None:
    """``nvidia``, ``amd`` or ``intel`` for an image vado recognises, else None."""
    r = _strip_registry(ref)
    for pattern, vendor in _table().others:
        if pattern.fullmatch(r):
            return vendor
    return "nvidia" if any(e.pattern.fullmatch(r) for e in _table().entries) else None


def _rocm_version(target: Any) -> str:
    # A target's HIP API level is its ROCm major.minor (rocm-7.2 → "7.2").
    return target.hip_version or target.version


def _suggest(entry: _Entry, parts: dict[str, str], target: Any) -> ImageSuggestion:
    raw = entry.raw["rocm"]
    status = _data.as_str(raw.get("status")) or "unknown"
    common = dict(
        alternatives=_data.as_tuple(raw.get("alternatives")),
        run_flags=_data.as_str(raw.get("run_flags")),
        notes=_data.as_tuple(raw.get("notes")),
        source=_data.as_str(raw.get("source")),
        as_of=_data.as_str(raw.get("as_of")),
        confidence=_data.as_str(raw.get("confidence")),
    )
    if status != "counterpart":
        return ImageSuggestion(status=status, **common)
    examples = set(_data.as_tuple(raw.get("examples")))
    suggested: dict[str, str] = {}
    image = _data.as_str(raw["image"])
    if raw.get("keep_tag"):
        tag = parts.get("version") or "latest"
        suggested["tag"] = (
            f"{tag} (kept from the CUDA image; check that {image} publishes it)" if parts.get("version") else "latest"
        )
        return ImageSuggestion(status=status, image=image, tag=tag, suggested_parts=suggested,
                               seen_in_sources=f"{image}:{tag}" in examples, **common)
    values: dict[str, str] = {"rocm": _rocm_version(target)}
    suggested["rocm"] = f"{values['rocm']} (from target {target.name})"
    defaults = {str(k): _data.as_str(v) for k, v in (raw.get("defaults") or {}).items()}
    for key, value in defaults.items():
        values[key] = value
        suggested[key] = f"{value} (vado default)"
    if raw.get("torch_from_target"):
        listed = target.attributes.get("frameworks.pytorch", "")
        torch = listed.split(",")[0].strip()
        if torch:
            values["torch"] = torch
            suggested["torch"] = f"{torch} (newest PyTorch in the {target.name} compatibility matrix)"
        else:
            values["torch"] = "<torch>"
            suggested["torch"] = f"unknown: the fact base lists no PyTorch versions for {target.name}; pick one from the rocm/pytorch tags"
    if "os_map" in raw:
        os_name = parts.get("os", "")
        mapped = (raw.get("os_map") or {}).get(os_name)
        if mapped:
            image = _data.as_str(mapped)
        else:
            image = _data.as_str(raw["default_image"])
            suggested["image"] = f"{image} (no AMD image for {os_name or 'this OS'} in the table)"
        flavours = set(_data.as_tuple(raw.get("complete_for")))
        wants_complete = parts.get("flavor") in flavours or (bool(parts.get("cudnn")) and "cudnn" in flavours)
        values["complete"] = "-complete" if wants_complete else ""
    tag = _data.as_str(raw["template"]).format(**values)
    return ImageSuggestion(status=status, image=image, tag=tag, suggested_parts=suggested,
                           seen_in_sources=f"{image}:{tag}" in examples, incomplete="<" in tag, **common)


def match_image(ref: str, target: str | Any | None = None) -> ImageFact | None:
    """Parse an NVIDIA image reference and suggest its AMD counterpart; None for other images.

    ``target`` is a target name or :class:`vado.model.Target` of the ``rocm``
    family (default ``rocm-7.2``); other families fall back to the default for
    the AMD suggestion, since SYCL, SCALE and ZLUDA have no images of their own here.
    """
    from vado.knowledge.targets import DEFAULT_TARGET, get_target

    if target is None or isinstance(target, str):
        target = get_target(target or DEFAULT_TARGET)
    if target.family != "rocm":
        target = get_target(DEFAULT_TARGET)
    r = _strip_registry(ref)
    if not r:
        return None
    table = _table()
    if any(p.fullmatch(r) for p, _ in table.others):
        return None
    for entry in table.entries:
        m = entry.pattern.fullmatch(r)
        if m is None:
            continue
        parts = {k: v for k, v in m.groupdict().items() if v}
        if parts.get("cudnn"):
            parts["cudnn"] = parts["cudnn"].rstrip("-")
        contents = entry.raw.get("contents") or {}
        key = parts.get("release", "")
        if parts.get("flavor") and f"{key}-{parts['flavor']}" in contents:
            key = f"{key}-{parts['flavor']}"
        return ImageFact(
            ref=ref.strip(),
            kind=entry.id,
            name=entry.name,
            vendor="nvidia",
            parts=parts,
            rocm=_suggest(entry, parts, target),
            intel_counterpart=_data.as_str(entry.raw.get("intel_counterpart")),
            contents=_data.as_str(contents.get(key, "")),
            source=_data.as_str(entry.raw["source"]),
            as_of=_data.as_str(entry.raw.get("as_of")),
            confidence=_data.as_str(entry.raw.get("confidence")),
        )
    return None


def cache_info():
    """Cache statistics of the table loader (``currsize == 0`` means nothing was read yet)."""
    return _table.cache_info()
