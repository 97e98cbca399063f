"""BLD rules: CUDA in build files (CMake, Makefiles, setup.py).

The facts come from :mod:`vado.scan.buildfiles`; every finding's span is the
exact text a port rewrites (the ``CUDA`` of ``project(... CUDA)``, one flag
and its value, one library name). Verdicts per target family:

- ``rocm``: build files move with edits where the rewrite is mechanical
  (``CUDA`` → ``HIP``, ``-arch=sm_80`` → ``--offload-arch=gfx942``,
  ``-lcublas`` → ``-lhipblas``), else they need manual work.
- ``oneapi``: a SYCL build (``icpx -fsycl``) is a different build; always manual.
- ``scale``: SCALE ships an nvcc-compatible compiler and a "CUDA installation
  directory" per AMD target that maps every compute capability to that
  target, so CUDA build files mostly move as they are.
- ``zluda``: the build stays an NVIDIA CUDA build (ZLUDA runs the binary), so
  build files move as they are, except that ZLUDA translates the PTX in the
  binary: a build that embeds no PTX gives it nothing to run.

Offload architectures for rewrites come from ``ctx.options["offload_arch"]``
(a string or a list) or else the ``default_arch`` of the audited ROCm targets.
"""

from __future__ import annotations

import ast
import functools
import re
from dataclasses import dataclass
from typing import Iterator

from vado.model import Applicability, Effort, Finding, Fix, Severity, Target, Verdict
from vado.rules.base import FileContext, Rule
from vado.scan.buildfiles import BuildFact, BuildFacts, FactKind, parse_cmake, parse_makefile, parse_setup_py_build
from vado.scan.classify import FileKind

_AS_IS = Verdict.MOVES_AS_IS
_AUTO = Verdict.AUTOMATIC
_MANUAL = Verdict.MANUAL
_BLOCKED = Verdict.BLOCKED


def build_facts(ctx: FileContext) -> BuildFacts:
    """The file's build facts, parsed once per file and shared by the BLD rules."""
    cached = getattr(ctx, "_vado_build_facts", None)
    if cached is not None:
        return cached
    if ctx.kind is FileKind.CMAKE:
        facts = parse_cmake(ctx.text, ctx.path)
    elif ctx.kind is FileKind.MAKEFILE:
        facts = parse_makefile(ctx.text, ctx.path)
    elif ctx.kind is FileKind.SETUP_PY or (ctx.kind is FileKind.PYTHON and builds_just_in_time(ctx.text)):
        facts = parse_setup_py_build(ctx.text, ctx.path)
    else:
        facts = BuildFacts(ctx.path)
    setattr(ctx, "_vado_build_facts", facts)
    return facts


#: A Python module that compiles a torch extension when it runs: ``torch.utils.cpp_extension``'s ``load`` or
#: ``load_inline`` (adafactor8bit 0.4.6's optimizer.py, accelerated-scan 0.3.1's warp.py).
_JIT_BUILD = re.compile(r"\bload(?:_inline)?\s*\(")


def builds_just_in_time(text: str) -> bool:
    """Whether a Python module (not setup.py) may build a torch extension at run time with
    ``torch.utils.cpp_extension.load``/``load_inline``: its nvcc flags reach hipcc on ROCm as setup.py's do
    (which calls are cpp_extension's is decided by :func:`vado.scan.buildfiles.parse_setup_py_build`)."""
    return "cpp_extension" in text and re.search(r"\bcpp_extension\b", text) is not None and _JIT_BUILD.search(text) is not None


def offload_archs(ctx: FileContext) -> tuple[str, ...]:
    """AMD offload architectures for rewrites: the user's choice, else the ROCm targets' defaults."""
    opt = ctx.options.get("offload_arch")
    if opt:
        archs = (opt,) if isinstance(opt, str) else tuple(opt)
        return tuple(a for part in archs for a in str(part).replace(",", ";").split(";") if a)
    out: list[str] = []
    for t in ctx.targets:
        if t.family == "rocm":
            out += [a for a in t.default_arch if a not in out]
    return tuple(out) or ("gfx942",)


def per_family(ctx: FileContext, **by_family: Verdict | None) -> dict[str, Verdict]:
    """``{target name: verdict}`` from a verdict per target family (absent family: not affected)."""
    out: dict[str, Verdict] = {}
    for t in ctx.targets:
        v = by_family.get(t.family)
        if v is not None:
            out[t.name] = v
    return out


def _fix(ctx: FileContext, f: BuildFact, content: str, safety: Applicability, description: str) -> Fix:
    start = f.start
    if not content:
        # Dropping a flag also drops the blanks before it (`-O3 -Xptxas -v` becomes `-O3`, not `-O3 `),
        # unless they are the line's indentation.
        k = start
        while k > 0 and ctx.text[k - 1] in " \t":
            k -= 1
        if k > 0 and ctx.text[k - 1] not in "\n\r(=":
            start = k
    return Fix((ctx.edit(start, f.end, content),), safety, description, ("build",))


# ---------------------------------------------------------------------------


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
                    per_family(ctx, rocm=_AUTO, oneapi=_MANUAL, scale=_AS_IS, zluda=_AS_IS),
                    effort=Effort(lines=1, constructs=1, hours=0.25),
                    fix=_fix(ctx, f, "HIP", Applicability.UNSAFE, "enable the HIP language instead of CUDA"),
                    data={"construct": f.context, "replacement": "HIP"},
                )
            elif f.kind is FactKind.FIND_CUDA:
                pkg = f.data.get("package", f.text)
                if pkg == "CUDAToolkit":
                    yield self.finding(
                        ctx, f.start, f.end,
                        "find_package(CUDAToolkit) finds NVIDIA's toolkit; on ROCm use find_package(hip) "
                        "and the hip::host/hip::device targets",
                        per_family(ctx, rocm=_AUTO, oneapi=_MANUAL, scale=_AS_IS, zluda=_AS_IS),
                        effort=Effort(lines=1, constructs=1, hours=0.25),
                        fix=_fix(ctx, f, "hip", Applicability.UNSAFE, "find the HIP package instead of CUDAToolkit"),
                        data={"package": pkg, "replacement": "hip"},
                    )
                elif pkg == "CUDA":
                    yield self.finding(
                        ctx, f.start, f.end,
                        "find_package(CUDA) uses the deprecated FindCUDA module; on ROCm rewrite it as "
                        "find_package(hip) with the HIP language (its CUDA_* variables have no HIP twins)",
                        per_family(ctx, rocm=_MANUAL, oneapi=_MANUAL, scale=_AS_IS, zluda=_AS_IS),
                        effort=Effort(lines=1, constructs=1, hours=1.0),
                        data={"package": pkg},
                    )
            elif f.kind is FactKind.CUDA_COMMAND:
                yield self.finding(
                    ctx, f.start, f.end,
                    f"{f.text}() is a FindCUDA macro; on ROCm use add_library/add_executable with the "
                    "sources marked LANGUAGE HIP",
                    per_family(ctx, rocm=_MANUAL, oneapi=_MANUAL, scale=_AS_IS, zluda=_AS_IS),
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
                        per_family(ctx, rocm=_MANUAL, oneapi=_MANUAL, scale=_AS_IS, zluda=_AS_IS),
                        effort=Effort(lines=1, constructs=1, hours=0.25),
                        severity=Severity.LOW,
                        data={"variable": var},
                    )
                elif new is None:
                    yield self.finding(
                        ctx, f.start, f.end,
                        f"{var} configures nvcc; it has no HIP twin and needs a hand-written equivalent on ROCm",
                        per_family(ctx, rocm=_MANUAL, oneapi=_MANUAL, scale=_AS_IS, zluda=_AS_IS),
                        effort=Effort(lines=1, constructs=1, hours=0.5),
                        severity=Severity.LOW,
                        data={"variable": var},
                    )
                else:
                    yield self.finding(
                        ctx, f.start, f.end,
                        f"${{{var}}} reads a CUDA-language setting; on ROCm read {new}" if ref
                        else f"{var} configures the CUDA language; on ROCm it is {new}",
                        per_family(ctx, rocm=_AUTO, oneapi=_MANUAL, scale=_AS_IS, zluda=_AS_IS),
                        effort=Effort(lines=1, constructs=1, hours=0.0),
                        fix=_fix(ctx, f, new, Applicability.UNSAFE, f"rename {var} to {new}"),
                        severity=Severity.INFO if ref else Severity.LOW,
                        data={"variable": var, "replacement": new},
                    )


_TORCH_SIGNS = {
    FileKind.SETUP_PY: re.compile(r"\bCUDAExtension\b|torch\.utils\.cpp_extension"),
    FileKind.CMAKE: re.compile(r"find_package\s*\(\s*Torch\b", re.I),
}


