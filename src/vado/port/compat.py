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
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Callable

from vado.model import Applicability, Edit, Fix, Target
from vado.port.cache_hints import CACHE_HINTS
from vado.port.cache_hints import helper_code as cache_hint_code
from vado.port.cache_hints import prelude as cache_hint_prelude
from vado.port.cache_hints import why as cache_hint_why
from vado.port.translate import split_call_args
from vado.rules.cuda_syntax import spelling_index
from vado.scan.lexer import Kind


def guarded_block(why: str, guard: str, code: str) -> str:
    """A definition as vado writes it into a port: ``// vado:`` reason, then ``code`` under ``#ifndef guard``
    (so that a header and its includer each holding a copy define it once)."""
    return f"// vado: {why}\n#ifndef {guard}\n#define {guard}\n{code}#endif\n\n"


@dataclass(frozen=True)
class LocalHelper:
    """A CUDA function written out in HIP: calls to ``cuda_name`` become calls to ``helper``.

    ``code`` is the definition (without the guard); ``applies`` says whether a
    target needs it; ``why`` is the one-line reason put above it; ``source``
    names the facts the definition follows.
    """

    cuda_name: str
    helper: str
    code: str
    why: str
    source: str
    applies: Callable[[Target], bool]
    #: For a name HIP has with other overloads: whether the call at a token index needs the helper
    #: (``None``: every call does).
    call_needs: Callable[[list, int], bool] | None = None
    #: Guarded code several helpers share, written once before the first of them at each place.
    prelude: str = ""

    @property
    def guard(self) -> str:
        """The macro that keeps a second copy (a header and its includer) from redefining it."""
        return self.helper.upper()

    def block(self) -> str:
        """The text inserted into the file: reason, guard, definition."""
        return guarded_block(self.why, self.guard, self.code)


def _api_status(cuda_name: str, target: Target) -> str:
    from vado.knowledge.api import availability, lookup

    entry = lookup(cuda_name)
    if entry is None:
        return "unknown"
    return availability(entry, target).status.value


def _unavailable(cuda_name: str) -> Callable[[Target], bool]:
    """ROCm targets where vado's API data lists no HIP counterpart for ``cuda_name``."""
    return lambda t: t.family == "rocm" and _api_status(cuda_name, t) == "unavailable"


def _newer_than(cuda_name: str) -> Callable[[Target], bool]:
    """ROCm targets older than the HIP (or library) release that added ``cuda_name``'s counterpart."""
    return lambda t: t.family == "rocm" and _api_status(cuda_name, t) == "newer-than-target"


#: hipsparseStatus_t values and their descriptions: the enumerator comments of
#: ``hipsparse.h`` (hipSPARSE 5.3.3 as Debian 12 packages it for HIP 5.2; the
#: values 0-11 are the same in every hipSPARSE with a rocSPARSE backend).
HIPSPARSE_STATUS_TEXT = (
    ("HIPSPARSE_STATUS_SUCCESS", "Function succeeds"),
    ("HIPSPARSE_STATUS_NOT_INITIALIZED", "hipSPARSE was not initialized"),
    ("HIPSPARSE_STATUS_ALLOC_FAILED", "Resource allocation failed"),
    ("HIPSPARSE_STATUS_INVALID_VALUE", "Unsupported value was passed to the function"),
    ("HIPSPARSE_STATUS_ARCH_MISMATCH", "Device architecture not supported"),
    ("HIPSPARSE_STATUS_MAPPING_ERROR", "Access to GPU memory space failed"),
    ("HIPSPARSE_STATUS_EXECUTION_FAILED", "GPU program failed to execute"),
    ("HIPSPARSE_STATUS_INTERNAL_ERROR", "An internal hipSPARSE operation failed"),
    ("HIPSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED", "Matrix type not supported"),
    ("HIPSPARSE_STATUS_ZERO_PIVOT", "Zero pivot was computed"),
    ("HIPSPARSE_STATUS_NOT_SUPPORTED", "Operation is not supported"),
    ("HIPSPARSE_STATUS_INSUFFICIENT_RESOURCES", "Resources are insufficient"),
)


def _sparse_error_string() -> LocalHelper:
    cases = "".join(f'    case {name}: return "{text}";\n' for name, text in HIPSPARSE_STATUS_TEXT)
    code = (
        "static inline const char* vado_hipsparseGetErrorString(hipsparseStatus_t status) {\n"
        "  switch (status) {\n"
        f"{cases}"
        '    default: return "Unrecognized status code";\n'
        "  }\n"
        "}\n"
    )
    return LocalHelper(
        "cusparseGetErrorString",
        "vado_hipsparseGetErrorString",
        code,
        "hipSPARSE before 6.0 has no hipsparseGetErrorString; this one describes each hipsparseStatus_t",
        "hipsparse.h (hipSPARSE 5.3.3) enumerator comments; hipSPARSE 6's hipsparseGetErrorString returns a "
        "description and \"Unrecognized status code\" for other values (ROCm/hipSPARSE library/src/amd_detail/hipsparse.cpp)",
        _newer_than("cusparseGetErrorString"),
    )


def _simd_minmax(cuda_name: str) -> LocalHelper:
    """``__v{max,min}{s,u}{2,4}``: per-halfword (2) or per-byte (4) signed/unsigned maximum or minimum."""
    op, sign, lanes = cuda_name[3:6], cuda_name[6], int(cuda_name[7])
    bits = 32 // lanes
    lane_t = {("s", 16): "short", ("u", 16): "unsigned short", ("s", 8): "signed char", ("u", 8): "unsigned char"}[(sign, bits)]
    unsigned_t = "unsigned short" if bits == 16 else "unsigned char"
    pick = "x > y ? x : y" if op == "max" else "x < y ? x : y"
    helper = "vado_" + cuda_name.lstrip("_")
    code = (
        f"static __device__ __forceinline__ unsigned int {helper}(unsigned int a, unsigned int b) {{\n"
        "  unsigned int r = 0;\n"
        f"  for (int s = 0; s < 32; s += {bits}) {{\n"
        f"    {lane_t} x = ({lane_t})(a >> s), y = ({lane_t})(b >> s);\n"
        f"    r |= (unsigned int)({unsigned_t})({pick}) << s;\n"
        "  }\n"
        "  return r;\n"
        "}\n"
    )
    what = {"max": "maximum", "min": "minimum"}[op]
    kind = {"s": "signed", "u": "unsigned"}[sign]
    part = {2: "halfword", 4: "byte"}[lanes]
    return LocalHelper(
        cuda_name,
        helper,
        code,
        f"HIP has no {cuda_name}; per-{part} {kind} {what} of two 32-bit words, as CUDA defines it",
        "CUDA Math API, SIMD intrinsics (https://docs.nvidia.com/cuda/cuda-math-api/cuda_math_api/group__CUDA__MATH__INTRINSIC__SIMD.html); "
        "HIPIFY CUDA_Device_API_supported_by_HIP lists it as unsupported",
        _unavailable(cuda_name),
    )


def _match_any_sync() -> LocalHelper:
    """HIP 6.2's ``__match_any_sync`` for a HIP without it, comparing bit patterns as PTX's ``match.any.b32/b64`` does."""
    code = (
        "template <class MaskT, class T>\n"
        "static __device__ inline unsigned long long vado_match_any_sync(MaskT mask, T value) {\n"
        '  static_assert(sizeof(MaskT) == 8, "the mask must be 64-bit, as HIP requires (a 32-bit one leaves lanes 32-63 out)");\n'
        '  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "the value must have 4 or 8 bytes");\n'
        "  union { T v; unsigned int w[2]; } own = {};\n"
        "  own.v = value;\n"
        "  unsigned long long lanes = 0;\n"
        "  bool done = false;\n"
        "  while (__any(!done)) {  // each round: the first lane left, and every lane with its bits\n"
        "    if (!done) {\n"
        "      bool same = (unsigned)__builtin_amdgcn_readfirstlane((int)own.w[0]) == own.w[0];\n"
        "      if (sizeof(T) == 8) same = same && (unsigned)__builtin_amdgcn_readfirstlane((int)own.w[1]) == own.w[1];\n"
        "      if (same) {\n"
        "        lanes = __ballot(1);\n"
        "        done = true;\n"
        "      }\n"
        "    }\n"
        "  }\n"
        "  return lanes & mask;\n"
        "}\n"
    )
    return LocalHelper(
        "__match_any_sync",
        "vado_match_any_sync",
        code,
        "HIP before 6.2 has no __match_any_sync; HIP 6.2's definition (a readfirstlane waterfall, and'ed with the mask), "
        "comparing bits as CUDA's match.any does",
        "ROCm/clr rocm-6.2.0 hipamd/include/hip/amd_detail/amd_warp_sync_functions.h (__match_any, __match_any_sync); "
        "PTX ISA match.sync (.b32/.b64 operands)",
        _newer_than("__match_any_sync"),
    )


