"""LIB rules: which CUDA libraries a file uses, and what each target offers instead.

One rule per class of library; the libraries, how to recognise them and what
replaces them per target are data (:mod:`vado.knowledge.libraries`). A rule
reports one finding per file and library, at the first piece of evidence, with
all the evidence in ``data``: the headers included, the identifiers used (with
counts) and the library binaries named in the source (``#pragma comment(lib,
…)``, ``dlopen("libcudnn.so.9")``).

Verdicts come from the library facts, never from the rule:

- ROCm: the ``api_shape`` of the ROCm counterpart — drop-in or near-drop-in →
  moves with automatic edits; rework → needs manual work; none → blocked. A
  counterpart the facts call early-access needs manual work whatever its shape.
- oneAPI: the Intel counterpart's shape (there is no rename path to SYCL, so
  anything short of drop-in needs manual work); no known equivalent → blocked.
- SCALE: the recorded status (supported → moves as is; partial, failing or
  undocumented → needs manual work; none → blocked).
- ZLUDA: a shim library (``zluda_blas`` …) → as the shim's status says; a
  binary library without a shim → blocked (NVIDIA's binary does not run on
  AMD); a header-only template library is compiled into the application's own
  PTX, which ZLUDA translates, but its coverage is not documented → manual.

Precision first: an identifier counts as evidence when it is an exact name of
the CUDA→HIP table for that library, or when it matches one of the library's
identifier prefixes in the library's own style (``cudnnCreate``, ``CUDNN_…``;
not a user's ``cudnn_enabled`` flag); snake-case names (``nvshmem_malloc``)
count when they are called and the table does not cover the library. Names the file ``#define``s
itself are user macros, not evidence. A quoted include counts only when it is
a library header by exact name or directory (``"cutlass/gemm/gemm.h"``), never
by a wildcard pattern: ``"cudnn_utils.h"`` is a user header.

Layout: :mod:`.verdicts` (:func:`library_verdict`, one reader per target family, and the ROCm names),
:mod:`.evidence` (:func:`library_uses`: what a file uses), :mod:`.rule` (:class:`_LibraryRule`, the shared
body), and the rules by class of library: :mod:`.deep_learning` (LIB001-LIB003), :mod:`.system`
(LIB004-LIB009, LIB011), :mod:`.mapped` (LIB010) and :mod:`.cub_names` (LIB012: ``cub::`` names hipCUB lacks). Importing this package imports every module, which
registers the rules (:mod:`vado.rules.registry`); a new LIB rule is a ``_LibraryRule`` subclass naming
its ``library_ids``, in its class's module.
"""

from __future__ import annotations

from vado.rules.lib.cub_names import CubNameHipcubLacks
from vado.rules.lib.deep_learning import CudnnUse, CutlassUse, TensorrtUse
from vado.rules.lib.evidence import LibraryUse, library_uses
from vado.rules.lib.mapped import MappedLibraryUse
from vado.rules.lib.rule import CUDA_KINDS, _LibraryRule
from vado.rules.lib.system import CufileUse, CuptiUse, NppUse, NvjpegUse, NvmlUse, NvshmemUse, VideoCodecUse
from vado.rules.lib.verdicts import HEADER_ONLY, library_verdict, rocm_replacement

__all__ = [
    "CUDA_KINDS",
    "CubNameHipcubLacks",
    "CudnnUse",
    "CufileUse",
    "CuptiUse",
    "CutlassUse",
    "HEADER_ONLY",
    "LibraryUse",
    "MappedLibraryUse",
    "NppUse",
    "NvjpegUse",
    "NvmlUse",
    "NvshmemUse",
    "TensorrtUse",
    "VideoCodecUse",
    "_LibraryRule",
    "library_uses",
    "library_verdict",
    "rocm_replacement",
]
