"""The port of a PyTorch extension: CUDA spelling kept, AMD-only changes in ``USE_ROCM`` branches.

On a ROCm build of PyTorch, ``torch.utils.cpp_extension`` hipifies a ``CUDAExtension``'s sources at
build time (API names, includes) and defines ``USE_ROCM``. Maintained extensions therefore keep one
CUDA-spelled source and put what hipify gets wrong in ``#if defined(USE_ROCM)`` branches. In this
mode the port (:func:`vado.port.file.port_bytes`):

1. drops the fixes that only do what the build-time hipify does (:data:`HIPIFY_TAGS`: renames,
   ``hip/hip_runtime.h`` includes) and runs the other fixes to a fixpoint as usual;
2. turns the difference between the original and that result into guarded alternatives per line
   range (:func:`guard_lines`): ``#if defined(USE_ROCM)`` <ported lines> ``#else`` <original lines>
   ``#endif``, so the CUDA build compiles the original lines byte for byte. A changed ``#if``/``#elif``
   condition becomes ``(defined(USE_ROCM) && (new)) || (!defined(USE_ROCM) && (old))``; one that
   tests ``USE_ROCM`` (or a HIP platform macro) already is left as the project wrote it.

A change that cannot be guarded by line (inside a multi-line macro, on another directive line) is not
written: it stays a finding (:data:`UNGUARDED`).
"""

from __future__ import annotations

import difflib
import os
import re
from dataclasses import dataclass
from pathlib import Path

#: Fix tags of the changes PyTorch's build-time hipify makes itself (or that hipcc makes needless):
#: API and type renames, include renames, ``#include <hip/hip_runtime.h>``.
HIPIFY_TAGS = frozenset({"rename", "header", "include"})

#: The macro ``torch.utils.cpp_extension`` defines for a ROCm build (``-DUSE_ROCM=1``).
GUARD = "USE_ROCM"

#: Rule code of the finding for a change that could not be written as a guarded branch.
UNGUARDED = "PORT-TORCH"

_HIP_MACROS = re.compile(r"\b(USE_ROCM|__HIP_PLATFORM_AMD__|__HIP_PLATFORM_HCC__|__HIPCC__|__HIP__|IS_HIP_EXTENSION)\b")
_DIRECTIVE = re.compile(r"^\s*#\s*(\w+)")
_CONDITION = re.compile(r"^(\s*#\s*(?:if|elif))(\s+)(.*?)(\s*(?://.*)?)$", re.S)
_IFDEF = re.compile(r"^(\s*#\s*)(ifdef|ifndef)\s+(\w+)(\s*(?://.*)?)$")
_TORCH_SETUP = re.compile(r"\bCUDAExtension\b|torch\.utils\.cpp_extension|\bcpp_extension\b")
_TORCH_CMAKE = re.compile(r"find_package\s*\(\s*Torch\b", re.I)
_MODES = ("auto", "on", "off")


def is_torch_extension(root: str | os.PathLike) -> bool:
    """Whether the tree at ``root`` builds a PyTorch extension: a ``setup.py``/``pyproject.toml`` at its
    top that uses ``CUDAExtension``/``torch.utils.cpp_extension``, a top ``CMakeLists.txt`` with
    ``find_package(Torch)``, or a Python package (``setup.py``/``pyproject.toml`` at the top, no top
    ``CMakeLists.txt``) one of whose Python files builds the extension itself (:func:`_builds_torch_extension`:
    ``torch.utils.cpp_extension.load()`` at import time, exllama 0.1.0; a ``setup_cuda.py`` the top setup.py
    runs, hqq 0.2.8). PyTorch hipifies such sources at build time as it does a setup.py's. Unreadable files
    count as no sign."""
    top = Path(root)
    if not top.is_dir():
        return False
    for name, sign in (("setup.py", _TORCH_SETUP), ("pyproject.toml", _TORCH_SETUP), ("CMakeLists.txt", _TORCH_CMAKE)):
        if _file_has(top / name, sign):
            return True
    if (top / "CMakeLists.txt").exists() or not any((top / n).is_file() for n in ("setup.py", "pyproject.toml")):
        return False
    return _builds_torch_extension(top)


