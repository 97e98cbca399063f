"""What a tree port decides before it ports: which files are the project's CUDA code (:func:`in_scope`, from
:mod:`vado.scan.scope`), what the tree's sources and CMake files tell the build fixes (:func:`source_links_of`,
:func:`cmake_cuda_dirs_of`), and what the project's own HIP path, left as it is, runs wrong on 64-lane
wavefronts (:func:`own_path_wave64_findings`)."""

from __future__ import annotations

import posixpath
import re
from pathlib import Path
from typing import Sequence

from vado.model import Finding, Skip, SkipReason, Target
from vado.port.file import PortOptions
from vado.port.tree_copy import read_file
from vado.scan.classify import FileKind


_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*[<"]([^>"\r\n]+)[>"]', re.MULTILINE)
_C_FAMILY = frozenset({FileKind.CUDA_SOURCE, FileKind.CUDA_HEADER, FileKind.CXX_SOURCE, FileKind.CXX_HEADER})


def source_links_of(ported) -> tuple[tuple[str, str], ...]:
    """``(folder, library id)`` for the libraries the tree's sources include whose ROCm replacement
    must be linked although CUDA needed no link (``link_when_included`` of the library table)."""
    from vado.knowledge.libraries import library_for_header

    found: set[tuple[str, str]] = set()
    for f in ported:
        if f.kind not in _C_FAMILY:
            continue
        try:
            data = read_file(str(f.abs_path))[1]
        except OSError:
            continue  # reported when the port reads it
        if b"include" not in data:
            continue
        for m in _INCLUDE.finditer(data):
            lib = library_for_header(m.group(1).decode("latin-1"))
            if lib is not None and lib.rocm is not None and lib.rocm.link_when_included:
                found.add((posixpath.dirname(f.path), lib.id))
    return tuple(sorted(found))


def cmake_cuda_dirs_of(ported) -> tuple[str, ...]:
    """:func:`vado.port.build.cmake_cuda_dirs` of the tree's CMake files (read as latin-1)."""
    from vado.port.build import cmake_cuda_dirs

    texts = []
    for f in ported:
        if f.kind is not FileKind.CMAKE:
            continue
        try:
            texts.append((f.path, read_file(str(f.abs_path))[1].decode("latin-1")))
        except OSError:
            continue  # reported when the port reads it
    return cmake_cuda_dirs(texts)


def in_scope(root: Path, plan, ported: list, target: Target, include_backends: bool,
             include_hip_path: bool) -> tuple:
    """The files of ``ported`` that are the project's CUDA code to port, skips for the others
    (other backends, the project's own HIP path), how to enable the project's own ROCm build,
    a line per group of what was left as it is, the macros the project's own AMD build defines, the files of
    its own HIP path its ROCm build compiles, and rule options the scope knows (``own_packages``, ``rocm_setups``)."""
    from vado.scan.scope import Scope, project_scope

    scope = project_scope(root, plan, arches=target.default_arch or ("gfx942",))
    left = scope.left_out(include_backends=include_backends, include_hip_path=include_hip_path)
    skips = []
    backends: dict[str, int] = {}
    hip_path = 0
    for path, fs in left.items():
        if fs.scope is Scope.BACKEND:
            backends[fs.backend] = backends.get(fs.backend, 0) + 1
            skips.append(Skip(path, SkipReason.OTHER_BACKEND, f"{fs.why}; left as is (--include-backends ports it)"))
        else:
            hip_path += 1
            skips.append(Skip(path, SkipReason.OWN_HIP_PATH, f"{fs.why}; left as is (--include-hip-path ports it)"))
    lines = []
    own = scope.own_rocm_build()
    if own and hip_path:
        lines.append(f"has its own ROCm build: {own}; its HIP path ({hip_path} files) left as is; "
                     "pass --include-hip-path to port it anyway")
    elif hip_path and scope.hip is not None and scope.hip.torch_rocm:
        only = sum(1 for fs in left.values() if fs.scope is Scope.HIP_PATH and fs.not_for_amd)
        parts = ([f"its HIP code ({hip_path - only} files)"] if hip_path - only else []) + (
            [f"{only} files its ROCm build does not compile"] if only else [])
        lines.append(f"builds for ROCm already ({scope.hip.how}); {' and '.join(parts)} left as is; "
                     "pass --include-hip-path to port them anyway")
    elif hip_path:
        lines.append(f"the project's own HIP mapping headers ({hip_path} files) left as is; "
                     "pass --include-hip-path to port them anyway")
    if backends:
        listed = ", ".join(f"{name} {n}" for name, n in sorted(backends.items(), key=lambda kv: (-kv[1], kv[0])))
        lines.append(f"other backends left as is: {sum(backends.values())} files ({listed}); "
                     "pass --include-backends to port them")
    mixed = sorted(p for p, fs in scope.files.items() if fs.mixed and p not in left)
    if mixed:
        kinds = ", ".join(sorted({scope.files[p].mixed for p in mixed}))
        lines.append(f"{len(mixed)} ported files also use {kinds} (review those parts): {', '.join(mixed[:5])}"
                     + (" …" if len(mixed) > 5 else ""))
    if scope.vendored:
        shown = ", ".join(s.path for s in scope.vendored[:5]) + (" …" if len(scope.vendored) > 5 else "")
        lines.append(f"vendored code left as is: {len(scope.vendored)} directories or files ({shown}); "
                     "pass --include-vendored to port it")
    defines = scope.hip.defines if scope.hip is not None else ()
    runs_on_amd = tuple(p for p, fs in left.items() if fs.scope is Scope.HIP_PATH and not fs.not_for_amd)
    extra = {"own_packages": scope.packages, "rocm_setups": scope.hip.rocm_setups if scope.hip is not None else ()}
    return [f for f in ported if f.path not in left], skips, own, tuple(lines), tuple(defines), runs_on_amd, extra


def own_path_wave64_findings(plan, paths: Sequence[str], target: Target, options: PortOptions) -> list[Finding]:
    """What the project's own HIP path (``paths``: the files its ROCm build compiles, which the port leaves as
    they are) runs wrong on 64-lane wavefronts: lane masks cut to 32 bits in the branches that build compiles
    (:func:`vado.audit.scope.own_path_wave64`), for a person, as the audit reports them."""
    from vado.audit.scope import own_path_wave64
    from vado.model.text import decode_source
    from vado.port.file import _check
    from vado.rules.cuda_syntax import CUDA_CXX_KINDS

    wanted = set(paths)
    out: list[Finding] = []
    for f in plan.files:
        if f.path not in wanted or f.kind not in CUDA_CXX_KINDS:
            continue
        try:
            data = Path(f.abs_path).read_bytes()
        except OSError:
            continue  # an unreadable file is the copy's to report
        if b"__activemask" not in data and b"__ballot" not in data:
            continue  # the only calls whose 64-bit masks the rules follow
        for found in _check(f.path, f.kind, decode_source(data), target, options):
            kept = own_path_wave64(found, (target.name,))
            if kept is not None:
                out.append(kept)
    return out
