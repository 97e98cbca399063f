"""Reading C-family files for the project scope: one pass over a file's preprocessor directives gives its
includes (with the ``#ifdef X`` groups around each), the macros it defines, whether it uses CUDA or includes
HIP's headers, and whether it is a header that maps CUDA names to HIP or MUSA; :class:`Includes` resolves an
include name to the planned file it names."""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from typing import Iterable

from vado.model import Skip, SkipReason
from vado.scan.classify import FileKind
from vado.scan.computed_includes import continued, parse_computed, parse_path_macro
from vado.scan.scope.model import CUDA_KINDS


_DIRECTIVE = re.compile(rb"^[ \t]*#[ \t]*(if|ifdef|ifndef|elif|else|endif|include|define|error)\b([^\r\n]*)", re.MULTILINE)
_INCLUDE_ARG = re.compile(rb'^[ \t]*([<"])([^>"\r\n]+)[>"]')
_DEFINE_MAP = re.compile(rb"^[ \t]+(\w+)(?:\([^)]*\))?[ \t]+(\w+)")
#: Included names that mean CUDA.
_CUDA_INCLUDE = re.compile(r"(?:cuda[\w./]*|cu(?:blas|blasLt|fft|rand|sparse|solver|dnn|tensor|file)\w*\.h"
                           r"|nccl\.h|nvrtc\.h|cub/|thrust/|cooperative_groups|mma\.h|nvToolsExt|nvtx3/)")
#: CUDA in the code itself (each searched only where a cheap substring test found its start).
_CUDA_CALL = re.compile(rb"\bcuda[A-Z]\w*[ \t]*\(")
_CUDA_SHFL = re.compile(rb"\b__shfl_\w*sync\b")
_CUDA_NAME = re.compile(rb"(?:cuda|cu[A-Z]|CU[A-Z_]|CUDA|cublas|CUBLAS|cufft|CUFFT|curand|CURAND|cusparse|CUSPARSE"
                        rb"|cusolver|CUSOLVER|cudnn|CUDNN|nccl|NCCL)")
_HIP_NAME = re.compile(rb"(?:hip|HIP|roc|ROC|rccl|RCCL)")
#: Included names that mean HIP: the runtime and ROCm's libraries (the project writes HIP itself).
HIP_INCLUDE = re.compile(r"(?:hip/|hip_runtime|(?:hipblas|hipblaslt|hipsparse|hipsparselt|hipfft|hiprand|hipsolver"
                         r"|hipcub|hiptensor|rocprim|rocblas|rocrand|rocsparse|rocsolver|rocfft|rocthrust|rocwmma"
                         r"|rccl|miopen)[/._]|ck_tile/|ck/(?:ck\.hpp|utility/|tensor_operation/|library/|host_utility/))")
_MUSA_NAME = re.compile(rb"(?:musa|MUSA|mu[A-Z]|mublas|MUBLAS|mccl|MCCL)")
#: Mapping lines a header needs to be a vendor header (``#define cudaX hipX`` …).
_VENDOR_MIN = 8


@dataclass
class CFile:
    """What the scope reads of one C-family file (:func:`read_c`)."""

    path: str
    kind: FileKind
    includes: list[tuple[str, bool, bool]]  # (name, quoted, at the top level)
    cuda: bool
    maps_to: str  # "hip", "musa" or ""
    hip: bool = False  # includes a HIP header (<hip/hip_runtime.h>, <hipblas/hipblas.h>, <rocprim/...>)
    #: Per include (same order): what the enclosing ``#ifdef X``/``#ifndef X``/``#if [!]defined(X)`` groups ask,
    #: ``(X, defined?)`` each; groups of other conditions (and include guards) ask nothing read here.
    include_conds: list[tuple[tuple[str, bool], ...]] = field(default_factory=list)
    #: The macros the file ``#define``s anywhere.
    defines: frozenset[str] = frozenset()
    #: ``#include MACRO(args)`` operands and ``#define NAME(params) <path>`` macros (:mod:`vado.scan.computed_includes`).
    computed: tuple = ()
    path_macros: tuple = ()
    #: The macros without which the file stops: an ``#error`` directly in a top-level ``#ifndef X`` / ``#if
    #: !defined(X)`` group (kokkos 28848df Kokkos_Setup_Cuda.hpp: ``#if !defined(KOKKOS_ENABLE_CUDA) #error``).
    requires: frozenset[str] = frozenset()
    #: Whether the file tests CUDA's compiler macros (``__NVCC__``, ``__CUDACC__``, ``__CUDA_ARCH__``,
    #: ``CUDA_VERSION``, ``__CUDACC_VER_*``): compiler detection, which a file without CUDA may hold.
    cuda_macros: bool = False


