#!/bin/bash
# The GPU half of benchmarks/torch_ext_device.py, in one device call. The work directory made here by
#   python3 benchmarks/torch_ext_device.py prepare --work .gpu-torch
# (the sdists of benchmarks/torch_ext/packages.json unpacked under /work/repos/pypi, vado's ports under
# /work/repos/pypi-port) travels with the tree: run(command="bash benchmarks/torch_ext_device.sh",
# carry=[".gpu-torch"]). Builds each package's original and its port (HIP on CUDA, wave64 emulated)
# for sm_90, calls every op with seeded inputs, compares; $OUT/torch_ext_results.json and a table.
# Arguments after the script's own go to `torch_ext_device.py run` (the last of a repeated option wins:
# --work, --config, --packages, --build, --reuse, --only ...). Environment: TE_LIMIT (seconds for the whole
# run, default 560), TE_JOBS (16), TE_ARCH (sm_90), TE_TU_TIMEOUT (seconds a TU, 420).
#
# The unseen packages (issue 29: benchmarks/torch_ext/unseen_packages.json, all but mamba_ssm's device_skip):
# torchsort 0.1.10, chamferdist 1.0.3, warp_rnnt 0.7.0, nerfacc 0.5.3, inplace-abn 1.1.0,
# pytorch-fast-transformers 0.4.0, torch_sparse 0.6.18: 59 TUs (22 .cu original, 22 .cu port, 15 host .cpp the
# port leaves as they are, compiled once), 28 libraries (fast-transformers: one per module and build), 180 cases
# (calls/*.py; benchmarks/torch_ext/unseen_calls.md says what each calls and how it was checked here).
# Before the session, in the checkout the session's device calls send (the lead's, after merging: a device
# call carries only that checkout's paths):
#   python3 benchmarks/torch_ext_device.py prepare --config benchmarks/torch_ext/unseen_packages.json \
#       --pypi /work/repos/pypi2 --ports /work/repos/pypi2-port3 --work .gpu-torch2     # 4.7 MiB
# (the ports are vado's of the day they were made: rm -r /work/repos/pypi2-port3 first to port again).
# Measured here (run --compile-only --torch-include: nvcc 13.0, sm_90, torch 2.13.0 CPU wheel headers with the
# CUDA library headers it names stubbed, one TU at a time under nice 10 on 2 CPU cores shared with other jobs):
# all 59 TUs compile: the 22 port .cu through the prelude and the wave64 layer, 50-310 s each (2,550 s in all;
# the longest fast_transformers' clustered_sparse_product_cuda.cu 310 s, torch_sparse's spmm_cuda.cu 274 s),
# the 22 original .cu 1-161 s (884 s in all, a less loaded hour), the 15 host .cpp 5-35 s (273 s; add
# --torch-include /usr/local/cuda/include for them). On the GPU host (16 jobs) expect the 59 TUs in about
# 4-8 minutes (a TU there about a third to half of its time here), the links and the 14 call processes in 1-3.
# The device session (30 device-minutes; a call runs at most 10 minutes, so the job is started detached and
# waited for; the calls after the first must NOT carry .gpu-torch2: a carried path replaces the one the job is
# building from):
#   1. run(command="bash benchmarks/device_session.sh start torch2 -- env TE_LIMIT=1500 bash benchmarks/torch_ext_device.sh --config benchmarks/torch_ext/unseen_packages.json --work .gpu-torch2 --build /tmp/te-build2 --reuse; bash benchmarks/device_session.sh wait 540", carry=[".gpu-torch2"], timeout_s=600)
#   2. while its state is "running": run(command="bash benchmarks/device_session.sh wait 540", timeout_s=600)
#      ("lost": start it again as in 1, without carry: --reuse keeps the objects already compiled)
#   3. run(command="bash benchmarks/device_session.sh collect", timeout_s=120): $OUT/torch2.tar.gz holds
#      out/torch_ext_results.json (per package: built/ran, each call's match/close/differ/error), out/run.txt
#      (the table), out/torch_ext_outputs.tar (each build's saved outputs) and the log.
set -u
export PATH=$PATH:/usr/local/cuda/bin
OUT=${OUT:-/tmp/torch-ext-out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$OUT/gpu.txt" 2>&1
PYTHONPATH=src timeout "${TE_LIMIT:-560}" python3 benchmarks/torch_ext_device.py run --work .gpu-torch --out "$OUT" \
  --jobs "${TE_JOBS:-16}" --arch "${TE_ARCH:-sm_90}" --tu-timeout "${TE_TU_TIMEOUT:-420}" "$@" 2>&1 | tee "$OUT/run.txt"
