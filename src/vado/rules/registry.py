"""Finding rules: the family modules are imported on first use, never at start-up."""

from __future__ import annotations

import functools
import importlib
import pkgutil

from vado.errors import UsageError
from vado.rules.base import Rule

#: Family modules, in report order. A module defines its rules as ``Rule`` subclasses; of a family that is a
#: package (``vado.rules.arch``) every module is imported, and :func:`family_module` maps a rule back to it.
FAMILY_MODULES = (
    "vado.rules.api",
    "vado.rules.api_decl",
    "vado.rules.api_cg",
    "vado.rules.api_host",
    "vado.rules.api_std",
    "vado.rules.api_torch",
    "vado.rules.api_torch_vendored",
    "vado.rules.api_torch_constexpr",
    "vado.rules.api_own",
    "vado.rules.lib",
    "vado.rules.ptx",
    "vado.rules.warp",
    "vado.rules.arch",
    "vado.rules.dep",
    "vado.rules.img",
    "vado.rules.bld",
    "vado.rules.bld_torch",
)

#: The file kinds (``FileKind`` values) each family module's rules read: a file of another
#: kind never needs the module imported (:func:`rules_for_kind`). ``tests/rules/test_registry_kinds.py``
#: checks every rule's ``file_kinds`` against this table.
_C_FAMILY_KINDS = frozenset({"cuda-source", "cuda-header", "cxx-source", "cxx-header"})
FAMILY_KINDS: dict[str, frozenset[str]] = {
    "vado.rules.api": _C_FAMILY_KINDS,
    "vado.rules.api_decl": _C_FAMILY_KINDS,
    "vado.rules.api_cg": _C_FAMILY_KINDS,
    "vado.rules.api_host": _C_FAMILY_KINDS,
    "vado.rules.api_std": _C_FAMILY_KINDS,
    "vado.rules.api_torch": _C_FAMILY_KINDS,
    "vado.rules.api_torch_vendored": _C_FAMILY_KINDS,
    "vado.rules.api_torch_constexpr": _C_FAMILY_KINDS,
    "vado.rules.api_own": _C_FAMILY_KINDS,
    "vado.rules.lib": _C_FAMILY_KINDS,
    "vado.rules.ptx": _C_FAMILY_KINDS,
    "vado.rules.warp": _C_FAMILY_KINDS,
    "vado.rules.arch": _C_FAMILY_KINDS,
    "vado.rules.dep": frozenset({"conda-env", "dockerfile", "pyproject", "python", "requirements", "setup-cfg", "setup-py"}),
    "vado.rules.img": frozenset({"dockerfile"}),
    # python: a module that builds a torch extension just in time (cpp_extension.load: BLD005 on its flags)
    "vado.rules.bld": frozenset({"cmake", "makefile", "python", "setup-py"}),
    "vado.rules.bld_torch": frozenset({"setup-py"}),
}

FAMILIES = {
    "API": "CUDA runtime, driver, device and library names the target lacks or renames",
    "LIB": "CUDA libraries and what they become on each target",
    "PTX": "inline PTX assembly",
    "WARP": "code that assumes 32-wide warps",
    "ARCH": "architecture-only features (tensor cores, TMA, clusters, FP8 …)",
    "DEP": "Python dependencies",
    "IMG": "container base images",
    "BLD": "build files (CMake, Make, setup.py, a torch extension's just-in-time build)",
}


def family_module(rule: type[Rule]) -> str:
    """The family module (a :data:`FAMILY_MODULES` name) that defines ``rule``: its own module, or the
    family package its module is part of (``vado.rules.arch.fp8`` → ``vado.rules.arch``)."""
    name = rule.__module__
    while name not in FAMILY_KINDS and "." in name:
        name = name.rpartition(".")[0]
    return name if name in FAMILY_KINDS else rule.__module__


def _subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


def _import_families(names) -> None:
    """Import the family modules ``names`` and, for a family that is a package, every module in it:
    a rule registers by being defined (a ``Rule`` subclass), so a rule in a new module of a family
    package is found without being listed anywhere."""
    for name in names:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
            continue
        for sub in pkgutil.iter_modules(getattr(module, "__path__", ())):
            importlib.import_module(f"{name}.{sub.name}")


@functools.cache
def all_rules() -> tuple[type[Rule], ...]:
    """Every rule class, sorted by code. Missing family modules are skipped."""
    _import_families(FAMILY_MODULES)
    rules = {r.code: r for r in _subclasses(Rule) if r.code}
    return tuple(rules[c] for c in sorted(rules))


@functools.cache
def rules_for_kind(kind) -> tuple[type[Rule], ...]:
    """The rule classes that read files of ``kind`` (a ``FileKind``), sorted by code.

    What ``[r for r in all_rules() if kind in r.file_kinds]`` gives, importing only
    the family modules that :data:`FAMILY_KINDS` lists for ``kind``: a one-file
    audit of a ``.cu`` file imports neither the Python-dependency nor the
    Dockerfile and build-file rules (nor their parsers and tables).
    """
    _import_families(m for m in FAMILY_MODULES if kind.value in FAMILY_KINDS.get(m, ()))
    rules = {r.code: r for r in _subclasses(Rule) if r.code and kind in r.file_kinds}
    return tuple(rules[c] for c in sorted(rules))


def get_rule(code: str) -> type[Rule]:
    """The rule with ``code`` (case-insensitive); raises ``UsageError`` with close matches."""
    wanted = code.strip().upper()
    # The rule of a finding is loaded already: looked up among the loaded rules first, a
    # report of a one-file audit does not import every other family for its few codes.
    for rule in _subclasses(Rule):
        if rule.code == wanted:
            return rule
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
