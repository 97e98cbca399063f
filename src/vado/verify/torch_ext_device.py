"""A torch extension's original and its port built and called on an NVIDIA GPU, outputs compared.

What ``vado verify PORT --original SRC --run torch:CALLS.py --torch-config EXT.json --wave 64`` and
``benchmarks/torch_ext_device.py`` run. ``EXT.json`` describes the extension as its setup.py builds it (the
schema of one entry of ``benchmarks/torch_ext/packages.json``: ``dir``, ``module``, ``kind`` (``ops`` for
``TORCH_LIBRARY`` ops, ``pybind`` for a module), ``include_dirs``, ``defines``, ``cuda.cxx``/``cuda.nvcc``
flags, ``extensions`` with their ``sources``). ``CALLS.py`` defines ``cases(ext, torch, device)``: a dict of
name → a function calling the extension's ops with seeded inputs (written for the harness, not the
package's code). ``ext`` is ``torch.ops.MODULE`` (``ops``), the module (``pybind``, one extension) or, for a
package of several pybind11 extensions, a namespace of them by extension name (``ext.hash_cuda``).

The original is built as the CUDA build of PyTorch builds it (nvcc for ``.cu``, the host compiler for
``.cpp``); the port the same way except that its ``.cu`` TUs go through vado's HIP-on-CUDA layer with
AMD's 64-lane waves emulated (:mod:`vado.verify.torch_ext_run`). Each build is loaded in its own process,
which calls the cases and saves what they return; the two are compared by dtype tolerance.

:func:`prerequisites` says what is missing (torch, a CUDA build of it, a GPU, nvcc): the caller skips the
run with that message. Nothing here runs without an NVIDIA GPU.
"""

from __future__ import annotations

import concurrent.futures as cf
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

#: Tolerances by dtype name (the port and the original may sum in another order: atomics, wave-wide reductions).
TOLERANCE = {"float16": (1e-2, 1e-2), "bfloat16": (2e-2, 2e-2), "float32": (1e-4, 1e-5), "float64": (1e-9, 1e-12)}

_PROBE = ("import json, torch\n"
          "print(json.dumps({'version': torch.__version__, 'cuda': torch.version.cuda, "
          "'available': bool(torch.cuda.is_available())}))\n")