def _torch_extension(ctx: FileContext) -> bool:
    """Whether ``ctx``'s file belongs to a PyTorch extension: the port says so (rule option
    ``torch_extension``, :mod:`vado.port.torch_ext`), or the file itself builds one
    (``CUDAExtension``/``torch.utils.cpp_extension`` in setup.py, ``find_package(Torch)`` in CMake)."""
    if (ctx.options or {}).get("torch_extension"):
        return True
    sign = _TORCH_SIGNS.get(ctx.kind)
    return bool(sign and sign.search(ctx.text))


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
            zluda = _MANUAL if no_ptx else _AS_IS
            sm = ", ".join(f.data.get("sm", [])) or "from " + (" ".join(texts) or "elsewhere")
            if new is None:
                yield self.finding(
                    ctx, f.start, f.end,
                    f"{var} holds NVIDIA compute capabilities ({sm}); on ROCm the build needs AMD "
                    f"offload architectures such as {';'.join(archs)}",
                    per_family(ctx, rocm=_MANUAL, oneapi=_MANUAL, scale=_AS_IS, zluda=zluda),
                    effort=Effort(lines=1, constructs=1, hours=0.5),
                    data={"variable": var, "sm": f.data.get("sm", []), "offload_arch": list(archs)},
                )
                continue
            if var == "TORCH_CUDA_ARCH_LIST" and _torch_extension(ctx):
                # PyTorch's own variable: a CUDA build of the extension still reads it, and a ROCm
                # build of PyTorch reads PYTORCH_ROCM_ARCH instead. Renaming it breaks the CUDA build.
                yield self.finding(
                    ctx, f.start, f.end,
                    f"TORCH_CUDA_ARCH_LIST lists NVIDIA compute capabilities ({sm}) for the CUDA build; "
                    f"leave it: a ROCm build of PyTorch reads PYTORCH_ROCM_ARCH instead "
                    f"(build with PYTORCH_ROCM_ARCH={';'.join(archs)})",
                    per_family(ctx, rocm=_AS_IS, oneapi=_MANUAL, scale=_AS_IS, zluda=zluda),
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
                    per_family(ctx, rocm=_MANUAL, oneapi=_MANUAL, scale=_AS_IS, zluda=_AS_IS),
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
                per_family(ctx, rocm=_AUTO, oneapi=_MANUAL, scale=_AS_IS, zluda=zluda),
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
                    per_family(ctx, rocm=_MANUAL, oneapi=_MANUAL, scale=_AS_IS, zluda=_AS_IS),
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


def _xcompiler(value: str) -> str:
    return " ".join(p for p in value.replace(",", " ").split() if p)


class NvccCommandOrFlag(Rule):
    """A Makefile or CMake file calls nvcc or passes nvcc-only flags.

    What it does
    ------------
    Finds ``nvcc`` invocations (``nvcc``, ``$(CUDA_PATH)/bin/nvcc``, ``$(NVCC)``)
    and nvcc-only flags: ``-arch=sm_XX``, ``-gencode arch=compute_XX,code=sm_XX``,
    ``--use_fast_math``, ``-Xptxas``, ``-Xcompiler``, ``-Xnvlink``,
    ``--expt-relaxed-constexpr``, ``--extended-lambda``, ``-lineinfo``,
    ``-maxrregcount``, ``--threads``, ``-cudart``, ``--default-stream``,
    ``-ccbin``, and ``CUDA_PATH``/``CUDA_HOME``//usr/local/cuda paths.
    (``-rdc`` and device linking are BLD006.)

    Why is this bad?
    ----------------
    hipcc is clang. Measured with hipcc 5.2 (clang 15, ``--offload-arch=gfx90a``):
    ``--use_fast_math``, ``--expt-relaxed-constexpr``, ``--expt-extended-lambda``,
    ``-gencode`` and ``--threads`` are errors; ``-arch=sm_80``, ``-lineinfo`` and
    ``-Xcompiler`` are ignored with a warning; ``-Xptxas -v`` drops ``-Xptxas`` and
    turns on clang's verbose mode; single-dash ``-use_fast_math`` is read as
    ``-u se_fast_math`` and silently does nothing. SCALE's nvcc accepts nvcc's
    flags and ZLUDA keeps the NVIDIA build, so both move as they are.

    Example
    -------
    .. code-block:: make

        NVCC = nvcc
        NVCCFLAGS = -O3 -arch=sm_80 --use_fast_math -Xptxas -v -Xcompiler -fPIC

    Use instead
    -----------
    .. code-block:: make

        NVCC = hipcc
        NVCCFLAGS = -O3 --offload-arch=gfx942 -ffast-math -fPIC

    Fix safety
    ----------
    Safe for flags that only steer nvcc's own tools or that clang does by
    default (``-Xptxas …``, ``-Xnvlink …``, ``--expt-*``, ``--extended-lambda``,
    ``--threads N``, ``-Wno-deprecated-gpu-targets`` are dropped;
    ``-Xcompiler X`` becomes ``X``; ``-lineinfo`` becomes ``-gline-tables-only``).
    Unsafe where behaviour or the chosen GPU may change: ``-arch``/``-gencode`` →
    ``--offload-arch=<the audited ROCm architectures>``, ``--use_fast_math`` →
    ``-ffast-math`` (clang's also assumes no NaN/Inf), ``nvcc`` → ``hipcc``,
    ``-ccbin``/``-cudart`` dropped, ``--default-stream per-thread`` →
    ``-fgpu-default-stream=per-thread``. ``-maxrregcount`` and CUDA paths get
    no fix (use ``__launch_bounds__``; point paths at ``$(ROCM_PATH)``).
    An architecture flag built from a Make variable that only an ``ifneq ($(V),)``
    (or ``ifdef V``) around it guards (llm.c's ``GPU_COMPUTE_CAPABILITY``, read from
    ``nvidia-smi``) loses that guard with the same fix: the AMD list names no
    ``$(V)``, and the guard would drop it on a machine without ``nvidia-smi``.

    References
    ----------
    - https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/hip_porting_guide.html
    - https://clang.llvm.org/docs/ClangCommandLineReference.html
    - https://docs.nvidia.com/cuda/cuda-compiler-driver-nvcc/
    """

    code = "BLD003"
    can_fix = True
    name = "nvcc-command-or-flag"
    severity = Severity.MEDIUM
    file_kinds = frozenset({FileKind.MAKEFILE, FileKind.CMAKE})

    SAFE_DROP = {"xptxas", "xnvlink", "xcudafe", "expt", "threads", "deprecated-targets", "diag"}
    UNSAFE_DROP = {"ccbin", "cudart"}

    def check(self, ctx: FileContext) -> Iterator[Finding]:
        facts = build_facts(ctx)
        archs = offload_archs(ctx)
        arch_flag = " ".join(f"--offload-arch={a}" for a in archs)
        flags = facts.of(FactKind.NVCC_FLAG)
        embeds_ptx = any(_embeds_ptx(f) for f in flags if f.data.get("flag") in ("arch", "gencode"))
        # One --offload-arch list per statement: `-gencode …80 -gencode …90` becomes the list once.
        arch_seen: set[int] = set()
        for f in facts.of(FactKind.NVCC, FactKind.NVCC_FLAG, FactKind.CUDA_PATH):
            if f.kind is FactKind.NVCC:
                if not _defined_without_nvcc(ctx, f):
                    yield self._nvcc(ctx, f)
                continue
            if f.kind is FactKind.CUDA_PATH:
                if f.data.get("form") == "reference":
                    continue  # the definition is reported; its uses follow it
                yield self.finding(
                    ctx, f.start, f.end,
                    f"{f.text} points at NVIDIA's CUDA toolkit; on ROCm use ROCM_PATH (/opt/rocm)",
                    per_family(ctx, rocm=_MANUAL, oneapi=_MANUAL, scale=_AS_IS, zluda=_AS_IS),
                    effort=Effort(lines=1, constructs=1, hours=0.1),
                    severity=Severity.LOW,
                    data={"path": f.text},
                )
                continue
            kind = f.data["flag"]
            if kind == "cuda-half-undef":
                continue  # HIP's own headers leave half operators on unless asked: harmless outside PyTorch
            value = f.data.get("value", "")
            content: str | None = None
            safety = Applicability.SAFE
            zluda = _AS_IS
            if kind in ("arch", "gencode"):
                statement = _statement_start(ctx, f.start)
                first = statement not in arch_seen
                arch_seen.add(statement)
                content, safety = (arch_flag if first else ""), Applicability.UNSAFE
                zluda = _AS_IS if embeds_ptx else _MANUAL
                msg = (f"{f.text} builds for NVIDIA {', '.join('sm_' + s for s in f.data.get('sm', [])) or 'GPUs'}; "
                       f"hipcc builds for AMD offload architectures ({arch_flag}"
                       + (")" if first else ", given once by the first architecture flag of this line)"))
                if not embeds_ptx:
                    msg += "; no PTX is embedded, which ZLUDA needs"
            elif kind == "language":
                content, safety = "-x hip", Applicability.UNSAFE
                msg = f"{f.text} is nvcc's name for CUDA source; hipcc (clang) compiles HIP with -x hip"
            elif kind == "fast-math":
                content, safety = "-ffast-math", Applicability.UNSAFE
                msg = f"{f.text} is nvcc-only (hipcc: unsupported option); clang's -ffast-math is the closest"
            elif kind == "xcompiler":
                # A quoted list split across words (`-Xcompiler "-fPIC -Wall"`) is read one word at a
                # time: rewriting the first would leave the closing quote behind.
                content = None if (f.text.count('"') % 2 or f.text.count("'") % 2) else _xcompiler(value)
                msg = f"{f.text} passes host-compiler flags through nvcc; hipcc is clang and takes them directly"
            elif kind == "lineinfo":
                content = "-gline-tables-only"
                msg = f"{f.text} is nvcc-only (hipcc ignores it); clang's -gline-tables-only gives line info"
            elif kind == "default-stream":
                if value == "per-thread":
                    content, safety = "-fgpu-default-stream=per-thread", Applicability.UNSAFE
                else:
                    content, safety = "", Applicability.UNSAFE
                msg = f"{f.text} is nvcc-only; clang spells it -fgpu-default-stream="
            elif kind == "maxrregcount":
                msg = f"{f.text} caps registers in nvcc; HIP has no flag for it (use __launch_bounds__)"
            elif kind == "nvcc-only":
                content, safety = _nvcc_only_for_hipcc(f.data.get("option", ""), value), Applicability.UNSAFE
                msg = (f"{f.text} is an option of nvcc's own (code generation, fatbinary or diagnostics); "
                       "hipcc (clang) rejects it as an unknown argument")
            elif kind in self.SAFE_DROP:
                content = ""
                msg = f"{f.text} only steers NVIDIA's tools (ptxas/nvlink) or what clang does by default; drop it"
            else:  # ccbin, cudart
                content, safety = "", Applicability.UNSAFE
                msg = f"{f.text} is nvcc-only; hipcc is clang and links the HIP runtime itself"
            fix = None
            cuda_var = _cuda_only_variable(ctx, f.start) if ctx.kind is FileKind.CMAKE else ""
            if cuda_var and content is not None:
                # Only nvcc reads this variable until BLD001 renames it (an unsafe fix): a safe drop alone
                # would take the flag from the CUDA build of a project that keeps its CUDA build files
                # (its own ROCm build, a torch extension: torch_scatter's --expt-relaxed-constexpr).
                safety = Applicability.UNSAFE
                msg += f"; with {cuda_var}'s rename (only nvcc reads {cuda_var})"
            if content is not None:
                fix = _fix(ctx, f, content, safety, f"replace {f.text!r} with {content!r}" if content else f"drop {f.text!r}")
                if content and kind in ("arch", "gencode") and ctx.kind is FileKind.MAKEFILE:
                    guard = _arch_guard(ctx, f, [a for a in flags if a.data.get("flag") in ("arch", "gencode")])
                    if guard is not None:
                        var, edits = guard
                        fix = Fix(fix.edits + edits, safety, fix.description + f" outside the ifneq on $({var}) "
                                  "(the AMD architectures do not depend on it)", fix.tags)
                        msg += f"; the condition on $({var}) that guarded it goes with it"
            yield self.finding(
                ctx, f.start, f.end, msg,
                per_family(ctx, rocm=_AUTO if fix else _MANUAL, oneapi=_MANUAL, scale=_AS_IS, zluda=zluda),
                effort=Effort(lines=1, constructs=1, hours=0.0 if fix else 0.5),
                fix=fix,
                severity=Severity.LOW if kind in self.SAFE_DROP or kind in ("lineinfo", "xcompiler") else None,
                data={"flag": kind, "option": f.data.get("option", ""), "value": value,
                      "replacement": content, "offload_arch": list(archs)},
            )

    def _nvcc(self, ctx: FileContext, f: BuildFact) -> Finding:
        is_ref = f.text.startswith("$")
        if ctx.kind is FileKind.CMAKE:
            return self.finding(
                ctx, f.start, f.end,
                f"{f.text} names nvcc; CMake's HIP language uses ROCm's clang (CMAKE_HIP_COMPILER), not nvcc",
                per_family(ctx, rocm=_MANUAL, oneapi=_MANUAL, scale=_AS_IS, zluda=_AS_IS),
                effort=Effort(lines=1, constructs=1, hours=0.25),
                data={"compiler": f.text},
            )
        fix = None if is_ref else _fix(ctx, f, "hipcc", Applicability.UNSAFE, "compile with hipcc")
        return self.finding(
            ctx, f.start, f.end,
            f"{f.text} invokes nvcc; on ROCm compile with hipcc" + (" (fix its definition)" if is_ref else ""),
            per_family(ctx, rocm=_AUTO, oneapi=_MANUAL, scale=_AS_IS, zluda=_AS_IS),
            effort=Effort(lines=1, constructs=1, hours=0.0),
            fix=fix,
            severity=Severity.LOW if is_ref else None,
            data={"compiler": f.text, "replacement": None if is_ref else "hipcc"},
        )


def _statement_end(text: str, at: int) -> int:
    """The end of the Makefile line holding ``at`` and the lines it continues, its line break included."""
    while True:
        eol = text.find("\n", at)
        if eol < 0:
            return len(text)
        line = text[text.rfind("\n", 0, eol) + 1 : eol].rstrip("\r")
        if not (line.endswith("\\") and not line.endswith("\\\\")):
            return eol + 1
        at = eol + 1


def _arch_guard(ctx: FileContext, f: BuildFact, arch_facts: list[BuildFact]) -> tuple[str, tuple] | None:
    """``(V, edits removing the if and endif lines)`` when the arch flag ``f`` is built from ``$(V)``
    and sits alone in an ``ifneq ($(V),)``/``ifdef V`` block without ``else``; else None.

    Only a block whose one statement is this flag's line, and a line that names ``$(V)`` only in its
    architecture flags, is unwrapped: anything else the condition guards keeps its guard.
    """
    from vado.scan.buildfiles import makefile_conditionals, tested_for_value

    text = ctx.text
    around = [c for c in makefile_conditionals(text) if c.body <= f.start < c.end_line]
    if not around:
        return None
    block = max(around, key=lambda c: c.start)
    var = tested_for_value(block)
    if not var or block.has_else or not _names(f.text, var):
        return None
    start = _statement_start(ctx, f.start)
    end = _statement_end(text, f.start)
    rest = "".join(line for line in (text[block.body:start] + text[end:block.end_line]).splitlines(keepends=True)
                   if line.strip() and not line.lstrip().startswith("#"))
    if rest:
        return None
    spans = sorted((a.start, a.end) for a in arch_facts if start <= a.start < end)
    kept, at = [], start
    for s, e in spans:
        kept.append(text[at:s])
        at = max(at, e)
    kept.append(text[at:end])
    if _names("".join(kept), var):
        return None
    return var, (ctx.edit(block.start, block.body, ""), ctx.edit(block.end_line, block.end, ""))


def _names(text: str, var: str) -> bool:
    return f"$({var})" in text or "${" + var + "}" in text


_CUDA_ONLY_VARIABLE = re.compile(r"(?:set|string|list)\s*\(\s*(?:APPEND\s+)?(CMAKE_CUDA_FLAGS(?:_\w+)?|CUDA_NVCC_FLAGS(?:_\w+)?)\b",
                                 re.I)


def _cuda_only_variable(ctx: FileContext, at: int) -> str:
    """The CUDA-only variable (``CMAKE_CUDA_FLAGS[_<CONFIG>]``, ``CUDA_NVCC_FLAGS``) the CMake
    statement holding ``at`` sets or appends to, else ``""``."""
    m = _CUDA_ONLY_VARIABLE.match(ctx.text, _statement_start(ctx, at))
    return m.group(1) if m else ""


def _statement_start(ctx: FileContext, at: int) -> int:
    """Where the statement holding offset ``at`` starts: its CMake command, or its Makefile line with
    the lines it continues (backslash-newline)."""
    text = ctx.text
    if ctx.kind is FileKind.CMAKE:
        from vado.scan.buildfiles import cmake_commands

        cmds, _ = cmake_commands(text)
        for c in cmds:
            if c.start <= at < c.end:
                return c.start
        return at
    start = text.rfind("\n", 0, at) + 1
    while start > 1 and text[start - 2] == "\\":
        start = text.rfind("\n", 0, start - 1) + 1
    return start


def _defined_without_nvcc(ctx: FileContext, f: BuildFact) -> bool:
    """Whether ``$(NVCC)`` refers to a variable this Makefile defines, and no definition names nvcc.

    After a port (``NVCC ?= hipcc``) the reference compiles with hipcc; a variable
    defined elsewhere (an included file, the environment) is still reported.
    """
    if ctx.kind is not FileKind.MAKEFILE or not f.text.startswith("$"):
        return False
    name = f.text[2:-1] if f.text[1:2] in ("(", "{") else f.text[1:]
    if not name or not all(ch.isalnum() or ch == "_" for ch in name):
        return False
    found = False
    for line in ctx.text.splitlines():
        head, sep, value = line.partition("=")
        if not sep:
            continue
        words = head.rstrip(":?+!").split()
        if words and words[-1] == name and (len(words) == 1 or words[0] in ("override", "export")):
            if "nvcc" in value:
                return False
            found = True
    return found


def _embeds_ptx(f: BuildFact) -> bool:
    """Whether an arch flag puts PTX in the binary (``-arch=sm_80`` does; ``code=sm_80`` alone does not)."""
    text = f.text
    if f.data.get("flag") == "gencode":
        code = text.split("code=", 1)[1] if "code=" in text else ""
        return "compute_" in code
    option = f.data.get("option", "")
    return option in ("-arch", "--gpu-architecture") or "compute_" in text


class CudaLibraryLink(Rule):
    """A build file links a CUDA library (-lcublas, CUDA::cublas, cudnn …).

    What it does
    ------------
    Finds CUDA libraries in link lines: ``-lcudart -lcublas`` in Makefiles,
    ``CUDA::cublas`` imported targets, bare ``cublas``/``cudnn`` in
    ``target_link_libraries``, FindCUDA's ``${CUDA_CUBLAS_LIBRARIES}``,
    ``find_package(CUDNN|NCCL)`` and ``libraries=[...]`` of a torch extension.

    Why is this bad?
    ----------------
    NVIDIA's libraries do not exist on AMD GPUs. Each has a ROCm counterpart
    with its own link name (``hipblas``/``roc::hipblas``, ``amdhip64``/``hip::host``,
    ``hipfft``, ``rccl``, ``MIOpen`` …) whose API is a drop-in, near drop-in or
    a rework (cuDNN → MIOpen is a rework). SCALE forwards some CUDA libraries
    to ROCm ones and ZLUDA ships shims for some; what the knowledge base says
    about each decides the verdict.

    Example
    -------
    .. code-block:: cmake

        target_link_libraries(app PRIVATE CUDA::cudart CUDA::cublas)

    Use instead
    -----------
    .. code-block:: cmake

        find_package(hipblas REQUIRED)
        target_link_libraries(app PRIVATE hip::host roc::hipblas)

    Fix safety
    ----------
    Unsafe. For libraries whose ROCm API is a drop-in or near drop-in the link
    name changes (the port adds the matching ``find_package``; the source's API
    names change by the LIB/API rules). A library whose ROCm counterpart is a
    rework (cuDNN, NVML, CUPTI, NPP, nvJPEG) or missing is dropped from
    Makefile and CMake link lines: no ROCm library has that name, so the link
    could only fail, and code that calls it is reported by the LIB rules.
    FindCUDA variables and setup.py lists (shared with CUDA builds) get no fix.

    References
    ----------
    - https://rocm.docs.amd.com/en/latest/reference/api-libraries.html
    - https://rocm.docs.amd.com/en/latest/conceptual/cmake-packages.html
    - https://github.com/ROCm/HIPIFY
    """

    code = "BLD004"
    can_fix = True
    name = "cuda-library-link"
    severity = Severity.MEDIUM
    # A Python module that builds a torch extension just in time (load(..., extra_ldflags=["-lcublas"])) too.
    file_kinds = frozenset({FileKind.CMAKE, FileKind.MAKEFILE, FileKind.SETUP_PY, FileKind.PYTHON})

    def check(self, ctx: FileContext) -> Iterator[Finding]:
        from vado.knowledge.libraries import library_for_link

        if ctx.kind is FileKind.PYTHON and not builds_just_in_time(ctx.text):
            return
        facts = build_facts(ctx)
        shape = _setup_shape(ctx.text) if ctx.kind in (FileKind.SETUP_PY, FileKind.PYTHON) else None
        for f in facts.of(FactKind.CUDA_LIBRARY, FactKind.FIND_CUDA):
            if shape is not None and shape.guarded(f.start):
                continue  # in a branch only CUDA builds of PyTorch take (`[...] if torch.version.hip else [...]`)
            if f.kind is FactKind.FIND_CUDA:
                pkg = f.data.get("package", "")
                if pkg in ("CUDA", "CUDAToolkit"):
                    continue  # BLD001
                lib_name, form = pkg.lower(), "package"
            else:
                lib_name, form = f.data["library"], f.data.get("form", "name")
            lib = library_for_link(("CUDA::" + lib_name) if form == "CUDA::" else lib_name) or library_for_link(lib_name)
            if lib is None:
                yield self.finding(
                    ctx, f.start, f.end,
                    f"{f.text} links NVIDIA's {lib_name}; vado's library table has no entry for it",
                    per_family(ctx, rocm=_MANUAL, oneapi=_MANUAL, scale=_MANUAL, zluda=_MANUAL),
                    effort=Effort(lines=1, constructs=1, hours=1.0),
                    data={"library": lib_name},
                )
                continue
            yield self._finding(ctx, f, lib, lib_name, form)

    def _finding(self, ctx: FileContext, f: BuildFact, lib, lib_name: str, form: str) -> Finding:
        rocm = lib.on("rocm")
        shape = rocm.api_shape if rocm else "none"
        replacement = _rocm_link(rocm, form, bool(ctx.options.get("roc"))) if rocm else ""
        verdicts: dict[str, Verdict] = {}
        for t in ctx.targets:
            verdicts[t.name] = _library_verdict(t, lib, bool(replacement))
        fix = None
        if replacement and shape in ("drop-in", "near-drop-in") and form in ("-l", "CUDA::", "name"):
            content = ("-l" + replacement) if form == "-l" else replacement
            torch_build = ctx.kind is FileKind.PYTHON or (ctx.kind is FileKind.SETUP_PY and _torch_extension(ctx))
            fix = (_setup_link_fix(ctx, f, content) if torch_build else
                   _fix(ctx, f, content, Applicability.UNSAFE, f"link {content} instead of {f.text}"))
            if fix is None:  # a torch setup.py where no conditional link can be written: a person's edit
                verdicts = {k: (_MANUAL if v is _AUTO else v) for k, v in verdicts.items()}
        else:
            verdicts = {k: (_MANUAL if v is _AUTO else v) for k, v in verdicts.items()}
            if form in ("-l", "CUDA::", "name") and ctx.kind not in (FileKind.SETUP_PY, FileKind.PYTHON):
                # No ROCm library answers to this name: the link can only fail. Code that calls the
                # library fails to compile and is reported by the LIB rules; code that tests for it
                # (`#if __has_include(<nvml.h>)`) builds without it.
                fix = _fix(ctx, f, "", Applicability.UNSAFE,
                           f"drop {f.text} (no ROCm library of that name; port its calls by hand)")
        equivalent = _short((rocm.hip_wrapper or rocm.equivalent or replacement) if rocm else "")
        if rocm and replacement and shape in ("drop-in", "near-drop-in"):
            msg = f"{f.text} links {lib.name}; on ROCm link {replacement} ({equivalent}, API {shape})"
        elif rocm and replacement:
            msg = (f"{f.text} links {lib.name}; its ROCm counterpart ({replacement}: {equivalent}) "
                   f"is an API rework, not a rename")
        else:
            msg = f"{f.text} links {lib.name}, which has no ROCm counterpart in vado's table"
        return self.finding(
            ctx, f.start, f.end, msg, verdicts,
            effort=Effort(lines=1, constructs=1, hours=0.0 if fix and fix.edits[0].content else 2.0),
            fix=fix,
            data={"library": lib.id, "link": f.text, "replacement": replacement, "api_shape": shape},
        )


def _setup_link_fix(ctx: FileContext, f: BuildFact, content: str) -> Fix | None:
    """A torch extension's setup.py serves CUDA and ROCm builds: a CUDA library that is one quoted item of a list
    display (``libraries=["cublas"]``, ``extra_link_args=["-lcudart"]``) becomes
    ``*(["hipblas"] if torch.version.hip else ["cublas"])``; None where that cannot be written (no name to test
    bound there, not a whole list item), so the finding stays without a fix rather than break the CUDA build."""
    test, bind = _hip_test(ctx.text, f.start), None
    if test is None and _TORCH_IMPORTED.search(ctx.text):
        bind = _torch_import_edit(ctx.text, f.start)  # `import torch` where it can be bound, as BLD005's flag fixes do
        test = "torch.version.hip" if bind is not None else None
    text, qs, qe = ctx.text, f.start - 1, f.end
    if test is None or qs < 0 or qe >= len(text) or text[qs] not in "\"'" or text[qe] != text[qs]:
        return None
    before, after = text[:qs].rstrip()[-1:], text[qe + 1:].lstrip()[:1]
    if before not in ("[", ",") or after not in ("]", ",", "#"):
        return None
    q = text[qs]
    new = f"*([{q}{content}{q}] if {test} else [{text[qs:qe + 1]}])"
    edits = (ctx.edit(qs, qe + 1, new),)
    if bind is not None:
        edits = (ctx.edit(bind[0], bind[0], bind[1]),) + edits
    return Fix(edits, Applicability.UNSAFE,
               f"link {content} instead of {f.text} on ROCm builds of PyTorch ({test}"
               f"{f', torch imported {bind[2]}' if bind else ''}), {f.text} on CUDA builds", ("build",))


def _short(text: str, limit: int = 90) -> str:
    """The first clause of a knowledge-base description, for one-line messages."""
    text = text.split(";")[0].strip()
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _rocm_link(rocm, form: str, roc: bool) -> str:
    """The ROCm link name in the same form: ``-l``/bare name or a CMake ``ns::target``."""
    names = list(rocm.roc_links if roc and rocm.roc_links else ()) + list(rocm.links)
    want_target = form in ("CUDA::", "variable", "package")
    for n in names:
        if ("::" in n) == want_target:
            return n
    return names[0] if names else ""


def _library_verdict(t: Target, lib, has_replacement: bool) -> Verdict:
    """Verdict of linking ``lib`` on target ``t`` from the library table's vendor sections."""
    fact = lib.on(t.family)
    if t.family == "rocm":
        if fact is None or not has_replacement:
            return _BLOCKED
        return {"drop-in": _AUTO, "near-drop-in": _AUTO, "rework": _MANUAL}.get(fact.api_shape, _BLOCKED)
    if t.family == "oneapi":
        if fact is None or fact.api_shape == "none" or not (fact.equivalent or "").strip() or fact.equivalent.startswith("none"):
            return _BLOCKED
        return _MANUAL
    # SCALE and ZLUDA keep the CUDA link line; whether the library works is their table's status.
    status = getattr(fact, "status", "") if fact else ""
    return {"supported": _AS_IS, "partial": _MANUAL, "failing": _BLOCKED, "none": _BLOCKED}.get(status, _MANUAL)


class TorchCudaExtension(Rule):
    """setup.py builds a PyTorch CUDA extension (CUDAExtension, cpp_extension.load) or gives it nvcc flags.

    What it does
    ------------
    Finds ``CUDAExtension(...)``, ``torch.utils.cpp_extension.load``/``load_inline``
    and the nvcc flags in their ``extra_compile_args={"nvcc": [...]}`` or
    ``extra_cuda_cflags=[...]``.

    Why is this bad?
    ----------------
    On a ROCm build of PyTorch, ``CUDAExtension`` hipifies the extension's
    sources itself and compiles them with hipcc, so the extension usually
    builds unchanged - unless its sources use inline PTX, CUTLASS or
    NVIDIA-only libraries (see the other rule families). But the ``nvcc`` flag
    list is passed to hipcc unchanged (``torch.utils.cpp_extension``), and
    hipcc (clang) rejects ``--use_fast_math``, ``--expt-relaxed-constexpr``,
    ``--expt-extended-lambda``, ``-gencode``, ``-rdc=true`` and ``--threads``
    (measured, hipcc 5.2). On SCALE the extension would need a CUDA build of
    PyTorch running on AMD, which SCALE's validation suite fails (PyTorch
    2.9.0); ZLUDA's PyTorch support is not robust yet.

    Example
    -------
    .. code-block:: python

        CUDAExtension("ops", ["ops.cu"],
                      extra_compile_args={"nvcc": ["-O3", "--use_fast_math"]})

    Use instead
    -----------
    .. code-block:: python

        from torch.utils.cpp_extension import IS_HIP_EXTENSION
        nvcc = ["-O3"] + ([] if IS_HIP_EXTENSION else ["--use_fast_math"])
        CUDAExtension("ops", ["ops.cu"], extra_compile_args={"nvcc": nvcc})

    Fix safety
    ----------
    Unsafe, for the flags of the ``nvcc`` list (a port's tree builds for
    ROCm; keep the CUDA flags behind ``IS_HIP_EXTENSION`` by hand if one
    ``setup.py`` must serve both): ``--use_fast_math`` → ``-ffast-math``,
    ``-lineinfo`` → ``-gline-tables-only``, ``-Xcompiler X`` → ``X``;
    ``-gencode``/``-arch`` (``PYTORCH_ROCM_ARCH`` picks the AMD
    architectures), ``--expt-*``, ``-Xptxas``, ``--threads`` and
    ``-Wno-deprecated-gpu-targets``, ``-maxrregcount`` (HIP has no register
    cap flag: ``__launch_bounds__``) and nvcc's own switches
    (``--extra-device-vectorization``, ``-prec-div=``, ``-fmad=``, ``-Xfatbin``
    ...; ``-ftz=true`` → ``-fgpu-flush-denormals-to-zero``) are removed with
    their list item when they are all of it. ``-rdc`` gets no fix. A flag and
    its value in two list items (``"--threads", "2"``) go together.

    References
    ----------
    - https://github.com/pytorch/pytorch/blob/main/torch/utils/cpp_extension.py
    - https://docs.pytorch.org/docs/stable/notes/hip.html
    - https://github.com/spectral-compute/scale-validation
    """

    code = "BLD005"
    can_fix = True
    name = "torch-cuda-extension"
    severity = Severity.MEDIUM
    # A package module that builds its extension just in time (cpp_extension.load/load_inline) too.
    file_kinds = frozenset({FileKind.SETUP_PY, FileKind.PYTHON})

    #: Flags hipcc rejects (errors) vs. accepts with a warning or ignores. Measured with ROCm 7.2.4's
    #: hipcc for gfx942: --use_fast_math, --expt-*, -gencode=, -Xptxas=/--ptxas-options=, --threads and
    #: -diag-suppress N are errors; -lineinfo is a warning (an unused linker input).
    #: -arch=sm_80/-arch=compute_50/-arch=native, -code=, --gpu-architecture= too ("unknown argument").
    #: --maxrregcount=N and the nvcc-only switches (--extra-device-vectorization, -ftz=, -prec-div=, -Xfatbin ...)
    #: are "unknown argument" errors too (ROCm 7.2.4 hipcc; biwkv4-cuda 0.3.2, clic-inference-extensions 0.1.0).
    BREAKS = {"fast-math", "expt", "gencode", "threads", "rdc", "xptxas", "diag", "arch", "maxrregcount",
              "nvcc-only", "xcudafe", "cuda-half-undef"}
    IGNORED = {"lineinfo", "xcompiler", "xnvlink", "ccbin", "cudart",
               "default-stream", "deprecated-targets"}

    def check(self, ctx: FileContext) -> Iterator[Finding]:
        if ctx.kind is FileKind.PYTHON and not builds_just_in_time(ctx.text):
            return
        facts = build_facts(ctx)
        shape: _SetupShape | None = None
        # A ROCm-aware setup.py whose ROCm build vado derived (vado.scan.scope: it makes CUDAExtensions there, with
        # these flags): its CUDA_HOME tests gate nothing on ROCm, and a flag its ROCm extensions do not get stays in
        # a branch only CUDA builds take (xformers ca6d2aa: nvcc flags under `torch.version.cuda is not None`).
        rocm_flags = dict((ctx.options or {}).get("rocm_setups") or ()).get(ctx.path)
        # (a module that builds just in time runs when the package is used: setup.py's gates and stops are not its)
        if facts.of(FactKind.CUDA_EXTENSION) and rocm_flags is None and ctx.kind is FileKind.SETUP_PY:
            yield from self._cuda_home_tests(ctx)
        for f in facts.of(FactKind.CUDA_EXTENSION, FactKind.NVCC_FLAG):
            if rocm_flags is not None and f.kind is FactKind.NVCC_FLAG and not _reaches(f.text, rocm_flags):
                continue
            if f.kind is FactKind.CUDA_EXTENSION:
                if f.context == "BuildExtension":
                    continue  # the build command; CUDAExtension carries the finding
                yield self.finding(
                    ctx, f.start, f.end,
                    f"{f.text} builds a PyTorch CUDA extension; a ROCm build of PyTorch hipifies and "
                    "compiles it with hipcc, so its CUDA-spelled sources stay as they are (check them for "
                    "PTX, warp size, CUTLASS and NVIDIA-only libraries); build with "
                    f"PYTORCH_ROCM_ARCH={';'.join(offload_archs(ctx)) or 'gfx942'}",
                    per_family(ctx, rocm=_AUTO, oneapi=_MANUAL, scale=_BLOCKED, zluda=_MANUAL),
                    effort=Effort(lines=0, constructs=1, hours=0.5),
                    severity=Severity.INFO,
                    data={"call": f.data.get("call", f.text)},
                )
                continue
            if shape is None:
                shape = _setup_shape(ctx.text)
            if shape.guarded(f.start):
                continue  # in a branch only CUDA builds of PyTorch take: never reaches hipcc
            kind = f.data["flag"]
            if kind == "cuda-half-undef" and shape.rocm_branch(f.start):
                continue  # the project's own ROCm flags (causal-conv1d, mamba-ssm): built and tested as they are
            breaks = kind in self.BREAKS
            how = "rejects" if breaks else "ignores or misreads"
            # A flag and its value from two statements (append("-gencode"); append("arch=...")): no edit
            # spans both safely.
            # Two items of one list ("--threads",\n "2": fpscan 0.1.2) are no two statements.
            split = any(c in f.text for c in "()") or ("\n" in f.text and not shape.list_items >= _item_quotes(ctx.text, f))
            fix = None
            if f.data.get("formatted"):  # built at run time: only the whole expression can be made conditional
                test, bind = _hip_test(ctx.text, f.start), None
                if test is None and _TORCH_IMPORTED.search(ctx.text):
                    bind = _torch_import_edit(ctx.text, f.start)
                    test = "torch.version.hip" if bind else None
                fix = _formatted_flag_fix(ctx, f, test, bind)
            elif not split:
                test, bind = _hip_test(ctx.text, f.start), None
                if test is None and _TORCH_IMPORTED.search(ctx.text):
                    bind = _torch_import_edit(ctx.text, f.start)
                    test = "torch.version.hip" if bind else None
                fix = _conditional_flag_fix(ctx, f, test, shape, bind) or _setup_flag_fix(ctx, f)
            yield self.finding(
                ctx, f.start, f.end,
                (f"{f.text} undoes a define of PyTorch's CUDA build; a ROCm build of PyTorch defines "
                 f"{_hipcc_flag(kind, f.data.get('option', ''), '')[2:]} instead (torch.utils.cpp_extension), which "
                 "this leaves on: its half operators and conversions stay off for hipcc; undo that one on ROCm"
                 if kind == "cuda-half-undef" else
                 f"nvcc flag {f.text} reaches hipcc unchanged on ROCm builds of PyTorch, and hipcc {how} it; "
                 "add it only when not IS_HIP_EXTENSION"),
                per_family(ctx, rocm=_AUTO if fix else _MANUAL, oneapi=_MANUAL),
                effort=Effort(lines=1, constructs=1, hours=0.0 if fix else 0.25),
                fix=fix,
                severity=Severity.MEDIUM if breaks else Severity.LOW,
                data={"flag": kind, "option": f.data.get("option", ""), "breaks_hipcc": breaks,
                      **({"formatted": f.data["formatted"]} if f.data.get("formatted") else {})},
            )


    def _cuda_home_tests(self, ctx: FileContext) -> Iterator[Finding]:
        """``CUDA_HOME is not None`` deciding whether the CUDA extension is built (an assignment such as
        ``WITH_CUDA = torch.cuda.is_available() and CUDA_HOME is not None``, or the test of an ``if``
        whose branch makes a ``CUDAExtension``): a ROCm build of PyTorch has no nvcc, so ``CUDA_HOME``
        is None and the extension is silently left out. torch_scatter's idiom tests
        ``CUDA_HOME is not None or torch.version.hip``."""
        from vado.rules.bld_setup_stops import (cuda_version_gates, cuda_version_stops, missing_extension_classes,
                                                toolkit_stops)

        def stops_on_rocm(start: int, end: int, msg: str, lines: int, hours: float, data: dict) -> Finding:
            # setup.py stops or builds nothing on a ROCm (or oneAPI) build of PyTorch: manual there, high
            return self.finding(ctx, start, end, msg,
                                per_family(ctx, rocm=_MANUAL, oneapi=_MANUAL, scale=_AS_IS, zluda=_AS_IS),
                                effort=Effort(lines=lines, constructs=1, hours=hours), severity=Severity.HIGH, data=data)

        for start, end, callee, why in toolkit_stops(ctx.text):
            yield stops_on_rocm(
                start, end,
                f"{callee}() runs on every run of setup.py and {why}: a ROCm build of PyTorch has no nvcc "
                f"(CUDA_HOME is None), so setup.py stops before it builds anything; call it only when not "
                f"{_hip_test(ctx.text, start) or 'torch.version.hip'} (and give what it computes a ROCm value)",
                2, 0.25, {"stop": callee})
        for start, end, name in missing_extension_classes(ctx.text):
            yield stops_on_rocm(
                start, end,
                f"torch.utils.cpp_extension has no {name} (PyTorch has CppExtension, CUDAExtension and SyclExtension): "
                "on a ROCm build of PyTorch CUDAExtension is the class that hipifies the sources, compiles them with "
                "hipcc and links the HIP libraries; a fallback to CppExtension builds none of that",
                2, 0.25, {"missing": name})
        for start, end, use in cuda_version_stops(ctx.text):
            yield stops_on_rocm(
                start, end,
                f"{use} runs on every run of setup.py, and torch.version.cuda is None on a ROCm build of PyTorch: "
                f"setup.py stops there before it builds anything; use it only when not "
                f"{_hip_test(ctx.text, start) or 'torch.version.hip'} (or fall back to torch.version.hip)",
                1, 0.1, {"stop": use})
        gates = [(s, e, "CUDA_HOME" if ctx.text[s:e].startswith("CUDA_HOME") else g) for s, e, g in _cuda_home_gates(ctx.text)]
        gates += [(s, e, "torch.version.cuda") for s, e in cuda_version_gates(ctx.text)]
        for start, end, gate in sorted(set(gates)):
            fix = None
            expr = ctx.text[start:end]
            test = _hip_test(ctx.text, start)
            if test is not None:
                new = f"({expr} or {test})"
                fix = Fix((ctx.edit(start, end, new),), Applicability.UNSAFE,
                          f"build the extension on ROCm builds of PyTorch too ({test})", ("build",))
            why = ("a ROCm build of PyTorch has no nvcc (CUDA_HOME is None)" if gate == "CUDA_HOME" else
                   "torch.version.cuda is None on a ROCm build of PyTorch" if gate == "torch.version.cuda" else
                   "it looks for nvcc, which a ROCm build of PyTorch does not have")
            yield self.finding(
                ctx, start, end,
                f"{expr} decides whether the CUDA extension is built; {why}, so the extension is left out "
                f"there: test `{expr} or {test or 'torch.version.hip'}`",
                per_family(ctx, rocm=_AUTO if fix else _MANUAL, oneapi=_MANUAL, scale=_AS_IS, zluda=_AS_IS),
                effort=Effort(lines=1, constructs=1, hours=0.0 if fix else 0.1),
                fix=fix,
                severity=Severity.MEDIUM,
                data={"gate": gate},
            )


def _reaches(flag: str, rocm_flags) -> bool:
    """Whether the flag written ``flag`` (its first word, quotes, string prefixes and commas stripped) is among
    ``rocm_flags`` (torchcompactradius 0.5.5's ``f'-extended-lambda'``: an f-string)."""
    flag = re.sub(r"(?<![\w-])[rRfFbBuU]{1,2}(?=[\"'])", "", flag)
    words = flag.replace('"', " ").replace("'", " ").replace(",", " ").split()
    return bool(words) and any(x == words[0] or x.startswith(words[0] + "=") for x in rocm_flags)


def _cuda_home_gates(text: str) -> list[tuple[int, int, str]]:
    """``(start, end, gate)`` of the tests that decide whether the CUDA extension is built by looking for
    nvcc, where the same expression does not test a ROCm build already (``torch.version.hip``,
    ``IS_HIP_EXTENSION``, ``ROCM_HOME``):

    - gate ``CUDA_HOME``: a ``CUDA_HOME is not None`` comparison in the value of an assignment, or in the
      test of an ``if`` whose body makes a ``CUDAExtension`` (also ``extension = CUDAExtension``);
    - gate ``nvcc``: in such an ``if`` test, a call of ``shutil.which("nvcc")`` or of a function of the file
      whose body names ``"nvcc"`` in a string (torchsort 0.1.10's ``cuda_toolkit_available()`` runs
      ``call(["nvcc"])`` and builds the CUDA extension only where that works).
    """
    try:
        tree = ast.parse(text.encode("latin-1"))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def off(line: int, col: int) -> int:
        return starts[line - 1] + col

    def src(node: ast.AST) -> str:
        return text[off(node.lineno, node.col_offset):off(node.end_lineno, node.end_col_offset)]

    def names_nvcc(node: ast.AST) -> bool:
        # "nvcc" as a dict key or subscript (extra_compile_args["nvcc"]) names the compiler's flags, not a probe.
        keys = {id(k) for n in ast.walk(node) if isinstance(n, ast.Dict) for k in n.keys if k is not None}
        keys |= {id(n.slice) for n in ast.walk(node) if isinstance(n, ast.Subscript)}
        return any(isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in keys
                   and _NVCC_WORD.search(n.value) for n in ast.walk(node))

    probes = {n.name for n in ast.walk(tree)
              if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and names_nvcc(n)}
    gates: list[tuple[int, int, str]] = []
    rocm_names = _rocm_test_names(tree, src)

    def asks_rocm(expr: ast.AST) -> bool:
        # A test of a ROCm build itself, or of a name the file assigns from one (detectron2 02b5c4e:
        # `(CUDA_HOME is not None) or is_rocm_pytorch`, is_rocm_pytorch = torch.version.hip is not None and …).
        text = src(expr)
        return bool(_HIP_TEST.search(text) or "ROCM_HOME" in text
                    or any(isinstance(n, ast.Name) and n.id in rocm_names for n in ast.walk(expr)))

    def collect(expr: ast.AST, in_if: bool) -> None:
        if asks_rocm(expr):
            return
        for node in ast.walk(expr):
            if (isinstance(node, ast.Compare) and isinstance(node.left, ast.Name) and node.left.id == "CUDA_HOME"
                    and len(node.ops) == 1 and isinstance(node.ops[0], ast.IsNot)
                    and isinstance(node.comparators[0], ast.Constant) and node.comparators[0].value is None
                    and node.lineno == node.end_lineno):
                gates.append((off(node.lineno, node.col_offset), off(node.end_lineno, node.end_col_offset), "CUDA_HOME"))
            elif (in_if and isinstance(node, ast.Call) and node.lineno == node.end_lineno
                  and ((isinstance(node.func, ast.Name) and node.func.id in probes)
                       or (_call_tail(node.func) == "which" and names_nvcc(node)))):
                gates.append((off(node.lineno, node.col_offset), off(node.end_lineno, node.end_col_offset), "nvcc"))

    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            collect(node.value, False)
        elif isinstance(node, ast.If) and re.search(r"\bCUDAExtension\b", "\n".join(src(b) for b in node.body)):
            collect(node.test, True)
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and re.search(r"\bCUDAExtension\b", src(fn)):
            for stmt in _probe_bailouts(fn, probes, names_nvcc):
                if not asks_rocm(stmt.value):
                    collect(stmt.value, True)
    return sorted(set(gates))


def _probe_bailouts(fn: ast.AST, probes: set[str], names_nvcc) -> list[ast.Assign]:
    """The assignments in ``fn`` (a function that makes a ``CUDAExtension``) of a name from an nvcc probe
    (``shutil.which("nvcc")``, a function of the file that runs nvcc) that an ``if`` of ``fn`` tests before it
    returns or raises: the function gives up when nvcc is not found (stainx 0.1.6's
    ``CUDAExtensionBuilder.build``: ``nvcc_path = shutil.which("nvcc")`` … ``if not nvcc_path: return []``)."""
    assigns = {}
    for a in ast.walk(fn):
        if (isinstance(a, ast.Assign) and len(a.targets) == 1 and isinstance(a.targets[0], ast.Name)
                and isinstance(a.value, ast.Call) and a.value.lineno == a.value.end_lineno
                and ((isinstance(a.value.func, ast.Name) and a.value.func.id in probes)
                     or (_call_tail(a.value.func) == "which" and names_nvcc(a.value)))):
            assigns.setdefault(a.targets[0].id, a)
    out = []
    for node in ast.walk(fn):
        if isinstance(node, ast.If) and any(isinstance(b, (ast.Return, ast.Raise)) for b in node.body):
            for n in ast.walk(node.test):
                if isinstance(n, ast.Name) and n.id in assigns and assigns[n.id] not in out:
                    out.append(assigns[n.id])
    return out


def _rocm_test_names(tree: ast.AST, src) -> set[str]:
    """The names a setup.py assigns from a test of a ROCm build (``torch.version.hip``, ``IS_HIP_EXTENSION``,
    ``ROCM_HOME``), directly or through another such name, anywhere in the file."""
    assigns = [(t.id, n.value) for n in ast.walk(tree) if isinstance(n, ast.Assign)
               for t in n.targets if isinstance(t, ast.Name)]
    names: set[str] = set()
    changed = True
    while changed:
        changed = False
        for name, value in assigns:
            if name in names:
                continue
            text = src(value)
            if (_HIP_TEST.search(text) or "ROCM_HOME" in text
                    or any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(value))):
                names.add(name)
                changed = True
    return names


