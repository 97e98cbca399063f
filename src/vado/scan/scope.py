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
"""

from __future__ import annotations

import dataclasses
import os
import posixpath
import re
from collections import deque
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Iterable, Mapping

from vado.model import Skip, SkipReason
from vado.scan.classify import FileKind
from vado.scan.computed_includes import (computed_alternatives, continued, cuda_directories, parse_computed,
                                        parse_path_macro)

__all__ = ["FileScope", "HipBuild", "ProjectScope", "Scope", "amd_defines", "project_scope"]


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


# --- reading C-family files ---------------------------------------------------------

_C_KINDS = frozenset({FileKind.CUDA_SOURCE, FileKind.CUDA_HEADER, FileKind.CXX_SOURCE, FileKind.CXX_HEADER,
                      FileKind.HIP_SOURCE})
_CUDA_KINDS = frozenset({FileKind.CUDA_SOURCE, FileKind.CUDA_HEADER})
_BUILD_KINDS = frozenset({FileKind.CMAKE, FileKind.MAKEFILE, FileKind.SETUP_PY, FileKind.PYPROJECT, FileKind.SETUP_CFG})

_DIRECTIVE = re.compile(rb"^[ \t]*#[ \t]*(if|ifdef|ifndef|elif|else|endif|include|define)\b([^\r\n]*)", re.MULTILINE)
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
_HIP_INCLUDE = re.compile(r"(?:hip/|hip_runtime|(?:hipblas|hipblaslt|hipsparse|hipsparselt|hipfft|hiprand|hipsolver"
                          r"|hipcub|hiptensor|rocprim|rocblas|rocrand|rocsparse|rocsolver|rocfft|rocthrust|rocwmma"
                          r"|rccl|miopen)[/._]|ck_tile/|ck/(?:ck\.hpp|utility/|tensor_operation/|library/|host_utility/))")
_MUSA_NAME = re.compile(rb"(?:musa|MUSA|mu[A-Z]|mublas|MUBLAS|mccl|MCCL)")
#: Mapping lines a header needs to be a vendor header (``#define cudaX hipX`` …).
_VENDOR_MIN = 8


@dataclass
class _CFile:
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


def _read_c(path: str, abs_path: str, kind: FileKind, limit: int) -> _CFile | Skip:
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
    hip = any(_HIP_INCLUDE.match(name) for name, _, _ in includes)
    return _CFile(path, kind, includes, kind in _CUDA_KINDS or _uses_cuda(data, includes), maps_to, hip, conds,
                  frozenset(defined), tuple(computed), tuple(path_macros))


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


def _uses_cuda(data: bytes, includes: list[tuple[str, bool, bool]]) -> bool:
    """Whether a C/C++ file uses CUDA: a CUDA header, a kernel, a launch, a runtime call, a warp shuffle."""
    if any(_CUDA_INCLUDE.match(name) for name, _, _ in includes):
        return True
    if b"__global__" in data or b"<<<" in data:
        return True
    if b"cuda" in data and _CUDA_CALL.search(data):
        return True
    return b"__shfl_" in data and _CUDA_SHFL.search(data) is not None


class _Includes:
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


# --- backends -----------------------------------------------------------------------

_DIR_WORD = re.compile(r"[-_.]+")


def _dir_backend(path: str, words: Mapping[str, object]):
    """The backend whose word names a directory above ``path`` (the nearest), with that directory."""
    parts = path.split("/")[:-1]
    for i in range(len(parts) - 1, -1, -1):
        for word in _DIR_WORD.split(parts[i].lower()):
            if word in words:
                return words[word], "/".join(parts[: i + 1])
    return None, ""


_BUILD_CUDA = re.compile(r"\bCUDA\b|\.cu\b|\bnvcc\b|CUDAToolkit", re.IGNORECASE)


# --- the project's own HIP build ------------------------------------------------------

_SWITCH_LAST = frozenset({"HIP", "ROCM", "HIPBLAS", "AMD", "AMDGPU"})
_ARCH_VARS = ("GPU_TARGETS", "AMDGPU_TARGETS", "CMAKE_HIP_ARCHITECTURES")
_TRUE = frozenset({"ON", "YES", "TRUE", "Y", "1"})
_FALSE = frozenset({"OFF", "NO", "FALSE", "N", "0", "", "IGNORE", "NOTFOUND"})
#: Platform variables CMake sets, for the Linux hosts a ROCm build runs on.
_PLATFORM = {"LINUX": True, "UNIX": True, "WIN32": False, "APPLE": False, "MSVC": False, "MINGW": False,
             "CYGWIN": False, "IOS": False, "ANDROID": False, "EMSCRIPTEN": False}
_HIP_CMAKE_SIGN = re.compile(r"\benable_language\s*\(\s*HIP\b|\bfind_package\s*\(\s*hip\b|\bproject\s*\([^)]*\bHIP\b",
                             re.IGNORECASE)


def _is_switch(name: str) -> bool:
    parts = name.upper().split("_")
    return parts[-1] in _SWITCH_LAST or (len(parts) >= 2 and parts[0] in ("USE", "WITH", "ENABLE", "BUILD")
                                         and parts[1] in _SWITCH_LAST)


def _cond(args: list[str], values: Mapping[str, bool]) -> bool | None:
    """An ``if()`` condition of plain names, ``NOT``, ``AND``, ``OR`` and ``DEFINED``, or None."""
    words = [a.strip() for a in args]
    if not words or any(w in ("(", ")") or " " in w for w in words):
        return None

    def atom(i: int) -> tuple[bool | None, int]:
        if i >= len(words):
            return None, i
        w = words[i]
        if w.upper() == "NOT":
            v, j = atom(i + 1)
            return (None if v is None else not v), j
        if w.upper() == "DEFINED" and i + 1 < len(words):
            name = words[i + 1].strip("${}")
            return (True if name in values else None), i + 2
        name = w[2:-1] if w.startswith("${") and w.endswith("}") else w
        if name.upper() in _TRUE:
            return True, i + 1
        if name.upper() in _FALSE:
            return False, i + 1
        if name in values:
            return values[name], i + 1
        if name in _PLATFORM:
            return _PLATFORM[name], i + 1
        return None, i + 1

    value, i = atom(0)
    while i < len(words):
        op = words[i].upper()
        if op not in ("AND", "OR"):
            return None
        rhs, i = atom(i + 1)
        if op == "AND":
            value = False if value is False or rhs is False else (None if value is None or rhs is None else True)
        else:
            value = True if value is True or rhs is True else (None if value is None or rhs is None else False)
    return value


@dataclass
class _Branch:
    """The open branch of one ``if()``: whether it holds in the configuration (None: undecided), whether an
    earlier branch of the same ``if()`` held, and the command that opened it with its arguments."""

    holds: bool | None
    held: bool
    opened_by: str  # "if", "elseif" or "else"
    args: tuple[str, ...]

    @property
    def text(self) -> str:
        """The branch's condition as written (``NOT (…)`` of the last condition for an ``else()``)."""
        cond = " ".join(self.args)
        return f"NOT ({cond})" if self.opened_by == "else" else cond


