"""The local definitions themselves: :class:`LocalHelper` (a CUDA function written out in HIP), the
targets each applies to (from vado's API data), and :func:`local_helpers`, every one of them by CUDA name.

How they get into a file is :mod:`vado.port.compat.helper_fixes`; where, :mod:`vado.port.compat.placement`.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Callable

from vado.model import Target
from vado.port.cache_hints import CACHE_HINTS
from vado.port.cache_hints import helper_code as cache_hint_code
from vado.port.cache_hints import prelude as cache_hint_prelude
from vado.port.cache_hints import why as cache_hint_why
from vado.port.translate import split_call_args
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


#: CUDA's system-scope wrap-around counters that HIP lacks (ROCm 7.2.4's amd_hip_atomic.h has atomicInc/atomicDec,
#: device scope, and the *_system forms of the other atomics only): name → the new value from the old, as CUDA
#: defines it (``((old >= val) ? 0 : (old + 1))``; ``(((old == 0) || (old > val)) ? val : (old - 1))``).
SYSTEM_COUNTERS = {"atomicInc_system": "assumed >= val ? 0u : assumed + 1u",
                   "atomicDec_system": "(assumed == 0u || assumed > val) ? val : assumed - 1u"}


def _system_counter(cuda_name: str) -> LocalHelper:
    """``atomicInc_system``/``atomicDec_system`` as a compare-and-swap loop on HIP's ``atomicCAS_system``.

    Not the clang builtin HIP's device-scope ``atomicInc`` calls with the system scope: clang marks that
    builtin's access ``!amdgpu.no.fine.grained.memory`` (measured, ROCm 7.2.4 for gfx942), so on host-visible
    (fine-grained) memory, where a system-scope atomic is meant to work, the instruction it allows may not.
    ``atomicCAS_system`` is HIP's own system-scope atomic for such memory.
    """
    helper = "vado_" + cuda_name
    code = (
        f"static __device__ inline unsigned int {helper}(unsigned int* address, unsigned int val) {{\n"
        "  unsigned int old = *(volatile unsigned int*)address, assumed;\n"
        "  do {\n"
        "    assumed = old;\n"
        f"    old = atomicCAS_system(address, assumed, {SYSTEM_COUNTERS[cuda_name]});\n"
        "  } while (old != assumed);\n"
        "  return old;\n"
        "}\n"
    )
    op = "increment" if "Inc" in cuda_name else "decrement"
    return LocalHelper(
        cuda_name, helper, code,
        f"HIP has no {cuda_name}; CUDA's wrap-around {op} with system scope, on HIP's atomicCAS_system",
        "CUDA C++ Programming Guide, atomicInc/atomicDec (the new value) and their _system forms (CUDA 13.0 "
        "sm_60_atomic_functions.h); ROCm 7.2.4 hip/amd_detail/amd_hip_atomic.h (atomicCAS_system: "
        "__HIP_MEMORY_SCOPE_SYSTEM, no atomicInc_system/atomicDec_system)",
        _unavailable(cuda_name),
    )


@functools.cache
def local_helpers() -> dict[str, LocalHelper]:
    """``{cuda_name: LocalHelper}``, built once on first use."""
    from vado.port.half_math import half_math_helpers

    helpers = [*half_math_helpers(), _sparse_error_string(), _match_any_sync(), *(_simd_minmax(n) for n in SIMD_MINMAX),
               *(_cache_hint(n) for n in CACHE_HINTS), *(_nvtx_name(n) for n in NVTX_NAMES),
               *(_bf16_pair(n) for n in BF16_PAIRS), _cub_debug_exit(), *(_dot_product(n) for n in DOT_PRODUCTS),
               *(_find_first_set(n) for n in FIND_FIRST_SET), *(_bf16_conversion(n) for n in _bf16_names()),
               *(_system_counter(n) for n in SYSTEM_COUNTERS)]
    return {h.cuda_name: h for h in helpers}
