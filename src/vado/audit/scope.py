"""What an audit judges: the project's CUDA code, not other backends, and not for ROCm the project's own HIP path.

:func:`audit_scope` reads :mod:`vado.scan.scope` for a tree: files of other backends
(SYCL, MUSA, CPU instruction sets …) are left out with an ``other-backend`` skip; files on
the project's own HIP path are checked, but for ROCm targets their findings move as is,
because the project's own ROCm build compiles them as they are (:func:`judge_own_hip_path`);
and the repository's and workloads' ROCm verdicts say so (:func:`with_own_rocm_build`).
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Sequence

from vado.model import Finding, Skip, SkipReason, Target, TargetVerdict, Verdict
from vado.model.audit import FileReport

__all__ = ["AuditScope", "audit_scope", "judge_own_hip_path", "with_own_rocm_build"]


@dataclass(frozen=True)
class AuditScope:
    """``left``: paths not checked (their ``skips`` say why); ``hip_path``: path → why it is on the
    project's own HIP path; ``own_build``: how to enable the project's ROCm build ("" when it has
    no complete one); ``rocm_targets``: the audited targets that build takes care of."""


    left: frozenset[str] = frozenset()
    skips: tuple[Skip, ...] = ()
    hip_path: Mapping[str, str] = field(default_factory=dict)
    own_build: str = ""
    rocm_targets: tuple[str, ...] = ()
    #: The macros the project's own AMD build defines (:attr:`vado.scan.scope.HipBuild.defines`), for the
    #: preprocessor's evaluation of the configuration AMD compiles.
    amd_defines: tuple[str, ...] = ()
    #: The ``hip_path`` files the project's ROCm build does not compile (:attr:`vado.scan.scope.FileScope.not_for_amd`).
    not_for_amd: frozenset[str] = frozenset()
    #: A PyTorch extension whose setup.py builds for ROCm itself (:attr:`vado.scan.scope.HipBuild.torch_rocm`): what
    #: the repository's ROCm verdicts say of it ("" for any other project).
    torch_rocm: str = ""
    #: The distributions the tree declares itself (:attr:`vado.scan.scope.ProjectScope.packages`).
    own_packages: tuple[str, ...] = ()
    #: The ROCm-aware setup.py files and the flags their ROCm extensions get (:attr:`vado.scan.scope.HipBuild.rocm_setups`).
    rocm_setups: tuple[tuple[str, tuple[str, ...]], ...] = ()


def audit_scope(root: str | os.PathLike, plan, targets: Sequence[Target], *, include_backends: bool = False,
                include_hip_path: bool = False) -> AuditScope:
    """The scope of an audit of ``root`` (a directory; a single file is judged as asked) over ``plan``."""
    if not Path(root).is_dir():
        return AuditScope()
    from vado.scan.scope import Scope, project_scope

    rocm = tuple(t for t in targets if t.family == "rocm")
    arches = next((t.default_arch for t in rocm if t.default_arch), ("gfx942",))
    scope = project_scope(root, plan, arches=arches)
    left, skips, hip, not_for_amd = set(), [], {}, set()
    for path, fs in scope.files.items():
        if fs.scope is Scope.BACKEND and not include_backends:
            left.add(path)
            skips.append(Skip(path, SkipReason.OTHER_BACKEND, f"{fs.why}; not judged (include_backends judges it)"))
        elif fs.scope is Scope.HIP_PATH and not include_hip_path and rocm:
            hip[path] = fs.why
            if fs.not_for_amd:
                not_for_amd.add(path)
    own = scope.own_rocm_build() if not include_hip_path else ""
    defines = scope.hip.defines if scope.hip is not None else ()
    torch_rocm = ""
    if scope.hip is not None and scope.hip.torch_rocm and rocm and not include_hip_path:
        n, only = len(scope.hip.rocm_sources), len(scope.hip.cuda_only)
        torch_rocm = (f"builds for ROCm already: {scope.hip.how} compiles {n} source{'' if n == 1 else 's'} of its "
                      "extensions, hipified at build time"
                      + (f" ({only} source{'' if only == 1 else 's'} only its CUDA build compiles, and the headers "
                         "only they include, are left as they are)" if only else ""))
    return AuditScope(frozenset(left), tuple(skips), hip, own, tuple(t.name for t in rocm), defines, frozenset(not_for_amd),
                      torch_rocm, scope.packages, scope.hip.rocm_setups if scope.hip is not None else ())


def with_torch_rocm_build(verdicts: Sequence[TargetVerdict], scope: AuditScope, findings: Sequence[Finding],
                          root: str | os.PathLike = "") -> tuple[TargetVerdict, ...]:
    """The repository's verdicts of a PyTorch extension whose setup.py builds for ROCm itself
    (:attr:`AuditScope.torch_rocm`): for the ROCm targets, the reason says that it builds already and how many
    findings remain: active ones that change its code for that target, less what PyTorch's build-time hipify
    does itself (:func:`vado.port.torch_ext.hipify_makes`, with the file's text read under ``root``)."""
    if not scope.torch_rocm:
        return tuple(verdicts)
    from vado.port.torch_ext import hipify_makes

    texts: dict[str, str] = {}

    def text_of(path: str) -> str:
        if path not in texts:
            from vado.scan.discover import read_regular

            try:
                texts[path] = read_regular(os.path.join(os.fspath(root), path), 64 << 20).decode("latin-1") if root else ""
            except OSError:
                texts[path] = ""
        return texts[path]

    out = []
    for tv in verdicts:
        if tv.target in scope.rocm_targets:
            mine = [f for f in findings if f.verdicts.get(tv.target, Verdict.MOVES_AS_IS) is not Verdict.MOVES_AS_IS]
            hipify = sum(1 for f in mine if hipify_makes(f, text_of(f.span.path) if f.fix is not None else ""))
            n = len(mine) - hipify
            left = f"these {n} findings remain" if n != 1 else "this 1 finding remains"
            done = f" ({hipify} more are renames and includes its hipify makes)" if hipify else ""
            wrong = own_rocm_path_wrong(findings, tv.target)
            wrong = f"; but {wrong}" if wrong else ""
            tv = dataclasses.replace(tv, reason=f"{scope.torch_rocm}{wrong}; {left}{done}" + (f": {tv.reason}" if n else ""))
        out.append(tv)
    return tuple(out)


def own_rocm_path_wrong(findings: Sequence[Finding], target: str = "") -> str:
    """``"its own ROCm path is wrong on 64-lane wavefronts …"`` where WARP009 proved cross-lane calls of
    the project's own AMD branch to be 32-lane code (``data["own_hip_wrong"]``: an indexed shuffle or a vote,
    and every function that runs it indexes 32-lane warps, torch_sparse 0.6.18's ``SHFL_SYNC`` → ``__shfl(var, delta)``), else ``""``."""
    wrong = [f for f in findings if (f.data or {}).get("own_hip_wrong") and (not target or target in f.verdicts)]
    if not wrong:
        return ""
    places = sorted({f"{f.span.path}:{f.span.line}" for f in wrong})
    shown = ", ".join(places[:3]) + (f" and {len(places) - 3} more" if len(places) > 3 else "")
    return (f"its own ROCm path is wrong on 64-lane wavefronts (gfx90a/gfx942/gfx950): {len(wrong)} cross-lane "
            f"call{'' if len(wrong) == 1 else 's'} of its AMD branch ({shown}) read or vote across the whole "
            "wavefront where the kernels that run them index 32-lane warps (WARP009; a port points them at the 32-lane helpers)")


def judge_own_hip_path(findings: list[Finding], report: FileReport, why: str,
                       rocm_targets: Sequence[str], *, runs_on_amd: bool = True) -> tuple[list[Finding], FileReport]:
    """A file on the project's own HIP path: its findings move as is for ``rocm_targets`` (the
    project's ROCm build compiles it as it is), and so does the file, with ``why`` as the reason.

    A finding that named only those targets and so no longer changes anything is dropped (an
    audit with ``include_hip_path`` lists it); the file's count and effort follow, unless the
    list was cut (:data:`vado.audit.pipeline.MAX_FINDINGS_PER_FILE`), when the count keeps
    covering every finding. ``runs_on_amd``: False for a file that build does not compile, whose warp code
    runs on no wavefront."""
    from vado.audit.aggregate import effort_of

    wanted = set(rocm_targets)
    out = []
    dropped = 0
    # A finding that the project's own ROCm build itself does not compile (BLD009: rocThrust under a wrapped
    # namespace) keeps its verdict, and the file's: "moves as is with its own build" would not be true.
    breaks = [f for f in findings if (f.data or {}).get("breaks_own_rocm_build")]
    # Nor where that build runs, as written, warp code that cuts a lane mask to 32 bits: vado's warp32 emulation,
    # which makes it right in a port, is not applied to the project's own HIP path, and on gfx942/gfx950 the
    # wavefront is 64 lanes (gunrock 01f125c queue.hxx: `unsigned mask = __activemask()` ranks lanes 32-63 with
    # the low half's bits). Only where the AMD configuration compiles it (a ROCm verdict, not an inactive one).
    wave: list[Finding] = []
    for f in findings:
        if f in breaks:
            out.append(f)
            continue
        kept = own_path_wave64(f, wanted) if runs_on_amd else None
        if kept is not None:
            wave.append(kept)
            out.append(kept)
            continue
        if wanted & f.verdicts.keys():
            if f.verdicts.keys() <= wanted and any(v is not Verdict.MOVES_AS_IS for v in f.verdicts.values()):
                dropped += 1
                continue
            verdicts = {t: (Verdict.MOVES_AS_IS if t in wanted else v) for t, v in f.verdicts.items()}
            f = dataclasses.replace(f, verdicts=verdicts)
        out.append(f)
    verdicts = tuple(_own_build_verdict(tv, breaks, wave, why) if tv.target in wanted else tv for tv in report.verdicts)
    complete = len(findings) == report.finding_count
    return out, dataclasses.replace(report, verdicts=verdicts, finding_count=report.finding_count - dropped,
                                    effort=effort_of(out) if complete else report.effort)


def own_path_wave64(f: Finding, rocm_targets) -> Finding | None:
    """``f`` as a finding of the project's own HIP path that its ROCm build runs wrong on 64-lane wavefronts
    (a lane mask cut to 32 bits, :data:`vado.rules.warp.masks.WAVE64_TRUNCATES`; lane arithmetic by 32 beside
    64-lane steps, ``WAVE64_MIXED``; a 32-bit mask ROCm 7 rejects, ``MASK32_REJECTED``; 32-lane code on a width-less
    HIP shuffle or vote, ``own_hip_wrong``), where the AMD configuration compiles it (a ROCm verdict of
    ``rocm_targets``): manual work, no fix; None for any other finding."""
    from vado.rules.warp.masks import MASK32_REJECTED, WAVE64_MIXED, WAVE64_TRUNCATES

    wanted = set(rocm_targets)
    data = f.data or {}
    if not (data.get(WAVE64_TRUNCATES) or data.get(WAVE64_MIXED) or data.get(MASK32_REJECTED)
            or data.get("own_hip_wrong")) or not wanted & f.verdicts.keys():
        return None
    verdicts = {t: (Verdict.MANUAL if t in wanted else v) for t, v in f.verdicts.items()}
    if data.get(MASK32_REJECTED):
        why = OWN_PATH_MASK32.format(call=data.get("call", "the call"))
    elif data.get(WAVE64_TRUNCATES):
        why = OWN_PATH_WAVE64
    elif data.get("own_hip_wrong"):
        why = OWN_PATH_32_LANES
    else:
        why = OWN_PATH_WAVE64_MIXED
    return dataclasses.replace(f, verdicts=verdicts, message=f.message + why, fix=None)


#: What a kept wave64 finding on the project's own HIP path adds to its message.
OWN_PATH_WAVE64 = ("; this file is on the project's own HIP path, which its ROCm build compiles as written (vado leaves "
                   "it as is, without warp32 emulation): on 64-lane wavefronts (gfx942, gfx950) the upper 32 lanes' "
                   "bits are cut off")
#: What a kept 32-bit mask given to a HIP *_sync function on the project's own HIP path adds to its message.
OWN_PATH_MASK32 = ("; this file is on the project's own HIP path, which its ROCm build compiles as written (vado leaves "
                   "it as is): ROCm 7's {call} asserts a 64-bit mask (\"The mask must be a 64-bit integer\"), so that "
                   "build does not compile this call unless a macro vado did not find (in a header outside the tree, or "
                   "reached through an include directory its build files do not name) redirects {call}")
#: What a kept finding of 32-lane arithmetic beside 64-lane warp code on the project's own HIP path adds to its message.
OWN_PATH_WAVE64_MIXED = ("; this file is on the project's own HIP path, which its ROCm build compiles as written (vado "
                         "leaves it as is, without warp32 emulation): on 64-lane wavefronts (gfx942, gfx950) this "
                         "32-lane arithmetic and the function's 64-lane steps disagree")


#: What a kept WARP009 finding of 32-lane code on the project's own HIP path (``data["own_hip_wrong"]``: an indexed
#: shuffle or a vote whose users index 32-lane warps, by a literal or by a WARP_SIZE its AMD branch defines as 32)
#: adds to its message: the port leaves that file as written, so the helper it names is for a person to apply.
OWN_PATH_32_LANES = ("; this file is on the project's own HIP path, which its ROCm build compiles as written (vado leaves "
                     "it as is): gfx942 and gfx950 have no 32-lane wavefront mode (-mwavefrontsize32 is RDNA's), so "
                     "that build runs this 32-lane code on 64 lanes")


def _own_build_verdict(tv: TargetVerdict, breaks: Sequence[Finding], wave: Sequence[Finding], why: str) -> TargetVerdict:
    """A ROCm target's verdict over a file of the project's own HIP path: moves as is, unless findings say that
    build does not compile (``breaks``) or runs warp code that cuts lane masks on 64-lane wavefronts (``wave``):
    then theirs, worst first, with their codes."""
    from collections import Counter

    from vado.rules.warp.masks import MASK32_REJECTED, WAVE64_MIXED, WAVE64_TRUNCATES

    kept = [*breaks, *wave]
    mine = [f.verdicts[tv.target] for f in kept if tv.target in f.verdicts]
    if not mine:
        return TargetVerdict(tv.target, Verdict.MOVES_AS_IS, (), why)
    worst = Verdict.worst(mine)
    codes = Counter(f.code for f in kept if f.verdicts.get(tv.target) is worst)
    said = []
    if any(f.verdicts.get(tv.target) is worst for f in breaks):
        said.append("that build does not compile as it is")
    worst_wave = [f.data or {} for f in wave if f.verdicts.get(tv.target) is worst]
    if any(d.get(WAVE64_TRUNCATES) for d in worst_wave):
        said.append("that build runs warp code that cuts 64-bit lane masks to 32 bits on 64-lane wavefronts")
    if any(d.get(WAVE64_MIXED) for d in worst_wave):
        said.append("that build runs lane arithmetic by 32 beside warp code over 64-lane wavefronts")
    if any(d.get(MASK32_REJECTED) for d in worst_wave):
        said.append("that build passes 32-bit masks to *_sync functions ROCm 7 rejects")
    if any(d.get("own_hip_wrong") for d in worst_wave):
        said.append("that build runs 32-lane warp code on 64-lane wavefronts")
    return TargetVerdict(tv.target, worst, tuple(sorted(codes.items())),
                         f"{why}; {' and '.join(said)} ({', '.join(sorted(codes))})")


def with_own_rocm_build(verdicts: Sequence[TargetVerdict], scope: AuditScope, files: int) -> tuple[TargetVerdict, ...]:
    """Verdicts of a repository or workload that holds ``files`` files of the project's own HIP path:
    for the ROCm targets, the reason names the project's own ROCm build and how to enable it."""
    if not scope.own_build or not files:
        return tuple(verdicts)
    out = []
    for tv in verdicts:
        if tv.target in scope.rocm_targets:
            if tv.verdict is Verdict.MOVES_AS_IS:
                reason = (f"moves as is with its own ROCm build: {scope.own_build} "
                          f"({files} files on its HIP path; that build was not compiled by this audit)")
            else:
                reason = f"{tv.reason}; its own ROCm build ({scope.own_build}) covers {files} files of its HIP path"
            tv = dataclasses.replace(tv, reason=reason)
        out.append(tv)
    return tuple(out)
