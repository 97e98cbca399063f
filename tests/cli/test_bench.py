"""`vado bench`: the default `run` command on a real CPU program, `kernel` without a GPU, `serve` on loopback."""

import json
import sys
from pathlib import Path

from typer.testing import CliRunner

from vado.cli.app import app

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from _servers import dying_server, sse_server  # noqa: E402

KERNELS = Path(__file__).resolve().parents[2] / "examples" / "kernels"
PROG = "import sys; print('work', 7); print('took_ms', 2.5); sys.exit(int(sys.argv[1]) if len(sys.argv) > 1 else 0)"


def _bench(*args):
    return CliRunner().invoke(app, ["bench", *args])


def test_default_command_runs_the_program_and_writes_json(tmp_path):
    out = tmp_path / "r.json"
    res = _bench("--runs", "2", "--warmup", "0", "-m", r"took_ms=took_ms ([0-9.]+)", "--label", "cpu",
                 "-f", "json", "-o", str(out), sys.executable, "-c", PROG)
    assert res.exit_code == 0, res.output
    doc = json.loads(out.read_text())
    assert doc["kind"] == "command" and doc["label"] == "cpu" and doc["runs"] == 2
    assert doc["command"][-1] == PROG and doc["metrics"]["took_ms"] == [2.5, 2.5]
    assert doc["objective"] == "took_ms" and doc["higher_is_better"] is False
    assert "2 runs, 0 failed; took_ms median 2.500" in res.stderr


def test_options_after_the_command_belong_to_it():
    # `--runs 5` after the program's name is the program's argument list, not vado's option.
    res = _bench("--runs", "1", "--warmup", "0", sys.executable, "-c", "import sys; print(sys.argv[1:])", "--runs", "5")
    assert res.exit_code == 0, res.output
    assert "runs        1 timed after 0 warm-up, 0 failed" in res.stdout


def test_explicit_run_subcommand_and_failures_exit_1():
    res = _bench("run", "-n", "2", "-w", "0", sys.executable, "-c", PROG, "3")
    assert res.exit_code == 1
    assert "2 failed" in res.stdout and "2 runs, 2 failed" in res.stderr


def test_usage_errors():
    assert _bench("-f", "pdf", "true").exit_code == 2
    assert _bench("--env", "NOVALUE", "true").exit_code == 2
    res = _bench("/nonexistent/program")
    assert res.exit_code == 2 and "cannot run" in res.stderr
    assert _bench("--help").exit_code == 0 and "kernel" in _bench("--help").stdout


def test_kernel_without_a_gpu_is_a_tool_failure_and_bad_precision_a_usage_error(monkeypatch):
    from vado.bench import environment

    monkeypatch.setattr(environment, "detect_environment", lambda: environment.Environment("h", "c", 1))
    monkeypatch.setattr("vado.bench.kernel.detect_environment", lambda: environment.Environment("h", "c", 1))
    res = _bench("kernel", str(KERNELS / "saxpy.cu"))
    assert res.exit_code == 3 and "no GPU to time the kernel on" in res.stderr
    assert _bench("kernel", str(KERNELS / "saxpy.cu"), "--precision", "fp8").exit_code == 2
    res = _bench("kernel", str(KERNELS / "warp_reduce.cu"), "--kernel", "nope", "--build-only")
    assert res.exit_code == 2 and "no __global__ kernel named 'nope'" in res.stderr


def test_serve_against_a_loopback_stream(tmp_path):
    with sse_server(["a", "b"], delays=[0.01, 0.01]) as srv:
        res = _bench("serve", "--url", srv["url"], "-c", "1,2", "-n", "2", "--warmup", "0", "-f", "html",
                     "-o", str(tmp_path / "s.html"))
    assert res.exit_code == 0, res.output
    html = (tmp_path / "s.html").read_text()
    assert "Latency percentiles vs concurrency" in html and "<svg" in html
    assert "4 requests, 0 failed" in res.stderr


def test_serve_against_a_server_that_dies_exits_3_and_keeps_the_partial_report(tmp_path):
    with dying_server(3) as url:
        res = _bench("serve", "--url", url, "-c", "1,4", "-n", "4", "--warmup", "1", "-f", "json",
                     "-o", str(tmp_path / "s.json"))
    assert res.exit_code == 3, res.output
    assert f"error: the server at {url} stopped answering at concurrency 1 after 3 answers" in res.stderr
    assert "dmesg" in res.stderr
    doc = json.loads((tmp_path / "s.json").read_text())
    assert "has probably died" in doc["stopped"] and [lv["concurrency"] for lv in doc["levels"]] == [1]


def test_serve_usage_errors():
    assert _bench("serve", "--url", "http://127.0.0.1:9", "-c", "1,x").exit_code == 2
    res = _bench("serve", "--url", "http://127.0.0.1:9", "--model", "m", "--endpoint", "embed")
    assert res.exit_code == 2
