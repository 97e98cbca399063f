"""What the build-file readers give: :class:`BuildFact` (one CUDA-specific thing with the span a port rewrites),
its :class:`FactKind`, the :class:`BuildFacts` of one file, and the two steps every reader ends with (a fact's
text from its span, one fact per kind and span)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from vado.scan.pydeps import Problem


class FactKind(str, Enum):
    """What a :class:`BuildFact` is."""

    CUDA_LANGUAGE = "cuda-language"  # project(... CUDA) / enable_language(CUDA)
    FIND_CUDA = "find-cuda"  # find_package(CUDA|CUDAToolkit)
    CUDA_ARCH = "cuda-arch"  # CUDA_ARCHITECTURES, CMAKE_CUDA_ARCHITECTURES, TORCH_CUDA_ARCH_LIST
    CUDA_COMMAND = "cuda-command"  # cuda_add_library / cuda_add_executable / cuda_compile …
    CUDA_VARIABLE = "cuda-variable"  # CMAKE_CUDA_FLAGS, CUDA_NVCC_FLAGS, CMAKE_CUDA_COMPILER …
    CUDA_LIBRARY = "cuda-library"  # CUDA::cublas, cublas in target_link_libraries, -lcublas
    NVCC = "nvcc"  # an nvcc invocation or NVCC variable
    NVCC_FLAG = "nvcc-flag"  # -arch=sm_80, -gencode …, --use_fast_math, -Xptxas …
    RDC = "rdc"  # -rdc=true, -dc, -dlink, CUDA_SEPARABLE_COMPILATION ON
    CUDA_PATH = "cuda-path"  # CUDA_PATH / CUDA_HOME / /usr/local/cuda
    CUDA_EXTENSION = "cuda-extension"  # torch CUDAExtension / BuildExtension / cpp_extension.load


@dataclass(frozen=True)
class BuildFact:
    """One CUDA-specific thing in a build file.

    ``start``/``end`` is the span to rewrite (the ``CUDA`` word, the flag and
    its value, the library name); ``text`` is that span's text. ``data`` holds
    the parsed parts (``{"flag": "arch", "sm": ["80"]}``, ``{"library": "cublas"}``).
    ``context`` names the enclosing command (``project``, ``target_link_libraries``,
    a Make variable, ``CUDAExtension``).
    """

    kind: FactKind
    start: int
    end: int
    text: str
    context: str = ""
    data: dict = field(default_factory=dict, hash=False, compare=False)


@dataclass(frozen=True)
class BuildFacts:
    """All facts of one build file."""

    path: str
    facts: tuple[BuildFact, ...] = ()
    problems: tuple[Problem, ...] = ()

    def of(self, *kinds: FactKind) -> list[BuildFact]:
        """Facts of the given kinds, in file order."""
        return [f for f in self.facts if f.kind in kinds]


def with_text(text: str, facts: list[BuildFact]) -> list[BuildFact]:
    """Fill each fact's ``text`` from its span."""
    return [f if f.text else BuildFact(f.kind, f.start, f.end, text[f.start:f.end], f.context, f.data) for f in facts]


def dedupe(facts: list[BuildFact]) -> list[BuildFact]:
    """The facts in file order, one per kind and span."""
    seen = set()
    out = []
    for f in sorted(facts, key=lambda f: (f.start, f.end, f.kind.value)):
        key = (f.kind, f.start, f.end)
        if key not in seen:
            seen.add(key)
            out.append(f)
    return out
