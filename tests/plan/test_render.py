"""Plan renderers: JSON round trip, Markdown and HTML content, placement files."""

from __future__ import annotations

import json
import re

import pytest
import yaml

from vado.errors import ReportError
from vado.plan.render import load_plan_json, placement_files, render_html, render_json, render_markdown, render_text, write_outputs


def test_json_round_trip(fleet_plan):
    text = render_json(fleet_plan)
    doc = json.loads(text)
    assert doc["kind"] == "vado-plan" and doc["tool"]["name"] == "vado"
    assert [w["order"] for w in doc["workloads"]] == [1, 2, 3, 4]
    assert load_plan_json(text) == fleet_plan
    assert render_json(fleet_plan) == text


@pytest.mark.parametrize("text", ["nope", "[]", '{"kind": "vado-plan", "schema_version": "9.0"}'])
def test_bad_json_is_a_report_error(text):
    with pytest.raises(ReportError):
        load_plan_json(text)


def test_markdown(fleet_plan):
    md = render_markdown(fleet_plan)
    order = re.findall(r"^\| (\d) \| `([^`]+)` \| ([a-zA-Z ]+) \|", md, re.M)
    assert order == [("1", "partial:serve", "moves as is"), ("2", "portable", "automatic edits"),
                     ("3", "partial:kernels", "manual work"), ("4", "blocked", "stays on NVIDIA")]
    assert "`DEP001` ×1 blocks `oneapi`, `rocm-7.2`, `scale`" in md
    assert "| `portable` | now | now (scale) | after-manual-work (oneapi) | nvidia, amd |" in md


def test_html_is_self_contained(fleet_plan):
    html = render_html(fleet_plan)
    assert html.startswith("<!DOCTYPE html>") and html.endswith("</html>\n")
    assert "<script" not in html and "http://" not in html and "https://" not in html
    assert html.count("<svg") == 3  # verdicts per target, readiness per pool, effort in order
    assert "Workloads per readiness, per pool" in html


def test_text(fleet_plan):
    text = render_text(fleet_plan)
    lines = text.splitlines()
    assert lines[0] == "vado plan: 3 repositories, 4 workloads; primary target rocm-7.2"
    assert [l.split()[1] for l in lines[4:8]] == ["partial:serve", "portable", "partial:kernels", "blocked"]
    assert "  blocked: DEP001×1 (oneapi, rocm-7.2, scale), DEP005×1 (oneapi, rocm-7.2, scale)" in lines


def test_placement_files(fleet_plan, tmp_path):
    files = placement_files(fleet_plan)
    assert "k8s/portable/root/amd/job-job-saxpy.patch.yaml" in files
    assert "k8s/portable/root/amd/job-job-saxpy.yaml" in files
    assert "k8s/partial/kernels/amd/pod-template.patch.yaml" in files
    assert not any(p.startswith("k8s/blocked/root/amd") for p in files)
    patched = yaml.safe_load(files["k8s/portable/root/amd/job-job-saxpy.yaml"])
    assert patched["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"]["amd.com/gpu"] == "1"
    assert files["k8s/portable/root/amd/job-job-saxpy.yaml"].startswith("# vado plan: portable on amd\n# note: ")
    ray = json.loads(files["ray.json"])
    assert ray["portable"]["pools"] == ["nvidia", "amd"] and "any_pool" in ray["portable"]
    written = write_outputs(fleet_plan, tmp_path)
    assert {p.name for p in written} >= {"plan.md", "plan.html", "plan.json", "ray.json"}
    assert load_plan_json((tmp_path / "plan.json").read_text(encoding="utf-8")) == fleet_plan
