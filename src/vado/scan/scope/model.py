"""What the project scope says of each file (:class:`Scope`, :class:`FileScope`), of the project's own ROCm
build (:class:`HipBuild`) and of the whole tree (:class:`ProjectScope`); the file kinds the scope reads and two
small helpers its readers share."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import Enum
from typing import Iterable, Mapping

from vado.model import Skip
from vado.scan.classify import FileKind


class Scope(str, Enum):
    """What a file is to a CUDA port."""

    PROJECT = "project"
    VENDORED = "vendored"
    BACKEND = "other-backend"
    HIP_PATH = "own-hip-path"


@dataclass(frozen=True)
class FileScope:
    """One file's scope: ``why`` says what decided it; ``backend`` names the backend of a
    ``BACKEND`` file; ``mixed`` the other backend a ``PROJECT`` file also uses."""

    path: str
    scope: Scope
    why: str = ""
    backend: str = ""
    mixed: str = ""
    #: A ``HIP_PATH`` file the project's own ROCm build does not compile (its CUDA-only sources and what only
    #: they include): left as is like the rest of that path, but none of its code runs on AMD.
    not_for_amd: bool = False


@dataclass(frozen=True)
class HipBuild:
    """The project's own build for AMD GPUs, as its build files say.

    ``how`` is the command that turns it on (``cmake -DGGML_HIP=ON -DGPU_TARGETS=gfx942``);
    ``switch`` the option or variable that does (``GGML_HIP``; empty when the build always
    compiles for HIP); ``defines`` the macros that configuration defines (``GGML_USE_HIP``),
    from the build files' definitions whose conditions hold with the options' defaults and the
    switch on; ``undecided`` the definitions whose conditions vado could not evaluate.
    ``vendor_headers`` are the project's headers that map CUDA names to HIP, ``hip_sources``
    its ``.hip`` files, ``hip_language`` the CUDA sources its CMake build compiles as HIP
    (``set_source_files_properties(… PROPERTIES LANGUAGE HIP)``: one source for both builds),
    ``cuda_only`` the CUDA sources the same CMake files name that the HIP build does not compile
    (a CUDA-only branch's sources); ``hipify_step`` where its AMD configuration runs a hipify tool over
    its CUDA sources (faiss: ``execute_process(COMMAND …/faiss/gpu/hipify.sh)`` under ``FAISS_ENABLE_ROCM``):
    those sources stay CUDA-spelled by design; ``evidence`` says where each fact was read.
    """

    how: str
    switch: str = ""
    defines: tuple[str, ...] = ()
    undecided: tuple[str, ...] = ()
    vendor_headers: tuple[str, ...] = ()
    hip_sources: tuple[str, ...] = ()
    evidence: tuple[str, ...] = ()
    hip_language: tuple[str, ...] = ()
    cuda_only: tuple[str, ...] = ()
    hipify_step: tuple[str, ...] = ()
    #: A PyTorch extension whose setup.py builds for ROCm itself (``IS_HIP_EXTENSION``, ``torch.version.hip``):
    #: the sources its ROCm build compiles, as :func:`vado.build.torch_setup.derive` reads them (read, not run).
    #: PyTorch hipifies them at build time, so they stay the project's to port (in ``USE_ROCM`` branches);
    #: ``cuda_only`` then holds the sources only its CUDA extensions compile (flash-attention's CUTLASS kernels
    #: beside the CK ones its ROCm build compiles).
    rocm_sources: tuple[str, ...] = ()
    #: Per ROCm-aware setup.py of :attr:`rocm_sources`: ``(path, flags)``, every compiler flag its ROCm extensions
    #: get (``cxx`` and ``nvcc``), as derived: a flag a setup.py writes elsewhere never reaches hipcc.
    rocm_setups: tuple[tuple[str, tuple[str, ...]], ...] = ()

    @property
    def torch_rocm(self) -> bool:
        """Whether this is a PyTorch extension's own ROCm build, derived from its setup.py (:attr:`rocm_sources`)."""
        return bool(self.rocm_sources)

    @property
    def complete(self) -> bool:
        """A build switch and a HIP path it compiles (a vendor header, ``.hip`` sources, CUDA sources it
        compiles as HIP, or a hipify step it runs over its CUDA sources, where a switch makes HIP one
        configuration among others)."""
        return bool(self.how) and bool(self.vendor_headers or self.hip_sources
                                       or ((self.hip_language or self.hipify_step) and self.switch))


@dataclass(frozen=True)
class ProjectScope:
    """Every planned file's :class:`FileScope`, the vendored directories the walk left out, and
    the project's own :class:`HipBuild` (None when it has none)."""

    root: str
    files: Mapping[str, FileScope] = field(default_factory=dict)
    vendored: tuple[Skip, ...] = ()
    hip: HipBuild | None = None
    skips: tuple[Skip, ...] = ()
    #: The Python distributions the tree's own setup.py/pyproject.toml files declare (``name=``), normalised:
    #: a requirement on one of them is on the project itself (detectron2's projects/DensePose needs detectron2).
    packages: tuple[str, ...] = ()

    def of(self, path: str) -> FileScope:
        """The scope of ``path`` (the project's for a path this scope does not know)."""
        return self.files.get(path) or FileScope(path, Scope.PROJECT)

    def left_out(self, *, include_backends: bool = False, include_hip_path: bool = False) -> dict[str, FileScope]:
        """The planned files a port leaves as they are, by path."""
        out = {}
        for path, fs in self.files.items():
            if fs.scope is Scope.BACKEND and not include_backends:
                out[path] = fs
            elif fs.scope is Scope.HIP_PATH and not include_hip_path:
                out[path] = fs
        return out

    def backends(self) -> dict[str, int]:
        """Backend label → number of files."""
        counts: dict[str, int] = {}
        for fs in self.files.values():
            if fs.scope is Scope.BACKEND:
                counts[fs.backend] = counts.get(fs.backend, 0) + 1
        return dict(sorted(counts.items()))

    def own_rocm_build(self) -> str:
        """``how`` of a complete own HIP build, else ``""``."""
        return self.hip.how if self.hip is not None and self.hip.complete else ""


#: The kinds the scope reads: C-family files (their directives), the CUDA ones among them, and build files.
C_KINDS = frozenset({FileKind.CUDA_SOURCE, FileKind.CUDA_HEADER, FileKind.CXX_SOURCE, FileKind.CXX_HEADER,
                     FileKind.HIP_SOURCE})
CUDA_KINDS = frozenset({FileKind.CUDA_SOURCE, FileKind.CUDA_HEADER})
BUILD_KINDS = frozenset({FileKind.CMAKE, FileKind.MAKEFILE, FileKind.SETUP_PY, FileKind.PYPROJECT, FileKind.SETUP_CFG})


#: What separates the words of a directory name (``ggml-sycl``, ``hip_decoder``): a backend's word names a backend's
#: directory, ``hip``/``rocm`` a directory of the project's HIP build.
DIR_WORD = re.compile(r"[-_.]+")


def unique(items: Iterable[str]) -> tuple[str, ...]:
    """``items`` without repeats, in the order first seen."""
    seen: dict[str, None] = {}
    for i in items:
        seen.setdefault(i, None)
    return tuple(seen)
