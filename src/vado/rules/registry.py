"""Finding rules: the family modules are imported on first use, never at start-up."""

from __future__ import annotations

import functools
import importlib

from vado.errors import UsageError
from vado.rules.base import Rule

#: Family modules, in report order. A module defines its rules as ``Rule`` subclasses.
FAMILY_MODULES = (
    "vado.rules.api",
    "vado.rules.api_decl",
    "vado.rules.lib",
    "vado.rules.ptx",
    "vado.rules.warp",
    "vado.rules.arch",
    "vado.rules.dep",
    "vado.rules.img",
    "vado.rules.bld",
)

FAMILIES = {
    "API": "CUDA runtime, driver, device and library names the target lacks or renames",
    "LIB": "CUDA libraries and what they become on each target",
    "PTX": "inline PTX assembly",
    "WARP": "code that assumes 32-wide warps",
    "ARCH": "architecture-only features (tensor cores, TMA, clusters, FP8 …)",
    "DEP": "Python dependencies",
    "IMG": "container base images",
    "BLD": "build files (CMake, Make, setup.py)",
}


def _subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


@functools.cache
def all_rules() -> tuple[type[Rule], ...]:
    """Every rule class, sorted by code. Missing family modules are skipped."""
    for name in FAMILY_MODULES:
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
    rules = {r.code: r for r in _subclasses(Rule) if r.code}
    return tuple(rules[c] for c in sorted(rules))


def get_rule(code: str) -> type[Rule]:
    """The rule with ``code`` (case-insensitive); raises ``UsageError`` with close matches."""
    wanted = code.strip().upper()
    for rule in all_rules():
        if rule.code == wanted:
            return rule
    import difflib

    codes = [r.code for r in all_rules()] + [r.name for r in all_rules()]
    for rule in all_rules():
        if rule.name == code.strip().lower():
            return rule
    close = difflib.get_close_matches(wanted, codes, n=5, cutoff=0.5)
    tip = f"did you mean {', '.join(close)}?" if close else "run `vado explain --list` for all codes"
    raise UsageError(f"unknown rule code {code!r}", "no rule has that code or name", tip)
