// vado: CUDA's OCP FP8 types (cuda_fp8.h) for HIP on AMD, with CUDA's conversions bit for bit, on the host and
// on every GPU. ROCm 7.2's own OCP types (hip/hip_fp8.h) are host-only in gfx942 (MI300X) device code, and their
// software conversion differs from CUDA's (tiny inputs give nonzero codes, NaN inputs a negative NaN, NOSAT inputs
// just above the largest finite value NaN where CUDA rounds them down), so the port uses these. Conversions are
// integer code (round to nearest even, CUDA's saturation and NaN rules), slower than gfx950's hardware ones.
#ifndef VADO_FP8_H
#define VADO_FP8_H
#include <hip/hip_fp16.h>
#include <hip/hip_bf16.h>
#include <hip/hip_fp8.h>

namespace vado_fp8_detail {
// fp8 bits (sign in bit 7) of a double's bits: round to nearest even, CUDA's rules for infinity and overflow (the
// largest finite value with saturation; else NaN for e4m3, infinity for e5m2) and NaN (the sign kept; for e5m2 the
// two leading payload bits too); signed zeros kept.
__host__ __device__ inline unsigned char from_double_bits(unsigned long long b, bool satfinite, bool e4m3) {
  const unsigned char sign = (unsigned char)((b >> 56) & 0x80u);
  const unsigned long long a = b & 0x7FFFFFFFFFFFFFFFull;
  const int mbits = e4m3 ? 3 : 2, bias = e4m3 ? 7 : 15;
  const unsigned maxcode = e4m3 ? 0x7Eu : 0x7Bu;
  const unsigned char overflow = (unsigned char)(sign | (satfinite ? maxcode : (e4m3 ? 0x7Fu : 0x7Cu)));
  if (a > 0x7FF0000000000000ull) return (unsigned char)(sign | (e4m3 ? 0x7Fu : 0x7Eu | ((b >> 50) & 3u)));
  if (a == 0x7FF0000000000000ull) return overflow;
  const int biased = (int)(a >> 52);
  if (biased == 0) return sign;  // a double subnormal: far below half of fp8's least subnormal
  const int e = biased - 1023;
  if (e > 16) return overflow;
  const unsigned long long s = (a & 0xFFFFFFFFFFFFFull) | (1ull << 52);
  const int emin = 1 - bias;
  const int shift = 52 - mbits + (e < emin ? emin - e : 0);
  unsigned long long n = 0;
  if (shift < 64) {
    n = s >> shift;
    const unsigned long long rest = s & ((1ull << shift) - 1), half = 1ull << (shift - 1);
    if (rest > half || (rest == half && (n & 1))) ++n;
  }
  const unsigned long long code = e < emin ? n : ((unsigned long long)(e + bias) << mbits) + n - (1ull << mbits);
  return code > maxcode ? overflow : (unsigned char)(sign | code);
}
__host__ __device__ inline unsigned long long double_bits(double d) { return __builtin_bit_cast(unsigned long long, d); }
__host__ __device__ inline unsigned char from_double(double d, bool satfinite, bool e4m3) {
  return from_double_bits(double_bits(d), satfinite, e4m3);
}
// A float (half and bf16 values go through it): NaN first becomes the positive 0x7FFFFFFF, as in CUDA.
__host__ __device__ inline unsigned char from_float(float f, bool satfinite, bool e4m3) {
  return (__builtin_bit_cast(unsigned, f) & 0x7FFFFFFFu) > 0x7F800000u ? (unsigned char)0x7F
                                                                  : from_double(f, satfinite, e4m3);
}
// fp8 → float bits: exact; NaN is 0x7FFFFFFF, as CUDA's (through its half NaN 0x7FFF).
__host__ __device__ inline unsigned to_float_bits(unsigned char c, bool e4m3) {
  const unsigned sign = (unsigned)(c & 0x80u) << 24, mag = c & 0x7Fu;
  const int mbits = e4m3 ? 3 : 2, bias = e4m3 ? 7 : 15;
  const unsigned field = mag >> mbits, m = mag & ((1u << mbits) - 1);
  if (e4m3 ? mag == 0x7Fu : field == 0x1Fu) {
    return (!e4m3 && m == 0) ? (sign | 0x7F800000u) : 0x7FFFFFFFu;
  }
  if (field == 0) {
    if (m == 0) return sign;
    const int p = m >= 4 ? 2 : (m >= 2 ? 1 : 0);  // leading bit of the subnormal mantissa
    return sign | ((unsigned)(p + 1 - bias - mbits + 127) << 23) | ((m - (1u << p)) << (23 - p));
  }
  return sign | ((field - bias + 127) << 23) | (m << (23 - mbits));
}
__host__ __device__ inline float to_float(unsigned char c, bool e4m3) {
  return __builtin_bit_cast(float, to_float_bits(c, e4m3));
}
// fp8 → half bits: exact (every fp8 value is a half); NaN is 0x7FFF, as CUDA's.
__host__ __device__ inline unsigned short to_half_bits(unsigned char c, bool e4m3) {
  const unsigned f = to_float_bits(c, e4m3);
  if (f == 0x7FFFFFFFu) return 0x7FFF;
  const unsigned short sign = (unsigned short)((f >> 16) & 0x8000u);
  const unsigned a = f & 0x7FFFFFFFu;
  if (a == 0) return sign;
  if (a == 0x7F800000u) return (unsigned short)(sign | 0x7C00u);
  const int e = (int)(a >> 23) - 127;
  const unsigned m = a & 0x7FFFFFu;
  if (e >= -14) return (unsigned short)(sign | ((unsigned)(e + 15) << 10) | (m >> 13));
  return (unsigned short)(sign | ((m | 0x800000u) >> (-e - 1)));  // a half subnormal (e5m2's least ones)
}
__host__ __device__ inline __half to_half(unsigned char c, bool e4m3) {
  __half_raw r;
  r.x = to_half_bits(c, e4m3);
  return __half(r);
}
// float → bf16 bits, round to nearest even; NaN is 0x7FFF, as CUDA's __float2bfloat16_rn.
__host__ __device__ inline __hip_bfloat16 to_bf16(unsigned char c, bool e4m3) {
  const unsigned f = to_float_bits(c, e4m3);
  __hip_bfloat16_raw r;
  r.x = f == 0x7FFFFFFFu ? (unsigned short)0x7FFF : (unsigned short)((f + 0x7FFFu + ((f >> 16) & 1u)) >> 16);
  return __hip_bfloat16(r);
}
__host__ __device__ inline bool is_e4m3(__hip_fp8_interpretation_t interp) {
  return interp == __HIP_E4M3 || interp == __HIP_E4M3_FNUZ;
}
}  // namespace vado_fp8_detail