def _cache_hint(cuda_name: str) -> LocalHelper:
    """``__ldcs(p)`` / ``__stcs(p, v)`` and the other cache-hinted accesses, for every type CUDA's take
    (:mod:`vado.port.cache_hints` says which access each one is)."""
    return LocalHelper(
        cuda_name,
        "vado_" + cuda_name.lstrip("_"),
        cache_hint_code(cuda_name),
        cache_hint_why(cuda_name),
        "CUDA C++ Programming Guide, Load Functions Using Cache Hints / Store Functions Using Cache Hints (all scalar and "
        "vector types, __half/__half2, __nv_bfloat16/__nv_bfloat162); HIP 7.2.4 hip/amd_detail/amd_hip_fp16.h declares "
        "__ldcg/__ldca/__ldcs only for __half/__half2, as `return *ptr;`; clang's __builtin_nontemporal_load/store; "
        "LLVM AMDGPU memory model (volatile accesses bypass the caches)",
        _unavailable(cuda_name),
        prelude=cache_hint_prelude(cuda_name),
    )


#: NVTX calls that name a CUDA object for a profiler's timeline → the HIP type of that object.
NVTX_NAMES = {"nvtxNameCudaStreamA": "hipStream_t", "nvtxNameCudaEventA": "hipEvent_t"}


def _nvtx_name(cuda_name: str) -> LocalHelper:
    """``nvtxNameCudaStreamA(stream, name)``: ROCTx's roctracer header has no call that names a stream
    or an event, and the name only labels a profiler's timeline (it changes nothing the program
    computes), so the helper takes the arguments and drops the name."""
    helper = "vado_" + cuda_name
    code = f"static inline void {helper}({NVTX_NAMES[cuda_name]} object, const char* name) {{ (void)object; (void)name; }}\n"
    return LocalHelper(
        cuda_name,
        helper,
        code,
        f"ROCTx (roctracer/roctx.h) has no {cuda_name}; the name only labels a profiler's timeline, so it is dropped",
        "NVTX nvToolsExtCudaRt.h (nvtxNameCudaStreamA/nvtxNameCudaEventA name a stream or event for tools); "
        "ROCm 7.2.4 roctracer/roctx.h declares only roctxMarkA, roctxRangePushA/Pop, roctxRangeStartA/Stop",
        _unavailable(cuda_name),
    )


SIMD_MINMAX = tuple(f"__v{op}{sign}{lanes}" for op in ("max", "min") for sign in ("s", "u") for lanes in (2, 4))


#: bf16 pair builders CUDA's ``cuda_bf16.h`` has and HIP's ``hip_bf16.h`` lacks (ROCm 7.2.4 declares
#: ``__float22bfloat162_rn(float2)`` and ``__float2bfloat16(float)``, which rounds to nearest even as CUDA's
#: ``_rn`` does): CUDA name → (helper, parameters, the two halves).
BF16_PAIRS = {
    "__float2bfloat162_rn": ("vado_float2bfloat162_rn", "float a", "__float2bfloat16(a), __float2bfloat16(a)"),
    "__floats2bfloat162_rn": ("vado_floats2bfloat162_rn", "float a, float b", "__float2bfloat16(a), __float2bfloat16(b)"),
}


def _bf16_pair(cuda_name: str) -> LocalHelper:
    """``__float2bfloat162_rn(a)`` (``a`` in both halves) and ``__floats2bfloat162_rn(a, b)`` (``a`` low, ``b`` high)."""
    helper, params, halves = BF16_PAIRS[cuda_name]
    code = (f"static __host__ __device__ inline __hip_bfloat162 {helper}({params}) {{\n"
            f"  return __hip_bfloat162{{{halves}}};\n}}\n")
    return LocalHelper(
        cuda_name, helper, code,
        f"HIP's hip_bf16.h has no {cuda_name}: the pair built from __float2bfloat16 (round to nearest even, as _rn)",
        "CUDA Math API, bfloat16 conversion functions (__float2bfloat162_rn: both halves; __floats2bfloat162_rn: "
        "a to the low half, b to the high half); ROCm 7.2.4 hip/amd_detail/amd_hip_bf16.h (__float2bfloat16, "
        "__hip_bfloat162{x, y})",
        # Only where the port has the bf16 types at all (hip_bf16.h; not HIP 5.2).
        lambda t: _unavailable(cuda_name)(t) and _api_status("__nv_bfloat162", t) in ("renamed", "available"),
    )


def _cub_debug_exit() -> LocalHelper:
    """CUB's ``CubDebugExit(e)``: exit(1) when ``e`` is an error, after CUB's debug print; hipCUB has ``HipcubDebug``."""
    return LocalHelper(
        "CubDebugExit", "vado_CubDebugExit",
        "#define vado_CubDebugExit(e) if (HipcubDebug(e)) { exit(1); }\n",
        "hipCUB has no CubDebugExit; CUB's definition over hipCUB's HipcubDebug (prints the error, true when it is one)",
        "CUB cub/util_debug.cuh (#define CubDebugExit(e) if (CubDebug(e)) { exit(1); }); ROCm 7.2.4 hipcub/config.hpp "
        "(#define HipcubDebug(e) ::hipcub::Debug((hipError_t)(e), __FILE__, __LINE__))",
        _unavailable("CubDebugExit"),
    )


#: ``__dp4a``/``__dp2a_lo``/``__dp2a_hi`` (sm_61_intrinsics.h): CUDA name → the lanes of ``srcB`` each
#: product takes and the lane width of ``srcA`` (bits), for the int, unsigned and vector overloads.
DOT_PRODUCTS = {"__dp4a": ((0, 1, 2, 3), 8), "__dp2a_lo": ((0, 1), 16), "__dp2a_hi": ((2, 3), 16)}


def _dot_product(cuda_name: str) -> LocalHelper:
    """``__dp4a(a, b, c)``: the four byte products of ``a`` and ``b`` plus ``c``; ``__dp2a_lo``/``_hi``: the
    two halfwords of ``a`` times the low/high two bytes of ``b``, plus ``c``. All four CUDA overloads
    (``int``, ``unsigned int``, and ``char4``/``short2``/``uchar4``/``ushort2`` vectors), so overload
    resolution picks the same one as CUDA's; the sum wraps modulo 2^32 as PTX ``dp4a``/``dp2a`` do."""
    b_lanes, a_bits = DOT_PRODUCTS[cuda_name]
    helper = "vado_" + cuda_name.lstrip("_")
    a_lane = {8: ("signed char", "unsigned char"), 16: ("short", "unsigned short")}[a_bits]
    vec_a = {8: ("char4", "uchar4"), 16: ("short2", "ushort2")}[a_bits]
    fields = "xyzw"

    def scalar(signed: bool) -> str:
        t, r = ("int", "int") if signed else ("unsigned int", "unsigned int")
        at, bt = (a_lane[0], "signed char") if signed else (a_lane[1], "unsigned char")
        terms = " + ".join(f"(unsigned int)((int)({at})(a >> {k * a_bits}) * (int)({bt})(b >> {8 * lane}))"
                           for k, lane in enumerate(b_lanes))
        return (f"static __host__ __device__ inline {r} {helper}({t} a, {t} b, {t} c) {{\n"
                f"  return ({r})((unsigned int)c + {terms});\n}}\n")

    def vector(signed: bool) -> str:
        va, r = (vec_a[0], "int") if signed else (vec_a[1], "unsigned int")
        vb = "char4" if signed else "uchar4"
        terms = " + ".join(f"(unsigned int)((int)a.{fields[k]} * (int)b.{fields[lane]})" for k, lane in enumerate(b_lanes))
        return (f"static __host__ __device__ inline {r} {helper}({va} a, {vb} b, {r} c) {{\n"
                f"  return ({r})((unsigned int)c + {terms});\n}}\n")

    code = scalar(True) + scalar(False) + vector(True) + vector(False)
    what = {"__dp4a": "four byte products", "__dp2a_lo": "two halfword by low-byte products",
            "__dp2a_hi": "two halfword by high-byte products"}[cuda_name]
    return LocalHelper(
        cuda_name, helper, code,
        f"HIP has no {cuda_name}; the sum of the {what} plus c (wrapping at 32 bits), with CUDA's four overloads",
        "CUDA Math API, integer intrinsics (__dp4a, __dp2a_lo, __dp2a_hi; sm_61_intrinsics.h of CUDA 13.0 declares the "
        "int, unsigned int and char4/uchar4/short2/ushort2 overloads); PTX ISA dp4a/dp2a (32-bit wrapping accumulate); "
        "ROCm 7.2.4 hip/amd_detail/*.h declare no __dp4a/__dp2a",
        _unavailable(cuda_name),
    )


#: CUDA's find-first-set functions take one signed type (``__ffs(int)``, ``__ffsll(long long)``, CUDA 13.0
#: crt/device_functions.h); HIP's amd_device_functions.h (ROCm 7.2.4) overloads each for the signed and
#: unsigned type, so an argument of a third type (``uint64_t``, an ``unsigned long`` on Linux) is ambiguous.
FIND_FIRST_SET = {"__ffs": "int", "__ffsll": "long long int"}


