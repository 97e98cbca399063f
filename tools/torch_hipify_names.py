#!/usr/bin/env python3
"""Write the names PyTorch's build-time hipify renames to ``src/vado/port/data/torch_hipify.json``.

    python3 tools/torch_hipify_names.py --hipify ~/.cache/vado/torch-rocm-headers/2.13.0/hipify

``--hipify`` is a folder holding PyTorch's ``hipify`` package (``torch/utils/hipify`` of a torch wheel; the
copy ``tools/torch_rocm_headers.py`` keeps beside the headers it assembles). On a ROCm build of PyTorch,
``cpp_extension`` hipifies a ``CUDAExtension``'s sources with this package: it replaces exactly the keys of
``cuda_to_hip_mappings.CUDA_TO_HIP_MAPPINGS`` where they stand between non-word characters. A torch
extension's port (:mod:`vado.port.torch_ext`) leaves those renames to it and writes the others itself:
``nv_bfloat162``, ``<device_launch_parameters.h>`` and CUB's ``<cub/warp/…>`` headers are none of its keys.
The file is read, never run: the mapping module is loaded from its source with ``ast``.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "src" / "vado" / "port" / "data" / "torch_hipify.json"


def macro_targets(source: str) -> dict[str, str]:
    """The compiler macros (``__NAME__``) the mappings rename, with what each becomes (``__CUDACC__`` →
    ``__HIPCC__``): a fix that writes the same in a ``#if`` is hipify's work, not the port's."""
    out: dict[str, str] = {}
    for node in ast.parse(source).body:
        call = node.value if isinstance(node, ast.Assign) else None
        if not (isinstance(call, ast.Call) and call.args and isinstance(call.args[0], ast.List)):
            continue
        for e in call.args[0].elts:
            if not (isinstance(e, ast.Tuple) and len(e.elts) >= 2 and isinstance(e.elts[0], ast.Constant)):
                continue
            key, value = e.elts[0].value, e.elts[1]
            if isinstance(value, ast.Tuple) and value.elts:
                value = value.elts[0]
            if (isinstance(key, str) and key.startswith("__") and key.endswith("__") and len(key) > 4
                    and isinstance(value, ast.Constant) and isinstance(value.value, str)):
                out.setdefault(key, value.value)
    return dict(sorted(out.items()))


def mapping_keys(source: str) -> tuple[list[str], list[str]]:
    """(identifier keys, include keys) of the mappings ``CUDA_TO_HIP_MAPPINGS`` lists, read from the module's text.

    Each mapping is an ``OrderedDict([(cuda, (hip, …)), …])`` or ``collections.OrderedDict(...)`` assigned
    to a name; the include map is ``CUDA_INCLUDE_MAP``.
    """
    tree = ast.parse(source)
    tables: dict[str, list[str]] = {}
    listed: list[str] = []
    for node in tree.body:
        if not isinstance(node, ast.Assign) or len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
            continue
        name = node.targets[0].id
        if name == "CUDA_TO_HIP_MAPPINGS" and isinstance(node.value, ast.List):
            listed = [e.id for e in node.value.elts if isinstance(e, ast.Name)]
            continue
        call = node.value
        if isinstance(call, ast.Call) and call.args and isinstance(call.args[0], ast.List):
            keys = [e.elts[0].value for e in call.args[0].elts
                    if isinstance(e, ast.Tuple) and e.elts and isinstance(e.elts[0], ast.Constant)
                    and isinstance(e.elts[0].value, str)]
            tables[name] = keys
    if not listed or any(t not in tables for t in listed):
        raise SystemExit("cuda_to_hip_mappings.py: CUDA_TO_HIP_MAPPINGS or one of its tables not found")
    names = sorted({k for t in listed if t != "CUDA_INCLUDE_MAP" for k in tables[t]})
    includes = sorted(set(tables.get("CUDA_INCLUDE_MAP", ())))
    return names, includes


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hipify", type=Path, required=True, help="folder holding hipify/cuda_to_hip_mappings.py")
    ap.add_argument("--torch-version", default="2.13.0")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    src = args.hipify / "hipify" / "cuda_to_hip_mappings.py"
    if not src.is_file():
        src = args.hipify / "cuda_to_hip_mappings.py"
    text = src.read_text(encoding="utf-8")
    names, includes = mapping_keys(text)
    data = {
        "about": "The keys of PyTorch's torch/utils/hipify/cuda_to_hip_mappings.py CUDA_TO_HIP_MAPPINGS (names) and "
                 "CUDA_INCLUDE_MAP (includes): what cpp_extension's build-time hipify renames in a CUDAExtension's "
                 "sources on a ROCm build of PyTorch; macros: the compiler macros among them with what each becomes. "
                 "Written by tools/torch_hipify_names.py.",
        "torch": args.torch_version,
        "names": names,
        "includes": includes,
        "macros": macro_targets(text),
    }
    args.out.write_text(json.dumps(data, indent=0) + "\n", encoding="utf-8")
    print(f"{len(names)} names, {len(includes)} include keys → {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
