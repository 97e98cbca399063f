#!/usr/bin/env python3
"""Compile every TU of the PyTorch extensions of benchmarks/torch_ext/packages.json for gfx942.

    nice -n 10 python3 benchmarks/torch_ext_gfx942.py --root /work/repos/pypi-port --out gfx942.json \\
        [--packages torch_scatter,causal_conv1d] [--phase device|host|all] [--timeout 1800] [--from-setup] \\
        [--config benchmarks/torch_ext/unseen_packages.json] [--sources csrc/a.cu,csrc/b.cu]

``--root`` holds the packages' trees (the sdists unpacked, or vado's ports of them: ``vado port
SDIST_DIR -o ROOT/SDIST_DIR --torch-extension auto``). Each extension is hipified and compiled as
``torch.utils.cpp_extension`` does on a ROCm build (:func:`vado.verify.torch_ext.compile_extension`),
with the defines and flags its setup.py gives on ROCm, one TU at a time, against the ROCm headers
tools/torch_rocm_headers.py assembled. ``--phase device`` compiles the ``.cu`` TUs only, ``host``
the ``.cpp`` ones. An extension's ``rocm.flag_include_dirs`` (packages.json) are include dirs the
ported setup.py passes on ROCm as ``-I`` flags instead of ``include_dirs`` (BLD008: hipify leaves them
alone). Device TUs get the extension's ``nvcc`` flags, host TUs its ``cxx`` flags
(:func:`vado.build.torch_setup.extension_settings`), setup.py's own ``--offload-arch`` left out (the
architecture is ``gfx942`` here). ``--from-setup`` derives each package's description from the setup.py
under ``--root`` (:func:`vado.build.torch_setup.derive_config`, read, not run) instead of reading
packages.json; ``--root`` may then also be one project directory. Results (per TU: ok, seconds, first
error, log tail) are appended to ``--out`` after each extension, so a long run can be read while it goes.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from vado.build.torch_setup import arch_free, derive_config, extension_settings
from vado.verify.torch_ext import compile_extension
from vado.verify.torch_headers import find_assembled

HERE = Path(__file__).resolve().parent
HIPCC = "/var/cache/vado/rocm-7.2.4/bin/hipcc"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--config", type=Path, default=HERE / "torch_ext" / "packages.json",
                    help="packages file (default: benchmarks/torch_ext/packages.json)")
    ap.add_argument("--packages", default="", help="comma-separated names (default: all)")
    ap.add_argument("--sources", default="", help="comma-separated sources to compile (default: all)")
    ap.add_argument("--phase", choices=("device", "host", "all"), default="all")
    ap.add_argument("--timeout", type=float, default=1800.0, help="seconds one TU may take")
    ap.add_argument("--torch-version", default="2.13.0")
    ap.add_argument("--hipcc", default=HIPCC)
    ap.add_argument("--from-setup", action="store_true", help="derive the descriptions from the setup.py files")
    args = ap.parse_args(argv)
    cfg = json.loads(args.config.read_text())["packages"]
    only = {s for s in args.sources.split(",") if s}
    if args.from_setup and (args.root / "setup.py").is_file():  # one project
        cfg = {args.root.name: {"dir": "."}}
    names = [n for n in args.packages.split(",") if n] or list(cfg)
    if args.from_setup:
        for name in names:
            derived, d = derive_config(args.root / cfg[name]["dir"])
            if derived is None:
                print(f"{name}: nothing derived from setup.py ({d.skipped or 'no CUDAExtension'})", file=sys.stderr)
                return 3
            for u in derived["derived"]["undecidable"]:
                if "rocm" in u["platforms"]:
                    print(f"   {name}: undecidable {u['at']}: {u['what'][:200]}", flush=True)
            cfg[name] = {**derived, "dir": cfg[name]["dir"]}
    headers = find_assembled(args.torch_version)
    if headers is None:
        print("no assembled ROCm torch headers: run tools/torch_rocm_headers.py", file=sys.stderr)
        return 3
    done = json.loads(args.out.read_text()) if args.out.is_file() else []
    for name in names:
        pkg = cfg[name]
        for ext in pkg["extensions"]:
            srcs = [s for s in ext["sources"]
                    if (args.phase == "all" or (s.endswith(".cu") == (args.phase == "device")))
                    and (not only or s in only)]
            if not srcs:
                continue
            start = time.monotonic()
            st = extension_settings(pkg, ext, "rocm")
            res = compile_extension(args.root / pkg["dir"], srcs, headers, args.hipcc, name=ext["name"],
                                    include_dirs=[d for d in st["include_dirs"] if d not in st["flag_include_dirs"]],
                                    defines=st["defines"], extra=arch_free(st["nvcc"]), extra_host=st["cxx"],
                                    flag_include_dirs=st["flag_include_dirs"], timeout=args.timeout)
            for r in res:
                print(f"{'ok  ' if r.ok else 'FAIL'} {name} {r.source} {r.seconds:.0f} s"
                      + ("" if r.ok else f"  {r.first_error()}"), flush=True)
                done.append({"package": name, "extension": ext["name"], "source": r.source, "ok": r.ok,
                             "seconds": r.seconds, "error": r.first_error(), "log": r.log[-4000:],
                             "command": list(r.command)})
            args.out.write_text(json.dumps(done, indent=1))
            print(f"   {name}:{ext['name']} {len(res)} TUs in {time.monotonic() - start:.0f} s", flush=True)
    ok = sum(d["ok"] for d in done)
    print(f"{ok}/{len(done)} TUs compiled for gfx942")
    return 0 if ok == len(done) else 1


if __name__ == "__main__":
    sys.exit(main())
