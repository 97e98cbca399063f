"""What a CMake project's own AMD build leaves out: directories and sources it adds only for NVIDIA.

A project with one directory per GPU backend (``cuda/`` beside ``hip/``, the Ginkgo layout)
adds its NVIDIA backend only when a CUDA option is on::

    if(KD_BUILD_CUDA)
        add_subdirectory(cuda)
    endif()

Its ROCm build (the HIP switch on, on a machine without CUDA, so every CUDA option off)
never compiles ``cuda/``: that code is neither to judge for ROCm nor to port, and editing it
only makes a second, dead HIP backend. :func:`not_built_for_amd` reads the CMake files
(never runs them) and returns what the AMD configuration leaves out, with the command and
the condition that say so.

Sound, not complete: an ``add_subdirectory`` or a target's literal source is left out only
when every ``if()`` around it is decided and one of them is false in the AMD configuration,
the same directory or source is not added anywhere else under a condition that may hold,
and no CMake file outside a left-out directory names a path into it (ggml's HIP build globs
``../ggml-cuda/*.cu``). Anything built through variables or functions stays the project's.
"""

from __future__ import annotations

import posixpath
import re
from typing import Mapping

from vado.scan.scope.cmake_hip import CMAKE_FALSE, CMAKE_HERE, CMAKE_TOP, CMAKE_TRUE, branches

__all__ = ["is_cuda_switch", "not_built_for_amd"]

_CUDA_LAST = frozenset({"CUDA", "NVIDIA", "CUBLAS", "CUDNN", "NVCC", "CUTLASS"})
_TARGET_COMMANDS = frozenset({"add_executable", "add_library", "cuda_add_executable", "cuda_add_library",
                              "target_sources"})
_TARGET_KEYWORDS = frozenset({"STATIC", "SHARED", "MODULE", "OBJECT", "INTERFACE", "EXCLUDE_FROM_ALL",
                              "PRIVATE", "PUBLIC", "IMPORTED", "ALIAS", "GLOBAL", "WIN32", "MACOSX_BUNDLE"})
#: What CMake sets when it finds CUDA (never on a machine without it).
_CUDA_FOUND = ("CMAKE_CUDA_COMPILER", "CUDAToolkit_FOUND", "CUDA_FOUND", "CUDA_TOOLKIT_FOUND")
_SOURCE = re.compile(r"\.(?:cu|cuh|c|cc|cpp|cxx|c\+\+|h|hh|hpp|hxx|inc)$", re.IGNORECASE)


def is_cuda_switch(name: str) -> bool:
    """A CMake option that turns on NVIDIA code (``KD_BUILD_CUDA``, ``USE_CUDA``, ``WITH_CUDNN``)."""
    parts = name.upper().split("_")
    return parts[-1] in _CUDA_LAST or (len(parts) >= 2 and parts[0] in ("USE", "WITH", "ENABLE", "BUILD")
                                       and parts[1] in _CUDA_LAST)


def _options(parsed: Mapping[str, list]) -> dict[str, bool]:
    """Options with a literal default (a default read from a variable is not known here)."""
    out: dict[str, bool] = {}
    for cmds in parsed.values():
        for c in cmds:
            if c.lname in ("option", "cmake_dependent_option") and c.args:
                default = c.args[2].text.upper() if len(c.args) > 2 else "OFF"
                if default in CMAKE_TRUE or default in CMAKE_FALSE:
                    out[c.args[0].text] = default in CMAKE_TRUE
    return out


def _path(cmake_path: str, arg: str) -> str | None:
    """The project path an argument names, relative to the root, or None (another variable, outside)."""
    base = posixpath.dirname(cmake_path)
    for prefix in CMAKE_HERE:
        if arg.startswith(prefix):
            arg = arg[len(prefix):]
            break
    else:
        for prefix in CMAKE_TOP:
            if arg.startswith(prefix):
                arg, base = arg[len(prefix):], ""
                break
    if "$" in arg or arg.startswith("/") or not arg:
        return None
    p = posixpath.normpath(posixpath.join(base, arg))
    return None if p.startswith("..") or p == "." else p


