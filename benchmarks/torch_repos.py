#!/usr/bin/env python3
"""PyTorch-extension repositories that already build for ROCm (or for several backends): vado's audit and
default port, before and after a change, side by side (issue 29).

    python3 benchmarks/torch_repos.py --repo detectron2=/work/repos/tproj/detectron2@02b5c4e ... \\
        --before /work/main/src --after src --work /tmp/torch-repos --json out.json \\
        [--compiled NAME:orig=gfx.json --compiled NAME:port=gfx.json ...]

For each repository and each vado (``--before``/``--after``: a ``src`` directory put first on ``PYTHONPATH``
of a ``python3 -m vado`` subprocess, so that exactly that code runs):

* ``vado audit REPO -f json``: the ROCm verdict and its reason, the findings active for ROCm, and the
  deciding codes;
* ``vado port REPO -o WORK/<vado>/<name>``: the files the port changed (by bytes), each with what the *after*
  scope (:func:`vado.scan.scope.project_scope`, in this process: put the after ``src`` on ``PYTHONPATH``) calls
  it: ``project`` (the port's to change), ``other-backend``, ``own-hip-path`` (``not-for-amd`` where its ROCm
  build does not compile it) or ``vendored``: a change in any but ``project`` is a port that touched what is
  not its business.

``--affected REPO PORT`` prints the sources of REPO's ROCm extensions that read a file PORT changed (the units a
compile check of the port must redo; the others read only byte-identical project files) and exits.

``--compiled NAME:LABEL=FILE`` adds the per-TU results of ``benchmarks/torch_ext_gfx942.py`` (``FILE``, its
``--out``) to that repository's record under ``LABEL`` (``orig``, ``port``): counts and the failures' first
errors. Nothing here runs a project's build logic: vado reads setup.py, never runs it.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path


def _vado(src: Path, args: list[str], timeout: float = 1800) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(src.resolve())}
    return subprocess.run([sys.executable, "-m", "vado", *args], env=env, capture_output=True, text=True,
                          timeout=timeout)


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() and not path.is_symlink() else ""


def audit(src: Path, repo: Path, work: Path) -> dict:
    """The ROCm verdict, its reason, the active ROCm findings and the deciding codes of ``vado audit``."""
    out = work / f"{repo.name}.audit.json"
    proc = _vado(src, ["audit", str(repo), "-f", "json", "-o", str(out)])
    if not out.is_file():
        return {"error": proc.stderr[-2000:]}
    doc = json.loads(out.read_text())
    rocm = next(v for v in doc["verdicts"] if v["target"] == "rocm-7.2")
    active = [f for f in doc["findings"] if f["verdicts"].get("rocm-7.2", "moves-as-is") != "moves-as-is"]
    codes: dict[str, int] = {}
    for f in active:
        codes[f["code"]] = codes.get(f["code"], 0) + 1
    return {"verdict": rocm["verdict"], "reason": rocm.get("reason", ""), "deciding": rocm.get("deciding", []),
            "rocm_findings": len(active), "by_code": dict(sorted(codes.items(), key=lambda kv: -kv[1])),
            "files": len(doc["files"]), "amd_support": doc.get("amd_support", [])}


def port(src: Path, repo: Path, out: Path) -> dict:
    """The files ``vado port`` changed, added or removed."""
    if out.exists():
        shutil.rmtree(out)
    proc = _vado(src, ["port", str(repo), "-o", str(out)])
    if not out.is_dir():
        return {"error": proc.stderr[-2000:], "rc": proc.returncode}
    changed = []
    for dirpath, dirnames, filenames in os.walk(repo):
        dirnames[:] = [d for d in dirnames if d != ".git"]
        for name in filenames:
            rel = os.path.relpath(os.path.join(dirpath, name), repo).replace(os.sep, "/")
            a, b = repo / rel, out / rel
            if a.is_symlink() or not a.is_file():
                continue
            if not b.exists() or _digest(a) != _digest(b):
                changed.append(rel)
    return {"rc": proc.returncode, "changed": sorted(changed)}


def classify(repo: Path, paths: list[str]) -> dict[str, str]:
    """What the scope of this process's vado calls each path."""
    from vado.scan.scope import Scope, project_scope

    ps = project_scope(repo)
    vendored = [s.path for s in ps.vendored]
    out = {}
    for p in paths:
        if any(p == v or p.startswith(v + "/") for v in vendored):
            out[p] = "vendored"
            continue
        fs = ps.of(p)
        out[p] = ("not-for-amd" if fs.not_for_amd else fs.scope.value) if fs.scope is not Scope.PROJECT else "project"
    return out