#: A Python file that imports PyTorch's extension builder ...
_TORCH_BUILDER = re.compile(r"\btorch\.utils\.cpp_extension\b|\bfrom\s+torch\.utils\s+import\s+cpp_extension\b")
#: ... and calls it: a ``CUDAExtension`` or a just-in-time ``load``/``load_inline`` (bare, as imported from
#: it, or ``cpp_extension.load``: ``json.load(`` is no build).
_TORCH_BUILD_CALL = re.compile(r"\bCUDAExtension\s*\(|(?:(?<![\w.])|\bcpp_extension\.)load(?:_inline)?\s*\(")
#: The most Python files and directory levels :func:`_builds_torch_extension` reads (a bound on big trees).
_PY_FILES, _PY_DEPTH = 2000, 6


def _file_has(path: Path, sign: "re.Pattern[str]") -> bool:
    """Whether the regular file ``path`` (not a link, under 4 MB) holds ``sign``; False where unreadable."""
    try:
        if path.is_file() and not path.is_symlink() and path.stat().st_size < 4_000_000:
            return sign.search(path.read_bytes().decode("latin-1")) is not None
    except OSError:
        pass
    return False


def _builds_torch_extension(top: Path) -> bool:
    """Whether a ``.py`` file under ``top`` (links not followed, hidden and ``build`` directories skipped, at
    most :data:`_PY_FILES` files :data:`_PY_DEPTH` levels down) imports ``torch.utils.cpp_extension`` and calls
    ``CUDAExtension``/``load``/``load_inline``."""
    seen = 0
    for here, dirs, files in os.walk(top):
        depth = len(Path(here).relative_to(top).parts)
        dirs[:] = [] if depth >= _PY_DEPTH else sorted(
            d for d in dirs if not d.startswith(".") and d not in ("build", "dist", "node_modules", "__pycache__"))
        for name in sorted(files):
            if not name.endswith(".py"):
                continue
            seen += 1
            if seen > _PY_FILES:
                return False
            path = Path(here) / name
            if _file_has(path, _TORCH_BUILDER) and _file_has(path, _TORCH_BUILD_CALL):
                return True
    return False


def resolve_mode(mode: str, root: str | os.PathLike) -> str:
    """``on`` or ``off`` for the ``--torch-extension`` value ``mode`` (``auto`` asks :func:`is_torch_extension`)."""
    if mode not in _MODES:
        raise ValueError(f"torch_extension must be one of {_MODES}, not {mode!r}")
    if mode == "auto":
        return "on" if is_torch_extension(root) else "off"
    return mode


def without_hipify(fix, text: str = ""):
    """What of ``fix`` a torch extension's port writes: ``fix`` itself, or None where PyTorch's build-time hipify
    does it all (:data:`HIPIFY_TAGS`). A rename that also changes the call's arguments (tag ``arguments``:
    ``cudaFuncSetAttribute(kernel, …)`` needs ``reinterpret_cast<const void*>(kernel)`` for HIP's ``const void*``
    parameter; ``cudaMallocHost`` a flag) keeps those edits: hipify renames the call and leaves its arguments
    (gsplat 1.5.3's rasterizers: "no matching function for call to 'hipFuncSetAttribute'").

    With the ``text`` the fix was made for, a rename or include change that PyTorch's hipify does not make
    (:func:`hipify_renames`: ``nv_bfloat162``, ``<device_launch_parameters.h>``; mamba-ssm 2.3.2 and
    warp-rnnt 0.7.0 failed so) is kept whole: the port writes it in the ``USE_ROCM`` branch. CUB's names
    are left to :mod:`vado.port.torch_cub`'s namespace alias."""
    from vado.model import Fix
    from vado.port.translate import ARGUMENTS, RUNTIME_INCLUDE

    if RUNTIME_INCLUDE in fix.tags:  # a .cu TU (a header gets the runtime from the TU that includes it)
        return fix if text and fix.edits[0].path.endswith(".cu") and not hipify_adds_runtime(text) else None
    if text and _hipify_macros(fix, text):
        return None
    if not HIPIFY_TAGS.intersection(fix.tags):
        return fix
    if text and "include" not in fix.tags and "cub" not in fix.tags and not _hipify_does(fix, text):
        return fix
    if ARGUMENTS in fix.tags and len(fix.edits) > 1:
        return Fix(fix.edits[1:], fix.applicability, fix.description + " (the arguments only: hipify renames)",
                   tuple(t for t in fix.tags if t not in HIPIFY_TAGS))
    return None


