// CUDA's side of the FP8 equivalence check (tests/port/test_fp8.py).
#include <cuda_fp8.h>
#define INTERP __nv_fp8_interpretation_t
#define SAT __nv_saturation_t
#define K_E4M3 __NV_E4M3
#define K_E5M2 __NV_E5M2
#define S_NOSAT __NV_NOSAT
#define S_SATFINITE __NV_SATFINITE
#define CVT_FLOAT __nv_cvt_float_to_fp8
#define CVT_DOUBLE __nv_cvt_double_to_fp8
#define CVT_HALF __nv_cvt_halfraw_to_fp8
#define CVT_BF16 __nv_cvt_bfloat16raw_to_fp8
#define CVT_TO_HALF __nv_cvt_fp8_to_halfraw
#define HALF_RAW __half_raw
#define BF16_RAW __nv_bfloat16_raw
#define STORAGE __nv_fp8_storage_t
#define E4 __nv_fp8_e4m3
#define E5 __nv_fp8_e5m2
#define P4 __nv_fp8x2_e4m3
#define P5 __nv_fp8x2_e5m2
#define Q4 __nv_fp8x4_e4m3
#define Q5 __nv_fp8x4_e5m2
#define BF16 __nv_bfloat16
#define BF162(a, b) __floats2bfloat162_rn(a, b)
#include "harness.h"
