"""Issue 25's bar on real multi-directory CUDA repositories: audit verdict, port, scope, own ROCm build.

Usage::

    python benchmarks/project_ports.py REPO [REPO ...] [--work DIR] [--json out.json] [--sample 6]
        [--hipcc PATH] [--arch gfx942] [--jobs 1] [--timeout 300] [--verify] [--commit NAME=SHA ...]

For each repository (a directory; its commit is recorded from ``--commit NAME=SHA`` or a
``.git`` inside it, else "unknown"), through vado's CLI (``python -m vado``, so whatever
``vado`` is on ``PYTHONPATH`` is measured):

* ``vado audit -f json``: the repository verdict per target, findings active / inactive for
  ROCm (``inactive`` = in a branch the AMD configuration does not compile), skips by reason.
* ``vado port -o WORK/NAME -f json``: the files the port changed, the findings left, and
  whether everything out of scope is byte-identical in OUT — every file under each path
  :func:`vado.scan.scope.project_scope` calls vendored, another backend or the project's own
  HIP path is hashed (SHA-256) in the repository and in OUT; a file missing or different is
  listed.
* where the project has its own ROCm build (``ProjectScope.own_rocm_build()``): a sample of
  ``--sample`` of its HIP-path translation units (``.cu``/``.hip`` files, sorted by path,
  N evenly spaced) is compiled with ``hipcc -x hip --offload-arch=ARCH -c`` plus the macros the scope
  derives (``HipBuild.defines``) and include directories (every ``include/`` directory of
  the repository and every directory holding a header a sampled unit's directory chain
  reaches: the unit's own directory and its ancestors), once from the repository and once
  from OUT. The numbers of objects built before/after must agree. This is not the project's
  build (CMake is not run): the flags are what the scope knows, so a unit that fails in
  both trees is reported with its first error, not counted as a port regression.
* ``--inputs-all``: beside the sample, every HIP-path unit is preprocessed (``hipcc -M -MG``, the
  sample's flags) in OUT and every file it reads inside the tree is hashed in both trees: a unit whose
  inputs are all byte-identical compiles to the same object, at the cost of a preprocessing.
* ``--own-build NAME`` (repeatable): for that repository, where its own ROCm build is CMake's, the
  build itself instead of the sample (a whole ggml HIP build is hundreds of heavy units: name only
  what the machine can build):
  the repository, then OUT, is copied to the same path (``WORK/.own-NAME/src``, so that objects
  compare byte for byte), configured with the ROCm 7.2.4 chroot's ``cmake`` (``--rocm-bin``) and the
  options of ``HipBuild.how`` plus ``-DCMAKE_EXPORT_COMPILE_COMMANDS=ON``, and built with
  ``cmake --build -j JOBS -- -k`` under ``nice``; every object is hashed. Then ``vado verify SRC
  --build compile-db`` (the build's own compile database) on the port's copy gives the agreement:
  per unit, the build compiled it (its ``-o`` exists) = verify passed it.
* ``--own-build-sample N``: for a repository whose own ROCm build is CMake's and too heavy to build
  whole (Ginkgo): its configure, N of its HIP units built with the build's own commands, ``vado verify
  --build compile-db`` on the compile database cut to those units (the agreement), and every input of
  those units hashed before/after the port (see :func:`cmake_db_sample`).
* ``--verify``: ``vado verify OUT --original REPO -f json`` through the CLI, its per-unit
  results summarised (the verify-agreement column; "not run" without the flag).
* ``--agree`` for a ported tree built by CMake (a CMakeLists.txt and no Makefile at its root): OUT copied
  (with ``--add-dir REL=DIR`` copied in: a submodule the snapshot lacks), configured with the chroot's
  ``cmake`` and ``--cmake-arg`` values, built with ``make -k -jJOBS``; per unit of the build's compile
  database (HIP and C/C++; units generated in the build directory left out), its objects exist
  against ``vado verify COPY --build cmake`` with the same ``--cmake-arg`` values.
* ``--agree``: for a ported tree built by Make (a Makefile at its root): OUT copied, the chroot's
  ``make -C DIR -k -jJOBS`` from the copy's root for every directory verify's ``make -n`` reads
  (``--make-var`` values), then ``vado verify COPY --build make -a ARCH -f json``; per unit, the build's result (its
  ``-o`` exists; a failure whose command compiles alone with ``-c`` is link-only) against verify's, the
  disagreements listed, and every verify error line with the finding at it (or none).

The table is printed; ``--json`` writes every number. Nothing here runs the project's own
build logic. Keep ``--jobs 1`` on a shared machine.
"""

from __future__ import annotations

import argparse
import glob
import hashlib
import json
import os
import shlex
import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

ROCM_HIPCC = "/var/cache/vado/rocm-7.2.4/bin/hipcc"
ROCM_BIN = "/var/cache/vado/rocm-7.2.4/bin"
TARGET = "rocm-7.2"
_TU_EXT = (".cu", ".hip")
_HEADER_EXT = (".h", ".hpp", ".cuh", ".hh", ".inl")


def sha256(path: Path) -> str:
    """SHA-256 of a regular file's bytes ("" for anything else)."""
    if path.is_symlink() or not path.is_file():
        return ""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def files_under(root: Path, rel: str) -> list[str]:
    """Relative paths of the regular files at or under ``root/rel`` (no symlinks followed)."""
    base = root / rel
    if base.is_symlink():
        return [rel]
    if base.is_file():
        return [rel]
    out = []
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames[:] = [d for d in dirnames if d != ".git"]
        for name in filenames:
            out.append(os.path.relpath(os.path.join(dirpath, name), root).replace(os.sep, "/"))
    return sorted(out)


