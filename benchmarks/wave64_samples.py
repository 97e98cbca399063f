#!/usr/bin/env python3
"""Wave64 fidelity beyond HeCBench: the programs of a list file (``benchmarks/wave64_programs.json``).

A program there is a directory of sources in a public repository (NVIDIA/cuda-samples,
NVIDIA/CUDALibrarySamples …), the shared directories it includes headers from (cuda-samples'
``Common/``), sources of those it is built with, libraries to link and run arguments, with the reason
it was chosen; a directory holding several programs (llm.c's ``dev/cuda``: a ``main`` in each ``.cu``) is named
with the ``files`` of one. Each source repository is fetched and extracted beforehand (the list names repository,
commit and where it is extracted; ``--root NAME=PATH`` overrides); no fetched code is committed.

``prepare`` writes the same work directory :mod:`wave64_differential` runs (its ``run`` and ``report``
steps are this benchmark's too): per program the original, vado's default port
(:func:`vado.port.tree.port_tree`, target rocm-7.2) and hipify-perl's translation, each variant's shared
directories copied, ported or translated the same way under ``shared/VARIANT``; the ports' kernels marked
as ``vado verify --wave 64`` marks them. A port that leaves a finding whose verdict for the target is
``blocked`` is stopped before the run: the manifest records the finding (code, file:line, message) and
``run`` reports the program's port as ``stopped`` with it instead of building it. ``--check`` compiles
all three variants here with ``nvcc -c`` (no GPU) so that a header problem shows before GPU time::

    python benchmarks/wave64_samples.py prepare --work .gpu-samples --hipify /path/to/HIPIFY/bin/hipify-perl --check
    bash benchmarks/wave64_device.sh --work .gpu-samples          # on the GPU, with .gpu-samples carried
    python benchmarks/wave64_differential.py report OUT/wave64_results.json
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from wave64_differential import SOURCE_EXTS, VARIANTS, _first_error, _sources, check, clock_seeds, hipify_tree, program_dir  # noqa: E402

LIST = ROOT / "benchmarks" / "wave64_programs.json"
#: Largest file copied from a program's directory (sources only: its data sets stay behind).
MAX_FILE = 1 << 20


def load_list(path: str | Path = LIST, roots: dict[str, str] | None = None) -> dict:
    """The list file, each source's ``path`` replaced by ``roots[name]`` where given.

    Raises ValueError for a program naming an unknown source or shared directory, or a duplicate name."""
    doc = json.loads(Path(path).read_text(encoding="utf-8"))
    for name, root in (roots or {}).items():
        if name not in doc["sources"]:
            raise ValueError(f"--root names an unknown source {name!r}")
        doc["sources"][name]["path"] = root
    seen = set()
    for p in doc["programs"]:
        if p["name"] in seen:
            raise ValueError(f"program {p['name']!r} is listed twice")
        seen.add(p["name"])
        src = doc["sources"].get(p["source"])
        if src is None:
            raise ValueError(f"program {p['name']!r} names an unknown source {p['source']!r}")
        for s in p.get("shared", []):
            if s not in src.get("shared", {}):
                raise ValueError(f"program {p['name']!r} names an unknown shared directory {s!r}")
        files = p.get("files")
        if files is not None and not (isinstance(files, list) and files and all(
                isinstance(f, str) and f and not Path(f).is_absolute() and ".." not in Path(f).parts for f in files)):
            raise ValueError(f"program {p['name']!r}: files needs a list of paths inside its directory")
        ig = p.get("ignore_lines")
        if ig is not None:
            if not (isinstance(ig, dict) and ig.get("pattern") and ig.get("why")):
                raise ValueError(f"program {p['name']!r}: ignore_lines needs a pattern and a why")
            try:
                re.compile(ig["pattern"])
            except re.error as e:
                raise ValueError(f"program {p['name']!r}: ignore_lines pattern: {e}") from None
    return doc


def _copy_sources(src: Path, dst: Path, glob: str = "**/*", files: list[str] | None = None) -> None:
    """Copy the source files (:data:`SOURCE_EXTS`, at most :data:`MAX_FILE` bytes) of ``src`` matching
    ``glob`` (or, given, those of ``files``, paths inside ``src``) to ``dst``, keeping their relative paths;
    links are not followed."""
    dst.mkdir(parents=True, exist_ok=True)
    for p in sorted(src / f for f in files) if files is not None else sorted(src.glob(glob)):
        if p.is_symlink() or not p.is_file() or p.suffix not in SOURCE_EXTS or p.stat().st_size > MAX_FILE:
            continue
        out = dst / p.relative_to(src)
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(p, out)


def blocking_findings(result, target, manual: bool = True) -> list[str]:
    """The findings a port left that stop it before a run: vado's own open work (those whose verdict for
    ``target``, by its name, else its family: rules give verdicts per family, ``rocm``, is needs-manual-work or
    blocked; a port with one is unfinished by vado's own account, or fails to build by design, as API009's
    cooperative-groups APIs HIP lacks do), as ``CODE file:line: message``, the blocked ones first (the deciding
    finding is the first). ``manual=False``: the blocked ones only (a shared directory's: see :func:`prepare`)."""
    from vado.model.verdict import Verdict

    out: dict[Verdict, list[str]] = {Verdict.BLOCKED: [], Verdict.MANUAL: []} if manual else {Verdict.BLOCKED: []}
    for f in result.remaining:
        verdict = f.verdicts.get(target.name, f.verdicts.get(target.family))
        if verdict in out:
            out[verdict].append(f"{f.code} {Path(f.span.path).name}:{f.span.line}: {f.message}"[:400])
    return out[Verdict.BLOCKED] + out.get(Verdict.MANUAL, [])


def _port_three(at: dict[str, Path], target, hipify: Path, manual: bool = True,
                open_work: dict[str, list[str]] | None = None) -> tuple[list[str], dict, list[str]]:
    """Port ``at['orig']`` (the copied sources) with vado and hipify-perl; returns the blocking
    findings of vado's port, the counts of its remaining findings by code, and the files hipify-perl left
    untranslated. ``open_work`` (a shared directory's) receives the port's needs-manual-work findings by file
    name (see :func:`included_open_work`)."""
    from vado.port.tree import port_tree

    result = port_tree(at["orig"], at["vado"], target)
    remaining: dict[str, int] = {}
    for f in result.remaining:
        remaining[f.code] = remaining.get(f.code, 0) + 1
    if open_work is not None:
        depth: dict[str, list[int]] = {}
        for f in result.remaining:
            name = Path(f.span.path).name
            if name not in depth:
                src = next((p for p in at["orig"].rglob(name) if p.is_file()), None)
                depth[name] = conditional_depths(src.read_bytes()) if src is not None else []
            for line in blocking_findings(SimpleNamespace(remaining=[f]), target):
                # A test of a CUDA library header's include guard (ARCH009) concerns the programs using that library;
                # a finding under another conditional (helper_cuda.h's cuSOLVER strings under #ifdef
                # CUSOLVER_COMMON_H_) is not counted: what the file compiles depends on what its includer includes.
                guarded = (f.data or {}).get("header") if f.code == "ARCH009" else None
                if guarded is None and f.span.line <= len(depth[name]) and depth[name][f.span.line - 1] > 0:
                    continue
                open_work.setdefault(name, []).append((line, guarded))
    failed = [f"port failed on {Path(f.path).name}: {f.error}" for f in result.files if f.status == "failed"]
    return failed + blocking_findings(result, target, manual), remaining, hipify_tree(at["orig"], at["hipify"], hipify)


_DIRECTIVE = re.compile(rb"^[ \t]*#[ \t]*(ifndef|ifdef|if|endif|define)\b[ \t]*(\w*)")


def conditional_depths(text: bytes) -> list[int]:
    """Per line of ``text``: how many ``#if``/``#ifdef``/``#ifndef`` enclose it, the file's include guard (a first
    ``#ifndef X`` whose next directive is ``#define X``) not counted."""
    lines = text.split(b"\n")
    guard = None
    for ln in lines:
        m = _DIRECTIVE.match(ln)
        if m is None:
            continue
        if guard is None and m.group(1) == b"ifndef":
            guard = m.group(2)
            continue
        if guard is not None and not (m.group(1) == b"define" and m.group(2) == guard):
            guard = b""
        break
    out, depth, guard_open = [], 0, False
    for ln in lines:
        m = _DIRECTIVE.match(ln)
        kind = m.group(1) if m else None
        if kind in (b"ifndef", b"ifdef", b"if"):
            if guard and not guard_open and kind == b"ifndef" and m.group(2) == guard:
                guard_open = True
                out.append(depth)
                continue
            out.append(depth)  # the directive itself is read at the depth outside it (ARCH007 on an #if line)
            depth += 1
            continue
        elif kind == b"endif" and depth > 0:
            depth -= 1
            out.append(depth)
            continue
        out.append(depth)
    return out


_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*[<"]([^>"]+)[>"]', re.M)


def _library_of(header: str) -> str | None:
    from vado.knowledge.api import lookup

    e = lookup(header)
    return e.library if e is not None and e.kind == "header" else None


def included_open_work(program: Path, shared: dict[str, Path],
                       open_work: dict[str, dict[str, list[tuple[str, str | None]]]]) -> list[str]:
    """The needs-manual-work findings of the shared-directory headers the sources of ``program`` include, directly
    or through another of those headers (matched by file name: the directories are on the include path), in the
    order met. A shared directory's open work stops only the programs that include its file: cuBLAS/utils'
    cublas_utils.h defines a function over a CUDA 13 type ROCm lacks, and every includer fails hipcc, while
    cuda-samples' Common is a library of headers of which a program includes a few. A test of a CUDA library
    header's include guard there (ARCH009: helper_cuda.h's ``#ifdef CUBLAS_API_H_``) concerns only a program that
    includes a header of that library itself."""
    by_name = {f.name: (d, f) for d, root in shared.items() for f in sorted(root.rglob("*")) if f.is_file()}
    found: list[tuple[str, str | None]] = []
    seen: set[str] = set()
    libraries: set[str] = set()
    todo = [f for f in _sources(program)]
    while todo:
        for m in _INCLUDE.finditer(todo.pop(0).read_bytes()):
            path = m.group(1).decode("latin-1")
            lib = _library_of(path)
            if lib is not None:
                libraries.add(lib)
            name = Path(path).name
            if name in seen or name not in by_name:
                continue
            seen.add(name)
            d, f = by_name[name]
            found += open_work.get(d, {}).get(name, [])
            todo.append(f)
    return [line for line, guarded in found if guarded is None or _library_of(guarded) in libraries]


#: Include guards ROCm 7.2.4's headers define, by the HIP header that defines them. vado's port turns a test of
#: a CUDA header's guard into a test of these (vado.rules.arch.CUDA_HEADER_GUARDS: cuda-samples' helper_cuda.h
#: tests ``__CUDA_RUNTIME_H__`` around findCudaDevice), but vado.verify.hip_on_cuda's wrappers do not define
#: them; the work directory's copies do, as the ROCm headers they stand for.
ROCM_GUARDS = {
    "hip/hip_runtime.h": ("HIP_INCLUDE_HIP_HIP_RUNTIME_H", "HIP_INCLUDE_HIP_HIP_RUNTIME_API_H",
                          "HIP_INCLUDE_HIP_DRIVER_TYPES_H"),
    "hip/hip_runtime_api.h": ("HIP_INCLUDE_HIP_HIP_RUNTIME_API_H", "HIP_INCLUDE_HIP_DRIVER_TYPES_H"),
    "hip/driver_types.h": ("HIP_INCLUDE_HIP_DRIVER_TYPES_H",),
    "hip/hip_fp16.h": ("HIP_INCLUDE_HIP_HIP_FP16_H",),
    "hipblas/hipblas.h": ("HIPBLAS_H",),
}
#: CUDA headers declaring what ROCm 7.2.4's HIP header declares and vado.verify.hip_on_cuda's wrapper does not
#: bring in: ROCm's hip_runtime_api.h declares hipProfilerStart/Stop, CUDA has them in cuda_profiler_api.h.
ROCM_DECLARES = {
    "hip/hip_runtime.h": ("cuda_profiler_api.h",),
    "hip/hip_runtime_api.h": ("cuda_profiler_api.h",),
}


def complete_layer(inc: Path) -> list[str]:
    """Append ROCm's include guards (:data:`ROCM_GUARDS`, each ``#ifndef``-protected, so a layer defining them
    already is unchanged) and the CUDA headers of :data:`ROCM_DECLARES` to the wrappers of the include
    directory ``inc``; returns the files changed."""
    changed = []
    for rel in sorted(set(ROCM_GUARDS) | set(ROCM_DECLARES)):
        f = inc / rel
        if not f.is_file():
            continue
        extra = "".join(f"#ifndef {g}\n#define {g}\n#endif\n" for g in ROCM_GUARDS.get(rel, ()))
        extra += "".join(f"#include <{h}>\n" for h in ROCM_DECLARES.get(rel, ()))
        f.write_text(f.read_text(encoding="utf-8") + "// as ROCm 7.2.4's header (benchmarks/wave64_samples.py)\n"
                     + extra, encoding="utf-8")
        changed.append(rel)
    return changed


def write_compile_db(program: Path, flags: list[str], shared: list[Path]) -> None:
    """``compile_commands.json`` in the copied ``program``: the commands this benchmark builds its units with
    (``nvcc`` with the list's flags and the shared directories), so that vado's port judges the configuration
    that runs (a switch the program documents as ``-DNAME`` and this build leaves off is off: llm.c's
    ``ENABLE_CUDNN``), as it would with the project's own compile database."""
    entries = [{"directory": str(program.resolve()),
                "arguments": ["nvcc", *flags, *[f"-I{p.resolve()}" for p in shared], "-c", str(f.relative_to(program)),
                              "-o", f"{f.name}.o"],
                "file": str(f.relative_to(program))}
               for f in _sources(program) if f.suffix in (".cu", ".cpp", ".cc", ".c")]
    if entries:
        (program / "compile_commands.json").write_text(json.dumps(entries, indent=1))


def prepare(args) -> dict:
    """Write the work directory for the list's programs (see the module docstring); returns the manifest."""
    from vado.knowledge.targets import get_target
    from vado.verify.hip_on_cuda import cross_lane_kernels, device_printf_formats, mark_file_exits, write_include_dir

    roots = dict(r.split("=", 1) for r in args.root)
    doc = load_list(args.list, roots)
    only = set(args.programs.split(",")) if args.programs else None
    work = Path(args.work)
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    for w in (32, 64):
        complete_layer(write_include_dir(work / f"inc{w}", w))
    target = get_target("rocm-7.2")
    hipify = Path(args.hipify)
    programs = [p for p in doc["programs"] if only is None or p["name"] in only]
    # Shared directories: ported once per variant; a blocked finding in one stops every program using it. Their
    # needs-manual-work findings stop only the programs whose sources include the file they are in (directly or
    # through another shared header: included_open_work): a shared helper directory (cuda-samples' Common) is a
    # library of which a program includes a part.
    shared_stops: dict[str, list[str]] = {}
    shared_open: dict[str, dict[str, list[str]]] = {}
    for sname in sorted({p["source"] for p in programs}):
        src = doc["sources"][sname]
        for dname, spec in src.get("shared", {}).items():
            at = {v: work / "shared" / v / sname / dname for v in VARIANTS}
            _copy_sources(Path(src["path"]) / spec["from"], at["orig"], spec.get("glob", "**/*"))
            stops, _, _ = _port_three(at, target, hipify, manual=False,
                                      open_work=shared_open.setdefault(f"{sname}/{dname}", {}))
            shared_stops[f"{sname}/{dname}"] = stops
            print(f"shared {sname}/{dname}: {len(_sources(at['orig']))} files"
                  + (f"; vado port stopped: {stops[0]}" if stops else ""), flush=True)
    chosen = []
    for spec in programs:
        src = doc["sources"][spec["source"]]
        name = spec["name"]
        d = Path(src["path"]) / spec["dir"]
        if not d.is_dir():
            print(f"  {name}: {d} is absent (fetch {src['repo']} at {src['commit']} and extract it there)", flush=True)
            continue
        # A program of some files of a directory (llm.c's dev/cuda: one main per .cu, a header they share).
        absent = [f for f in spec.get("files", []) if not (d / f).is_file()]
        if absent:
            print(f"  {name}: {d / absent[0]} is absent (fetch {src['repo']} at {src['commit']})", flush=True)
            continue
        at = {v: program_dir(work, name, v) for v in VARIANTS}
        _copy_sources(d, at["orig"], files=spec.get("files"))
        shared = [f"{spec['source']}/{s}" for s in spec.get("shared", [])]
        flags = [*src.get("flags", []), *spec.get("flags", []), *[f"-I{i}" for i in spec.get("include", [])]]
        write_compile_db(at["orig"], flags, [work / "shared" / "orig" / sh for sh in shared])
        stops, remaining, untranslated = _port_three(at, target, hipify)
        stops += [s for sh in shared for s in shared_stops.get(sh, [])]
        stops += [s for s in included_open_work(at["orig"], {sh: work / "shared" / "orig" / sh for sh in shared},
                                                shared_open) if s not in stops]
        prog = {"name": name, "source": spec["source"], "dir": spec["dir"], "tags": spec.get("tags", []),
                "why": spec.get("why", ""), "args": spec.get("args", ""), "shared": shared,
                **({"makefile_args": spec["makefile_args"]} if "makefile_args" in spec else {}),
                **({"files": spec["files"]} if "files" in spec else {}),
                "shared_sources": [f"{spec['source']}/{s}" for s in spec.get("shared_sources", [])],
                "libs": spec.get("libs", []), "ignore_lines": spec.get("ignore_lines"), "siblings": [], "data": [], "remaining": remaining, "host_cpp": True,
                "hipify_failed": untranslated,
                "units": [{"source": str(f.relative_to(at["orig"])), "flags": [x for x in flags if x != "-rdc=true"],
                           "rdc": "-rdc=true" in flags}
                          for f in _sources(at["orig"]) if f.suffix in (".cu", ".cpp", ".cc", ".c")]}
        if stops:
            prog["stopped"] = {"vado": stops[0] + (f" (and {len(stops) - 1} more)" if len(stops) > 1 else "")}
        prog["kernels"] = {v: cross_lane_kernels(at[v]) for v in ("vado", "hipify")}
        prog["device_printf"] = device_printf_formats(at["orig"])
        prog["clock_seeds"] = clock_seeds(at["orig"])
        for v in ("vado", "hipify"):  # as vado verify --wave 64 builds a port: its kernels count lanes that leave
            for f in _sources(at[v]):
                mark_file_exits(f)
        chosen.append(prog)
    for v in ("vado", "hipify"):
        for f in _sources(work / "shared" / v):
            mark_file_exits(f)
    print(f"{len(chosen)} programs prepared of {len(programs)} listed", flush=True)
    manifest = {"seed": None, "set": Path(args.list).name,
                "sources": {k: {"repo": v["repo"], "commit": v["commit"]} for k, v in doc["sources"].items()},
                "eligible": [p["name"] for p in chosen], "programs": chosen}
    (work / "manifest.json").write_text(json.dumps(manifest, indent=1))
    size = sum(p.stat().st_size for p in work.rglob("*") if p.is_file())
    print(f"prepared {work} ({size / 1e6:.1f} MB)")
    if args.check:
        check_here(work, args.jobs)
    return manifest


def check_here(work: Path, jobs: int, variants: tuple[str, ...] = VARIANTS, names: list[str] | None = None) -> dict:
    """``nvcc -c`` of ``variants`` of the programs ``names`` (in that order; default every program) of a
    prepared work directory (no GPU), each result written into its manifest; returns how many compiled per
    variant."""
    manifest = json.loads((work / "manifest.json").read_text())
    by_name = {p["name"]: p for p in manifest["programs"]}
    progs = [by_name[n] for n in names if n in by_name] if names else manifest["programs"]
    ok = check(progs, work, jobs, variants=variants)
    manifest["cpu_compile"] = ok
    (work / "manifest.json").write_text(json.dumps(manifest, indent=1))
    return ok


ROCM_HIPCC = "/var/cache/vado/rocm-7.2.4/bin/hipcc"


def rocm_argv(prog: dict, unit: dict, work: Path, hipcc: str, arch: str) -> list[str]:
    """``hipcc -c`` of one unit of vado's port of ``prog`` for ``arch`` (the AMD build vado's port is for): the
    unit's flags (``-fopenmp`` kept), the port's shared directories, and the kernels' exit marks defined away."""
    from vado.verify.hip_on_cuda import EXIT_GUARD

    shared = work / "shared" / "vado"
    return [hipcc, "-x", "hip", f"--offload-arch={arch}", "-O1", *unit["flags"], f"-D{EXIT_GUARD}=",
            *[f"-I{(shared / d).resolve()}" for d in prog.get("shared", [])], "-c", unit["source"],
            "-o", f"{Path(unit['source']).name}.rocm.o"]


def rocm_here(work: Path, hipcc: str = ROCM_HIPCC, arch: str = "gfx942", names: list[str] | None = None) -> dict:
    """Compile vado's port of the programs ``names`` (default: every one not stopped) of a prepared work directory
    with ROCm's ``hipcc -c`` (one unit at a time: a ROCm compile is heavy), each result written into the manifest
    (``rocm_compile``: ``ok`` or the first error); returns ``{"ok": n, "failed": n}``. No GPU is needed."""
    manifest = json.loads((work / "manifest.json").read_text())
    by_name = {p["name"]: p for p in manifest["programs"]}
    progs = [by_name[n] for n in names if n in by_name] if names else manifest["programs"]
    counts = {"ok": 0, "failed": 0}
    for prog in progs:
        if prog.get("stopped", {}).get("vado"):
            continue
        d = program_dir(work, prog["name"], "vado")
        result = "ok"
        for unit in prog["units"]:
            try:
                proc = subprocess.run(rocm_argv(prog, unit, work, hipcc, arch), cwd=d, capture_output=True, text=True,
                                      timeout=900)
                err = "" if proc.returncode == 0 else _first_error(proc.stderr)
            except (OSError, subprocess.SubprocessError) as e:
                err = f"hipcc did not run: {e}"
            for o in d.glob("*.rocm.o"):
                o.unlink()
            if err:
                result = f"{unit['source']}: {err}"
                break
        prog["rocm_compile"] = {"arch": arch, "result": result}
        counts["ok" if result == "ok" else "failed"] += 1
        print(f"  {prog['name']} vado, hipcc {arch}: {result}", flush=True)
    manifest["rocm_compile"] = counts
    (work / "manifest.json").write_text(json.dumps(manifest, indent=1))
    return counts


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("prepare")
    p.add_argument("--list", default=str(LIST))
    p.add_argument("--root", action="append", default=[], metavar="SOURCE=PATH",
                   help="where a source of the list is extracted (default: its 'path')")
    p.add_argument("--hipify", default="/work/repos/HIPIFY/bin/hipify-perl")
    p.add_argument("--work", default=str(ROOT / ".gpu-samples"))
    p.add_argument("--programs", default="", help="comma-separated names (default: every program of the list)")
    p.add_argument("--check", action="store_true", help="nvcc -c all three variants here")
    p.add_argument("--jobs", type=int, default=2)
    c = sub.add_parser("check", help="nvcc -c the three variants of a prepared work directory here")
    c.add_argument("--work", default=str(ROOT / ".gpu-samples"))
    c.add_argument("--jobs", type=int, default=2)
    c.add_argument("--variants", default=",".join(VARIANTS), help="comma-separated, of orig,vado,hipify")
    c.add_argument("--programs", default="", help="comma-separated names, checked in this order (default: all)")
    r = sub.add_parser("rocm", help="hipcc -c of vado's ports of a prepared work directory here (ROCm, no GPU)")
    r.add_argument("--work", default=str(ROOT / ".gpu-samples"))
    r.add_argument("--hipcc", default=ROCM_HIPCC)
    r.add_argument("--arch", default="gfx942")
    r.add_argument("--programs", default="", help="comma-separated names (default: every program not stopped)")
    a = ap.parse_args()
    if a.cmd == "prepare":
        prepare(a)
    elif a.cmd == "rocm":
        print(rocm_here(Path(a.work), a.hipcc, a.arch, [n for n in a.programs.split(",") if n]))
    else:
        check_here(Path(a.work), a.jobs, tuple(v for v in a.variants.split(",") if v in VARIANTS),
                   [n for n in a.programs.split(",") if n])


if __name__ == "__main__":
    main()
