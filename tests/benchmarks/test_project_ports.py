"""The project-port benchmark's comparison logic on tests/fixtures/PROJECTS/own-hip (no GPU, no hipcc)."""

from __future__ import annotations

import argparse
import importlib.util
import shutil
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "PROJECTS" / "own-hip"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


pp = _load("project_ports")


def test_out_of_scope_names_each_kind_of_left_out_path():
    paths, ps = pp.out_of_scope(FIXTURE)
    assert paths["dependencies"] == "vendored"
    assert paths["modules/tinylib"] == "vendored"
    assert paths["tools/cutlass-copy"] == "vendored"
    assert paths["src/mb-sycl/sycl-ops.cpp"] == "other-backend"
    assert paths["src/mb-cpu/arch/riscv/quants.c"] == "other-backend"
    assert paths["src/mb-cuda/kernel.cu"] == "own-hip-path"
    assert paths["src/mb-cuda/vendors/hip.h"] == "own-hip-path"
    assert "src/mb-common.c" not in paths  # the project's own C file is in scope
    assert ps.own_rocm_build().startswith("cmake -DMB_HIP=ON")


def test_compare_left_out_finds_changed_and_missing_files(tmp_path):
    out = tmp_path / "out"
    shutil.copytree(FIXTURE, out)
    paths, _ = pp.out_of_scope(FIXTURE)
    same = pp.compare_left_out(FIXTURE, out, paths)
    assert same["identical"] and same["differ"] == []
    assert same["files_checked"]["vendored"] == 4  # fmt's two files, tiny.cu, cutlass.h
    # a change to a vendored file and a lost backend file are both caught, by reason
    (out / "dependencies/fmt/src/format.cc").write_bytes(b"// changed\n")
    (out / "src/mb-sycl/sycl-ops.cpp").unlink()
    # a change to a project file is not a left-out difference
    (out / "src/mb-common.c").write_bytes(b"int x;\n")
    got = pp.compare_left_out(FIXTURE, out, paths)
    assert not got["identical"]
    assert sorted((d["path"], d["why"], d["problem"]) for d in got["differ"]) == [
        ("dependencies/fmt/src/format.cc", "vendored", "bytes differ"),
        ("src/mb-sycl/sycl-ops.cpp", "other-backend", "missing in OUT"),
    ]


def test_summaries_of_audit_and_port_json():
    audit = {
        "verdicts": [{"target": "rocm-7.2", "verdict": "needs-manual-work", "reason": "r"}],
        "findings": [
            {"code": "API004", "verdicts": {"rocm-7.2": "moves-as-is"}, "inactive": {}},
            {"code": "ARCH007", "verdicts": {"rocm-7.2": "needs-manual-work"}, "inactive": {}},
            {"code": "WARP002", "verdicts": {"rocm-7.2": "needs-manual-work"}, "inactive": {"rocm-7.2": "x"}},
        ],
        "skips": [{"reason": "vendored"}, {"reason": "vendored"}, {"reason": "other-backend"}],
        "stats": {"files_scanned": 3},
    }
    s = pp.summarize_audit(audit)
    assert s["verdicts"] == {"rocm-7.2": "needs-manual-work"}
    assert (s["findings_active"], s["findings_inactive"]) == (2, 1)
    assert s["rocm_manual_codes"] == {"ARCH007": 1}  # the inactive one decides nothing
    assert s["skips"] == {"vendored": 2, "other-backend": 1}
    port = {"files": [{"status": "ported"}, {"status": "unchanged"}, {"status": "ported"}],
            "remaining": [{"code": "ARCH007"}], "errors": [], "own_rocm_build": ""}
    assert pp.summarize_port(port) == {"files": {"ported": 2, "unchanged": 1}, "remaining": {"ARCH007": 1},
                                       "errors": 0, "own_rocm_build": ""}