def _call_tail(func: ast.AST) -> str:
    """The last name of a call's callee (``shutil.which`` → ``which``), or ""."""
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


#: ``nvcc`` as a word of a string (``"nvcc"``, ``"bin/nvcc"``, ``"nvcc -V"``), not ``NVCC_FLAGS``.
_NVCC_WORD = re.compile(r"(?<![\w-])nvcc(?![\w-])")


#: What a flag of a torch extension's nvcc list becomes for hipcc ("" drops it; absent: no fix).
_SETUP_FLAG_FOR_HIPCC = {
    "fast-math": "-ffast-math", "lineinfo": "-gline-tables-only", "arch": "", "gencode": "", "expt": "",
    "xptxas": "", "xnvlink": "", "threads": "", "deprecated-targets": "", "ccbin": "", "cudart": "", "diag": "",
    # HIP has no register cap flag (__launch_bounds__ is the way); hipcc rejects nvcc's.
    "maxrregcount": "", "xcudafe": "", "nvcc-only": "",
}


def _formatted_flag_fix(ctx: FileContext, f: BuildFact, test: str | None,
                        bind: tuple[int, str, str] | None) -> Fix | None:
    """Keep flags a setup.py builds at run time for CUDA builds only: a comprehension (torchani 2.9.0's
    ``nvcc_args.extend([f"-gencode=arch=compute_{sm},code=sm_{sm}" for sm in sms])``) becomes
    ``([] if TEST else [...])``, an f-string item of a list display ``*([] if TEST else [f"..."])``. Only flags
    hipcc has no spelling for (architectures, nvcc's own switches), and only where ``TEST`` can be bound."""
    if test is None or _hipcc_flag(f.data["flag"], f.data.get("option", ""), f.data.get("value", "")) != "":
        return None
    text, start, end = ctx.text, f.start, f.end
    if f.data["formatted"] == "comprehension":
        if text[start] == "(":  # a generator: its parentheses may be a call's
            return None
        content = f"([] if {test} else {text[start:end]})"
    else:
        before = text[:start].rstrip()[-1:]
        after = text[end:].lstrip()[:1]
        if before not in ("[", ",") or after not in ("]", ",", "#"):
            return None  # not an item of a list display
        content = f"*([] if {test} else [{text[start:end]}])"
    edits = (ctx.edit(start, end, content),)
    if bind is not None:
        edits = (ctx.edit(bind[0], bind[0], bind[1]),) + edits
    return Fix(edits, Applicability.UNSAFE,
               f"{f.text!r} (built at run time) for CUDA builds only, nothing on ROCm ({test}"
               f"{f', torch imported {bind[2]}' if bind else ''})", ("build",))


