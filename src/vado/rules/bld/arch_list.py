"""BLD002: NVIDIA compute capabilities in build files (``CMAKE_CUDA_ARCHITECTURES``, ``TORCH_CUDA_ARCH_LIST`` …),
and CMake logic that reads one element of the architecture list as a number."""

from __future__ import annotations

import re
from typing import Iterator

from vado.model import Applicability, Effort, Finding, Fix, Severity
from vado.rules.base import FileContext, Rule
from vado.rules.bld.common import (
    AS_IS,
    AUTO,
    MANUAL,
    build_facts,
    offload_archs,
    per_family,
    torch_extension,
)
from vado.scan.buildfiles import FactKind
from vado.scan.classify import FileKind


class CudaArchitectureList(Rule):
    """CMake names NVIDIA compute capabilities (CUDA_ARCHITECTURES, TORCH_CUDA_ARCH_LIST …).

    What it does
    ------------
    Finds ``CMAKE_CUDA_ARCHITECTURES``, the ``CUDA_ARCHITECTURES`` target
    property, ``TORCH_CUDA_ARCH_LIST`` (in CMake, and the environment variable
    a ``setup.py`` sets or reads) and common user variables that hold
    compute capabilities (``CUDA_ARCH_LIST``, ``GPU_ARCHS`` …).

    Why is this bad?
    ----------------
    ``80;90a`` names NVIDIA GPUs. On ROCm code is built per AMD offload
    architecture (``gfx942`` for MI300X/MI325X, ``gfx950`` for MI355X,
    ``gfx90a`` for MI200), in ``CMAKE_HIP_ARCHITECTURES``/``HIP_ARCHITECTURES``,
    or ``PYTORCH_ROCM_ARCH`` for PyTorch extensions. SCALE maps every compute
    capability to the AMD target of the SCALE installation used, so the list
    can stay (fat binaries over several AMD targets need a SCALE-aware build).
    ZLUDA translates PTX: a list of ``-real`` architectures embeds none.

    Example
    -------
    .. code-block:: cmake

        set(CMAKE_CUDA_ARCHITECTURES 80 90)

    Use instead
    -----------
    .. code-block:: cmake

        set(CMAKE_HIP_ARCHITECTURES gfx942;gfx90a)

    Fix safety
    ----------
    Unsafe: the variable is renamed and its values replaced with the audited
    ROCm targets' architectures (or ``--offload-arch`` given to vado), which
    may not be the GPUs you deploy on. Values that are CMake variables are
    kept. User variables get no fix: their meaning is the project's own.
    In a PyTorch extension ``TORCH_CUDA_ARCH_LIST`` is not renamed: the extension's CUDA build
    reads it, and a ROCm build of PyTorch reads ``PYTORCH_ROCM_ARCH`` instead
    (an info finding names the value to build with).

    References
    ----------
    - https://cmake.org/cmake/help/latest/prop_tgt/HIP_ARCHITECTURES.html
    - https://rocm.docs.amd.com/en/latest/reference/gpu-arch-specs.html
    - https://github.com/spectral-compute/scale-docs (1.4.2/manual/compute-capabilities, commit 3788fd34)
    """

    code = "BLD002"
    can_fix = True
    name = "cuda-architecture-list"
    severity = Severity.MEDIUM
    file_kinds = frozenset({FileKind.CMAKE, FileKind.SETUP_PY})

    RENAMES = {
        "CMAKE_CUDA_ARCHITECTURES": "CMAKE_HIP_ARCHITECTURES",
        "CUDA_ARCHITECTURES": "HIP_ARCHITECTURES",
        "TORCH_CUDA_ARCH_LIST": "PYTORCH_ROCM_ARCH",
    }
    _SETTERS = {"set", "set_property", "set_target_properties", "list"}

    def check(self, ctx: FileContext) -> Iterator[Finding]:
        archs = offload_archs(ctx)
        for f in build_facts(ctx).of(FactKind.CUDA_ARCH):
            var = f.data["variable"]
            values = f.data.get("values", [])
            new = self.RENAMES.get(var)
            # PTX is embedded unless every listed architecture is "-real".
            texts = [v[0] for v in values]
            pieces = [p for t in texts for p in t.replace(";", " ").split()]
            no_ptx = bool(pieces) and all(p.endswith("-real") for p in pieces)
            zluda = MANUAL if no_ptx else AS_IS
            sm = ", ".join(f.data.get("sm", [])) or "from " + (" ".join(texts) or "elsewhere")
            if new is None:
                yield self.finding(
                    ctx, f.start, f.end,
                    f"{var} holds NVIDIA compute capabilities ({sm}); on ROCm the build needs AMD "
                    f"offload architectures such as {';'.join(archs)}",
                    per_family(ctx, rocm=MANUAL, oneapi=MANUAL, scale=AS_IS, zluda=zluda),
                    effort=Effort(lines=1, constructs=1, hours=0.5),
                    data={"variable": var, "sm": f.data.get("sm", []), "offload_arch": list(archs)},
                )
                continue
            if var == "TORCH_CUDA_ARCH_LIST" and torch_extension(ctx):
                # PyTorch's own variable: a CUDA build of the extension still reads it, and a ROCm
                # build of PyTorch reads PYTORCH_ROCM_ARCH instead. Renaming it breaks the CUDA build.
                yield self.finding(
                    ctx, f.start, f.end,
                    f"TORCH_CUDA_ARCH_LIST lists NVIDIA compute capabilities ({sm}) for the CUDA build; "
                    f"leave it: a ROCm build of PyTorch reads PYTORCH_ROCM_ARCH instead "
                    f"(build with PYTORCH_ROCM_ARCH={';'.join(archs)})",
                    per_family(ctx, rocm=AS_IS, oneapi=MANUAL, scale=AS_IS, zluda=zluda),
                    severity=Severity.INFO,
                    effort=Effort(lines=0, constructs=0, hours=0.0),
                    data={"variable": var, "replacement": new, "sm": f.data.get("sm", []), "offload_arch": list(archs)},
                )
                continue
            from_elsewhere = _values_from_elsewhere(f.data.get("command", ""), values, ctx.text, f.start)
            if from_elsewhere and ctx.kind is FileKind.CMAKE:
                # The rename keeps the values; they are NVIDIA's until a person makes them AMD names
                # (tiny-cuda-nn: $ENV{TCNN_CUDA_ARCHITECTURES}, TCNN_AUTODETECT_CUDA_ARCHITECTURES() → "75;86").
                yield self.finding(
                    ctx, f.start, f.end,
                    f"{var} gets its values from {from_elsewhere}; renaming it to {new} keeps them, and on ROCm "
                    f"they must be AMD offload architectures ({';'.join(archs)}), not compute capabilities",
                    per_family(ctx, rocm=MANUAL, oneapi=MANUAL, scale=AS_IS, zluda=AS_IS),
                    effort=Effort(lines=1, constructs=1, hours=0.25),
                    data={"variable": var, "values_from": from_elsewhere, "offload_arch": list(archs)},
                )
            edits = [ctx.edit(f.start, f.end, new)]
            literal = values and not any("$" in v[0] for v in values)
            if f.data.get("command") in self._SETTERS and literal:
                edits.append(ctx.edit(values[0][1], values[-1][2], ";".join(archs)))
            # "and build for …" only where the values are replaced: a rename alone keeps what the project sets.
            does = f"rename {var} to {new}" + (f" and build for {';'.join(archs)}" if len(edits) > 1 else "")
            fix = Fix(tuple(edits), Applicability.UNSAFE, does, ("build",))
            yield self.finding(
                ctx, f.start, f.end,
                f"{var} lists NVIDIA compute capabilities ({sm}); on ROCm use {new} with "
                f"AMD offload architectures ({';'.join(archs)})",
                per_family(ctx, rocm=AUTO, oneapi=MANUAL, scale=AS_IS, zluda=zluda),
                effort=Effort(lines=1, constructs=1, hours=0.0),
                fix=fix,
                data={"variable": var, "replacement": new, "sm": f.data.get("sm", []), "offload_arch": list(archs)},
            )
        if ctx.kind is FileKind.CMAKE:
            for start, end, var, how in _arch_number_uses(ctx.text):
                yield self.finding(
                    ctx, start, end,
                    f"{var} holds one CUDA architecture (a compute capability such as 80), {how}; on ROCm the "
                    f"architecture list holds AMD names ({';'.join(archs)}): a comparison with a number is false "
                    f"and a macro becomes an undeclared identifier, so this logic needs rewriting by hand",
                    per_family(ctx, rocm=MANUAL, oneapi=MANUAL, scale=AS_IS, zluda=AS_IS),
                    effort=Effort(lines=1, constructs=1, hours=0.5),
                    data={"variable": var, "use": how, "offload_arch": list(archs)},
                )