def _find_first_set(cuda_name: str) -> LocalHelper:
    """``__ffsll(x)``: a helper with CUDA's single parameter type, calling HIP's overload of that type."""
    param = FIND_FIRST_SET[cuda_name]
    helper = "vado_" + cuda_name.lstrip("_")
    # ``::`` keeps the port from taking HIP's function in the body for a call to point at the helper.
    code = f"static __device__ inline int {helper}({param} x) {{ return (int)::{cuda_name}(x); }}\n"
    return LocalHelper(
        cuda_name, helper, code,
        f"HIP overloads {cuda_name} for {param} and its unsigned type, so other integer arguments are ambiguous; "
        f"CUDA's one {cuda_name}({param}) converts them",
        f"CUDA 13.0 crt/device_functions.h (int {cuda_name}({param} x)); ROCm 7.2.4 hip/amd_detail/amd_device_functions.h "
        f"({cuda_name}(unsigned {param.replace('int', '').strip() or 'int'} …) and {cuda_name}({param}))",
        # Every ROCm target that has the function: HIP declares both overloads (HIP 5.2 too).
        lambda t: t.family == "rocm" and _api_status(cuda_name, t) in ("available", "renamed"),
        lambda toks, i: _argument_type(toks, i) not in FIND_FIRST_SET_EXACT[cuda_name],
    )


#: Argument types for which HIP's overloads of each function pick the one CUDA's call means (an exact
#: match, or for ``__ffs`` an integral promotion to ``int``); any other type, or one not seen, gets the helper.
#: A warp vote's mask (``__ffs(__ballot(p))``) is the warp rules' business (vado.rules.warp, vado.port.wave:
#: they pick ``__ffs`` or ``__ffsll`` for the wave size), so it is left to them.
FIND_FIRST_SET_EXACT = {
    "__ffs": frozenset({"int", "unsigned int", "short", "unsigned short", "char", "signed char", "unsigned char", "bool",
                        "warp vote"}),
    "__ffsll": frozenset({"long long", "unsigned long long", "warp vote"}),
}
_WARP_VOTES = frozenset({"__ballot", "__ballot_sync", "__activemask"})

#: Typedefs of ``<stdint.h>`` on Linux (LP64), as the type they stand for.
_KNOWN_TYPES = {
    "int32_t": "int", "uint32_t": "unsigned int", "int16_t": "short", "uint16_t": "unsigned short",
    "int8_t": "signed char", "uint8_t": "unsigned char", "int64_t": "long", "uint64_t": "unsigned long",
    "size_t": "unsigned long", "ssize_t": "long",
}
_TYPE_WORDS = frozenset({"unsigned", "signed", "long", "int", "short", "char", "bool", "const", "volatile"})


def _type_of_words(words: list[str]) -> str | None:
    """``unsigned long long int`` → ``unsigned long long``; a stdint typedef → its type; else ``None``."""
    words = [w for w in words if w not in ("const", "volatile")]
    if len(words) == 1 and words[0] in _KNOWN_TYPES:
        return _KNOWN_TYPES[words[0]]
    if not words or any(w not in _TYPE_WORDS for w in words):
        return None
    if "char" in words or "bool" in words:
        return " ".join(words)
    longs = words.count("long")
    base = "long long" if longs == 2 else "long" if longs == 1 else "short" if "short" in words else "int"
    return ("unsigned " if "unsigned" in words else "") + base


def _argument_type(toks: list, i: int) -> str | None:
    """The type of the one argument of the call whose name is at ``i``, where the code says it plainly:
    an integer literal, a cast, a warp vote (``__ballot(p)``, a ``vado_`` helper: ``"warp vote"``), or an
    identifier declared earlier in the file with integer type words. ``None`` when not seen."""
    split = split_call_args(toks, i + 1)
    if split is None or len(split[1]) != 1:
        return None
    lo, hi = split[1][0]
    arg = [t for t in toks[lo : hi + 1] if t[0] is not Kind.COMMENT]
    if len(arg) == 1 and arg[0][0] is Kind.NUMBER:
        text = arg[0][3].lower()
        if "." in text or ("e" in text and not text.startswith("0x")):
            return None
        suffix = text[len(text.rstrip("ul")):]
        return {"": "int", "u": "unsigned int", "l": "long", "ul": "unsigned long", "lu": "unsigned long",
                "ll": "long long", "ull": "unsigned long long", "llu": "unsigned long long"}.get(suffix)
    if len(arg) > 1 and (arg[0][3] in _WARP_VOTES or arg[0][3].startswith("vado_")) and arg[1][3] == "(":
        inner = split_call_args(arg, 1)
        if inner is not None and inner[0] == len(arg) - 1:
            return "warp vote"
    if arg and arg[0][3] == "(":
        close = next((k for k, t in enumerate(arg) if t[3] == ")"), None)
        if close is not None and close + 1 < len(arg):
            return _type_of_words([t[3] for t in arg[1:close]])
        return None
    if len(arg) != 1 or arg[0][0] is not Kind.IDENT:
        return None
    name = arg[0][3]
    for k in range(i - 1, 0, -1):  # the nearest declaration before the call
        if toks[k][0] is Kind.IDENT and toks[k][3] == name and k + 1 < len(toks) and toks[k + 1][3] in ("=", ";", ",", ")", "["):
            words = []
            j = k - 1
            while j >= 0 and toks[j][0] is Kind.IDENT and (toks[j][3] in _TYPE_WORDS or toks[j][3] in _KNOWN_TYPES):
                words.insert(0, toks[j][3])
                j -= 1
            if words:
                return _type_of_words(words)
    return None


#: Rounding modes of CUDA's bf16 conversions → the ``<cmath>``-free builtin rounding a float to an integer value.
BF16_ROUNDING = {"rn": "__builtin_rintf", "rz": "__builtin_truncf", "rd": "__builtin_floorf", "ru": "__builtin_ceilf"}
_ROUND_MODE = {"rn": 0, "rz": 1, "rd": 2, "ru": 3}

#: Integer types of cuda_bf16.h's conversions: short name → (C type, bits, signed, result for NaN). CUDA 13.0's
#: cuda_bf16.h: NaN converts to 0, except for the 64-bit types ("NaN inputs return 0x8000000000000000"); out of
#: range values saturate (cuda_bf16.hpp's host paths and PTX cvt.rni/rzi/rmi/rpi clamp to the type's range).
BF16_INTEGERS = {
    "char": ("signed char", 8, True, "0"), "uchar": ("unsigned char", 8, False, "0"),
    "short": ("short", 16, True, "0"), "ushort": ("unsigned short", 16, False, "0"),
    "int": ("int", 32, True, "0"), "uint": ("unsigned int", 32, False, "0"),
    "ll": ("long long", 64, True, "(long long)0x8000000000000000ULL"),
    "ull": ("unsigned long long", 64, False, "0x8000000000000000ULL"),
}

#: Shared by the integer → bf16 helpers: one correctly rounded conversion of a magnitude (as PTX
#: cvt.{rn,rz,rm,rp}.bf16.{s,u}{16,32,64} does; converting through float would round twice).
_BF16_ROUND_INTEGER = """\
#ifndef VADO_BF16_ROUND_INTEGER
#define VADO_BF16_ROUND_INTEGER
// mode 0: to nearest even, 1: toward zero, 2: down, 3: up; the magnitude m keeps its leading 8 bits
static __host__ __device__ inline __hip_bfloat16 vado_bf16_round_integer(bool negative, unsigned long long m, int mode) {
  int shift = (m >> 8) != 0 ? 56 - __builtin_clzll(m) : 0;
  unsigned long long q = m >> shift, rest = m - (q << shift);
  if (rest != 0) {
    unsigned long long half = 1ull << (shift - 1);
    bool up = mode == 0 ? (rest > half || (rest == half && (q & 1))) : mode == 2 ? negative : mode == 3 ? !negative : false;
    q += up ? 1 : 0;
  }
  float f = (float)q * (float)(1ull << shift);  // q <= 256: exact
  unsigned int bits;
  __builtin_memcpy(&bits, &f, sizeof bits);
  return __ushort_as_bfloat16((unsigned short)((bits >> 16) | (negative ? 0x8000u : 0u)));
}
#endif
"""


def _bf16_names() -> list[str]:
    """The cuda_bf16.h conversions with a rounding mode that :func:`_bf16_conversion` writes out."""
    names = [f"__bfloat162{k}_{m}" for k in ("short", "ushort", "int", "uint", "ll", "ull") for m in BF16_ROUNDING]
    names += ["__bfloat162char_rz", "__bfloat162uchar_rz"]
    names += [f"__{k}2bfloat16_{m}" for k in ("short", "ushort", "int", "uint", "ll", "ull") for m in BF16_ROUNDING]
    names += [f"__float2bfloat16_{m}" for m in ("rz", "rd", "ru")]
    return names