def _branches(cmds, values: Mapping[str, bool]):
    """Each command of a CMake file with the branches open around it, ``(command, [_Branch, …])``, the
    conditions evaluated with ``values`` (:func:`_cond`); an ``if()``/``elseif()``/``else()`` is given with
    the branch it opens, an ``endif()`` after its ``if()`` is closed. The list is the same object throughout:
    read it before the next step."""
    stack: list[_Branch] = []
    for c in cmds:
        name = c.lname
        if name == "if":
            args = tuple(a.text for a in c.args)
            v = _cond(list(args), values)
            stack.append(_Branch(v, v is True, "if", args))
        elif name == "elseif" and stack:
            args = tuple(a.text for a in c.args)
            v = _cond(list(args), values)
            b = stack[-1]
            b.holds = False if b.held else v
            b.held = b.held or v is True
            b.opened_by, b.args = "elseif", args
        elif name == "else" and stack:
            b = stack[-1]
            b.holds = False if b.held else (None if b.holds is None else not b.holds)
            b.opened_by = "else"
        elif name == "endif" and stack:
            stack.pop()
        yield c, stack


def _hip_string_test(args: list[str]) -> tuple[str, str] | None:
    """``(VAR, value)`` for an ``if()`` that compares a variable with a HIP/ROCm value (``${COMPUTE_BACKEND}
    STREQUAL "hip"``), else None."""
    if len(args) != 3 or args[1].upper() != "STREQUAL":
        return None
    name, value = args[0], args[2]
    if value.startswith("${"):
        name, value = value, name
    name = name[2:-1] if name.startswith("${") and name.endswith("}") else name
    if not re.fullmatch(r"\w+", name) or value.lower() not in ("hip", "rocm", "amd"):
        return None
    return name, value


def _definitions(cmd) -> list[str]:
    """The macros a CMake command defines (``add_compile_definitions``, ``add_definitions(-DX)``,
    ``target_compile_definitions(t PUBLIC X)``)."""
    name = cmd.lname
    args = [a.text for a in cmd.args]
    if name == "add_compile_definitions":
        return [a for a in args if a and not a.startswith("$")]
    if name == "add_definitions":
        return [a[2:] for a in args if a.startswith(("-D", "/D")) and len(a) > 2]
    if name == "target_compile_definitions" and len(args) > 1:
        return [a for a in args[1:] if a and a not in ("PUBLIC", "PRIVATE", "INTERFACE") and not a.startswith("$")]
    return []


_CMAKE_VAR = re.compile(r"\$\{(\w+)\}")
#: Variables that stand for the directory of the CMake file that reads them, or for the project's root.
_CMAKE_HERE = ("${CMAKE_CURRENT_SOURCE_DIR}/", "${CMAKE_CURRENT_LIST_DIR}/")
_CMAKE_TOP = ("${CMAKE_SOURCE_DIR}/", "${PROJECT_SOURCE_DIR}/")
_CUDA_SOURCE_EXT = (".cu",)


def _cmake_sources(path: str, cmds, files: frozenset[str],
                   values_on: Mapping[str, bool] | None = None) -> tuple[list[str], list[str], list[str]]:
    """The planned files one CMake file gives ``LANGUAGE HIP`` (``set_source_files_properties``), every
    planned ``.cu`` file it names, those it names only where an enclosing ``if()`` is false in the
    AMD configuration (``values_on``: the options and switch values that configuration sets), and those
    that configuration takes out of a list (``list(REMOVE_ITEM V …)`` in a branch it takes), each in the
    order read.

    Variables are followed in the file's order, ignoring its conditionals: ``set(V …)`` replaces,
    ``list(APPEND|PREPEND V …)`` adds, ``list(REMOVE_ITEM V …)`` removes, ``file(GLOB V pattern …)`` matches the planned files of one
    directory; a name is relative to the file's directory (``${CMAKE_CURRENT_SOURCE_DIR}/``) or the
    root (``${CMAKE_SOURCE_DIR}/``, ``${PROJECT_SOURCE_DIR}/``). Anything else (a generator expression,
    an unknown variable) names nothing."""
    import fnmatch

    base = posixpath.dirname(path)
    values: dict[str, list[str]] = {}

    def expand(args: list[str]) -> list[str]:
        out: list[str] = []
        for a in args:
            m = _CMAKE_VAR.fullmatch(a)
            if m:
                out.extend(values.get(m.group(1), ()))
            else:
                out.extend(x for x in a.split(";") if x)
        return out

    def resolve(name: str) -> str | None:
        for pre in _CMAKE_HERE:
            if name.startswith(pre):
                name = name[len(pre):]
                break
        else:
            for pre in _CMAKE_TOP:
                if name.startswith(pre):
                    got = posixpath.normpath(name[len(pre):])
                    return got if got in files else None
        if "$" in name or name.startswith("/"):
            return None
        got = posixpath.normpath(posixpath.join(base, name))
        return got if got in files else None

    hip: list[str] = []
    named: list[str] = []
    off: list[str] = []
    removed: list[str] = []
    for c, stack in _branches(cmds, dict(values_on or {})):
        args = [a.text for a in c.args]
        dead = any(b.holds is False for b in stack)
        if dead and c.lname in ("set", "list", "file"):
            # What a branch the AMD configuration does not take would assign does not happen there.
            for a in expand(args):
                r = resolve(a) if a.endswith(_CUDA_SOURCE_EXT) else None
                if r is not None:
                    off.append(r)
            continue
        if c.lname == "set" and args:
            values[args[0]] = [a for a in expand(args[1:]) if a not in ("CACHE", "PARENT_SCOPE")]
        elif c.lname == "list" and len(args) >= 2 and args[0].upper() in ("APPEND", "PREPEND"):
            values.setdefault(args[1], []).extend(expand(args[2:]))
        elif c.lname == "list" and len(args) >= 2 and args[0].upper() == "REMOVE_ITEM":
            # The AMD configuration takes these sources out of the list (CTranslate2 0d8bcd3: its WITH_HIP branch
            # removes the AWQ kernels from CUDA_SOURCES before giving the rest LANGUAGE HIP): not compiled there.
            gone = set(expand(args[2:]))
            values[args[1]] = [a for a in values.get(args[1], ()) if a not in gone]
            for a in gone:
                r = resolve(a) if a.endswith(_CUDA_SOURCE_EXT) else None
                if r is not None:
                    removed.append(r)
            continue
        elif c.lname == "file" and len(args) >= 2 and args[0].upper() == "GLOB" and "RELATIVE" not in args:
            found = []
            for pat in expand(args[2:]):
                if pat in ("CONFIGURE_DEPENDS", "LIST_DIRECTORIES") or pat.upper() in _TRUE | _FALSE:
                    continue
                for pre in _CMAKE_HERE:
                    pat = pat[len(pre):] if pat.startswith(pre) else pat
                if "$" in pat:
                    continue
                pat = posixpath.normpath(posixpath.join(base, pat))
                home = posixpath.dirname(pat)
                found.extend(sorted(f for f in files if posixpath.dirname(f) == home and fnmatch.fnmatchcase(f, pat)))
            values[args[1]] = found
        elif c.lname == "set_source_files_properties" and "PROPERTIES" in args:
            k = args.index("PROPERTIES")
            props = args[k + 1:]
            if any(props[j].upper() == "LANGUAGE" and props[j + 1].upper() == "HIP" for j in range(len(props) - 1)):
                hip.extend(r for r in map(resolve, expand(args[:k])) if r is not None)
        for a in expand(args):
            r = resolve(a) if a.endswith(_CUDA_SOURCE_EXT) else None
            if r is not None:
                (off if dead else named).append(r)
    return hip, named, off, removed


