#!/bin/bash
# The GPU half of benchmarks/torch_ext_device.py, in one device call. The work directory made here by
#   python3 benchmarks/torch_ext_device.py prepare --work .gpu-torch
# (the sdists of benchmarks/torch_ext/packages.json unpacked under /work/repos/pypi, vado's ports under
# /work/repos/pypi-port) travels with the tree: run(command="bash benchmarks/torch_ext_device.sh",
# carry=[".gpu-torch"]). Builds each package's original and its port (HIP on CUDA, wave64 emulated)
# for sm_90, calls every op with seeded inputs, compares; $OUT/torch_ext_results.json and a table.
set -u
export PATH=$PATH:/usr/local/cuda/bin
OUT=${OUT:-/tmp/torch-ext-out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$OUT/gpu.txt" 2>&1
PYTHONPATH=src timeout "${TE_LIMIT:-560}" python3 benchmarks/torch_ext_device.py run --work .gpu-torch --out "$OUT" \
  --jobs "${TE_JOBS:-16}" --arch "${TE_ARCH:-sm_90}" --tu-timeout "${TE_TU_TIMEOUT:-420}" "$@" 2>&1 | tee "$OUT/run.txt"