def _bf16_conversion(cuda_name: str) -> LocalHelper:
    """``__bfloat162int_rd(h)`` and the other bf16 ↔ integer conversions with a rounding mode, and
    ``__float2bfloat16_rz``/``_rd``/``_ru``, which hip_bf16.h (ROCm 7.2.4) lacks.

    bf16 → integer: the bf16 value as a float (exact), rounded to an integer value by the mode, then
    clamped to the type's range (NaN → 0, or 0x8000000000000000 for the 64-bit types). Integer → bf16:
    one rounding of the exact integer (:data:`_BF16_ROUND_INTEGER`). float → bf16: the high 16 bits of
    the float, plus one in the last place when the mode rounds the dropped bits away from zero; NaN →
    0x7FFF, as cuda_bf16.hpp's ``__internal_float2bfloat16``.
    """
    helper = "vado_" + cuda_name.lstrip("_")
    stem, mode = cuda_name[2:].rsplit("_", 1)
    source = (f"CUDA 13.0 cuda_bf16.h/cuda_bf16.hpp ({cuda_name}: rounding mode, NaN and saturation as documented there); "
              "CUDA Math API, bfloat16 conversion functions; ROCm 7.2.4 hip/amd_detail/amd_hip_bf16.h has no "
              f"{cuda_name}")
    if stem.startswith("bfloat162"):
        ctype, bits, signed, nan = BF16_INTEGERS[stem[len("bfloat162"):]]
        width = bits - 1 if signed else bits  # the range is [-2^width, 2^width) or [0, 2^width)
        low = f"-0x1p{width}f" if signed else "0.0f"
        low_value = f"({ctype})(-{(1 << width) - 1}{'LL' if bits == 64 else ''} - 1)" if signed else "0"
        high_value = f"({ctype}){(1 << width) - 1}{'ULL' if bits == 64 else 'u'}"
        code = (f"static __host__ __device__ inline {ctype} {helper}(__hip_bfloat16 h) {{\n"
                f"  float f = {BF16_ROUNDING[mode]}(__bfloat162float(h));\n"
                f"  if (f != f) return {nan};\n"
                f"  if (f <= {low}) return {low_value};\n"
                f"  if (f >= 0x1p{width}f) return {high_value};\n"
                f"  return ({ctype})f;\n}}\n")
        why = (f"hip_bf16.h has no {cuda_name}: the value rounded {_MODE_WORDS[mode]}, saturated to {ctype}, "
               f"NaN to {'0x8000000000000000' if bits == 64 else '0'}, as CUDA's")
    elif stem.startswith("float2"):
        away = {"rz": "false", "rd": "(u >> 31) != 0u", "ru": "(u >> 31) == 0u"}[mode]
        code = (f"static __host__ __device__ inline __hip_bfloat16 {helper}(float f) {{\n"
                "  unsigned int u;\n"
                "  __builtin_memcpy(&u, &f, sizeof u);\n"
                "  if ((u & 0x7fffffffu) > 0x7f800000u) return __ushort_as_bfloat16((unsigned short)0x7fffu);\n"
                f"  unsigned int t = (u >> 16) + ((u & 0xffffu) != 0u && {away} ? 1u : 0u);\n"
                "  return __ushort_as_bfloat16((unsigned short)t);\n}\n")
        why = f"hip_bf16.h has no {cuda_name}: the float rounded {_MODE_WORDS[mode]} to bf16 (NaN to 0x7FFF), as CUDA's"
    else:
        kind = stem[: -len("2bfloat16")]
        ctype, bits, signed, _nan = BF16_INTEGERS[kind]
        magnitude = (f"i < 0, i < 0 ? 0ull - (unsigned long long)i : (unsigned long long)i" if signed
                     else "false, (unsigned long long)i")
        code = (_BF16_ROUND_INTEGER
                + f"static __host__ __device__ inline __hip_bfloat16 {helper}({ctype} i) {{\n"
                f"  return vado_bf16_round_integer({magnitude}, {_ROUND_MODE[mode]});\n}}\n")
        why = f"hip_bf16.h has no {cuda_name}: the integer rounded once, {_MODE_WORDS[mode]}, to bf16, as CUDA's"
        if cuda_name == "__int2bfloat16_rn":
            why = ("HIP's __int2bfloat16_rn converts through float and rounds twice (16842753 to 16777216); CUDA's rounds "
                   "once (16908288), as this one does")
            source += " that rounds once (HIP 7.2.4's static_cast<__bf16>(int) is v_cvt_f32_i32 then a float → bf16 rounding)"
    return LocalHelper(
        cuda_name, helper, code, why, source,
        # Only where the port has the bf16 types at all (hip_bf16.h; not HIP 5.2).
        lambda t: _unavailable(cuda_name)(t) and _api_status("__nv_bfloat16", t) in ("renamed", "available"),
    )


_MODE_WORDS = {"rn": "to nearest even", "rz": "toward zero", "rd": "down", "ru": "up"}


@functools.cache
def local_helpers() -> dict[str, LocalHelper]:
    """``{cuda_name: LocalHelper}``, built once on first use."""
    from vado.port.half_math import half_math_helpers

    helpers = [*half_math_helpers(), _sparse_error_string(), _match_any_sync(), *(_simd_minmax(n) for n in SIMD_MINMAX),
               *(_cache_hint(n) for n in CACHE_HINTS), *(_nvtx_name(n) for n in NVTX_NAMES),
               *(_bf16_pair(n) for n in BF16_PAIRS), _cub_debug_exit(), *(_dot_product(n) for n in DOT_PRODUCTS),
               *(_find_first_set(n) for n in FIND_FIRST_SET), *(_bf16_conversion(n) for n in _bf16_names())]
    return {h.cuda_name: h for h in helpers}


# --------------------------------------------------------------------------- placement


def _directive(tok) -> str:
    return tok[3].replace(" ", "").replace("\t", "")


def _top_level_starts(toks: list, wanted: list[int]) -> dict[int, tuple[int, tuple[int, ...]]]:
    """For each token index in ``wanted``: the index of the first token of the top-level
    construct holding it (a declaration, a function, a namespace or ``extern "C"``
    block, or a file-scope preprocessor line such as the ``#define`` whose body
    holds it), and the ``#if`` branches open at file scope there (the token
    indices of their ``#if``/``#elif``/``#else`` lines, outermost first).

    A construct ends at a file-scope ``;``, at the ``}`` closing a file-scope
    block (not one opened by ``struct``/``class``/``union``/``enum``/``typedef``,
    whose ``}`` the declarator and ``;`` follow), or with a preprocessor line.
    When unsure the start stays earlier, which is still at file scope.
    """
    out: dict[int, tuple[int, tuple[int, ...]]] = {}
    todo = sorted(set(wanted))
    w = 0
    depth = 0
    start = 0
    boundary = True  # the next code or directive token starts a construct
    branches: list[int] = []
    directive_at = -1  # first token of the directive line being read, -1 outside one
    own_line = False  # that directive line stands between constructs (not inside a declaration)
    aggregate = False
    template_params = -1  # depth of ``<`` in a template parameter list being read, -1 outside one
    for i, tok in enumerate(toks):
        while w < len(todo) and todo[w] == i:
            at = directive_at if directive_at >= 0 and own_line else start
            out[i] = (at, tuple(branches))
            w += 1
        if w >= len(todo):
            break
        kind, text = tok[0], tok[3]
        if kind is Kind.COMMENT:
            continue
        if kind is Kind.DIRECTIVE:
            directive_at = i
            own_line = depth == 0 and boundary
            if own_line:
                start, boundary = i, False
            if depth == 0:
                d = _directive(tok)
                if d in ("#if", "#ifdef", "#ifndef"):
                    branches.append(i)
                elif d in ("#elif", "#else") and branches:
                    branches[-1] = i
                elif d == "#endif" and branches:
                    branches.pop()
            continue
        if kind is Kind.EOD:
            directive_at = -1
            boundary = boundary or own_line
            own_line = False
            continue
        if directive_at >= 0:
            continue
        if depth == 0 and boundary:
            start, boundary, aggregate = i, False, False
        if depth == 0 and kind is Kind.IDENT and text == "template":
            template_params = 0  # ``template <class T>``: a parameter's ``class`` starts no aggregate
        elif template_params >= 0 and kind is Kind.PUNCT and text in ("<", ">", ">>"):
            template_params += {"<": 1, ">": -1, ">>": -2}[text]
            if template_params <= 0:
                template_params = -1
        elif depth == 0 and template_params < 0 and kind is Kind.IDENT and text in ("struct", "class", "union", "enum", "typedef"):
            aggregate = True
        if kind is Kind.PUNCT:
            if text == "{":
                depth += 1
            elif text == "}":
                depth = max(0, depth - 1)
                if depth == 0 and not aggregate:
                    boundary = True
            elif text == ";" and depth == 0:
                boundary = True
    return out


def insertion_offsets(text: str, toks: list, uses: list[int]) -> list[int]:
    """Where to put a helper so that every use (token index) in ``uses`` sees one.

    The first copy goes at the start of the line of the top-level construct
    holding the first use. A later use is covered by an earlier copy when that
    copy's ``#if`` branches are a prefix of the use's own (same branch or an
    enclosing one); otherwise it gets a copy of its own.
    """
    placed: list[tuple[int, tuple[int, ...]]] = []
    starts = _top_level_starts(toks, uses)
    offsets: list[int] = []
    for u in sorted(uses):
        first, branches = starts[u]
        if any(branches[: len(b)] == b for _, b in placed):
            continue
        placed.append((first, branches))
        offsets.append(toks[first][1] if first < len(toks) else len(text))
    return offsets


def line_start_insert(path: str, text: str, offset: int, block: str) -> Edit:
    """Insert ``block`` (ending with a newline) at the start of the line of ``offset``,
    or at ``offset`` behind a newline when code precedes it on that line."""
    line = text.rfind("\n", 0, offset) + 1
    if text[line:offset].strip():
        return Edit(path, offset, offset, "\n" + block)
    return Edit(path, line, line, block)


