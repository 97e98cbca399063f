"""``vado plan``: exact text output, the output directory, manifests, the cache, and exit codes."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from vado.cli.app import app

FLEET = Path(__file__).resolve().parents[1] / "fixtures" / "fleet"

EXPECTED = """\
vado plan: 3 repositories, 4 workloads; primary target rocm-7.2

Migration order (cheapest wins first)
#  workload         wave             rocm-7.2                    hours  nvidia  amd
1  partial:serve    moves as is      moves as is                     0  now     now (rocm-7.2)
2  portable         automatic edits  moves with automatic edits    0.5  now     after-port (rocm-7.2)
3  partial:kernels  manual work      needs manual work             0.5  now     after-manual-work (rocm-7.2)
4  blocked          stays on NVIDIA  blocked                        40  now     no (rocm-7.2)

Blockers
  blocked: DEP001×1 (rocm-7.2), DEP005×1 (rocm-7.2)
"""


def _run(*args):
    return CliRunner().invoke(app, ["plan", *args])


def _repos():
    return [str(FLEET / r) for r in ("portable", "partial", "blocked")]


def test_text_output(tmp_path):
    res = _run(*_repos(), "-t", "rocm-7.2", "--cache-dir", str(tmp_path), "-q")
    assert res.exit_code == 0, res.output
    assert res.stdout == EXPECTED


def test_output_directory_and_cache(tmp_path):
    out = tmp_path / "out"
    cache = tmp_path / "cache"
    first = _run(*_repos(), "-t", "rocm-7.2", "--cache-dir", str(cache), "-o", str(out), "-f", "json")
    assert first.exit_code == 0, first.output
    doc = json.loads(first.stdout)
    assert doc["stats"]["repos_cached"] == 0 and doc["stats"]["files_rescanned"] == 8
    assert "planned 3 repositories (0 from the cache, 0 failed), 4 workloads, 8 files (8 rescanned)" in first.stderr
    assert f"files written to {out}" in first.stderr.replace("\n", "")
    for name in ("plan.md", "plan.html", "plan.json", "ray.json", "k8s/portable/root/amd/job-job-saxpy.patch.yaml"):
        assert (out / name).is_file(), name
    again = _run(*_repos(), "-t", "rocm-7.2", "--cache-dir", str(cache), "-f", "json", "-q")
    doc2 = json.loads(again.stdout)
    assert doc2["stats"]["repos_cached"] == 3 and doc2["stats"]["files_rescanned"] == 0
    order = lambda d: [(w["repo"], w["path"], w["order"]) for w in d["workloads"]]
    assert order(doc2) == order(doc)


def test_manifest(tmp_path):
    m = tmp_path / "fleet.yaml"
    m.write_text(f"targets: [rocm-7.2]\nrepos:\n- {{path: {FLEET / 'portable'}}}\n- {{path: {FLEET / 'blocked'}}}\n",
                 encoding="utf-8")
    res = _run("--manifest", str(m), "--no-cache", "-f", "markdown", "-q")
    assert res.exit_code == 0, res.output
    assert res.stdout.startswith("# vado migration plan\n")
    assert "| 1 | `portable` | automatic edits | moves with automatic edits | 0.5 |" in res.stdout


def test_usage_errors(tmp_path):
    res = _run()
    assert res.exit_code == 2 and "error: no repositories to plan" in res.stderr
    res = _run(str(FLEET / "portable"), "--manifest", str(tmp_path / "f.yaml"))
    assert res.exit_code == 2 and "not both" in res.stderr
    res = _run(str(FLEET / "portable"), "-f", "pdf")
    # The choices are Typer's (help lists them); its message sits in a box.
    assert res.exit_code == 2 and "'pdf' is not one of 'text', 'json', 'markdown', 'html'" in " ".join(
        w for w in res.stderr.split() if w != "│")
    res = _run(str(FLEET / "portable"), "--executor", "dask", "--no-cache")
    assert res.exit_code == 2 and "unknown executor 'dask'" in res.stderr
    res = _run(str(FLEET / "portable"), "-t", "rocm-7.2", "--primary", "oneapi", "--no-cache")
    assert res.exit_code == 2 and "primary target oneapi" in res.stderr


def test_a_failed_repository_exits_3(tmp_path):
    res = _run(str(FLEET / "portable"), str(tmp_path / "gone"), "-t", "rocm-7.2", "--no-cache", "-q")
    assert res.exit_code == 3
    assert "Failed repositories\n  gone: repository gone is not a directory" in res.stdout
    assert "error: gone: repository gone is not a directory" in res.stderr