#: What ``hip_header_magic`` of PyTorch's hipify (torch 2.13.0) takes for device code, after which it adds
#: ``#include "hip/hip_runtime.h"`` to a file that includes neither it nor ``hip_runtime_api.h``: a kernel, shared
#: memory, ``__syncthreads``, or a launch (``<<<…>>>`` becomes ``hipLaunchKernelGGL`` in an extension's build).
_HIPIFY_DEVICE_LOGIC = re.compile(r"__global__|__shared__|:?:?\b__syncthreads\w*\(|<<<")


def hipify_adds_runtime(text: str) -> bool:
    """Whether PyTorch's hipify gives a file of ``text`` the HIP runtime itself: it adds ``hip/hip_runtime.h`` to one
    with device code, and a CUDA header it maps (``<cub/cub.cuh>`` → ``<hipcub/hipcub.hpp>``, ``<cuda_fp16.h>``)
    brings the runtime with its HIP replacement. One with neither (spatial.cu of eden_simple_knn 0.1.0a1: a host
    wrapper whose project header names ``float3``) gets nothing, where nvcc includes ``cuda_runtime.h`` in every
    ``.cu`` file: "unknown type name 'float3'"."""
    if _HIPIFY_DEVICE_LOGIC.search(text) is not None:
        return True
    mapped = hipify_renames()[1]
    return any(m.group(2) in mapped for m in _INCLUDED.finditer(text))


_INCLUDED = re.compile(r"#\s*include\s*([<\"])([^>\"\n]+)[>\"]")


def _hipify_does(fix, text: str) -> bool:
    """Whether PyTorch's hipify makes ``fix``'s rename or include change itself (its first edit's old text)."""
    names, includes = hipify_renames()
    first = fix.edits[0]
    old = text[first.start:first.end]
    if "header" in fix.tags:
        m = _INCLUDED.search(old)
        header = m.group(2) if m else old.strip("<>\"")
        if not header:
            return True  # an inserted #include <hip/hip_runtime.h>: hipify and hipcc see to it
        return (header in includes or f"<{header}>" in includes or f"include <{header}" in includes
                or f'include "{header}' in includes
                or any(header.startswith(k + "/") for k in includes if "/" in k and not k.endswith((".h", ".cuh"))))
    return old in names


def hipify_makes(finding, text: str = "") -> bool:
    """Whether PyTorch's build-time hipify makes all that ``finding`` asks of a ROCm build (``text``: its file's,
    where known): a fix the torch-extension port leaves to it (:func:`without_hipify`), or, without a fix, renames
    (API004) and includes (API005) that are all keys of hipify's mappings. For the audit of a torch extension
    that builds for ROCm itself: what remains is what is left when these are taken out."""
    data = finding.data or {}
    if finding.fix is not None:
        return without_hipify(finding.fix, text) is None
    names, includes = hipify_renames()
    if finding.code == "API004" and data.get("renames"):
        return all(n in names for n in data["renames"])
    if finding.code == "API005" and data.get("cuda_header"):
        header = data["cuda_header"]
        return (header in includes or f"<{header}>" in includes
                or any(header.startswith(k + "/") for k in includes if "/" in k and not k.endswith((".h", ".cuh"))))
    return False


def _hipify_macros(fix, text: str) -> bool:
    """Whether every edit of ``fix`` renames a compiler macro as PyTorch's hipify renames it: ARCH007's
    ``#ifdef __CUDACC__`` → ``__HIPCC__`` (pytorch3d 9381c40's pulsar headers got
    ``#if (defined(USE_ROCM) && (defined(__HIPCC__))) || …`` where the hipified ``#ifdef __HIPCC__`` holds)."""
    macros = hipify_macros()
    return bool(fix.edits) and all(macros.get(text[e.start:e.end]) == e.content for e in fix.edits)


