#!/usr/bin/env python3
"""Derive benchmarks/torch_ext/packages.json's extensions from each package's setup.py and compare.

    python3 benchmarks/torch_ext_derive.py [--pypi /work/repos/pypi] [--ports /work/repos/pypi-port] \\
        [--packages a,b] [--json out.json] [--write] [--config PACKAGES.json]

For every package of packages.json, :func:`vado.build.torch_setup.derive_config` reads the sdist's setup.py
(``--pypi``) and the port's (``--ports``, ``vado port DIR --torch-extension auto``) without running them. The
CUDA build is the original's (the port must leave it as it is: checked), the ROCm build the port's. Each
field of the entry is compared with the derived one: module, kind, include_dirs, defines, the extensions'
names and sources (as sets: glob order is the file system's), ``cuda.cxx``/``cuda.nvcc``, and on ROCm the
defines, the device flags (``flags``; ``nvcc`` plus ``-U`` undefines), the host flags and
``flag_include_dirs``. Exit 0 when every field agrees. ``--write`` replaces each entry by the derived one
(keeping ``sdist`` and ``dir``); the undecidable items and assumptions go with it.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from vado.build.torch_setup import derive_config, extension_settings

HERE = Path(__file__).resolve().parent
CONFIG = HERE / "torch_ext" / "packages.json"


def _settings(pkg: dict, ext: dict, platform: str) -> dict:
    st = extension_settings(pkg, ext, platform)
    st["include_dirs"] = [d for d in st["include_dirs"] if d not in st["flag_include_dirs"]]
    return st


def compare(hand: dict, orig: dict, port: dict) -> list[str]:
    """The fields where the hand-written entry and the derived one differ (one line each): the package's
    module and kind, the extensions' names and sources, and per extension and platform what a compile of
    it gets (:func:`vado.build.torch_setup.extension_settings`: include dirs, defines, host and device flags,
    include dirs given as flags). CUDA's from the original, ROCm's from the port."""
    out = []

    def check(what: str, a, b) -> None:
        if a != b:
            out.append(f"{what}: hand-written {a!r}, derived {b!r}")

    check("module", hand.get("module"), orig.get("module"))
    check("kind", hand.get("kind"), orig.get("kind"))
    check("extensions", sorted(e["name"] for e in hand["extensions"]), sorted(e["name"] for e in orig["extensions"]))
    derived = {"cuda": {e["name"]: e for e in orig["extensions"]}, "rocm": {e["name"]: e for e in port["extensions"]}}
    for h in hand["extensions"]:
        for platform, pkg in (("cuda", orig), ("rocm", port)):
            d = derived[platform].get(h["name"])
            if d is None:
                continue
            if platform == "cuda":
                check(f"{h['name']}.sources", sorted(h["sources"]), sorted(d["sources"]))
            a, b = _settings(hand, h, platform), _settings(pkg, d, platform)
            for k in ("include_dirs", "defines", "cxx", "nvcc", "flag_include_dirs"):
                check(f"{h['name']} {platform}.{k}", a[k], b[k])
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pypi", type=Path, default=Path("/work/repos/pypi"))
    ap.add_argument("--ports", type=Path, default=Path("/work/repos/pypi-port"))
    ap.add_argument("--packages", default="")
    ap.add_argument("--config", type=Path, default=CONFIG, help="the descriptions (default packages.json)")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--write", action="store_true", help="replace packages.json's entries by the derived ones")
    args = ap.parse_args(argv)
    data = json.loads(args.config.read_text())
    names = [n for n in args.packages.split(",") if n] or list(data["packages"])
    report, differ = {}, 0
    for name in names:
        hand = data["packages"][name]
        orig, d_orig = derive_config(args.pypi / hand["dir"])
        port, d_port = derive_config(args.ports / hand["dir"])
        if orig is None or port is None:
            print(f"{name}: nothing derived ({d_orig.skipped or d_port.skipped or 'no CUDAExtension'})")
            differ += 1
            continue
        diffs = compare(hand, orig, port)
        same_cuda = orig["cuda"] == port["cuda"] and [e["sources"] for e in orig["extensions"]] == \
            [e["sources"] for e in port["extensions"]]
        if not same_cuda:
            diffs.append("the port's CUDA build differs from the original's")
        undecidable = [f"{u['at']} [{','.join(u['platforms'])}] {u['what']}"
                       for u in port["derived"]["undecidable"]]
        report[name] = {"differences": diffs, "undecidable": undecidable}
        print(f"{name}: {'same' if not diffs else f'{len(diffs)} difference(s)'}; "
              f"{len(undecidable)} undecidable item(s)")
        for line in diffs:
            print(f"   - {line}")
        for line in undecidable:
            print(f"   ? {line[:300]}")
        differ += bool(diffs)
        if args.write:
            entry = {"sdist": hand["sdist"], "dir": hand["dir"], **{k: v for k, v in orig.items() if k != "dir"}}
            entry["rocm"] = port["rocm"]
            entry["derived"] = {"from": "setup.py (CUDA: the sdist's; ROCm: vado's port's)",
                                "undecidable": port["derived"]["undecidable"],
                                "assumptions": port["derived"]["assumptions"]}
            data["packages"][name] = entry
    if args.write:
        args.config.write_text(json.dumps(data, indent=1) + "\n")
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))
    print(f"{len(names) - differ}/{len(names)} packages: the hand-written entry equals the derived one")
    return 0 if differ == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
