"""vado.port.compat's stand-ins for __dp4a/__dp2a, __ffs/__ffsll, the bf16 conversions with a rounding
mode and atomicAdd on 16-bit floating types: which targets get them, and that they compute what CUDA
defines (compiled for the host against small stand-ins of HIP's types, checked against Python)."""

from __future__ import annotations

import math
import random
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from vado.knowledge.targets import get_target
from vado.port.apply import fixpoint
from vado.port.compat import (
    ATOMIC_ADD_TYPES,
    BF16_INTEGERS,
    DOT_PRODUCTS,
    _bf16_names,
    local_helper_fixes,
    local_helpers,
)
from vado.scan.lexer import tokenize

ROCM = get_target("rocm-7.2")
HIP52 = get_target("hip-5.2")

#: Stand-ins of HIP's types for a host compiler: the helpers use only these members and functions.
HOST_SHIM = """\
#include <cstdio>
#include <cstring>
#define __host__
#define __device__
struct char4 { signed char x, y, z, w; };
struct uchar4 { unsigned char x, y, z, w; };
struct short2 { short x, y; };
struct ushort2 { unsigned short x, y; };
struct __hip_bfloat16 { unsigned short bits; };
static inline __hip_bfloat16 __ushort_as_bfloat16(unsigned short u) { return __hip_bfloat16{u}; }
static inline float __bfloat162float(__hip_bfloat16 h) {
  unsigned int u = (unsigned int)h.bits << 16; float f; std::memcpy(&f, &u, 4); return f;
}
"""


def port(src: str, target=ROCM) -> str:
    return fixpoint(src, lambda t: local_helper_fixes("k.cu", t, tokenize(t), target)).text


def run_host(tmp_path: Path, body: str, main: str) -> list[int]:
    cxx = shutil.which("g++") or shutil.which("clang++")
    if cxx is None:
        pytest.skip("no host C++ compiler")
    src = tmp_path / "t.cpp"
    src.write_text(HOST_SHIM + body + "int main() {\n" + main + "  return 0;\n}\n")
    exe = tmp_path / "t"
    subprocess.run([cxx, "-O1", "-std=c++17", "-o", str(exe), str(src)], check=True, capture_output=True, text=True)
    return [int(x) for x in subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout.split()]


# --------------------------------------------------------------------------- which targets


def test_dot_products_on_every_rocm_target_and_calls_renamed():
    src = "__global__ void k(int* o, const int* a, const int* b) { o[0] = __dp4a(a[0], b[0], 0) + __dp2a_lo(a[1], b[1], 0); }\n"
    for target in (ROCM, HIP52):
        out = port(src, target)
        assert "vado_dp4a(a[0], b[0], 0)" in out and "vado_dp2a_lo(a[1], b[1], 0)" in out
        assert out.count("#define VADO_DP4A\n") == 1 and "__dp4a(" not in out


def test_find_first_set_keeps_hips_function_in_its_body():
    src = "__global__ void k(int* o, unsigned long m) { o[0] = __ffsll(m) + __ffs(m); }\n"
    out = port(src)
    assert "o[0] = vado_ffsll(m) + vado_ffs(m);" in out
    assert "return (int)::__ffsll(x);" in out and "return (int)::__ffs(x);" in out  # not renamed again
    assert port(out) == out


def test_find_first_set_calls_hip_resolves_alone_are_left():
    src = ("__global__ void k(int* o, unsigned long long m, long long s, unsigned u, uint64_t w) {\n"
           "  o[0] = __ffsll(m) + __ffsll(s) + __ffsll((unsigned long long)w) + __ffsll(0ull) + __ffsll(__ballot(1));\n"
           "  o[1] = __ffs(u) + __ffs(3) + __ffs(__ballot(1));\n"
           "  o[2] = __ffsll(w) + __ffsll(0) + __ffs(m) + __ffs(w + 1);\n}\n")
    out = port(src)
    assert "o[0] = __ffsll(m) + __ffsll(s) + __ffsll((unsigned long long)w) + __ffsll(0ull) + __ffsll(__ballot(1));" in out
    assert "o[1] = __ffs(u) + __ffs(3) + __ffs(__ballot(1));" in out  # the warp rules port a vote's mask
    assert "o[2] = vado_ffsll(w) + vado_ffsll(0) + vado_ffs(m) + vado_ffs(w + 1);" in out


