"""What every BLD rule module shares: verdict shorthands, the file's build facts (parsed once per file; a
Python module that builds a torch extension just in time is read as a setup.py), the offload architectures a rewrite builds for, per-family verdicts, the one-fact fix, whether a file
belongs to a PyTorch extension, and the hipcc spellings of two nvcc flags that both the Makefile/CMake
rule (BLD003) and the setup.py rule (BLD005) rewrite.
"""

from __future__ import annotations

import re

from vado.model import Applicability, Fix, Verdict
from vado.rules.base import FileContext
from vado.scan.buildfiles import (
    BuildFact,
    BuildFacts,
    parse_cmake,
    parse_makefile,
    parse_setup_py_build,
)
from vado.scan.classify import FileKind


AS_IS = Verdict.MOVES_AS_IS
AUTO = Verdict.AUTOMATIC
MANUAL = Verdict.MANUAL
BLOCKED = Verdict.BLOCKED


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


def fact_fix(ctx: FileContext, f: BuildFact, content: str, safety: Applicability, description: str) -> Fix:
    """A build fix replacing the text of fact ``f`` with ``content``."""
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


_TORCH_SIGNS = {
    FileKind.SETUP_PY: re.compile(r"\bCUDAExtension\b|torch\.utils\.cpp_extension"),
    FileKind.CMAKE: re.compile(r"find_package\s*\(\s*Torch\b", re.I),
}


def torch_extension(ctx: FileContext) -> bool:
    """Whether ``ctx``'s file belongs to a PyTorch extension: the port says so (rule option
    ``torch_extension``, :mod:`vado.port.torch_ext`), or the file itself builds one
    (``CUDAExtension``/``torch.utils.cpp_extension`` in setup.py, ``find_package(Torch)`` in CMake)."""
    if (ctx.options or {}).get("torch_extension"):
        return True
    sign = _TORCH_SIGNS.get(ctx.kind)
    return bool(sign and sign.search(ctx.text))


#: GCC host-compiler flags that ROCm 7.2.4's hipcc (clang) rejects ("clang++: error: unknown argument" or
#: "unsupported option"), measured one by one with ``hipcc -x c++ -fsyntax-only FLAG``; nvcc hands
#: ``-Xcompiler`` flags to GCC, which takes them (polygon-iou 1.0.7: ``-Xcompiler -Wall,-fno-gnu-unique``).
#: GCC flags clang only warns about (``-fno-gcse``, ``-Wno-class-memaccess``, ``-fmax-errors=5``) stay.
GCC_ONLY_HOST_FLAGS = re.compile(
    r"-(?:fno-gnu-unique|fno-var-tracking-assignments|fconcepts|mno-float128|fno-keep-inline-dllexport"
    r"|flto-partition=\S*|fabi-version=\S*)")


def xcompiler_flags(value: str) -> str:
    """The host-compiler flags of an ``-Xcompiler`` value (``-fPIC,-Wall`` → ``-fPIC -Wall``): hipcc is clang
    and takes them as they are, but for the GCC-only ones it rejects (:data:`GCC_ONLY_HOST_FLAGS`), which go."""
    return " ".join(p for p in value.replace(",", " ").split() if p and not GCC_ONLY_HOST_FLAGS.fullmatch(p))


def nvcc_only_for_hipcc(option: str, value: str) -> str:
    """hipcc's spelling of an nvcc-only switch: clang's flush-to-zero flag for ``-ftz=true``, no contraction into
    FMAs for ``--fmad=false`` (accelerated-scan 0.3.1), else nothing."""
    if option.lstrip("-") == "ftz" and value == "true":
        return "-fgpu-flush-denormals-to-zero"
    return "-ffp-contract=off" if option.lstrip("-") == "fmad" and value == "false" else ""
