// vado's side of the FP8 equivalence check (tests/port/test_fp8.py): data/vado_fp8.h on HIP's headers.
#include "vado_fp8.h"
#define INTERP __hip_fp8_interpretation_t
#define SAT __hip_saturation_t
#define K_E4M3 __HIP_E4M3
#define K_E5M2 __HIP_E5M2
#define S_NOSAT __HIP_NOSAT
#define S_SATFINITE __HIP_SATFINITE
#define CVT_FLOAT vado_cvt_float_to_fp8
#define CVT_DOUBLE vado_cvt_double_to_fp8
#define CVT_HALF vado_cvt_halfraw_to_fp8
#define CVT_BF16 vado_cvt_bfloat16raw_to_fp8
#define CVT_TO_HALF vado_cvt_fp8_to_halfraw
#define HALF_RAW __half_raw
#define BF16_RAW __hip_bfloat16_raw
#define STORAGE __hip_fp8_storage_t
#define E4 vado_fp8_e4m3
#define E5 vado_fp8_e5m2
#define P4 vado_fp8x2_e4m3
#define P5 vado_fp8x2_e5m2
#define Q4 vado_fp8x4_e4m3
#define Q5 vado_fp8x4_e5m2
#define BF16 __hip_bfloat16
#define BF162(a, b) __float22bfloat162_rn(make_float2(a, b))
#include "harness.h"