def prerequisites(python: str | None = None, nvcc: str | None = None, timeout: float = 120.0) -> str:
    """What keeps a torch-extension run from this machine ('' when nothing): torch importable by
    ``python`` (default: this interpreter), a CUDA build of it, a CUDA GPU it sees, and nvcc."""
    py = python or sys.executable
    try:
        proc = subprocess.run([py, "-c", _PROBE], capture_output=True, text=True, timeout=timeout, errors="replace")
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"cannot ask {py} about torch ({exc})"
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["?"])[-1]
        return f"torch is not importable by {py} ({last[:200]})"
    try:
        info = json.loads(proc.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return f"torch in {py} gave no answer"
    if not info.get("cuda"):
        return f"torch {info.get('version')} in {py} is not a CUDA build (torch.version.cuda is None)"
    if not info.get("available"):
        return f"torch {info.get('version')} in {py} sees no CUDA GPU (torch.cuda.is_available() is False)"
    if not (nvcc or shutil.which("nvcc") or os.path.exists("/usr/local/cuda/bin/nvcc")):
        return "nvcc not found (the original's .cu files and the port's are compiled with it)"
    return ""


def load_config(path: str | os.PathLike) -> dict:
    """An extension description (see the module docstring); raises ``ValueError`` naming what is missing."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    return check_config(data, str(path))


def check_config(data: dict, path: str = "the description") -> dict:
    """``data`` when it holds what a run needs; raises ``ValueError`` naming what is missing."""
    if not isinstance(data, dict):
        raise ValueError(f"{path}: not a JSON object")
    missing = [k for k in ("module", "kind", "include_dirs", "defines", "cuda", "extensions") if k not in data]
    if missing:
        raise ValueError(f"{path}: missing {', '.join(missing)}")
    if data["kind"] not in ("ops", "pybind"):
        raise ValueError(f"{path}: kind must be 'ops' or 'pybind', not {data['kind']!r}")
    for ext in data["extensions"]:
        if "name" not in ext or not isinstance(ext.get("sources"), list):
            raise ValueError(f"{path}: every extension needs a name and a list of sources")
    return data


def torch_build_info():
    """(torch version, include dirs, library dirs, C++11 ABI flag, CUDA home) of the installed torch."""
    import sysconfig

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
    incs = [*incs, sysconfig.get_paths()["include"]]
    abi = int(torch._C._GLIBCXX_USE_CXX11_ABI)
    return torch.__version__, incs, libs, abi, ce.CUDA_HOME or "/usr/local/cuda"


def tu_jobs(orig: Path, port_w64: Path, port_host: Path, prelude: Path, inc64: Path, name: str, pkg: dict,
            variant: str, info, arch: str, build: Path) -> list[dict]:
    """The compile jobs of one build: ``variant`` ``orig`` (tree ``orig``) or ``port`` (its ``.cu`` from
    ``port_w64``, the copy marked for the emulation, with the prelude; its host ``.cpp`` from ``port_host``).
    A host TU the port leaves byte for byte gets the same key as the original's (compiled once)."""
    from vado.build.torch_setup import arch_free, extension_settings
    from vado.verify.hip_on_cuda import WAVE64_NVCC_FLAGS

    _, incs, _, abi, cuda_home = info
    root = (port_w64 if variant == "port" else orig).resolve()
    host_root = (port_host if variant == "port" else orig).resolve()
    jobs = []
    for ext in pkg["extensions"]:
        ext_name = ext["name"]
        # The CUDA build's settings (the port is built as CUDA builds it, through the HIP-on-CUDA layer);
        # the architecture is this harness's (`arch`), so setup.py's own -gencode/-arch are left out.
        st = extension_settings(pkg, ext, "cuda")
        common = [f"-I{root / d}" for d in st["include_dirs"]] + [f"-I{i}" for i in incs]
        common += [f"-D{d}" for d in st["defines"]]
        flag_incs = [f"-I{root / d}" for d in st["flag_include_dirs"]]
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
                       *arch_free(st["nvcc"]), *flag_incs]
                if variant == "port":
                    cmd += ["-include", str(prelude.resolve()), f"-I{inc64.resolve()}", *WAVE64_NVCC_FLAGS]
                key, path = f"{name}/{variant}/{src}", root / src
            else:
                hsrc = host_root / src
                cmd = ["c++", "-c", str(hsrc), "-fPIC", "-std=c++17",
                       *[c.replace(str(root), str(host_root)) for c in [*common, *flag_incs]], *defs, *st["cxx"]]
                other = (port_host if variant == "orig" else orig) / src
                same = other.is_file() and other.read_bytes() == hsrc.read_bytes()
                digest = hashlib.sha1(hsrc.read_bytes()).hexdigest()[:12]
                key = f"{name}/host/{src}@{digest}" if same else f"{name}/{variant}/{src}"
                path = hsrc
            obj = build / (key.replace("/", "__").replace("@", "_") + ".o")
            jobs.append({"key": key, "ext": ext_name, "variant": variant, "package": name, "source": src,
                         "path": str(path), "cmd": [*cmd, "-o", str(obj)], "obj": str(obj), "size": (root / src).stat().st_size})
    return jobs


def _stamp(job: dict) -> str:
    """What an object was compiled from: its command and its source's bytes (a reused object must match both)."""
    h = hashlib.sha256("\0".join(job["cmd"]).encode())
    try:
        h.update(Path(job["path"]).read_bytes())
    except OSError:
        h.update(b"unreadable")
    return h.hexdigest()


