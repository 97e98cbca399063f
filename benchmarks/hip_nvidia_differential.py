#!/usr/bin/env python3
"""Differential runs and kernel timings of vado ports on an NVIDIA GPU, through HIP's NVIDIA path.

There is no AMD GPU here, so the port runs where the original does: HIP's own
header-only NVIDIA platform (``hip/nvidia_detail``, from Debian's
libamdhip64-dev) maps every hip* call onto CUDA. Those HIP 5.2 headers need
CUDA 11-era APIs, so the port is built with clang's CUDA mode against CUDA 11.8
headers from NVIDIA's PyPI wheels (:mod:`vado.verify.hip_nvidia`), as sm_80
code plus compute_80 PTX that the driver JIT-compiles for the GPU at hand. The
original is built on the GPU machine with its own nvcc for sm_90.

Three steps::

    python benchmarks/hip_nvidia_differential.py prepare --hecbench /work/hecbench/src --work .devrun
    # on the GPU machine:   bash .devrun/run.sh      (writes results.tgz to $OUT)
    python benchmarks/hip_nvidia_differential.py compare results.tgz

``compare`` prints, per program, whether the port's output equals the
original's (timing lines ignored, numbers within --rtol), and per kernel the
median time of original (nvcc), original (clang, same toolchain as the port)
and port, with the ratios, plus the tune result.
"""

from __future__ import annotations

import argparse
import io
import json
import shutil
import statistics
import subprocess
import sys
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

#: HeCBench programs (no CUDA libraries, self-generated inputs) and the arguments they run with.
PROGRAMS = {
    "reverse": "100",
    "matrix-rotate": "5000 100",
    "mandelbrot": "1000",
    "atomicReduction": "",
    "bscan": "1000",
    "hellinger": "100",
    "entropy": "8192 8192 100",
}
#: Kernels of examples/kernels timed with vado's generated driver.
KERNELS = {
    "saxpy": dict(file="saxpy.cu", n=1 << 26, shapes={}, flops="2.0*n", bytes=None, grid=None),
    "transpose": dict(file="transpose.cu", n=8192 * 8192, shapes={"width": "8192"}, flops=None,
                      bytes="2.0*n*sizeof(float)", grid="((8192+31)/32)*((8192+31)/32)"),
    "block_sums": dict(file="warp_reduce.cu", n=1 << 26, shapes={}, flops="1.0*n", bytes="1.0*n*sizeof(float)", grid=None),
}
TIMING_LINES = r"(?i)(time|GBytes/sec|GB/s|ms\b|\(s\))"


def prepare(args) -> None:
    from vado.bench.kernel import driver_source, find_kernel
    from vado.knowledge.targets import get_target
    from vado.port.file import PortOptions
    from vado.port.tree import port_tree
    from vado.verify import hip_nvidia

    work = Path(args.work)
    if work.exists():
        shutil.rmtree(work)
    (work / "bin").mkdir(parents=True)
    cuda = hip_nvidia.default_root()
    if not hip_nvidia.is_ready(cuda):
        hip_nvidia.setup(cuda)
    hip_nvidia.bundle_runtime(work / "bin", cuda)
    target = get_target("rocm-7.2")
    opts = PortOptions(unsafe=True)

    def clang(sources, out, inc, hip: bool):
        cmd = hip_nvidia.build_command([str(s) for s in sources], str(out), hip_include=args.hip_include, root=cuda,
                                       flags=[f"-I{inc}", "-O3"])
        if not hip:
            cmd = [c for c in cmd if not c.startswith(("-D__HIP_PLATFORM", f"-I{args.hip_include}"))]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        return proc.returncode == 0, proc.stderr

    for name in PROGRAMS:
        src = Path(args.hecbench) / f"{name}-cuda"
        shutil.copytree(src, work / "orig" / name)
        port_tree(src, work / "port" / name, target, options=opts)
        ok, err = clang(sorted((work / "port" / name).glob("*.cu")), work / "bin" / f"{name}.port", work / "port" / name, True)
        print(f"{name}: port {'built' if ok else 'FAILED: ' + err.strip().splitlines()[-1]}")
    kernels = ROOT / "examples" / "kernels"
    port_tree(kernels, work / "kb" / "port", target, options=opts)
    shutil.copytree(kernels, work / "kb" / "orig")
    for name, s in KERNELS.items():
        for side in ("orig", "port"):
            sig = find_kernel((work / "kb" / side / s["file"]).read_text(encoding="latin-1"), name)
            drv = work / "kb" / side / f"drv_{name}.cu"
            drv.write_text(driver_source(s["file"], sig, api="cuda" if side == "orig" else "hip", n=s["n"], grid=s["grid"],
                                         block=256, iters=50, warmup=5, bytes_expr=s["bytes"], flops_expr=s["flops"],
                                         shapes=s["shapes"]))
            out = work / "bin" / f"kb_{name}.{'orig_clang' if side == 'orig' else 'port'}"
            ok, err = clang([drv], out, work / "kb" / side, side == "port")
            print(f"kernel {name} ({side}, clang): {'built' if ok else 'FAILED: ' + err.strip()[-300:]}")
    (work / "run.sh").write_text(_run_script())
    (work / "run.sh").chmod(0o755)
    print(f"prepared {work}; run `bash {work}/run.sh` on the GPU machine")


