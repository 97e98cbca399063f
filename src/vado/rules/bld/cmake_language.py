"""BLD001: CMake enables the CUDA language, finds the CUDA toolkit or sets ``CMAKE_CUDA_*`` options."""

from __future__ import annotations

from typing import Iterator

from vado.model import Applicability, Effort, Finding, Severity
from vado.rules.base import FileContext, Rule
from vado.rules.bld.common import AS_IS, AUTO, MANUAL, build_facts, fact_fix, per_family
from vado.scan.buildfiles import FactKind
from vado.scan.classify import FileKind


class CMakeCudaLanguage(Rule):
    """CMake enables the CUDA language, finds the CUDA toolkit or sets CMAKE_CUDA_* options.

    What it does
    ------------
    Finds ``project(... LANGUAGES CUDA)``, ``enable_language(CUDA)``,
    ``find_package(CUDA)``/``find_package(CUDAToolkit)``, FindCUDA's
    ``cuda_add_library``/``cuda_add_executable`` macros and ``CMAKE_CUDA_*``
    variables (``CMAKE_CUDA_FLAGS``, ``CMAKE_CUDA_STANDARD`` …).

    Why is this bad?
    ----------------
    On ROCm CMake compiles GPU code through its ``HIP`` language (CMake 3.21 or
    newer, with ROCm's clang) and finds the runtime with ``find_package(hip)``.
    The CUDA language needs nvcc, which AMD GPUs cannot use. FindCUDA (and its
    ``cuda_add_*`` macros) has been deprecated since CMake 3.10 and has no HIP twin.
    SCALE provides an nvcc, so CUDA-language projects build with it unchanged;
    ZLUDA runs binaries built by NVIDIA's toolkit, so the build stays as it is.

    Example
    -------
    .. code-block:: cmake

        project(demo LANGUAGES CXX CUDA)
        find_package(CUDAToolkit REQUIRED)
        set(CMAKE_CUDA_STANDARD 17)

    Use instead
    -----------
    .. code-block:: cmake

        project(demo LANGUAGES CXX HIP)
        find_package(hip REQUIRED)
        set(CMAKE_HIP_STANDARD 17)
        set_source_files_properties(kernel.cu PROPERTIES LANGUAGE HIP)

    Fix safety
    ----------
    Unsafe. ``CUDA`` → ``HIP``, ``CUDAToolkit`` → ``hip`` and
    ``CMAKE_CUDA_X`` → ``CMAKE_HIP_X`` are exact renames, but ``.cu`` sources
    are only compiled as HIP once they are renamed ``.hip`` or marked
    ``LANGUAGE HIP``, and the minimum CMake version may have to rise to 3.21.
    FindCUDA's macros get no fix.

    References
    ----------
    - https://rocm.docs.amd.com/en/latest/conceptual/cmake-packages.html
    - https://cmake.org/cmake/help/latest/module/FindCUDA.html
    - https://github.com/spectral-compute/scale-docs (manual/compute-capabilities)
    """

    code = "BLD001"
    can_fix = True
    name = "cmake-cuda-language"
    severity = Severity.MEDIUM
    file_kinds = frozenset({FileKind.CMAKE})

    #: CMake variables and properties with a HIP twin of the same shape.
    RENAMES = {
        "CMAKE_CUDA_FLAGS": "CMAKE_HIP_FLAGS",
        "CMAKE_CUDA_FLAGS_DEBUG": "CMAKE_HIP_FLAGS_DEBUG",
        "CMAKE_CUDA_FLAGS_RELEASE": "CMAKE_HIP_FLAGS_RELEASE",
        "CMAKE_CUDA_FLAGS_RELWITHDEBINFO": "CMAKE_HIP_FLAGS_RELWITHDEBINFO",
        "CMAKE_CUDA_FLAGS_MINSIZEREL": "CMAKE_HIP_FLAGS_MINSIZEREL",
        "CMAKE_CUDA_STANDARD": "CMAKE_HIP_STANDARD",
        "CMAKE_CUDA_STANDARD_REQUIRED": "CMAKE_HIP_STANDARD_REQUIRED",
        "CMAKE_CUDA_EXTENSIONS": "CMAKE_HIP_EXTENSIONS",
        "CUDA_STANDARD": "HIP_STANDARD",
        "CUDA_STANDARD_REQUIRED": "HIP_STANDARD_REQUIRED",
        "CUDA_EXTENSIONS": "HIP_EXTENSIONS",
        # Only its ${…} references reach this rule: the variable itself is BLD002's.
        "CMAKE_CUDA_ARCHITECTURES": "CMAKE_HIP_ARCHITECTURES",
    }

    def check(self, ctx: FileContext) -> Iterator[Finding]:
        facts = build_facts(ctx)
        for f in facts.of(FactKind.CUDA_LANGUAGE, FactKind.FIND_CUDA, FactKind.CUDA_COMMAND, FactKind.CUDA_VARIABLE):
            if f.kind is FactKind.CUDA_LANGUAGE:
                yield self.finding(
                    ctx, f.start, f.end,
                    f"{f.context}() enables the CUDA language; on ROCm use HIP (CMake >= 3.21) "
                    "and compile .cu sources with LANGUAGE HIP",
                    per_family(ctx, rocm=AUTO, oneapi=MANUAL, scale=AS_IS, zluda=AS_IS),
                    effort=Effort(lines=1, constructs=1, hours=0.25),
                    fix=fact_fix(ctx, f, "HIP", Applicability.UNSAFE, "enable the HIP language instead of CUDA"),
                    data={"construct": f.context, "replacement": "HIP"},
                )
            elif f.kind is FactKind.FIND_CUDA:
                pkg = f.data.get("package", f.text)
                if pkg == "CUDAToolkit":
                    yield self.finding(
                        ctx, f.start, f.end,
                        "find_package(CUDAToolkit) finds NVIDIA's toolkit; on ROCm use find_package(hip) "
                        "and the hip::host/hip::device targets",
                        per_family(ctx, rocm=AUTO, oneapi=MANUAL, scale=AS_IS, zluda=AS_IS),
                        effort=Effort(lines=1, constructs=1, hours=0.25),
                        fix=fact_fix(ctx, f, "hip", Applicability.UNSAFE, "find the HIP package instead of CUDAToolkit"),
                        data={"package": pkg, "replacement": "hip"},
                    )
                elif pkg == "CUDA":
                    yield self.finding(
                        ctx, f.start, f.end,
                        "find_package(CUDA) uses the deprecated FindCUDA module; on ROCm rewrite it as "
                        "find_package(hip) with the HIP language (its CUDA_* variables have no HIP twins)",
                        per_family(ctx, rocm=MANUAL, oneapi=MANUAL, scale=AS_IS, zluda=AS_IS),
                        effort=Effort(lines=1, constructs=1, hours=1.0),
                        data={"package": pkg},
                    )
            elif f.kind is FactKind.CUDA_COMMAND:
                yield self.finding(
                    ctx, f.start, f.end,
                    f"{f.text}() is a FindCUDA macro; on ROCm use add_library/add_executable with the "
                    "sources marked LANGUAGE HIP",
                    per_family(ctx, rocm=MANUAL, oneapi=MANUAL, scale=AS_IS, zluda=AS_IS),
                    effort=Effort(lines=1, constructs=1, hours=0.5),
                    data={"command": f.text},
                )
            else:
                var = f.data.get("variable", f.text)
                new = self.RENAMES.get(var)
                ref = f.data.get("form") == "reference"
                if var == "CMAKE_CUDA_COMPILER":
                    yield self.finding(
                        ctx, f.start, f.end,
                        "CMAKE_CUDA_COMPILER selects nvcc; on ROCm CMAKE_HIP_COMPILER names ROCm's clang++",
                        per_family(ctx, rocm=MANUAL, oneapi=MANUAL, scale=AS_IS, zluda=AS_IS),
                        effort=Effort(lines=1, constructs=1, hours=0.25),
                        severity=Severity.LOW,
                        data={"variable": var},
                    )
                elif new is None:
                    yield self.finding(
                        ctx, f.start, f.end,
                        f"{var} configures nvcc; it has no HIP twin and needs a hand-written equivalent on ROCm",
                        per_family(ctx, rocm=MANUAL, oneapi=MANUAL, scale=AS_IS, zluda=AS_IS),
                        effort=Effort(lines=1, constructs=1, hours=0.5),
                        severity=Severity.LOW,
                        data={"variable": var},
                    )
                else:
                    yield self.finding(
                        ctx, f.start, f.end,
                        f"${{{var}}} reads a CUDA-language setting; on ROCm read {new}" if ref
                        else f"{var} configures the CUDA language; on ROCm it is {new}",
                        per_family(ctx, rocm=AUTO, oneapi=MANUAL, scale=AS_IS, zluda=AS_IS),
                        effort=Effort(lines=1, constructs=1, hours=0.0),
                        fix=fact_fix(ctx, f, new, Applicability.UNSAFE, f"rename {var} to {new}"),
                        severity=Severity.INFO if ref else Severity.LOW,
                        data={"variable": var, "replacement": new},
                    )