def compile_job(job: dict, timeout: float, reuse: bool = False) -> dict:
    """Run one compile job: ``{key, ok, seconds, error, log}``.

    With ``reuse``, an object whose stamp (command and source bytes) matches is kept rather than rebuilt:
    a build that spans two device calls (a TU of several minutes) does not start over. The stamp is
    written only after a successful compile, so a killed compiler's partial object is never reused.
    """
    start = time.monotonic()
    stamp_file = Path(job["obj"] + ".stamp")
    stamp = _stamp(job)
    if reuse and Path(job["obj"]).is_file() and stamp_file.is_file() and stamp_file.read_text() == stamp:
        return {"key": job["key"], "ok": True, "seconds": 0.0, "error": "", "log": "", "reused": True}
    stamp_file.unlink(missing_ok=True)
    try:
        proc = subprocess.run(job["cmd"], capture_output=True, text=True, errors="replace", timeout=timeout)
        ok, log = proc.returncode == 0, proc.stdout + proc.stderr
        if ok:
            stamp_file.write_text(stamp)
    except subprocess.TimeoutExpired:
        ok, log = False, f"timed out after {timeout:.0f} s"
    except OSError as exc:
        ok, log = False, f"cannot run {job['cmd'][0]}: {exc}"
    return {"key": job["key"], "ok": ok, "seconds": round(time.monotonic() - start, 1),
            "error": next((ln.strip() for ln in log.splitlines() if "error" in ln), "") if not ok else "",
            "log": log[-3000:] if not ok else ""}


def compile_all(jobs: Sequence[dict], n_jobs: int, timeout: float,
                report: Callable[[dict], None] | None = None, reuse: bool = False) -> dict[str, dict]:
    """Compile ``jobs`` (largest ``.cu`` first) in a pool of ``n_jobs``; results by key (see compile_job)."""
    todo = sorted(jobs, key=lambda j: (not j["source"].endswith(".cu"), -j["size"]))
    out: dict[str, dict] = {}
    with cf.ThreadPoolExecutor(max(1, n_jobs)) as pool:
        for fut in cf.as_completed([pool.submit(compile_job, j, timeout, reuse) for j in todo]):
            r = fut.result()
            out[r["key"]] = r
            if report is not None:
                report(r)
    return out


CALLER = r"""
import importlib.util, json, sys, time, traceback
import torch
kind, lib, module, calls_file, out_file = sys.argv[1:6]
skip = set(json.loads(sys.argv[6])) if len(sys.argv) > 6 else set()
dev = sys.argv[7] if len(sys.argv) > 7 else "cuda"
def load(module, lib):
    spec = importlib.util.spec_from_file_location(module, lib)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod
if kind == "ops":
    torch.ops.load_library(lib)
    ext = getattr(torch.ops, module)
elif kind == "pybind-modules":  # several pybind11 modules, one library each: ext.NAME is module NAME
    import types
    ext = types.SimpleNamespace(**{m: load(m, path) for m, path in json.loads(lib).items()})
else:
    ext = load(module, lib)
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
results, times, sticky = {}, {}, False
for name, fn in calls.cases(ext, torch, dev).items():
    if name in skip:
        continue
    t = time.monotonic()
    try:
        results[name] = cpu(fn())
        torch.cuda.synchronize()
    except Exception as exc:
        results[name] = {"error": f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"[:300]}
        # a kernel fault leaves the process's CUDA context unusable: every later call would fail for it
        sticky = "CUDA error" in str(exc)
    times[name] = round(time.monotonic() - t, 3)
    if sticky:
        break
torch.save({"results": results, "times": times}, out_file)
print(f"{len(results)} calls")
sys.exit(3 if sticky else 0)
"""


def link_units(pkg: dict, jobs: Sequence[dict]) -> dict[str, list[dict]]:
    """The libraries one build links, by pybind11 module name, and the compile jobs of each: ``{"": jobs}`` (one
    library) for ``TORCH_LIBRARY`` ops and for one extension; for a package of several pybind11 extensions, one
    library per extension with objects (each its own ``PyInit_NAME``, as setup.py builds them; the calls see
    them as ``ext.NAME``)."""
    modules = [e["name"] for e in pkg["extensions"] if any(j["ext"] == e["name"] for j in jobs)]
    if pkg["kind"] == "pybind" and len(modules) > 1:
        return {m: [j for j in jobs if j["ext"] == m] for m in modules}
    return {"": list(jobs)}


