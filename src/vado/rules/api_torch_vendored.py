"""API rule about a vendored header a torch extension includes by a quoted relative path (API019).

PyTorch's build-time hipify (``torch.utils.cpp_extension`` on ROCm) follows every quoted ``#include "…"`` of the
sources it hipifies to a header of the project, beside the including file or in an ``include_dirs`` folder, and
rewrites that header too (``hipify_python.mk_repl``: ``include_current_dir=True`` for quoted includes). A vendored
library reached so is rewritten like the extension's own code: glm's ``CUDA_VERSION`` test becomes
``TORCH_HIP_VERSION`` and "GLM requires CUDA 7.0 or higher" stops the TU (ds_splat 0.0.2:
``#include "third_party/glm/glm/glm.hpp"`` in ``cpp/gsplat/helpers.cuh``; 2 of its 6 TUs). BLD008 covers the
library reached through ``include_dirs``; this rule the one reached by a relative path.

hipify matches include lines by their text (``#include "([^"]+)"``); an include whose operand is a macro is not
one, and the compiler resolves it as the quoted include it expands to (beside the including file first). The
port writes the include so on ROCm: hipify then leaves the library as its authors wrote it, and the compiler
takes the library's own HIP path (glm: ``__HIP__``).
"""

from __future__ import annotations

import os
import posixpath
import re
from typing import Iterable

from vado.model import Applicability, Edit, Effort, Finding, Fix, Severity, Verdict
from vado.rules import cuda_syntax as cs
from vado.rules.api_torch import _hipify_changes
from vado.rules.base import FileContext, Rule
from vado.scan.facts import source_facts
from vado.scan.project_headers import in_tree


def _vendored(path: str) -> bool:
    """Whether ``path`` lies under a vendored folder (the scan's: the port leaves those files as they are)."""
    from vado.scan.discover import VENDORED_DIRS

    return any(p.lower() in VENDORED_DIRS for p in posixpath.dirname(path).split("/"))


def macro_name(path: str) -> str:
    """The macro the port names a vendored include by (one per path: the same name in every file)."""
    return "VADO_UNHIPIFIED_" + re.sub(r"\W", "_", path).upper()


class TorchVendoredInclude(Rule):
    """A torch extension includes a vendored header by a quoted relative path: PyTorch's hipify rewrites it.

    What it does
    ------------
    In a PyTorch extension (the tree builds one), reports a quoted ``#include "…"`` of the project's own code
    that reaches a header under a vendored folder (``third_party``, ``3rdparty``, ``vendor``, ``external`` …)
    beside the including file, where PyTorch's hipify would change that header (it, or a header it includes,
    names something hipify renames).

    Why is this bad?
    ----------------
    On a ROCm build ``torch.utils.cpp_extension`` hipifies the sources and every project header their quoted
    includes reach, vendored libraries too: glm's ``CUDA_VERSION`` test becomes ``TORCH_HIP_VERSION`` and the
    TU stops at "GLM requires CUDA 7.0 or higher" (ds_splat 0.0.2: 2 of 6 TUs). The library has its own HIP
    path, which the compiler takes when it reads the headers as written. The CUDA build is not affected.

    Example
    -------
    .. code-block:: cuda

        #include "third_party/glm/glm/glm.hpp"

    Use instead
    -----------
    .. code-block:: cuda

        #if defined(USE_ROCM)
        #define VADO_UNHIPIFIED_THIRD_PARTY_GLM_GLM_GLM_HPP "third_party/glm/glm/glm.hpp"
        #include VADO_UNHIPIFIED_THIRD_PARTY_GLM_GLM_GLM_HPP
        #else
        #include "third_party/glm/glm/glm.hpp"
        #endif

    Fix safety
    ----------
    Safe in the torch-extension port (the only mode that reports it): the ROCm branch includes the same file,
    through a macro hipify does not read as an include; the CUDA build keeps its line. A library that needs
    hipify's renames to build for HIP would then fail to compile, which verify shows.

    References
    ----------
    - PyTorch ``torch/utils/hipify/hipify_python.py`` (``RE_QUOTE_HEADER``, ``mk_repl(…, include_current_dir=True)``:
      the headers a quoted include reaches are hipified; torch 2.13.0)
    - glm ``glm/simd/platform.h`` (``GLM_COMPILER_HIP`` on ``__HIP__``; the ``CUDA_VERSION`` test)
    """

    code = "API019"
    name = "vendored-include-hipified"
    severity = Severity.HIGH
    can_fix = True
    file_kinds = cs.CUDA_CXX_KINDS

    def check(self, ctx: FileContext) -> Iterable[Finding]:
        opts = ctx.options or {}
        root = opts.get("source_root")
        rocm = [t for t in ctx.targets if t.family == "rocm"]
        if not opts.get("torch_extension") or not root or not rocm:
            return
        path = ctx.path.replace(os.sep, "/")
        if _vendored(path):
            return  # the library's own includes: the port leaves vendored code alone
        folder = posixpath.dirname(path)
        for inc in source_facts(ctx).includes:
            if inc.system:
                continue
            target = in_tree(folder, inc.path)
            if target is None or not _vendored(target):
                continue
            if not os.path.isfile(os.path.join(str(root), target)) or not _hipify_changes(str(root), target):
                continue  # not there (an -I of the build finds it), or hipify leaves it as it is
            name = macro_name(inc.path)
            line_end = ctx.text.find("\n", inc.end)
            line_end = len(ctx.text) if line_end < 0 else line_end
            rest = ctx.text[inc.end:line_end]
            fix = None
            if "\\" not in rest:  # a comment after the operand stays on the new include line
                new = f'#define {name} "{inc.path}"\n#include {name}'
                fix = Fix((Edit(ctx.path, inc.directive_start, inc.end, new),), Applicability.SAFE,
                          f'#include "{inc.path}" through a macro on ROCm (PyTorch\'s hipify leaves the vendored '
                          "header as written)", ("torch-include",))
            yield self.finding(
                ctx, inc.start, inc.end,
                f'"{inc.path}" is a vendored header included by a relative path: on a ROCm build PyTorch\'s hipify '
                f"rewrites it and what it includes ({target}: it, or a header it includes, names something hipify "
                "renames), so the library's CUDA tests become HIP ones it was not written for (glm: \"GLM requires "
                "CUDA 7.0 or higher\"); include it through a macro on ROCm, which hipify does not follow",
                {t.name: Verdict.AUTOMATIC if fix else Verdict.MANUAL for t in rocm},
                fix=fix, effort=Effort(lines=2, constructs=1, hours=0.0 if fix else 0.25),
                data={"header": target},
            )