def _item_quotes(text: str, f: BuildFact) -> set[int]:
    """The offsets of the opening quotes of the two strings a flag fact spans (its first and its last word), or
    an empty set's complement stand-in ({-1}) where it does not start and end in quotes."""
    qs, qe = f.start - 1, f.end
    if qs < 0 or qe >= len(text) or text[qs] not in "\"'" or text[qe] != text[qs]:
        return {-1}
    last = text.rfind(text[qs], 0, qe)  # the value's opening quote
    return {qs, last}


def _nvcc_only_for_hipcc(option: str, value: str) -> str:
    """hipcc's spelling of an nvcc-only switch: clang's flush-to-zero flag for ``-ftz=true``, no contraction into
    FMAs for ``--fmad=false`` (accelerated-scan 0.3.1), else nothing."""
    if option.lstrip("-") == "ftz" and value == "true":
        return "-fgpu-flush-denormals-to-zero"
    return "-ffp-contract=off" if option.lstrip("-") == "fmad" and value == "false" else ""


def _hipcc_flag(kind: str, option: str, value: str) -> str | None:
    """What an nvcc flag of a torch extension's list becomes for hipcc ("" drops it; None: no fix)."""
    if kind == "nvcc-only":
        return _nvcc_only_for_hipcc(option, value)
    if kind == "cuda-half-undef":  # PyTorch's ROCm build defines the HIP names: undo those
        return "-U__HIP_NO_HALF_CONVERSIONS__" if option.endswith("CONVERSIONS__") else "-U__HIP_NO_HALF_OPERATORS__"
    if kind == "xcompiler":  # host flags through nvcc: hipcc is clang and takes them as they are
        return _xcompiler(value) if value and not any(q in value for q in "\"'") else None
    return _SETUP_FLAG_FOR_HIPCC.get(kind)


