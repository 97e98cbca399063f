#!/usr/bin/env python3
"""Compile a PyTorch extension's TUs for an AMD GPU as ``torch.utils.cpp_extension`` does on ROCm.

    python3 tools/torch_ext_compile.py PROJECT --from-setup [--extension NAME] [--arch gfx942] [--json out.json]
    python3 tools/torch_ext_compile.py PROJECT --source csrc/a.cpp --source csrc/k.cu \\
        --include-dir csrc --define WITH_CUDA --flag=-O3 --name _C [--arch gfx942] [--json out.json]

``PROJECT`` is the directory of the extension's setup.py. With ``--from-setup`` the extensions, their
sources, include dirs, defines and ROCm flags are derived from that setup.py as a ROCm build of PyTorch
evaluates it (:mod:`vado.build.torch_setup`: read with ``ast``, never run); what the reader could not
decide is printed (and goes into ``--json``), and ``--extension`` picks some of the CUDAExtensions (default:
all). Otherwise pass what its ``CUDAExtension`` gets on a ROCm build (sources and include dirs relative to
``PROJECT``). A copy of the project is hipified with PyTorch's own hipify (``is_pytorch_extension=True``)
and every source compiled to an object (no link) with ROCm's hipcc, against the ROCm headers
``tools/torch_rocm_headers.py`` assembled.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from vado.build.torch_setup import arch_free, derive_config, extension_settings
from vado.errors import VadoError
from vado.verify.torch_ext import compile_extension
from vado.verify.torch_headers import find_assembled

DEFAULT_HIPCC = "/var/cache/vado/rocm-7.2.4/bin/hipcc"


def _jobs_from_setup(project: Path, wanted: list[str]) -> tuple[list[dict], dict] | str:
    """The extensions to compile (each: name, sources, settings) from setup.py, or why not."""
    cfg, d = derive_config(project)
    if cfg is None:
        return f"nothing derived from {project / 'setup.py'}: {d.skipped or 'it makes no CUDAExtension'}"
    exts = [e for e in cfg["extensions"] if not wanted or e["name"] in wanted or e["full_name"] in wanted]
    if wanted and not exts:
        return f"no CUDAExtension named {', '.join(wanted)} (setup.py makes {', '.join(e['full_name'] for e in cfg['extensions'])})"
    jobs = []
    for e in exts:
        st = extension_settings(cfg, e, "rocm")
        jobs.append({"name": e["name"], "full_name": e["full_name"], "sources": e["sources"],
                     "include_dirs": [d for d in st["include_dirs"] if d not in st["flag_include_dirs"]],
                     "defines": st["defines"], "extra": arch_free(st["nvcc"]), "extra_host": st["cxx"],
                     "flag_include_dirs": st["flag_include_dirs"]})
    return jobs, cfg


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("project", type=Path)
    ap.add_argument("--from-setup", action="store_true", help="derive everything from PROJECT/setup.py (not run)")
    ap.add_argument("--extension", action="append", default=[], help="with --from-setup: an extension (repeat)")
    ap.add_argument("--source", action="append", default=[], help="a source of the extension (repeat)")
    ap.add_argument("--include-dir", action="append", default=[], help="include_dirs entry (repeat)")
    ap.add_argument("--define", action="append", default=[], help="NAME or NAME=VALUE (repeat)")
    ap.add_argument("--flag", action="append", default=[], help="extra compile flag, e.g. --flag=-O3 (repeat)")
    ap.add_argument("--name", default="ext", help="TORCH_EXTENSION_NAME")
    ap.add_argument("--arch", default="gfx942")
    ap.add_argument("--torch-version", default="2.13.0")
    ap.add_argument("--hipcc", default=DEFAULT_HIPCC)
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds one TU may take")
    ap.add_argument("--json", type=Path, help="write per-TU results here")
    args = ap.parse_args(argv)
    derived = None
    if args.from_setup:
        got = _jobs_from_setup(args.project, args.extension)
        if isinstance(got, str):
            print(f"error: {got}", file=sys.stderr)
            return 3
        jobs, derived = got
        print(f"derived from {args.project / 'setup.py'} (read, not run): "
              f"{', '.join(j['full_name'] for j in jobs)}")
        for u in derived["derived"]["undecidable"]:
            if not u["platforms"] or "rocm" in u["platforms"]:
                print(f"undecidable {u['at']}: {u['what']}")
    elif args.source:
        jobs = [{"name": args.name, "sources": args.source, "include_dirs": args.include_dir,
                 "defines": args.define, "extra": args.flag, "extra_host": None, "flag_include_dirs": []}]
    else:
        ap.error("pass --source (repeat) or --from-setup")
    headers = find_assembled(args.torch_version)
    if headers is None:
        print(f"error: no assembled torch {args.torch_version} ROCm headers; run tools/torch_rocm_headers.py",
              file=sys.stderr)
        return 3
    results = []
    for job in jobs:
        try:
            results += compile_extension(args.project, job["sources"], headers, args.hipcc, arch=args.arch,
                                         name=job["name"], include_dirs=job["include_dirs"], defines=job["defines"],
                                         extra=job["extra"], extra_host=job["extra_host"],
                                         flag_include_dirs=job["flag_include_dirs"], timeout=args.timeout)
        except VadoError as exc:
            print(f"error: {exc.message}", file=sys.stderr)
            return 3
    for r in results:
        print(f"{'ok  ' if r.ok else 'FAIL'} {r.source} -> {r.compiled} ({r.seconds:.0f} s)" + ("" if r.ok else f"\n     {r.first_error()}"))
    ok = sum(r.ok for r in results)
    print(f"{ok}/{len(results)} TUs compiled for {args.arch}")
    if args.json:
        doc = {"tus": [{"source": r.source, "compiled": r.compiled, "ok": r.ok, "seconds": r.seconds,
                        "command": r.command, "log": r.log[-8000:]} for r in results]}
        if derived is not None:
            doc["derived"] = derived
        args.json.write_text(json.dumps(doc, indent=1))
    return 0 if ok == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
