"""The project scope of a tree (:func:`project_scope`): reads its C-family and build files, decides vendored,
backend and project code, finds the project's own ROCm build and marks its HIP path; the distributions the
tree declares itself (:func:`own_packages`); the macros its AMD build defines (:func:`amd_defines`)."""

from __future__ import annotations

import dataclasses
import os
import posixpath
import re
from collections import deque
from pathlib import Path
from typing import Iterable, Mapping

from vado.model import Skip, SkipReason
from vado.scan.classify import FileKind
from vado.scan.computed_includes import computed_alternatives, cuda_directories
from vado.scan.scope.c_files import CFile, Includes, read_c
from vado.scan.scope.hip_build import hip_build
from vado.scan.scope.marks import (mark_compiler_detection, mark_cuda_twin_directories, mark_hip_path, mark_not_compiled_for_amd,
                                   mark_torch_hip_code, mark_unreached_by_rocm)
from vado.scan.scope.model import BUILD_KINDS, C_KINDS, CUDA_KINDS, DIR_WORD, FileScope, HipBuild, ProjectScope, Scope


def _dir_backend(path: str, words: Mapping[str, object]):
    """The backend whose word names a directory above ``path`` (the nearest), with that directory."""
    parts = path.split("/")[:-1]
    for i in range(len(parts) - 1, -1, -1):
        for word in DIR_WORD.split(parts[i].lower()):
            if word in words:
                return words[word], "/".join(parts[: i + 1])
    return None, ""


_BUILD_CUDA = re.compile(r"\bCUDA\b|\.cu\b|\bnvcc\b|CUDAToolkit", re.IGNORECASE)


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
    cfiles: dict[str, CFile] = {}
    kinds = {f.path: f.kind for f in plan.files}
    build_texts: dict[str, str] = {}
    for f in plan.files:
        if f.kind in C_KINDS:
            got = read_c(f.path, str(f.abs_path), f.kind, limit)
            if isinstance(got, Skip):
                skips.append(got)
            else:
                cfiles[f.path] = got
        elif f.kind in BUILD_KINDS:
            try:
                build_texts[f.path] = read_regular(f.abs_path, limit).decode("latin-1")
            except OSError as exc:
                skips.append(Skip(f.path, SkipReason.UNREADABLE, f"not classified: {exc.strerror or exc}"))
    resolver = Includes(kinds)
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
        if not cf.cuda and any(kinds.get(t) in CUDA_KINDS for t, _ in edges[path]):
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
            if kind in BUILD_KINDS and dir_b is not None:
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

    hip = hip_build(build_texts, scopes, tuple(arches), frozenset(kinds), os.fspath(root))
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
        guarded = cuda_twin_includes(cfiles, resolver)
        mark_not_compiled_for_amd(hip, scopes, kinds, build_texts, edges, cuda_directories(computed, edges),
                                  guarded, cuda_required(cfiles))
        mark_hip_path(hip, scopes, cfiles, edges, kinds, frozenset(by_include), frozenset(guarded))
        mark_cuda_twin_directories(hip, scopes, kinds)
        if hip.how.startswith(("cmake", "make")):
            mark_compiler_detection(hip, scopes, cfiles)
    elif hip is not None and hip.torch_rocm:
        # A PyTorch extension whose setup.py compiles other sources on ROCm: what only its CUDA extensions
        # compile is no ROCm build's business. The rest stays the project's (hipified at build time) but its
        # HIP code, written for ROCm.
        if hip.cuda_only:
            mark_not_compiled_for_amd(hip, scopes, kinds, {}, edges)
        mark_unreached_by_rocm(hip, scopes, cfiles, resolver, build_texts)
        mark_torch_hip_code(hip, scopes, cfiles, edges)
    files = {p: scopes.get(p) or FileScope(p, Scope.PROJECT) for p in sorted(kinds, key=lambda p: p.split("/"))}
    vendored = tuple(s for s in plan.skips if s.reason is SkipReason.VENDORED)
    return ProjectScope(str(root), files, vendored, hip, tuple(skips), own_packages(build_texts))


_CUDA_WORD = re.compile(r"(?<![A-Za-z])CUDA(?![A-Za-z])")


def cuda_twin_includes(cfiles: Mapping[str, CFile], resolver: Includes) -> dict[tuple[str, str], str]:
    """The includes a file makes only for its CUDA configuration, beside a HIP twin: ``#ifdef X_CUDA_Y`` around one
    include and ``#ifdef X_HIP_Y`` around another of the same file (kokkos 28848df's desul
    ``Lock_Based_Fetch_Op.hpp``: ``Lock_Based_Fetch_Op_CUDA.hpp`` under ``DESUL_HAVE_CUDA_ATOMICS``,
    ``…_HIP.hpp`` under ``DESUL_HAVE_HIP_ATOMICS``). The project's ROCm build takes the HIP one.
    ``(includer, included) → why``, for planned files only."""
    out: dict[tuple[str, str], str] = {}
    for src, cf in cfiles.items():
        asked = {name for conds in cf.include_conds for name, want in conds if want}
        for (name, quoted, _), conds in zip(cf.includes, cf.include_conds):
            for macro, want in conds:
                twin = _CUDA_WORD.sub("HIP", macro) if want else ""
                if twin and twin != macro and twin in asked:
                    target = resolver.resolve(src, name, quoted)
                    if target is not None and target != src:
                        out[(src, target)] = (f"{src} includes it only under #ifdef {macro}, beside the HIP twin "
                                              f"under #ifdef {twin} that the ROCm build takes")
                    break
    return out


def cuda_required(cfiles: Mapping[str, CFile]) -> dict[str, str]:
    """The files that stop without a CUDA switch (``#if !defined(KOKKOS_ENABLE_CUDA)`` ``#error …``): path → why.
    The project's ROCm build turns its CUDA switches off, so it never compiles them."""
    from vado.scan.amd_build import is_cuda_switch

    out = {}
    for p, cf in cfiles.items():
        need = sorted(m for m in cf.requires if is_cuda_switch(m))
        if need:
            out[p] = f"it stops with #error unless {need[0]} is defined, a CUDA switch its ROCm build leaves off"
    return out


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


def amd_defines(root: str | os.PathLike | ProjectScope) -> tuple[str, ...]:
    """The macros the project's own AMD build defines (``GGML_USE_HIP`` …), ``NAME`` or
    ``NAME=VALUE``; empty when the project has no HIP build switch. For the preprocessor's
    evaluation of the configuration AMD compiles."""
    scope = root if isinstance(root, ProjectScope) else project_scope(Path(root))
    return scope.hip.defines if scope.hip is not None else ()
