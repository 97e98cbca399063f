"""Porting a whole tree into a new directory (or in place, with backups).

The user's tree is never touched unless ``in_place`` is asked for, and then every
changed file keeps a backup beside it (``<file>.vado-bak``). A port into ``out``
copies the tree (without ``.git``) and writes each ported file into a hidden
staging directory, then moves the finished tree to ``out`` at once: ``out``
never holds a partial port.

:func:`port_tree` decides what to port and how (here), then works through four modules:
:mod:`vado.port.tree_plan` (which files are the project's CUDA code, what the tree says for the rules),
:mod:`vado.port.tree_jobs` (porting each file, in worker processes when asked), :mod:`vado.port.tree_copy`
(reading sources and copying the tree) and :mod:`vado.port.tree_stage` (the hidden staging directory and
its publication as ``out``).
"""

from __future__ import annotations

import dataclasses
import os
import posixpath
import time
from pathlib import Path
from typing import Callable

from vado import __version__
from vado.errors import UsageError
from vado.model import Finding, Skip, Target
from vado.model.port import PortResult
from vado.port.apply import BACKUP_SUFFIX
from vado.port.build import existing_amd_support, renamed_name
from vado.port.file import PortOptions
from vado.port.tree_copy import copy_file, copy_tree, read_file
from vado.port.tree_jobs import PortJob, preload, run_jobs
from vado.port.tree_plan import cmake_cuda_dirs_of, in_scope, own_path_wave64_findings, source_links_of
from vado.rules.bld.torch_extension import HIPCC_REJECTS
from vado.port.tree_stage import discard_stage, make_stage, publish, remove_stale_stages
from vado.scan.classify import FileKind

__all__ = ["BUILD_KINDS", "PORTED_KINDS", "port_tree", "preload", "remove_stale_stages"]


#: Build-system files: their fixes are mechanical (a language, a flag, a link name, a package
#: pin, a base image) and are applied, unsafe ones included, in a new output tree by default.
BUILD_KINDS = frozenset(
    {
        FileKind.CMAKE,
        FileKind.MAKEFILE,
        FileKind.SETUP_PY,
        FileKind.PYPROJECT,
        FileKind.SETUP_CFG,
        FileKind.REQUIREMENTS,
        FileKind.CONDA_ENV,
        FileKind.DOCKERFILE,
    }
)
#: Kinds vado rewrites (the build files, the C family, Python); other files are copied verbatim.
PORTED_KINDS = BUILD_KINDS | {FileKind.CUDA_SOURCE, FileKind.CUDA_HEADER, FileKind.CXX_SOURCE, FileKind.CXX_HEADER,
                              FileKind.PYTHON}


def _joined(base: str, rel: str) -> str:
    """``str(Path(base) / rel)`` for a clean relative POSIX path ``rel``, without the Path."""
    return rel if base == "." else os.path.join(base, rel)


