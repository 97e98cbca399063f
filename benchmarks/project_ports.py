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
* ``--verify``: ``vado verify OUT --original REPO -f json`` through the CLI, its per-unit
  results summarised (the verify-agreement column; "not run" without the flag).

The table is printed; ``--json`` writes every number. Nothing here runs the project's own
build logic. Keep ``--jobs 1`` on a shared machine.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

ROCM_HIPCC = "/var/cache/vado/rocm-7.2.4/bin/hipcc"
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
    if args.sample and Path(args.hipcc).exists():
        res["own_build"] = own_build_sample(root, out, ps, args.sample, args.hipcc, args.arch, args.timeout, scratch)
    else:
        res["own_build"] = {"how": ps.own_rocm_build(), "sample": [], "not_run": f"no hipcc at {args.hipcc}"}
    if args.verify:
        rc, data, err, dt = run_json(vado + ["verify", str(out), "--original", str(root), "-a", args.arch,
                                             "-f", "json", "-j", str(args.jobs)], args.timeout * 4)
        res["verify"] = {"rc": rc, "s": round(dt, 1), **summarize_verify(data)}
    else:
        res["verify"] = {"ran": False}
    return res


def table(rows: list[dict]) -> str:
    """A plain-text table of the headline numbers."""
    head = ["repo", "commit", "rocm verdict", "act/inact", "skips", "port files", "left-out identical",
            "own ROCm build", "objs before/after", "verify"]
    lines = [" | ".join(head), " | ".join("---" for _ in head)]
    for r in rows:
        a, p, lo, ob = r["audit"], r["port"], r["left_out"], r["own_build"]
        skips = ",".join(f"{k}:{v}" for k, v in sorted(a.get("skips", {}).items()))
        files = ",".join(f"{k}:{v}" for k, v in sorted(p.get("files", {}).items()))
        ident = (f"yes ({sum(lo['files_checked'].values())} files)" if lo.get("identical")
                 else f"NO ({len(lo.get('differ', []))} differ)" if "differ" in lo else lo.get("error", "?"))
        same = sum(x["objects_identical"] for x in ob.get("sample", []))
        objs = (f"{ob['built_before']}/{ob['built_after']} of {len(ob['sample'])} ({same} same bytes)"
                if ob.get("sample") else "-")
        v = r["verify"]
        ver = ("not run" if not v.get("ran") else f"{v['compiled']} ok/{v['failed']} fail"
               + (f", {v['disagreements']} disagree" if "disagreements" in v else ""))
        lines.append(" | ".join([r["repo"], r["commit"][:10], a.get("verdicts", {}).get(TARGET, "?"),
                                 f"{a.get('findings_active', '?')}/{a.get('findings_inactive', '?')}", skips, files,
                                 ident, "yes" if ob.get("how") else "no", objs, ver]))
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
    ap.add_argument("--commit", action="append", default=[], help="NAME=SHA for a repository without .git")
    args = ap.parse_args(argv)
    commits = dict(c.split("=", 1) for c in args.commit)
    args.work.mkdir(parents=True, exist_ok=True)
    rows = []
    for root in args.repos:
        rows.append(measure(root.resolve(), args.work, args, commits))
        print(f"done {root.name}", file=sys.stderr)
    print(table(rows))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