def _cmake_hip(texts: Mapping[str, str], hip_dirs: set[str], arches: str,
               files: frozenset[str] = frozenset()) -> HipBuild | None:
    """The HIP build of a project's CMake files (path → text), or None; ``files``: the planned paths, for
    the sources the HIP build compiles."""
    from vado.scan.buildfiles import cmake_commands

    options: dict[str, bool] = {}
    evidence: list[str] = []
    parsed = {}
    for path, text in texts.items():
        cmds, _ = cmake_commands(text)
        parsed[path] = cmds
        for c in cmds:
            if c.lname in ("option", "cmake_dependent_option") and c.args:
                default = c.args[2].text.upper() if len(c.args) > 2 else "OFF"
                options[c.args[0].text] = default in _TRUE
    hip_files = [p for p, t in texts.items() if _HIP_CMAKE_SIGN.search(t) or posixpath.dirname(p) in hip_dirs]
    if not hip_files:
        return None
    # A value switch: a cache string compared with "hip" (COMPUTE_BACKEND=hip), read directly or through a
    # variable set ON in its branch (bitsandbytes: if(COMPUTE_BACKEND STREQUAL "hip") set(BUILD_HIP ON)).
    chosen: dict[str, tuple[str, str]] = {}  # variable set ON in such a branch -> (string variable, value)
    set_off: dict[tuple[str, str], set[str]] = {}  # (string variable, value) -> variables its branch sets OFF
    for path in hip_files:
        stack: list[tuple[str, str] | None] = []
        for c in parsed[path]:
            args = [a.text for a in c.args]
            if c.lname in ("if", "elseif"):
                got = _hip_string_test(args)
                if c.lname == "if":
                    stack.append(got)
                elif stack:
                    stack[-1] = got
            elif c.lname == "else" and stack:
                stack[-1] = None
            elif c.lname == "endif" and stack:
                stack.pop()
            elif c.lname == "set" and len(args) >= 2 and stack and stack[-1]:
                if args[1].upper() in _TRUE:
                    chosen[args[0]] = stack[-1]
                elif args[1].upper() in _FALSE:
                    set_off.setdefault(stack[-1], set()).add(args[0])
            elif c.lname in ("enable_language", "find_package") and stack and stack[-1] and args \
                    and args[0].lower() == "hip":
                chosen[""] = stack[-1]
    # The switch: the if() around a HIP sign, else an option named for HIP (GGML_HIP, USE_ROCM).
    switch = ""
    string_switch: tuple[str, str] | None = chosen.get("")
    for path in hip_files:
        stack: list[str] = []
        for c in parsed[path]:
            if c.lname == "if":
                stack.append(" ".join(a.text for a in c.args))
            elif c.lname == "elseif" and stack:
                stack[-1] = " ".join(a.text for a in c.args)
            elif c.lname == "endif" and stack:
                stack.pop()
            elif c.lname in ("enable_language", "find_package") and c.args and c.args[0].text.lower() == "hip":
                for cond in reversed(stack):
                    name = cond.replace("NOT ", "").strip()
                    if name in options and _is_switch(name) and not cond.startswith("NOT "):
                        switch = name
                        break
                    if name in chosen and not cond.startswith("NOT ") and string_switch is None:
                        string_switch = chosen[name]
                        break
        if switch:
            break
    if not switch and string_switch is None:
        named = sorted((n for n in options if _is_switch(n)), key=lambda n: (options[n], len(n), n))
        switch = named[0] if named else ""
    if switch:
        evidence.append(f"option {switch} (default {'ON' if options.get(switch) else 'OFF'})")
    elif string_switch is not None:
        evidence.append(f"{string_switch[0]}={string_switch[1]} builds with HIP")
    evidence.extend(f"{p}: builds with HIP" for p in sorted(hip_files)[:4])
    values = dict(options)
    if switch:
        values[switch] = True
    elif string_switch is not None:
        switch = string_switch[0]
        # The variables its HIP branch sets ON or OFF hold; nothing else is assumed of the string.
        for name, test in chosen.items():
            if name and test == string_switch:
                values[name] = True
        for name in set_off.get(string_switch, ()):
            values.setdefault(name, False)
    defines: list[str] = []
    undecided: list[str] = []
    for path in sorted(texts):
        hip_file = path in hip_files
        for c, stack in _branches(parsed[path], values):
            found = _definitions(c)
            # In a HIP build file, or in the switch's own branch (its if(), not an elseif()/else()).
            if not found or not (hip_file or any(b.opened_by == "if" and switch != "" and b.args == (switch,)
                                                 for b in stack)):
                continue
            holds = [b.holds for b in stack]
            if all(h is True for h in holds):
                defines.extend(found)
            elif False not in holds:
                undecided.extend(found)
    hipify_step: list[str] = []
    for path in sorted(texts):
        for c, stack in _branches(parsed[path], values):
            # A command the AMD configuration runs that names a hipify tool (hipify-perl, hipify-clang, a
            # project's hipify script): the build converts its CUDA sources when it is configured or built.
            if c.lname in _RUNS and any("hipify" in a.text.lower() for a in c.args) \
                    and all(b.holds is True for b in stack):
                line = texts[path].count("\n", 0, c.start) + 1
                tool = next(a.text for a in c.args if "hipify" in a.text.lower())
                hipify_step.append(f"{path}:{line}: {c.name} runs {tool.replace('${PROJECT_SOURCE_DIR}/', '')}")
    evidence.extend(f"{h} (its CUDA sources are hipified by the build)" for h in hipify_step)
    archvar = next((v for v in _ARCH_VARS if any(re.search(rf"\b{v}\b", t) for t in texts.values())),
                   "CMAKE_HIP_ARCHITECTURES")
    on = f"={string_switch[1]}" if string_switch is not None else "=ON"
    how = "cmake" + (f" -D{switch}{on}" if switch else "") + f" -D{archvar}={arches}"
    hip_language: list[str] = []
    named: list[str] = []
    off: list[str] = []
    removed: list[str] = []
    for path in sorted(texts):
        got, names, dead, gone = _cmake_sources(path, parsed[path], files, values)
        if got:
            evidence.append(f"{path}: compiles {len(set(got))} CUDA sources as HIP (LANGUAGE HIP)")
        hip_language.extend(got)
        named.extend(names)
        off.extend(dead)
        removed.extend(gone)
    # With the HIP build's sources named, a CUDA source the CMake files name only under a condition false in
    # the AMD configuration is one only the CUDA build compiles (bitsandbytes' sm75/sm80 MMA kernels, in the
    # if(BUILD_CUDA) branch alone), and so is one that configuration removes from its lists and compiles as HIP
    # nowhere else.
    cuda_only = sorted((set(off) - set(named) | set(removed)) - set(hip_language)) if hip_language else []
    return HipBuild(how, switch, _unique(defines), tuple(sorted(set(undecided) - set(defines))),
                    evidence=tuple(evidence), hip_language=_unique(hip_language), cuda_only=tuple(cuda_only),
                    hipify_step=tuple(hipify_step))