def test_bf16_conversions_only_where_the_port_has_hip_bf16():
    src = "#include <cuda_bf16.h>\n__global__ void k(int* o, __nv_bfloat16 h) { o[0] = __bfloat162int_rn(h); }\n"
    assert "vado_bfloat162int_rn(h)" in port(src, ROCM)
    assert "vado_" not in port(src, HIP52)  # HIP 5.2 has no hip_bf16.h: the name stays for the findings


def test_every_bf16_conversion_helper_is_listed_as_missing_in_the_data():
    helpers = local_helpers()
    for name in _bf16_names():
        assert helpers[name].applies(ROCM), name


def test_atomic_add_overload_needs_the_type_and_is_written_once():
    plain = "__global__ void k(int* c) { int half = 2; atomicAdd(c, half); }\n"
    assert port(plain) == plain
    src = "#include <cuda_fp16.h>\n__global__ void k(half2* p, half2 v, int* c) { atomicAdd(c, 1); atomicAdd(p, v); }\n"
    out = port(src)
    assert out.count("#define VADO_ATOMIC_ADD_HALF2\n") == 1 and "VADO_ATOMIC_ADD_HALF\n" not in out
    assert "atomicAdd(c, 1); atomicAdd(p, v);" in out  # calls stay as they are: the overload is found by type
    assert out.index("#define VADO_ATOMIC_ADD_HALF2") < out.index("__global__")
    assert port(out) == out
    assert port(src, HIP52).count("#define VADO_ATOMIC_ADD_HALF2\n") == 1
    bf = "#include <cuda_bf16.h>\n__global__ void k(__nv_bfloat162* p, __nv_bfloat162 v) { atomicAdd(p, v); }\n"
    assert "VADO_ATOMIC_ADD_BFLOAT162" in port(bf) and "VADO_ATOMIC_ADD" not in port(bf, HIP52)
    assert set(ATOMIC_ADD_TYPES) == {"__half", "__half2", "__hip_bfloat16", "__hip_bfloat162"}


# --------------------------------------------------------------------------- what they compute


def _lanes(v: int, bits: int, signed: bool, count: int) -> list[int]:
    out = []
    for k in range(count):
        x = (v >> (k * bits)) & ((1 << bits) - 1)
        if signed and x >> (bits - 1):
            x -= 1 << bits
        out.append(x)
    return out


def _dot_reference(name: str, a: int, b: int, c: int, signed: bool) -> int:
    b_lanes, a_bits = DOT_PRODUCTS[name]
    av = _lanes(a, a_bits, signed, len(b_lanes))
    bv = _lanes(b, 8, signed, 4)
    r = (c + sum(x * bv[lane] for x, lane in zip(av, b_lanes))) & 0xFFFFFFFF
    return r - (1 << 32) if signed and r >> 31 else r


