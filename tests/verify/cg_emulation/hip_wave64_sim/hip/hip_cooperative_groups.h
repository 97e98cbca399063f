// HIP's own cooperative groups (ROCm 7.2.4's headers, read from the installation) on the CPU stand-in for a
// wave64 GPU (hip_runtime.h beside this file).
#pragma once
#include <hip/hip_runtime.h>
#include HIP_SIM_CG_HELPER
#include HIP_SIM_CG
