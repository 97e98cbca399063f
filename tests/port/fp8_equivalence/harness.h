// One program, two builds: CUDA 13's cuda_fp8.h (g++, its host code) and vado's OCP FP8 definitions over HIP's
// headers (hipcc); tests/port/test_fp8.py compares their output line for line. Every half and bfloat16 input,
// 4 million doubles, every FP8 value's conversions, 2 million constructor and vector cases per run; floats:
// 2^24 spread over the range, or all 2^32 per mode with an argument (two minutes).
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <random>
static inline uint64_t fnv(uint64_t h, uint64_t b) { return (h ^ b) * 1099511628211ull; }
template <class T> static inline uint64_t bits(const T& v) { uint64_t r = 0; memcpy(&r, &v, sizeof v); return r; }
int main(int argc, char** argv) {
  const bool full = argc > 1;
  const INTERP kinds[2] = {K_E4M3, K_E5M2};
  const SAT sats[2] = {S_NOSAT, S_SATFINITE};
  for (int k = 0; k < 2; ++k) for (int s = 0; s < 2; ++s) {
    const uint64_t chunks = full ? 256 : 16;
    for (uint64_t c = 0; c < chunks; ++c) {
      uint64_t h = 1469598103934665603ull;
      const uint64_t lo = full ? c << 24 : (c << 28), n = full ? (1ull << 24) : (1ull << 20);
      for (uint64_t i = lo; i < lo + n; ++i) {
        uint32_t u = (uint32_t)i; float f; memcpy(&f, &u, 4);
        h = fnv(h, CVT_FLOAT(f, sats[s], kinds[k]));
      }
      printf("float k%d s%d %llu %016llx\n", k, s, (unsigned long long)c, (unsigned long long)h);
    }
    uint64_t hh = 1469598103934665603ull, hb = hh;
    for (uint32_t i = 0; i < 65536; ++i) {
      HALF_RAW r; r.x = (unsigned short)i; hh = fnv(hh, CVT_HALF(r, sats[s], kinds[k]));
      BF16_RAW b; b.x = (unsigned short)i; hb = fnv(hb, CVT_BF16(b, sats[s], kinds[k]));
    }
    printf("half k%d s%d %016llx\nbf16 k%d s%d %016llx\n", k, s, (unsigned long long)hh, k, s, (unsigned long long)hb);
    std::mt19937_64 rng(42);
    uint64_t hd = 1469598103934665603ull;
    for (int i = 0; i < 4000000; ++i) {
      uint64_t u = rng();
      if (i & 1) u = (u & 0x800FFFFFFFFFFFFFull) | ((uint64_t)(1023 - 30 + (rng() % 50)) << 52);  // fp8's range
      double d; memcpy(&d, &u, 8);
      hd = fnv(hd, CVT_DOUBLE(d, sats[s], kinds[k]));
    }
    printf("double k%d s%d %016llx\n", k, s, (unsigned long long)hd);
  }
  for (int k = 0; k < 2; ++k) for (uint32_t i = 0; i < 256; ++i) {
    HALF_RAW r = CVT_TO_HALF((STORAGE)i, kinds[k]);
    float f; double d; uint64_t bf;
    if (k == 0) { E4 v; v.__x = (STORAGE)i; f = float(v); d = double(v); bf = bits(BF16(v)); }
    else { E5 v; v.__x = (STORAGE)i; f = float(v); d = double(v); bf = bits(BF16(v)); }
    printf("to k%d %u half %04x float %08llx double %016llx bf16 %04llx\n", k, i, r.x, (unsigned long long)bits(f),
           (unsigned long long)bits(d), (unsigned long long)bf);
  }
  // Constructors (saturating) and vector conversions on random and edge values.
  std::mt19937 rng(7);
  uint64_t h = 1469598103934665603ull;
  for (int i = 0; i < 2000000; ++i) {
    uint32_t u = rng(); if (i & 1) u = (u & 0x807FFFFFu) | ((uint32_t)(127 - 20 + rng() % 40) << 23);
    uint32_t w = rng(); if (i & 2) w = (w & 0x807FFFFFu) | ((uint32_t)(127 - 20 + rng() % 40) << 23);
    float a, b; memcpy(&a, &u, 4); memcpy(&b, &w, 4);
    E4 x4(a); E5 x5(a); E4 y4((double)b); E5 y5(__float2half(b));
    const long long big = (long long)(int32_t)u * (i % 3 == 0 ? 1 : 1 << (i % 20));
    E4 i4((int)(int16_t)u); E5 i5(big); E4 j4((unsigned)w); E5 j5((unsigned long long)big);
    h = fnv(h, i4.__x); h = fnv(h, i5.__x); h = fnv(h, j4.__x); h = fnv(h, j5.__x);
    h = fnv(h, (bool)x4); h = fnv(h, (bool)y5);
    h = fnv(h, x4.__x); h = fnv(h, x5.__x); h = fnv(h, y4.__x); h = fnv(h, y5.__x);
    P4 p4(make_float2(a, b)); P5 p5(make_float2(b, a)); h = fnv(h, p4.__x); h = fnv(h, p5.__x);
    Q4 q4(make_float4(a, b, b, a)); Q5 q5(make_float4(b, a, a, b)); h = fnv(h, q4.__x); h = fnv(h, q5.__x);
    Q4 r4(__floats2half2_rn(a, b), __floats2half2_rn(b, a)); h = fnv(h, r4.__x);
    Q5 r5(BF162(a, b), BF162(b, a)); h = fnv(h, r5.__x);
    float2 f2 = float2(p4); float4 f4 = float4(q5); __half2 g2 = __half2(p5);
    h = fnv(h, bits(f2.x)); h = fnv(h, bits(f2.y)); h = fnv(h, bits(f4.z)); h = fnv(h, bits(f4.w));
    h = fnv(h, bits(g2));
  }
  printf("ctors %016llx\n", (unsigned long long)h);
}
