#!/usr/bin/env python3
"""PyTorch extensions on an NVIDIA GPU: each package's original next to vado's port under --wave 64.

    # here (no GPU): the work directory that travels to the GPU machine (run's carry)
    python3 benchmarks/torch_ext_device.py prepare --work .gpu-torch [--config PACKAGES.json] \\
        [--pypi /work/repos/pypi] [--ports /work/repos/pypi-port] [--packages a,b] [--port-args ARGS]
    # on the GPU machine (benchmarks/torch_ext_device.sh): build both, call every op, compare
    python3 benchmarks/torch_ext_device.py run --work .gpu-torch --out $OUT [--config PACKAGES.json] [--jobs 16]

The packages and their CUDAExtensions are those of ``--config`` (default benchmarks/torch_ext/packages.json;
benchmarks/torch_ext/unseen_packages.json holds the packages vado was not tuned on; sdists from
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
import json
import os
import shutil
import subprocess
import sys
import tarfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
CONFIG = HERE / "torch_ext" / "packages.json"
CALLS = HERE / "torch_ext" / "calls"


def _config(path: str | os.PathLike = CONFIG) -> dict:
    """The packages of a description file (packages.json's schema), by name."""
    return json.loads(Path(path or CONFIG).read_text())["packages"]


def _ignore(_dir, names):
    # Documentation (glm's doc/ is 20 MiB of the 64 a device call carries) is left behind with the build outputs.
    return [n for n in names if n in (".git", "build", "dist", "doc", "docs") or n.endswith((".so", ".o", ".egg-info"))]


def prepare(args) -> int:
    cfg = _config(args.config)
    names = [n for n in args.packages.split(",") if n]
    if not names:  # every package but those whose description says why the device run leaves it out
        names = [n for n in cfg if not cfg[n].get("device_skip")]
        for n in cfg:
            if cfg[n].get("device_skip"):
                print(f"{n}: left out ({cfg[n]['device_skip']}); name it with --packages to include it")
    unknown = [n for n in names if n not in cfg]
    if unknown:
        print(f"not in {args.config}: {', '.join(unknown)}", file=sys.stderr)
        return 2
    work = Path(args.work)
    for sub in ("orig", "port", "w64", "inc64", "prelude", "build"):  # the GPU machine makes the last four
        shutil.rmtree(work / sub, ignore_errors=True)
    for name in names:
        pkg = cfg[name]
        port = Path(args.ports) / pkg["dir"]
        if not port.is_dir():  # vado's port of the unpacked sdist, made here once
            proc = subprocess.run([sys.executable, "-m", "vado", "port", str(Path(args.pypi) / pkg["dir"]), "-o",
                                   str(port), "--torch-extension", "auto", *args.port_args.split()],
                                  capture_output=True, text=True,
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
# The pipeline is vado.verify.torch_ext_device's (what `vado verify --run torch:CALLS.py` runs for one
# extension); here every TU of every package goes into one compile pool.


def run(args) -> int:
    sys.path.insert(0, str(HERE.parent / "src"))
    from vado.verify import hip_on_cuda, torch_ext_device as ted, torch_ext_run

    cfg = _config(args.config)
    work = Path(args.work).resolve()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    names = [n for n in (args.packages.split(",") if args.packages else
                         (work / "packages.txt").read_text().split()) if n]
    unknown = [n for n in names if n not in cfg]
    if unknown:  # a work dir prepared from another --config
        print(f"not in {args.config}: {', '.join(unknown)} (prepared with another --config?)", file=sys.stderr)
        return 2
    t0 = time.monotonic()
    if args.torch_include:  # a compile check without a CUDA build of PyTorch (headers only; nothing links)
        import sysconfig

        info = ("headers", [*args.torch_include, sysconfig.get_paths()["include"]], [], 1,
                os.path.dirname(os.path.dirname(shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc")))
    else:
        info = ted.torch_build_info()
    print(f"torch {info[0]}, CUDA at {info[4]}, {args.arch}, {args.jobs} jobs", flush=True)
    hip_on_cuda.write_include_dir(work / "inc64", 64)
    prep = {}
    for name in names:
        pkg = cfg[name]
        prep[name] = torch_ext_run.port_build_copy(work / "port" / pkg["dir"], work / "w64" / pkg["dir"], 64)
        torch_ext_run.write_prelude(work / "port" / pkg["dir"], work / "prelude" / f"{name}.h", 64)
    build = Path(args.build).resolve() if args.build else work / "build"
    jobs, seen = [], set()
    for name in names:
        pkg = cfg[name]
        for variant in ("orig", "port"):
            for job in ted.tu_jobs(work / "orig" / pkg["dir"], work / "w64" / pkg["dir"], work / "port" / pkg["dir"],
                                   work / "prelude" / f"{name}.h", work / "inc64", name, pkg, variant, info,
                                   args.arch, build):
                job["first"] = job["key"] not in seen
                seen.add(job["key"])
                jobs.append(job)
    todo = [j for j in jobs if j["first"] and (not args.only or any(o in j["key"] for o in args.only))]
    print(f"{len(todo)} TUs to compile ({len(jobs)} in the builds)", flush=True)
    if args.dry_run:  # the build directory is left as it is (a later --reuse keeps its objects)
        for j in sorted(todo, key=lambda j: (not j["source"].endswith(".cu"), -j["size"])):
            print(" ".join(j["cmd"]))
        return 0
    if not args.reuse:
        shutil.rmtree(build, ignore_errors=True)
    build.mkdir(parents=True, exist_ok=True)
    compiled = ted.compile_all(todo, args.jobs, args.tu_timeout, lambda r: print(
        f"{'ok  ' if r['ok'] else 'FAIL'} {r['key']} {r['seconds']:.0f} s{' (reused)' if r.get('reused') else ''} "
        f"{r['error'][:160]}", flush=True), reuse=args.reuse)
    t_compile = time.monotonic() - t0
    if args.compile_only:
        ok = sum(r["ok"] for r in compiled.values())
        (out / "torch_ext_compile.json").write_text(json.dumps(compiled, indent=1))
        print(f"{ok}/{len(compiled)} TUs compiled in {t_compile:.0f} s")
        return 0 if ok == len(compiled) else 1
    results = {"torch": info[0], "arch": args.arch, "compile_s": round(t_compile, 1), "prepared": prep,
               "tus": compiled, "packages": {}}
    # The calls' saved outputs (one .pt per build) go back as one archive: a device call returns at most 8 files.
    outputs = build / "outputs"
    outputs.mkdir(parents=True, exist_ok=True)
    for name in names:
        pkg = cfg[name]
        entry = results["packages"][name] = {"dir": pkg["dir"]}
        for variant in ("orig", "port"):
            # the original is called twice: a call it does not answer the same way twice is not the port's
            entry[variant] = ted.link_and_call(name, pkg, variant, jobs, compiled, info, build, CALLS / f"{name}.py",
                                               outputs, args.call_timeout, again=variant == "orig")
        o, p = entry["orig"].pop("outputs", None), entry["port"].pop("outputs", None)
        o2 = entry["orig"].pop("outputs_again", None)
        if o is not None and p is not None:
            cmp = ted.compare_builds(o, p)
            if o2 is not None:
                cmp = ted.mark_unstable(cmp, ted.unstable_calls(o, o2))
            entry["calls"] = cmp
            entry["times"] = {"orig": o["times"], "port": p["times"]}
            # calls after which a fresh process went on (a CUDA error: the context is unusable after it)
            restarted = {v: x["restarted_after"] for v, x in (("orig", o), ("port", p)) if x.get("restarted_after")}
            if restarted:
                entry["restarted_after"] = restarted
            counts: dict[str, int] = {}
            for c in cmp.values():
                counts[c["status"]] = counts.get(c["status"], 0) + 1
            entry["summary"] = counts
    results["total_s"] = round(time.monotonic() - t0, 1)
    (out / "torch_ext_results.json").write_text(json.dumps(results, indent=1, default=str))
    saved = sorted(outputs.glob("*.pt"))
    if saved and sum(f.stat().st_size for f in saved) < 15 * 2**20:
        with tarfile.open(out / "torch_ext_outputs.tar", "w") as tar:
            for f in saved:
                tar.add(f, arcname=f.name)
    elif saved:
        print(f"the calls' outputs ({len(saved)} files) are over 15 MiB: left in {outputs}")
    print(f"\ncompile {t_compile:.0f} s, total {results['total_s']:.0f} s")
    print(f"{'package':24} {'orig':>6} {'port':>6}  calls")
    for name, e in results["packages"].items():
        st = lambda v: ("ran" if e[v].get("ran") else "built" if e[v].get("built") else "FAIL") if v in e else "-"
        print(f"{name:24} {st('orig'):>6} {st('port'):>6}  {e.get('summary', '')}")
        for call, c in sorted(e.get("calls", {}).items()):
            if c["status"] != "match":
                print(f"    {call}: {c['status']} {c['detail']}")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("prepare")
    p.add_argument("--work", default=".gpu-torch")
    p.add_argument("--pypi", default="/work/repos/pypi")
    p.add_argument("--ports", default="/work/repos/pypi-port")
    p.add_argument("--packages", default="")
    p.add_argument("--port-args", default="", help="more arguments for `vado port` where a port is made here "
                   "(e.g. '--unsafe-fixes')")
    r = sub.add_parser("run")
    r.add_argument("--work", default=".gpu-torch")
    r.add_argument("--out", default=os.environ.get("OUT", "/tmp/torch-ext-out"))
    r.add_argument("--packages", default="")
    r.add_argument("--jobs", type=int, default=os.cpu_count() or 8)
    r.add_argument("--arch", default="sm_90")
    r.add_argument("--tu-timeout", type=float, default=480.0)
    r.add_argument("--call-timeout", type=float, default=120.0)
    r.add_argument("--build", default="", help="the build directory (default WORK/build); outside a carried path, "
                   "a warm device machine keeps it between calls")
    r.add_argument("--reuse", action="store_true", help="keep objects whose command and source match (a build that "
                   "spans device calls); without it the build directory starts empty")
    r.add_argument("--dry-run", action="store_true", help="print the compile commands, run nothing")
    r.add_argument("--only", action="append", default=[],
                   help="with --compile-only/--dry-run: the TUs whose key (package/variant/source) holds this (repeat)")
    r.add_argument("--compile-only", action="store_true", help="compile the TUs, no link and no calls")
    r.add_argument("--torch-include", action="append", default=[],
                   help="with --compile-only: PyTorch include dirs instead of the installed torch's (repeat)")
    for q in (p, r):
        q.add_argument("--config", default=str(CONFIG), help="the packages' descriptions (default "
                       "benchmarks/torch_ext/packages.json; e.g. benchmarks/torch_ext/unseen_packages.json)")
    args = ap.parse_args(argv)
    return prepare(args) if args.cmd == "prepare" else run(args)


if __name__ == "__main__":
    sys.exit(main())
