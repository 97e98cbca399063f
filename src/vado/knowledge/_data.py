"""Reading the knowledge-base data files: one YAML document per table, read on demand.

The loaders in :mod:`vado.knowledge` call :func:`load` inside cached functions, so
a file is parsed at most once per process and never at import time. Malformed or
missing data raises :class:`vado.errors.KnowledgeError`, never a bare YAML error.
"""

from __future__ import annotations

from typing import Any, Iterable

from vado import package_files
from vado.errors import KnowledgeError

#: Keys every fact entry must carry (checked by the loaders).
SOURCE_KEY = "source"


def load(name: str) -> dict[str, Any]:
    """Parse ``data/<name>.yaml`` from the installed package and return its mapping.

    The parsed mapping is kept in the user's cache (:mod:`vado.knowledge._cache`),
    so a later process reads it back without PyYAML.
    """
    from vado.knowledge._cache import cached

    source = package_files.files("vado.knowledge").joinpath("data", f"{name}.yaml")
    return cached(f"yaml-{name}", [source], lambda: _parse_file(name))


def _parse_file(name: str) -> dict[str, Any]:
    import yaml  # deferred: importing vado.knowledge must stay cheap

    filename = f"{name}.yaml"
    try:
        text = package_files.files("vado.knowledge").joinpath("data", filename).read_text(encoding="utf-8")
    except (FileNotFoundError, OSError) as exc:
        raise KnowledgeError(
            f"knowledge file {filename} could not be read",
            str(exc),
            "reinstall vado (pip install -e .) so its data files are present",
        ) from exc
    try:
        data = parse_yaml(text)
    except yaml.YAMLError as exc:
        raise KnowledgeError(f"knowledge file {filename} is not valid YAML", str(exc).splitlines()[0]) from exc
    if not isinstance(data, dict):
        raise KnowledgeError(f"knowledge file {filename} is malformed", "its top level is not a mapping")
    return data


def parse_yaml(text: str) -> Any:
    """``yaml.safe_load`` through libyaml where PyYAML was built with it.

    The same safe constructor, 8x faster: every audit worker used to spend a
    quarter of a second parsing the knowledge base.
    """
    import yaml

    return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))  # noqa: S506 - a safe loader


def preload() -> None:
    """Load every table the audit rules read, so that forked workers inherit them loaded."""
    from vado.knowledge import api, images, libraries, packages, ptx, targets

    api.api_table()
    libraries._index()
    packages._index()
    images._table()
    ptx.ptx_facts()
    targets._table()


def require(entry: dict[str, Any], key: str, where: str) -> Any:
    """``entry[key]``, or a :class:`KnowledgeError` naming the entry that lacks it."""
    if not isinstance(entry, dict) or key not in entry or entry[key] in (None, ""):
        raise KnowledgeError(f"knowledge entry {where} is malformed", f"it has no {key!r}")
    return entry[key]


def as_str(value: Any) -> str:
    """A YAML scalar as text (YAML turns ``2026-05-18`` into a date and ``6.4`` into a float)."""
    return "" if value is None else str(value)


def as_tuple(value: Any) -> tuple[str, ...]:
    """A YAML scalar or list as a tuple of strings (absent → empty)."""
    if value is None:
        return ()
    if isinstance(value, (list, tuple)):
        return tuple(as_str(v) for v in value)
    return (as_str(value),)


def suggest(name: str, choices: Iterable[str], n: int = 3) -> list[str]:
    """Close matches of ``name`` among ``choices``, best first (for "did you mean" tips)."""
    pool = sorted(set(choices))
    lowered = {c.lower(): c for c in pool}
    import difflib  # only for a name that is not found

    hits = difflib.get_close_matches(name.lower(), list(lowered), n=n, cutoff=0.5)
    out = [lowered[h] for h in hits]
    # A prefix is a strong hint even when difflib's ratio is low ("roc" → "rocm-7.2").
    for c in pool:
        if len(out) >= n:
            break
        if name and c.lower().startswith(name.lower()) and c not in out:
            out.append(c)
    return out


def did_you_mean(candidates: list[str]) -> str:
    """A tip sentence from close matches, or an empty string."""
    if not candidates:
        return ""
    return "did you mean " + " or ".join(repr(c) for c in candidates) + "?"
