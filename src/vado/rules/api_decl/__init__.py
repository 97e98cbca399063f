"""API rules about declarations HIP's headers make differently from CUDA's.

A rename can be right and the port still fail to compile because a HIP header
declares something the CUDA header does not, or declares it with other types:

- hipBLAS declares its half-precision arguments as ``hipblasHalf``, which is
  ``uint16_t`` unless ``HIPBLAS_USE_HIP_HALF`` is defined before the header
  (API006);
- HIP's vector types (``float4``, ``int2`` …) are ``HIP_vector_type`` classes
  with their own arithmetic operators, so a program's own definitions of the
  same operators (``helper_math.h``) become ambiguous (API007);
- HIP defines atomics CUDA lacks (``atomicMin`` on ``float``, ``atomicAdd`` on
  ``double`` before ``sm_60`` …), so a program's own definition of one is a
  redefinition (API008).

The facts are read from the headers of ROCm 7.2.4 (``hipblas/hipblas.h``,
``hip/amd_detail/amd_hip_vector_types.h``, ``hip/amd_detail/amd_hip_atomic.h``)
and checked against Debian's HIP 5.2.

Layout, one module per rule: :mod:`.hipblas_half` (API006), :mod:`.vector_operators` (API007) and
:mod:`.atomics` (API008), over :mod:`.common` (the ROCm targets, directive words, the HIP-aware ``#if``
test and the guard the ports write). Importing this package imports every module, which registers the
rules (:mod:`vado.rules.registry`).
"""

from __future__ import annotations

from vado.rules.api_decl.atomics import (
    AtomicDef,
    AtomicOverloadDuplicatesHip,
    HIP_ATOMIC_HEADER,
    HIP_ATOMIC_OVERLOADS,
    atomic_defs,
)
from vado.rules.api_decl.common import (
    GUARD,
)
from vado.rules.api_decl.hipblas_half import (
    CUBLAS_HALF_FUNCTIONS,
    HALF_MACRO,
    HALF_MACRO_SINCE,
    HIPBLAS_HALF_FUNCTIONS,
    HipblasHalfArgumentType,
    half_define_offset,
)
from vado.rules.api_decl.vector_operators import (
    HIP_FRIEND_BINARY,
    HIP_MEMBER_COMPOUND,
    OperatorDef,
    PREFERRED,
    PREFERRED_DEFINITION,
    RHS,
    VECTOR_ELEMENTS,
    VectorOperatorDuplicatesHip,
    operator_defs,
    vector_type,
)

__all__ = [
    "AtomicDef",
    "AtomicOverloadDuplicatesHip",
    "CUBLAS_HALF_FUNCTIONS",
    "GUARD",
    "HALF_MACRO",
    "HALF_MACRO_SINCE",
    "HIPBLAS_HALF_FUNCTIONS",
    "HIP_ATOMIC_HEADER",
    "HIP_ATOMIC_OVERLOADS",
    "HIP_FRIEND_BINARY",
    "HIP_MEMBER_COMPOUND",
    "HipblasHalfArgumentType",
    "OperatorDef",
    "PREFERRED",
    "PREFERRED_DEFINITION",
    "RHS",
    "VECTOR_ELEMENTS",
    "VectorOperatorDuplicatesHip",
    "atomic_defs",
    "half_define_offset",
    "operator_defs",
    "vector_type",
]