def test_measure_end_to_end_through_the_cli_without_a_compiler(tmp_path):
    args = argparse.Namespace(jobs=1, timeout=120, sample=0, hipcc="/nonexistent/hipcc", arch="gfx942",
                              verify=False)
    res = pp.measure(FIXTURE, tmp_path, args, {"own-hip": "fixture"})
    assert res["commit"] == "fixture"
    assert res["audit"]["rc"] == 0 and res["audit"]["verdicts"]["rocm-7.2"] == "moves-as-is"
    assert res["audit"]["findings_inactive"] >= 1  # the fixture's branch the HIP build switches off
    assert res["port"]["rc"] == 0 and res["port"]["own_rocm_build"]
    assert res["left_out"]["identical"], res["left_out"]["differ"]
    assert sum(res["left_out"]["files_checked"].values()) == 17
    assert res["own_build"]["how"] and res["own_build"]["sample"] == []
    assert res["verify"] == {"ran": False}
    assert "own-hip" in pp.table([res])


def test_sample_units_spreads_over_the_sorted_units():
    units = [f"d{i // 10}/u{i % 10}.cu" for i in range(30)]
    got = pp.sample_units(list(reversed(units)), 3)
    assert got == ["d0/u0.cu", "d1/u0.cu", "d2/u0.cu"]
    assert pp.sample_units(["b.cu", "a.cu"], 6) == ["a.cu", "b.cu"]


def test_summarize_verify_reads_compile_evidence():
    data = {"passed": False, "build": {"reader": "guess"}, "error_groups": [{"k": 1}],
            "evidence": [{"kind": "compile", "passed": True}, {"kind": "compile", "passed": False},
                         {"kind": "run", "passed": True}]}
    assert pp.summarize_verify(data) == {"ran": True, "passed": False, "compiled": 1, "failed": 1,
                                         "reader": "guess", "error_groups": 1}
    assert pp.summarize_verify({**data, "disagreements": 0})["disagreements"] == 0
    assert pp.summarize_verify(None) == {"ran": False}


def test_verify_agreement_compares_each_unit_and_names_findings(tmp_path):
    import json
    import sys

    tree = tmp_path / "t"
    report = {"evidence": [{"kind": "compile", "subject": "a.cu", "passed": True},
                           {"kind": "compile", "subject": "b.cu", "passed": False},
                           {"kind": "compile", "subject": "c.cu", "passed": True}],
              "error_groups": [{"file": "b.cu", "line": 3, "message": "m", "code": "API011", "units": ["b.cu"]},
                               {"file": "b.cu", "line": 9, "message": "n", "code": "", "units": ["b.cu"]}]}
    cmd = [sys.executable, "-c", f"print({json.dumps(json.dumps(report))})"]
    build = {str(tree / "a.cu"): True, str(tree / "b.cu"): False, str(tree / "c.cu"): False, str(tree / "d.cu"): True}
    got = pp.verify_agreement(tree, build, cmd, 60, link_only={str(tree / "c.cu")})
    assert got["ran"] and got["units"] == 4 and got["build_pass"] == 2 and got["verify_pass"] == 2
    # c.cu fails the build only at its link step: verify's pass agrees; d.cu was never compiled by verify.
    assert got["disagreements"] == [{"tu": "d.cu", "build": True, "verify": "not compiled"}]
    assert got["errors_without_finding"] == 1 and got["errors"][0]["finding"] == "API011"


def test_db_outputs_reads_each_units_object(tmp_path):
    import json

    db = tmp_path / "compile_commands.json"
    db.write_text(json.dumps([
        {"directory": str(tmp_path / "b"), "file": "../s/k.cu", "command": "hipcc -c ../s/k.cu -o CMakeFiles/k.o"},
        {"directory": str(tmp_path / "b"), "file": str(tmp_path / "s/h.cpp"), "arguments": ["c++", "-c", "x"],
         "output": "h.o"}]))
    assert pp._db_outputs(db) == {str(tmp_path / "s/k.cu"): str(tmp_path / "b/CMakeFiles/k.o"),
                                  str(tmp_path / "s/h.cpp"): str(tmp_path / "b/h.o")}