def not_built_for_amd(cmake_texts: Mapping[str, str], switch: str) -> dict[str, str]:
    """Directories and sources (root-relative paths) the AMD configuration of these CMake files leaves
    out, each with why: the HIP option ``switch`` on, every CUDA option off, other options at their
    literal defaults. A directory key covers everything under it."""
    from vado.scan.buildfiles import cmake_commands

    parsed = {p: cmake_commands(t)[0] for p, t in cmake_texts.items()}
    values = _options(parsed)
    # No CUDA on the machine a ROCm build runs on: every CUDA option and what finding CUDA sets is off.
    values.update(dict.fromkeys(_CUDA_FOUND, False))
    for cmds in parsed.values():
        for c in cmds:
            if c.lname in ("option", "cmake_dependent_option", "if", "elseif"):
                names = [a.text[2:-1] if a.text.startswith("${") and a.text.endswith("}") else a.text
                         for a in (c.args[:1] if c.lname != "if" and c.lname != "elseif" else c.args)]
                values.update({n: False for n in names if is_cuda_switch(n)})
    if switch:
        values[switch] = True
    # Directories first; then sources, read only from the CMake files the AMD build reads.
    dirs_off, dirs_on = _walk(parsed, values, ("add_subdirectory",), skip=())
    # A backend directory whose sources a command globs only where the AMD configuration does not go (kokkos
    # 28848df core/src/CMakeLists.txt: append_glob(KOKKOS_CORE_SRCS ${CMAKE_CURRENT_SOURCE_DIR}/Cuda/*.cpp) under
    # if(KOKKOS_ENABLE_CUDA), its HIP/*.cpp under if(KOKKOS_ENABLE_HIP)) is left out as a whole, as an
    # add_subdirectory() is, unless a glob or an add_subdirectory() that may hold names it too.
    globs_off, globs_on = _walk(parsed, values, None, skip=())
    for d, why in globs_off.items():
        dirs_off.setdefault(d, why)
    dirs_on |= globs_on
    out = {d: why for d, why in dirs_off.items()
           if d not in dirs_on and not _named_from_outside(d, cmake_texts)}
    files_off, files_on = _walk(parsed, values, _TARGET_COMMANDS, skip=tuple(out))
    for f, why in files_off.items():
        if f in files_on or _under(f, tuple(out)):
            continue
        name = posixpath.basename(f)
        mentions = sum(len(re.findall(r"(?<![\w.-])" + re.escape(name) + r"(?![\w.-])", t))
                       for p, t in cmake_texts.items() if not _under(p, tuple(out)))
        if mentions == 1:  # named once, in that command: no variable or other target carries it
            out[f] = why
    # A probe CMake compiles only where the AMD configuration does not go (kokkos 28848df kokkos_arch.cmake:
    # try_run(… cmake/compile_tests/cuda_compute_capability.cc …) under if(KOKKOS_ENABLE_CUDA)): every command
    # that names it, message() aside, stands under a false condition (the probe, the configure_file() that copies it).
    probes_off, probes_on = _probes(parsed, values)
    for f, why in probes_off.items():
        if f in probes_on or f in files_on or f in out or _under(f, tuple(out)):
            continue
        if not _named_where_it_may_hold(parsed, values, posixpath.basename(f)):
            out[f] = why
    return out


_PROBES = frozenset({"try_run", "try_compile"})


def _probes(parsed: Mapping[str, list], values: Mapping[str, bool]) -> tuple[dict[str, str], set[str]]:
    """(source → why, for the sources try_run/try_compile name only under a false condition; the sources they name
    under a condition that may hold). A ``${CMAKE_CURRENT_SOURCE_DIR}`` in an included ``.cmake`` module is the
    including file's directory: the module's own and the root are both tried (a path that names no file of the
    tree marks nothing)."""
    off: dict[str, str] = {}
    on: set[str] = set()
    for path in sorted(parsed):
        for c, stack in branches(parsed[path], values):
            if c.lname not in _PROBES:
                continue
            named = [p for a in c.args if _SOURCE.search(a.text) for p in _module_paths(path, a.text)]
            false = next((b for b in stack if b.holds is False), None)
            if false is None:
                on.update(named)
                continue
            for p in named:
                off.setdefault(p, f"{path} {c.lname}() compiles {p} only if {false.text}, off in the ROCm build")
    return off, on


