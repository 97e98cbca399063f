"""Targets: the platforms a CUDA workload can move to."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Target:
    """A named, versioned profile of a platform.

    ``family`` is one of ``rocm`` (AMD's HIP/ROCm stack, including the Debian
    ``hip-5.2`` toolchain), ``oneapi`` (Intel SYCL), ``scale`` (Spectral Compute's
    nvcc-compatible compiler for AMD), ``zluda`` (CUDA binaries on AMD).
    ``hip_version`` is the HIP API level used to decide whether a HIPIFY mapping
    exists on this target (``None`` for targets that do not go through HIP names).
    ``wavefront`` gives the wavefront width per offload architecture (the width a
    kernel gets unless it asks for another; where the compiler picks per kernel,
    as SYCL does, the narrowest it may pick); ``lane_widths`` lists every width
    an architecture can run (RDNA: 32, and 64 with ``-mwavefrontsize64``; Intel:
    the sub-group sizes); ``default_arch`` is what verify builds for when the
    user names none. ``features`` holds yes/no facts the rules test (a missing
    key means "not known"); ``attributes`` holds string-valued facts (e.g.
    ``ptx_support``); ``notes`` explains a feature or attribute, keyed by its name.
    """

    name: str
    family: str
    version: str
    description: str = ""
    hip_version: str | None = None
    wavefront: dict[str, int] = field(default_factory=dict)
    default_arch: tuple[str, ...] = ()
    libraries: dict[str, str] = field(default_factory=dict)
    features: dict[str, bool] = field(default_factory=dict)
    source: str = ""
    lane_widths: dict[str, tuple[int, ...]] = field(default_factory=dict)
    attributes: dict[str, str] = field(default_factory=dict)
    notes: dict[str, str] = field(default_factory=dict)

    def wavefront_of(self, arch: str) -> int | None:
        """Wavefront width on ``arch`` (``gfx942`` → 64), or None when unknown."""
        return self.wavefront.get(arch)

    @property
    def min_wavefront(self) -> int:
        """Narrowest wavefront among this target's architectures (32 when none is known)."""
        return min(self.wavefront.values(), default=32)

    @property
    def max_wavefront(self) -> int:
        """Widest wavefront among this target's architectures (32 when none is known)."""
        return max(self.wavefront.values(), default=32)