def hipify_macros() -> dict[str, str]:
    """The compiler macros PyTorch's build-time hipify renames, with what each becomes (``port/data/torch_hipify.json``)."""
    global _MACROS
    if _MACROS is None:
        import json
        from importlib.resources import files

        data = json.loads((files("vado.port") / "data" / "torch_hipify.json").read_text(encoding="utf-8"))
        _MACROS = dict(data.get("macros", {}))
    return _MACROS


_MACROS: dict[str, str] | None = None


def hipify_renames() -> tuple[frozenset[str], frozenset[str]]:
    """(identifiers, include keys) that PyTorch's build-time hipify renames: the keys of torch 2.13.0's
    ``cuda_to_hip_mappings`` (``port/data/torch_hipify.json``, written by ``tools/torch_hipify_names.py``)."""
    global _HIPIFY
    if _HIPIFY is None:
        import json
        from importlib.resources import files

        data = json.loads((files("vado.port") / "data" / "torch_hipify.json").read_text(encoding="utf-8"))
        _HIPIFY = (frozenset(data["names"]), frozenset(data["includes"]))
    return _HIPIFY


_HIPIFY: tuple[frozenset[str], frozenset[str]] | None = None


@dataclass(frozen=True)
class Unguarded:
    """A change the port could not write as a guarded branch: original lines ``first``..``last`` (1-based)."""

    first: int
    last: int
    why: str


def _is_directive(line: str) -> str | None:
    m = _DIRECTIVE.match(line)
    return m.group(1) if m else None


#: ``#ifdef USE_ROCM``, ``#if defined(USE_ROCM)``, ``#if defined USE_ROCM``: a branch only the ROCm build compiles.
_ROCM_ONLY = re.compile(rf"^\s*#\s*(?:ifdef\s+{GUARD}|if\s+defined\s*\(?\s*{GUARD}\s*\)?)\s*(?://.*|/\*.*\*/)?$")


def _rocm_only_lines(lines: list[str]) -> set[int]:
    """Indices of the lines of ``lines`` inside a branch whose own condition is ``USE_ROCM`` alone (not its
    ``#else``/``#elif``, nor a directive line): what the CUDA build of a torch extension never compiles."""
    out: set[int] = set()
    stack: list[bool] = []  # per open group: whether its current branch is USE_ROCM's
    continued = False
    for k, line in enumerate(lines):
        d = None if continued else _is_directive(line)
        continued = line.rstrip("\r\n").endswith("\\")
        if d in ("if", "ifdef", "ifndef"):
            stack.append(bool(_ROCM_ONLY.match(line.rstrip("\r\n"))))
            continue
        if d in ("elif", "else") and stack:
            stack[-1] = False
            continue
        if d == "endif" and stack:
            stack.pop()
            continue
        if any(stack):
            out.add(k)
    return out


def _balanced(lines: list[str]) -> bool:
    """Whether the conditional directives of ``lines`` nest completely (a block an ``#if`` may hold)."""
    depth = 0
    for line in lines:
        d = _is_directive(line)
        if d in ("if", "ifdef", "ifndef"):
            depth += 1
        elif d == "endif":
            depth -= 1
            if depth < 0:
                return False
        elif d in ("else", "elif", "elifdef", "elifndef") and depth == 0:
            return False
    return depth == 0


def _continued(line: str) -> bool:
    return line.rstrip("\r\n").endswith("\\")


def _condition(line: str) -> tuple[str, str, str] | None:
    """``(directive, condition, trailing comment)`` of an ``#if``/``#elif`` line; ``#ifdef N`` and
    ``#ifndef N`` read as ``#if defined(N)`` and ``#if !defined(N)``."""
    body = line.rstrip("\r\n")
    m = _IFDEF.match(body)
    if m:
        neg = "!" if m.group(2) == "ifndef" else ""
        return f"{m.group(1)}if", f"{neg}defined({m.group(3)})", m.group(4)
    m = _CONDITION.match(body)
    if not m:
        return None
    return m.group(1), m.group(3), m.group(4)


