"""Issue 18: the MCP HTTP server, compiler evidence, the agent's provider and edits as an attacker meets them."""

from __future__ import annotations

import http.server
import json
import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest

from vado.agent.parse import EditRejected, check_replacement, edits_from_answer
from vado.agent.providers import MAX_ANSWER_BYTES, Message, OpenAICompatible
from vado.errors import AgentError
from vado.verify.redact import WITHHELD, redact_diagnostics, redact_evidence

MESSAGES = [Message("user", "fix it")]


# --- MCP over HTTP ----------------------------------------------------------------------------


@pytest.mark.parametrize("host,ok", [
    ("127.0.0.1", True), ("127.0.0.2", True), ("::1", True), ("[::1]", True), ("localhost", True),
    ("127.attacker.example", False), ("127.0.0.1.nip.io", False), ("0.0.0.0", False), ("::", False),
    ("10.0.0.1", False), ("", False),
])
def test_loopback_is_parsed_not_prefix_matched(host: str, ok: bool):
    from vado.mcp.server import loopback_host

    assert loopback_host(host) is ok


def test_serve_refuses_non_loopback_before_binding(tmp_path: Path):
    from vado.errors import UsageError
    from vado.mcp.server import serve

    with pytest.raises(UsageError, match="refusing to serve"):
        serve(str(tmp_path), http=True, host="127.attacker.example")


INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.2"])
def test_http_needs_the_token_and_checks_host_and_origin(tmp_path: Path, host: str):
    pytest.importorskip("mcp")
    from starlette.testclient import TestClient

    from vado.mcp.root import Root
    from vado.mcp.server import http_app

    app = http_app(Root(tmp_path), host, "s3cret-token")
    with TestClient(app, base_url=f"http://{host}:8765") as c:
        assert c.post("/mcp", json=INIT, headers=HEADERS).status_code == 401
        assert c.post("/mcp", json=INIT, headers={**HEADERS, "authorization": "Bearer wrong"}).status_code == 401
        auth = {**HEADERS, "authorization": "Bearer s3cret-token"}
        assert c.post("/mcp", json=INIT, headers=auth).status_code == 200
        # DNS rebinding protection stays on for every loopback address, 127.0.0.2 included.
        assert c.post("/mcp", json=INIT, headers={**auth, "host": "evil.example:8765"}).status_code == 421
        assert c.post("/mcp", json=INIT, headers={**auth, "origin": "http://evil.example"}).status_code == 403


def test_token_is_new_per_start():
    from vado.mcp.server import new_token

    a, b = new_token(), new_token()
    assert a != b and len(a) >= 40


# --- compiler evidence quotes nothing outside the root ----------------------------------------


def _gxx_output(root: Path, include: str) -> str:
    src = root / "leak.cpp"
    src.write_text(f'#include "{include}"\nint ok;\n')
    proc = subprocess.run(["g++", "-fsyntax-only", src.name], cwd=root, capture_output=True, text=True)
    return proc.stderr


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    secret = tmp_path / "secret.txt"
    secret.write_text("topsecret-line:$6$hash\n")
    root = tmp_path / "root"
    root.mkdir()
    return root


def test_diagnostics_from_files_outside_root_are_withheld(outside: Path):
    import shutil

    if shutil.which("g++") is None:
        pytest.skip("g++ not installed")
    for include in ("../secret.txt", str(outside.parent / "secret.txt")):
        text = _gxx_output(outside, include)
        assert "topsecret" in text  # the compiler does quote it
        red = redact_diagnostics(text, [outside], cwd=outside)
        assert "topsecret" not in red and WITHHELD in red
        assert "leak.cpp:1" in red  # the include chain inside the root stays
    inside = outside / "inc.h"
    inside.write_text("broken-inside here\n")
    text = _gxx_output(outside, "inc.h")
    assert redact_diagnostics(text, [outside], cwd=outside) == text


