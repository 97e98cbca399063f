#!/usr/bin/env python3
"""PyTorch extensions on an NVIDIA GPU: each package's original next to vado's port under --wave 64.

    # here (no GPU): the work directory that travels to the GPU machine (run's carry)
    python3 benchmarks/torch_ext_device.py prepare --work .gpu-torch \\
        [--pypi /work/repos/pypi] [--ports /work/repos/pypi-port] [--packages a,b]
    # on the GPU machine (benchmarks/torch_ext_device.sh): build both, call every op, compare
    python3 benchmarks/torch_ext_device.py run --work .gpu-torch --out $OUT [--jobs 16] [--arch sm_90]

The packages and their CUDAExtensions are those of benchmarks/torch_ext/packages.json (sdists from
PyPI, unpacked under ``--pypi``; vado's ports of them, ``vado port DIR --torch-extension auto``,
under ``--ports``). ``run`` builds, for each package, the original as the CUDA build of PyTorch
builds it (nvcc for ``.cu``, the host compiler for ``.cpp``, the flags its setup.py gives on
CUDA) and the port the same way except that its ``.cu`` TUs go through vado's HIP-on-CUDA layer
with AMD's wave64 emulated (:mod:`vado.verify.torch_ext_run`: a prelude defines ``USE_ROCM``
after PyTorch's headers, so the ROCm branches compile; kernels marked for the emulation). All TUs
of all packages are compiled in one pool (``--jobs``); a host TU the port leaves byte for byte is
compiled once. Each build is then loaded in its own process, which calls the package's ops with
seeded inputs (benchmarks/torch_ext/calls/<package>.py, written for this harness, not the
package's code) and saves what they return; the two are compared (floats within a tolerance by
dtype, everything else exactly). Results: ``$OUT/torch_ext_results.json`` and a table on stdout.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import hashlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
CONFIG = HERE / "torch_ext" / "packages.json"
CALLS = HERE / "torch_ext" / "calls"
#: Tolerances by dtype name (the port and the original may sum in another order: atomics, wave-wide reductions).
TOLERANCE = {"float16": (1e-2, 1e-2), "bfloat16": (2e-2, 2e-2), "float32": (1e-4, 1e-5), "float64": (1e-9, 1e-12)}


def _config() -> dict:
    return json.loads(CONFIG.read_text())["packages"]


def _ignore(_dir, names):
    return [n for n in names if n in (".git", "build", "dist") or n.endswith((".so", ".o", ".egg-info"))]


def prepare(args) -> int:
    cfg = _config()
    names = [n for n in args.packages.split(",") if n] or list(cfg)
    work = Path(args.work)
    for sub in ("orig", "port", "w64", "inc64", "prelude", "build"):  # the GPU machine makes the last four
        shutil.rmtree(work / sub, ignore_errors=True)
    for name in names:
        pkg = cfg[name]
        port = Path(args.ports) / pkg["dir"]
        if not port.is_dir():  # vado's port of the unpacked sdist, made here once
            proc = subprocess.run([sys.executable, "-m", "vado", "port", str(Path(args.pypi) / pkg["dir"]), "-o",
                                   str(port), "--torch-extension", "auto"], capture_output=True, text=True,
                                  env=dict(os.environ, PYTHONPATH=str(HERE.parent / "src")))
            if not port.is_dir():
                print(f"vado port of {name} failed (rc {proc.returncode}): {proc.stderr[-500:]}", file=sys.stderr)
                return 2
        for sub, root in (("orig", args.pypi), ("port", args.ports)):
            src = Path(root) / pkg["dir"]
            if not src.is_dir():
                print(f"missing {src}", file=sys.stderr)
                return 2
            shutil.copytree(src, work / sub / pkg["dir"], symlinks=False, ignore=_ignore)
    (work / "packages.txt").write_text("\n".join(names) + "\n")
    size = sum(p.stat().st_size for p in work.rglob("*") if p.is_file())
    print(f"{work}: {len(names)} packages, original and port, {size / 2**20:.1f} MiB")
    return 0


# --- the GPU machine ------------------------------------------------------------------------------

def _torch_build_info():
    import torch
    from torch.utils import cpp_extension as ce

    try:
        incs = ce.include_paths(device_type="cuda")
    except TypeError:  # torch < 2.6
        incs = ce.include_paths(cuda=True)
    try:
        libs = ce.library_paths(device_type="cuda")
    except TypeError:
        libs = ce.library_paths(cuda=True)
    import sysconfig

    incs = [*incs, sysconfig.get_paths()["include"]]
    abi = int(torch._C._GLIBCXX_USE_CXX11_ABI)
    cuda_home = ce.CUDA_HOME or "/usr/local/cuda"
    return torch.__version__, incs, libs, abi, cuda_home


def _tu_commands(work: Path, name: str, pkg: dict, variant: str, info, arch: str, build: Path) -> list[dict]:
    _, incs, _, abi, cuda_home = info
    root = (work / ("w64" if variant == "port" else "orig") / pkg["dir"]).resolve()
    host_root = (work / variant / pkg["dir"]).resolve()
    common = [f"-I{root / d}" for d in pkg["include_dirs"]] + [f"-I{i}" for i in incs]
    common += [f"-D{d}" for d in pkg["defines"]]
    jobs = []
    for ext in pkg["extensions"]:
        ext_name = ext["name"]
        defs = [f"-DTORCH_EXTENSION_NAME={ext_name}", "-DTORCH_API_INCLUDE_EXTENSION_H",
                f"-D_GLIBCXX_USE_CXX11_ABI={abi}"]
        for src in ext["sources"]:
            if src.endswith("version.cpp"):
                continue  # the CUDA/HIP version query only
            if src.endswith(".cu"):
                cmd = [f"{cuda_home}/bin/nvcc", "-c", str(root / src), "-Xcompiler", "-fPIC", "-std=c++17",
                       f"-gencode=arch=compute_{arch[3:]},code={arch}", "-D__CUDA_NO_HALF_OPERATORS__",
                       "-D__CUDA_NO_HALF_CONVERSIONS__", "-D__CUDA_NO_BFLOAT16_CONVERSIONS__",
                       "-D__CUDA_NO_HALF2_OPERATORS__", "--expt-relaxed-constexpr", *common, *defs,
                       *pkg["cuda"]["nvcc"]]
                if variant == "port":
                    cmd += ["-include", str((work / "prelude" / f"{name}.h").resolve()),
                            f"-I{(work / 'inc64').resolve()}", "-DVADO_W64_EXIT_GUARD="]
                key = f"{name}/{variant}/{src}"
            else:
                hsrc = host_root / src
                cmd = ["c++", "-c", str(hsrc), "-fPIC", "-std=c++17", *[c.replace(str(root), str(host_root))
                                                                       for c in common], *defs, *pkg["cuda"]["cxx"]]
                other = (work / ("orig" if variant == "port" else "port") / pkg["dir"] / src)
                same = other.is_file() and other.read_bytes() == hsrc.read_bytes()
                digest = hashlib.sha1(hsrc.read_bytes()).hexdigest()[:12]
                key = f"{name}/host/{src}@{digest}" if same else f"{name}/{variant}/{src}"
            obj = build / (key.replace("/", "__").replace("@", "_") + ".o")
            jobs.append({"key": key, "ext": ext_name, "variant": variant, "package": name, "source": src,
                         "cmd": [*cmd, "-o", str(obj)], "obj": str(obj), "size": (root / src).stat().st_size})
    return jobs


def _compile(job: dict, timeout: float) -> dict:
    start = time.monotonic()
    try:
        proc = subprocess.run(job["cmd"], capture_output=True, text=True, errors="replace", timeout=timeout)
        ok, log = proc.returncode == 0, proc.stdout + proc.stderr
    except subprocess.TimeoutExpired:
        ok, log = False, f"timed out after {timeout:.0f} s"
    return {"key": job["key"], "ok": ok, "seconds": round(time.monotonic() - start, 1),
            "error": next((ln.strip() for ln in log.splitlines() if "error" in ln), "") if not ok else "",
            "log": log[-3000:] if not ok else ""}


_CALLER = r"""
import importlib.util, json, sys, time, traceback
import torch
kind, lib, module, calls_file, out_file = sys.argv[1:6]
if kind == "ops":
    torch.ops.load_library(lib)
    ext = getattr(torch.ops, module)
