#!/bin/bash
# The GPU work of issues 26 (wave64) and 29 (PyTorch extensions) for one device session, started detached on the
# warm machine (benchmarks/device_session.sh) so that builds longer than one call (causal-conv1d's backward TU takes
# 208 s of CPU for the original and 371 s, 5.6 GB, for the port through the wave64 layer on the CPU machine; on the
# GPU machine, 16 compiles at once, it ran past 420 s in the session of 2026-12-05) go on
# between calls. Prepared here first (all four fit one carry: 41.4 MiB, about 50 with the tracked tree):
#   python3 benchmarks/wave64_differential.py prepare --hecbench /work/repos/HeCBench/src \
#       --hipify /work/repos/HIPIFY/bin/hipify-perl --work .gpu-work --seed 15 --count 38
# (gpu_batch_samples.txt: the 27 list programs the keyed meeting and the coalesced-group change can affect, and the
#  14 programs new to the list on 2026-12-05 that no finding stops: cuda-training-series, CoffeeBeforeArch, code-samples)
#   python3 benchmarks/wave64_samples.py prepare --work .gpu-samples41 --programs "$(cat benchmarks/gpu_batch_samples.txt)"
#   python3 benchmarks/torch_ext_device.py prepare --work .gpu-torch --ports /work/repos/pypi-port5  (a ports dir made
#       with today's vado: prepare ports only packages whose port is missing there)
#   python3 benchmarks/torch_ext_device.py prepare --config benchmarks/torch_ext/unseen_packages.json \
#       --pypi /work/repos/pypi2 --ports /work/repos/pypi2-port3 --work .gpu-torch2
# The calls (fire each as soon as the last returns: an idle machine is given back after 30 s):
#   (start-lean carries .gpu-samples41 .gpu-torch .gpu-torch2 .gpu-pylib: `pip install --target .gpu-pylib pytest`, for
#    the cooperative-groups GPU tests where the machine has no pytest)
#   1 (carry .gpu-work .gpu-samples41 .gpu-torch .gpu-torch2): bash benchmarks/gpu_batch.sh start; bash benchmarks/device_session.sh wait 540
#   2 (no carry needed: each job runs in its own copy of the repository, made as it starts, so a later call's
#      sync cannot take its work dir away): bash benchmarks/device_session.sh wait 560
#   3: bash benchmarks/device_session.sh wait 230; bash benchmarks/device_session.sh collect
# then here: tar -xzf each NAME.tar.gz; python3 benchmarks/wave64_differential.py report out/wave64_results.json ...
# The jobs share the 16 cores (8 + 4 + 6 + 3 compile jobs) and each ends by itself within about 1,300 s.
set -u
S=benchmarks/device_session.sh
case "${1:-}" in
  start)
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
    bash $S start torch -- env TE_LIMIT=1300 TE_TU_TIMEOUT=1250 TE_JOBS=8 bash benchmarks/torch_ext_device.sh \
      --packages causal_conv1d,gsplat,torch_scatter --build /tmp/te-build --reuse
    bash $S start torch2 -- env TE_LIMIT=1250 TE_TU_TIMEOUT=1000 TE_JOBS=4 bash benchmarks/torch_ext_device.sh \
      --config benchmarks/torch_ext/unseen_packages.json --work .gpu-torch2 --build /tmp/te-build2 --reuse
    bash $S start w64 -- env W64_JOBS=6 W64_LIMIT=1100 W64_DEADLINE=950 bash benchmarks/wave64_device.sh --args bscan=10
    bash $S start samples -- env W64_CHECKS=0 W64_JOBS=3 W64_LIMIT=1000 W64_DEADLINE=820 bash benchmarks/wave64_device.sh \
      --work .gpu-samples41 --programs "$(cat benchmarks/gpu_batch_samples.txt)";;
  start-lean)
    # When device time is short (failed starts cost 90 s each): what the open issues still need, nothing else.
    # torch_scatter matched on 2026-12-05 and the HeCBench seed is our own sample, not the held-out set: both left out;
    # the cooperative-groups emulation's GPU tests run first (about a minute).
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
    bash $S start cg -- bash -c 'mkdir -p "$OUT/gpu-logs"; PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=src:.gpu-pylib VADO_GPU_LOG_DIR="$OUT/gpu-logs" timeout 300 \
      python3 -m pytest -q -p no:cacheprovider -m gpu tests/verify/test_cg_emulation.py > "$OUT/pytest.txt" 2>&1; cat "$OUT/pytest.txt"'
    bash $S start torch -- env TE_LIMIT=1150 TE_TU_TIMEOUT=1100 TE_JOBS=6 bash benchmarks/torch_ext_device.sh \
      --packages causal_conv1d,gsplat --build /tmp/te-build --reuse
    bash $S start torch2 -- env TE_LIMIT=1100 TE_TU_TIMEOUT=900 TE_JOBS=7 bash benchmarks/torch_ext_device.sh \
      --config benchmarks/torch_ext/unseen_packages.json --work .gpu-torch2 --build /tmp/te-build2 --reuse
    bash $S start samples -- env W64_CHECKS=0 W64_JOBS=3 W64_LIMIT=1000 W64_DEADLINE=820 bash benchmarks/wave64_device.sh \
      --work .gpu-samples41 --programs "$(cat benchmarks/gpu_batch_samples.txt)";;
  start-next)
    # The session after 2026-12-05's: everything with today's vado. Prepared here (carry .gpu-next1 .gpu-next2
    # .gpu-next5 .gpu-samples-next .gpu-pylib; about 45 MiB with the tree):
    #   python3 benchmarks/torch_ext_device.py prepare --work .gpu-next1 --pypi /work/repos/pypi --ports NEWDIR
    #   python3 benchmarks/torch_ext_device.py prepare --config benchmarks/torch_ext/unseen_packages.json \
    #       --work .gpu-next2 --pypi /work/repos/pypi2 --ports NEWDIR2
    #   python3 benchmarks/torch_ext_device.py prepare --config benchmarks/torch_ext/unseen5_packages.json \
    #       --work .gpu-next5 --pypi /work/repos/pypi6 --ports NEWDIR5
    #   python3 benchmarks/wave64_samples.py prepare --work .gpu-samples-next        (the whole list: 110 run)
    # What it answers: gsplat after the labeled_partition fix, torch_sparse after the own-HIP 32-lane fix,
    # torchsort under -maxrregcount=64, causal_conv1d's update cases, fast_transformers' unstable original,
    # nerfacc's calls exit, the unseen5 packages, the 24 llm.c programs ARCH007/ENABLE_CUDNN no longer stop,
    # warpAggregatedAtomicsCG, and the two new cooperative-groups checks (lanes that returned).
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
    bash $S start cg -- bash -c 'mkdir -p "$OUT/gpu-logs"; PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=src:.gpu-pylib VADO_GPU_LOG_DIR="$OUT/gpu-logs" timeout 300 \
      python3 -m pytest -q -p no:cacheprovider -m gpu tests/verify/test_cg_emulation.py > "$OUT/pytest.txt" 2>&1; cat "$OUT/pytest.txt"'
    bash $S start torch -- env TE_LIMIT=1300 TE_TU_TIMEOUT=1100 TE_JOBS=5 bash benchmarks/torch_ext_device.sh \
      --work .gpu-next1 --build /tmp/te-build --reuse
    bash $S start torch2 -- env TE_LIMIT=1250 TE_TU_TIMEOUT=900 TE_JOBS=5 bash benchmarks/torch_ext_device.sh \
      --config benchmarks/torch_ext/unseen_packages.json --work .gpu-next2 --build /tmp/te-build2 --reuse
    bash $S start torch5 -- env TE_LIMIT=900 TE_TU_TIMEOUT=700 TE_JOBS=2 bash benchmarks/torch_ext_device.sh \
      --config benchmarks/torch_ext/unseen5_packages.json --work .gpu-next5 --build /tmp/te-build5 --reuse
    bash $S start samples -- env W64_CHECKS=0 W64_JOBS=4 W64_LIMIT=1250 W64_DEADLINE=1100 bash benchmarks/wave64_device.sh \
      --work .gpu-samples-next;;
  start-next-lean)
    # Prepared on 2026-12-05 at 701b0e6 (ports: pypi-port8, pypi2-port6, pypi6-port4; the list's 148 programs, 110 to
    # run; .gpu-next7/.gpu-next8 by helpers at 9586472/19cb6cd): carry .gpu-next1 .gpu-next2 .gpu-next5 .gpu-samples-next
    # .gpu-pylib .gpu-next7 .gpu-next8 (49.4 MiB, about 60 with the tree): 1 call with the carry, then waits and collect.
    # start-next when device time is short: only the packages whose last run failed or that never ran (gsplat,
    # causal_conv1d; torchsort, nerfacc, fast_transformers, torch_sparse; the unseen5 four), the list programs and the
    # cooperative-groups tests; every job ends within GB_SECONDS (default 1000; failed starts cost 90-180 s each).
    L=${GB_SECONDS:-1000}
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
    bash $S start cg -- bash -c 'mkdir -p "$OUT/gpu-logs"; PATH=$PATH:/usr/local/cuda/bin PYTHONPATH=src:.gpu-pylib VADO_GPU_LOG_DIR="$OUT/gpu-logs" timeout 300 \
      python3 -m pytest -q -p no:cacheprovider -m gpu tests/verify/test_cg_emulation.py > "$OUT/pytest.txt" 2>&1; cat "$OUT/pytest.txt"'
    bash $S start torch -- env TE_LIMIT=$L TE_TU_TIMEOUT=$((L * 85 / 100)) TE_JOBS=5 bash benchmarks/torch_ext_device.sh \
      --work .gpu-next1 --packages causal_conv1d,gsplat --build /tmp/te-build --reuse
    bash $S start torch2 -- env TE_LIMIT=$L TE_TU_TIMEOUT=$((L * 75 / 100)) TE_JOBS=4 bash benchmarks/torch_ext_device.sh \
      --config benchmarks/torch_ext/unseen_packages.json --work .gpu-next2 --packages torchsort,nerfacc,fast_transformers,torch_sparse \
      --build /tmp/te-build2 --reuse
    bash $S start torch5 -- env TE_LIMIT=$((L * 9 / 10)) TE_TU_TIMEOUT=$((L * 7 / 10)) TE_JOBS=2 bash benchmarks/torch_ext_device.sh \
      --config benchmarks/torch_ext/unseen5_packages.json --work .gpu-next5 --build /tmp/te-build5 --reuse
    # Batches 7 and 8 (unseen7/unseen8_packages.json) where their work dirs were carried (the carry limit is 64 MiB
    # with the tree: leave .gpu-samples-next or .gpu-next1 out of a call that carries them).
    [ -d .gpu-next7 ] && bash $S start torch7 -- env TE_LIMIT=$((L * 9 / 10)) TE_TU_TIMEOUT=$((L * 7 / 10)) TE_JOBS=3 \
      bash benchmarks/torch_ext_device.sh --config benchmarks/torch_ext/unseen7_packages.json --work .gpu-next7 --build /tmp/te-build7 --reuse
    [ -d .gpu-next8 ] && bash $S start torch8 -- env TE_LIMIT=$((L * 9 / 10)) TE_TU_TIMEOUT=$((L * 7 / 10)) TE_JOBS=2 \
      bash benchmarks/torch_ext_device.sh --config benchmarks/torch_ext/unseen8_packages.json --work .gpu-next8 --build /tmp/te-build8 --reuse
    bash $S start samples -- env W64_CHECKS=0 W64_JOBS=5 W64_LIMIT=$L W64_DEADLINE=$((L * 85 / 100)) bash benchmarks/wave64_device.sh \
      --work .gpu-samples-next;;
  *) echo "usage: gpu_batch.sh start|start-lean|start-next|start-next-lean (see the header for the calls)" >&2; exit 2;;
esac