def local_helper_fixes(path: str, text: str, toks: list, target: Target) -> list[Fix]:
    """One fix per CUDA name with a :class:`LocalHelper` on ``target``: the helper's definition
    (where :func:`insertion_offsets` puts it) and every call renamed to it, applied together.

    Member names, macro definitions and declarations of the same name are left alone. Safe: each
    helper computes what the CUDA function does (its docstring names the source).
    """
    helpers = local_helpers()
    index = spelling_index(toks)
    # Most files hold none of the names: the spelling index says so without a token walk.
    if not index.has_any(helpers) and not index.has_any(("atomicAdd",)):
        return []
    candidates = sorted(i for name in helpers for i in index.where(name))
    uses: dict[str, list[int]] = {}
    for i in candidates:
        tok = toks[i]
        if tok[0] is Kind.IDENT and tok[3] in helpers:
            j = i + 1
            while j < len(toks) and toks[j][0] is Kind.COMMENT:
                j += 1
            if j >= len(toks) or toks[j][3] != "(":
                continue
            k = i - 1
            while k >= 0 and toks[k][0] is Kind.COMMENT:
                k -= 1
            if k >= 0 and (toks[k][3] in (".", "->", "::") or toks[k][0] is Kind.DIRECTIVE
                           or toks[k][0] is Kind.IDENT and toks[k][3] not in ("return", "else", "case")):
                continue  # a member, a macro being defined, or a declaration
            needs = helpers[tok[3]].call_needs
            if needs is not None and not needs(toks, i):
                continue  # HIP's own overload is the one CUDA's call means
            uses.setdefault(tok[3], []).append(i)
    # (last edit's end, message, insertions, renames) per helper
    groups: list[tuple[int, str, list[Edit], list[Edit]]] = []
    preludes: dict[int, list[str]] = {}  # insertion offset → shared code its helpers need
    for name, idx in uses.items():
        helper = helpers[name]
        if not helper.applies(target):
            continue
        inserts = [line_start_insert(path, text, off, helper.block()) for off in insertion_offsets(text, toks, idx)]
        if helper.prelude:
            for e in inserts:
                preludes.setdefault(e.start, []).append(helper.prelude)
        renames = [Edit(path, toks[i][1], toks[i][2], helper.helper) for i in idx]
        groups.append((renames[-1].end, f"{name} → {helper.helper} (local definition: {helper.why})", inserts, renames))
    for helper, offsets in atomic_add_overloads(text, toks, target):
        inserts = [line_start_insert(path, text, off, helper.block()) for off in offsets]
        groups.append((inserts[-1].end, f"atomicAdd on {helper.helper.removeprefix('vado_atomic_add_')} → a local overload "
                       f"({helper.why})", inserts, []))
    if not groups:
        return []
    # One fix: definitions going to one place are one edit (edits at one offset are applied one per round,
    # and a file may need a dozen). They stand in the order of their helpers' last uses, then names.
    groups.sort(key=lambda g: (g[0], g[1]))
    merged: dict[int, Edit] = {}
    for e in (e for g in groups for e in g[2]):
        prev = merged.get(e.start)
        merged[e.start] = e if prev is None else Edit(path, e.start, e.end, prev.content + e.content.lstrip("\n"))
    for start, shared in preludes.items():
        e = merged[start]
        lead = "\n" if e.content.startswith("\n") else ""
        merged[start] = Edit(path, e.start, e.end, lead + "".join(dict.fromkeys(shared)) + e.content[len(lead):])
    renames = [e for g in groups for e in g[3]]
    what = [g[1] for g in groups]
    return [Fix(tuple(merged.values()) + tuple(renames), Applicability.SAFE, "; ".join(what), ("helper",))]


# --------------------------------------------------------------------------- atomicAdd on half and bf16 values

#: CUDA's ``atomicAdd`` overloads for 16-bit floating types that HIP 7.2.4 lacks (it has ``unsafeAtomicAdd``
#: for ``__half2``/``__hip_bfloat162`` only, which may not work on fine-grained memory): HIP type →
#: (spellings that show a file uses the type, CUDA's or the port's; HIP's add of two values; whether it is a pair).
ATOMIC_ADD_TYPES = {
    "__half2": (("half2", "__half2"), "__hadd2", True),
    "__half": (("half", "__half"), "__hadd", False),
    "__hip_bfloat162": (("__nv_bfloat162", "nv_bfloat162", "__hip_bfloat162"), "__hadd2", True),
    "__hip_bfloat16": (("__nv_bfloat16", "nv_bfloat16", "__hip_bfloat16"), "__hadd", False),
}

#: The include guards of the HIP headers declaring those types (ROCm 7.2.4 and HIP 5.2 alike): the overload is
#: compiled only where the type is declared (a variable called ``half`` is no sign of ``<hip/hip_fp16.h>``).
_TYPE_HEADER_GUARD = {"__half": "HIP_INCLUDE_HIP_AMD_DETAIL_HIP_FP16_H", "__hip_bfloat16": "_HIP_INCLUDE_HIP_AMD_DETAIL_HIP_BF16_H_"}


def _atomic_add_overload(hip_type: str) -> LocalHelper:
    """``atomicAdd(T*, T)`` for ``T`` one of :data:`ATOMIC_ADD_TYPES`: a compare-and-swap loop on the
    aligned 32-bit word holding ``*address``, adding with HIP's round-to-nearest ``__hadd``/``__hadd2``
    and returning the old value, as CUDA's does.

    It is an overload of ``atomicAdd`` itself (calls are not renamed: the file's other ``atomicAdd``
    calls stay HIP's), written as a function template constrained to ``T``: a HIP that later declares a
    plain ``atomicAdd(T*, T)`` wins overload resolution over it, so the two never clash. A pair is
    updated as one 32-bit word, which is at least CUDA's guarantee (each half atomic on its own).
    """
    _spellings, add, pair = ATOMIC_ADD_TYPES[hip_type]
    tag = hip_type.strip("_").replace("hip_", "")
    trait, helper = f"vado_atomic_add_{tag}_type", f"vado_atomic_add_{tag}"
    if pair:
        locate = ("  unsigned int* word = reinterpret_cast<unsigned int*>(address);\n"
                  "  const unsigned int shift = 0u, mask = 0xffffffffu;\n")
    else:
        locate = ("  unsigned int* word = reinterpret_cast<unsigned int*>(reinterpret_cast<unsigned long long>(address) & ~3ull);\n"
                  "  const unsigned int shift = (reinterpret_cast<unsigned long long>(address) & 2ull) ? 16u : 0u;\n"
                  "  const unsigned int mask = 0xffffu << shift;\n")
    width = "unsigned int" if pair else "unsigned short"
    code = (
        f"#if defined({_TYPE_HEADER_GUARD[hip_type.rstrip('2')]})\n"
        f"template <class T> struct {trait} {{}};\n"
        f"template <> struct {trait}<{hip_type}> {{ typedef {hip_type} type; }};\n"
        "template <class T>\n"
        f"static __device__ inline typename {trait}<T>::type atomicAdd(T* address, typename {trait}<T>::type value) {{\n"
        f"{locate}"
        "  unsigned int old = *(volatile unsigned int*)word, assumed;\n"
        f"  {width} bits;\n"
        "  T current;\n"
        "  do {\n"
        "    assumed = old;\n"
        f"    bits = ({width})((assumed & mask) >> shift);\n"
        "    __builtin_memcpy((void*)&current, &bits, sizeof current);  // the bits of a 16-bit value or pair\n"
        f"    T sum = {add}(current, value);\n"
        "    __builtin_memcpy(&bits, (const void*)&sum, sizeof bits);\n"
        "    old = atomicCAS(word, assumed, (assumed & ~mask) | ((unsigned int)bits << shift));\n"
        "  } while (old != assumed);\n"
        "  return current;\n"
        "}\n"
        "#endif\n"
    )
    return LocalHelper(
        "atomicAdd", helper, code,
        f"HIP has no atomicAdd({hip_type}*, {hip_type}); CUDA's: add (round to nearest) atomically, return the old value",
        f"CUDA C++ Programming Guide, atomicAdd (the __half2/__nv_bfloat162 forms: each 16-bit half atomic; the __half/"
        f"__nv_bfloat16 forms); ROCm 7.2.4 hip/amd_detail/amd_hip_fp16.h and amd_hip_bf16.h declare only "
        f"unsafeAtomicAdd(__half2*)/unsafeAtomicAdd(__hip_bfloat162*) and {add}; amd_hip_atomic.h atomicCAS(unsigned int*)",
        # fp16 on every ROCm target; bf16 where the port has hip_bf16.h (not HIP 5.2).
        lambda t: t.family == "rocm" and (hip_type.startswith("__half")
                                          or _api_status("__nv_bfloat162", t) in ("renamed", "available")),
    )


