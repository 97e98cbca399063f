"""What using a CUDA library means on each target: :func:`library_verdict` (one reader per target
family, over the library facts of :mod:`vado.knowledge.libraries`) and the ROCm names with the target's
versions (:func:`rocm_replacement`).
"""

from __future__ import annotations

import re
from typing import Any

from vado.model import Target, Verdict


#: Header-only template libraries: no binary to shim, they compile into the
#: application. (A property of the library; kept here until libraries.yaml
#: carries a ``header_only`` field.)
HEADER_ONLY = frozenset({"thrust", "cub", "libcudacxx", "cutlass"})

# Where a fact's product name ends: a parenthesis, a dash remark, a clause.
_REMARK = re.compile(r"\s+\(|\s+[–-]\s|[;:,]|\s+via\s|\s+over\s")
_VERSION = re.compile(r"\s+v?\d+(?:\.\d+)+\b")


def _short(text: str) -> str:
    """The product named at the start of a fact's text, without versions or remarks.

    ``MIOpen 3.5.1 (ROCm 7.2)`` → ``MIOpen``; ``Intel SHMEM (ISHMEM) – OpenSHMEM …``
    → ``Intel SHMEM``; ``oneCCL 2022.0 (oneAPI 2026.0): NCCL-like …`` → ``oneCCL``.
    """
    head = _REMARK.split(text.strip(), 1)[0]
    return _VERSION.sub("", head).strip()


def _versioned(name: str, target: Target) -> str:
    """``hipBLAS 3.2.0``: ``name`` with the version the target ships (each part of ``a + b``)."""
    parts = []
    for part in name.split(" + "):
        key = part.strip()
        version = target.libraries.get(key) or target.libraries.get(key.replace(" ", "_").replace("-", "_"))
        parts.append(f"{key} {version}" if version else key)
    return " + ".join(parts)


def _is_none(text: str) -> bool:
    return text.strip().lower().startswith("none")


def _confidence_note(section: Any) -> str:
    return " (unverified)" if getattr(section, "confidence", "") == "low" else ""


def _early_access(section: Any) -> str:
    """The fact text that calls the counterpart early-access or a preview, or ''."""
    for text in (section.equivalent, *section.gaps, *section.notes):
        low = text.lower()
        if "early-access" in low or "early access" in low or "preview" in low:
            return text
    return ""


def rocm_replacement(lib: Any, target: Target, *, roc: bool = False) -> str:
    """``hipBLAS 3.2.0 / rocBLAS 5.2.0``: the ROCm names for ``lib`` with the target's versions.

    For a rework the native library comes first (cuDNN → MIOpen before hipDNN);
    with ``roc`` the roc* library comes first in any case.
    """
    section = lib.rocm
    names = []
    for text in (section.hip_wrapper, section.roc_native):
        if text and not _is_none(text):
            names.append(_short(text))
    if (section.api_shape == "rework" or roc) and len(names) == 2:
        names.reverse()
    if not names and section.equivalent and not _is_none(section.equivalent):
        names.append(_short(section.equivalent))
    return " / ".join(_versioned(n, target) for n in names)


def _route(lib: Any, target: Target) -> str:
    """``; route: MIGraphX 2.15.0`` — the alternative the ROCm facts name for a library with no port."""
    eq = lib.rocm.equivalent.strip() if lib.rocm else ""
    if not eq or _is_none(eq):
        return ""
    if eq.lower().startswith("no "):  # "No HIP port of CUTLASS; use Composable Kernel …"
        rest = eq.split(";", 1)[1].strip() if ";" in eq else ""
        return f"; {rest}" if rest else ""
    return f"; route: {_versioned(_short(eq), target)}"


#: The ROCm counterpart's API shapes a verdict follows from (reason: ``{shape} → {replacement}``); any
#: other shape is not recorded and needs manual work.
_ROCM_SHAPES = {"drop-in": Verdict.AUTOMATIC, "near-drop-in": Verdict.AUTOMATIC, "rework": Verdict.MANUAL}