def test_redact_evidence_covers_parsed_diagnostics(outside: Path):
    from vado.model import Evidence

    ev = Evidence("compile", "leak.hip", False, stderr="../secret.txt:1:1: error: unknown type name 'topsecret'\n"
                  "    1 | topsecret-line\n      | ^\n1 error generated.\n",
                  detail={"diagnostics": [{"file": "../secret.txt", "line": 1, "message": "unknown type name 'topsecret'"},
                                          {"file": "leak.hip", "line": 2, "message": "kept"}]})
    red = redact_evidence(ev, [outside], cwd=outside)
    dumped = json.dumps({"stderr": red.stderr, "detail": red.detail})
    assert "topsecret" not in dumped
    assert red.detail["diagnostics"][1]["message"] == "kept"
    assert "1 error generated." in red.stderr


def test_mcp_verify_answer_redacts(outside: Path, monkeypatch):
    from vado.mcp import tools
    from vado.mcp.root import Root
    from vado.model import Evidence

    (outside / "leak.hip").write_text('#include "../secret.txt"\n')

    def fake_compile(src, **kw):
        return Evidence("compile", src.name, False, returncode=1,
                        stderr="In file included from leak.hip:1:\n../secret.txt:1:1: error: unknown type name 'topsecret'\n"
                               "    1 | topsecret-line:$6$hash\n      | ^\n")

    monkeypatch.setattr("vado.agent.verify.compile_hip", fake_compile)
    answer = tools.verify(Root(outside), "leak.hip")
    assert "topsecret" not in json.dumps(answer)
    assert WITHHELD in json.dumps(answer)


# --- the agent's provider ------------------------------------------------------------------------


class _Server:
    def __init__(self, handler):
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def _handler(respond):
    class H(http.server.BaseHTTPRequestHandler):
        def log_message(self, *a):
            pass

        def do_POST(self):
            self.rfile.read(int(self.headers.get("content-length", 0)))
            respond(self)

    return H


def test_redirect_carrying_the_key_is_not_followed(monkeypatch):
    got = []

    def elsewhere(h):
        got.append(h.headers.get("authorization"))
        h.send_response(200)
        h.end_headers()

    other = _Server(_handler(elsewhere))

    def redirect(h):
        h.send_response(307)
        h.send_header("location", other.url + "/steal")
        h.end_headers()

    first = _Server(_handler(redirect))
    monkeypatch.setenv("VADO_T_KEY", "sk-secret")
    try:
        with pytest.raises(AgentError, match="redirect"):
            OpenAICompatible("m", first.url + "/v1", api_key_env="VADO_T_KEY").complete(MESSAGES, max_tokens=8)
        assert got == []
    finally:
        first.close()
        other.close()


def test_dripping_server_stops_at_the_deadline():
    def drip(h):
        h.send_response(200)
        h.send_header("content-length", "100000")
        h.end_headers()
        try:
            for _ in range(100000):
                h.wfile.write(b" ")
                h.wfile.flush()
                time.sleep(0.05)
        except OSError:
            pass

    s = _Server(_handler(drip))
    try:
        p = OpenAICompatible("m", s.url + "/v1", timeout_s=300)
        p.deadline = time.monotonic() + 1.5
        started = time.monotonic()
        with pytest.raises(AgentError, match="did not answer"):
            p.complete(MESSAGES, max_tokens=8)
        # The drip would last 5000 s, and each byte comes well within any per-read timeout.
        assert time.monotonic() - started < 30
    finally:
        s.close()