def test_dot_products_compute_what_cuda_defines(tmp_path: Path):
    rng = random.Random(14)
    edge = [0, 1, 0x7F, 0x80, 0xFF, 0x7FFF, 0x8000, 0x80808080, 0x7F7F7F7F, 0xFFFFFFFF, 0x12345678]
    triples = [(a, b, c) for a in edge for b in edge for c in (0, 0x7FFFFFFF, 0xFFFFFFFF)]
    triples += [(rng.getrandbits(32), rng.getrandbits(32), rng.getrandbits(32)) for _ in range(300)]
    helpers = local_helpers()
    body = "".join(helpers[n].code for n in DOT_PRODUCTS)
    main, want = [], []

    def signed32(v: int) -> int:
        return v - (1 << 32) if v >> 31 else v

    for name, (b_lanes, a_bits) in DOT_PRODUCTS.items():
        h = helpers[name].helper
        va, ua = ("char4", "uchar4") if a_bits == 8 else ("short2", "ushort2")
        for a, b, c in triples:
            main.append(f'  std::printf("%d\\n", {h}((int){signed32(a)}LL, (int){signed32(b)}LL, (int){signed32(c)}LL));\n')
            main.append(f'  std::printf("%u\\n", {h}({a}u, {b}u, {c}u));\n')
            main.append(f"  {{ unsigned int ra = {a}u, rb = {b}u; {va} x; char4 y; {ua} ux; uchar4 uy;\n"
                        "    std::memcpy(&x, &ra, 4); std::memcpy(&y, &rb, 4); std::memcpy(&ux, &ra, 4); std::memcpy(&uy, &rb, 4);\n"
                        f'    std::printf("%d %u\\n", {h}(x, y, (int){signed32(c)}LL), {h}(ux, uy, {c}u)); }}\n')
            s, u = _dot_reference(name, a, b, c, True), _dot_reference(name, a, b, c, False)
            want += [s, u, s, u]
    assert run_host(tmp_path, body, "".join(main)) == want


def _bf16_value(bits: int) -> float:
    return struct.unpack("<f", struct.pack("<I", bits << 16))[0]


def _to_integer(name: str, bits: int) -> int:
    kind, mode = name[len("__bfloat162"):].rsplit("_", 1)
    _ctype, width, signed, _nan = BF16_INTEGERS[kind]
    v = _bf16_value(bits)
    if math.isnan(v):
        return 0x8000000000000000 - (1 << 64 if signed else 0) if width == 64 else 0
    r = {"rn": round, "rz": math.trunc, "rd": math.floor, "ru": math.ceil}[mode](v) if math.isfinite(v) else v
    low, high = (-(1 << (width - 1)), (1 << (width - 1)) - 1) if signed else (0, (1 << width) - 1)
    return int(min(max(r, low), high))