def _eol(lines: list[str]) -> str:
    for line in lines:
        if line.endswith("\r\n"):
            return "\r\n"
    return "\n"


def _open_lines(text: str, lines: list[str]) -> set[int]:
    """Indices of the lines of ``text`` that begin inside a comment or string token spanning lines."""
    from vado.scan.lexer import Kind, lex

    starts, pos = [], 0
    for line in lines:
        starts.append(pos)
        pos += len(line)
    spans = [(t[1], t[2]) for t in lex(text) if t[0] in (Kind.COMMENT, Kind.STRING) and "\n" in t[3]]
    if not spans:
        return set()
    import bisect

    found = set()
    for a, b in spans:
        k = bisect.bisect_right(starts, a)
        while k < len(starts) and starts[k] < b:
            found.add(k)
            k += 1
    return found


def _hunks(old: list[str], new: list[str]) -> list[tuple[int, int, int, int]]:
    """The changed line ranges ``(i1, i2, j1, j2)`` of ``old`` → ``new``, each widened to whole
    multi-line macro definitions (a ``#define`` continued with backslashes is one unit: a change
    in its body is guarded as the whole definition), overlapping ranges merged."""
    def start_of(i: int) -> int:
        while i > 0 and _continued(old[i - 1]):
            i -= 1
        return i

    def end_of(i: int) -> int:  # exclusive: past the line that ends the continued block holding line i-1
        while 0 < i < len(old) and _continued(old[i - 1]):
            i += 1
        return i

    merged: list[list[int]] = []
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            continue
        s = start_of(i1)
        e = max(end_of(i2), i2)
        # Lines outside [i1, i2) are equal lines, the same on both sides.
        h = [s, e, j1 - (i1 - s), j2 + (e - i2)]
        if merged and h[0] <= merged[-1][1]:
            last = merged[-1]
            last[1], last[3] = max(last[1], h[1]), max(last[3], h[3])
        else:
            merged.append(h)
    return [tuple(h) for h in merged]  # type: ignore[misc]


_CONDITIONS = ("if", "elif", "ifdef", "ifndef")
_BRANCHING = (*_CONDITIONS, "else", "endif")


def _split_conditions(old: list[str], new: list[str], hunks: list[tuple[int, int, int, int]]) -> list[tuple[int, int, int, int]]:
    """``hunks`` with each line-for-line change that holds an ``#if``/``#elif`` line changed on both sides and
    other lines split there: the condition line gets its two builds' halves, the lines around it their own
    ``USE_ROCM`` branch. inplace-abn 1.1.0: ``#if CUDA_VERSION >= 9000`` (ARCH008) and the shuffle under it
    (WARP009) were one range that no branch could hold. Ranges with other directives, or inside a multi-line
    macro, stay whole."""
    out: list[tuple[int, int, int, int]] = []
    for i1, i2, j1, j2 in hunks:
        extra = (j2 - j1) - (i2 - i1)
        if extra > 0 and i2 - i1 > 0 and not any(_is_directive(x) in _BRANCHING for x in new[j1:j1 + extra]) \
                and _is_directive(old[i1]) in _CONDITIONS and _is_directive(new[j1 + extra]) in _CONDITIONS:
            # Lines inserted right above a changed condition (the runtime include above `#ifdef __CUDA_ARCH__`):
            # an insertion of their own, then the condition.
            out.append((i1, i1, j1, j1 + extra))
            j1 += extra
        before, after = old[i1:i2], new[j1:j2]
        kinds = [(_is_directive(b), _is_directive(a)) for b, a in zip(before, after)]
        conditions = [k for k, (b, a) in enumerate(kinds) if b in _CONDITIONS and a in _CONDITIONS]
        if (i2 - i1 != j2 - j1 or i2 - i1 < 2 or not conditions or any(map(_continued, before + after))
                or any((b or a) and k not in conditions for k, (b, a) in enumerate(kinds))):
            out.append((i1, i2, j1, j2))
            continue
        run = 0
        for k in range(i2 - i1 + 1):
            if k == i2 - i1 or k in conditions:
                if run < k:
                    out.extend(_changed_part(old, new, i1 + run, i1 + k, j1 + run))
                if k < i2 - i1:
                    out.append((i1 + k, i1 + k + 1, j1 + k, j1 + k + 1))
                run = k + 1
    return out


