"""LIB010: the CUDA math, communication and template libraries with a ROCm counterpart (cuBLAS, cuFFT,
cuRAND, NCCL, Thrust, CUB …), named with the target's hip*/roc* library and version.
"""

from __future__ import annotations

from vado.model import Severity
from vado.rules.lib.rule import CUDA_KINDS, _LibraryRule


class MappedLibraryUse(_LibraryRule):
    """The file uses a CUDA math, communication or template library with a ROCm counterpart.

    What it does
    ------------
    Reports one finding per file and library for cuBLAS, cuBLASLt, cuFFT,
    cuRAND, cuSPARSE, cuSOLVER, cuTENSOR, cuSPARSELt, NVRTC, NCCL, NVTX,
    Thrust, CUB and libcu++, naming the hip*/roc* library and its version on
    the target. The verdict per target comes from the library facts: a
    drop-in or near-drop-in counterpart moves with automatic edits (hipify
    renames the calls, headers and link names), a rework needs manual work;
    on ZLUDA only the libraries with a shim move as they are.

    Why is this bad?
    ----------------
    Usually it is not: these libraries are the cheap part of a port. It is
    reported so the build gets the right libraries (``-lhipblas``,
    ``roc::rocthrust``), so near-drop-in gaps (hipBLAS 3 data types, hipCUB's
    unsupported iterators) get a look, and so oneAPI, SCALE and ZLUDA verdicts
    are explicit.

    Example
    -------
    .. code-block:: cuda

        #include <cublas_v2.h>
        cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, A, m, B, k, &beta, C, m);

    Use instead
    -----------
    .. code-block:: cpp

        #include <hipblas/hipblas.h>
        hipblasSgemm(handle, HIPBLAS_OP_N, HIPBLAS_OP_N, m, n, k, &alpha, A, m, B, k, &beta, C, m);

    Fix safety
    ----------
    The renames are the API rules' edits (API004, API005) and are safe; the
    link changes belong to the build rules.

    References
    ----------
    - HIP porting guide (library equivalents), https://github.com/ROCm/HIP/blob/c5e11fcac8249ce4f7e70157588ff9661a870b59/docs/how-to/hip_porting_guide.md
    - ROCm 7.2 compatibility matrix, https://github.com/ROCm/legacy-rocm-build/blob/fff7efbd0c870e1bfba278faa91d517996b7a33a/docs/compatibility/compatibility-matrix.rst
    - ZLUDA, https://github.com/vosen/ZLUDA
    """

    code = "LIB010"
    name = "mapped-library-use"
    severity = Severity.INFO
    file_kinds = CUDA_KINDS
    library_ids = (
        "cublas",
        "cublaslt",
        "cufft",
        "curand",
        "cusparse",
        "cusolver",
        "cutensor",
        "cusparselt",
        "nvrtc",
        "nccl",
        "nvtx",
        "thrust",
        "cub",
        "libcudacxx",
    )
    hours_per_name = 0.25