// CUDA's __nv_cvt_* functions (OCP interpretations __HIP_E4M3/__HIP_E5M2).
__host__ __device__ inline __hip_fp8_storage_t vado_cvt_double_to_fp8(double x, __hip_saturation_t sat,
                                                                       __hip_fp8_interpretation_t interp) {
  return vado_fp8_detail::from_double(x, sat == __HIP_SATFINITE, vado_fp8_detail::is_e4m3(interp));
}
__host__ __device__ inline __hip_fp8_storage_t vado_cvt_float_to_fp8(float x, __hip_saturation_t sat,
                                                                      __hip_fp8_interpretation_t interp) {
  return vado_fp8_detail::from_float(x, sat == __HIP_SATFINITE, vado_fp8_detail::is_e4m3(interp));
}
__host__ __device__ inline __hip_fp8_storage_t vado_cvt_halfraw_to_fp8(__half_raw x, __hip_saturation_t sat,
                                                                        __hip_fp8_interpretation_t interp) {
  return vado_cvt_float_to_fp8(__half2float(__half(x)), sat, interp);
}
__host__ __device__ inline __hip_fp8_storage_t vado_cvt_bfloat16raw_to_fp8(__hip_bfloat16_raw x, __hip_saturation_t sat,
                                                                            __hip_fp8_interpretation_t interp) {
  return vado_cvt_float_to_fp8(__builtin_bit_cast(float, (unsigned)x.x << 16), sat, interp);
}
__host__ __device__ inline __hip_fp8x2_storage_t vado_cvt_float2_to_fp8x2(float2 x, __hip_saturation_t sat,
                                                                           __hip_fp8_interpretation_t interp) {
  return (__hip_fp8x2_storage_t)(vado_cvt_float_to_fp8(x.x, sat, interp) | (vado_cvt_float_to_fp8(x.y, sat, interp) << 8));
}
__host__ __device__ inline __hip_fp8x2_storage_t vado_cvt_double2_to_fp8x2(double2 x, __hip_saturation_t sat,
                                                                            __hip_fp8_interpretation_t interp) {
  return (__hip_fp8x2_storage_t)(vado_cvt_double_to_fp8(x.x, sat, interp) | (vado_cvt_double_to_fp8(x.y, sat, interp) << 8));
}
__host__ __device__ inline __hip_fp8x2_storage_t vado_cvt_halfraw2_to_fp8x2(__half2_raw x, __hip_saturation_t sat,
                                                                             __hip_fp8_interpretation_t interp) {
  // HIP's __half2_raw holds two __half_raw, CUDA's (HIP on CUDA) two unsigned shorts: read the bits
  const unsigned int bits = __builtin_bit_cast(unsigned int, x);
  __half_raw lo, hi;
  lo.x = (unsigned short)(bits & 0xffffu);
  hi.x = (unsigned short)(bits >> 16);
  return (__hip_fp8x2_storage_t)(vado_cvt_halfraw_to_fp8(lo, sat, interp) | (vado_cvt_halfraw_to_fp8(hi, sat, interp) << 8));
}
__host__ __device__ inline __hip_fp8x2_storage_t vado_cvt_bfloat16raw2_to_fp8x2(__hip_bfloat162_raw x,
                                                                                 __hip_saturation_t sat,
                                                                                 __hip_fp8_interpretation_t interp) {
  __hip_bfloat16_raw lo, hi;
  lo.x = x.x;
  hi.x = x.y;
  return (__hip_fp8x2_storage_t)(vado_cvt_bfloat16raw_to_fp8(lo, sat, interp)
                                 | (vado_cvt_bfloat16raw_to_fp8(hi, sat, interp) << 8));
}
__host__ __device__ inline __half_raw vado_cvt_fp8_to_halfraw(__hip_fp8_storage_t x, __hip_fp8_interpretation_t interp) {
  __half_raw r;
  r.x = vado_fp8_detail::to_half_bits(x, vado_fp8_detail::is_e4m3(interp));
  return r;
}
__host__ __device__ inline __half2_raw vado_cvt_fp8x2_to_halfraw2(__hip_fp8x2_storage_t x,
                                                                   __hip_fp8_interpretation_t interp) {
  // the bits of two __half_raw (HIP's __half2_raw holds two __half_raw, CUDA's two unsigned shorts)
  const unsigned int lo = vado_cvt_fp8_to_halfraw((__hip_fp8_storage_t)(x & 0xFFu), interp).x;
  const unsigned int hi = vado_cvt_fp8_to_halfraw((__hip_fp8_storage_t)(x >> 8), interp).x;
  return __builtin_bit_cast(__half2_raw, lo | (hi << 16));
}

