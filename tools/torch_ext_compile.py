#!/usr/bin/env python3
"""Compile a PyTorch extension's TUs for an AMD GPU as ``torch.utils.cpp_extension`` does on ROCm.

    python3 tools/torch_ext_compile.py PROJECT --source csrc/a.cpp --source csrc/k.cu \\
        --include-dir csrc --define WITH_CUDA --flag=-O3 --name _C [--arch gfx942] [--json out.json]

``PROJECT`` is the directory of the extension's setup.py; sources and include dirs are relative
to it, as in its ``CUDAExtension(...)``. A copy of the project is hipified with PyTorch's own
hipify (``is_pytorch_extension=True``) and every source compiled to an object (no link) with
ROCm's hipcc, against the ROCm headers ``tools/torch_rocm_headers.py`` assembled. The project's
setup.py is read by you, not run: pass what its ``CUDAExtension`` gets on a ROCm build.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from vado.errors import VadoError
from vado.verify.torch_ext import compile_extension
from vado.verify.torch_headers import find_assembled

DEFAULT_HIPCC = "/var/cache/vado/rocm-7.2.4/bin/hipcc"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("project", type=Path)
    ap.add_argument("--source", action="append", required=True, help="a source of the extension (repeat)")
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
    headers = find_assembled(args.torch_version)
    if headers is None:
        print(f"error: no assembled torch {args.torch_version} ROCm headers; run tools/torch_rocm_headers.py",
              file=sys.stderr)
        return 3
    try:
        results = compile_extension(args.project, args.source, headers, args.hipcc, arch=args.arch, name=args.name,
                                    include_dirs=args.include_dir, defines=args.define, extra=args.flag,
                                    timeout=args.timeout)
    except VadoError as exc:
        print(f"error: {exc.message}", file=sys.stderr)
        return 3
    for r in results:
        print(f"{'ok  ' if r.ok else 'FAIL'} {r.source} -> {r.compiled} ({r.seconds:.0f} s)" + ("" if r.ok else f"\n     {r.first_error()}"))
    ok = sum(r.ok for r in results)
    print(f"{ok}/{len(results)} TUs compiled for {args.arch}")
    if args.json:
        args.json.write_text(json.dumps([{"source": r.source, "compiled": r.compiled, "ok": r.ok,
                                          "seconds": r.seconds, "command": r.command, "log": r.log[-8000:]} for r in results], indent=1))
    return 0 if ok == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