def out_of_scope(root: Path) -> dict[str, str]:
    """Every path vado's scope leaves out of a port, mapped to why (vendored, other-backend,
    own-hip-path), with the project's HIP build (or None)."""
    from vado.scan.scope import Scope, project_scope

    ps = project_scope(root)
    paths: dict[str, str] = {}
    for skip in ps.vendored:
        paths[skip.path] = "vendored"
    for path, fs in ps.files.items():
        if fs.scope is not Scope.PROJECT:
            paths[path] = fs.scope.value
    return paths, ps


def compare_left_out(root: Path, out: Path, paths: dict[str, str]) -> dict:
    """Hash every file under each left-out path in ``root`` and in ``out``; count files and
    list the ones missing or different in OUT, by reason."""
    checked: Counter = Counter()
    differ: list[dict] = []
    for rel, why in sorted(paths.items()):
        for f in files_under(root, rel):
            checked[why] += 1
            a, b = sha256(root / f), sha256(out / f)
            if not (out / f).exists():
                differ.append({"path": f, "why": why, "problem": "missing in OUT"})
            elif a != b:
                differ.append({"path": f, "why": why, "problem": "bytes differ"})
    return {"files_checked": dict(checked), "differ": differ, "identical": not differ}


def run_json(cmd: list[str], timeout: float) -> tuple[int, dict | None, str, float]:
    """Run ``cmd``, parse its stdout as JSON; (rc, data or None, stderr tail, seconds)."""
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return 124, None, f"timed out after {timeout}s", time.monotonic() - t0
    dt = time.monotonic() - t0
    try:
        data = json.loads(p.stdout)
    except json.JSONDecodeError:
        data = None
    return p.returncode, data, p.stderr[-2000:], dt


def summarize_audit(data: dict) -> dict:
    """Repository verdicts per target, active/inactive ROCm findings, the active findings that
    need manual work or block on ROCm (by code), skips by reason."""
    verdicts = {v["target"]: v["verdict"] for v in data.get("verdicts", [])}
    reasons = {v["target"]: v["reason"] for v in data.get("verdicts", [])}
    active = inactive = 0
    deciding_rocm: Counter = Counter()
    for f in data.get("findings", []):
        if TARGET in (f.get("inactive") or {}):
            inactive += 1
        else:
            active += 1
            if f.get("verdicts", {}).get(TARGET) in ("needs-manual-work", "blocked"):
                deciding_rocm[f["code"]] += 1
    skips = Counter(s["reason"] for s in data.get("skips", []))
    return {"verdicts": verdicts, "rocm_reason": reasons.get(TARGET, ""), "findings_active": active,
            "findings_inactive": inactive, "rocm_manual_codes": dict(deciding_rocm.most_common()),
            "skips": dict(skips), "files_scanned": data.get("stats", {}).get("files_scanned")}


def summarize_port(data: dict) -> dict:
    """Files by status, findings left for humans (by code), errors."""
    status = Counter(f["status"] for f in data.get("files", []))
    left: Counter = Counter()
    for r in data.get("remaining", []):
        left[r.get("code", "?")] += 1
    return {"files": dict(status), "remaining": dict(left.most_common()), "errors": len(data.get("errors", [])),
            "own_rocm_build": data.get("own_rocm_build", "")}


def include_dirs(root: Path, tus: list[str]) -> list[str]:
    """``include/`` directories of the tree plus each unit's directory and its ancestors up to the root."""
    dirs: list[str] = []
    for dirpath, dirnames, _ in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != ".git"]
        if os.path.basename(dirpath) == "include":
            dirs.append(os.path.relpath(dirpath, root))
    for tu in tus:
        d = os.path.dirname(tu)
        while d:
            dirs.append(d)
            d = os.path.dirname(d)
    dirs.append(".")
    return sorted(set(dirs))


def compile_unit(hipcc: str, tree: Path, tu: str, defines: list[str], incs: list[str], arch: str,
                 timeout: float, obj: Path) -> dict:
    """Compile one unit of ``tree`` to ``obj``; ok, seconds and the first error line. The tree's
    path is mapped to ``.`` so the objects of two trees compare byte for byte."""
    cmd = [hipcc, "-x", "hip", f"--offload-arch={arch}", "-std=c++17", "-O1", "-c", str(tree / tu), "-o", str(obj),
           f"-ffile-prefix-map={tree}=.", "-cuid=vado-bench"]
    cmd += [f"-D{d}" for d in defines] + [f"-I{tree / i}" for i in incs]
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                           env={**os.environ, "HIP_PLATFORM": "amd"})
        ok, err = p.returncode == 0 and obj.exists(), p.stderr
    except subprocess.TimeoutExpired:
        ok, err = False, f"timed out after {timeout}s"
    first = next((ln for ln in err.splitlines() if "error:" in ln and "warning:" not in ln), "")
    return {"ok": ok, "s": round(time.monotonic() - t0, 1), "error": first.replace(str(tree) + "/", "")[:300]}


