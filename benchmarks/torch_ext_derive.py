#!/usr/bin/env python3
"""Derive benchmarks/torch_ext/packages.json's extensions from each package's setup.py and compare.

    python3 benchmarks/torch_ext_derive.py [--pypi /work/repos/pypi] [--ports /work/repos/pypi-port] \\
        [--packages a,b] [--json out.json] [--write]

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


def _host_flags(pkg: dict, platform: str) -> list:
    ext = pkg["extensions"][0] if pkg.get("extensions") else {}
    return extension_settings(pkg, ext, platform)["cxx"]


def compare(hand: dict, orig: dict, port: dict) -> list[str]:
    """The fields where the hand-written entry and the derived one differ (one line each)."""
    out = []

    def check(what: str, a, b) -> None:
        if a != b:
            out.append(f"{what}: hand-written {a!r}, derived {b!r}")

    check("module", hand.get("module"), orig.get("module"))
    check("kind", hand.get("kind"), orig.get("kind"))
    check("include_dirs", hand.get("include_dirs"), orig.get("include_dirs"))
    check("defines", hand.get("defines"), orig.get("defines"))
    check("extensions", sorted(e["name"] for e in hand["extensions"]), sorted(e["name"] for e in orig["extensions"]))
    derived = {e["name"]: e for e in orig["extensions"]}
    for h in hand["extensions"]:
        if h["name"] in derived:
            check(f"{h['name']}.sources", sorted(h["sources"]), sorted(derived[h["name"]]["sources"]))
    for k in ("cxx", "nvcc"):
        check(f"cuda.{k}", hand["cuda"].get(k), orig["cuda"].get(k))
    r, hr = port.get("rocm", {}), hand.get("rocm", {})
    check("rocm.defines", hr.get("defines", []), r.get("defines", []))
    check("rocm.flags (device)", hr.get("flags", []), r.get("flags", []))
    check("rocm host flags", [*hr.get("flags", [])], _host_flags(port, "rocm"))
    check("rocm.flag_include_dirs", hr.get("flag_include_dirs", []), r.get("flag_include_dirs", []))
    check("rocm include_dirs", [d for d in hand.get("include_dirs", []) if d not in hr.get("flag_include_dirs", [])],
          r.get("include_dirs", port.get("include_dirs")))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pypi", type=Path, default=Path("/work/repos/pypi"))
    ap.add_argument("--ports", type=Path, default=Path("/work/repos/pypi-port"))
    ap.add_argument("--packages", default="")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--write", action="store_true", help="replace packages.json's entries by the derived ones")
    args = ap.parse_args(argv)
    data = json.loads(CONFIG.read_text())
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
        CONFIG.write_text(json.dumps(data, indent=1) + "\n")
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))
    print(f"{len(names) - differ}/{len(names)} packages: the hand-written entry equals the derived one")
    return 0 if differ == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