def read_c(path: str, abs_path: str, kind: FileKind, limit: int) -> CFile | Skip:
    """Read the file at ``abs_path`` (planned as ``path``) up to ``limit`` bytes: its :class:`CFile`, or a typed
    skip where it cannot be read or is larger."""
    from vado.scan.discover import read_regular

    try:
        data = read_regular(abs_path, limit + 1)
    except OSError as exc:
        return Skip(path, SkipReason.UNREADABLE, f"not classified: {exc.strerror or exc}")
    if len(data) > limit:
        return Skip(path, SkipReason.TOO_LARGE, f"not classified: more than {limit} bytes")
    includes: list[tuple[str, bool, bool]] = []
    conds: list[tuple[tuple[str, bool], ...]] = []
    frames: list[tuple[str, bool] | None] = []  # what each open group asks (None: nothing read here)
    defined: set[str] = set()
    depth = 0
    guard = b""  # the name of a leading "#ifndef X": an include guard when "#define X" follows
    guard_depth = 0
    to: dict[str, int] = {"hip": 0, "musa": 0}
    computed: list = []
    path_macros: list = []
    requires: set[str] = set()
    for n, m in enumerate(_DIRECTIVE.finditer(data)):
        word, rest = m.group(1), m.group(2)
        if word in (b"if", b"ifdef", b"ifndef"):
            if n == 0 and word == b"ifndef":
                guard = rest.strip()
            depth += 1
            frames.append(_simple_condition(word, rest))
        elif word == b"elif" and frames:
            frames[-1] = None
        elif word == b"else" and frames:
            frames[-1] = None if frames[-1] is None else (frames[-1][0], not frames[-1][1])
        elif word == b"endif":
            depth = max(0, depth - 1)
            if frames:
                frames.pop()
        elif word == b"define":
            full = continued(rest, data, m.end()) if rest.rstrip().endswith(b"\\") else rest
            if b"<" in full or b'"' in full:
                pm = parse_path_macro(full)
                if pm is not None:
                    path_macros.append(pm)
            name = rest.strip().split(b"(")[0].split()[0] if rest.strip() else b""
            if name:
                defined.add(name.decode("latin-1"))
            if n == 1 and guard and rest.strip().split(b" ")[0] == guard:
                guard_depth = 1
                if frames:
                    frames[0] = None  # the include guard asks nothing of the build
            mm = _DEFINE_MAP.match(rest)
            if mm and _CUDA_NAME.match(mm.group(1)):
                if _HIP_NAME.match(mm.group(2)):
                    to["hip"] += 1
                elif _MUSA_NAME.match(mm.group(2)):
                    to["musa"] += 1
        elif word == b"error":
            top = [f for f in frames[guard_depth:]] if guard_depth <= len(frames) else []
            if len(top) == 1 and top[0] is not None and not top[0][1]:
                requires.add(top[0][0])
        elif word == b"include":
            mi = _INCLUDE_ARG.match(rest)
            if mi:
                includes.append((mi.group(2).decode("latin-1").strip(), mi.group(1) == b'"', depth <= guard_depth))
                conds.append(tuple(f for f in frames if f is not None))
            else:
                pc = parse_computed(rest)
                if pc is not None:
                    computed.append(pc)
    maps_to = ""
    best = max(to, key=lambda k: to[k])
    if to[best] >= _VENDOR_MIN and to[best] >= 2 * min(to.values()):
        maps_to = best
    hip = any(HIP_INCLUDE.match(name) for name, _, _ in includes)
    return CFile(path, kind, includes, kind in CUDA_KINDS or _uses_cuda(data, includes), maps_to, hip, conds,
                 frozenset(defined), tuple(computed), tuple(path_macros), frozenset(requires),
                 b"CUDA" in data and _CUDA_MACRO.search(data) is not None)


_DEFINED_TEST = re.compile(rb"^\s*(!?)\s*defined\s*(?:\(\s*(\w+)\s*\)|\s(\w+))\s*(?://.*|/\*.*\*/)?\s*$")


def _simple_condition(word: bytes, rest: bytes) -> tuple[str, bool] | None:
    """``(X, True)`` for ``#ifdef X`` / ``#if defined(X)``, ``(X, False)`` for ``#ifndef X`` / ``#if !defined(X)``;
    None for any other condition."""
    if word in (b"ifdef", b"ifndef"):
        parts = rest.split()
        return (parts[0].decode("latin-1"), word == b"ifdef") if parts and re.fullmatch(rb"\w+", parts[0]) else None
    m = _DEFINED_TEST.match(rest)
    if not m:
        return None
    return (m.group(2) or m.group(3)).decode("latin-1"), not m.group(1)


_CUDA_MACRO = re.compile(rb"\b(?:__NVCC__|__CUDACC__|__CUDACC_VER_\w+|__CUDA_ARCH__|CUDA_VERSION)\b")


def _uses_cuda(data: bytes, includes: list[tuple[str, bool, bool]]) -> bool:
    """Whether a C/C++ file uses CUDA: a CUDA header, a kernel, a launch, a runtime call, a warp shuffle."""
    if any(_CUDA_INCLUDE.match(name) for name, _, _ in includes):
        return True
    if b"__global__" in data or b"<<<" in data:
        return True
    if b"cuda" in data and _CUDA_CALL.search(data):
        return True
    return b"__shfl_" in data and _CUDA_SHFL.search(data) is not None


class Includes:
    """Resolves ``#include`` names to the planned files they name."""

    def __init__(self, paths: Iterable[str]) -> None:
        self.paths = set(paths)
        self.by_name: dict[str, list[str]] = {}
        for p in self.paths:
            self.by_name.setdefault(posixpath.basename(p), []).append(p)

    def resolve(self, src: str, name: str, quoted: bool) -> str | None:
        if name.startswith("/") or "\\" in name:
            return None
        if quoted:
            here = posixpath.normpath(posixpath.join(posixpath.dirname(src), name))
            if here in self.paths:
                return here
        elif "." not in posixpath.basename(name):
            return None  # <vector>, <cuda/std/atomic>: the toolchain's
        direct = posixpath.normpath(name)
        if direct in self.paths:
            return direct
        found = [p for p in self.by_name.get(posixpath.basename(name), ()) if p.endswith("/" + direct)]
        return found[0] if len(found) == 1 else None