def sample_units(units: list[str], n: int) -> list[str]:
    """``n`` of ``units`` evenly spaced over their sorted order (all when there are no more),
    so a sample is not only the first directory's."""
    every = sorted(units)
    return [every[i * len(every) // n] for i in range(n)] if len(every) > n > 0 else every


def own_build_sample(root: Path, out: Path, ps, n: int, hipcc: str, arch: str, timeout: float, scratch: Path) -> dict:
    """Compile the first ``n`` HIP-path units from the repository and from OUT."""
    from vado.scan.scope import Scope

    if not ps.own_rocm_build():
        return {"how": "", "sample": []}
    tus = sample_units([p for p, fs in ps.files.items() if fs.scope is Scope.HIP_PATH and p.endswith(_TU_EXT)], n)
    defines = list(ps.hip.defines)
    incs = include_dirs(root, tus)
    rows = []
    for i, tu in enumerate(tus):
        before = compile_unit(hipcc, root, tu, defines, incs, arch, timeout, scratch / f"b{i}.o")
        after = compile_unit(hipcc, out, tu, defines, incs, arch, timeout, scratch / f"a{i}.o")
        same = before["ok"] and after["ok"] and sha256(scratch / f"b{i}.o") == sha256(scratch / f"a{i}.o")
        rows.append({"tu": tu, "before": before, "after": after, "objects_identical": same})
    return {"how": ps.own_rocm_build(), "defines": defines, "hip_path_units": sum(
        1 for p, fs in ps.files.items() if fs.scope is Scope.HIP_PATH and p.endswith(_TU_EXT)),
        "sample": rows, "built_before": sum(r["before"]["ok"] for r in rows),
        "built_after": sum(r["after"]["ok"] for r in rows)}


def _run(cmd: list[str], cwd: Path, timeout: float, env: dict | None = None, full: bool = False) -> tuple[int, str]:
    """Run ``cmd`` under ``nice -n 10``; (return code, output tail, or all of it with ``full``)."""
    try:
        p = subprocess.run(["nice", "-n", "10", *cmd], cwd=cwd, capture_output=True, text=True, timeout=timeout,
                           env=env)
    except subprocess.TimeoutExpired:
        return 124, f"timed out after {timeout}s"
    return p.returncode, (p.stdout + p.stderr) if full else (p.stdout + p.stderr)[-6000:]


def _objects(build: Path) -> dict[str, str]:
    """Every object file under ``build``, relative path → SHA-256."""
    return {os.path.relpath(f, build): sha256(Path(f))
            for f in sorted(glob.glob(str(build / "**" / "*.o"), recursive=True))}


def _db_outputs(db: Path) -> dict[str, str]:
    """Source (absolute) → the object its compile database entry writes (absolute)."""
    try:
        entries = json.loads(db.read_text())
    except (OSError, ValueError):
        return {}
    out = {}
    for e in entries:
        words = e.get("arguments") or shlex.split(e.get("command", ""))
        o = next((words[i + 1] for i, w in enumerate(words[:-1]) if w == "-o"), "") or e.get("output", "")
        src = os.path.normpath(os.path.join(e["directory"], e["file"]))
        out[src] = os.path.normpath(os.path.join(e["directory"], o)) if o else ""
    return out


def verify_agreement(tree: Path, build_ok: dict[str, bool], verify_cmd: list[str], timeout: float,
                     link_only: set[str] = frozenset()) -> dict:
    """Run ``verify_cmd`` (a ``vado verify … -f json``) and compare its per-unit result with ``build_ok``
    (absolute source → the build compiled it); every verify error line with the finding at it."""
    rc, data, err, dt = run_json(verify_cmd, timeout)
    if not data:
        return {"ran": False, "error": err[-500:]}
    passed: dict[str, bool] = {}
    for e in data.get("evidence", []):
        if e.get("kind") == "compile":
            src = os.path.normpath(os.path.join(str(tree), e["subject"]))
            passed[src] = passed.get(src, True) and bool(e["passed"])
    disagree = []
    for src, ok in sorted(build_ok.items()):
        v = passed.get(src)
        if v is None:
            disagree.append({"tu": os.path.relpath(src, tree), "build": ok, "verify": "not compiled"})
        elif v != ok and not (v and src in link_only):
            disagree.append({"tu": os.path.relpath(src, tree), "build": ok, "verify": v})
    errors = [{"at": f"{g['file']}:{g['line']}", "original": g.get("original", ""), "message": g["message"][:160],
               "finding": g.get("code", ""), "units": len(g.get("units", ()))} for g in data.get("error_groups", [])]
    return {"ran": True, "s": round(dt, 1), "units": len(build_ok), "build_pass": sum(build_ok.values()),
            "verify_pass": sum(1 for s in build_ok if passed.get(s)), "link_only": sorted(
                os.path.relpath(s, tree) for s in link_only), "disagreements": disagree, "errors": errors,
            "errors_without_finding": sum(1 for e in errors if not e["finding"])}


def cmake_own_build(root: Path, out: Path, how: str, work: Path, args) -> dict:
    """The project's own CMake ROCm build, from the repository and from OUT at one path; objects hashed;
    the port's build compared with ``vado verify --build compile-db`` on its compile database."""
    defs = [w for w in shlex.split(how)[1:] if w.startswith("-D")]
    cmake = str(Path(args.rocm_bin) / "cmake")
    here = work / f".own-{root.name}"
    res: dict = {"how": how, "mode": "cmake build"}
    for label, tree in (("before", root), ("after", out)):
        shutil.rmtree(here, ignore_errors=True)
        shutil.copytree(tree, here / "src", symlinks=True, ignore=shutil.ignore_patterns(".git"))
        t0 = time.monotonic()
        # cwd: the chroot's cmake shows its working directory and the directories its arguments name.
        rc, log = _run([cmake, "-S", "src", "-B", "src/build", *defs, "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON"], here,
                       args.timeout)
        if rc == 0:
            rc, log = _run([cmake, "--build", "src/build", "-j", str(args.jobs), "--", "-k"], here,
                           args.timeout * 6)
        db = _db_outputs(here / "src" / "build" / "compile_commands.json")
        objs = _objects(here / "src" / "build")
        res[label] = {"rc": rc, "s": round(time.monotonic() - t0, 1), "units": len(db),
                      "objects": objs, "log_tail": log[-1500:] if rc else ""}
        if label == "after" and db:
            build_ok = {src: bool(o) and os.path.exists(o) for src, o in db.items()}
            verify = [sys.executable, "-m", "vado", "verify", str(here / "src"), "--build", "compile-db", "-a",
                      args.arch, "-f", "json", "-j", str(args.jobs), "--no-triton"]
            res["agreement"] = verify_agreement(here / "src", build_ok, verify, args.timeout * 6)
    b, a = res["before"]["objects"], res["after"]["objects"]
    res["built_before"], res["built_after"] = len(b), len(a)
    res["objects_identical"] = sum(1 for k, h in b.items() if a.get(k) == h)
    res["objects_differ"] = sorted(k for k in set(b) | set(a) if b.get(k) != a.get(k))
    return res


def make_agreement(out: Path, work: Path, args) -> dict:
    """The ported tree's own Make build against ``vado verify --build make``, unit by unit."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    from verify_speed import _compiles_alone, _output_of, _raw_commands

    from vado.build.read import BuildOptions, read_build

    copy = work / f".agree-{out.name}" / out.name
    shutil.rmtree(copy.parent, ignore_errors=True)
    shutil.copytree(out, copy, symlinks=True, ignore=shutil.ignore_patterns(".git"))
    make_vars = dict(v.split("=", 1) for v in args.make_var)
    cfg = read_build(copy, BuildOptions(mode="make", make_vars=make_vars, tools={"hipcc": args.hipcc}))
    tools = copy.parent / "tools"
    tools.mkdir()
    os.symlink(args.hipcc, tools / "hipcc")
    env = dict(os.environ, PATH=f"{tools}{os.pathsep}{os.environ.get('PATH', '')}")
    dirs = sorted({Path(u.directory) for u in cfg.units}, key=lambda p: len(p.parts))
    t0 = time.monotonic()
    # The chroot's make, run from the tree's root: the wrapper shows the compiler its working directory (and
    # the directories its arguments name), so a sub-make's unit finds "../other/x.h" as a real install does.
    chroot_make = Path(args.rocm_bin) / "make"
    for d in dirs:
        rel = os.path.relpath(d, copy)
        cmd = ([str(chroot_make), "-C", rel] if chroot_make.exists() else ["make", "-C", str(d)])
        _run([*cmd, "-k", f"-j{args.jobs}", *[f"{k}={v}" for k, v in make_vars.items()]], copy, args.timeout * 6, env)
    build_s = round(time.monotonic() - t0, 1)
    build_ok: dict[str, bool] = {}
    for u in cfg.units:
        o = _output_of(u)
        path = Path(o if os.path.isabs(o) else os.path.join(u.directory, o))
        build_ok[os.path.normpath(u.source)] = bool(o) and path.exists()
    link_only: set[str] = set()
    failed = [s for s, ok in build_ok.items() if not ok]
    if failed:
        raw = _raw_commands(dirs, env, make_vars)
        link_only = {s for s in failed if s in raw and _compiles_alone(raw[s][0], raw[s][1], env, copy.parent)}
    verify = [sys.executable, "-m", "vado", "verify", str(copy), "--build", "make", "--hipcc", args.hipcc,
              "-a", args.arch, "-f", "json", "-j", str(args.jobs), "--no-triton"]
    for k, v in make_vars.items():
        verify += ["--make-var", f"{k}={v}"]
    res = verify_agreement(copy, build_ok, verify, args.timeout * 6, link_only)
    res.update({"mode": "make", "build_s": build_s, "ran": cfg.ran, "notes": list(cfg.notes)})
    return res


def _db_units(db: Path) -> dict[str, list[str]]:
    """Source (absolute) → the objects (absolute) its compile database entries write (one per target that
    compiles it; "" where an entry names none)."""
    try:
        entries = json.loads(db.read_text())
    except (OSError, ValueError):
        return {}
    out: dict[str, list[str]] = {}
    for e in entries:
        words = e.get("arguments") or shlex.split(e.get("command", ""))
        # -o first: it is relative to the entry's directory; CMake's "output" is relative to the top build
        # directory (dependencies/fmt/CMakeFiles/… for an entry whose directory is build/dependencies/fmt).
        o = next((words[i + 1] for i, w in enumerate(words[:-1]) if w == "-o"), "") or e.get("output", "")
        src = os.path.normpath(os.path.join(e["directory"], e["file"]))
        out.setdefault(src, []).append(os.path.normpath(os.path.join(e["directory"], o)) if o else "")
    return out


def cmake_agreement(out: Path, work: Path, args) -> dict:
    """The ported tree's own CMake build against ``vado verify --build cmake``, unit by unit.

    OUT is copied (plus each ``--add-dir REL=DIR``: a submodule the snapshot lacks, copied into the copy
    only), configured with the chroot's ``cmake`` and the ``--cmake-arg`` values, and built with
    ``make -k -jJOBS`` under ``nice``; per unit of its compile database (HIP and C/C++), the build compiled
    it (its objects exist). Then ``vado verify COPY --build cmake`` with the same ``--cmake-arg`` values
    configures the copy in vado's own build directory; its per-unit results are compared."""
    copy = work / f".agree-{out.name}" / out.name
    shutil.rmtree(copy.parent, ignore_errors=True)
    shutil.copytree(out, copy, symlinks=True, ignore=shutil.ignore_patterns(".git"))
    for spec in args.add_dir:
        rel, src = spec.split("=", 1)
        shutil.rmtree(copy / rel, ignore_errors=True)
        shutil.copytree(src, copy / rel, symlinks=True, ignore=shutil.ignore_patterns(".git"))
    cmake = str(Path(args.rocm_bin) / "cmake")
    make = str(Path(args.rocm_bin) / "make")
    t0 = time.monotonic()
    # cwd: the chroot's tools see their working directory and the directories their arguments name.
    rc, log = _run([cmake, "-S", out.name, "-B", f"{out.name}/build", *args.cmake_arg,
                    "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON"], copy.parent, args.timeout)
    res: dict = {"mode": "cmake", "configure_rc": rc, "configure_log": log[-1500:] if rc else ""}
    if rc != 0:
        return {**res, "ran": False, "error": "the port's CMake configure failed"}
    rc, log = _run([make, "-C", f"{out.name}/build", "-k", f"-j{args.jobs}"], copy.parent, args.timeout * 12,
                   full=True)
    build_s = round(time.monotonic() - t0, 1)
    units = _db_units(copy / "build" / "compile_commands.json")
    # make -k builds no object of a target whose dependency failed (the samples after the library): such a
    # unit is compiled with its own compile database command instead, as its object rule would.
    alone: list[str] = []
    run = str(Path(args.rocm_bin) / "rocm-run")
    for e in _db_entries(copy / "build" / "compile_commands.json"):
        words = _entry_words(e)
        o = words[words.index("-o") + 1] if "-o" in words else ""
        obj = os.path.normpath(os.path.join(e["directory"], o)) if o else ""
        src = os.path.normpath(os.path.join(e["directory"], e["file"]))
        if obj and not os.path.exists(obj) and src.startswith(str(copy) + os.sep):
            if not _attempted(log, obj, copy / "build"):
                _run([run, "bash", "-c", f"mkdir -p {shlex.quote(os.path.dirname(obj))} && cd "
                      f"{shlex.quote(e['directory'])} && {shlex.join(words)}"], copy.parent, args.timeout)
                alone.append(os.path.relpath(src, copy))
    # Every unit of the tree (HIP and C/C++): compiled by the build = each of its entries wrote its object.
    build_ok = {src: all(o and os.path.exists(o) for o in objs) for src, objs in units.items()
                if src.startswith(str(copy) + os.sep)}
    generated = sorted(os.path.relpath(s, copy) for s in units if s.startswith(str(copy / "build") + os.sep))
    for g in generated:  # made by the configure in the build directory: verify's configure makes its own
        build_ok.pop(str(copy / g), None)
    verify = [sys.executable, "-m", "vado", "verify", str(copy), "--build", "cmake", "-a", args.arch,
              "-f", "json", "-j", str(args.jobs), "--no-triton"]
    for a in args.cmake_arg:
        verify += ["--cmake-arg", a]
    res.update(verify_agreement(copy, build_ok, verify, args.timeout * 12))
    res.update({"build_rc": rc, "build_s": build_s, "generated_units_left_out": generated,
                "compiled_alone": sorted(set(alone)),
                "build_log_tail": log[-3000:] if rc else "",
                "build_errors": _first_errors(log)})
    return res


def _db_entries(db: Path) -> list[dict]:
    try:
        return json.loads(db.read_text())
    except (OSError, ValueError):
        return []


def _entry_words(e: dict) -> list[str]:
    return e.get("arguments") or shlex.split(e.get("command", ""))


def cmake_db_sample(root: Path, out: Path, how: str, work: Path, args) -> dict:
    """A deterministic sample of the project's own CMake ROCm build, unit by unit, against ``vado verify``.

    OUT is copied to ``WORK/.own-NAME/src`` and configured there with the chroot's ``cmake``, the
    options of ``HipBuild.how`` and ``--cmake-arg`` values (tests, examples off: the caller's); of the
    HIP-language units of its compile database that are files of the tree (not generated into the build
    directory), ``--own-build-sample`` N evenly spaced over their sorted paths are built with the
    build's own commands (``rocm-run``, under ``nice``, one at a time, timed); the compile database is
    then cut to the sample and ``vado verify SRC --build compile-db`` compiles the same units with the
    same commands: per unit, object written = verify passed. Last, every file inside the tree that
    a sampled unit reads (the build's command with ``-M``, run on the original repository's
    configured copy) is hashed in the repository and in OUT: all equal means the own build builds the
    same objects before and after the port."""
    here = work / f".own-{root.name}"
    res: dict = {"how": how, "mode": "cmake db sample"}
    defs = [w for w in shlex.split(how)[1:] if w.startswith("-D")]
    cmake = str(Path(args.rocm_bin) / "cmake")
    run = str(Path(args.rocm_bin) / "rocm-run")
    shutil.rmtree(here, ignore_errors=True)
    top = str(out)
    # Not a build directory a configure left at OUT's root (ours is made fresh); a "build" folder deeper is source.
    shutil.copytree(out, here / "src", symlinks=True,
                    ignore=lambda d, names: [n for n in names if n == ".git" or (d == top and n == "build")])
    t0 = time.monotonic()
    rc, log = _run([cmake, "-S", "src", "-B", "src/build", *defs, *args.cmake_arg,
                    "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON"], here, args.timeout)
    res["configure"] = {"rc": rc, "s": round(time.monotonic() - t0, 1), "log_tail": log[-1500:] if rc else ""}
    db = here / "src" / "build" / "compile_commands.json"
    entries = _db_entries(db)
    if rc != 0 or not entries:
        return res
    src_root = str(here / "src") + os.sep
    hip = [e for e in entries if any(w == "-x" and ws[i + 1] == "hip" for ws in (_entry_words(e),)
                                     for i, w in enumerate(ws[:-1]))]
    tree_units = sorted((e for e in hip if os.path.normpath(os.path.join(e["directory"], e["file"])).startswith(src_root)
                         and not os.path.normpath(os.path.join(e["directory"], e["file"])).startswith(src_root + "build" + os.sep)),
                        key=lambda e: os.path.relpath(os.path.join(e["directory"], e["file"]), here / "src"))
    n = args.own_build_sample
    picked = [tree_units[i * len(tree_units) // n] for i in range(n)] if len(tree_units) > n > 0 else tree_units
    res.update({"hip_units": len(hip), "tree_hip_units": len(tree_units), "sample": []})
    build_ok: dict[str, bool] = {}
    for e in picked:
        words = _entry_words(e)
        src = os.path.normpath(os.path.join(e["directory"], e["file"]))
        o = words[words.index("-o") + 1] if "-o" in words else ""
        obj = os.path.normpath(os.path.join(e["directory"], o)) if o else ""
        if obj and os.path.exists(obj):
            os.unlink(obj)
        t1 = time.monotonic()
        # rocm-run from WORK/.own-NAME: the chroot sees that directory, the build's commands run in theirs.
        rc, ulog = _run([run, "bash", "-c", f"cd {shlex.quote(e['directory'])} && {shlex.join(words)}"], here,
                        args.timeout)
        ok = rc == 0 and bool(obj) and os.path.exists(obj)
        build_ok[src] = ok
        res["sample"].append({"tu": os.path.relpath(src, here / "src"), "ok": ok, "s": round(time.monotonic() - t1, 1),
                              "sha256": sha256(Path(obj)) if ok else "", "error": "" if ok else _first_errors(ulog)[:3]})
    # The compile database cut to the sample: verify compiles those units with the build's commands.
    shutil.copy(db, db.with_name("compile_commands.full.json"))
    db.write_text(json.dumps(picked, indent=1))
    verify = [sys.executable, "-m", "vado", "verify", str(here / "src"), "--build", "compile-db", "-a", args.arch,
              "-f", "json", "-j", str(args.jobs), "--no-triton"]
    res["agreement"] = verify_agreement(here / "src", build_ok, verify, args.timeout * 12)
    res["built"] = sum(build_ok.values())
    res["inputs"] = _sample_inputs(root, out, here, picked, args)
    return res


def _sample_inputs(root: Path, out: Path, here: Path, picked: list[dict], args) -> dict:
    """Every file inside the tree a sampled unit reads (its build command with ``-M -MG``, run in the configured
    copy), hashed in the repository and in OUT."""
    run = str(Path(args.rocm_bin) / "rocm-run")
    src_root = here / "src"
    same, differ, failed, read = 0, [], [], 0
    for e in picked:
        words = _entry_words(e)
        if "-o" in words:
            k = words.index("-o")
            words = words[:k] + words[k + 2:]
        dep = here / "deps.d"
        dep.unlink(missing_ok=True)
        # The host pass's dependencies (the device pass reads the same files but for __HIP_DEVICE_COMPILE__ branches).
        words = [w for w in words if w != "-c"] + ["-M", "-MG", "-MF", str(dep), "--offload-host-only"]
        rc, log = _run([run, "bash", "-c", f"cd {shlex.quote(e['directory'])} && {shlex.join(words)}"], here,
                       args.timeout)
        src = os.path.relpath(os.path.join(e["directory"], e["file"]), src_root)
        if rc != 0 or not dep.exists():
            failed.append(src)
            continue
        deps = set()
        for w in dep.read_text(errors="replace").replace("\\\n", " ").split():
            if w.endswith(":") or w == "\\":
                continue
            p = os.path.normpath(os.path.join(e["directory"], w))
            if p.startswith(str(src_root) + os.sep) and not p.startswith(str(src_root / "build") + os.sep):
                deps.add(os.path.relpath(p, src_root))
        read += len(deps)
        bad = [d for d in sorted(deps) if sha256(root / d) != sha256(out / d)]
        if bad:
            differ.append({"tu": src, "inputs_differ": bad[:10]})
        else:
            same += 1
    return {"units": len(picked), "inputs_identical": same, "differ": differ, "failed": failed, "inputs_read": read}


def _attempted(log: str, obj: str, build: Path) -> bool:
    """Whether make's log shows it building ``obj`` (CMake prints "Building … object <path relative to the
    target's directory>"): a failure then is the build's, not a target make skipped."""
    rel = os.path.relpath(obj, build)
    tail = rel.split("CMakeFiles" + os.sep, 1)[-1]
    return any("Building" in ln and ln.rstrip().endswith(tail) for ln in log.splitlines())


def _first_errors(log: str) -> list[str]:
    """The distinct ``error:`` lines of a build log (first 20)."""
    seen: list[str] = []
    for ln in log.splitlines():
        if "error:" in ln and ln not in seen:
            seen.append(ln.strip()[:300])
    return seen[:20]


def unit_inputs(root: Path, out: Path, ps, hipcc: str, arch: str, timeout: float) -> dict:
    """For every HIP-path unit (not a sample): the files its preprocessing reads inside the tree
    (``hipcc -M -MG`` from OUT, the flags of :func:`own_build_sample`), hashed in the repository and in OUT.
    A unit whose every input is byte-identical compiles to the same object (the sample shows the
    compile deterministic); this costs a preprocessing, not a compile, per unit."""
    from vado.scan.scope import Scope

    tus = sorted(p for p, fs in ps.files.items() if fs.scope is Scope.HIP_PATH and p.endswith(_TU_EXT))
    incs = include_dirs(out, tus)
    defines = list(ps.hip.defines) if ps.hip is not None else []
    same = 0
    differ: list[dict] = []
    failed: list[str] = []
    inputs = 0
    t0 = time.monotonic()
    for tu in tus:
        cmd = ["nice", "-n", "10", hipcc, "-x", "hip", f"--offload-arch={arch}", "-std=c++17", "-M", "-MG",
               str(out / tu), *[f"-D{d}" for d in defines], *[f"-I{out / i}" for i in incs]]
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=out,
                               env={**os.environ, "HIP_PLATFORM": "amd"})
        except subprocess.TimeoutExpired:
            failed.append(tu)
            continue
        if p.returncode != 0:
            failed.append(tu)
            continue
        words = p.stdout.replace("\\\n", " ").split()
        deps = {os.path.relpath(os.path.normpath(os.path.join(str(out), w)), out) for w in words
                if not w.endswith(":") and w != "\\"}
        deps = {d for d in deps if not d.startswith("..")}
        inputs += len(deps)
        bad = [d for d in sorted(deps) if sha256(out / d) != sha256(root / d)]
        if bad:
            differ.append({"tu": tu, "inputs_differ": bad[:10]})
        else:
            same += 1
    return {"units": len(tus), "inputs_identical": same, "differ": differ, "failed": failed,
            "inputs_read": inputs, "s": round(time.monotonic() - t0, 1)}


def summarize_verify(data: dict | None) -> dict:
    """``vado verify -f json``: compiles passed/failed (its ``evidence`` of kind ``compile``), the
    build reader it used, its error groups, and ``disagreements`` where the verify prints them
    (the build-model verify); keys it does not print are left out, not invented."""
    if not data:
        return {"ran": False}
    compiles = [e for e in data.get("evidence", []) if isinstance(e, dict) and e.get("kind") == "compile"]
    out = {"ran": True, "passed": data.get("passed"),
           "compiled": sum(bool(e.get("passed")) for e in compiles),
           "failed": sum(not e.get("passed") for e in compiles),
           "reader": (data.get("build") or {}).get("reader", ""),
           "error_groups": len(data.get("error_groups") or [])}
    if "disagreements" in data:
        out["disagreements"] = data["disagreements"]
    return out


def commit_of(root: Path, given: dict[str, str]) -> str:
    """The commit named on the command line, else HEAD of a .git inside, else "unknown"."""
    if root.name in given:
        return given[root.name]
    if (root / ".git").exists():
        p = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True)
        if p.returncode == 0:
            return p.stdout.strip()
    return "unknown"


def measure(root: Path, work: Path, args, commits: dict[str, str]) -> dict:
    """Every measurement for one repository."""
    vado = [sys.executable, "-m", "vado"]
    out = work / root.name
    if out.exists():
        shutil.rmtree(out)
    res: dict = {"repo": root.name, "path": str(root), "commit": commit_of(root, commits)}
    rc, data, err, dt = run_json(vado + ["audit", "-f", "json", "-j", str(args.jobs), "--fail-on", "critical", str(root)],
                                 args.timeout)
    res["audit"] = {"rc": rc, "s": round(dt, 1), **(summarize_audit(data) if data else {"error": err})}
    rc, data, err, dt = run_json(vado + ["port", str(root), "-o", str(out), "-f", "json", "-j", str(args.jobs)],
                                 args.timeout)
    res["port"] = {"rc": rc, "s": round(dt, 1), **(summarize_port(data) if data else {"error": err})}
    paths, ps = out_of_scope(root)
    res["left_out"] = compare_left_out(root, out, paths) if out.exists() else {"error": "no OUT"}
    scratch = work / f".obj-{root.name}"
    scratch.mkdir(parents=True, exist_ok=True)
    own_build = root.name in (getattr(args, "own_build", None) or ())
    if (getattr(args, "own_build_sample", 0) and ps.own_rocm_build().startswith("cmake")
            and (Path(args.rocm_bin) / "cmake").exists()):
        res["own_build"] = cmake_db_sample(root, out, ps.own_rocm_build(), args.work, args)
    elif own_build and ps.own_rocm_build().startswith("cmake") and (Path(args.rocm_bin) / "cmake").exists():
        res["own_build"] = cmake_own_build(root, out, ps.own_rocm_build(), args.work, args)
    elif args.sample and Path(args.hipcc).exists():
        res["own_build"] = own_build_sample(root, out, ps, args.sample, args.hipcc, args.arch, args.timeout, scratch)
        if getattr(args, "inputs_all", False) and ps.own_rocm_build():
            res["own_build"]["all_units_inputs"] = unit_inputs(root, out, ps, args.hipcc, args.arch, args.timeout)
    else:
        res["own_build"] = {"how": ps.own_rocm_build(), "sample": [], "not_run": f"no hipcc at {args.hipcc}"}
    if args.verify:
        rc, data, err, dt = run_json(vado + ["verify", str(out), "--original", str(root), "-a", args.arch,
                                             "-f", "json", "-j", str(args.jobs)], args.timeout * 4)
        res["verify"] = {"rc": rc, "s": round(dt, 1), **summarize_verify(data)}
    else:
        res["verify"] = {"ran": False}
    if getattr(args, "agree", False) and (out / "Makefile").exists() and Path(args.hipcc).exists():
        res["agreement"] = make_agreement(out, args.work, args)
    elif getattr(args, "agree", False) and (out / "CMakeLists.txt").exists() and (Path(args.rocm_bin) / "cmake").exists():
        res["agreement"] = cmake_agreement(out, args.work, args)
    elif "agreement" in res["own_build"]:
        res["agreement"] = res["own_build"]["agreement"]
    else:
        res["agreement"] = {"ran": False}
    return res


def table(rows: list[dict]) -> str:
    """A plain-text table of the headline numbers."""
    head = ["repo", "commit", "rocm verdict", "act/inact", "skips", "port files", "left-out identical",
            "own ROCm build", "objs before/after", "verify", "verify vs build"]
    lines = [" | ".join(head), " | ".join("---" for _ in head)]
    for r in rows:
        a, p, lo, ob = r["audit"], r["port"], r["left_out"], r["own_build"]
        skips = ",".join(f"{k}:{v}" for k, v in sorted(a.get("skips", {}).items()))
        files = ",".join(f"{k}:{v}" for k, v in sorted(p.get("files", {}).items()))
        ident = (f"yes ({sum(lo['files_checked'].values())} files)" if lo.get("identical")
                 else f"NO ({len(lo.get('differ', []))} differ)" if "differ" in lo else lo.get("error", "?"))
        if ob.get("mode") == "cmake db sample":
            inp = ob.get("inputs", {})
            objs = (f"{ob.get('built', 0)}/{len(ob.get('sample', []))} sampled units built (of {ob.get('tree_hip_units', 0)}); "
                    f"inputs identical {inp.get('inputs_identical', '?')}/{inp.get('units', '?')}")
        elif ob.get("mode") == "cmake build":
            objs = (f"{ob['built_before']}/{ob['built_after']} objects of {ob['before']['units']} units, "
                    f"{ob['objects_identical']} same bytes (whole build)")
        else:
            same = sum(x["objects_identical"] for x in ob.get("sample", []))
            objs = (f"{ob['built_before']}/{ob['built_after']} of {len(ob['sample'])} ({same} same bytes)"
                    if ob.get("sample") else "-")
            ui = ob.get("all_units_inputs")
            if ui:
                objs += f"; all {ui['units']} units: inputs identical {ui['inputs_identical']}"
                objs += f" ({len(ui['failed'])} not preprocessed)" if ui["failed"] else ""
        ag = r.get("agreement", {"ran": False})
        agree = ("not run" if not ag.get("ran") else
                 f"{ag['units'] - len(ag['disagreements'])}/{ag['units']} agree "
                 f"(build {ag['build_pass']} pass, verify {ag['verify_pass']}); "
                 f"{len(ag['errors'])} error lines, {ag['errors_without_finding']} without a finding")
        v = r["verify"]
        ver = ("not run" if not v.get("ran") else f"{v['compiled']} ok/{v['failed']} fail"
               + (f", {v['disagreements']} disagree" if "disagreements" in v else ""))
        lines.append(" | ".join([r["repo"], r["commit"][:10], a.get("verdicts", {}).get(TARGET, "?"),
                                 f"{a.get('findings_active', '?')}/{a.get('findings_inactive', '?')}", skips, files,
                                 ident, "yes" if ob.get("how") else "no", objs, ver, agree]))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("repos", nargs="+", type=Path)
    ap.add_argument("--work", type=Path, default=Path("/tmp/vado-project-ports"))
    ap.add_argument("--json", type=Path)
    ap.add_argument("--sample", type=int, default=6)
    ap.add_argument("--hipcc", default=os.environ.get("VADO_HIPCC", ROCM_HIPCC))
    ap.add_argument("--arch", default="gfx942")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--verify", action="store_true")
    ap.add_argument("--own-build", action="append", default=[], metavar="NAME",
                    help="build this repository's CMake own ROCm build whole (before/after); the others get the sample")
    ap.add_argument("--own-build-sample", type=int, default=0, metavar="N",
                    help="a CMake own ROCm build: configure it, build N of its HIP units with their own commands, "
                         "vado verify the same units (compile-db cut to them), hash their inputs before/after")
    ap.add_argument("--inputs-all", action="store_true",
                    help="beside the sample: every HIP-path unit's preprocessed inputs hashed before/after")
    ap.add_argument("--agree", action="store_true", help="a Make port's build against vado verify, unit by unit")
    ap.add_argument("--rocm-bin", default=os.environ.get("VADO_ROCM_BIN", ROCM_BIN))
    ap.add_argument("--make-var", action="append", default=[], help="NAME=VALUE for the Make build and verify")
    ap.add_argument("--cmake-arg", action="append", default=[],
                    help="argument for the CMake configure of --agree's build and verify (e.g. -DUSE_X=ON)")
    ap.add_argument("--add-dir", action="append", default=[], metavar="REL=DIR",
                    help="copy DIR to REL in --agree's copy of OUT (a submodule the snapshot lacks)")
    ap.add_argument("--commit", action="append", default=[], help="NAME=SHA for a repository without .git")
    args = ap.parse_args(argv)
    commits = dict(c.split("=", 1) for c in args.commit)
    args.work.mkdir(parents=True, exist_ok=True)
    rows = []
    for root in args.repos:
        rows.append(measure(root.resolve(), args.work, args, commits))
        print(f"done {root.name}", file=sys.stderr)
        if args.json:  # after each repository, so that a long run's finished rows are kept
            args.json.write_text(json.dumps(rows, indent=1))
    print(table(rows))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