// The types: storage __x as CUDA's, explicit constructors that saturate (__NV_SATFINITE) and explicit conversions
// to floating types and bool (CUDA's to integers are not written: a use does not compile, it is not guessed).
#define VADO_FP8_SCALAR(NAME, E4M3)                                                                            \
  struct __attribute__((aligned(1))) NAME {                                                                   \
    __hip_fp8_storage_t __x;                                                                                  \
    NAME() = default;                                                                                         \
    __host__ __device__ explicit NAME(const double f) : __x(vado_fp8_detail::from_double(f, true, E4M3)) {}   \
    __host__ __device__ explicit NAME(const float f) : __x(vado_fp8_detail::from_float(f, true, E4M3)) {}     \
    __host__ __device__ explicit NAME(const __half f)                                                         \
        : __x(vado_fp8_detail::from_float(__half2float(f), true, E4M3)) {}                                    \
    __host__ __device__ explicit NAME(const __hip_bfloat16 f)                                                 \
        : __x(vado_fp8_detail::from_float(__bfloat162float(f), true, E4M3)) {}                                \
    /* integers as CUDA's: through float (the C++ conversion), then saturating */                             \
    __host__ __device__ explicit NAME(const short int v) : NAME(static_cast<float>(v)) {}                     \
    __host__ __device__ explicit NAME(const int v) : NAME(static_cast<float>(v)) {}                           \
    __host__ __device__ explicit NAME(const long int v) : NAME(static_cast<float>(v)) {}                      \
    __host__ __device__ explicit NAME(const long long int v) : NAME(static_cast<float>(v)) {}                 \
    __host__ __device__ explicit NAME(const unsigned short int v) : NAME(static_cast<float>(v)) {}            \
    __host__ __device__ explicit NAME(const unsigned int v) : NAME(static_cast<float>(v)) {}                  \
    __host__ __device__ explicit NAME(const unsigned long int v) : NAME(static_cast<float>(v)) {}             \
    __host__ __device__ explicit NAME(const unsigned long long int v) : NAME(static_cast<float>(v)) {}        \
    __host__ __device__ explicit operator bool() const { return (__x & 0x7Fu) != 0u; }                        \
    __host__ __device__ explicit operator float() const { return vado_fp8_detail::to_float(__x, E4M3); }      \
    __host__ __device__ explicit operator double() const { return vado_fp8_detail::to_float(__x, E4M3); }     \
    __host__ __device__ explicit operator __half() const { return vado_fp8_detail::to_half(__x, E4M3); }      \
    __host__ __device__ explicit operator __hip_bfloat16() const { return vado_fp8_detail::to_bf16(__x, E4M3); } \
  };