def atomic_add_overloads(text: str, toks: list, target: Target) -> list[tuple[LocalHelper, list[int]]]:
    """The ``atomicAdd`` overloads (:func:`_atomic_add_overload`) a file needs and where they go: one for each
    16-bit floating type that the file spells and that an ``atomicAdd`` call follows, before the first such
    call. A file that holds an overload already (its guard) does not get it again."""
    index = spelling_index(toks)
    if target.family != "rocm" or not index.has_any(("atomicAdd",)):
        return []
    calls = [i for i in index.where("atomicAdd") if toks[i][0] is Kind.IDENT and i + 1 < len(toks) and toks[i + 1][3] == "("
             and not (i > 0 and toks[i - 1][3] in (".", "->", "::"))]
    out: list[tuple[LocalHelper, list[int]]] = []
    for hip_type, (spellings, _add, _pair) in ATOMIC_ADD_TYPES.items():
        helper = _atomic_add_overload(hip_type)
        if f"#ifndef {helper.guard}" in text or not helper.applies(target):
            continue
        # The type is spelled as one: a declarator, ``*``, ``&`` or a template's ``>`` follows (not ``int half = 2``).
        first = min((i for name in spellings for i in index.where(name) if toks[i][0] is Kind.IDENT and i + 1 < len(toks)
                     and (toks[i + 1][0] is Kind.IDENT or toks[i + 1][3] in ("*", "&", ">"))), default=None)
        # Calls that end after it (``atomicAdd((half2*)p, v)`` spells it in its own arguments).
        uses = [i for i in calls if first is not None and (split_call_args(toks, i + 1) or (i,))[0] > first]
        if uses:
            out.append((helper, insertion_offsets(text, toks, uses)))
    return out


# --------------------------------------------------------------------------- cooperative_groups::reduce

#: ``cooperative_groups::reduce`` over the groups HIP has (a ``thread_block_tile`` of up to 64 threads, a
#: ``coalesced_group``: ``coalesced_threads()``, ``binary_partition``, ``tiled_partition`` of a coalesced group)
#: and the function objects CUDA declares with it, for a HIP without ``<hip/cooperative_groups/hip_reduce.h>``.
CG_REDUCE = """\
// vado: HIP {hip} has no <cooperative_groups/reduce.h>: cooperative_groups::reduce over a
// thread_block_tile (a butterfly of the tile's shfl_xor, so every thread gets the result) or a
// coalesced_group (binary_partition, coalesced_threads: a tree of the group's shfl_down, then the
// result from rank 0), and the function objects CUDA declares with it (less and greater pick the
// smaller and larger value). HIP's shuffles take arithmetic types; other values (a struct of a max
// and a sum) are shuffled as 32-bit words, as CUDA's reduce does for any trivially copyable type.
#include <hip/hip_cooperative_groups.h>
#include <string.h>
#include <type_traits>
#ifndef VADO_CG_REDUCE
#define VADO_CG_REDUCE
namespace cooperative_groups {{
template <class T> struct plus {{ __device__ T operator()(const T& a, const T& b) const {{ return a + b; }} }};
template <class T> struct less {{ __device__ T operator()(const T& a, const T& b) const {{ return b < a ? b : a; }} }};
template <class T> struct greater {{ __device__ T operator()(const T& a, const T& b) const {{ return a < b ? b : a; }} }};
template <class T> struct bit_and {{ __device__ T operator()(const T& a, const T& b) const {{ return a & b; }} }};
template <class T> struct bit_or {{ __device__ T operator()(const T& a, const T& b) const {{ return a | b; }} }};
template <class T> struct bit_xor {{ __device__ T operator()(const T& a, const T& b) const {{ return a ^ b; }} }};
// The group's shuffles (HIP's coalesced_group has no shfl_xor), arithmetic values as they are.
struct vado_shfl_xor {{ template <class G, class T> __device__ static T run(const G& g, T v, unsigned int a) {{ return g.shfl_xor(v, a); }} }};
struct vado_shfl_down {{ template <class G, class T> __device__ static T run(const G& g, T v, unsigned int a) {{ return g.shfl_down(v, a); }} }};
struct vado_shfl_rank {{ template <class G, class T> __device__ static T run(const G& g, T v, unsigned int a) {{ return g.shfl(v, (int)a); }} }};
template <class Shfl, class Group, class T>
__device__ typename std::enable_if<std::is_arithmetic<T>::value, T>::type
vado_group_shfl(const Group& group, T v, unsigned int arg) {{
  return Shfl::run(group, v, arg);
}}
template <class Shfl, class Group, class T>
__device__ typename std::enable_if<!std::is_arithmetic<T>::value, T>::type
vado_group_shfl(const Group& group, T v, unsigned int arg) {{
  unsigned int words[(sizeof(T) + 3) / 4] = {{}};
  memcpy(words, &v, sizeof(T));
  for (unsigned int i = 0; i < (sizeof(T) + 3) / 4; ++i) words[i] = Shfl::run(group, words[i], arg);
  memcpy(&v, words, sizeof(T));
  return v;
}}
template <unsigned int Size, class Parent, class TyVal, class TyOp>
__device__ auto reduce(const thread_block_tile<Size, Parent>& tile, TyVal&& val, TyOp&& op) -> decltype(op(val, val)) {{
  decltype(op(val, val)) acc = val;
  for (unsigned int offset = Size / 2; offset > 0; offset /= 2) acc = op(acc, vado_group_shfl<vado_shfl_xor>(tile, acc, offset));
  return acc;
}}
template <class TyVal, class TyOp>
__device__ auto reduce(const coalesced_group& group, TyVal&& val, TyOp&& op) -> decltype(op(val, val)) {{
  decltype(op(val, val)) acc = val;
  const unsigned int n = group.size(), rank = group.thread_rank();
  for (unsigned int offset = 1; offset < n; offset *= 2) {{
    decltype(op(val, val)) other = vado_group_shfl<vado_shfl_down>(group, acc, offset);
    if (rank % (2 * offset) == 0 && rank + offset < n) acc = op(acc, other);
  }}
  return vado_group_shfl<vado_shfl_rank>(group, acc, 0u);
}}
}}  // namespace cooperative_groups
#endif"""

#: Where the facts behind :data:`CG_REDUCE` come from.
CG_REDUCE_SOURCES = (
    "CUDA Programming Guide, cooperative groups: cg::reduce(group, val, op) over thread_block_tile / coalesced_group, "
    "returning decltype(op(val, val)) to every thread; plus, less, greater, bit_and, bit_or, bit_xor",
    "HIP's later implementation (ROCm/clr hipamd/include/hip/amd_detail/amd_hip_cooperative_groups_reduce.h): "
    "less → __reduce_min_sync, greater → __reduce_max_sync",
    "HIP 5.2 (/usr/include/hip/amd_detail/amd_hip_cooperative_groups.h): thread_block_tile<size, Parent>::shfl_xor(var, laneMask) "
    "shuffles within the tile; no reduce and no function objects",
    "ROCm 7.2.4 (hip/amd_detail/amd_hip_cooperative_groups.h): tiles of up to 64 threads (static_assert beyond); "
    "coalesced_group::shfl(var, srcRank) and shfl_down(var, delta) by group rank (the caller's own value past the "
    "last member), no shfl_xor; binary_partition and tiled_partition of a coalesced group give a coalesced_group; "
    "no labeled_partition",
)


def cg_reduce_fixes(path: str, text: str, toks: list, target: Target) -> list[Fix]:
    """``#include <cooperative_groups/reduce.h>`` → :data:`CG_REDUCE` on targets whose profile says
    they lack it (feature ``cg_reduce: false``).

    Safe for the reductions it compiles: over a tile the butterfly combines every
    lane's value once, and ``op`` is applied to pairs that are the same on both
    partners, so all lanes end with one value; over a coalesced group (any size,
    any lanes) a tree of ``shfl_down`` by group rank combines each member's value
    once into rank 0, whose result ``shfl`` gives every member. A floating-point
    sum may round differently from CUDA's (which does not specify its order).
    Groups HIP itself lacks (``labeled_partition``, tiles of more than 64 threads)
    are not covered: API009 reports them, so the port does not claim them fixed.
    """
    if target.family != "rocm" or target.features.get("cg_reduce", True) or "cooperative_groups/reduce.h" not in text:
        return []
    fixes: list[Fix] = []
    for i, tok in enumerate(toks):
        if tok[0] is not Kind.DIRECTIVE or not _directive(tok).endswith("include") or i + 1 >= len(toks):
            continue
        operand = toks[i + 1]
        if operand[0] not in (Kind.HEADER, Kind.STRING) or operand[3][1:-1] != "cooperative_groups/reduce.h":
            continue
        end = toks[i + 2][1] if i + 2 < len(toks) and toks[i + 2][0] is Kind.EOD else operand[2]
        block = CG_REDUCE.format(hip=target.hip_version or target.version)
        fixes.append(Fix((Edit(path, tok[1], end, block),), Applicability.SAFE,
                         f"#include {operand[3]} → a local cooperative_groups::reduce (HIP {target.hip_version} lacks it)",
                         ("helper",)))
    return fixes


# --------------------------------------------------------------------------- SpSM / SpSV solve buffers

#: Triangular solves that take no buffer in CUDA (since cuSPARSE 11.3's generic API) but do in
#: hipSPARSE (``hipsparse.h``: ``hipsparseSpSM_solve(..., spsmDescr, void* externalBuffer)``, in
#: 5.3.3 and in later releases): solve → (analysis, index of the descriptor argument, argument
#: count of the CUDA call).
SOLVE_BUFFER = {
    "cusparseSpSM_solve": ("cusparseSpSM_analysis", 9, 10),
    "cusparseSpSV_solve": ("cusparseSpSV_analysis", 8, 9),
}
_HIP_SPELLING = {"cusparseSpSM_solve": "hipsparseSpSM_solve", "cusparseSpSV_solve": "hipsparseSpSV_solve",
                 "cusparseSpSM_analysis": "hipsparseSpSM_analysis", "cusparseSpSV_analysis": "hipsparseSpSV_analysis"}