def _hip_test(text: str, at: int | None = None) -> str | None:
    """The expression a setup.py can test for a ROCm build of PyTorch at offset ``at`` with the names bound
    there, or None.

    ``torch.version.hip`` where ``torch`` is imported, else ``IS_HIP_EXTENSION`` where it is imported so from
    ``torch.utils.cpp_extension`` (the two idioms maintained extensions use). An import at the module's level
    binds the name everywhere; one inside a function only in that function's body after it (gsplat 1.5.3 imports
    torch in ``get_extensions()``, where its flags are; torchani 2.9.0 in ``setup_kwargs()`` only, so
    ``torch.version.hip`` in ``cuaev_extension_kwargs()`` would be a NameError). Without ``at``: the module's
    level only.
    """
    scopes = _hip_scopes(text)
    if scopes is None:  # read by pattern: imports at column 0 only
        if re.search(r"^import[ \t]+(?:[\w.]+[ \t]*,[ \t]*)*torch[ \t]*(?:,|#|$)", text, re.M):
            return "torch.version.hip"
        if re.search(r"^from[ \t]+torch\.utils\.cpp_extension[ \t]+import[^\n]*\bIS_HIP_EXTENSION\b", text, re.M) or \
                re.search(r"^from[ \t]+torch\.utils\.cpp_extension[ \t]+import[ \t]*\([^)]*\bIS_HIP_EXTENSION\b", text, re.M):
            return "IS_HIP_EXTENSION"
        return None
    module, functions = scopes
    names = set(module)
    if at is not None:
        for start, end, imports, _, _ in functions:
            if start <= at < end:
                names.update(name for name, where in imports if where < at)
    if "torch" in names:
        return "torch.version.hip"
    return "IS_HIP_EXTENSION" if "IS_HIP_EXTENSION" in names else None