#: CMake commands that run a program when the project is configured or built.
_RUNS = frozenset({"execute_process", "add_custom_command", "add_custom_target"})

_MAKE_COND = re.compile(r"^\s*(?:ifdef|ifndef|ifeq|ifneq)\b[ \t(]*\$?\(?(\w+)", re.MULTILINE)
_MAKE_HIPCC = re.compile(r"\bhipcc\b|--offload-arch|\bHIP_PLATFORM\b")
_MAKE_TARGET = re.compile(r"^(hip|rocm|amd|hipblas)\s*:", re.MULTILINE | re.IGNORECASE)
_MAKE_DEFINE = re.compile(r"-D(\w+(?:=\w+)?)")


def _make_hip(path: str, text: str) -> HipBuild | None:
    if not _MAKE_HIPCC.search(text):
        return None
    for m in _MAKE_COND.finditer(text):
        if _is_switch(m.group(1)):
            # The block of that conditional, up to its endif: the macros it adds.
            end = text.find("endif", m.end())
            block = text[m.end(): end if end != -1 else len(text)]
            defines = _unique(_MAKE_DEFINE.findall(block))
            return HipBuild(f"make {m.group(1)}=1", m.group(1), defines, evidence=(f"{path}: {m.group(1)} builds with hipcc",))
    t = _MAKE_TARGET.search(text)
    if t:
        return HipBuild(f"make {t.group(1)}", t.group(1), evidence=(f"{path}: target {t.group(1)} builds with hipcc",))
    return None


def _setup_hip(path: str, text: str) -> HipBuild | None:
    if "IS_HIP_EXTENSION" in text or "torch.version.hip" in text:
        # torch.utils.cpp_extension hipifies the CUDA sources and adds -DUSE_ROCM=1 for a ROCm PyTorch.
        # Either spelling is the extension's HIP switch (torch_scatter tests torch.version.hip).
        switch = "IS_HIP_EXTENSION" if "IS_HIP_EXTENSION" in text else "torch.version.hip"
        return HipBuild("pip install . (with a ROCm build of PyTorch)", switch, ("USE_ROCM=1",),
                        evidence=(f"{path}: {switch}",))
    m = re.search(r"""environ(?:\.get)?\s*[\[(]\s*["'](USE_ROCM|\w*_HIP|\w*_ROCM)["']""", text)
    if m:
        return HipBuild(f"{m.group(1)}=1 pip install .", m.group(1), evidence=(f"{path}: reads {m.group(1)}",))
    return None


#: The extensions of a source a setup.py may copy to another extension before it compiles it.
_SOURCE_TWINS = (".cpp", ".cc", ".cxx", ".cu", ".hip")


def _setup_rocm_sources(root: str, path: str, text: str, files: frozenset[str]):
    """What the ROCm-aware setup.py at ``path`` (relative to ``root``) builds on each platform, read by
    :func:`vado.build.torch_setup.derive` (evaluated, never run): ``(defines, rocm_sources, cuda_only, evidence,
    flags)`` with the macros every ROCm extension gets, the planned sources the ROCm extensions compile, those only
    the CUDA extensions compile, and the compiler flags of the ROCm extensions; None where it derives no ROCm
    extension (a setup.py that stops on ROCm, one it cannot read: nothing is then said of its sources)."""
    from vado.build.torch_setup import derive

    from vado.rules.bld_setup_stops import toolkit_stops

    if toolkit_stops(text):
        return None  # it stops on ROCm before it builds (hopper/setup.py runs CUDA_HOME + "/bin/nvcc" -V)
    here = posixpath.dirname(path)
    d = derive(os.path.join(root, here) if here else root)
    rocm, cuda = d.extensions.get("rocm", ()), d.extensions.get("cuda", ())
    if d.skipped or not any(e.kind == "CUDAExtension" for e in rocm):
        return None

    def planned(exts) -> list[str]:
        out = []
        for e in exts:
            for src in e.sources:
                rel = posixpath.normpath(posixpath.join(here, src)) if here else posixpath.normpath(src)
                if rel not in files:
                    # A source setup.py writes before it compiles: flash-attention's rename_cpp_to_cu copies
                    # csrc/flash_attn_ck/X.cpp to X.cu and names the copy. The tree's source of that name is it.
                    stem = posixpath.splitext(rel)[0]
                    rel = next((stem + x for x in _SOURCE_TWINS if stem + x in files), rel)
                if rel in files:
                    out.append(rel)
        return out

    spelled = [[m if v is None else f"{m}={v}" for m, v in e.define_macros] for e in rocm]
    common = set.intersection(*map(set, spelled))  # a header sees only what every unit agrees on
    defines = [m for m in dict.fromkeys(m for ms in spelled for m in ms) if m in common]
    srcs = planned(rocm)
    only = sorted(set(planned(cuda)) - set(srcs))
    line = min(e.line for e in rocm if e.kind == "CUDAExtension")
    n = len(set(srcs))
    said = (f"{path}:{line}: its ROCm build compiles {n} source{'' if n == 1 else 's'}"
            + (f"; {len(only)} more only its CUDA build" if only else ""))
    flags = tuple(dict.fromkeys(str(x) for e in rocm for x in (*e.cxx, *e.nvcc)))
    return defines, srcs, only, said, flags


