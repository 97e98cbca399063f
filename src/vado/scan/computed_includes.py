"""Computed includes (``#include MACRO(file)``) that pick one of a project's backend directories.

stdgpu (stotko/stdgpu 22599cf) selects its backend through a macro::

    #define STDGPU_DETAIL_BACKEND_HEADER(header_file) <stdgpu/STDGPU_BACKEND_DIRECTORY/header_file>
    #include STDGPU_DETAIL_BACKEND_HEADER(platform.h)

where ``STDGPU_BACKEND_DIRECTORY`` is ``cuda``, ``hip`` or ``openmp``, written by its CMake configure
(``config.h.in``). The include names no file until the build decides; read with the macro's body and the
argument substituted, it names ``stdgpu/*/platform.h``: one file per backend directory of the tree. The
alternative in a directory named for HIP (``hip/``, ``rocm/``) is what the project's own ROCm build
includes; the one in a directory named for CUDA is what only its CUDA build includes.

The scan (:mod:`vado.scan.scope`) records each file's computed includes and its include-path macros (a
``#define`` whose body is ``<…>`` or ``"…"``); :func:`computed_alternatives` resolves them over the tree.
Sound, not complete: a macro defined twice in the tree with different bodies, a body that is not one path,
or an include that names one file or none, gives nothing.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from typing import Iterable, Mapping

__all__ = ["Alternatives", "computed_alternatives", "continued", "cuda_directories", "parse_computed", "parse_path_macro"]

_COMPUTED = re.compile(rb"^[ \t]*([A-Za-z_]\w*)[ \t]*(?:\(([^()\r\n]*)\))?[ \t]*(?://.*|/\*.*)?$")
_PATH_MACRO = re.compile(
    rb"^[ \t]*([A-Za-z_]\w*)(\([^()\r\n]*\))?[ \t]+([<\"])([^>\"\r\n]+)[>\"][ \t]*(?://.*|/\*.*)?$")
_IDENT = re.compile(r"[A-Za-z_]\w*")
#: Directory names of the two GPU platforms' alternatives.
_HIP_DIRS = frozenset({"hip", "rocm", "amd", "hipcub", "hip_backend", "backend_hip"})
_CUDA_DIRS = frozenset({"cuda", "nvidia", "cub", "cuda_backend", "backend_cuda"})


def parse_computed(rest: bytes) -> tuple[str, tuple[str, ...]] | None:
    """``(macro, arguments)`` of an ``#include`` whose operand is a macro (``STDGPU_DETAIL_BACKEND_HEADER(platform.h)``,
    ``BACKEND_HEADER``); None for ``<…>``/``"…"`` or anything else. ``rest`` is the text after ``include``."""
    m = _COMPUTED.match(rest)
    if m is None:
        return None
    args = m.group(2)
    parts = tuple(a.strip().decode("latin-1") for a in args.split(b",")) if args is not None else ()
    return m.group(1).decode("latin-1"), parts


def parse_path_macro(rest: bytes) -> tuple[str, tuple[str, ...] | None, str] | None:
    """``(name, parameters or None, path)`` of ``#define NAME(params) <path>`` / ``#define NAME "path"``; None for
    any other ``#define``. ``rest`` is the text after ``define``."""
    m = _PATH_MACRO.match(rest)
    if m is None:
        return None
    params = m.group(2)
    names = tuple(p.strip().decode("latin-1") for p in params[1:-1].split(b",")) if params is not None else None
    return m.group(1).decode("latin-1"), names, m.group(4).decode("latin-1").strip()


def continued(rest: bytes, data: bytes, end: int, limit: int = 8) -> bytes:
    """``rest`` (a directive's first line, ending in a backslash) joined with its continuation lines from ``data`` at
    ``end`` (where the first line ends), at most ``limit`` of them."""
    parts = [rest.rstrip()[:-1]]
    pos = end
    for _ in range(limit):
        nl = data.find(b"\n", pos)
        if nl < 0:
            break
        pos = nl + 1
        stop = data.find(b"\n", pos)
        line = data[pos:stop if stop >= 0 else len(data)].rstrip(b"\r")
        if line.rstrip().endswith(b"\\"):
            parts.append(line.rstrip()[:-1])
            continue
        parts.append(line)
        break
    return b" ".join(parts)


@dataclass(frozen=True)
class Alternatives:
    """The files one computed include can name: ``hip`` (the ROCm build's), ``cuda`` (the CUDA build's), and
    ``text``, the include as written."""

    text: str
    hip: tuple[str, ...]
    cuda: tuple[str, ...]


