"""`vado report`: bench, kernel, serve and tune JSON fixtures rendered and compared, snapshot-tested."""

import json
import os
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from typer.testing import CliRunner

from vado.cli.app import app

FIX = Path(__file__).parent / "fixtures" / "report"
SNAPSHOTS = Path(__file__).parent / "snapshots"


def _check(name: str, text: str) -> None:
    path = SNAPSHOTS / name
    if os.environ.get("VADO_UPDATE_SNAPSHOTS"):
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")


def _report(*args):
    res = CliRunner().invoke(app, ["report", *args])
    return res


@pytest.mark.parametrize("name,files,fmt", [
    ("report_bench.txt", ["bench_cpu.json"], "text"),
    ("report_kernel.md", ["kernel_h200.json"], "markdown"),
    ("report_kernel_compare.txt", ["kernel_compare.json"], "text"),
    ("report_devices.txt", ["kernel_h200.json", "kernel_mi300x.json"], "text"),
    ("report_serve.txt", ["serve.json"], "text"),
    ("report_serve_compare.md", ["serve.json", "serve_fast.json"], "markdown"),
    ("report_tune.txt", ["tune.json"], "text"),
    ("report_tune.html", ["tune.json"], "html"),
    ("report_serve.html", ["serve.json"], "html"),
    ("report_mixed.txt", ["bench_cpu.json", "tune.json"], "text"),
])
def test_report_snapshots(name, files, fmt):
    res = _report(*(str(FIX / f) for f in files), "--format", fmt)
    assert res.exit_code == 0, res.output
    _check(name, res.stdout)


@pytest.mark.parametrize("name", ["report_tune.html", "report_serve.html"])
def test_html_is_well_formed_with_inline_svg(name):
    text = (SNAPSHOTS / name).read_text()
    body = text.split("\n", 1)[1]  # after <!DOCTYPE html>
    root = ET.fromstring(body.replace("<meta charset=\"utf-8\">", "<meta charset=\"utf-8\"/>"))
    svgs = root.findall(".//{http://www.w3.org/2000/svg}svg")
    assert svgs and "<script" not in text
    if name == "report_serve.html":
        assert len(svgs) == 2 and text.count("<polyline") >= 5  # 5 latency series + throughput


def test_json_round_trip_and_comparison_data(tmp_path):
    res = _report(str(FIX / "tune.json"), "--format", "json")
    assert res.exit_code == 0
    assert json.loads(res.stdout)["best"]["config"] == {"BLOCK": "64"}
    res = _report(str(FIX / "kernel_h200.json"), str(FIX / "kernel_mi300x.json"), "-f", "json", "-o", str(tmp_path / "c.json"))
    assert res.exit_code == 0
    data = json.loads((tmp_path / "c.json").read_text())
    assert data["kind"] == "comparison" and data["devices"] == ["NVIDIA H200", "AMD Instinct MI300X"]
    assert data["ratios"]["kernel_ms"][1] == pytest.approx(0.8) and data["better"][0] == pytest.approx(1.25)


def test_audit_reports_are_delegated(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "k.cu").write_text("__global__ void k(float* a) { a[threadIdx.x] = __shfl_sync(0xffffffff, 1.0f, 0); }\n")
    out = tmp_path / "audit.json"
    CliRunner().invoke(app, ["audit", str(src), "-f", "json", "-o", str(out)])
    res = _report(str(out), "--format", "markdown")
    assert res.exit_code == 0, res.output
    from vado.report import load_audit_json, render

    assert res.stdout == render(load_audit_json(out.read_bytes()), "markdown")


def test_bad_inputs(tmp_path):
    bad = tmp_path / "x.json"
    bad.write_text('{"hello": 1}')
    res = _report(str(bad))
    assert res.exit_code == 2 and "no vado audit, bench, serve or tune result" in " ".join(res.stderr.split())
    bad.write_text("not json")
    assert _report(str(bad)).exit_code == 2
    assert _report(str(FIX / "tune.json"), "--format", "sarif").exit_code == 2
    assert _report(str(tmp_path / "missing.json")).exit_code == 2
