"""`vado mcp --http` against a local user without the token: half-open connections past the
descriptor limit, a request that never finishes, and sessions left open (loopback only, bounded)."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("mcp")
pytest.importorskip("uvicorn")

SRC = str(Path(__file__).resolve().parents[2] / "src")

SERVER = """
import resource, sys
sys.path.insert(0, {src!r})
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, ({nofile}, hard))
from vado.mcp.httpguard import serve_app
from vado.mcp.root import Root
from vado.mcp.server import http_app
app = http_app(Root({root!r}), "127.0.0.1", "tok", session_idle_timeout_s={idle}, max_sessions={sessions})
serve_app(app, "127.0.0.1", {port}, request_timeout_s={timeout})
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def server(tmp_path):
    procs = []

    def start(*, nofile=128, idle=600.0, sessions=32, timeout=10.0):
        port = _free_port()
        code = SERVER.format(src=SRC, root=str(tmp_path), nofile=nofile, idle=idle, sessions=sessions,
                             port=port, timeout=timeout)
        # Output to a file: an undrained pipe would block the server once its log fills the pipe's buffer.
        log = open(tmp_path / f"server-{port}.log", "w+b")
        proc = subprocess.Popen([sys.executable, "-c", code], stdout=log, stderr=subprocess.STDOUT)
        proc.log = log
        procs.append(proc)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                return proc, port
            except OSError:
                assert proc.poll() is None, _log(proc)[-2000:]
                time.sleep(0.1)
        raise AssertionError("the server did not start")

    yield start
    for proc in procs:
        proc.kill()
        proc.wait()
        proc.log.close()


def _log(proc) -> str:
    proc.log.flush()
    proc.log.seek(0)
    return proc.log.read().decode("utf-8", "replace")


def _initialize(port: int, session: str | None = None) -> tuple[int, str | None]:
    body = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
    if session:
        body = {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}
    headers = {"Authorization": "Bearer tok", "Content-Type": "application/json",
               "Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-06-18"}
    if session:
        headers["Mcp-Session-Id"] = session
    req = urllib.request.Request(f"http://127.0.0.1:{port}/mcp", data=json.dumps(body).encode(), headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=20) as resp:
            resp.read()
            return resp.status, resp.headers.get("mcp-session-id")
    except urllib.error.HTTPError as exc:
        return exc.code, None


def test_half_open_connections_past_the_fd_limit_do_not_end_the_server(server):
    proc, port = server(nofile=128)
    socks = []
    try:
        for _ in range(300):  # more than the server's 128 descriptors, bounded
            try:
                s = socket.create_connection(("127.0.0.1", port), timeout=2)
                s.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # a head never finished, no token
                socks.append(s)
            except OSError:
                pass
        time.sleep(2)
        assert proc.poll() is None, _log(proc)[-3000:]
    finally:
        for s in socks:
            s.close()
    time.sleep(1)
    status, session = _initialize(port)
    assert status == 200 and session and proc.poll() is None
    proc.kill()
    proc.wait()
    err = _log(proc)
    assert "Traceback" not in err, err[-3000:]


@pytest.mark.parametrize("sent", [
    b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n",  # half a head, no token
    b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer tok\r\nContent-Type: application/json\r\n"
    b"Accept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n{",  # a body never completed
], ids=["head", "body"])
def test_a_request_that_never_finishes_is_dropped(server, sent):
    proc, port = server(timeout=1.0)
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(sent)
    started = time.monotonic()
    try:
        data = s.recv(100)
    except (ConnectionResetError, TimeoutError):
        data = b""
    assert data == b"" and time.monotonic() - started < 8  # closed by the server, not by our timeout
    s.close()
    assert proc.poll() is None


def test_sessions_expire_and_are_capped(server):
    proc, port = server(idle=1.0, sessions=2)
    first = _initialize(port)
    second = _initialize(port)
    assert first[0] == 200 and second[0] == 200 and first[1] != second[1]
    assert _initialize(port)[0] >= 400  # a third is refused while two are open
    time.sleep(3)
    assert _initialize(port, session=first[1])[0] == 404  # expired: its memory is gone
    assert _initialize(port)[0] == 200  # room for a new one