def _unique(items: Iterable[str]) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for i in items:
        seen.setdefault(i, None)
    return tuple(seen)


# --- the whole project ----------------------------------------------------------------


def project_scope(root: str | os.PathLike, plan=None, *, arches: Iterable[str] = ("gfx942",),
                  max_file_size: int | None = None) -> ProjectScope:
    """The scope of every file :func:`~vado.scan.discover.walk` plans under ``root`` (or of
    ``plan``'s files). ``arches`` fill the architecture list of :attr:`HipBuild.how`."""
    from vado.knowledge.project_scope import backends
    from vado.scan.discover import DEFAULT_MAX_FILE_SIZE, read_regular, walk

    if plan is None:
        plan = walk(root)
    limit = max_file_size or DEFAULT_MAX_FILE_SIZE
    known = backends()
    by_header = {h: b for b in known for h in b.headers}
    by_word = {w: b for b in known for w in b.dirs}
    skips: list[Skip] = []
    cfiles: dict[str, _CFile] = {}
    kinds = {f.path: f.kind for f in plan.files}
    build_texts: dict[str, str] = {}
    for f in plan.files:
        if f.kind in _C_KINDS:
            got = _read_c(f.path, str(f.abs_path), f.kind, limit)
            if isinstance(got, Skip):
                skips.append(got)
            else:
                cfiles[f.path] = got
        elif f.kind in _BUILD_KINDS:
            try:
                build_texts[f.path] = read_regular(f.abs_path, limit).decode("latin-1")
            except OSError as exc:
                skips.append(Skip(f.path, SkipReason.UNREADABLE, f"not classified: {exc.strerror or exc}"))
    resolver = _Includes(kinds)
    edges: dict[str, list[tuple[str, bool]]] = {}
    for path, cf in cfiles.items():
        out = []
        for name, quoted, top in cf.includes:
            target = resolver.resolve(path, name, quoted)
            if target is not None and target != path:
                out.append((target, top))
        edges[path] = out
    # A computed include (stdgpu's `#include STDGPU_DETAIL_BACKEND_HEADER(platform.h)`) names the file of the
    # backend directory the build picks: the HIP one is an edge of the project's HIP path.
    computed = computed_alternatives({p: cf.computed for p, cf in cfiles.items() if cf.computed},
                                     {p: cf.path_macros for p, cf in cfiles.items() if cf.path_macros}, kinds)
    for path, alts in computed.items():
        edges[path].extend((t, False) for alt in alts for t in alt.hip if t != path)
    # A file that includes a project CUDA header (.cuh) uses CUDA.
    for path, cf in cfiles.items():
        if not cf.cuda and any(kinds.get(t) in _CUDA_KINDS for t, _ in edges[path]):
            cf.cuda = True

    scopes: dict[str, FileScope] = {}
    by_include: list[str] = []
    vendor_headers: list[str] = []
    hip_sources: list[str] = []
    for path in kinds:
        kind = kinds[path]
        cf = cfiles.get(path)
        dir_b, dir_path = _dir_backend(path, by_word)
        if cf is None:
            if kind in _BUILD_KINDS and dir_b is not None:
                text = build_texts.get(path, "")
                if not _BUILD_CUDA.search(text) or any(w in text.lower() for w in dir_b.dirs):
                    scopes[path] = FileScope(path, Scope.BACKEND, f"build file in the {dir_b.label} directory {dir_path}/",
                                             dir_b.label)
            continue
        if kind is FileKind.HIP_SOURCE:
            hip_sources.append(path)
            scopes[path] = FileScope(path, Scope.HIP_PATH, "a HIP source of the project")
            continue
        if cf.maps_to == "hip":
            vendor_headers.append(path)
            scopes[path] = FileScope(path, Scope.HIP_PATH, "the project's header that maps CUDA names to HIP")
            continue
        if cf.maps_to == "musa":
            scopes[path] = FileScope(path, Scope.BACKEND, "the project's header that maps CUDA names to MUSA", "MUSA")
            continue
        marked = [(by_header[n], n) for n, _, top in cf.includes if top and n in by_header]
        if marked:
            b, header = marked[0]
            if not cf.cuda:
                scopes[path] = FileScope(path, Scope.BACKEND, f"{b.label} code (includes {header})", b.label)
            elif dir_b is not None and any(m[0] is dir_b for m in marked):
                scopes[path] = FileScope(path, Scope.BACKEND,
                                         f"{b.label} code in CUDA syntax (includes {header}, in {dir_path}/)", b.label)
            else:
                scopes[path] = FileScope(path, Scope.PROJECT, f"uses CUDA and {b.label} (includes {header})", mixed=b.label)
            continue
        if dir_b is not None and not cf.cuda:
            scopes[path] = FileScope(path, Scope.BACKEND, f"in the {dir_b.label} directory {dir_path}/", dir_b.label)
    # A non-CUDA file that includes a backend's header at its top level, in that header's directory
    # (or below it), is that backend's code: a project header that includes <vulkan/vulkan.h> does
    # not make the whole project's host code Vulkan's.
    includers: dict[str, list[str]] = {}
    for src, outs in edges.items():
        for t, top in outs:
            if top:
                includers.setdefault(t, []).append(src)
    queue = deque(p for p, s in scopes.items() if s.scope is Scope.BACKEND and p in cfiles)
    while queue:
        header = queue.popleft()
        b = scopes[header]
        home = posixpath.dirname(header)
        for src in includers.get(header, ()):
            if src not in scopes and not cfiles[src].cuda and (not home or src.startswith(home + "/")):
                scopes[src] = FileScope(src, Scope.BACKEND, f"{b.backend} code (includes {header})", b.backend)
                queue.append(src)

    hip = _hip_build(build_texts, scopes, tuple(arches), frozenset(kinds), os.fspath(root))
    if hip is not None and hip.switch and hip.how.split(" ", 1)[0] in ("cmake", "make"):
        # A CMake/Make switch turns HIP on and the project includes HIP's headers itself: that code is
        # its own HIP path (Ginkgo's hip/*.hip.cpp, a header choosing <hip/hip_runtime.h> or
        # <cuda_runtime.h>). Without a switch HIP is not one configuration among others (a tree vado
        # ported includes HIP headers too) and nothing is taken for the project's own. A torch
        # extension's USE_ROCM branches are not either: PyTorch's build-time hipify rewrites the
        # rest of the file, which is what the torch-extension port is for (vado.port.torch_ext).
        by_include = [p for p, cf in cfiles.items() if cf.hip and p not in scopes]
        hip_sources.extend(by_include)
    if hip is not None and (vendor_headers or hip_sources):
        hip = dataclasses.replace(hip, vendor_headers=tuple(sorted(vendor_headers)),
                                  hip_sources=tuple(sorted(hip_sources)))
    elif hip is None and (vendor_headers or hip_sources):
        hip = HipBuild("", vendor_headers=tuple(sorted(vendor_headers)), hip_sources=tuple(sorted(hip_sources)),
                       evidence=("no build switch for HIP found",))
    if hip is not None and hip.complete:
        _mark_not_compiled_for_amd(hip, scopes, kinds, build_texts, edges, cuda_directories(computed, edges))
        _mark_hip_path(hip, scopes, cfiles, edges, kinds, frozenset(by_include))
    elif hip is not None and hip.torch_rocm:
        # A PyTorch extension whose setup.py compiles other sources on ROCm: what only its CUDA extensions
        # compile is no ROCm build's business. The rest stays the project's (hipified at build time) but its
        # HIP code, written for ROCm.
        if hip.cuda_only:
            _mark_not_compiled_for_amd(hip, scopes, kinds, {}, edges)
        _mark_unreached_by_rocm(hip, scopes, cfiles, resolver, build_texts)
        _mark_torch_hip_code(hip, scopes, cfiles, edges)
    files = {p: scopes.get(p) or FileScope(p, Scope.PROJECT) for p in sorted(kinds, key=lambda p: p.split("/"))}
    vendored = tuple(s for s in plan.skips if s.reason is SkipReason.VENDORED)
    return ProjectScope(str(root), files, vendored, hip, tuple(skips), own_packages(build_texts))