#: SCALE's recorded status → verdict and reason; an undocumented status needs manual work.
_SCALE_STATUS = {
    "supported": (Verdict.MOVES_AS_IS, "supported"),
    "none": (Verdict.BLOCKED, "not supported"),
    "partial": (Verdict.MANUAL, "partial coverage"),
    "failing": (Verdict.MANUAL, "fails SCALE validation"),
}
_SCALE_UNDOCUMENTED = (Verdict.MANUAL, "coverage not documented")


def _rocm_verdict(lib: Any, section: Any, target: Target, roc: bool) -> tuple[Verdict, str]:
    """ROCm: blocked without a port; an early-access counterpart needs manual work whatever its shape;
    otherwise as :data:`_ROCM_SHAPES` says."""
    if not section or section.api_shape == "none":
        return Verdict.BLOCKED, "no ROCm port" + _route(lib, target)
    shape = section.api_shape
    repl = rocm_replacement(lib, target, roc=roc)
    if _early_access(section):
        return Verdict.MANUAL, f"{repl} ({shape}) is early-access"
    verdict = _ROCM_SHAPES.get(shape)
    if verdict is not None:
        return verdict, f"{shape} → {repl}"
    return Verdict.MANUAL, f"ROCm counterpart {repl or 'unknown'} (shape not recorded)"


def _oneapi_verdict(lib: Any, section: Any, target: Target, roc: bool) -> tuple[Verdict, str]:
    """oneAPI: no rename path to SYCL, so anything short of drop-in needs manual work; a low-confidence
    fact says so in the reason."""
    if section is None:
        return Verdict.MANUAL, "no oneAPI fact recorded"
    eq = _short(section.equivalent) or section.equivalent
    note = _confidence_note(section)
    if section.api_shape == "none":
        return Verdict.BLOCKED, f"no SYCL port; route: {eq}{note}"
    if _is_none(section.equivalent):
        return Verdict.BLOCKED, f"no oneAPI equivalent found{note}"
    if section.api_shape == "drop-in":
        return Verdict.AUTOMATIC, f"drop-in → {eq}{note}"
    shape = section.api_shape or "shape not recorded"
    return Verdict.MANUAL, f"{shape} → {eq}{note}"


def _scale_verdict(lib: Any, section: Any, target: Target, roc: bool) -> tuple[Verdict, str]:
    """SCALE: the recorded status (:data:`_SCALE_STATUS`)."""
    status = section.status if section else ""
    return _SCALE_STATUS.get(status, _SCALE_UNDOCUMENTED)


def _zluda_verdict(lib: Any, section: Any, target: Target, roc: bool) -> tuple[Verdict, str]:
    """ZLUDA: as a shim's status says; a header-only library compiles into the application's PTX (coverage
    not documented); a binary library without a shim is blocked."""
    if section is not None and section.status:
        shim = f" {section.shim}" if section.shim else ""
        if section.status == "supported":
            return Verdict.MOVES_AS_IS, f"shim{shim}" if shim else "supported"
        if section.status == "none":
            return Verdict.BLOCKED, "not supported"
        return Verdict.MANUAL, f"{section.status} shim{shim}" if shim else section.status
    if lib.id in HEADER_ONLY:
        return Verdict.MANUAL, "header-only, compiled to PTX; coverage not documented"
    return Verdict.BLOCKED, "no ZLUDA shim"


#: One reader of the library facts per target family: ``(lib, its section for the family, target, roc)``.
_FAMILY_VERDICTS = {"rocm": _rocm_verdict, "oneapi": _oneapi_verdict, "scale": _scale_verdict, "zluda": _zluda_verdict}


def library_verdict(lib: Any, target: Target, *, roc: bool = False) -> tuple[Verdict, str]:
    """What using ``lib`` means on ``target``, and the reason in a few words (from the facts)."""
    family = target.family
    section = lib.on(family)
    reader = _FAMILY_VERDICTS.get(family)
    if reader is None:
        return Verdict.MANUAL, f"no facts for target family {family!r}"
    return reader(lib, section, target, roc)