#: CMake commands that read an architecture variable or set it from literal values (BLD002's fix replaces those):
#: any other command naming it (a project's function, ``TCNN_AUTODETECT_CUDA_ARCHITECTURES(CMAKE_CUDA_ARCHITECTURES)``)
#: may set it.
_ARCH_READERS = frozenset({"if", "elseif", "while", "foreach", "message", "string", "list", "set", "unset",
                           "set_property", "set_target_properties", "get_property", "get_target_property",
                           "option", "cmake_dependent_option", "math", "return", "endif", "else", "endforeach",
                           "endwhile", "mark_as_advanced", "separate_arguments", "cmake_parse_arguments"})


def _values_from_elsewhere(command: str, values, text: str, at: int) -> str:
    """Where an architecture variable's values come from when the fix cannot replace them: ``${X}`` /
    ``$ENV{X}`` in ``set()``/``list(APPEND …)``, or a project command that names the variable (an output
    argument); ``""`` when they are literal or the command only reads it."""
    if command in ("set", "list"):
        refs = [v[0] for v in values if "$" in v[0]]
        if command == "list":
            stmt = text[text.rfind("(", 0, at) + 1:at].split()
            if not stmt or stmt[-1] not in ("APPEND", "PREPEND", "INSERT"):
                return ""
        return ", ".join(refs[:2]) if refs else ""
    if command and command not in _ARCH_READERS:
        return f"{command}()"
    return ""