else:
    spec = importlib.util.spec_from_file_location(module, lib)
    ext = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ext)
spec = importlib.util.spec_from_file_location("calls", calls_file)
calls = importlib.util.module_from_spec(spec)
spec.loader.exec_module(calls)
def cpu(v):
    if isinstance(v, torch.Tensor):
        return v.detach().cpu()
    if isinstance(v, dict):
        return {k: cpu(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [cpu(x) for x in v]
    return v
results, times = {}, {}
for name, fn in calls.cases(ext, torch, "cuda").items():
    t = time.monotonic()
    try:
        results[name] = cpu(fn())
        torch.cuda.synchronize()
    except Exception as exc:
        results[name] = {"error": f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"[:300]}
    times[name] = round(time.monotonic() - t, 3)
torch.save({"results": results, "times": times}, out_file)
print(f"{len(results)} calls")
"""


def run(args) -> int:
    sys.path.insert(0, str(HERE.parent / "src"))
    from vado.verify import hip_on_cuda, torch_ext_run

    cfg = _config()
    work = Path(args.work).resolve()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    names = [n for n in (args.packages.split(",") if args.packages else
                         (work / "packages.txt").read_text().split()) if n]
    t0 = time.monotonic()
    if args.torch_include:  # a compile check without a CUDA build of PyTorch (headers only; nothing links)
        import sysconfig

        info = ("headers", [*args.torch_include, sysconfig.get_paths()["include"]], [], 1,
                os.path.dirname(os.path.dirname(shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc")))
    else:
        info = _torch_build_info()
    print(f"torch {info[0]}, CUDA at {info[4]}, {args.arch}, {args.jobs} jobs", flush=True)
    hip_on_cuda.write_include_dir(work / "inc64", 64)
    prep = {}
    for name in names:
        pkg = cfg[name]
        prep[name] = torch_ext_run.port_build_copy(work / "port" / pkg["dir"], work / "w64" / pkg["dir"], 64)
        torch_ext_run.write_prelude(work / "port" / pkg["dir"], work / "prelude" / f"{name}.h", 64)
    build = work / "build"
    shutil.rmtree(build, ignore_errors=True)
    build.mkdir()
    jobs, seen = [], set()
    for name in names:
        for variant in ("orig", "port"):
            for job in _tu_commands(work, name, cfg[name], variant, info, args.arch, build):
                job["first"] = job["key"] not in seen
                seen.add(job["key"])
                jobs.append(job)
    todo = sorted([j for j in jobs if j["first"] and (not args.only or any(o in j["key"] for o in args.only))],
                  key=lambda j: (not j["source"].endswith(".cu"), -j["size"]))
    print(f"{len(todo)} TUs to compile ({len(jobs)} in the builds)", flush=True)
    if args.dry_run:
        for j in todo:
            print(" ".join(j["cmd"]))
        return 0
    compiled: dict[str, dict] = {}
    with cf.ThreadPoolExecutor(args.jobs) as pool:
        futs = {pool.submit(_compile, j, args.tu_timeout): j for j in todo}
        for fut in cf.as_completed(futs):
            r = fut.result()
            compiled[r["key"]] = r
            print(f"{'ok  ' if r['ok'] else 'FAIL'} {r['key']} {r['seconds']:.0f} s {r['error'][:160]}", flush=True)
    t_compile = time.monotonic() - t0
    if args.compile_only:
        ok = sum(r["ok"] for r in compiled.values())
        (out / "torch_ext_compile.json").write_text(json.dumps(compiled, indent=1))
        print(f"{ok}/{len(compiled)} TUs compiled in {t_compile:.0f} s")
        return 0 if ok == len(compiled) else 1
    results = {"torch": info[0], "arch": args.arch, "compile_s": round(t_compile, 1), "prepared": prep,
               "tus": compiled, "packages": {}}
    _, _, libs, _, cuda_home = info
    for name in names:
        pkg = cfg[name]
        entry = results["packages"][name] = {"dir": pkg["dir"]}
        outputs = {}
        for variant in ("orig", "port"):
            mine = [j for j in jobs if j["package"] == name and j["variant"] == variant]
            bad = [j["key"] for j in mine if not compiled[j["key"]]["ok"]]
            if bad:
                entry[variant] = {"built": False, "failed_tus": bad}
                continue
            lib = build / f"{name}-{variant}.so"
            link = ["c++", "-shared", *[j["obj"] for j in mine], "-o", str(lib),
                    *[f"-L{p}" for p in libs], f"-L{cuda_home}/lib64", "-lc10", "-ltorch", "-ltorch_cpu",
                    "-ltorch_python", "-lc10_cuda", "-ltorch_cuda", "-lcudart",
                    *[f"-Wl,-rpath,{p}" for p in libs]]
            proc = subprocess.run(link, capture_output=True, text=True, errors="replace")
            if proc.returncode != 0:
                entry[variant] = {"built": False, "link": (proc.stdout + proc.stderr)[-2000:]}
                continue
            res = out / f"{name}-{variant}.pt"
            module = pkg["module"] if pkg["kind"] == "ops" else pkg["extensions"][0]["name"]
            try:
                proc = subprocess.run([sys.executable, "-c", _CALLER, pkg["kind"], str(lib), module,
                                       str(CALLS / f"{name}.py"), str(res)], capture_output=True, text=True,
                                      errors="replace", timeout=args.call_timeout)
                ran = proc.returncode == 0 and res.is_file()
                log = (proc.stdout + proc.stderr)[-2000:]
            except subprocess.TimeoutExpired:
                ran, log = False, f"calls timed out after {args.call_timeout:.0f} s"
            entry[variant] = {"built": True, "ran": ran, "log": log if not ran else ""}
            if ran:
                import torch

                outputs[variant] = torch.load(res)
        if "orig" in outputs and "port" in outputs:
            cmp = {}
            for call, a in outputs["orig"]["results"].items():
                b = outputs["port"]["results"].get(call)
                dt = _dtype_of(a)
                rtol, atol = TOLERANCE.get(dt, TOLERANCE["float32"])
                cmp.update(torch_ext_run.compare_outputs({call: a}, {call: b}, rtol, atol))
            entry["calls"] = cmp
            entry["times"] = {v: outputs[v]["times"] for v in outputs}
            counts: dict[str, int] = {}
            for c in cmp.values():
                counts[c["status"]] = counts.get(c["status"], 0) + 1
            entry["summary"] = counts
    results["total_s"] = round(time.monotonic() - t0, 1)
    (out / "torch_ext_results.json").write_text(json.dumps(results, indent=1, default=str))
    print(f"\ncompile {t_compile:.0f} s, total {results['total_s']:.0f} s")
    print(f"{'package':24} {'orig':>6} {'port':>6}  calls")
    for name, e in results["packages"].items():
        st = lambda v: ("ran" if e[v].get("ran") else "built" if e[v].get("built") else "FAIL") if v in e else "-"
        print(f"{name:24} {st('orig'):>6} {st('port'):>6}  {e.get('summary', '')}")
        for call, c in sorted(e.get("calls", {}).items()):
            if c["status"] != "match":
                print(f"    {call}: {c['status']} {c['detail']}")
    return 0


def _dtype_of(value) -> str:
    if hasattr(value, "dtype"):
        return str(value.dtype).split(".")[-1]
    if isinstance(value, dict):
        for v in value.values():
            d = _dtype_of(v)
            if d in TOLERANCE and d != "float32":
                return d
        return next((d for d in map(_dtype_of, value.values()) if d in TOLERANCE), "")
    if isinstance(value, (list, tuple)):
        return _dtype_of(dict(enumerate(value)))
    return ""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("prepare")
    p.add_argument("--work", default=".gpu-torch")
    p.add_argument("--pypi", default="/work/repos/pypi")
    p.add_argument("--ports", default="/work/repos/pypi-port")
    p.add_argument("--packages", default="")
    r = sub.add_parser("run")
    r.add_argument("--work", default=".gpu-torch")
    r.add_argument("--out", default=os.environ.get("OUT", "/tmp/torch-ext-out"))
    r.add_argument("--packages", default="")
    r.add_argument("--jobs", type=int, default=os.cpu_count() or 8)
    r.add_argument("--arch", default="sm_90")
    r.add_argument("--tu-timeout", type=float, default=480.0)
    r.add_argument("--call-timeout", type=float, default=120.0)
    r.add_argument("--dry-run", action="store_true", help="print the compile commands, run nothing")
    r.add_argument("--only", action="append", default=[],
                   help="with --compile-only/--dry-run: the TUs whose key (package/variant/source) holds this (repeat)")
    r.add_argument("--compile-only", action="store_true", help="compile the TUs, no link and no calls")
    r.add_argument("--torch-include", action="append", default=[],
                   help="with --compile-only: PyTorch include dirs instead of the installed torch's (repeat)")
    args = ap.parse_args(argv)
    return prepare(args) if args.cmd == "prepare" else run(args)


if __name__ == "__main__":
    sys.exit(main())
