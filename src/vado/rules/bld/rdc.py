"""BLD006: relocatable device code and device linking (``-rdc=true``, ``-dc``, ``-dlink``,
``CUDA_SEPARABLE_COMPILATION``)."""

from __future__ import annotations

from typing import Iterator

from vado.model import Applicability, Effort, Finding, Severity
from vado.rules.base import FileContext, Rule
from vado.rules.bld.common import AS_IS, AUTO, MANUAL, build_facts, fact_fix, per_family
from vado.scan.buildfiles import FactKind
from vado.scan.classify import FileKind


class RelocatableDeviceCode(Rule):
    """The build compiles relocatable device code or device-links (-rdc=true, -dc, -dlink, CUDA_SEPARABLE_COMPILATION).

    What it does
    ------------
    Finds ``-rdc=true``/``--relocatable-device-code=true``, ``-dc``,
    ``-dlink``/``--device-link`` and CMake's ``CUDA_SEPARABLE_COMPILATION``/
    ``CUDA_RESOLVE_DEVICE_SYMBOLS``.

    Why is this bad?
    ----------------
    HIP spells relocatable device code ``-fgpu-rdc`` and has no separate
    device-link step: hipcc links device code at the final link, which must
    also get ``-fgpu-rdc``; CMake has no HIP separable-compilation property.
    Separable compilation is often there for dynamic parallelism (kernels
    launching kernels), which HIP does not support at all; that code must be
    restructured. SCALE's documentation in vado's fact base does not cover
    separable compilation, so it is left to check; ZLUDA runs the NVIDIA build.

    Example
    -------
    .. code-block:: make

        $(NVCC) -rdc=true -c a.cu b.cu
        $(NVCC) -dlink a.o b.o -o dlink.o

    Use instead
    -----------
    .. code-block:: make

        hipcc -fgpu-rdc -c a.cu b.cu
        hipcc -fgpu-rdc a.o b.o -o app

    Fix safety
    ----------
    Unsafe: ``-rdc=true`` → ``-fgpu-rdc`` and ``-dc`` → ``-fgpu-rdc -c`` are
    exact for compiling, but the link command must also pass ``-fgpu-rdc``
    and an ``-dlink`` step must go; those and CMake properties get no fix.

    References
    ----------
    - https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/hip_porting_guide.html
    - https://clang.llvm.org/docs/ClangCommandLineReference.html#cmdoption-clang-fgpu-rdc
    """

    code = "BLD006"
    can_fix = True
    name = "relocatable-device-code"
    severity = Severity.MEDIUM
    file_kinds = frozenset({FileKind.CMAKE, FileKind.MAKEFILE, FileKind.SETUP_PY})

    def check(self, ctx: FileContext) -> Iterator[Finding]:
        for f in build_facts(ctx).of(FactKind.RDC):
            option = f.data.get("option", "") or f.data.get("variable", "")
            content = None
            if option in ("-rdc", "--relocatable-device-code"):
                content = "-fgpu-rdc"
            elif option in ("-dc", "--device-c"):
                content = "-fgpu-rdc -c"
            if ctx.kind is FileKind.SETUP_PY:
                content = None  # the flag list is shared with CUDA builds (see BLD005)
            fix = None if content is None else fact_fix(ctx, f, content, Applicability.UNSAFE,
                                                        f"replace {f.text!r} with {content!r}")
            if option in ("-dlink", "--device-link", "-dw", "--device-w"):
                what = f"{f.text} is a separate device-link step; hipcc links device code at the final link (-fgpu-rdc)"
            elif f.data.get("variable"):
                what = (f"{f.text} turns on separable compilation; on ROCm add -fgpu-rdc to the compile and "
                        "link options (CMake has no HIP property for it)")
            else:
                what = f"{f.text} compiles relocatable device code; hipcc spells it -fgpu-rdc (link with it too)"
            yield self.finding(
                ctx, f.start, f.end,
                what + "; if it is there for dynamic parallelism, HIP has no equivalent",
                per_family(ctx, rocm=AUTO if fix else MANUAL, oneapi=MANUAL, scale=MANUAL, zluda=AS_IS),
                effort=Effort(lines=1, constructs=1, hours=0.25 if fix else 1.0),
                fix=fix,
                data={"option": option, "replacement": content},
            )
