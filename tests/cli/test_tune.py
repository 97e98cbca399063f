"""`vado tune` over a real compiled C program's -D parameter."""

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from vado.cli.app import app

PROGRAM = r"""
#include <stdio.h>
int main(void) {
  long s = 0;
  for (long i = 0; i < 1000; i += STEP) s += (STEP == 3) ? 2 * i : i;  /* STEP=3 computes something else */
  printf("sum %ld\n", STEP == 3 ? 0 : 499500L);
  printf("score %d\n", STEP * 10);
  return 0;
}
"""


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler (cc)")
def test_tune_cli_rejects_the_configuration_that_changes_results(tmp_path):
    src = tmp_path / "p.c"
    src.write_text(PROGRAM)
    out = tmp_path / "t.json"
    res = CliRunner().invoke(app, [
        "tune", "--build", f"cc -O1 {{DEFINES}} {src} -o {{bin}}", "--run", "{bin}", "--param", "STEP=1,3,2",
        "--metric", r"score=score (\d+)", "--higher-is-better", "--runs", "1", "--warmup", "0",
        "-f", "json", "-o", str(out)])
    assert res.exit_code == 0, res.output
    doc = json.loads(out.read_text())
    assert doc["kind"] == "tune" and doc["objective"] == "score" and doc["higher_is_better"] is True
    outcomes = {t["config"]["STEP"]: t["accepted"] for t in doc["trials"]}
    assert outcomes == {"1": True, "3": False, "2": True}
    assert doc["best"]["config"] == {"STEP": "2"} and doc["gain_pct"] == 100.0
    assert "3 configurations, 1 rejected; best STEP=2: score 20.00 (+100.00% vs baseline)" in " ".join(res.stderr.split())
    text = CliRunner().invoke(app, ["report", str(out)]).stdout
    assert "rejected: results differ from the baseline's" in text


def test_tune_cli_usage_errors():
    r = CliRunner()
    assert r.invoke(app, ["tune", "--run", "true"]).exit_code == 2  # no parameters
    assert r.invoke(app, ["tune", "--run", "true {X}", "-p", "X=1", "--strategy", "anneal"]).exit_code == 2
    res = r.invoke(app, ["tune", "--run", "true {Y}", "-p", "X=1"])
    assert res.exit_code == 2 and "placeholder {Y}" in res.stderr
