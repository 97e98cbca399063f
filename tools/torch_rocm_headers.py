#!/usr/bin/env python3
"""Assemble PyTorch's ROCm C++ headers from public pieces (no ROCm PyTorch needed).

    python3 tools/torch_rocm_headers.py --wheel torch-2.13.0+cpu-...whl --pytorch-src DIR

``--wheel``: any PyTorch 2.x wheel (or an installed ``torch`` package directory); a CPU
wheel is enough. ``--pytorch-src``: a directory in PyTorch's source layout holding the two
CMake templates no wheel ships (``c10/cuda/impl/cuda_cmake_macros.h.in``,
``aten/src/ATen/cuda/CUDAConfig.h.in``), copied from github.com/pytorch/pytorch at the
wheel's tag. The tree lands in ``~/.cache/vado/torch-rocm-headers/<version>/include``
(``--cache-root`` to change); ``vado.verify.torch_headers.find_assembled`` finds it.

What it does (vado.verify.torch_headers): stages the wheel's headers in PyTorch's source
layout, runs the wheel's own ``torch.utils.hipify`` with build_amd.py's includes/ignores,
configures the hipified templates with a ROCm build's values, and lays the result out like a
ROCm wheel's ``torch/include``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from vado.errors import VadoError
from vado.verify.torch_headers import TEMPLATES, assemble


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--wheel", type=Path, required=True, help="torch wheel file or installed torch package dir")
    ap.add_argument("--pytorch-src", type=Path, required=True,
                    help="dir holding " + ", ".join(TEMPLATES) + " (PyTorch source layout)")
    ap.add_argument("--cache-root", type=Path, default=None, help="where trees go (default ~/.cache/vado/torch-rocm-headers)")
    args = ap.parse_args(argv)
    try:
        got = assemble(args.wheel, args.pytorch_src, cache_root=args.cache_root)
    except VadoError as exc:
        print(f"error: {exc.message}", file=sys.stderr)
        return 3
    print(f"torch {got.torch_version}: ROCm headers at {got.include}")
    for g in got.generated:
        print(f"  configured {g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
