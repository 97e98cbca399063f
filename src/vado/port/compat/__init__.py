"""Local definitions for CUDA functions the target's HIP lacks, where a faithful one is short.

Some CUDA names have no HIP counterpart on a target (``__vmaxs4`` on any HIP,
``cusparseGetErrorString`` before hipSPARSE 6.0, ``__match_any_sync`` before
HIP 6.2, ``cooperative_groups::reduce`` on HIP 5.2), yet what they compute fits in a few lines of HIP. For those the
port writes the definition into the file and points the calls at it, instead of
leaving a name the compiler rejects. Each definition:

- carries a ``// vado:`` comment saying what it replaces and why, and an
  ``#ifndef VADO_…`` guard, so a header and the source including it can both
  hold one;
- is a helper with a ``vado_`` name where the CUDA name is a plain function
  (the CUDA name is never defined in user code, so a later HIP that gains it
  does not clash), or the CUDA library's own namespace members where the calls
  reach them through a namespace alias (``cg::reduce``), which is done only for
  targets known to lack them (the ``cg_reduce`` feature of the target profile);
- goes before the top-level declaration (or ``#define``) that holds the first
  use, at file scope, so the whole file after it can call it. A use under
  another ``#if`` branch gets its own guarded copy (:func:`insertion_offsets`).

Where HIP has the CUDA name with a different overload set, a helper with
CUDA's one signature takes only the calls HIP's overloads cannot resolve as CUDA
does (``__ffsll`` of a ``uint64_t``: ``call_needs``), and CUDA's ``atomicAdd``
on ``__half``/``__half2``/bf16 values, which HIP lacks, is added as an overload
constrained to those types, so the file's other ``atomicAdd`` calls stay HIP's
(:func:`atomic_add_overloads`).

One more call shape is fixed here for the same reason (the port would not
compile otherwise): cuSPARSE's ``SpSM``/``SpSV`` solves take no buffer while
hipSPARSE's do, and the buffer to pass is the one the matching analysis got
(:func:`solve_buffer_fixes`).

Which targets get which helper is decided from vado's API data
(:mod:`vado.knowledge.api`: the name is unavailable, or newer than the target)
and the target profile, never from the name alone. The rules keep reporting the
CUDA name until the port has replaced it (API001/API003).

By topic:

- :mod:`~vado.port.compat.helpers`: :class:`LocalHelper` and the definitions (:func:`local_helpers`);
- :mod:`~vado.port.compat.placement`: where a definition goes (:func:`insertion_offsets`);
- :mod:`~vado.port.compat.helper_fixes`: the fix writing them in (:func:`local_helper_fixes`);
- :mod:`~vado.port.compat.atomic_add`: ``atomicAdd`` overloads on half and bf16 values;
- :mod:`~vado.port.compat.cg_reduce`: ``cooperative_groups::reduce`` and the function objects;
- :mod:`~vado.port.compat.cg_collectives`: the scans and ``invoke_one``/``invoke_one_broadcast`` (API009 writes them);
- :mod:`~vado.port.compat.cg_members`: ``grid_group``/``thread_block`` members HIP lacks (``vado_cg_block_rank``);
- :mod:`~vado.port.compat.cg_shuffle`: group shuffles of vectors and structs, and the helper blocks' pass;
- :mod:`~vado.port.compat.solve_buffers`: SpSM/SpSV solve buffers;
- :mod:`~vado.port.compat.cublaslt`: cuBLASLt's scale type and fast accumulation;
- :mod:`~vado.port.compat.device_errors`: ``cudaGetErrorString`` in device code;
- :mod:`~vado.port.compat.calls`: the call shapes those fixes read.

The names below are this package's public ones (and the two private ones other port modules share).
"""

from __future__ import annotations

from vado.port.compat.atomic_add import ATOMIC_ADD_TYPES, atomic_add_overloads
from vado.port.compat.cg_collectives import CG_COLLECTIVES_SOURCES, CG_INVOKE_ONE, CG_SCAN
from vado.port.compat.cg_members import CG_MEMBER_HELPERS, CG_MEMBERS
from vado.port.compat.cg_reduce import CG_COMMON, CG_REDUCE, CG_REDUCE_SOURCES, cg_reduce_fixes
from vado.port.compat.cg_shuffle import CG_SHUFFLE, CG_SHUFFLE_HELPERS, cg_shuffle_helper_fixes
from vado.port.compat.cublaslt import FAST_ACCUM_ATTRIBUTE, SCALE_TYPE_ATTRIBUTE, fast_accum_fixes, scale_type_fixes
from vado.port.compat.device_errors import HIP_ERROR_NAMES, device_error_string_fixes
from vado.port.compat.helper_fixes import local_helper_fixes
from vado.port.compat.helpers import (
    BF16_INTEGERS,
    BF16_PAIRS,
    BF16_ROUNDING,
    DOT_PRODUCTS,
    FIND_FIRST_SET,
    FIND_FIRST_SET_EXACT,
    HIPSPARSE_STATUS_TEXT,
    NVTX_NAMES,
    SIMD_MINMAX,
    LocalHelper,
    _api_status,
    _bf16_names,
    guarded_block,
    local_helpers,
)
from vado.port.compat.placement import insertion_offsets, line_start_insert
from vado.port.compat.solve_buffers import SOLVE_BUFFER, SOLVE_WITHOUT_BUFFER_SINCE, solve_buffer_fixes

__all__ = [
    "ATOMIC_ADD_TYPES", "BF16_INTEGERS", "BF16_PAIRS", "BF16_ROUNDING", "CG_COLLECTIVES_SOURCES", "CG_COMMON", "CG_INVOKE_ONE",
    "CG_MEMBER_HELPERS", "CG_MEMBERS", "CG_REDUCE", "CG_REDUCE_SOURCES", "CG_SCAN",
    "CG_SHUFFLE", "CG_SHUFFLE_HELPERS",
    "DOT_PRODUCTS", "FAST_ACCUM_ATTRIBUTE", "FIND_FIRST_SET", "FIND_FIRST_SET_EXACT", "HIPSPARSE_STATUS_TEXT",
    "HIP_ERROR_NAMES", "NVTX_NAMES", "SCALE_TYPE_ATTRIBUTE", "SIMD_MINMAX", "SOLVE_BUFFER",
    "SOLVE_WITHOUT_BUFFER_SINCE", "LocalHelper", "_api_status", "_bf16_names", "atomic_add_overloads",
    "cg_reduce_fixes", "cg_shuffle_helper_fixes", "device_error_string_fixes", "fast_accum_fixes", "guarded_block", "insertion_offsets",
    "line_start_insert", "local_helper_fixes", "local_helpers", "scale_type_fixes", "solve_buffer_fixes",
]
