"""ARCH rules: features of particular NVIDIA architectures (tensor cores, Hopper/Blackwell, FP8, CDP …)
and the CUDA-only macros, specifiers and spellings that go with them.

Each rule matches names in the token stream (never in comments or strings) and reads its per-target
verdicts from a small table of facts with sources.

Layout, one module per topic: :mod:`.common` (verdict shorthands, the family-table reader, the include
finder), :mod:`.features` (ARCH001 WMMA, ARCH002 Hopper/Blackwell, ARCH004 device-side launches,
ARCH005 managed memory, ARCH006 version-dependent warp intrinsics), :mod:`.fp8` (ARCH003 low-precision
float types), :mod:`.directives` (reading ``#if`` tests, shared by ARCH007–ARCH010), :mod:`.arch_macro`
(ARCH007 ``__CUDA_ARCH__``/``__CUDACC__``), :mod:`.version_macro` (ARCH008 CUDA version macros) and
:mod:`.spellings` (ARCH009 header guards, ARCH010 declaration specifiers, ARCH011 spaced chevrons).
Importing this package imports every module, which registers its rules (:mod:`vado.rules.registry`);
a new rule is a class in its topic's module.
"""

from __future__ import annotations

from vado.rules.arch.arch_macro import CudaArchMacroTest
from vado.rules.arch.common import HIP_DOCS, SCALE_DOCS
from vado.rules.arch.directives import CUDA_ARCH_FLOOR, CUDA_ARCH_HOPPER, DEVICE_PASS
from vado.rules.arch.features import (
    DeviceSideKernelLaunch,
    HopperBlackwellFeature,
    ManagedMemoryAssumption,
    VersionDependentWarpIntrinsic,
    WarpMatrixApi,
)
from vado.rules.arch.fp8 import VADO_FP8_FIRST_HIP, VADO_FP8_GUARD, LowPrecisionFloatTypes, vado_fp8_applies
from vado.rules.arch.spellings import (
    CUDA_HEADER_GUARDS,
    CUDA_ONLY_SPECIFIERS,
    CudaHeaderGuardTest,
    CudaOnlyDeclarationSpecifier,
    SpacedLaunchChevrons,
)
from vado.rules.arch.version_macro import CudaVersionMacroTest, cuda_api_level

__all__ = [
    "CUDA_ARCH_FLOOR",
    "CUDA_ARCH_HOPPER",
    "CUDA_HEADER_GUARDS",
    "CUDA_ONLY_SPECIFIERS",
    "CudaArchMacroTest",
    "CudaHeaderGuardTest",
    "CudaOnlyDeclarationSpecifier",
    "CudaVersionMacroTest",
    "DEVICE_PASS",
    "DeviceSideKernelLaunch",
    "HIP_DOCS",
    "HopperBlackwellFeature",
    "LowPrecisionFloatTypes",
    "ManagedMemoryAssumption",
    "SCALE_DOCS",
    "SpacedLaunchChevrons",
    "VADO_FP8_FIRST_HIP",
    "VADO_FP8_GUARD",
    "VersionDependentWarpIntrinsic",
    "WarpMatrixApi",
    "cuda_api_level",
    "vado_fp8_applies",
]
