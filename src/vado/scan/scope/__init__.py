"""What each file of a project is, for a CUDA port: the project's CUDA code, or something to leave as is.

A multi-directory project holds more than the CUDA code to judge and port:

* **vendored code** — ``third_party/``, ``dependencies/``, git submodules, copies of known
  libraries (CUTLASS, fmt, Catch2 …). :func:`vado.scan.discover.walk` leaves those out
  with a ``VENDORED`` skip; :class:`ProjectScope` lists them again as what they are.
* **other backends** — SYCL, MUSA, Vulkan, Metal, OpenCL, CANN, WebGPU and CPU code for an
  instruction set (RISC-V, Arm, PowerPC, LoongArch, s390x, x86 …): a file that includes one
  of their headers at its top level (``<sycl/sycl.hpp>``, ``musa_runtime.h``,
  ``riscv_vector.h``: ``knowledge/data/project_scope.yaml``) and uses no CUDA, a file of the
  same directory tree that includes such a project header, and a non-CUDA file in a
  directory named for a backend (``ggml-sycl``, ``arch/riscv``). A directory's name never makes CUDA code a backend:
  ``sycl_utils/k.cu`` is the project's CUDA code. A file that uses CUDA and includes another
  backend's headers is the project's (``mixed`` says which backend) unless it sits in that
  backend's directory (MUSA code is written in CUDA's syntax).
* **the project's own HIP path** — a header that maps CUDA names to HIP (many
  ``#define cudaX hipX``), ``.hip`` sources, and, when a build switch turns that path on
  (:class:`HipBuild`: CMake ``option(X_HIP …)``, ``enable_language(HIP)``,
  ``find_package(hip)``, a Makefile's HIP conditional, setup.py's ``IS_HIP_EXTENSION``), every
  file that reaches such a header through its includes and every project file those include,
  and the project's build files: the project's own ROCm build compiles them as they are. A CMake
  HIP build that compiles CUDA sources as HIP (``set_source_files_properties(… LANGUAGE HIP)``,
  bitsandbytes' one source for both builds) puts those sources and what they include on that
  path; the CUDA sources its CMake files name besides them (a CUDA-only branch's tensor-core
  kernels) and the headers only they include are left as they are too: its ROCm build does not
  compile them. A string switch (``if(COMPUTE_BACKEND STREQUAL "hip")``) names the build as
  ``cmake -DCOMPUTE_BACKEND=hip``.
* **a PyTorch extension's own ROCm build** — a setup.py that tells the builds apart (``IS_HIP_EXTENSION``,
  ``torch.version.hip``) and makes a ``CUDAExtension`` on ROCm: PyTorch hipifies its CUDA-spelled sources at
  build time, so they stay the project's (the torch-extension port writes what hipify gets wrong in
  ``USE_ROCM`` branches), with the macros its ROCm extensions get as the AMD configuration's. The sources only
  its CUDA extensions compile (flash-attention's CUTLASS kernels beside its CK ones) and the headers only they
  include are left as they are: its ROCm build does not compile them. Read by
  :func:`vado.build.torch_setup.derive` (evaluated, never run); a setup.py that stops on ROCm
  (:func:`vado.rules.bld_setup_stops.toolkit_stops`) says nothing of its sources. A top-level setup.py is the
  project's ROCm build over a CMake HIP file deeper in the tree (a directory's build for its developers).

Nothing here runs project code: files are read (C-family files whole, up to the walk's size
limit), never built; a file that cannot be read is a typed :class:`~vado.model.Skip` and counts
as the project's. The cost is linear in the bytes read plus the include edges.

Layout: :mod:`.model` (what the scope says: :class:`Scope`, :class:`FileScope`, :class:`HipBuild`,
:class:`ProjectScope`; the file kinds read), :mod:`.c_files` (reading a C-family file's directives: its
includes and the conditions around them, whether it uses CUDA, whether it maps CUDA names to HIP; resolving
include names to planned files), :mod:`.cmake_hip` (the HIP build of a project's CMake files: its switch,
the macros it defines, the sources it compiles as HIP and those only its CUDA build names),
:mod:`.hip_build` (which build is the project's own ROCm build: CMake, a Makefile's HIP switch, a setup.py
that builds for ROCm itself), :mod:`.marks` (marking the files that build compiles, or never compiles, on
the HIP path) and :mod:`.project` (:func:`project_scope`, which reads the tree and puts it together, the
project's own distributions, :func:`amd_defines`).
"""

from __future__ import annotations

from vado.scan.scope.model import FileScope, HipBuild, ProjectScope, Scope
from vado.scan.scope.project import amd_defines, normalized_package, own_packages, project_scope

__all__ = ["FileScope", "HipBuild", "ProjectScope", "Scope", "amd_defines", "normalized_package", "own_packages",
           "project_scope"]