#: CMake ``if()`` operators that compare numbers (or versions): a gfx name compares as neither.
_NUMERIC_OPS = frozenset({"LESS", "GREATER", "EQUAL", "LESS_EQUAL", "GREATER_EQUAL",
                          "VERSION_LESS", "VERSION_GREATER", "VERSION_EQUAL", "VERSION_LESS_EQUAL",
                          "VERSION_GREATER_EQUAL"})
_ARCH_LISTS = frozenset({"CMAKE_CUDA_ARCHITECTURES", "CMAKE_HIP_ARCHITECTURES"})


def _arch_number_uses(text: str) -> list[tuple[int, int, str, str]]:
    """``(start, end, variable, how)`` for each use of a variable holding one element of the CUDA architecture
    list as a number: ``foreach(CC IN LISTS CMAKE_CUDA_ARCHITECTURES)`` or ``list(GET CMAKE_CUDA_ARCHITECTURES 0
    MIN)`` binds it; ``if(CC GREATER 70)`` compares it, ``-DMIN_ARCH=${MIN}`` hands it to the code
    (tiny-cuda-nn's ``TCNN_MIN_GPU_ARCH``). Once the list is ``CMAKE_HIP_ARCHITECTURES`` its elements are
    ``gfx942``: a comparison is false, a macro an undeclared identifier."""
    from vado.scan.buildfiles import cmake_commands

    cmds, problems = cmake_commands(text)
    if problems:
        return []
    bound: set[str] = set()
    for c in cmds:
        words = [a.text for a in c.args]
        if c.lname == "foreach" and len(words) >= 3 and words[1:3] == ["IN", "LISTS"] and _ARCH_LISTS & set(words[3:]):
            bound.add(words[0])
        elif c.lname == "list" and len(words) >= 4 and words[0] == "GET" and words[1] in _ARCH_LISTS:
            bound.add(words[-1])
    if not bound:
        return []
    uses = []
    for c in cmds:
        words = [a.text for a in c.args]
        if c.lname in ("if", "elseif", "while"):
            for k, a in enumerate(c.args):
                var = a.text[2:-1] if a.text.startswith("${") and a.text.endswith("}") else a.text
                near = {words[k - 1] if k else "", words[k + 1] if k + 1 < len(words) else ""}
                if var in bound and near & _NUMERIC_OPS:
                    uses.append((a.start, a.end, var, "compared as a number"))
        else:
            for a in c.args:
                for var in bound:
                    if f"${{{var}}}" in a.text and re.match(r"-D\w+=", a.text):
                        uses.append((a.start, a.end, var, "defined as a macro for the code"))
    return uses