def link_and_call(name: str, pkg: dict, variant: str, jobs: Sequence[dict], compiled: Mapping[str, dict], info,
                  build: Path, calls: Path, out: Path, call_timeout: float, python: str | None = None,
                  again: bool = False) -> dict:
    """Link one build, call its cases in a fresh process: ``{built, ran, log?, failed_tus?, outputs?}``; with
    ``again``, a second fresh process calls them once more (``outputs_again``: what the build gives twice)."""
    _, _, libs, _, cuda_home = info
    mine = [j for j in jobs if j["package"] == name and j["variant"] == variant]
    bad = [j["key"] for j in mine if not compiled.get(j["key"], {}).get("ok")]
    if bad:
        return {"built": False, "failed_tus": bad}
    groups = link_units(pkg, mine)
    several = "" not in groups
    libs_built = {}
    for m, objs in groups.items():
        lib = build / (f"{name}-{variant}-{m}.so" if m else f"{name}-{variant}.so")
        link = ["c++", "-shared", *[j["obj"] for j in objs], "-o", str(lib), *[f"-L{p}" for p in libs],
                f"-L{cuda_home}/lib64", "-lc10", "-ltorch", "-ltorch_cpu", "-ltorch_python", "-lc10_cuda",
                "-ltorch_cuda", "-lcudart", *[f"-Wl,-rpath,{p}" for p in libs]]
        proc = subprocess.run(link, capture_output=True, text=True, errors="replace")
        if proc.returncode != 0:
            return {"built": False, "link": (proc.stdout + proc.stderr)[-2000:]}
        libs_built[m] = str(lib)
    res = out / f"{name}-{variant}.pt"
    if several:
        kind, lib_arg, module = "pybind-modules", json.dumps(libs_built), ""
    else:
        kind, lib_arg = pkg["kind"], libs_built[""]
        module = pkg["module"] if pkg["kind"] == "ops" else pkg["extensions"][0]["name"]
    import torch

    caller = [python or sys.executable, "-c", CALLER, kind, lib_arg, module, str(calls)]
    ran, log, outputs = call_cases(caller, res, call_timeout, torch.load)
    entry: dict[str, Any] = {"built": True, "ran": ran, "log": "" if ran else log}
    if ran:
        entry["outputs"] = outputs
        if again:
            ran2, _, outputs2 = call_cases(caller, res, call_timeout, torch.load)
            if ran2:
                entry["outputs_again"] = outputs2
    return entry


def unstable_calls(first: Mapping[str, Any], second: Mapping[str, Any]) -> dict[str, dict]:
    """The calls whose outputs differ between two runs of the same build (``{"results": …}`` each), by name,
    with what differed: a race or uninitialised memory in the code itself, so a difference from the other
    build there says nothing about the port."""
    cmp = compare_builds(first, second)
    return {call: c for call, c in cmp.items() if c["status"] in ("differ", "error")}


def mark_unstable(cmp: dict[str, dict], unstable: Mapping[str, dict]) -> dict[str, dict]:
    """``cmp`` (:func:`compare_builds`) with each call that did not match and whose original is unstable
    (:func:`unstable_calls`) as ``original-unstable``, the original's own difference beside the port's."""
    for call, c in cmp.items():
        if call in unstable and c["status"] not in ("match", "both-error"):
            cmp[call] = {"status": "original-unstable",
                         "detail": {"port": c["detail"], "original twice": unstable[call]["detail"]}}
    return cmp


def call_cases(caller: Sequence[str], res: Path, call_timeout: float, load: Callable[[Path], dict],
               device: str = "cuda") -> tuple[bool, str, dict | None]:
    """Run the calls process ``caller`` (CALLER's argv without its output, skip list and device); after a call
    that left a CUDA error (the caller exits 3: the context is unusable from then on), start a fresh process for
    the calls after it, so that one kernel fault is charged to its own call, not to every call that followed.
    Returns ``(ran, log, {"results", "times"})``; ``log`` says how a process that wrote nothing ended."""
    merged: dict[str, dict] = {"results": {}, "times": {}}
    restarts = []
    while True:
        res.unlink(missing_ok=True)
        try:
            proc = subprocess.run([*caller, str(res), json.dumps(sorted(merged["results"])), device],
                                  capture_output=True, text=True, errors="replace", timeout=call_timeout)
        except subprocess.TimeoutExpired:
            return False, f"calls timed out after {call_timeout:.0f} s", None
        log = (proc.stdout + proc.stderr)[-2000:]
        if proc.returncode not in (0, 3) or not res.is_file():
            how = (f"the calls process died from signal {-proc.returncode}" if proc.returncode < 0
                   else f"the calls process exited {proc.returncode}")
            return False, f"{how}{' without output' if not log.strip() else ''}: {log}".rstrip(": "), None
        part = load(res)
        merged["results"].update(part["results"])
        merged["times"].update(part["times"])
        if proc.returncode == 0:
            break
        restarts.append(next(reversed(part["results"]), "?"))
        if not part["results"]:  # nothing new ran: stop rather than loop
            break
    if restarts:
        merged["restarted_after"] = restarts
    return True, "", merged