def _nearest_bf16(value: int | float, mode: str) -> int:
    """The bf16 bits of ``value`` (an integer, or a finite float) rounded by ``mode``, from its two neighbours."""
    from fractions import Fraction

    v = Fraction(value)
    sign = 0x8000 if v < 0 else 0
    m = abs(v)
    if m == 0:
        return sign
    e = math.floor(math.log2(m))
    while Fraction(2) ** e > m:
        e -= 1
    while Fraction(2) ** (e + 1) <= m:
        e += 1
    ulp = Fraction(2) ** (max(e, -126) - 7)
    lo = (m // ulp) * ulp
    hi = lo + ulp
    if lo == m:
        pick = lo
    elif mode == "rz":
        pick = lo
    elif mode == "rn":
        pick = lo if m - lo < hi - m or (m - lo == hi - m and (lo / ulp) % 2 == 0) else hi
    else:
        pick = hi if (mode == "ru") == (sign == 0) else lo
    if pick >= Fraction(2) ** 128:  # beyond the largest bf16: infinity
        return sign | 0x7F80
    as_float = struct.unpack("<I", struct.pack("<f", float(pick)))[0]
    return sign | (as_float >> 16)


def test_bf16_to_integer_conversions_round_saturate_and_map_nan_as_cuda(tmp_path: Path):
    rng = random.Random(4)
    patterns = sorted(set([0, 0x8000, 0x3F00, 0x3F40, 0x3FC0, 0x4020, 0xBF00, 0xBFC0, 0x7F80, 0xFF80, 0x7FC0, 0xFFC1,
                           0x7F7F, 0xFF7F, 0x4F00, 0xCF00, 0x5F00, 0xDF00, 0x5F80, 0x4700, 0xC700, 0x4300, 0xC300, 0x0001]
                          + [rng.getrandbits(16) for _ in range(400)]))
    names = [n for n in _bf16_names() if n.startswith("__bfloat162")]
    helpers = local_helpers()
    body = "".join(helpers[n].code for n in names)
    main = "".join(f'  std::printf("%lld\\n", (long long){helpers[n].helper}(__ushort_as_bfloat16({p}u)));\n'
                   for n in names for p in patterns)
    got = run_host(tmp_path, body, main)

    def as_ll(v: int) -> int:
        v &= (1 << 64) - 1
        return v - (1 << 64) if v >> 63 else v

    assert got == [as_ll(_to_integer(n, p)) for n in names for p in patterns]


def test_integer_to_bf16_conversions_round_once(tmp_path: Path):
    rng = random.Random(5)
    names = [n for n in _bf16_names() if n.endswith(("rn", "rz", "rd", "ru")) and "2bfloat16_" in n and not n.startswith("__float")]
    helpers = local_helpers()
    body = "".join(helpers[n].code for n in names)
    main, want = [], []
    for n in names:
        kind, mode = n[2:].split("2bfloat16_")
        ctype, width, signed, _nan = BF16_INTEGERS[kind]
        low, high = (-(1 << (width - 1)), (1 << (width - 1)) - 1) if signed else (0, (1 << width) - 1)
        values = {low, high, 0, 1, 255, 256, 257, 383, 384, 385, 16842753, 16908288, -16842753, (1 << 24) + 1,
                  (1 << 63) + (1 << 55), (1 << 64) - 1}
        values |= {rng.randint(low, high) for _ in range(60)}
        values |= {rng.randint(-(1 << 20), 1 << 20) for _ in range(20)}
        for v in sorted(x for x in values if low <= x <= high):
            literal = f"({ctype})({v + 1}LL - 1)" if signed and v == low else f"({ctype}){v}{'ULL' if v > (1 << 63) - 1 else 'LL'}"
            main.append(f'  std::printf("%u\\n", (unsigned){helpers[n].helper}({literal}).bits);\n')
            want.append(_nearest_bf16(v, mode))
    assert run_host(tmp_path, body, "".join(main)) == want
    assert _nearest_bf16(16842753, "rn") == _nearest_bf16(16908288, "rn")  # CUDA's single rounding, not float's


def test_float_to_bf16_directed_roundings(tmp_path: Path):
    rng = random.Random(6)
    floats = [0.0, -0.0, 1.0, -1.0, 1.00390625, -1.00390625, 3.4028234663852886e38, -3.4028234663852886e38,
              1e-40, -1e-40, 1.401298464324817e-45, 65504.0, 0.1, -0.1]
    floats += [struct.unpack("<f", struct.pack("<I", rng.getrandbits(32) & 0xFF7FFFFF))[0] for _ in range(300)]
    floats = [f for f in floats if math.isfinite(f)]
    special = {"inf": 0x7F800000, "-inf": 0xFF800000, "nan": 0x7FC00001, "-nan": 0xFFC00000}
    helpers = local_helpers()
    modes = ("rz", "rd", "ru")
    body = "".join(helpers[f"__float2bfloat16_{m}"].code for m in modes)
    main, want = [], []
    for m in modes:
        h = helpers[f"__float2bfloat16_{m}"].helper
        for f in floats:
            bits = struct.unpack("<I", struct.pack("<f", f))[0]
            main.append(f"  {{ unsigned int u = {bits}u; float f; std::memcpy(&f, &u, 4); std::printf(\"%u\\n\", (unsigned){h}(f).bits); }}\n")
            want.append(_nearest_bf16(f, m) if f != 0 else bits >> 16)
        for bits in special.values():
            main.append(f"  {{ unsigned int u = {bits}u; float f; std::memcpy(&f, &u, 4); std::printf(\"%u\\n\", (unsigned){h}(f).bits); }}\n")
            want.append(0x7FFF if (bits & 0x7FFFFFFF) > 0x7F800000 else bits >> 16)
    assert run_host(tmp_path, body, "".join(main)) == want