def _torch_import_edit(text: str, at: int) -> tuple[int, str, str] | None:
    """Where a setup.py without ``torch`` bound at ``at`` can bind it: ``(offset, line, where)`` inserting
    ``import torch`` as the first statement of the innermost function that holds ``at`` (torchani 2.9.0 builds its
    nvcc flags in a helper that does not import torch), or outside functions after a ``from torch... import`` that
    runs before ``at`` (:func:`_after_torch_import`), so the flag fix can keep the CUDA flags for a CUDA build; None
    where there is no such place or setup.py does not parse."""
    scopes = _hip_scopes(text)
    if scopes is None:
        return None
    inner = None
    for start, end, _, body, indent in scopes[1]:
        if start <= at < end and body <= at and (inner is None or start >= inner[0]):
            inner = (start, body, indent)
    if inner is None:
        return _after_torch_import(text, at)
    return inner[1], " " * inner[2] + "import torch  # vado: the ROCm test of the flags below\n", "in the function"


def _after_torch_import(text: str, at: int) -> tuple[int, str, str] | None:
    """``(offset, line)`` inserting ``import torch`` right after the last ``from torch... import`` that runs before
    ``at`` outside any function, in a block that holds ``at`` (clic-inference-extensions 0.1.0 imports only
    ``from torch.utils.cpp_extension import ...`` at its top; fpscan 0.1.2 does so in a ``try:`` whose body builds
    the flags): torch is importable there, so ``torch.version.hip`` can choose the flags; None where there is none."""
    try:
        tree = ast.parse(text.encode("latin-1"))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def off(line: int, col: int) -> int:
        return starts[line - 1] + col if line - 1 < len(starts) else len(text)

    best = None

    def walk(body: list) -> None:
        nonlocal best
        for stmt in body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            s, e = off(stmt.lineno, stmt.col_offset), off(stmt.end_lineno, stmt.end_col_offset)
            if e > at:
                if s <= at:  # the statement holding the flag: its blocks may hold an import before it
                    for field in ("body", "orelse", "finalbody"):
                        walk(getattr(stmt, field, None) or [])
                    for handler in getattr(stmt, "handlers", None) or []:
                        walk(handler.body)
                return
            torch_from = isinstance(stmt, ast.ImportFrom) and (stmt.module or "").split(".")[0] == "torch" and not stmt.level
            if torch_from and stmt.end_lineno < len(starts):
                best = (starts[stmt.end_lineno], stmt.col_offset)

    walk(tree.body)
    if best is None or text[best[0] - 1:best[0]] != "\n":
        return None
    return best[0], " " * best[1] + "import torch  # vado: the ROCm test of the flags below\n", "after its torch import"