_SOLVE_NAMES = frozenset(n for s in SOLVE_BUFFER for n in (s, _HIP_SPELLING[s]))


#: ROCm releases whose hipSPARSE solve takes no buffer argument, as CUDA's does: ROCm 7.2.4's hipSPARSE 4.2.0
#: declares ``hipsparseSpSV_solve(handle, opA, alpha, matA, x, y, computeType, alg, spsvDescr)`` (nine
#: arguments, hipsparse/internal/generic/hipsparse_spsv.h) while its ``hipsparseSpSM_solve`` still ends
#: with ``void* externalBuffer`` (hipsparse_spsm.h); measured with its hipcc (HeCBench bicgstab).
SOLVE_WITHOUT_BUFFER_SINCE = {"cusparseSpSV_solve": "7.2"}


def _takes_solve_buffer(cuda_name: str, target: Target) -> bool:
    """Whether ``target`` renames ``cuda_name`` to a hipSPARSE solve that takes a buffer."""
    if target.family != "rocm" or _api_status(cuda_name, target) not in ("renamed", "available", "deprecated"):
        return False
    # By ROCm release: the targets' hipSPARSE entries are not comparable (Debian's are package versions).
    since, have = SOLVE_WITHOUT_BUFFER_SINCE.get(cuda_name), target.version
    if since and have:
        from packaging.version import Version

        return Version(have) < Version(since)
    return True


def _calls(toks: list, names: set[str]) -> list[tuple[int, str, int, list[tuple[int, int]]]]:
    """``(name index, name, ')' index, arguments)`` of the calls of ``names`` (comments skipped)."""
    out = []
    for i, tok in enumerate(toks):
        if tok[0] is Kind.IDENT and tok[3] in names and i + 1 < len(toks) and toks[i + 1][3] == "(":
            split = split_call_args(toks, i + 1)
            if split is not None:
                out.append((i, tok[3], split[0], split[1]))
    return out


def _arg_text(toks: list, arg: tuple[int, int]) -> str:
    return "".join(t[3] for t in toks[arg[0] : arg[1] + 1])


def _written_between(toks: list, name: str, lo: int, hi: int) -> bool:
    """Whether ``name`` may be written in tokens ``(lo, hi)``: assigned, incremented, or its address taken."""
    assign = {"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=", "++", "--"}
    for k in range(lo + 1, hi):
        if toks[k][0] is not Kind.IDENT or toks[k][3] != name:
            continue
        nxt = toks[k + 1][3] if k + 1 < len(toks) else ""
        prev = toks[k - 1][3] if k > 0 else ""
        if nxt in assign or prev in ("++", "--", "&"):
            return True
    return False


def solve_buffer_fixes(path: str, text: str, toks: list, target: Target) -> list[Fix]:
    """A ``cusparseSpSM_solve``/``cusparseSpSV_solve`` call (CUDA's has no buffer argument) gets the
    buffer that the analysis with the same descriptor was given, for hipSPARSE's solve, which takes one.

    What hipSPARSE does with it differs by release, and the analysis buffer is
    right for both: recent hipSPARSE ignores the solve's argument and solves with
    the buffer its analysis stored (``spsmDescr->externalBuffer``, passed to
    ``rocsparse_spsm(..., rocsparse_spsm_stage_compute, nullptr, ...)``), and
    rocSPARSE's own examples give the compute stage the buffer of the preprocess
    stage. HIPIFY passes ``nullptr``, which only the first kind accepts. The fix
    is safe when the buffer is a variable that the same top-level function does
    not write between the analysis and the solve; unsafe when that cannot be
    seen (another function, an expression, a write in between). No analysis with
    that descriptor in the file, or two with different buffers: no fix (the
    compiler reports the missing argument).
    """
    spelled = {toks[i][3] for i in spelling_index(toks).indices_of(_SOLVE_NAMES, Kind.IDENT)}
    wanted = {n for n in SOLVE_BUFFER if spelled & {n, _HIP_SPELLING[n]} and _takes_solve_buffer(n, target)}
    if not wanted:
        return []
    code = [t for t in toks if t[0] is not Kind.COMMENT]
    solves = {n: {n, _HIP_SPELLING[n]} for n in wanted}
    analyses = {SOLVE_BUFFER[n][0] for n in wanted} | {_HIP_SPELLING[SOLVE_BUFFER[n][0]] for n in wanted}
    found_analyses = _calls(code, analyses)
    found_solves = _calls(code, set().union(*solves.values()))
    starts = _top_level_starts(code, [c[0] for c in found_analyses + found_solves])
    fixes: list[Fix] = []
    for i, name, close, args in found_solves:
        cuda = next(n for n in wanted if name in solves[n])
        analysis, at, count = SOLVE_BUFFER[cuda]
        if len(args) != count:
            continue
        descr = _arg_text(code, args[-1])
        buffers = [(j, _arg_text(code, a_args[-1])) for j, a_name, a_close, a_args in found_analyses
                   if a_name in (analysis, _HIP_SPELLING[analysis]) and len(a_args) == at + 2
                   and _arg_text(code, a_args[at]) == descr]
        if len({b for _, b in buffers}) != 1:
            continue
        j, buffer = buffers[-1]
        provable = (buffer.isidentifier() and j < i and starts[j][0] == starts[i][0]
                    and not _written_between(code, buffer, j, i))
        end = code[args[-1][1]][2]
        fixes.append(Fix((Edit(path, end, end, f", {buffer}"),), Applicability.SAFE if provable else Applicability.UNSAFE,
                         f"{name}: pass {buffer}, the buffer of the analysis with {descr} (hipSPARSE before 6.0 takes it)",
                         ("helper",)))
    return fixes


# --------------------------------------------------------------------------- cuBLASLt scale type

#: cuBLASLt's descriptor attribute for the scale type, which hipBLASLt has no attribute for: its
#: descriptor takes the scale type once, as ``hipblasLtMatmulDescCreate``'s third argument
#: (hipblaslt.h, ROCm 7.2.4: ``hipblasLtMatmulDescAttributes_t`` has no ``SCALE_TYPE``).
SCALE_TYPE_ATTRIBUTE = "CUBLASLT_MATMUL_DESC_SCALE_TYPE"
_DESC_CREATE = frozenset({"cublasLtMatmulDescCreate", "hipblasLtMatmulDescCreate"})
_DESC_SET = frozenset({"cublasLtMatmulDescSetAttribute", "hipblasLtMatmulDescSetAttribute"})


def _assigned_value(code: list, name: str, before: int, start: int) -> tuple[int, str] | None:
    """The last ``name = VALUE;`` (a declaration's initialiser or an assignment) in tokens
    ``[start, before)``, when VALUE is one identifier: ``(index of name, VALUE)``."""
    for k in range(before - 1, start - 1, -1):
        t = code[k]
        if t[0] is Kind.IDENT and t[3] == name and k + 3 < len(code) and code[k + 1][3] == "=":
            if code[k + 2][0] is Kind.IDENT and code[k + 3][3] == ";":
                return k, code[k + 2][3]
            return None
    return None


def scale_type_fixes(path: str, text: str, toks: list, target: Target) -> list[Fix]:
    """``cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_SCALE_TYPE, &v, size)``, which
    hipBLASLt cannot express, becomes ``HIPBLAS_STATUS_SUCCESS`` where it sets the scale type the
    descriptor was created with, so the call changed nothing in cuBLASLt either.

    Only when that is seen in the code: in the same top-level function, ``desc`` is created once
    (``cublasLtMatmulDescCreate(&desc, compute, S)``) before the call, ``v`` gets an identifier ``V``
    (``T v = V;``) that names the same type as ``S`` (after the port's renaming) and is not written
    between that and the call. Anything else gets no fix: the compiler and API001 report the name.
    """
    if (target.family != "rocm" or SCALE_TYPE_ATTRIBUTE not in text or _api_status(SCALE_TYPE_ATTRIBUTE, target) != "unavailable"
            or _api_status("cublasLtMatmulDescSetAttribute", target) not in ("renamed", "available", "deprecated")):
        return []  # not a hipBLASLt target (the call is not ported there), or one with the attribute
    from vado.port.translate import rename_map

    names = rename_map(target)

    def same(a: str, b: str) -> bool:
        ra, rb = names.get(a), names.get(b)
        return (ra.new if ra else a) == (rb.new if rb else b)

    code = [t for t in toks if t[0] is not Kind.COMMENT]
    creates = _calls(code, set(_DESC_CREATE))
    sets = [c for c in _calls(code, set(_DESC_SET)) if len(c[3]) == 4 and _arg_text(code, c[3][1]) == SCALE_TYPE_ATTRIBUTE]
    if not sets:
        return []
    starts = _top_level_starts(code, [c[0] for c in creates + sets])
    fixes: list[Fix] = []
    for i, _name, close, args in sets:
        desc, value = _arg_text(code, args[0]), _arg_text(code, args[2])
        here = starts[i][0]
        made = [(j, _arg_text(code, a[2])) for j, _n, _c, a in creates
                if len(a) == 3 and starts[j][0] == here and _arg_text(code, a[0]) == "&" + desc]
        if len(made) != 1 or made[0][0] > i or not value.startswith("&") or not value[1:].isidentifier():
            continue
        created_with = made[0][1]
        found = _assigned_value(code, value[1:], i, made[0][0])
        if found is None or not same(found[1], created_with) or _written_between(code, value[1:], found[0] + 1, i):
            continue
        why = f"hipBLASLt takes the scale type only at hipblasLtMatmulDescCreate, which got {created_with} too"
        fixes.append(Fix((Edit(path, code[i][1], code[close][2], f"HIPBLAS_STATUS_SUCCESS /* vado: {why} */"),),
                         Applicability.SAFE, f"{SCALE_TYPE_ATTRIBUTE} set to the descriptor's own scale type: {why}", ("helper",)))
    return fixes


