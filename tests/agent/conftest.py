"""Fixtures of the agent tests."""

from __future__ import annotations

import json
import shutil
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from agent_helpers import FIXTURES, tree_digest


@pytest.fixture
def user_tree(tmp_path):
    """A copy of the fixtures as the user's tree, and its digest before the run."""
    root = tmp_path / "user"
    shutil.copytree(FIXTURES, root)
    return root, tree_digest(root)


@pytest.fixture
def stub():
    """A loopback HTTP server: ``answers[path]`` is (status, body); ``requests`` records (path, headers, body)."""
    state = {"answers": {}, "requests": []}

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 (http.server's naming)
            body = json.loads(self.rfile.read(int(self.headers["content-length"])))
            state["requests"].append((self.path, {k.lower(): v for k, v in self.headers.items()}, body))
            status, answer = state["answers"].get(self.path, (404, {"error": "no such route"}))
            data = json.dumps(answer).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state["url"] = f"http://127.0.0.1:{server.server_address[1]}"
    yield state
    server.shutdown()
    server.server_close()