#define VADO_FP8_PAIR(NAME, E4M3)                                                                              \
  struct __attribute__((aligned(2))) NAME {                                                                   \
    __hip_fp8x2_storage_t __x;                                                                                \
    NAME() = default;                                                                                         \
    __host__ __device__ explicit NAME(const float2 f)                                                         \
        : __x((__hip_fp8x2_storage_t)(vado_fp8_detail::from_float(f.x, true, E4M3)                            \
                                      | (vado_fp8_detail::from_float(f.y, true, E4M3) << 8))) {}              \
    __host__ __device__ explicit NAME(const double2 f)                                                        \
        : __x((__hip_fp8x2_storage_t)(vado_fp8_detail::from_double(f.x, true, E4M3)                           \
                                      | (vado_fp8_detail::from_double(f.y, true, E4M3) << 8))) {}             \
    __host__ __device__ explicit NAME(const __half2 f)                                                        \
        : NAME(float2{__low2float(f), __high2float(f)}) {}                                                    \
    __host__ __device__ explicit NAME(const __hip_bfloat162 f)                                                \
        : NAME(float2{__low2float(f), __high2float(f)}) {}                                                    \
    __host__ __device__ explicit operator float2() const {                                                    \
      return float2{vado_fp8_detail::to_float((unsigned char)(__x & 0xFFu), E4M3),                            \
                    vado_fp8_detail::to_float((unsigned char)(__x >> 8), E4M3)};                              \
    }                                                                                                         \
    __host__ __device__ explicit operator __half2() const {                                                   \
      return __halves2half2(vado_fp8_detail::to_half((unsigned char)(__x & 0xFFu), E4M3),                     \
                            vado_fp8_detail::to_half((unsigned char)(__x >> 8), E4M3));                       \
    }                                                                                                         \
  };
#define VADO_FP8_QUAD(NAME, PAIR, E4M3)                                                                        \
  struct __attribute__((aligned(4))) NAME {                                                                   \
    __hip_fp8x4_storage_t __x;                                                                                \
    NAME() = default;                                                                                         \
    __host__ __device__ explicit NAME(const float4 f)                                                         \
        : __x((__hip_fp8x4_storage_t)PAIR(float2{f.x, f.y}).__x                                               \
              | ((__hip_fp8x4_storage_t)PAIR(float2{f.z, f.w}).__x << 16)) {}                                 \
    __host__ __device__ explicit NAME(const double4 f)                                                        \
        : __x((__hip_fp8x4_storage_t)PAIR(double2{f.x, f.y}).__x                                              \
              | ((__hip_fp8x4_storage_t)PAIR(double2{f.z, f.w}).__x << 16)) {}                                \
    __host__ __device__ explicit NAME(const __half2 lo, const __half2 hi)                                     \
        : __x((__hip_fp8x4_storage_t)PAIR(lo).__x | ((__hip_fp8x4_storage_t)PAIR(hi).__x << 16)) {}           \
    __host__ __device__ explicit NAME(const __hip_bfloat162 lo, const __hip_bfloat162 hi)                     \
        : __x((__hip_fp8x4_storage_t)PAIR(lo).__x | ((__hip_fp8x4_storage_t)PAIR(hi).__x << 16)) {}           \
    __host__ __device__ explicit operator float4() const {                                                    \
      return float4{vado_fp8_detail::to_float((unsigned char)(__x & 0xFFu), E4M3),                            \
                    vado_fp8_detail::to_float((unsigned char)((__x >> 8) & 0xFFu), E4M3),                     \
                    vado_fp8_detail::to_float((unsigned char)((__x >> 16) & 0xFFu), E4M3),                    \
                    vado_fp8_detail::to_float((unsigned char)(__x >> 24), E4M3)};                             \
    }                                                                                                         \
  };
VADO_FP8_SCALAR(vado_fp8_e4m3, true)
VADO_FP8_SCALAR(vado_fp8_e5m2, false)
VADO_FP8_PAIR(vado_fp8x2_e4m3, true)
VADO_FP8_PAIR(vado_fp8x2_e5m2, false)
VADO_FP8_QUAD(vado_fp8x4_e4m3, vado_fp8x2_e4m3, true)
VADO_FP8_QUAD(vado_fp8x4_e5m2, vado_fp8x2_e5m2, false)
#undef VADO_FP8_SCALAR
#undef VADO_FP8_PAIR
#undef VADO_FP8_QUAD
#endif