#: A distribution name (PEP 508).
_DIST_NAME = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?")


def normalized_package(name: str) -> str:
    """A distribution name as PEP 503 compares them (``Detectron2`` and ``detectron_2`` ≠ ``detectron2``)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def own_packages(build_texts: Mapping[str, str]) -> tuple[str, ...]:
    """The distributions the tree declares itself: a ``setup(name="…")`` string literal of a setup.py, the
    ``[project] name`` of a pyproject.toml (read, never run; a name computed at run time is not known)."""
    import ast

    found: set[str] = set()
    for path, text in build_texts.items():
        base = posixpath.basename(path).lower()
        if base == "setup.py":
            try:
                tree = ast.parse(text.encode("latin-1"))
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                continue
            for n in ast.walk(tree):
                if isinstance(n, ast.Call) and (getattr(n.func, "id", "") == "setup" or getattr(n.func, "attr", "") == "setup"):
                    for kw in n.keywords:
                        if (kw.arg == "name" and isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, str)
                                and _DIST_NAME.fullmatch(kw.value.value)):
                            found.add(normalized_package(kw.value.value))
        elif base == "pyproject.toml":
            import tomllib

            try:
                name = (tomllib.loads(text).get("project") or {}).get("name")
            except (tomllib.TOMLDecodeError, ValueError, AttributeError):
                continue
            if isinstance(name, str) and _DIST_NAME.fullmatch(name):
                found.add(normalized_package(name))
    return tuple(sorted(found))


def _hip_build(build_texts: Mapping[str, str], scopes: Mapping[str, FileScope], arches: tuple[str, ...],
               files: frozenset[str] = frozenset(), root: str | None = None) -> HipBuild | None:
    arch_list = ";".join(arches) or "gfx942"
    if ";" in arch_list:
        arch_list = f'"{arch_list}"'
    own = {p: t for p, t in build_texts.items() if scopes.get(p) is None}
    cmake = {p: t for p, t in own.items() if p.lower().endswith(("cmakelists.txt", ".cmake"))}
    hip_dirs = {posixpath.dirname(p) for p in cmake
                if any(w in ("hip", "rocm") for w in _DIR_WORD.split(posixpath.basename(posixpath.dirname(p)).lower()))}
    found = _cmake_hip(cmake, hip_dirs, arch_list, files) if cmake else None
    if found is not None and not _setup_above(own, cmake, hip_dirs):
        return found
    setups = []
    for path, text in sorted(own.items(), key=lambda kv: (kv[0].count("/"), kv[0])):
        name = posixpath.basename(path).lower()
        if name in ("makefile", "gnumakefile") or name.endswith((".mk", ".make")):
            got = _make_hip(path, text)
            if got is not None:
                return got
        elif name == "setup.py":
            got = _setup_hip(path, text)
            if got is not None:
                setups.append((path, got))
    if not setups:
        return None
    # The top-most setup.py's switch names the build; every setup.py that builds for ROCm itself says which
    # sources its ROCm and CUDA extensions compile (flash-attention: the root's CK build and hopper/'s).
    path, hip = setups[0]
    if root is None:
        return hip
    defines, rocm, cuda_only, evidence = list(hip.defines), [], [], list(hip.evidence)
    derived: list[tuple[str, tuple[str, ...]]] = []
    for at, _ in setups:
        got = _setup_rocm_sources(root, at, own[at], files)
        if got is None:
            continue
        macros, srcs, only, said, flags = got
        derived.append((at, flags))
        if at == path:
            defines.extend(macros)
        rocm.extend(srcs)
        cuda_only.extend(only)
        evidence.append(said)
    if not rocm:
        return hip
    return dataclasses.replace(hip, defines=_unique(defines), evidence=tuple(evidence), rocm_sources=_unique(rocm),
                               cuda_only=tuple(sorted(set(cuda_only) - set(rocm))), rocm_setups=tuple(derived))


def _setup_above(own: Mapping[str, str], cmake: Mapping[str, str], hip_dirs: set[str]) -> bool:
    """Whether a setup.py that builds for ROCm itself sits above every CMake file that builds with HIP: the
    project's ROCm build is that setup.py's (xformers: its setup.py builds the CK kernels; a CMakeLists.txt deep
    in xformers/csrc/attention/hip_decoder/ builds one directory's kernels on its own, for their developers)."""
    setups = [p.count("/") for p, t in own.items() if posixpath.basename(p).lower() == "setup.py"
              and ("IS_HIP_EXTENSION" in t or "torch.version.hip" in t)]
    hips = [p.count("/") for p, t in cmake.items() if _HIP_CMAKE_SIGN.search(t) or posixpath.dirname(p) in hip_dirs]
    return bool(setups) and (not hips or min(setups) < min(hips))


def _mark_not_compiled_for_amd(hip: HipBuild, scopes: dict[str, FileScope], kinds: Mapping[str, FileKind],
                               build_texts: Mapping[str, str], edges: Mapping[str, list[tuple[str, bool]]],
                               computed: Mapping[str, str] | None = None) -> None:
    """Mark what the project's own ROCm build never compiles, so that a port leaves it as it is and its
    findings do not stand between the project and ROCm. One mechanism for both ways a build says so:

    - the folders and sources the AMD configuration of its CMake files leaves out (a ``cuda/`` directory, a
      source added only under a CUDA option: :func:`vado.scan.amd_build.not_built_for_amd`), everything
      under a folder;
    - the CUDA sources only its CUDA build names (:attr:`HipBuild.cuda_only`: a CMake file that compiles
      other sources as HIP);
    - the CUDA directory among the backend directories a computed include picks from (``computed``:
      :func:`vado.scan.computed_includes.cuda_directories`, stdgpu's ``src/stdgpu/cuda``);

    and, from either, the project headers that only such files include (with the reason of the file that
    reached them first)."""
    from vado.scan.amd_build import not_built_for_amd

    roots: dict[str, str] = {}
    cmake = {p: t for p, t in build_texts.items()
             if scopes.get(p) is None and p.lower().endswith(("cmakelists.txt", ".cmake"))}
    for d, why in (not_built_for_amd(cmake, hip.switch) if cmake else {}).items():
        roots[d] = f"not compiled by the project's own ROCm build ({hip.how}): {why}"
    for p in hip.cuda_only:
        roots.setdefault(p, f"compiled only by the project's CUDA build; its ROCm build ({hip.how}) does not compile it")
    for d, shown in (computed or {}).items():
        roots.setdefault(d, f"the CUDA backend directory of a computed include ({shown}), whose HIP twin the project's "
                            f"ROCm build ({hip.how}) includes")
    if not roots:
        return

    def free(p: str) -> bool:
        return scopes.get(p) is None or scopes[p].scope is Scope.PROJECT

    marked: dict[str, str] = {}
    for p in kinds:
        key = next((d for d in roots if p == d or p.startswith(d + "/")), None)
        if key is not None and free(p):
            marked[p] = roots[key]
    for p in hip.cuda_only:  # a CUDA-only source the walk did not list among the project's files
        if p not in marked and p not in kinds and free(p):
            marked[p] = roots[p]
    includers: dict[str, list[str]] = {}
    for src, outs in edges.items():
        for t, _ in outs:
            includers.setdefault(t, []).append(src)
    queue = deque(marked)
    while queue:  # down to the headers that only marked files include
        p = queue.popleft()
        for t, _ in edges.get(p, ()):
            if t in marked or not free(t):
                continue
            if all(src in marked for src in includers.get(t, ())):
                marked[t] = marked[p]
                queue.append(t)
    for p, why in marked.items():
        scopes[p] = FileScope(p, Scope.HIP_PATH, why, mixed=scopes[p].mixed if p in scopes else "", not_for_amd=True)


#: What a ROCm build of a PyTorch extension defines in every unit, C++ and HIP alike (cpp_extension's flags for
#: both compilers); hipcc's own __HIPCC__ is not among them: the host C++ compiler compiles the .cpp units.
_ROCM_PREDEFINED = frozenset({"__HIP_PLATFORM_AMD__", "USE_ROCM"})


def _mark_unreached_by_rocm(hip: HipBuild, scopes: dict[str, FileScope], cfiles: Mapping[str, _CFile],
                            resolver: "_Includes", build_texts: Mapping[str, str]) -> None:
    """Mark the headers a PyTorch extension's ROCm build never reads: every ``#include`` of them sits in a group
    that build does not compile, or in a file so marked (mmcv a8073c7: ``parrots_cuda_helper.hpp`` and
    ``parrots_cudawarpfunction.cuh``, included only under ``#ifdef MMCV_USE_PARROTS``, the SenseTime Parrots
    build's switch). A group is not compiled where it asks for a switch (a name a build file mentions) that the
    ROCm extensions do not define and no file of the tree ``#define``s, or asks a name that build defines
    (``USE_ROCM``, its ``-D`` macros, hipcc's own) to be undefined. A file no include reaches is left alone:
    nothing says which build it belongs to."""
    on = {d.partition("=")[0] for d in hip.defines} | _ROCM_PREDEFINED
    tree_defined = set().union(*(cf.defines for cf in cfiles.values())) if cfiles else set()
    build_words = " ".join(build_texts.values())

    def dead(conds) -> bool:
        for name, want in conds:
            if want and name not in on and name not in tree_defined and re.search(rf"\b{re.escape(name)}\b", build_words):
                return True
            if not want and name in on:
                return True
        return False

    incoming: dict[str, list[tuple[str, bool]]] = {}
    for src, cf in cfiles.items():
        for (name, quoted, _), conds in zip(cf.includes, cf.include_conds):
            t = resolver.resolve(src, name, quoted)
            if t is not None and t != src and t in cfiles:
                incoming.setdefault(t, []).append((src, dead(conds)))
    roots = [p for p in hip.rocm_sources if p in cfiles]
    reached = set(roots)
    queue = deque(roots)
    while queue:
        p = queue.popleft()
        cf = cfiles[p]
        for (name, quoted, _), conds in zip(cf.includes, cf.include_conds):
            t = resolver.resolve(p, name, quoted)
            if t is not None and t in cfiles and t not in reached and not dead(conds):
                reached.add(t)
                queue.append(t)
    marked: set[str] = set()
    changed = True
    while changed:
        changed = False
        for t, ins in incoming.items():
            if t in reached or t in marked or t in hip.rocm_sources:
                continue
            if all(is_dead or src in marked for src, is_dead in ins):
                marked.add(t)
                changed = True
    why = (f"read by no unit of the project's own ROCm build ({hip.how}): every #include of it sits in a branch that "
           "build does not compile")
    for p in marked:
        if scopes.get(p) is None or scopes[p].scope is Scope.PROJECT:
            scopes[p] = FileScope(p, Scope.HIP_PATH, why, mixed=scopes[p].mixed if p in scopes else "", not_for_amd=True)


def _mark_torch_hip_code(hip: HipBuild, scopes: dict[str, FileScope], cfiles: Mapping[str, _CFile],
                         edges: Mapping[str, list[tuple[str, bool]]]) -> None:
    """Mark the HIP code of a PyTorch extension that builds for ROCm itself: a file that includes a HIP or
    Composable Kernel header unconditionally (xformers ca6d2aa's hip_fmha/ and hip_decoder/ kernels on
    ``<ck_tile/core.hpp>``, compiled only by its ROCm build), a file that includes such a file unconditionally,
    and the project headers only such files include.
    Its ROCm build compiles them as written; a file that picks ``<hip/hip_runtime.h>`` in a ``USE_ROCM``
    branch is CUDA code hipify rewrites, and stays the project's."""
    def free(p: str) -> bool:
        return scopes.get(p) is None or scopes[p].scope is Scope.PROJECT

    marked: dict[str, str] = {}
    for p, cf in cfiles.items():
        if not free(p):
            continue
        header = next((n for n, _, top in cf.includes if top and _HIP_INCLUDE.match(n)), "")
        if header:
            marked[p] = header
    includers: dict[str, list[str]] = {}
    top_includers: dict[str, list[str]] = {}
    for src, outs in edges.items():
        for t, top in outs:
            includers.setdefault(t, []).append(src)
            if top:
                top_includers.setdefault(t, []).append(src)
    queue = deque(marked)
    while queue:  # up: a file that includes HIP code unconditionally compiles only as HIP
        p = queue.popleft()
        for src in top_includers.get(p, ()):
            if src not in marked and free(src):
                marked[src] = marked[p]
                queue.append(src)
    queue = deque(marked)
    while queue:  # down to the headers that only HIP code includes
        p = queue.popleft()
        for t, _ in edges.get(p, ()):
            if t not in marked and free(t) and all(src in marked for src in includers.get(t, ())):
                marked[t] = marked[p]
                queue.append(t)
    for p, header in marked.items():
        scopes[p] = FileScope(p, Scope.HIP_PATH, f"the project's HIP code (includes <{header}>): its own ROCm build "
                              f"({hip.how}) compiles it as written", mixed=scopes[p].mixed if p in scopes else "")


def _mark_hip_path(hip: HipBuild, scopes: dict[str, FileScope], cfiles: Mapping[str, _CFile],
                   edges: Mapping[str, list[tuple[str, bool]]], kinds: Mapping[str, FileKind],
                   by_include: frozenset[str] = frozenset()) -> None:
    """Mark the files the project's own HIP build compiles: those that reach a vendor header
    through their includes, what they include, and the project's build files.

    From a file that is on the HIP path only because it includes HIP's headers (``by_include``:
    ``ggml-common.h`` picks ``<hip/hip_fp16.h>`` for its GPU users), the way up stops at C sources:
    ``ggml-quants.c`` includes it too and is compiled by the C compiler in every build, never as HIP."""
    why = f"on the project's own HIP path (its ROCm build: {hip.how})"
    includers: dict[str, list[str]] = {}
    for src, outs in edges.items():
        for t, _ in outs:
            includers.setdefault(t, []).append(src)
    reached: set[str] = set(hip.vendor_headers) | set(hip.hip_sources) | set(hip.hip_language)
    if hip.hipify_step:
        # The build hipifies its CUDA sources itself: every file with CUDA in it is its HIP path, as written.
        reached |= {p for p, cf in cfiles.items() if cf.cuda and (scopes.get(p) is None or scopes[p].scope is Scope.PROJECT)}
    gpu_only = set(by_include) - set(hip.vendor_headers) - {p for p in hip.hip_sources if p not in by_include}
    queue = deque(reached)
    while queue:  # upwards: every file that includes a vendor header, directly or not
        p = queue.popleft()
        for src in includers.get(p, ()):
            if src in reached or not (scopes.get(src) is None or scopes[src].scope is Scope.PROJECT):
                continue
            if p in gpu_only:
                if posixpath.splitext(src)[1] == ".c":
                    continue  # C: compiled by the C compiler in every build, never as HIP
                gpu_only.add(src)
            reached.add(src)
            queue.append(src)
    queue = deque(reached)
    while queue:  # downwards: what those include
        p = queue.popleft()
        for t, _ in edges.get(p, ()):
            if t not in reached and (scopes.get(t) is None or scopes[t].scope is Scope.PROJECT):
                reached.add(t)
                queue.append(t)
    for p in reached:
        if scopes.get(p) is None or scopes[p].scope is Scope.PROJECT:
            scopes[p] = FileScope(p, Scope.HIP_PATH, why, mixed=scopes[p].mixed if p in scopes else "")
    for p, kind in kinds.items():
        if kind in _BUILD_KINDS and p not in scopes:
            scopes[p] = FileScope(p, Scope.HIP_PATH, f"build file of a project that builds for AMD ({hip.how})")
    if hip.hipify_step:
        # Its ROCm build hipifies the CUDA sources itself and compiles the rest as it is: host C/C++ (faiss's
        # CPU library, whose headers the GPU sources include through <faiss/...>) is no port's to edit.
        host = f"C/C++ of a project whose ROCm build ({hip.how}) hipifies its own sources: compiled as it is"
        for p in cfiles:
            if scopes.get(p) is None or scopes[p].scope is Scope.PROJECT:
                scopes[p] = FileScope(p, Scope.HIP_PATH, host, mixed=scopes[p].mixed if p in scopes else "")


def amd_defines(root: str | os.PathLike | ProjectScope) -> tuple[str, ...]:
    """The macros the project's own AMD build defines (``GGML_USE_HIP`` …), ``NAME`` or
    ``NAME=VALUE``; empty when the project has no HIP build switch. For the preprocessor's
    evaluation of the configuration AMD compiles."""
    scope = root if isinstance(root, ProjectScope) else project_scope(Path(root))
    return scope.hip.defines if scope.hip is not None else ()