def _changed_part(old: list[str], new: list[str], i1: int, i2: int, j1: int) -> list[tuple[int, int, int, int]]:
    """The line-for-line range ``old[i1:i2]`` / ``new[j1:…]`` without its unchanged lines at either end (none
    when all are equal)."""
    while i1 < i2 and old[i1] == new[j1]:
        i1, j1 = i1 + 1, j1 + 1
    while i2 > i1 and old[i2 - 1] == new[j1 + (i2 - 1 - i1)]:
        i2 -= 1
    return [(i1, i2, j1, j1 + (i2 - i1))] if i1 < i2 else []


#: ``#if !defined(M)`` / ``#ifndef M`` for a HIP platform macro ``M``: true in every CUDA build.
_NOT_HIP = re.compile(r"^\s*#\s*(?:ifndef\s+(?P<a>\w+)|if\s+!\s*defined\s*\(?\s*(?P<b>\w+)\s*\)?)\s*(?://.*)?$")
_HIP_PLATFORM = frozenset({"__HIP_PLATFORM_AMD__", "__HIP_PLATFORM_HCC__", "__HIPCC__", "__HIP__", "USE_ROCM",
                           "__HIP_DEVICE_COMPILE__"})


def _lone_directive(lines: list[str]) -> str:
    """The one directive line of ``lines`` when the rest are blank or ``//`` comments, else ``""``."""
    found = ""
    for line in lines:
        body = line.strip()
        if not body or body.startswith("//"):
            continue
        if found or not body.startswith("#"):
            return ""
        found = body
    return found


def _cuda_neutral_pairs(old: list[str], new: list[str], hunks: list[tuple[int, int, int, int]]) -> set[int]:
    """Indices of the pure insertions that may stand as they are: an ``#if !defined(<HIP macro>)`` with its
    ``#endif`` (the port's "HIP has this already" guard). A CUDA build defines no HIP macro, so it reads the
    original lines between them; the pair is accepted together or not at all, around balanced lines."""
    opened: list[int] = []
    accepted: set[int] = set()
    for k, (i1, i2, j1, j2) in enumerate(hunks):
        if i1 != i2:
            continue
        line = _lone_directive(new[j1:j2])
        m = _NOT_HIP.match(line)
        if m and (m.group("a") or m.group("b")) in _HIP_PLATFORM:
            opened.append(k)
        elif _is_directive(line) == "endif" and opened:
            start, end = opened.pop(), i1
            # `#endif` inserted after an `#endif` reads as inserted before it: the same text.
            while not _balanced(old[hunks[start][1]:end]) and end > hunks[start][1] and \
                    _is_directive(old[end - 1]) == "endif" and old[end - 1].strip() == line:
                end -= 1
            if _balanced(old[hunks[start][1]:end]):
                accepted |= {start, k}
    return accepted


_ROCM_ONLY = re.compile(r"^\s*#\s*(?:ifdef\s+(?P<a>\w+)|if\s+defined\s*\(?\s*(?P<b>\w+)\s*\)?)\s*(?://.*)?$")


def _rocm_only_group(lines: list[str]) -> bool:
    """Whether inserted ``lines`` are one conditional group that only a HIP build enters (``#ifdef USE_ROCM`` …
    ``#endif``, no ``#else``/``#elif`` of its own): a CUDA build skips it, so it stands as it is (the port's
    launch-macro redefinition, whose first line must stay right after the macro: vado.port.torch_launch)."""
    body = [x for x in lines if x.strip()]
    if len(body) < 2 or not _balanced(body):
        return False
    m = _ROCM_ONLY.match(body[0].rstrip("\r\n"))
    if not m or (m.group("a") or m.group("b")) not in _HIP_PLATFORM or _is_directive(body[-1]) != "endif":
        return False
    depth = 0
    for i, line in enumerate(body):
        d = _is_directive(line)
        if d in ("if", "ifdef", "ifndef"):
            depth += 1
        elif d == "endif":
            depth -= 1
            if depth == 0 and i != len(body) - 1:
                return False  # two groups, or text after the first
        elif d in ("else", "elif") and depth == 1:
            return False
    return True


