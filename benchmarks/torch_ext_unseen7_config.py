#!/usr/bin/env python3
"""The batch-7 (issue 29, benchmarks/torch_ext/unseen7_*) package descriptions for torch_ext_gfx942.py.

    PYTHONPATH=src python3 benchmarks/torch_ext_unseen7_config.py PORT_ROOT OUT.json [--orig /work/repos/pypi7] \\
        [--before BEFORE_PORT_ROOT] [--compiled GFX942_RESULTS.json] [--calls benchmarks/torch_ext/calls]

Every entry is derived by vado.build.torch_setup.derive_config, read, not run: from the sdist's files (``--orig``)
for the CUDA side and from PORT_ROOT's for the ROCm side, setup.py or, for the JIT packages, the package's
``torch.utils.cpp_extension.load()`` call. A package whose port leaves the CUDA extension out on ROCm gets the CUDA
build's sources and a ``rocm_gate`` note. Packages missing under PORT_ROOT, and those derive_config reads no
CUDAExtension from (``left_out``), are left out of ``packages``. ``--before`` adds each entry's ``before_port``
(what the port at the start of the branch gave on ROCm); ``--compiled`` (torch_ext_gfx942.py's results for
PORT_ROOT) keeps only the packages every TU of which compiled for gfx942, the others going to ``left_out`` with
their count; a package without a calls file under ``--calls`` gets a ``device_skip``.
"""
import argparse
import json
from pathlib import Path

from vado.build.torch_setup import derive_config


#: What the batch's compile and audit say of the packages that are left out (added to ``left_out``).
NOTES = {
    "DCNv2-0.4": "its 3 .cu include <THC/THC.h>, gone from PyTorch since 1.11 (CUDA builds too): API015, manual, "
                 "'THH/THH.h' file not found on ROCm",
    "fusedtok-2.5.0": "a scikit-build-core/CMake pybind11 module (no torch.utils.cpp_extension build): audited and "
                      "ported as a CMake project only",
}


ABOUT = ("Issue 29's seventh unseen batch: PyTorch-extension sdists with CUDA sources no earlier batch used, "
         "downloaded with `pip download --no-binary :all: --no-deps --no-build-isolation NAME` into /work/repos/pypi7 "
         "(pip prepares an sdist's metadata by running its setup.py: done in a throwaway venv holding torch "
         "2.13.0+cpu; sha256 of each archive in sha256, sha.txt there). Entries derived by vado.build.torch_setup.derive_config (setup.py, "
         "or the package's cpp_extension.load() for the JIT ones), read, not run: the CUDA side from the sdist, "
         "the ROCm side from vado's port (/work/repos/pypi7-port2, `vado port SDIST -o PORT/SDIST`, torch-extension "
         "mode auto); before_port from the port at the branch start (/work/repos/pypi7-port). Kept: packages every "
         "TU of which compiles for gfx942 (ROCm 7.2.4 hipcc, torch 2.13.0 ROCm headers): "
         "benchmarks/torch_ext_gfx942.py --config THIS --root PORT_ROOT. Written by "
         "benchmarks/torch_ext_unseen7_config.py; left_out says why the others are not here.")


def entry(orig: Path, port: Path, sdist: str, sha: str) -> tuple[dict | None, str]:
    """One package's description (None and why where nothing is derived)."""
    o, do = derive_config(orig)
    p, dp = derive_config(port)
    if o is None and p is None:
        return None, do.skipped or "no CUDAExtension or load() derived"
    o = o or p
    if p is None or not p["extensions"]:
        p = o
    e = {**p, "sdist": sdist, "sha256": sha, "dir": port.name, "cuda": o["cuda"]}
    if not p["extensions"] or any("not built on rocm" in u["what"] for u in p["derived"]["undecidable"]):
        e["extensions"] = o["extensions"]
        e["rocm_gate"] = ("setup.py does not build the CUDA extension on ROCm; the CUDA build's sources are "
                          "compiled with the ROCm flags")
    return e, ""


def main(argv: list[str] | None = None, *, notes: dict[str, str] = NOTES, about: str = ABOUT,
         orig: Path = Path("/work/repos/pypi7"), device_skips: dict[str, str] | None = None) -> int:
    """Write the packages file (another batch passes its own ``notes``, ``about``, default ``orig`` and
    ``device_skips``: package name → why the device run leaves it out)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("port_root", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--orig", type=Path, default=orig)
    ap.add_argument("--before", type=Path, help="the port at the start of the branch (before_port blocks)")
    ap.add_argument("--compiled", type=Path, help="torch_ext_gfx942.py results for PORT_ROOT: keep what compiles")
    ap.add_argument("--calls", type=Path, help="calls folder: a package without a calls file gets a device_skip")
    args = ap.parse_args(argv)
    results = json.loads(args.compiled.read_text()) if args.compiled else None
    sha = dict(line.split() for line in (args.orig / "sha.txt").read_text().splitlines() if line.strip())
    packages, left_out = {}, {}
    for sdist in sorted(sha):
        d = sdist.removesuffix(".tar.gz")
        if not (args.port_root / d).is_dir():
            continue
        e, why = entry(args.orig / d, args.port_root / d, sdist, sha[sdist])
        if e is None:
            left_out[d] = why
            continue
        name = d.rsplit("-", 1)[0]
        if results is not None:
            tus = [r for r in results if r["package"] == name]
            ok = sum(r["ok"] for r in tus)
            want = sum(len(x["sources"]) for x in e["extensions"])
            if not tus or ok < want:
                left_out[d] = f"{ok}/{want} TUs compile for gfx942"
                continue
        if args.before is not None:
            b, _ = entry(args.orig / d, args.before / d, sdist, sha[sdist])
            if b is not None:
                e["before_port"] = {"rocm": b["rocm"], "defines": b.get("defines", []), "extensions": b["extensions"],
                                    **({"rocm_gate": b["rocm_gate"]} if b.get("rocm_gate") else {})}
        if device_skips and name in device_skips:
            e["device_skip"] = device_skips[name]
        elif args.calls is not None and not (args.calls / f"{name}.py").is_file():
            e["device_skip"] = "no calls file written"
        packages[name] = e
    for n, e in packages.items():
        print(n, e["dir"], [(x["name"], len(x["sources"])) for x in e["extensions"]], e["rocm"]["nvcc"],
              e.get("rocm_gate", ""))
    for d in left_out:
        if d in notes:
            left_out[d] = f"{left_out[d]}; {notes[d]}"
    for d, why in left_out.items():
        print(f"{d}: left out ({why})")
    args.out.write_text(json.dumps({"_about": about, "packages": packages, "left_out": left_out}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
