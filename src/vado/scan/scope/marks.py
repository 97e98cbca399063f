"""Marking files along the project's own HIP path once its ROCm build is known: what that build compiles as
written (:func:`mark_hip_path`, :func:`mark_torch_hip_code`) and what it never compiles
(:func:`mark_not_compiled_for_amd`, :func:`mark_unreached_by_rocm`). Each takes the scopes decided so far and
adds ``HIP_PATH`` scopes to files still the project's."""

from __future__ import annotations

import posixpath
import re
from collections import deque
from typing import Mapping

from vado.scan.classify import FileKind
from vado.scan.scope.c_files import HIP_INCLUDE, CFile, Includes
from vado.scan.scope.model import BUILD_KINDS, FileScope, HipBuild, Scope


def mark_not_compiled_for_amd(hip: HipBuild, scopes: dict[str, FileScope], kinds: Mapping[str, FileKind],
                              build_texts: Mapping[str, str], edges: Mapping[str, list[tuple[str, bool]]],
                              computed: Mapping[str, str] | None = None,
                              guarded: Mapping[tuple[str, str], str] | None = None,
                              refuses: Mapping[str, str] | None = None) -> None:
    """Mark what the project's own ROCm build never compiles, so that a port leaves it as it is and its
    findings do not stand between the project and ROCm. One mechanism for both ways a build says so:

    - the folders and sources the AMD configuration of its CMake files leaves out (a ``cuda/`` directory, a
      source added only under a CUDA option: :func:`vado.scan.amd_build.not_built_for_amd`), everything
      under a folder;
    - the CUDA sources only its CUDA build names (:attr:`HipBuild.cuda_only`: a CMake file that compiles
      other sources as HIP);
    - the CUDA directory among the backend directories a computed include picks from (``computed``:
      :func:`vado.scan.computed_includes.cuda_directories`, stdgpu's ``src/stdgpu/cuda``);

    - the headers every includer of which includes them only under a CUDA ``#ifdef`` beside a HIP twin
      (``guarded``: :func:`vado.scan.scope.project.cuda_twin_includes`);
    - the files that stop with ``#error`` without a CUDA switch (``refuses``:
      :func:`vado.scan.scope.project.cuda_required`);

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
    includers: dict[str, list[str]] = {}
    for src, outs in edges.items():
        for t, _ in outs:
            includers.setdefault(t, []).append(src)
    # A header every includer of which includes it under such a CUDA #ifdef, or is itself such a header (desul's
    # Lock_Array_CUDA.hpp: Lock_Array.hpp's #ifdef DESUL_HAVE_CUDA_ATOMICS, and Lock_Based_Fetch_Op_CUDA.hpp).
    guarded = guarded or {}
    twin: dict[str, str] = {}
    changed = True
    while changed:
        changed = False
        for (src, t), why in guarded.items():
            if t not in twin and all((s, t) in guarded or s in twin for s in includers.get(t, ())):
                twin[t] = why
                changed = True
    for t, why in twin.items():
        roots.setdefault(t, f"not compiled by the project's own ROCm build ({hip.how}): {why}")
    for t, why in (refuses or {}).items():
        roots.setdefault(t, f"not compiled by the project's own ROCm build ({hip.how}): {why}")
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


def mark_unreached_by_rocm(hip: HipBuild, scopes: dict[str, FileScope], cfiles: Mapping[str, CFile],
                           resolver: "Includes", build_texts: Mapping[str, str]) -> None:
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


def mark_torch_hip_code(hip: HipBuild, scopes: dict[str, FileScope], cfiles: Mapping[str, CFile],
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
        header = next((n for n, _, top in cf.includes if top and HIP_INCLUDE.match(n)), "")
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


def mark_hip_path(hip: HipBuild, scopes: dict[str, FileScope], cfiles: Mapping[str, CFile],
                  edges: Mapping[str, list[tuple[str, bool]]], kinds: Mapping[str, FileKind],
                  by_include: frozenset[str] = frozenset(), guarded: frozenset[tuple[str, str]] = frozenset()) -> None:
    """Mark the files the project's own HIP build compiles: those that reach a vendor header
    through their includes, what they include, and the project's build files.

    From a file that is on the HIP path only because it includes HIP's headers (``by_include``:
    ``ggml-common.h`` picks ``<hip/hip_fp16.h>`` for its GPU users), the way up stops at C sources:
    ``ggml-quants.c`` includes it too and is compiled by the C compiler in every build, never as HIP. The way
    down does not take an include the file makes only for CUDA beside a HIP twin (``guarded``)."""
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
            if (p, t) in guarded:
                continue
            if t not in reached and (scopes.get(t) is None or scopes[t].scope is Scope.PROJECT):
                reached.add(t)
                queue.append(t)
    for p in reached:
        if scopes.get(p) is None or scopes[p].scope is Scope.PROJECT:
            scopes[p] = FileScope(p, Scope.HIP_PATH, why, mixed=scopes[p].mixed if p in scopes else "")
    for p, kind in kinds.items():
        if kind in BUILD_KINDS and p not in scopes:
            scopes[p] = FileScope(p, Scope.HIP_PATH, f"build file of a project that builds for AMD ({hip.how})")
    if hip.hipify_step:
        # Its ROCm build hipifies the CUDA sources itself and compiles the rest as it is: host C/C++ (faiss's
        # CPU library, whose headers the GPU sources include through <faiss/...>) is no port's to edit.
        host = f"C/C++ of a project whose ROCm build ({hip.how}) hipifies its own sources: compiled as it is"
        for p in cfiles:
            if scopes.get(p) is None or scopes[p].scope is Scope.PROJECT:
                scopes[p] = FileScope(p, Scope.HIP_PATH, host, mixed=scopes[p].mixed if p in scopes else "")


def mark_cuda_twin_directories(hip: HipBuild, scopes: dict[str, FileScope], kinds: Mapping[str, FileKind]) -> None:
    """Mark the project's CUDA backend directory where a HIP twin sits beside it (libocca/occa c0c601f
    ``src/occa/internal/modes/cuda/`` beside ``modes/hip/``; kokkos' ``core/src/Cuda/`` beside ``HIP/``): the
    project's own ROCm build takes the HIP directory's code for AMD, and either does not compile the CUDA one or
    compiles it as it is written (OCCA's ``modes/cuda/polyfill.hpp`` defines the CUDA names itself when
    ``OCCA_CUDA_ENABLED`` is off). Either way it is no port's to edit. Only files still the project's are marked,
    and only beside a HIP directory that holds the project's HIP path."""
    from vado.scan.scope.model import DIR_WORD

    def words(d: str) -> set[str]:
        return set(DIR_WORD.split(posixpath.basename(d).lower()))

    hip_dirs = {posixpath.dirname(p) for p, fs in scopes.items()
                if fs.scope is Scope.HIP_PATH and not fs.not_for_amd and words(posixpath.dirname(p)) & {"hip", "rocm"}}
    # The twin's name is the HIP directory's with its hip/rocm word spelt cuda (modes/hip ↔ modes/cuda, HIP ↔ Cuda,
    # ggml-hip ↔ ggml-cuda): sibling projects that merely name a platform (plain-cuda beside single-source-hip) are
    # not twins.
    spelt = {}
    for d in sorted(hip_dirs):
        parent, base = posixpath.split(d)
        for word in ("hip", "rocm"):
            twin = re.sub(rf"(?i)(^|[-_.]){word}($|[-_.])", r"\1cuda\2", base)
            if twin.lower() != base.lower():
                spelt.setdefault((parent, twin.lower()), d)
    twins: dict[str, str] = {}
    for p in sorted(kinds):
        cd = posixpath.dirname(p)
        parent, base = posixpath.split(cd)
        d = spelt.get((parent, base.lower()))
        if d is not None and "cuda" in words(cd):
            twins.setdefault(cd, d)
    if not twins:
        return
    for p in kinds:
        if kinds[p] in BUILD_KINDS:
            continue
        d = next((c for c in twins if p.startswith(c + "/")), None)
        if d is not None and (scopes.get(p) is None or scopes[p].scope is Scope.PROJECT):
            scopes[p] = FileScope(p, Scope.HIP_PATH,
                                  f"the project's CUDA backend directory {d}/ beside its HIP twin {twins[d]}/: its own "
                                  f"ROCm build ({hip.how}) takes the HIP one for AMD; this one is left as it is",
                                  mixed=scopes[p].mixed if p in scopes else "")


def mark_compiler_detection(hip: HipBuild, scopes: dict[str, FileScope], cfiles: Mapping[str, CFile]) -> None:
    """Mark the C++ that uses no CUDA but tests CUDA's compiler macros (kokkos 28848df
    ``core/unit_test/TestTypeInfo.cpp``: ``#if defined(__NVCC__) && !defined(__CUDA_ARCH__)``), in a project whose
    own ROCm build compiles its sources: that build compiles it as written, and those tests tell nvcc apart on
    purpose; rewriting them (``__NVCC__`` → ``__HIPCC__``) would change what the project's HIP build does."""
    for p, cf in cfiles.items():
        if cf.cuda or not cf.cuda_macros or cf.kind not in (FileKind.CXX_SOURCE, FileKind.CXX_HEADER):
            continue
        if scopes.get(p) is None or scopes[p].scope is Scope.PROJECT:
            scopes[p] = FileScope(p, Scope.HIP_PATH,
                                  f"C++ that uses no CUDA and only tests CUDA's compiler macros, in a project that builds "
                                  f"for AMD itself: its ROCm build ({hip.how}) compiles it as written",
                                  mixed=scopes[p].mixed if p in scopes else "")