def guard_lines(original: str, ported: str) -> tuple[str, list[Unguarded]]:
    """``original`` with each line range that ``ported`` changes written as a ``USE_ROCM`` branch.

    Returns the guarded text and the changes left out (:class:`Unguarded`). Lines the two texts
    share stay as they are; the CUDA build (``USE_ROCM`` undefined) compiles the original lines.
    """
    old = original.splitlines(keepends=True)
    new = ported.splitlines(keepends=True)
    nl = _eol(old)
    # Both sides end with a newline so that the guard lines start lines of their own.
    if old and not old[-1].endswith("\n"):
        old[-1] += nl
    if new and not new[-1].endswith("\n"):
        new[-1] += nl
    out: list[str] = []
    left: list[Unguarded] = []
    old_open, new_open = _open_lines(original, old), _open_lines(ported, new)
    at = 0  # the next original line not yet written
    hunks = _split_conditions(old, new, _hunks(old, new))
    rocm_only = _rocm_only_lines(old)
    neutral = _cuda_neutral_pairs(old, new, hunks)
    for k, (i1, i2, j1, j2) in enumerate(hunks):
        out.extend(old[at:i1])
        at = i2
        before, after = old[i1:i2], new[j1:j2]
        if k in neutral or (i1 == i2 and _rocm_only_group(after)):
            out.extend(after)  # true in the CUDA build (it reads the original lines inside), or skipped by it
            continue
        first, last = i1 + 1, max(i1 + 1, i2)
        if i1 < i2 and all(x in rocm_only for x in range(i1, i2)) and _balanced(before) and _balanced(after) \
                and not ({i1, i2} & old_open or {j1, j2} & new_open):
            # Inside the project's own ``#ifdef USE_ROCM`` branch: the CUDA build never compiles these lines, so the
            # change needs no branch of its own (WARP009's rewrite of a 32-lane own-HIP macro, multi-line ones too).
            out.extend(after)
            continue
        if {i1, i2} & old_open or {j1, j2} & new_open:
            left.append(Unguarded(first, last, "the change starts or ends inside a comment or string "
                                               "that spans lines, where an #if is not a directive"))
            out.extend(before)
            continue
        directives = [d for d in map(_is_directive, before + after) if d]
        inside_macro = ((i1 > 0 and _continued(old[i1 - 1])) or (before and _continued(before[-1]))
                        or (after and _continued(after[-1])))
        if directives and len(before) == len(after) and all(_is_directive(x) in ("if", "elif", "ifdef", "ifndef") for x in before + after):
            lines = []
            for b, a in zip(before, after):
                cb, ca = _condition(b), _condition(a)
                if cb is None or ca is None or inside_macro:
                    lines = None
                    break
                if _HIP_MACROS.search(cb[1]):
                    lines.append(b)  # the project tells the builds apart here already
                    continue
                end = "\r\n" if b.endswith("\r\n") else "\n"
                lines.append(f"{cb[0]} (defined({GUARD}) && ({ca[1]})) || (!defined({GUARD}) && ({cb[1]})){cb[2]}{end}")
            if lines is not None:
                out.extend(lines)
                continue
        if inside_macro:
            left.append(Unguarded(first, last, "the change lies in a multi-line macro, where no #if can stand"))
            out.extend(before)
            continue
        if not (_balanced(before) and _balanced(after)):
            left.append(Unguarded(first, last, "the change touches a conditional directive"))
            out.extend(before)
            continue
        out.append(f"#if defined({GUARD}){nl}")
        out.extend(after)
        if before:
            out.append(f"#else{nl}")
            out.extend(before)
        out.append(f"#endif{nl}")
    out.extend(old[at:])
    text = "".join(out)
    if original and not original.endswith(("\n", "\r")) and text.endswith(nl) and out and out[-1] is old[-1]:
        text = text[: -len(nl)]  # the original's last line had no newline and stays the last line
    return text, left