def _run_script() -> str:
    progs = " ".join(f'[{k}]="{v}"' for k, v in PROGRAMS.items())
    kernels = " ".join(KERNELS)
    return f"""#!/usr/bin/env bash
# Generated by benchmarks/hip_nvidia_differential.py: build originals with nvcc, run originals and ports,
# time the kernels, tune saxpy's block size; everything ends up in $OUT/results.tgz.
set -u
cd "$(dirname "$0")"
R=/tmp/vado-results; rm -rf "$R"; mkdir -p "$R"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader > "$R/gpu.txt" 2>&1
nvcc --version | tail -2 >> "$R/gpu.txt"
declare -A ARGS=({progs})
for P in "${{!ARGS[@]}}"; do
  ( cd orig/$P && nvcc -O3 -std=c++17 -arch=sm_90 -I. *.cu -o ../../bin/$P.orig ) > "$R/build_$P.txt" 2>&1 || echo "BUILD FAILED" >> "$R/build_$P.txt"
  for side in orig port; do
    ( cd orig/$P && timeout 120 ../../bin/$P.$side ${{ARGS[$P]}} ) > "$R/run_${{P}}_$side.txt" 2>&1; echo "exit=$?" >> "$R/run_${{P}}_$side.txt"
  done
done
for name in {kernels}; do
  nvcc -O3 -std=c++17 -arch=sm_90 -Ikb/orig -x cu kb/orig/drv_$name.cu -o bin/kb_$name.orig > /dev/null 2>&1
  for side in orig orig_clang port; do
    for rep in 1 2 3; do timeout 60 bin/kb_$name.$side; done > "$R/kb_${{name}}_$side.txt" 2>&1
  done
done
PYTHONPATH=../src timeout 300 python3 - > "$R/tune.json" 2> "$R/tune.err" <<'PY'
import json
from vado.bench.tune import tune, parse_param
from vado.model import to_json
r = tune("{{bin}}", [parse_param("VADO_BLOCK=256,32,64,128,512,1024")],
         build="nvcc -O3 -std=c++17 -arch=sm_90 -Ikb/orig {{DEFINES}} -x cu kb/orig/drv_transpose.cu -o {{bin}}",
         metrics=["kernel_ms=json:kernel_ms"], runs=5, budget=6)
doc = to_json(r)
for t in doc["trials"]:
    if t.get("bench"):
        t["bench"].pop("environment", None)
print(json.dumps(doc))
PY
tar -C /tmp -czf "${{OUT:-/tmp}}/results.tgz" vado-results
"""


def compare(args) -> int:
    from vado.verify.compare import Tolerance, compare_text

    members: dict[str, str] = {}
    with tarfile.open(args.results) as tf:
        for m in tf.getmembers():
            if m.isfile():
                members[Path(m.name).name] = tf.extractfile(m).read().decode("utf-8", "replace")
    print(members.get("gpu.txt", "").strip())
    print(f"\n{'program':18} {'result':8} compared  mismatches")
    failures = 0
    for name in PROGRAMS:
        a, b = members.get(f"run_{name}_orig.txt"), members.get(f"run_{name}_port.txt")
        if a is None or b is None:
            print(f"{name:18} missing")
            failures += 1
            continue
        c = compare_text(a, b, Tolerance(rtol=args.rtol), ignore_lines=TIMING_LINES)
        failures += not c.passed
        print(f"{name:18} {'same' if c.passed else 'DIFFERS':8} {c.elements:8}  {c.mismatches}  {c.problem}")
    print(f"\n{'kernel':12} {'nvcc ms':>9} {'clang ms':>9} {'port ms':>9} {'port/nvcc':>10} {'port/clang':>11} {'GB/s port':>10}  checksums")
    for name in KERNELS:
        med = {}
        sums = {}
        gbs = {}
        for side in ("orig", "orig_clang", "port"):
            rows = [json.loads(l) for l in members.get(f"kb_{name}_{side}.txt", "").splitlines() if l.startswith("{")]
            sums[side] = {l for l in members.get(f"kb_{name}_{side}.txt", "").splitlines() if l.startswith("checksum")}
            if rows:
                med[side] = statistics.median(r["kernel_ms"] for r in rows)
                gbs[side] = statistics.median(r["gbs"] for r in rows)
        same = "equal" if len({frozenset(v) for v in sums.values()}) == 1 else "DIFFER"
        if len(med) == 3:
            print(f"{name:12} {med['orig']:9.4f} {med['orig_clang']:9.4f} {med['port']:9.4f} "
                  f"{med['port'] / med['orig']:10.3f} {med['port'] / med['orig_clang']:11.3f} {gbs['port']:10.1f}  {same}")
        else:
            print(f"{name:12} incomplete: {sorted(med)}")
    if members.get("tune.json", "").strip():
        t = json.loads(members["tune.json"])
        print(f"\ntune ({t['objective']}, {'higher' if t['higher_is_better'] else 'lower'} is better): baseline "
              f"{t['baseline']['config']} {t['baseline']['objective']:.4f} → best {t['best']['config']} "
              f"{t['best']['objective']:.4f} ({t['gain_pct']:+.1f}%)")
        for tr in t["trials"]:
            print(f"  {tr['config']} {tr['objective']} {tr['reason']}")
    return 1 if failures else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("prepare")
    p.add_argument("--hecbench", default="/work/hecbench/src")
    p.add_argument("--work", default=str(ROOT / ".devrun"))
    p.add_argument("--hip-include", default="/usr/include")
    c = sub.add_parser("compare")
    c.add_argument("results")
    c.add_argument("--rtol", type=float, default=1e-6)
    args = ap.parse_args()
    if args.cmd == "prepare":
        prepare(args)
        return 0
    return compare(args)


if __name__ == "__main__":
    sys.exit(main())