def compiled(path: Path) -> dict:
    """Counts of a torch_ext_gfx942.py result file and its failures' first errors."""
    rows = json.loads(path.read_text())
    fails = [{"source": r["source"], "error": r["error"][:300]} for r in rows if not r["ok"]]
    return {"tus": len(rows), "ok": sum(r["ok"] for r in rows), "failed": fails,
            "seconds": round(sum(r["seconds"] for r in rows), 1)}


def affected_units(repo: Path, out: Path) -> list[str]:
    """The sources of ``repo``'s ROCm extensions (as vado derives them from its setup.py) that read a file the port
    ``out`` changed, through the project's quoted and angled includes (vado's scope resolver): the units whose
    compile can differ. The others read only byte-identical project files."""
    from vado.build.torch_setup import derive
    from vado.scan.discover import walk
    from vado.scan.scope.c_files import Includes, read_c
    from vado.scan.scope.model import C_KINDS

    plan = walk(repo)
    kinds = {f.path: f for f in plan.files}
    resolver = Includes(kinds)
    changed = {p for p in kinds if _digest(repo / p) != _digest(out / p)}
    cache: dict[str, list[str]] = {}

    def includes(p: str) -> list[str]:
        if p not in cache:
            f = kinds.get(p)
            cf = read_c(p, str(f.abs_path), f.kind, 64 << 20) if f is not None and f.kind in C_KINDS else None
            cache[p] = [t for n, q, _ in getattr(cf, "includes", ()) if (t := resolver.resolve(p, n, q)) is not None]
        return cache[p]

    units = []
    for ext in derive(repo).extensions.get("rocm", ()):
        for src in ext.sources:
            if src not in kinds:  # a copy setup.py writes before it compiles (flash-attention's X.cpp -> X.cu)
                stem = os.path.splitext(src)[0]
                src = next((stem + x for x in (".cpp", ".cc", ".cxx", ".cu") if stem + x in kinds), src)
            seen, todo = {src}, [src]
            while todo:
                for t in includes(todo.pop()):
                    if t not in seen:
                        seen.add(t)
                        todo.append(t)
            if seen & changed:
                units.append(src)
    return sorted(set(units))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--affected", nargs=2, metavar=("REPO", "PORT"),
                    help="print the ROCm units of REPO that read a file PORT changed (comma-separated) and exit")
    ap.add_argument("--repo", action="append", help="NAME=DIR@COMMIT")
    ap.add_argument("--before", type=Path)
    ap.add_argument("--after", type=Path)
    ap.add_argument("--work", type=Path)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--compiled", action="append", default=[], help="NAME:LABEL=FILE")
    args = ap.parse_args(argv)
    if args.affected:
        print(",".join(affected_units(Path(args.affected[0]), Path(args.affected[1]))))
        return 0
    if not args.repo and not args.compiled:
        ap.error("--repo or --compiled is required")
    if not args.json or (args.repo and not (args.before and args.after and args.work)):
        ap.error("--json, and with --repo --before, --after and --work, are required")
    doc = json.loads(args.json.read_text()) if args.json.is_file() else {"repositories": {}}
    for spec in args.repo or ():
        name, _, rest = spec.partition("=")
        where, _, commit = rest.partition("@")
        repo = Path(where)
        rec: dict = {"path": str(repo), "commit": commit}
        for label, src in (("before", args.before), ("after", args.after)):
            work = args.work / label
            work.mkdir(parents=True, exist_ok=True)
            got = {"audit": audit(src, repo, work), "port": port(src, repo, work / name)}
            if "changed" in got["port"]:
                # The ROCm units whose inputs the port changed (the rest read byte-identical project files).
                got["port"]["rocm_units_affected"] = affected_units(repo, work / name)
                scopes = classify(repo, got["port"]["changed"])
                got["port"]["changed"] = [{"path": p, "scope": s} for p, s in scopes.items()]
                got["port"]["outside_project"] = sum(s != "project" for s in scopes.values())
            rec[label] = got
            print(f"{name} {label}: {got['audit'].get('verdict')} ({got['audit'].get('rocm_findings')} ROCm findings); "
                  f"port changed {len(got['port'].get('changed', []))} files, "
                  f"{got['port'].get('outside_project', '?')} outside the project's code", flush=True)
        doc["repositories"][name] = {**doc["repositories"].get(name, {}), **rec}
    for spec in args.compiled:
        key, _, path = spec.partition("=")
        name, _, label = key.partition(":")
        doc["repositories"].setdefault(name, {}).setdefault("compiled_gfx942", {})[label] = compiled(Path(path))
    args.json.write_text(json.dumps(doc, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