def computed_alternatives(includes: Mapping[str, Iterable[tuple[str, tuple[str, ...]]]],
                          macros: Mapping[str, Iterable[tuple[str, tuple[str, ...] | None, str]]],
                          paths: Iterable[str]) -> dict[str, list[Alternatives]]:
    """Per including file, the :class:`Alternatives` of its computed includes (``includes``: file → ``(macro,
    arguments)``) whose macro the tree defines once as a path (``macros``: file → its :func:`parse_path_macro`
    results), each name left in the path after substitution standing for one directory of the tree, with a
    HIP alternative and a CUDA one among the files of the tree (``paths``)."""
    bodies: dict[str, set[tuple[tuple[str, ...] | None, str]]] = {}
    for defs in macros.values():
        for name, params, path in defs:
            bodies.setdefault(name, set()).add((params, path))
    all_paths = sorted(set(paths))
    found_all: list[tuple[str, str, Alternatives]] = []
    for src, incs in includes.items():
        for macro, args in incs:
            found = bodies.get(macro)
            if not found or len(found) != 1:
                continue
            (params, path), = found
            path = _substitute(path, params, args)
            if path is None:
                continue
            alt = _alternatives(path, all_paths)
            if alt is not None:
                text = f"{macro}({', '.join(args)})" if params is not None else macro
                found_all.append((src, macro, Alternatives(text, *alt)))
    # A macro selects a backend where some include of it has a HIP alternative; then every include of it names
    # the ROCm build's file in that directory (an include with only a CUDA alternative sits where that build does
    # not compile it, or it would not compile).
    selectors = {macro for _, macro, alt in found_all if alt.hip}
    out: dict[str, list[Alternatives]] = {}
    for src, macro, alt in found_all:
        if macro in selectors:
            out.setdefault(src, []).append(alt)
    return out


def cuda_directories(alternatives: Mapping[str, list[Alternatives]], edges: Mapping[str, Iterable[tuple[str, bool]]]
                     ) -> dict[str, str]:
    """The CUDA backend directories the computed includes choose among (stdgpu's ``src/stdgpu/cuda``), each with the
    include that shows it, where a HIP twin exists and no file outside the directory includes a file in it by name:
    the project's ROCm build compiles nothing there."""
    out: dict[str, str] = {}
    for src, alts in alternatives.items():
        for alt in alts:
            if not alt.hip:
                continue
            for path in alt.cuda:
                d = _backend_dir(path, alt)
                if d is not None:
                    out.setdefault(d, f"#include {alt.text} in {src}")
    for d in list(out):
        inside = d + "/"
        if any(t.startswith(inside) and not s.startswith(inside) for s, outs in edges.items() for t, _ in outs):
            del out[d]
    return out


def _backend_dir(path: str, alt: Alternatives) -> str | None:
    """The directory of ``path`` named for CUDA (the deepest such component)."""
    parts = path.split("/")[:-1]
    for i in range(len(parts) - 1, -1, -1):
        if parts[i].lower() in _CUDA_DIRS:
            return "/".join(parts[:i + 1])
    return None


def _substitute(path: str, params: tuple[str, ...] | None, args: tuple[str, ...]) -> str | None:
    if params is None:
        return path if not args else None
    if len(params) != len(args):
        return None
    values = dict(zip(params, args))
    return _IDENT.sub(lambda m: values.get(m.group(0), m.group(0)), path)


def _alternatives(path: str, paths: list[str]) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """The files of ``paths`` whose path ends with ``path``, each whole path segment of it that is a bare name (a
    macro the build fills in) matching any one directory; the HIP and the CUDA ones, or None without either."""
    parts = posixpath.normpath(path).split("/")
    if any(p in ("", ".", "..") for p in parts) or "." not in parts[-1]:
        return None
    free = [i for i, p in enumerate(parts[:-1]) if _IDENT.fullmatch(p) and p.upper() == p and "_" in p]
    if not free:
        return None
    pattern = re.compile("(?:^|/)" + "/".join("([^/]+)" if i in free else re.escape(p) for i, p in enumerate(parts)) + "$")
    hip, cuda = [], []
    for p in paths:
        m = pattern.search(p)
        if m is None:
            continue
        words = {g.lower() for g in m.groups()}
        if words & _HIP_DIRS:
            hip.append(p)
        elif words & _CUDA_DIRS:
            cuda.append(p)
    return (tuple(hip), tuple(cuda)) if hip or cuda else None
