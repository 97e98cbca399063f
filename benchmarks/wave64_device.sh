#!/bin/bash
# The GPU half of benchmarks/wave64_differential.py, in one device call (the work directory made by
# `wave64_differential.py prepare --work .gpu-work` travels with the tree):
#   - the emulation's own checks (tests/fixtures/verify/wave64_checks.hip: AMD wave64 semantics, expected
#     outputs written out by hand), tests/verify/test_hip_on_cuda.py, test_cg_emulation.py (HIP's cooperative groups on the emulated wave, on the GPU), tests/port/test_half_math.py and
#     test_half_casts.py (vado's half and bfloat16 helpers against CUDA's own, bit for bit), in the background;
#   - the differential run (original vs vado's port vs hipify-perl's, --wave 64) of the programs named
#     in "$@" (wave64_differential.py run arguments, e.g. --programs a,b,c).
# Results land in $OUT: wave64_results.json, checks.txt, pytest.txt.
# The programs of benchmarks/wave64_programs.json (cuda-samples, CUDALibrarySamples; work directory made by
# `wave64_samples.py prepare --work .gpu-samples`): bash benchmarks/wave64_device.sh --work .gpu-samples
# A session with an H200 (30 device-minutes: calls of at most 10 minutes), prepared on the CPU machine first
# (sizes on 2026-12-05: .gpu-work 16.0 MiB, .gpu-samples 11.8 MiB, the tracked tree 7.0 MiB; carry limit 64 MiB):
#   python3 benchmarks/wave64_differential.py prepare --hecbench /work/repos/HeCBench/src \
#       --hipify /work/repos/HIPIFY/bin/hipify-perl --work .gpu-work --seed 15 --count 38
#   python3 benchmarks/wave64_samples.py prepare --work .gpu-samples
#   call 1 (carry .gpu-work): W64_LIMIT=500 bash benchmarks/wave64_device.sh --args bscan=10
#   call 2 (carry .gpu-work): W64_CHECKS=0 W64_LIMIT=500 bash benchmarks/wave64_device.sh --args bscan=10 \
#       --programs NAMES-NOT-REACHED-IN-CALL-1
#   call 3 (carry .gpu-samples): W64_CHECKS=0 W64_LIMIT=500 bash benchmarks/wave64_device.sh --work .gpu-samples
#   then: python3 benchmarks/wave64_differential.py report RUN1.json RUN2.json RUN3.json
# W64_CHECKS=0 leaves the checks and pytest out (a later call of the same session, which ran them already).
set -u
export PATH=$PATH:/usr/local/cuda/bin
OUT=${OUT:-/tmp/wave64-out}
mkdir -p "$OUT"
if [ "${W64_CHECKS:-1}" = 0 ]; then
  echo "checks left out (W64_CHECKS=0)" > "$OUT/checks.txt"
  echo "pytest left out (W64_CHECKS=0)" > "$OUT/pytest.txt"
else
(
  # The checks' kernels marked as vado marks a port's (the emulation counts lanes that leave a kernel).
  PYTHONPATH=src python3 -c "from pathlib import Path; from vado.verify import hip_on_cuda as h; h.write_include_dir(Path('/tmp/vado-inc64'), 64); h.mark_file_exits('tests/fixtures/verify/wave64_checks.hip', '/tmp/vado-w64-checks.hip')"
  nvcc -x cu -O2 -I/tmp/vado-inc64 -std=c++17 -arch=native -o /tmp/vado-w64-checks /tmp/vado-w64-checks.hip > "$OUT/checks-build.txt" 2>&1
  { timeout 120 /tmp/vado-w64-checks; echo "all rc=$?"
    timeout 60 /tmp/vado-w64-checks big; echo "big rc=$?"
    timeout 15 /tmp/vado-w64-checks diverge; echo "diverge rc=$? (124 = timed out, as expected)"; } > "$OUT/checks.txt" 2>&1
  if python3 -m pytest --version > /dev/null 2>&1; then
    PYTHONPATH=src timeout 300 python3 -m pytest -q -p no:cacheprovider tests/verify/test_hip_on_cuda.py tests/verify/test_cg_emulation.py tests/port/test_half_math.py tests/port/test_half_casts.py > "$OUT/pytest.txt" 2>&1
  else
    echo "pytest is not installed here" > "$OUT/pytest.txt"
  fi
) &
fi
PYTHONPATH=src timeout "${W64_LIMIT:-530}" python3 benchmarks/wave64_differential.py run --work .gpu-work --out "$OUT" --jobs "${W64_JOBS:-14}" \
  --parallel-runs 6 --timeout "${W64_TIMEOUT:-60}" --deadline "${W64_DEADLINE:-420}" "$@"
wait
tail -30 "$OUT/checks.txt"
tail -3 "$OUT/pytest.txt"
