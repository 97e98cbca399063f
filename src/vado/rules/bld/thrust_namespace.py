"""BLD009: a build that wraps Thrust in a namespace of the project's (``THRUST_CUB_WRAPPED_NAMESPACE``),
which rocThrust 4.2.0 (ROCm 7.2.4) breaks under."""

from __future__ import annotations

import re
from typing import Iterator

from vado.model import Effort, Finding, Severity
from vado.rules.base import FileContext, Rule
from vado.rules.bld.common import AS_IS, MANUAL, per_family
from vado.scan.classify import FileKind


#: The define that wraps Thrust and CUB in a namespace of the project's (``THRUST_CUB_WRAPPED_NAMESPACE=gko``).
_WRAPPED_NAMESPACE = re.compile(r"(?:(?<=-D)|\b)(THRUST_CUB_WRAPPED_NAMESPACE|THRUST_WRAPPED_NAMESPACE)\b(?:\s*=\s*(\w+))?")
#: rocThrust headers that name ``::thrust`` and so break under the wrapper (ROCm 7.2.4's rocThrust 4.2.0).
_ROCTHRUST_UNWRAPPED = ("thrust/detail/type_traits.h:270", "thrust/iterator/detail/tuple_of_iterator_references.h:177",
                        "thrust/system/hip/detail/sort.h:75")


_HIP_WORD = re.compile(r"hip|rocm|amd", re.IGNORECASE)
_CUDA_WORD = re.compile(r"cuda|cusparse|cublas|nvidia", re.IGNORECASE)


def _for_rocm(path: str, words: str) -> bool:
    """Whether a definition may reach a ROCm build: not in a ``cuda/`` folder, and its command and enclosing
    conditions name HIP (``if(GINKGO_HIP_CUSTOM_THRUST_NAMESPACE)``, target ``hipsparse_linops``) or not CUDA
    (``if(GINKGO_CUDA_CUSTOM_THRUST_NAMESPACE)`` around a CUDA test target does not)."""
    if "cuda" in [part.lower() for part in path.split("/")[:-1]]:
        return False
    return bool(_HIP_WORD.search(words)) or not _CUDA_WORD.search(words)


class ThrustWrappedNamespace(Rule):
    """The build wraps Thrust in a namespace of the project's (``THRUST_CUB_WRAPPED_NAMESPACE``).

    What it does
    ------------
    Finds ``THRUST_CUB_WRAPPED_NAMESPACE`` / ``THRUST_WRAPPED_NAMESPACE`` in CMake files and
    Makefiles (Ginkgo's ``target_compile_definitions(ginkgo_hip PRIVATE
    THRUST_CUB_WRAPPED_NAMESPACE=gko)``).

    Why is this bad?
    ----------------
    NVIDIA's Thrust puts itself in that namespace. rocThrust 4.2.0 (ROCm 7.2.4) accepts the macro
    but some of its headers still name ``::thrust``
    (``thrust/detail/type_traits.h:270``, ``thrust/iterator/detail/tuple_of_iterator_references.h:177``,
    ``thrust/system/hip/detail/sort.h:75``): every unit that includes them fails ("no member named
    'thrust' in the global namespace"). Measured with ROCm 7.2.4's hipcc: ``#include <thrust/sort.h>``
    compiles without the define and fails with it; 21 of 24 sampled units of Ginkgo's own HIP
    build fail this way. A project's own ROCm build that sets it does not build on ROCm 7.2.

    Example
    -------
    .. code-block:: cmake

        target_compile_definitions(kernels PRIVATE THRUST_CUB_WRAPPED_NAMESPACE=proj)

    Use instead
    -----------
    .. code-block:: cmake

        if(NOT HIP_BUILD)  # rocThrust 4.2 cannot be wrapped
          target_compile_definitions(kernels PRIVATE THRUST_CUB_WRAPPED_NAMESPACE=proj)
        endif()

    Fix safety
    ----------
    No fix: without the wrapper, Thrust's symbols are global and may clash with another library's
    Thrust in the same process; that is the project's call.

    References
    ----------
    - https://github.com/ROCm/rocThrust (thrust/detail/config/namespace.h)
    - https://nvidia.github.io/cccl/thrust/api/group__config.html
    """

    code = "BLD009"
    name = "thrust-wrapped-namespace"
    severity = Severity.HIGH
    file_kinds = frozenset({FileKind.CMAKE, FileKind.MAKEFILE})

    def check(self, ctx: FileContext) -> Iterator[Finding]:
        from vado.scan.buildfiles import cmake_commands

        text = ctx.text
        spans: list[tuple[int, int, str]] = []
        if ctx.kind is FileKind.CMAKE:
            cmds, _ = cmake_commands(text)
            conditions: list[str] = []  # the enclosing if()/elseif() conditions, innermost last
            for c in cmds:
                if c.lname == "if":
                    conditions.append(" ".join(a.text for a in c.args))
                elif c.lname in ("elseif", "else") and conditions:
                    conditions[-1] = " ".join(a.text for a in c.args) if c.lname == "elseif" else ""
                elif c.lname == "endif" and conditions:
                    conditions.pop()
                if not _for_rocm(ctx.path, " ".join([*conditions, *(a.text for a in c.args)])):
                    continue
                for a in c.args:
                    m = _WRAPPED_NAMESPACE.search(a.text)
                    # A definition (NAME=VALUE or -DNAME…), not a message or an if() that reads it.
                    if m and c.lname not in ("message", "if", "elseif", "option") and (m.group(2) or "-D" in a.text):
                        at = text.find(m.group(1), a.start, a.end) if not a.quoted else a.start
                        at = a.start if at < 0 else at
                        spans.append((at, at + len(m.group(1)), m.group(2) or ""))
        else:
            for m in _WRAPPED_NAMESPACE.finditer(text):
                line = text[text.rfind("\n", 0, m.start()) + 1:m.start()]
                if "-D" in line[-3:] or m.group(2):
                    spans.append((m.start(1), m.end(1), m.group(2) or ""))
        for start, end, ns in spans:
            yield self.finding(
                ctx, start, end,
                f"THRUST_CUB_WRAPPED_NAMESPACE{'=' + ns if ns else ''} wraps Thrust in the project's namespace; "
                f"rocThrust 4.2.0 (ROCm 7.2.4) breaks under it (its headers name ::thrust: "
                f"{', '.join(_ROCTHRUST_UNWRAPPED)}), so no unit that includes Thrust compiles for ROCm "
                f"until the HIP build leaves the define out",
                per_family(ctx, rocm=MANUAL, scale=AS_IS, zluda=AS_IS),
                effort=Effort(lines=2, constructs=1, hours=1.0),
                data={"namespace": ns, "breaks_own_rocm_build": True},
            )