# --------------------------------------------------------------------------- cudaGetErrorString in device code

#: hipError_t's enumerators, ROCm 7.2.4 ``hip/hip_runtime_api.h`` (``typedef enum hipError_t``), first name
#: of each value (``hipErrorMemoryAllocation``, ``hipErrorInitializationError``, ``hipErrorMapBufferObjectFailed``
#: and ``hipErrorInvalidResourceHandle`` are second names of 2, 3, 205 and 400).
HIP_ERROR_NAMES = (
    "hipSuccess hipErrorInvalidValue hipErrorOutOfMemory hipErrorNotInitialized hipErrorDeinitialized "
    "hipErrorProfilerDisabled hipErrorProfilerNotInitialized hipErrorProfilerAlreadyStarted "
    "hipErrorProfilerAlreadyStopped hipErrorInvalidConfiguration hipErrorInvalidPitchValue hipErrorInvalidSymbol "
    "hipErrorInvalidDevicePointer hipErrorInvalidMemcpyDirection hipErrorInsufficientDriver "
    "hipErrorMissingConfiguration hipErrorPriorLaunchFailure hipErrorInvalidDeviceFunction hipErrorNoDevice "
    "hipErrorInvalidDevice hipErrorInvalidImage hipErrorInvalidContext hipErrorContextAlreadyCurrent "
    "hipErrorMapFailed hipErrorUnmapFailed hipErrorArrayIsMapped hipErrorAlreadyMapped hipErrorNoBinaryForGpu "
    "hipErrorAlreadyAcquired hipErrorNotMapped hipErrorNotMappedAsArray hipErrorNotMappedAsPointer "
    "hipErrorECCNotCorrectable hipErrorUnsupportedLimit hipErrorContextAlreadyInUse hipErrorPeerAccessUnsupported "
    "hipErrorInvalidKernelFile hipErrorInvalidGraphicsContext hipErrorInvalidSource hipErrorFileNotFound "
    "hipErrorSharedObjectSymbolNotFound hipErrorSharedObjectInitFailed hipErrorOperatingSystem "
    "hipErrorInvalidHandle hipErrorIllegalState hipErrorNotFound hipErrorNotReady hipErrorIllegalAddress "
    "hipErrorLaunchOutOfResources hipErrorLaunchTimeOut hipErrorPeerAccessAlreadyEnabled "
    "hipErrorPeerAccessNotEnabled hipErrorSetOnActiveProcess hipErrorContextIsDestroyed hipErrorAssert "
    "hipErrorHostMemoryAlreadyRegistered hipErrorHostMemoryNotRegistered hipErrorLaunchFailure "
    "hipErrorCooperativeLaunchTooLarge hipErrorNotSupported hipErrorStreamCaptureUnsupported "
    "hipErrorStreamCaptureInvalidated hipErrorStreamCaptureMerge hipErrorStreamCaptureUnmatched "
    "hipErrorStreamCaptureUnjoined hipErrorStreamCaptureIsolation hipErrorStreamCaptureImplicit "
    "hipErrorCapturedEvent hipErrorStreamCaptureWrongThread hipErrorGraphExecUpdateFailure "
    "hipErrorInvalidChannelDescriptor hipErrorInvalidTexture hipErrorUnknown hipErrorRuntimeMemory "
    "hipErrorRuntimeOther"
).split()

_ERROR_STRING = frozenset({"cudaGetErrorString", "hipGetErrorString"})


def _device_error_string() -> LocalHelper:
    cases = "".join(f'    case {name}: return "{name}";\n' for name in HIP_ERROR_NAMES)
    code = (
        "static __host__ __device__ inline const char* vado_device_error_string(hipError_t error) {\n"
        "#if defined(__HIP_DEVICE_COMPILE__)\n"
        "  switch (error) {\n"
        f"{cases}"
        '    default: return "unrecognized hipError_t";\n'
        "  }\n"
        "#else\n"
        "  return hipGetErrorString(error);\n"
        "#endif\n"
        "}\n"
    )
    return LocalHelper(
        "cudaGetErrorString", "vado_device_error_string", code,
        "HIP's hipGetErrorString is host-only; on the device this returns the hipError_t's enumerator name "
        "(\"hipErrorInvalidValue\"), where the host's returns a description (which the host side still calls)",
        "ROCm 7.2.4 hip/hip_runtime_api.h (hipGetErrorString declared without __device__; the hipError_t enumerators)",
        lambda t: t.family == "rocm",
    )


def device_error_string_fixes(path: str, text: str, toks: list, target: Target) -> list[Fix]:
    """``cudaGetErrorString(e)`` (or its port, ``hipGetErrorString``) called in a ``__device__`` or
    ``__global__`` function, which CUDA allows and HIP does not (its ``hipGetErrorString`` is a host
    function): the call goes to a local ``__device__`` helper returning the ``hipError_t``'s name.

    ``__host__ __device__`` functions get it too (clang rejects a host function in any of them that
    is emitted for the device): the helper is ``__host__ __device__`` and its host side calls
    ``hipGetErrorString``, so host behaviour is unchanged. Calls in host-only functions are
    untouched. Safe: what differs is the text of a message on the device (the enumerator's name
    instead of a description), which the helper's ``// vado:`` comment says.
    """
    if target.family != "rocm" or not spelling_index(toks).has_any(_ERROR_STRING):
        return []
    from vado.rules.cuda_syntax import find_functions

    helper = _device_error_string()
    uses: list[int] = []
    for fn in find_functions(toks):
        if not fn.qualifiers & {"__device__", "__global__"} or fn.name == helper.helper:
            continue
        for i in range(fn.body_open + 1, fn.body_close):
            tok = toks[i]
            if tok[0] is not Kind.IDENT or tok[3] not in _ERROR_STRING:
                continue
            j = i + 1
            while j < len(toks) and toks[j][0] is Kind.COMMENT:
                j += 1
            k = i - 1
            while k >= 0 and toks[k][0] is Kind.COMMENT:
                k -= 1
            if j < len(toks) and toks[j][3] == "(" and not (k >= 0 and toks[k][3] in (".", "->")):
                uses.append(i)
    if not uses:
        return []
    edits = [line_start_insert(path, text, off, helper.block()) for off in insertion_offsets(text, toks, uses)]
    edits += [Edit(path, toks[i][1], toks[i][2], helper.helper) for i in uses]
    return [Fix(tuple(edits), Applicability.SAFE,
                f"cudaGetErrorString in device code → {helper.helper} (local definition: {helper.why})", ("helper",))]


# --------------------------------------------------------------------------- cuBLASLt fast accumulation

#: cuBLASLt's FP8 fast-accumulation switch; hipBLASLt 7.2.4's ``hipblasLtMatmulDescAttributes_t``
#: (hipblaslt/hipblaslt.h) has no such attribute.
FAST_ACCUM_ATTRIBUTE = "CUBLASLT_MATMUL_DESC_FAST_ACCUM"


def fast_accum_fixes(path: str, text: str, toks: list, target: Target) -> list[Fix]:
    """``cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &v, size)`` becomes
    ``HIPBLAS_STATUS_SUCCESS`` (the call expression only, so a status check around it still compiles)
    on targets whose hipBLASLt has no fast-accumulation attribute.

    The attribute lets cuBLASLt accumulate FP8 products in a faster, less precise way (off by
    default); hipBLASLt has no such mode and accumulates in the descriptor's compute type, which is
    what cuBLASLt does with the attribute off. Safe: the product is never less precise than CUDA's,
    though with ``v`` non-zero it may differ in the last bits (the finding says so). Calls with
    another argument count are left to the compiler and API001.
    """
    if (target.family != "rocm" or FAST_ACCUM_ATTRIBUTE not in text or _api_status(FAST_ACCUM_ATTRIBUTE, target) != "unavailable"
            or _api_status("cublasLtMatmulDescSetAttribute", target) not in ("renamed", "available", "deprecated")):
        return []
    code = [t for t in toks if t[0] is not Kind.COMMENT]
    fixes: list[Fix] = []
    for i, _name, close, args in _calls(code, set(_DESC_SET)):
        if len(args) != 4 or _arg_text(code, args[1]) != FAST_ACCUM_ATTRIBUTE:
            continue
        why = ("hipBLASLt has no FP8 fast-accumulation mode; it accumulates in the descriptor's compute type, "
               "as cuBLASLt does with the attribute off")
        fixes.append(Fix((Edit(path, code[i][1], code[close][2], f"HIPBLAS_STATUS_SUCCESS /* vado: {why} */"),),
                         Applicability.SAFE,
                         f"{FAST_ACCUM_ATTRIBUTE} dropped: {why} (results may differ in the last bits from CUDA's fast mode)",
                         ("helper",)))
    return fixes
