"""Fixture tests for every rule code (semgrep-style markers + a findings snapshot).

Layout: ``tests/fixtures/<FAMILY>/<CODE>.<ext>`` (``.cu``, ``.txt`` for
requirements, ``Dockerfile`` suffixes …). The file name without the code decides
the kind: ``PTX001.cu`` is CUDA, ``DEP001.requirements.txt`` is a requirements
file, ``IMG001.Dockerfile`` a Dockerfile, ``BLD001.CMakeLists.txt`` CMake.

Markers, in a comment on the line *above* the code they mark:
- ``ruleid: CODE`` — the next line must have a finding with CODE;
- ``ok: CODE`` — the next line must have none.
For files whose comment syntax is ``#``, write ``# ruleid: CODE``.

A fixture may add targets to the default audit targets with a line
``vado-targets: hip-5.2, rocm-6.4`` in a comment (for rules about old toolchains),
and choose the wave mode with ``vado-wave: native`` (default: warp32, as ``vado port``).
``vado-amd-defines: MY_USE_HIP, LEVEL=2`` passes the rule option ``amd_defines`` (what the
project's own HIP build defines) and ``vado-amd-undefined: MY_USE_SYCL`` the option ``amd_undefined``.

``<CODE>.expected.json`` beside it is the snapshot of the findings of the
fixture's family in the file (code, line, column, severity, message, verdicts); regenerate with
``VADO_UPDATE_SNAPSHOTS=1 pytest tests/rules``.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from vado.model import to_json
from vado.rules.engine import check_bytes
from vado.scan.classify import classify

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
FAMILIES = ("API", "LIB", "PTX", "WARP", "ARCH", "DEP", "IMG", "BLD")
MARKER = re.compile(r"(?:#|//|/\*)\s*(ruleid|ok):\s*([A-Z]+[0-9]+)")
EXTRA_TARGETS = re.compile(r"(?:#|//|/\*)[ \t]*vado-targets:[ \t]*([\w.,\t -]+)")
WAVE = re.compile(r"(?:#|//|/\*)[ \t]*vado-wave:[ \t]*(\w+)")
AMD_OPTION = re.compile(r"(?:#|//|/\*)[ \t]*vado-amd-(defines|undefined):[ \t]*([\w=,\t ]+)")
#: The fixture's folder is the audited tree's root (rules that look for the tree's other files: API016).
SOURCE_ROOT = re.compile(r"(?:#|//|/\*)[ \t]*vado-source-root:[ \t]*fixture-folder")
#: The tree is a PyTorch extension (the rule option the audit and the port set for one: API018).
TORCH_EXTENSION = re.compile(r"(?:#|//|/\*)[ \t]*vado-torch-extension\b")


def fixture_files() -> list[Path]:
    out = []
    for fam in FAMILIES:
        d = FIXTURES / fam
        if d.is_dir():
            out.extend(p for p in sorted(d.iterdir()) if p.is_file() and not p.name.endswith(".expected.json")
                       and not p.name.endswith(".fixed.hip") and not p.name.startswith("."))
    return out


def kind_name(path: Path) -> str:
    """The file name as the classifier should see it: the code prefix removed."""
    name = path.name
    code, _, rest = name.partition(".")
    return rest if rest and "." in rest or rest in ("Dockerfile", "Makefile", "Containerfile") else name


def audit_targets(text: str = ""):
    from vado.knowledge.targets import default_audit_targets, get_target

    targets = list(default_audit_targets())
    m = EXTRA_TARGETS.search(text)
    if m:
        for name in (n.strip() for n in m.group(1).split(",")):
            if name and all(t.name != get_target(name).name for t in targets):
                targets.append(get_target(name))
    return tuple(targets)


def snapshot(findings) -> list[dict]:
    return [
        {
            "code": f.code,
            "line": f.span.line,
            "column": f.span.column,
            "severity": f.severity.value,
            "message": f.message,
            "verdicts": {k: v.value for k, v in sorted(f.verdicts.items())},
            "fix": None if f.fix is None else f.fix.applicability.value,
            # Only where set, so that the snapshots of files without inactive findings keep their shape.
            **({"inactive": {k: v.value for k, v in sorted(f.inactive.items())}} if f.inactive else {}),
        }
        for f in findings
    ]


def fixture_options(text: str, folder: Path | None = None) -> dict:
    """Rule options a fixture asks for in ``vado-wave:``/``vado-amd-*:``/``vado-source-root:`` comments."""
    options = {}
    if folder is not None and SOURCE_ROOT.search(text):
        options["source_root"] = str(folder)
    if TORCH_EXTENSION.search(text):
        options["torch_extension"] = True
    wave = WAVE.search(text)
    if wave:
        options["wave"] = wave.group(1)
    for m in AMD_OPTION.finditer(text):
        options[f"amd_{m.group(1)}"] = tuple(n.strip() for n in m.group(2).split(",") if n.strip())
    return options


@pytest.mark.parametrize("path", fixture_files(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_fixture(path: Path):
    data = path.read_bytes()
    name = kind_name(path)
    findings = check_bytes(name, data, audit_targets(data.decode("latin-1")), kind=classify(name),
                           options=fixture_options(data.decode("latin-1"), path.parent))
    lines = data.decode("latin-1").splitlines()
    by_line: dict[int, set[str]] = {}
    for f in findings:
        for ln in range(f.span.line, max(f.span.line, f.span.end_line) + 1):
            by_line.setdefault(ln, set()).add(f.code)
    checked = 0
    for idx, line in enumerate(lines, start=1):
        for m in MARKER.finditer(line):
            what, code = m.groups()
            target_line = idx + 1
            codes = by_line.get(target_line, set())
            if what == "ruleid":
                assert code in codes, f"{path.name}:{target_line}: expected {code}, got {sorted(codes)}"
            else:
                assert code not in codes, f"{path.name}:{target_line}: unexpected {code}"
            checked += 1
    assert checked > 0, f"{path.name} has no ruleid/ok markers"
    expected_path = path.with_name(path.name.split(".")[0] + ".expected.json")
    # The snapshot holds the fixture's own family only, so a new rule in another
    # family does not churn every snapshot; markers check codes across families.
    # The leading letters, so that variants such as ``DEP004-conda.environment.yml`` keep their family.
    family = re.match(r"[A-Z]*", path.name).group(0)
    got = snapshot([f for f in findings if f.family == family])
    if os.environ.get("VADO_UPDATE_SNAPSHOTS") or not expected_path.exists():
        expected_path.write_text(json.dumps(got, indent=2) + "\n")
    assert got == json.loads(expected_path.read_text())


def test_every_rule_has_a_fixture():
    from vado.rules.registry import all_rules

    have = {p.name.split(".")[0] for p in fixture_files()}
    missing = [r.code for r in all_rules() if r.code not in have]
    assert not missing, f"rules without fixtures: {missing}"


def test_every_rule_documents_its_sections():
    from vado.rules.base import DOC_SECTIONS
    from vado.rules.registry import all_rules

    for rule in all_rules():
        sections = rule.doc_sections()
        missing = [s for s in DOC_SECTIONS if not sections.get(s)]
        assert not missing, f"{rule.code} docstring lacks sections {missing}"
        assert rule.name and rule.name == rule.name.lower(), rule.code
        assert rule.file_kinds, f"{rule.code} reads no file kinds"