def dtype_of(value) -> str:
    """The dtype name deciding a call's tolerance: the first non-float32 one among its tensors, else float32's."""
    if hasattr(value, "dtype"):
        return str(value.dtype).split(".")[-1]
    if isinstance(value, dict):
        for v in value.values():
            d = dtype_of(v)
            if d in TOLERANCE and d != "float32":
                return d
        return next((d for d in map(dtype_of, value.values()) if d in TOLERANCE), "")
    if isinstance(value, (list, tuple)):
        return dtype_of(dict(enumerate(value)))
    return ""


def compare_builds(orig: Mapping[str, Any], port: Mapping[str, Any]) -> dict[str, dict]:
    """Per call of the original: ``{status, detail}`` (:func:`vado.verify.torch_ext_run.compare_outputs`)."""
    from vado.verify import torch_ext_run

    cmp: dict[str, dict] = {}
    for call, a in orig["results"].items():
        b = port["results"].get(call)
        rtol, atol = TOLERANCE.get(dtype_of(a), TOLERANCE["float32"])
        cmp.update(torch_ext_run.compare_outputs({call: a}, {call: b}, rtol, atol))
    return cmp


def run_extension(original: Path, port: Path, pkg: dict, calls: Path, scratch: Path, *, arch: str = "sm_90",
                  jobs: int = 0, tu_timeout: float = 480.0, call_timeout: float = 120.0, wave: int = 64,
                  python: str | None = None, report: Callable[[dict], None] | None = None) -> dict:
    """Build ``original`` and ``port`` (one extension, ``pkg``), call both, compare (see the module docstring).

    Returns ``{"tus": {key: result}, "orig": build, "port": build, "calls": {name: {status, detail}}}``."""
    from vado.verify import hip_on_cuda, torch_ext_run

    name = pkg.get("name", "ext")
    info = torch_build_info()
    inc64, prelude, w64, build = scratch / "inc64", scratch / "prelude.h", scratch / "w64", scratch / "build"
    build.mkdir(parents=True, exist_ok=True)
    hip_on_cuda.write_include_dir(inc64, wave)
    torch_ext_run.port_build_copy(port, w64, wave)
    torch_ext_run.write_prelude(port, prelude, wave)
    all_jobs, seen, todo = [], set(), []
    for variant in ("orig", "port"):
        for job in tu_jobs(original, w64, port, prelude, inc64, name, pkg, variant, info, arch, build):
            all_jobs.append(job)
            if job["key"] not in seen:
                seen.add(job["key"])
                todo.append(job)
    compiled = compile_all(todo, jobs or os.cpu_count() or 8, tu_timeout, report)
    out: dict[str, Any] = {"tus": compiled}
    for variant in ("orig", "port"):
        out[variant] = link_and_call(name, pkg, variant, all_jobs, compiled, info, build, calls, scratch,
                                     call_timeout, python, again=variant == "orig")
    o, p = out["orig"].pop("outputs", None), out["port"].pop("outputs", None)
    o2 = out["orig"].pop("outputs_again", None)
    if o is not None and p is not None:
        out["calls"] = compare_builds(o, p)
        if o2 is not None:  # a call the original does not answer the same way twice is not the port's to match
            out["calls"] = mark_unstable(out["calls"], unstable_calls(o, o2))
    return out