def test_huge_answer_is_refused():
    def huge(h):
        h.send_response(200)
        h.end_headers()
        try:
            chunk = b"x" * (1 << 20)
            for _ in range(MAX_ANSWER_BYTES // len(chunk) + 4):
                h.wfile.write(chunk)
        except OSError:
            pass

    s = _Server(_handler(huge))
    try:
        with pytest.raises(AgentError, match="larger than"):
            OpenAICompatible("m", s.url + "/v1").complete(MESSAGES, max_tokens=8)
    finally:
        s.close()


@pytest.mark.parametrize("doc", [
    {"choices": [{"message": {"content": "ok"}}], "usage": "lots"},
    {"choices": [{"message": {"content": "ok"}}], "usage": {"prompt_tokens": "12", "completion_tokens": [1]}},
    {"choices": [{"message": {"content": "ok"}}], "usage": None, "model": 7, "id": {}},
    {"choices": [{"message": {"content": "ok"}}], "usage": {"prompt_tokens": True, "completion_tokens": -5}},
])
def test_malformed_usage_is_unknown_not_a_crash(doc):
    body = json.dumps(doc).encode()

    def answer(h):
        h.send_response(200)
        h.send_header("content-length", str(len(body)))
        h.end_headers()
        h.wfile.write(body)

    s = _Server(_handler(answer))
    try:
        c = OpenAICompatible("m", s.url + "/v1").complete(MESSAGES, max_tokens=8)
        assert c.text == "ok" and c.input_tokens is None and c.output_tokens is None
        assert isinstance(c.model, str) and isinstance(c.raw["id"], str)
    finally:
        s.close()


@pytest.mark.parametrize("payload", [b"[1, 2]", b"\"text\"", b"[" * 100000])
def test_non_object_answers_are_agent_errors(payload: bytes):
    def answer(h):
        h.send_response(200)
        h.send_header("content-length", str(len(payload)))
        h.end_headers()
        h.wfile.write(payload)

    s = _Server(_handler(answer))
    try:
        with pytest.raises(AgentError):
            OpenAICompatible("m", s.url + "/v1").complete(MESSAGES, max_tokens=8)
    finally:
        s.close()


# --- the agent's edits -----------------------------------------------------------------------------


@pytest.mark.parametrize("new", [
    '#include "/etc/shadow"\n', "#include </etc/passwd>\n", '#include "../../../secret.h"\n',
    '#include_next "/etc/x"\n', '#embed "/etc/shadow"\n', '#if __has_include("/etc/shadow")\n#endif\n',
    "int a; /* \u202e } */\n", "int a\u2066;\n", "int a;\x00\n", "int\x1b a;\n",
    # through a macro, a digraph, a trigraph, a line splice, __has_embed, #pragma GCC dependency
    '#define F "/etc/shadow"\n#embed F\n', "#define H </etc/passwd>\n#include H\n", '#if __has_include(F)\n#endif\n',
    '%:include "/etc/shadow"\n', '??=embed "/etc/shadow"\n', '#inc\\\nlude "/etc/shadow"\n',
    '#if __has_embed("/etc/shadow")\n#endif\n', '#pragma GCC dependency "/etc/shadow"\n',
    '_Pragma("GCC dependency \\"/etc/shadow\\"")\n',
])
def test_edits_adding_outside_includes_or_controls_are_rejected(new: str):
    with pytest.raises(EditRejected):
        check_replacement("int a;\n", new)


@pytest.mark.parametrize("new", ['#include "util/helper.h"\n', "#include <hip/hip_runtime.h>\n", "int a;\tint b;\r\n",
                                 '#define X 1 \\\n + 2\n', "int dependency = 3;\n"])
def test_ordinary_edits_pass(new: str):
    check_replacement("int a;\n", new)


def test_kept_include_is_not_an_addition():
    check_replacement('#include "../common.h"\nint a;\n', '#include "../common.h"\nint b;\n')


def test_edits_from_answer_rejects_outside_include():
    text = "int a;\nint b;\n"
    answer = '<<<<<<< SEARCH\nint a;\n=======\n#include "/etc/shadow"\nint a;\n>>>>>>> REPLACE\n'
    with pytest.raises(EditRejected, match="outside the project"):
        edits_from_answer(answer, "k.cu", text, (0, len(text)))


def test_cli_prints_the_token_unwrapped(tmp_path: Path, monkeypatch):
    from typer.testing import CliRunner

    import vado.mcp.server as server
    from vado.cli.app import app

    seen = {}

    def fake_serve(root, *, http, host, port, on_start=None, **kw):
        seen["host"] = host
        on_start(f"http://{host}:{port}/mcp", "T" * 60)

    monkeypatch.setattr(server, "serve", fake_serve)
    r = CliRunner().invoke(app, ["mcp", "--root", str(tmp_path), "--http", "--host", "127.0.0.2"])
    assert r.exit_code == 0, r.output
    assert f"Authorization: Bearer {'T' * 60}" in r.output.replace("\n", " ")
    assert seen["host"] == "127.0.0.2"
