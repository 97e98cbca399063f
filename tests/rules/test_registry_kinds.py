"""The rules of one file kind come from the family modules that kind needs, and are exactly the rules that read it."""

from __future__ import annotations

import json
import subprocess
import sys

from vado.rules.registry import FAMILY_KINDS, FAMILY_MODULES, all_rules, family_module, rules_for_kind
from vado.scan.classify import FileKind


def test_every_family_declares_the_kinds_its_rules_read():
    assert set(FAMILY_KINDS) == set(FAMILY_MODULES)
    for rule in all_rules():
        declared = FAMILY_KINDS[family_module(rule)]
        read = {k.value for k in rule.file_kinds}
        assert read <= declared, f"{rule.code} ({family_module(rule)}) reads {sorted(read - declared)}: add them to FAMILY_KINDS"
    # And no family claims a kind none of its rules reads (it would import the module for nothing).
    for module, kinds in FAMILY_KINDS.items():
        read = {k.value for r in all_rules() if family_module(r) == module for k in r.file_kinds}
        assert kinds == read, module


def test_every_module_of_a_family_package_is_imported():
    """A family that is a package (arch, lib, api_decl) has each of its modules imported by the registry,
    so a rule in a module its ``__init__`` does not name still registers; and every rule defined in such
    a module is among all_rules()."""
    import importlib
    import pkgutil

    codes = {r.code for r in all_rules()}
    packages = [m for m in FAMILY_MODULES if hasattr(importlib.import_module(m), "__path__")]
    assert {"vado.rules.arch", "vado.rules.lib", "vado.rules.api_decl", "vado.rules.bld"} <= set(packages)
    for package in packages:
        for sub in pkgutil.iter_modules(importlib.import_module(package).__path__):
            name = f"{package}.{sub.name}"
            assert name in sys.modules, name
            defined = [v for v in vars(sys.modules[name]).values()
                       if isinstance(v, type) and getattr(v, "code", None) and v.__module__ == name]
            assert all(r.code in codes and family_module(r) == package for r in defined), name


def test_every_rule_code_is_defined_once():
    """A rule registers by being defined: a class left behind in an old module after a split (or a code
    given twice) would make two classes answer to one code, and all_rules() would keep one silently."""
    from collections import Counter

    from vado.rules.base import Rule
    from vado.rules.registry import _subclasses

    all_rules()
    defined = Counter(r.code for r in _subclasses(Rule) if r.code)
    assert [c for c, n in defined.items() if n > 1] == []
    assert len(all_rules()) == len(defined)


def test_the_bld_family_registers_its_nine_codes():
    """The BLD rules (a package of modules since the split of vado/rules/bld.py, 1831 lines) are the nine
    codes the single module and bld_torch had, each from its family module, each once."""
    bld = {r.code: family_module(r) for r in all_rules() if r.code.startswith("BLD")}
    assert bld == {**{f"BLD00{n}": "vado.rules.bld" for n in (1, 2, 3, 4, 5, 6, 7, 9)}, "BLD008": "vado.rules.bld_torch"}
    setup_py = [r.code for r in rules_for_kind(FileKind.SETUP_PY) if r.code.startswith("BLD")]
    assert setup_py == ["BLD002", "BLD004", "BLD005", "BLD006", "BLD007", "BLD008"]


def test_rules_for_kind_equals_filtering_every_rule():
    for kind in FileKind:
        expected = tuple(r for r in all_rules() if kind in r.file_kinds)
        assert rules_for_kind(kind) == expected, kind


def test_a_fresh_process_imports_only_the_families_of_the_kind():
    # In a new interpreter nothing else has imported the rule modules: the rules of a kind
    # must still be all of them, and a CUDA source must not pull in the dependency,
    # Dockerfile or build-file families.
    code = (
        "import json, sys\n"
        "from vado.rules.registry import rules_for_kind\n"
        "from vado.scan.classify import FileKind\n"
        "out = {}\n"
        "cu = [r.code for r in rules_for_kind(FileKind.CUDA_SOURCE)]\n"
        "mods = sorted(m for m in sys.modules if m.startswith('vado.rules.') and m.count('.') == 2)\n"
        "print(json.dumps({'cu': cu, 'modules': mods}))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    got = json.loads(proc.stdout)
    assert got["cu"] == [r.code for r in all_rules() if FileKind.CUDA_SOURCE in r.file_kinds]
    assert not {"vado.rules.dep", "vado.rules.img", "vado.rules.bld"} & set(got["modules"])
    assert "vado.rules.warp" in got["modules"]
