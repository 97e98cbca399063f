"""Verdict helpers the device-code rule families share: HIP version tests (:func:`hip_at_least`), wave64
targets and the verdict of warp-32 code (:func:`warp_verdict`) with its sources.
"""

from __future__ import annotations

from vado.model import Verdict


def version_tuple(v: str | None) -> tuple[int, ...]:
    """``"7.2"`` → ``(7, 2)``; unparsable parts count as 0."""
    if not v:
        return ()
    out = []
    for part in str(v).split("."):
        digits = "".join(ch for ch in part if ch.isdigit())
        out.append(int(digits) if digits else 0)
    return tuple(out)


def hip_at_least(target, version: str) -> bool:
    """True when ``target`` is a HIP target whose HIP version is at least ``version``."""
    return target.hip_version is not None and version_tuple(target.hip_version) >= version_tuple(version)


def has_wave64(target) -> bool:
    """True when some architecture of ``target`` runs 64-wide wavefronts by default."""
    return target.max_wavefront > 32


def warp_verdict(target, *, fixable: bool, scale_as_is: bool = True) -> Verdict | None:
    """Verdict of a 32-wide-warp assumption on ``target``.

    - rocm: wave64 architectures (CDNA) break the assumption: automatic edits when
      ``fixable``, else manual; a rocm target of only wave32 archs moves as is.
    - zluda: RDNA only (wave32): moves as is.
    - oneapi: sub-group sizes are chosen per kernel and differ per GPU: manual.
    - scale: SCALE emulates a 32-wide warp on every target by default
      (scale-docs diagnostic-reference, ``-Wptx-wave64``), so as is unless the
      caller says the pattern also breaks under emulation.
    """
    fam = target.family
    if fam == "rocm":
        if not has_wave64(target):
            return Verdict.MOVES_AS_IS
        return Verdict.AUTOMATIC if fixable else Verdict.MANUAL
    if fam == "zluda":
        return Verdict.MOVES_AS_IS if not has_wave64(target) else Verdict.MANUAL
    if fam == "oneapi":
        return Verdict.MANUAL
    if fam == "scale":
        return Verdict.MOVES_AS_IS if scale_as_is else Verdict.MANUAL
    return None


#: Why SCALE moves warp-32 code as is (cited by the WARP findings' data).
SCALE_WARP_NOTE = (
    "SCALE emulates a warp size of 32 on all targets by default (since v1.3.0); most programs see no "
    "measurable slowdown, but patterns such as alternating warps taking different paths are pathological"
)
SCALE_WARP_SOURCE = (
    "https://github.com/spectral-compute/scale-docs/blob/f20700f5f55e411fd0c0c1b03da5b896b5b6eae3/"
    "docs/manual/compiler/diagnostic-reference.md"
)
HIP_WARP_SOURCE = (
    "https://github.com/ROCm/HIP/blob/c5e11fcac8249ce4f7e70157588ff9661a870b59/docs/reference/kernel_language.rst"
)