@functools.lru_cache(maxsize=16)
def _hip_scopes(text: str) -> tuple[frozenset[str], tuple[tuple[int, int, tuple[tuple[str, int], ...], int, int], ...]] | None:
    """The names ``_hip_test`` looks for that setup.py imports: at the module's level, and per function
    (``(start, end, ((name, offset of its import), ...), start of its first statement's line, its indent)``,
    offsets in ``text``, the first statement after a docstring); None when it does not parse."""
    try:
        tree = ast.parse(text.encode("latin-1"))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    starts = [0]
    for line in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))

    def off(line: int, col: int) -> int:
        return starts[min(line, len(starts)) - 1] + col

    def bound(stmt) -> list[str]:
        if isinstance(stmt, ast.Import):  # import torch.utils.cpp_extension binds torch too
            return ["torch" for a in stmt.names if a.name.split(".")[0] == "torch" and a.asname is None][:1]
        if isinstance(stmt, ast.ImportFrom) and stmt.module == "torch.utils.cpp_extension":
            return [a.name for a in stmt.names if a.name == "IS_HIP_EXTENSION" and a.asname is None]
        return []

    functions: list[tuple[int, int, tuple[tuple[str, int], ...]]] = []

    def walk(body: list, found: list[tuple[str, int]]) -> None:
        for stmt in body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                mine: list[tuple[str, int]] = []
                walk(stmt.body, mine)
                first = stmt.body[0]
                if (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
                        and isinstance(first.value.value, str) and len(stmt.body) > 1):
                    first = stmt.body[1]  # after the docstring
                functions.append((off(stmt.lineno, stmt.col_offset), off(stmt.end_lineno or stmt.lineno,
                                                                          stmt.end_col_offset or 0), tuple(mine),
                                  off(first.lineno, 0), first.col_offset))
                continue
            if isinstance(stmt, ast.ClassDef):
                walk(stmt.body, [])
                continue
            found.extend((name, off(stmt.lineno, stmt.col_offset)) for name in bound(stmt))
            for field in ("body", "orelse", "finalbody"):
                walk(getattr(stmt, field, None) or [], found)
            for handler in getattr(stmt, "handlers", None) or []:
                walk(handler.body, found)

    module: list[tuple[str, int]] = []
    walk(tree.body, module)
    return frozenset(name for name, _ in module), tuple(functions)


_HIP_TEST = re.compile(r"\bversion\.hip\b|\bIS_HIP_EXTENSION\b")