def _module_paths(cmake_path: str, arg: str) -> list[str]:
    """The paths an argument may name: relative to the CMake file's directory, and for a ``.cmake`` module also
    relative to the root (``${CMAKE_CURRENT_SOURCE_DIR}`` is then the includer's directory, the root's at most)."""
    got = [p for p in (_path(cmake_path, arg),) if p]
    if cmake_path.endswith(".cmake") and arg.startswith(CMAKE_HERE):
        top = _path("CMakeLists.txt", arg)
        if top and top not in got:
            got.append(top)
    return got


def _named_where_it_may_hold(parsed: Mapping[str, list], values: Mapping[str, bool], name: str) -> bool:
    """Whether a command other than message() names a file ``name`` where the AMD configuration may go."""
    pat = re.compile(r"(?<![\w.-])" + re.escape(name) + r"(?![\w.-])")
    for cmds in parsed.values():
        for c, stack in branches(cmds, values):
            if c.lname != "message" and any(pat.search(a.text) for a in c.args) \
                    and not any(b.holds is False for b in stack):
                return True
    return False


def _under(path: str, dirs: tuple[str, ...]) -> bool:
    return any(path == d or path.startswith(d + "/") for d in dirs)


def _walk(parsed: Mapping[str, list], values: Mapping[str, bool], commands, skip: tuple[str, ...]):
    """(path → why, for those named only under a false condition; paths named under a condition that
    may hold) of ``commands`` in the CMake files not under ``skip`` (``commands`` None: the directories any
    command's glob arguments take sources of, :func:`_glob_dir`)."""
    off: dict[str, str] = {}
    on: set[str] = set()
    for path in sorted(parsed):
        if _under(path, skip):
            continue
        for c, stack in branches(parsed[path], values):
            args = [a.text for a in c.args]
            if commands is None:  # globs of a directory's sources, in any command
                if c.lname in _CONTROL:
                    continue
                named = [_glob_dir(path, a) for a in args]
                what, suffix = f"{c.lname}() globs sources of", "/"
            elif c.lname not in commands:
                continue
            elif c.lname == "add_subdirectory":
                named = [_path(path, args[0])] if args else []
                what, suffix = "adds", "/"
            else:
                named = [_path(path, a) for a in args[1:] if a not in _TARGET_KEYWORDS and _SOURCE.search(a)]
                what, suffix = f"{c.lname}({args[0] if args else ''}) builds", ""
            named = [p for p in named if p]
            false = next((b for b in stack if b.holds is False), None)
            if false is None:
                on.update(named)
                continue
            for p in named:
                off.setdefault(p, f"{path} {what} {p}{suffix} only if {false.text}, off in the ROCm build")
    return off, on


#: Commands whose arguments are conditions, not paths.
_CONTROL = frozenset({"if", "elseif", "else", "endif", "while", "endwhile", "foreach", "endforeach", "message"})
_GLOB_NAME = re.compile(r"\*\.[\w+]+")


def _glob_dir(cmake_path: str, arg: str) -> str | None:
    """The project directory a glob argument takes the sources of (``${CMAKE_CURRENT_SOURCE_DIR}/Cuda/*.cpp`` →
    ``core/src/Cuda``), or None: not a glob of one directory's files by extension."""
    head, _, name = arg.rpartition("/")
    if not head or not _GLOB_NAME.fullmatch(name) or "*" in head:
        return None
    got = _path(cmake_path, head)
    return got if got and not got.startswith("..") else None


def _named_from_outside(directory: str, cmake_texts: Mapping[str, str]) -> bool:
    """Whether a CMake file outside ``directory`` names a path into it (``../cuda/x.cu``)."""
    base = posixpath.basename(directory)
    into = re.compile(r"(?:^|[\s\"'(/])(?:\.\./)+" + re.escape(base) + r"/|/" + re.escape(directory) + r"/")
    for path, text in cmake_texts.items():
        if path.startswith(directory + "/"):
            continue
        if into.search(text):
            return True
    return False