def port_tree(
    root: str | os.PathLike,
    out: str | os.PathLike | None,
    target: Target,
    *,
    in_place: bool = False,
    backup: bool = True,
    options: PortOptions | None = None,
    jobs: int = 1,
    respect_gitignore: bool = True,
    include_vendored: bool = False,
    include_backends: bool = False,
    include_hip_path: bool = False,
    rename_sources: bool = False,
    build_fixes: bool | None = None,
    progress: Callable[[int, int], None] | None = None,
    force: bool = False,
    build="compile-db",
) -> PortResult:
    """Port the tree at ``root`` for ``target`` into ``out`` (or in place).

    Source names are kept by default: a ``.cu`` file stays ``.cu`` (hipcc
    compiles it as HIP with ``-x hip``, which it assumes for ``.cu``; CMake gets
    ``LANGUAGE HIP`` for it), so includes of ``.cu`` files, scripts, editors'
    project files and the history of each file keep working, and the diff is
    the port and nothing else. ``rename_sources`` renames ``.cu`` sources to
    ``.hip`` (headers keep their names) and updates the references in the
    CMake files, Makefiles and quoted ``#include`` lines vado ports; other
    references (shell scripts, setup.py source lists) are not followed.

    ``build_fixes`` applies the unsafe fixes of build-system files (CMake, Makefiles,
    setup.py/pyproject, requirements, conda, Dockerfiles: :data:`BUILD_KINDS`) without
    ``options.unsafe``; by default it is on for a new output tree, where the user
    reviews a diff, and off in place or when a build file already builds for AMD
    (:func:`~vado.port.build.existing_amd_support`, listed in
    :attr:`PortResult.amd_support`). Each unsafe fix applied is described in
    :attr:`PortedFile.unsafe_applied`.

    What is not the project's CUDA code is left byte for byte as it is (copied
    unchanged into ``out``, untouched in place) and listed in the result's skips
    (:mod:`vado.scan.scope`): vendored code (``include_vendored`` ports it), code for
    other backends such as SYCL, MUSA or a CPU instruction set (``include_backends``),
    and the project's own HIP path, its vendor header and, when a build switch turns
    it on, the sources its ROCm build compiles (``include_hip_path``; how to enable
    that build is :attr:`PortResult.own_rocm_build`).

    ``out`` must not exist or be an empty directory, and must not lie inside
    ``root``. With ``in_place`` (``out`` is None) files are rewritten where they
    are, each with a backup unless ``backup`` is False; without backups, only files git
    holds as they are (committed, unchanged) are rewritten unless ``force``. An in-place
    port that was killed is completed by running it again (:mod:`vado.port.inplace`), and
    the temp files and staging directories killed runs left are removed. Raises
    :class:`~vado.errors.UsageError` for a bad ``out`` and
    :class:`~vado.errors.ScanError` for an unreadable root.

    ``build`` says how the tree's build is read (a mode of :data:`vado.build.read.MODES` or a
    :class:`vado.build.BuildOptions`; None reads none; the default, ``compile-db``, executes
    nothing): edits land only in the branches the configuration read compiles, as far as its
    macros decide them (:mod:`vado.build.judged`); :attr:`PortResult.build` says which.
    """
    from vado.port import inplace
    from vado.scan.discover import walk
    from vado.scan.run_caches import start_run

    start_run()  # what an earlier run in this process read from a tree may have changed since
    started = time.perf_counter()
    options = options or PortOptions()
    root_path = Path(root)
    if options.torch_extension == "auto":
        # A PyTorch extension keeps its CUDA spelling; AMD-only changes go in USE_ROCM branches.
        from vado.port.torch_ext import resolve_mode

        options = dataclasses.replace(options, torch_extension=resolve_mode("auto", root_path))
    if root_path.is_dir() and "source_root" not in options.rule_options:
        # The tree's own headers decide which branches the AMD build compiles (vado.scan.preprocessor).
        options = dataclasses.replace(options, rule_options={**options.rule_options, "source_root": str(root_path)})
    if in_place:
        if out is not None:
            raise UsageError("--in-place and an output directory exclude each other", "", "pass one of them")
        out_path = root_path
    else:
        if out is None:
            raise UsageError("no output directory", "a port goes into a new directory", "pass -o OUT, or --in-place --backup")
        out_path = Path(out)
        remove_stale_stages(out_path)  # what killed ports into OUT left (never a live port's)
        try:
            occupied = out_path.exists() and (not out_path.is_dir() or any(out_path.iterdir()))
        except OSError as exc:
            raise UsageError(f"cannot use the output {out_path}", exc.strerror or str(exc),
                             "choose a new directory in a writable place") from None
        if occupied:
            raise UsageError(
                f"output {out_path} exists and is not empty",
                "vado never writes over an existing tree",
                "choose a new directory, or remove it first",
            )
        try:
            out_path.resolve().relative_to(root_path.resolve())
            if root_path.is_dir():
                raise UsageError(
                    f"output {out_path} is inside the tree being ported",
                    "the port would be scanned as part of the source",
                    "choose a directory outside the source tree",
                )
        except ValueError:
            pass

    plan = walk(root_path, respect_gitignore=respect_gitignore, include_vendored=include_vendored)
    single_file = root_path.is_file()
    judged = None
    if build is not None and not single_file:
        from vado.build.judged import judged_build

        # A port's default does not take a Makefile's default configuration for the build (static_make=False):
        # the code its variables switch on (HeCBench's `DEBUG=yes` adds -DDEBUG) is the project's CUDA code too,
        # and leaving it untranslated would break that build on ROCm. `--build make` judges the dry run's.
        judged = judged_build(root_path, plan, build, static_make=False)
    # Backups of an earlier in-place port (Dockerfile.vado-bak looks like a Dockerfile) are never ported.
    ported = [f for f in plan.files if f.kind in PORTED_KINDS and BACKUP_SUFFIX not in posixpath.basename(f.path)]
    scope_skips, own_build, left_out, own_path = [], "", (), ()
    candidates = ported  # AMD support is read from every build file, those left as they are included
    # An interrupted in-place port: the same files again, its renames done again (or only their
    # references, when the .cu moved already), so that no build file keeps naming a moved file.
    journal = inplace.read_journal(root_path) if in_place and not single_file else None
    pending = journal.renames if journal is not None else {}
    defines: tuple[str, ...] = ()
    if journal is not None:
        ported = [f for f in candidates if f.path in journal.files]
        defines = journal.amd_defines
    elif not single_file:
        ported, scope_skips, own_build, left_out, defines, own_path, extra = in_scope(
            root_path, plan, ported, target, include_backends, include_hip_path)
        # What the scope knows for the rules: the distributions the tree declares (DEP), what its ROCm-aware
        # setup.py files build on ROCm (BLD005).
        extra = {k: v for k, v in extra.items() if v and k not in options.rule_options}
        if extra:
            options = dataclasses.replace(options, rule_options={**options.rule_options, **extra})
    if options.torch_extension == "on" and "amd_defines" not in options.rule_options:
        # cpp_extension defines USE_ROCM=1 on ROCm: its branches (the project's and the port's own)
        # are what the AMD build compiles, their #else what only CUDA compiles; neither is edited.
        options = dataclasses.replace(options, rule_options={
            **options.rule_options, "amd_defines": tuple(dict.fromkeys((*defines, "USE_ROCM=1")))})
    if defines and not include_hip_path and "amd_defines" not in options.rule_options:
        # The project's own ROCm build is the configuration AMD compiles: the branches its option
        # switches off are not edited (vado.scan.preprocessor).
        options = dataclasses.replace(options, rule_options={**options.rule_options, "amd_defines": defines})
    if in_place and not single_file:
        inplace.clean_stale_temps(root_path, {posixpath.dirname(f.path) for f in ported} | {""})
    if in_place and not backup and not force:
        inplace.check_backup_not_needed(root_path, [str(f.abs_path) for f in ported], [f.path for f in ported])
    renamed_now = {f.path for f in ported if rename_sources and f.kind is FileKind.CUDA_SOURCE
                   and f.path.endswith(".cu") and not single_file}
    renamed = tuple(sorted(renamed_now | set(pending)))
    rename_set = set(renamed)
    if renamed:
        options = dataclasses.replace(options, renamed=renamed)
        existing = {f.path for f in plan.files}
        for rel in sorted(renamed_now - set(pending)):
            if renamed_name(rel) in existing or os.path.lexists(root_path / renamed_name(rel)):
                raise UsageError(f"cannot rename {rel} to {renamed_name(rel)}", "that file exists already",
                                 "port without --rename-sources, or remove the .hip file")
    copied: set[str] = set()
    final_out = out_path
    copy_skips: list[Skip] = []
    if not in_place:
        # The port is written into a new hidden directory (make_stage) and moved to ``out``
        # when complete (publish): an interrupted port leaves no truncated files under their
        # final names, and of two ports into one new ``out`` the second fails with a clear error.
        out_path = make_stage(final_out)
        try:
            if single_file:
                copy_file(str(root_path), str(out_path / root_path.name))
                copied = {str(f.abs_path) for f in ported}
            else:
                copied = copy_tree(root_path, out_path, frozenset(os.path.join(str(root_path), f.path) for f in ported),
                                   copy_skips)
        except BaseException as exc:
            discard_stage(out_path)
            if isinstance(exc, OSError):
                raise UsageError(f"cannot copy {root_path} to {final_out}", exc.strerror or str(exc),
                                 "check free space and permissions") from None
            raise

    # Joined as strings: walk's relative paths are clean POSIX paths, and a Path per file
    # cost more than the rest of this loop.
    root_str, out_str = str(root_path), str(out_path)

    def dst_of(rel: str) -> str:
        if in_place:  # only for renamed files: the others are written where they were read (their abs_path)
            return root_str if single_file else _joined(root_str, rel)
        return _joined(out_str, root_path.name if single_file else rel)

    amd_support: list[str] = []
    amd_kinds: dict[str, FileKind] = {}
    for f in candidates:
        if f.kind in (FileKind.CMAKE, FileKind.MAKEFILE, FileKind.SETUP_PY):
            try:
                sign = existing_amd_support(read_file(str(f.abs_path))[1].decode("latin-1"))
            except OSError:
                continue  # reported when the port reads it
            if sign:
                amd_support.append(f"{f.path}: {sign}")
                amd_kinds[f.path] = f.kind
    # Each setup.py is a build of its own: where only setup.py files build for AMD, another setup.py of the tree
    # that does not (detectron2 02b5c4e's projects/TensorMask/setup.py, which gates its CUDA source on CUDA_HOME
    # beside the ROCm-aware top one) still gets its build fixes.
    own_setup = (build_fixes is None and not in_place and bool(amd_kinds)
                 and all(k is FileKind.SETUP_PY for k in amd_kinds.values()))
    if build_fixes is None:
        # A project that already builds for AMD (ggml's GGML_HIP, a USE_ROCM branch, a torch
        # extension that tests IS_HIP_EXTENSION) keeps its build files: the port leaves that intact.
        build_fixes = not in_place and not amd_support

    def fixes_build(f) -> bool:
        if own_setup and f.kind is FileKind.SETUP_PY:
            return f.path not in amd_kinds
        return build_fixes and (f.kind in BUILD_KINDS or f.kind is FileKind.PYTHON)
    if build_fixes and any(f.kind in (FileKind.MAKEFILE, FileKind.CMAKE) for f in ported):
        links = source_links_of(ported)
        if links:
            options = dataclasses.replace(options, source_links=links)
        cuda_dirs = cmake_cuda_dirs_of(ported)
        if cuda_dirs:
            options = dataclasses.replace(options, cmake_cuda_dirs=cuda_dirs)
    def macros_of(rel: str) -> tuple:
        return tuple(judged.rule_options(rel).items()) if judged is not None else ()

    job_list = []
    for f in ported:
        src = str(f.abs_path)
        if f.path in rename_set:
            new_dst = dst_of(renamed_name(f.path))
            job_list.append(PortJob(f.path, src, new_dst, f.kind, "" if in_place else dst_of(f.path),
                                    resume=f.path in pending, build=macros_of(f.path)))
        else:
            own = not fixes_build(f) and f.kind is FileKind.SETUP_PY and bool(amd_support)
            job_list.append(PortJob(f.path, src, src if in_place else dst_of(f.path), f.kind,
                                    copied=os.path.join(root_str, f.path) in copied or src in copied,
                                    build_fixes=fixes_build(f), build=macros_of(f.path),
                                    # a build that builds for AMD itself keeps its build files, but an nvcc flag
                                    # hipcc rejects breaks that build: its fix applies all the same
                                    unsafe_tags=(HIPCC_REJECTS,) if own and not in_place else ()))
    if in_place and not single_file:
        inplace.write_journal(root_path, {rel: renamed_name(rel) for rel in rename_set}, [f.path for f in ported],
                              options.rule_options.get("amd_defines", ()))
    try:
        outcomes = run_jobs(job_list, target, options, in_place, backup, jobs, progress)
    except Exception:
        if not in_place:
            # A write failed (a full disk): the port is incomplete and never becomes OUT.
            discard_stage(out_path)
        raise
    files = tuple(sorted((o[0] for o in outcomes), key=lambda f: f.path))
    remaining = tuple(sorted((f for o in outcomes for f in o[1]), key=Finding.sort_key))
    if own_path and target.family == "rocm":
        # Left as is, yet not "nothing remains" where that build runs warp code wrong on 64-lane wavefronts.
        remaining = tuple(sorted((*remaining, *own_path_wave64_findings(plan, own_path, target, options)), key=Finding.sort_key))
    errors = tuple({"type": "PortError", "what": f"porting {f.path} failed", "why": f.error, "tip": ""} for f in files if f.status == "failed")
    if in_place and not single_file and not errors:
        inplace.remove_journal(root_path)  # complete: a failed file keeps it for the next run
    ported_bytes = sum(f.size for f in ported)
    if not in_place:
        files = publish(out_path, final_out, files)  # removes the stage itself when it fails
        out_path = final_out
    known = {k.path for k in plan.skips}
    return PortResult(
        root=str(root_path),
        out=str(out_path),
        target=target.name,
        files=files,
        remaining=remaining,
        skips=tuple(sorted([*plan.skips, *scope_skips, *(k for k in copy_skips if k.path not in known)])),
        errors=errors,
        bytes_ported=ported_bytes,
        duration_s=round(time.perf_counter() - started, 3),
        tool_version=__version__,
        amd_support=tuple(amd_support),
        own_rocm_build=own_build,
        left_out=left_out,
        build=judged.summary if judged is not None else None,
    )