@dataclass(frozen=True)
class _SetupShape:
    """What the flag rules need from a setup.py's syntax tree (empty when it does not parse).

    ``list_items``: offsets of the opening quotes of one-line string literals that are items of a
    list display. ``cuda_only``: spans of code that runs only when PyTorch is not a ROCm build
    (the branch of ``if torch.version.hip`` / ``IS_HIP_EXTENSION`` / a name bound to either that
    the test sends CUDA builds to); flags there never reach hipcc.
    """

    list_items: frozenset[int] = frozenset()
    cuda_only: tuple[tuple[int, int], ...] = ()
    rocm_only: tuple[tuple[int, int], ...] = ()

    def guarded(self, at: int) -> bool:
        return any(a <= at < b for a, b in self.cuda_only)

    def rocm_branch(self, at: int) -> bool:
        """Whether ``at`` is in a branch only ROCm builds take (the project's own ROCm flags)."""
        return any(a <= at < b for a, b in self.rocm_only)


def _setup_shape(text: str) -> _SetupShape:
    try:
        tree = ast.parse(text.encode("latin-1"))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return _SetupShape()
    line_starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def off(line: int, col: int) -> int:
        return line_starts[line - 1] + col if line - 1 < len(line_starts) else len(text)

    def src(node: ast.AST) -> str:
        return text[off(node.lineno, node.col_offset):off(node.end_lineno, node.end_col_offset)]

    hip_names = set()
    for node in tree.body:  # module-level names bound to the test: HIP_BUILD = bool(torch.version.hip)
        if isinstance(node, ast.Assign) and _HIP_TEST.search(src(node.value)):
            hip_names.update(t.id for t in node.targets if isinstance(t, ast.Name))

    def polarity(test: ast.AST) -> bool | None:
        """True: the test holds on ROCm builds; False: it holds on CUDA builds; None: not a hip test."""
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            inner = polarity(test.operand)
            return None if inner is None else not inner
        body = src(test)
        if _HIP_TEST.search(body) or any(re.search(rf"\b{re.escape(n)}\b", body) for n in hip_names):
            return True if isinstance(test, (ast.Attribute, ast.Name, ast.Call)) else None
        return None

    items, spans, rocm_spans = set(), [], []

    def span(nodes: list, into: list | None = None) -> None:
        for n in nodes:
            (spans if into is None else into).append((off(n.lineno, n.col_offset), off(n.end_lineno, n.end_col_offset)))

    for node in ast.walk(tree):
        if isinstance(node, ast.List):
            for elt in node.elts:
                if isinstance(elt, ast.Constant) and isinstance(elt.value, str) and elt.lineno == elt.end_lineno:
                    items.add(off(elt.lineno, elt.col_offset))
        elif isinstance(node, (ast.If, ast.IfExp)):
            pol = polarity(node.test)
            if pol is None:
                continue
            cuda_branch = node.orelse if pol else node.body
            span(cuda_branch if isinstance(cuda_branch, list) else [cuda_branch])
            rocm_branch = node.body if pol else node.orelse
            span(rocm_branch if isinstance(rocm_branch, list) else [rocm_branch], rocm_spans)
    return _SetupShape(frozenset(items), tuple(spans), tuple(rocm_spans))


#: A setup.py that imports torch somewhere (a torch extension's): where a helper does not, the flag fix binds it.
_TORCH_IMPORTED = re.compile(r"^[ \t]*(?:import[ \t]+torch\b|from[ \t]+torch(?:\.[\w.]+)?[ \t]+import\b)", re.M)


def _conditional_flag_fix(ctx: FileContext, f: BuildFact, test: str | None, shape: _SetupShape,
                          bind: tuple[int, str, str] | None = None) -> Fix | None:
    """Keep an nvcc flag for CUDA builds and give hipcc its spelling (or nothing) on ROCm builds.

    The upstream idiom: one setup.py serves both, the flag chosen by ``torch.version.hip``. Only
    for a list item that is the flag alone, in a file that imports the name tested; else None.
    """
    kind = f.data["flag"]
    hip = _hipcc_flag(kind, f.data.get("option", ""), f.data.get("value", ""))
    if test is None or hip is None:
        return None
    text, qs, qe = ctx.text, f.start - 1, f.end + 1
    if qs < 0 or qe > len(text) or text[qs] not in "\"'" or text[qe - 1] != text[qs] or qs not in shape.list_items:
        return None
    item = text[qs:qe]
    hip_list = "[" + ", ".join(f"{text[qs]}{w}{text[qs]}" for w in hip.split()) + "]"
    content = f"*({hip_list} if {test} else [{item}])"
    what = f"{hip!r} on ROCm" if hip else "nothing on ROCm"
    try:  # a flag and its value in two list items ("-diag-suppress", "20012,186") read as the command line has them
        shown = " ".join(ast.literal_eval(f"[{item}]"))
    except (ValueError, SyntaxError, TypeError):
        shown = f.text
    edits = (ctx.edit(qs, qe, content),) if bind is None else (ctx.edit(bind[0], bind[0], bind[1]), ctx.edit(qs, qe, content))
    return Fix(edits, Applicability.UNSAFE,
               f"{shown!r} for CUDA builds only, {what} ({test}{f', torch imported {bind[2]}' if bind else ''})",
               ("build",))


def _setup_flag_fix(ctx: FileContext, f: BuildFact) -> Fix | None:
    """The hipcc spelling of one nvcc flag in a setup.py list; a flag dropped with its whole string
    leaves no empty string behind (hipcc would read ``""`` as an input file)."""
    kind = f.data["flag"]
    if kind == "xcompiler":
        content = _xcompiler(f.data.get("value", ""))
        if not content or '"' in f.text or "'" in f.text:
            return None
    elif kind == "default-stream" and f.data.get("value") == "per-thread":
        content = "-fgpu-default-stream=per-thread"
    elif _hipcc_flag(kind, f.data.get("option", ""), f.data.get("value", "")) is not None:
        content = _hipcc_flag(kind, f.data.get("option", ""), f.data.get("value", ""))
    else:
        return None
    text = ctx.text
    start, end = f.start, f.end
    whole = start > 0 and end < len(text) and text[start - 1] in "\"'" and text[end] == text[start - 1]
    if content or not whole:
        if not content:
            return _fix(ctx, f, "", Applicability.UNSAFE, f"drop {f.text!r} (hipcc)")
        return Fix((ctx.edit(start, end, content),), Applicability.UNSAFE, f"{f.text!r} → {content!r} (hipcc)", ("build",))
    # The list item is the flag alone: remove the item with its comma (and its line when alone on it).
    qs, qe = start - 1, end + 1
    k = qe
    while k < len(text) and text[k] in " \t":
        k += 1
    line_start = text.rfind("\n", 0, qs) + 1
    if k < len(text) and text[k] == ",":
        k += 1
        while k < len(text) and text[k] in " \t":
            k += 1
        at_eol = k >= len(text) or text[k] in "\r\n"
        if not text[line_start:qs].strip() and at_eol:
            a, b = line_start, (k + 1 if k < len(text) and text[k] == "\n" else k)
        elif at_eol:  # the last item of its line: no blanks left before the line break
            a, b = qs, k
            while a > line_start and text[a - 1] in " \t":
                a -= 1
        else:
            a, b = qs, k
    else:
        j = qs
        while j > 0 and text[j - 1] in " \t":
            j -= 1
        a, b = (j - 1, qe) if j > 0 and text[j - 1] == "," else (qs, qe)
    return Fix((ctx.edit(a, b, ""),), Applicability.UNSAFE, f"drop {f.text!r} (hipcc; not a hipcc flag)", ("build",))


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
            fix = None if content is None else _fix(ctx, f, content, Applicability.UNSAFE,
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
                per_family(ctx, rocm=_AUTO if fix else _MANUAL, oneapi=_MANUAL, scale=_MANUAL, zluda=_AS_IS),
                effort=Effort(lines=1, constructs=1, hours=0.25 if fix else 1.0),
                fix=fix,
                data={"option": option, "replacement": content},
            )


class UnparsedBuildFile(Rule):
    """vado could not fully read a build file (a syntax error, an unclosed CMake command).

    What it does
    ------------
    Reports where the CMake tokenizer or Python's parser stopped in a
    ``CMakeLists.txt`` or ``setup.py``. What could be read is still checked
    (``setup.py`` by pattern), but findings after that point may be missing.

    Why is this bad?
    ----------------
    An audit that silently skips part of a file would claim less work than
    there is. The file probably does not build as it is, either.

    Example
    -------
    .. code-block:: cmake

        project(demo LANGUAGES CXX CUDA

    Use instead
    -----------
    .. code-block:: cmake

        project(demo LANGUAGES CXX CUDA)

    Fix safety
    ----------
    No fix: vado does not guess what a broken file meant.

    References
    ----------
    - https://cmake.org/cmake/help/latest/manual/cmake-language.7.html
    - https://docs.python.org/3/library/ast.html
    """

    code = "BLD007"
    name = "unparsed-build-file"
    severity = Severity.INFO
    file_kinds = frozenset({FileKind.CMAKE, FileKind.SETUP_PY})

    def check(self, ctx: FileContext) -> Iterator[Finding]:
        for p in build_facts(ctx).problems:
            end = min(p.end, p.start + 200) if p.end > p.start else p.start
            # No verdicts: the problem is vado's view of the file, not a target's gap.
            yield self.finding(ctx, p.start, end, f"{p.reason}; findings after this point may be missing", {},
                               data={"reason": p.reason})


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
                per_family(ctx, rocm=_MANUAL, scale=_AS_IS, zluda=_AS_IS),
                effort=Effort(lines=2, constructs=1, hours=1.0),
                data={"namespace": ns, "breaks_own_rocm_build": True},
            )
