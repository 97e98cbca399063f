"""What kind of file a path is, from its name alone (content checks live in discovery)."""

from __future__ import annotations

import functools
import re
from enum import Enum
from pathlib import PurePosixPath


class FileKind(str, Enum):
    """File kinds vado understands."""

    CUDA_SOURCE = "cuda-source"  # .cu
    CUDA_HEADER = "cuda-header"  # .cuh
    CXX_SOURCE = "cxx-source"  # .c .cc .cpp .cxx .c++
    CXX_HEADER = "cxx-header"  # .h .hh .hpp .hxx .inl .inc .ipp .tcc
    HIP_SOURCE = "hip-source"  # .hip (already ported)
    PYTHON = "python"
    CMAKE = "cmake"  # CMakeLists.txt, *.cmake
    MAKEFILE = "makefile"  # Makefile, GNUmakefile, *.mk, makefile
    SETUP_PY = "setup-py"
    PYPROJECT = "pyproject"
    SETUP_CFG = "setup-cfg"
    REQUIREMENTS = "requirements"  # requirements*.txt, constraints*.txt, *.in
    CONDA_ENV = "conda-env"  # environment*.yml/yaml
    DOCKERFILE = "dockerfile"  # Dockerfile*, Containerfile*, *.dockerfile
    COMPILE_COMMANDS = "compile-commands"
    PTX = "ptx"  # .ptx: hand-written or checked-in PTX assembly (NVIDIA-only device code)
    OTHER = "other"

    @property
    def is_c_family(self) -> bool:
        """Lexed with the C/C++/CUDA lexer."""
        return self in _C_FAMILY

    @property
    def is_build(self) -> bool:
        """A build description (CMake, Make, setup.py, pyproject, setup.cfg)."""
        return self in _BUILD


_C_FAMILY = frozenset(
    {FileKind.CUDA_SOURCE, FileKind.CUDA_HEADER, FileKind.CXX_SOURCE, FileKind.CXX_HEADER, FileKind.HIP_SOURCE}
)
_BUILD = frozenset(
    {FileKind.CMAKE, FileKind.MAKEFILE, FileKind.SETUP_PY, FileKind.PYPROJECT, FileKind.SETUP_CFG}
)

_BY_SUFFIX = {
    ".cu": FileKind.CUDA_SOURCE,
    ".cuh": FileKind.CUDA_HEADER,
    ".hip": FileKind.HIP_SOURCE,
    ".c": FileKind.CXX_SOURCE,
    ".cc": FileKind.CXX_SOURCE,
    ".cpp": FileKind.CXX_SOURCE,
    ".cxx": FileKind.CXX_SOURCE,
    ".c++": FileKind.CXX_SOURCE,
    ".cp": FileKind.CXX_SOURCE,
    ".h": FileKind.CXX_HEADER,
    ".hh": FileKind.CXX_HEADER,
    ".hpp": FileKind.CXX_HEADER,
    ".hxx": FileKind.CXX_HEADER,
    ".h++": FileKind.CXX_HEADER,
    ".inl": FileKind.CXX_HEADER,
    ".inc": FileKind.CXX_HEADER,
    ".ipp": FileKind.CXX_HEADER,
    ".tcc": FileKind.CXX_HEADER,
    ".py": FileKind.PYTHON,
    ".pyx": FileKind.PYTHON,
    ".cmake": FileKind.CMAKE,
    ".mk": FileKind.MAKEFILE,
    ".mak": FileKind.MAKEFILE,
    ".dockerfile": FileKind.DOCKERFILE,
    ".containerfile": FileKind.DOCKERFILE,
    ".ptx": FileKind.PTX,
}

_BY_NAME = {
    "cmakelists.txt": FileKind.CMAKE,
    "makefile": FileKind.MAKEFILE,
    "gnumakefile": FileKind.MAKEFILE,
    "setup.py": FileKind.SETUP_PY,
    "pyproject.toml": FileKind.PYPROJECT,
    "setup.cfg": FileKind.SETUP_CFG,
    "compile_commands.json": FileKind.COMPILE_COMMANDS,
    "pipfile": FileKind.REQUIREMENTS,
}

# TensorFlow, XLA and others name CUDA sources ``*.cu.cc`` / ``*.cu.cpp`` and CUDA
# headers ``*.cu.h``: the inner ``.cu`` wins over the C++ suffix.
_CUDA_DOUBLE = re.compile(r"\.cu\.(?:cc|cpp|cxx|c)$")
_CUDA_HEADER_DOUBLE = re.compile(r"\.cu\.(?:h|hh|hpp|hxx|inc|inl)$")

_REQUIREMENTS = re.compile(r"^(?:.*[-_.])?(?:requirements|constraints|reqs)(?:[-_.].*)?\.(?:txt|in|pip)$")
_CONDA = re.compile(r"^(?:environment|conda|env)(?:[-_.].*)?\.ya?ml$")
_DOCKERFILE = re.compile(r"^(?:dockerfile|containerfile)(?:[-_.].*)?$")
_MAKEFILE = re.compile(r"^(?:makefile|gnumakefile)(?:[-_.].*)?$")


def classify(path: str | PurePosixPath) -> FileKind:
    """The kind of ``path`` judged by its name (case-insensitive)."""
    if isinstance(path, str):
        return _classify_str(path)
    return _kind_of(PurePosixPath(path))


@functools.lru_cache(maxsize=16384)  # a tree repeats its names (main.cu, Makefile, kernel.h)
def _classify_str(path: str) -> FileKind:
    return _kind_of(PurePosixPath(path))


def _kind_of(p: PurePosixPath) -> FileKind:
    name = p.name.lower()
    kind = _BY_NAME.get(name)
    if kind is not None:
        return kind
    if _DOCKERFILE.match(name):
        return FileKind.DOCKERFILE
    if _MAKEFILE.match(name):
        return FileKind.MAKEFILE
    if _REQUIREMENTS.match(name):
        return FileKind.REQUIREMENTS
    if _CONDA.match(name):
        return FileKind.CONDA_ENV
    if _CUDA_DOUBLE.search(name):
        return FileKind.CUDA_SOURCE
    if _CUDA_HEADER_DOUBLE.search(name):
        return FileKind.CUDA_HEADER
    suffix = p.suffix.lower()
    return _BY_SUFFIX.get(suffix, FileKind.OTHER)
