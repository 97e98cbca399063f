#!/usr/bin/env python3
"""The batch-8 (benchmarks/torch_ext/unseen8_*) package descriptions for torch_ext_gfx942.py.

    PYTHONPATH=src python3 benchmarks/torch_ext_unseen8_config.py PORT_ROOT OUT.json [--orig /work/repos/pypi8] \\
        [--before BEFORE_PORT_ROOT] [--compiled GFX942_RESULTS.json] [--calls benchmarks/torch_ext/calls]

The same derivation as batch 7's (benchmarks/torch_ext_unseen7_config.py, whose ``main`` this runs): each entry read
by vado.build.torch_setup.derive_config from the sdist (CUDA side) and from vado's port (ROCm side), only the
packages every TU of which compiles for gfx942 kept with ``--compiled``; this batch's notes on those left out.
"""
from pathlib import Path

from torch_ext_unseen7_config import main

#: What the batch's compile and audit say of the packages that are left out (added to ``left_out``).
NOTES = {
    "cumcubes-0.0.3": "cumcubes.cpp uses std::ofstream without <fstream>, which torch 2.13.0's headers no longer bring "
                      "in (g++ on the CPU wheel's headers: 'incomplete type'): the CUDA build fails the same way; vado "
                      "says 'moves with automatic edits' and does not report it",
    "polygon_iou-1.0.7": "the sdist ships inter_union_cuda.cu without inter_union_cuda.h and utils.h: API016, manual "
                         "(inter_union_cuda.h; utils.h, a plain name, is taken as maybe a system header); its "
                         "-std=c++14 (torch 2.13.0 needs C++17, on CUDA too) and -Xcompiler -fno-gnu-unique are "
                         "reported and fixed for ROCm (BLD005), so both TUs stop only at the missing header",
    "qgemm-0.0.2": "int4_gemm.cu is nvcuda::wmma (ARCH001, manual: rocWMMA); launch.cpp redeclares checks.hpp's "
                   "inline ceil_div_i64 as static (an error for any compiler)",
    "fussim-0.3.1": "derive_config reads no extension: setup.py builds one per CUDA variant in a loop over a list "
                    "whose length it cannot decide (get_cuda_variants_to_build()); its module-level "
                    "`if not check_cuda_available(): raise RuntimeError` stops setup.py where there is no nvcc "
                    "(a ROCm build): BLD005, manual. Its 3 TUs, compiled with a description written by hand "
                    "(unseen8_results.json), all compile",
}

#: Packages the device run leaves out (its original and its port are built and compared on an NVIDIA GPU).
DEVICE_SKIPS = {
    "modulated_deform_conv": "its original does not build on torch 2.13.0 for CUDA either (config.h includes "
                             "<THC/THCAtomics.cuh>, removed in PyTorch 1.11, and the sources call AT_CHECK, removed in "
                             "1.5; nvcc 13 on the CPU wheel's headers: 'THC/THCAtomics.cuh: No such file'), so there is "
                             "no CUDA reference; the port's TUs compile for gfx942 and through the HIP-on-CUDA layer",
}

ABOUT = ("The eighth unseen batch: PyTorch-extension sdists with CUDA sources no earlier batch used, downloaded with "
         "`pip download --no-binary :all: --no-deps --no-build-isolation NAME` into /work/repos/pypi8 (pip prepares "
         "an sdist's metadata by running its setup.py: done in a throwaway venv holding torch 2.13.0+cpu; sha256 of "
         "each archive in sha256, sha.txt there). Entries derived by vado.build.torch_setup.derive_config, read, not "
         "run: the CUDA side from the sdist, the ROCm side from vado's port (/work/repos/pypi8-port2, `vado port SDIST "
         "-o PORT/SDIST`, torch-extension mode auto); before_port from the port at the branch start "
         "(/work/repos/pypi8-port). Kept: packages every TU of which compiles for gfx942 (ROCm 7.2.4 hipcc, torch "
         "2.13.0 ROCm headers): benchmarks/torch_ext_gfx942.py --config THIS --root PORT_ROOT. Written by "
         "benchmarks/torch_ext_unseen8_config.py; left_out says why the others are not here.")

if __name__ == "__main__":
    raise SystemExit(main(notes=NOTES, about=ABOUT, orig=Path("/work/repos/pypi8"), device_skips=DEVICE_SKIPS))
