#!/usr/bin/env python3
"""Assemble the CUDA 11.8 tree that vado's HIP-on-NVIDIA build uses (see vado.verify.hip_nvidia).

    python tools/setup_hip_nvidia.py [--root DIR] [--wheels DIR] [--fatbinary PATH]

Downloads NVIDIA's CUDA 11.8 runtime/nvcc/cuRAND wheels from PyPI (or takes them
from --wheels), unpacks headers, ptxas, libdevice and libcudart into DIR
(default: $VADO_CUDA11_PATH or ~/.cache/vado/cuda-11.8), and installs the
fatbinary adapter. Needs an installed CUDA toolkit's fatbinary.
"""

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from vado.verify import hip_nvidia  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", type=Path, default=None)
    ap.add_argument("--wheels", default=None)
    ap.add_argument("--fatbinary", default=None)
    args = ap.parse_args()
    root = hip_nvidia.setup(args.root, fatbinary=args.fatbinary, wheel_dir=args.wheels)
    print(f"CUDA 11.8 tree ready at {root}" if hip_nvidia.is_ready(root) else f"incomplete tree at {root}")
    return 0 if hip_nvidia.is_ready(root) else 1


if __name__ == "__main__":
    sys.exit(main())
