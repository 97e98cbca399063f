"""BLD rules: CUDA in build files (CMake, Makefiles, setup.py, a Python module that builds a torch extension
just in time).

The facts come from :mod:`vado.scan.buildfiles`; every finding's span is the
exact text a port rewrites (the ``CUDA`` of ``project(... CUDA)``, one flag
and its value, one library name). Verdicts per target family:

- ``rocm``: build files move with edits where the rewrite is mechanical
  (``CUDA`` → ``HIP``, ``-arch=sm_80`` → ``--offload-arch=gfx942``,
  ``-lcublas`` → ``-lhipblas``), else they need manual work.
- ``oneapi``: a SYCL build (``icpx -fsycl``) is a different build; always manual.
- ``scale``: SCALE ships an nvcc-compatible compiler and a "CUDA installation
  directory" per AMD target that maps every compute capability to that
  target, so CUDA build files mostly move as they are.
- ``zluda``: the build stays an NVIDIA CUDA build (ZLUDA runs the binary), so
  build files move as they are, except that ZLUDA translates the PTX in the
  binary: a build that embeds no PTX gives it nothing to run.

Offload architectures for rewrites come from ``ctx.options["offload_arch"]``
(a string or a list) or else the ``default_arch`` of the audited ROCm targets.

Layout, one module per rule (what it is about), and the helpers they share:
:mod:`.common` (verdict shorthands, the build facts parsed once per file, the offload
architectures, per-family verdicts, the one-fact fix, the PyTorch-extension test),
:mod:`.cmake_language` (BLD001 the CMake CUDA language, FindCUDA, ``CMAKE_CUDA_*``),
:mod:`.arch_list` (BLD002 compute-capability lists), :mod:`.nvcc_flags` (BLD003 nvcc and
its flags in Makefiles and CMake), :mod:`.libraries` (BLD004 CUDA libraries on link lines),
:mod:`.torch_extension` (BLD005 a setup.py's ``CUDAExtension``, its nvcc flags and its
``CUDA_HOME`` gates) with :mod:`.setup_flags` (how BLD005 rewrites those flags),
:mod:`.rdc` (BLD006 relocatable device code), :mod:`.unparsed` (BLD007 a build file
vado could not read to its end) and :mod:`.thrust_namespace` (BLD009
``THRUST_CUB_WRAPPED_NAMESPACE``). BLD008 is :mod:`vado.rules.bld_torch`, a family module
of its own. Importing this package imports every module, which registers its rules
(:mod:`vado.rules.registry`); a new rule is a class in its topic's module.
"""

from __future__ import annotations

from vado.rules.bld.arch_list import CudaArchitectureList
from vado.rules.bld.cmake_language import CMakeCudaLanguage
from vado.rules.bld.common import build_facts, offload_archs, per_family
from vado.rules.bld.libraries import CudaLibraryLink
from vado.rules.bld.nvcc_flags import NvccCommandOrFlag
from vado.rules.bld.rdc import RelocatableDeviceCode
from vado.rules.bld.thrust_namespace import ThrustWrappedNamespace
from vado.rules.bld.torch_extension import TorchCudaExtension
from vado.rules.bld.unparsed import UnparsedBuildFile

__all__ = [
    "CMakeCudaLanguage",
    "CudaArchitectureList",
    "CudaLibraryLink",
    "NvccCommandOrFlag",
    "RelocatableDeviceCode",
    "ThrustWrappedNamespace",
    "TorchCudaExtension",
    "UnparsedBuildFile",
    "build_facts",
    "offload_archs",
    "per_family",
]
