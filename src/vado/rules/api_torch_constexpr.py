"""API rule about host code that calls a ``__device__`` ``constexpr`` function in a torch extension (API021).

PyTorch's CUDA build of an extension always passes ``--expt-relaxed-constexpr`` to nvcc
(``torch.utils.cpp_extension.COMMON_NVCC_FLAGS``), which lets host code call a ``constexpr`` function declared
``__device__`` only. Its ROCm build gives hipcc no such flag and clang has none: a ``constexpr`` function without
an attribute is ``__host__ __device__`` there, but one declared ``__device__`` stays device-only, and host code
that calls it stops with "no matching function for call" (torchcompactradius 0.5.5: ``getOffsets``, a host
function of ``multiLevelMemory/mlmUtil.h``, calls ``power``, ``deviceInline constexpr`` in ``common.h`` with
``#define deviceInline __device__ inline``; 4 of its 20 TUs).
"""

from __future__ import annotations

import functools
import os
import posixpath
import re
from typing import Iterable, NamedTuple

from vado.model import Effort, Finding, Severity, Verdict
from vado.rules import cuda_syntax as cs
from vado.rules.base import FileContext, Rule
from vado.scan.project_headers import in_tree
from vado.scan.run_caches import per_run

_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)[ \t]+([^\n]*)$", re.M)
_QUOTED = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"\n]+)"', re.M)
#: A function declaration's head: the specifiers since the last statement, then ``name(``.
_HEAD = re.compile(r"(?:^|[;{}])([^;{}()#]*?)\b([A-Za-z_]\w*)\s*\(", re.M)
_MAX_HEADERS = 24
_USING = re.compile(r"using\s+(?:::)?(?:\w+\s*::\s*)+(\w+)\s*;")  # a literal first: a fast scan
_CONSTEXPR = re.compile(r"\bconstexpr\b")
#: Operators and statements spelt like a call (``sizeof(T)``): never a function's name.
_NOT_NAMES = frozenset({"sizeof", "alignof", "_Alignof", "decltype", "noexcept", "static_assert", "typeid",
                        "alignas", "return", "if", "while", "for", "switch", "catch", "throw", "co_return"})


def _device_macros(text: str, only: bool = True) -> set[str]:
    """Object-like macros some definition of which says ``__device__`` (``only``: without ``__host__``)."""
    return {m.group(1) for m in _DEFINE.finditer(text)
            if re.search(r"\b__device__\b", m.group(2)) and not (only and re.search(r"\b__host__\b", m.group(2)))}


def _constexpr_heads(text: str) -> tuple[tuple[str, frozenset[str], int], ...]:
    """``(name, words of its head, offset)`` of each ``constexpr`` function declaration head in ``text``: the
    :data:`_HEAD` matches whose head holds a ``constexpr``, searched from the last ``;{}()#`` before each (the
    matches ``_HEAD.finditer`` gives there; scanning the whole text with it cost seconds on flashinfer)."""
    out = []
    seen: set[int] = set()
    for c in _CONSTEXPR.finditer(text):
        lo = max(text.rfind(ch, 0, c.start()) for ch in ";{}()#")
        hi = min((i for i in (text.find(ch, c.end()) for ch in ";{}()#") if i >= 0), default=-1)
        if hi < 0 or text[hi] != "(":
            continue  # a match ends at the first '(' after its head
        m = _HEAD.search(text, max(lo, 0), hi + 1)
        if m is None or m.start(2) in seen or not m.start(1) <= c.start() < m.end(1):
            continue
        seen.add(m.start(2))
        name, head = m.group(2), m.group(1)
        # an initialiser's call (``__device__ constexpr unsigned n = sizeof(T);``) is a variable's, not a
        # declaration: '=' outside a template parameter list
        if name in _NOT_NAMES or "=" in head.rsplit(">", 1)[-1]:
            continue
        words = frozenset(re.findall(r"\w+", head))
        if "constexpr" in words:
            out.append((name, words, m.start(2)))
    return tuple(out)


def _usings(text: str) -> frozenset[str]:
    """Names ``text`` brings in by a using-declaration (``using std::min;``)."""
    if "using" not in text:
        return frozenset()
    return frozenset(m.group(1) for m in _USING.finditer(text)
                     if not (m.start() and (text[m.start() - 1].isalnum() or text[m.start() - 1] == "_")))


def _device_constexpr(text: str, macros: set[str], heads=None, usings=None) -> tuple[dict[str, int], set[str]]:
    """Names of the ``constexpr`` functions ``text`` declares ``__device__`` only (by the attribute or a macro of
    ``macros``), with the offset of each name; and the names it also declares callable from host code (a
    ``constexpr`` function without ``__device__``, ``__host__ __device__``, or ``using std::min;``): host code
    calls that overload (flashinfer fb28d72 csrc/xqa/mha_stdheaders.cuh: ``using std::min;`` under
    ``#ifndef GENERATE_CUBIN``, a ``__device__`` ``min`` in its ``#else``). ``heads``: ``text``'s
    :func:`_constexpr_heads` and ``usings`` its :func:`_usings`, where the caller has them."""
    out: dict[str, int] = {}
    host: set[str] = set(_usings(text) if usings is None else usings)
    for name, words, start in (_constexpr_heads(text) if heads is None else heads):
        if "__global__" in words:
            continue
        if "__host__" not in words and ("__device__" in words or words & macros):
            out.setdefault(name, start)
        else:
            host.add(name)
    return out, host


def _head_words(text: str, name_start: int) -> set[str]:
    """The words before a function's name back to the previous statement (``;``, ``{``, ``}``), across directive
    lines other than ``#define``: a kernel may give its attributes in ``#ifdef`` branches above its return type
    (``#ifdef NDEBUG __device__ #else __global__ #endif void kernel(``), where the function's own head stops."""
    stop = max(text.rfind(c, 0, name_start) for c in ";{}") + 1
    head = re.sub(r"^[ \t]*#[ \t]*define\b[^\n]*", " ", text[stop:name_start], flags=re.M)
    return set(re.findall(r"\w+", head))


class _Header(NamedTuple):
    """What the rule reads of one project header (kept per file version: every unit of a tree includes the
    same headers, and reading them again for each made FasterTransformer's audit four times slower)."""

    text: str
    device_only: frozenset[str]  # _device_macros(text)
    device_any: frozenset[str]  # _device_macros(text, False)
    heads: tuple  # _constexpr_heads(text)
    usings: frozenset[str]  # _usings(text)
    includes: tuple[str, ...]  # its quoted #include names


def _header(full: str) -> _Header | None:
    """The :class:`_Header` of the file at ``full``, or None where it cannot be read."""
    try:
        st = os.stat(full)
    except OSError:
        return None
    return _read_header(full, st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=1024)
def _read_header(full: str, mtime_ns: int, size: int) -> _Header | None:
    try:
        with open(full, "rb") as fh:
            text = _COMMENT.sub(" ", fh.read(2 * 1024 * 1024).decode("latin-1"))
    except OSError:
        return None
    return _Header(text, frozenset(_device_macros(text)), frozenset(_device_macros(text, False)),
                   _constexpr_heads(text), _usings(text), tuple(_QUOTED.findall(text)))


@per_run
@functools.lru_cache(maxsize=8192)
def _resolve(root: str, base: str, inc: str) -> str | None:
    """The tree path of ``#include "inc"`` in a file of folder ``base``: beside it or in a folder above it."""
    while True:
        target = in_tree(base, inc)
        if target and os.path.isfile(os.path.join(root, target)):
            return target
        if not base:
            return None
        base = posixpath.dirname(base)


def _included(root: str, path: str, names: Iterable[str], seen: set[str]) -> list[tuple[str, _Header]]:
    """``(path, facts)`` of the project headers named by the quoted ``#include`` lines ``names`` of the file at
    ``path``, found beside the file or in a folder above it (an ``-I`` of the project's), and of theirs
    (bounded)."""
    out: list[tuple[str, _Header]] = []
    for inc in names:
        target = _resolve(root, posixpath.dirname(path), inc)
        if target and target not in seen:
            seen.add(target)
            if len(seen) > _MAX_HEADERS:
                return out
            facts = _header(os.path.join(root, target))
            if facts is None:
                continue
            out.append((target, facts))
            out += _included(root, target, facts.includes, seen)
    return out


class TorchDeviceConstexprHostCall(Rule):
    """Host code of a torch extension calls a ``constexpr`` function declared ``__device__`` only.

    What it does
    ------------
    In a PyTorch extension, reports a call from host code (a function that is not ``__device__``,
    ``__host__ __device__``, ``__global__`` or ``constexpr``, by its attributes or a project macro) of a ``constexpr`` function that this file or a project header it includes
    declares ``__device__`` without ``__host__``, directly or through a macro (``#define deviceInline __device__
    inline``).

    Why is this bad?
    ----------------
    PyTorch's CUDA build always compiles with nvcc's ``--expt-relaxed-constexpr``, which lets host code call
    such a function; the ROCm build has no equivalent, and hipcc stops with "no matching function for call"
    (torchcompactradius 0.5.5: 4 of 20 TUs).

    Example
    -------
    .. code-block:: cuda

        __device__ constexpr int power(int b, int e) { return e == 0 ? 1 : b * power(b, e - 1); }
        int offsets(int range, int dim) { return power(1 + 2 * range, dim); }   // host code

    Use instead
    -----------
    Declare the function ``__host__ __device__`` (or drop the attribute: a ``constexpr`` function is both).

    Fix safety
    ----------
    No fix: the attribute often comes from a project macro that other functions share.

    References
    ----------
    - PyTorch ``torch/utils/cpp_extension.py`` (``COMMON_NVCC_FLAGS``: ``--expt-relaxed-constexpr``; torch 2.13.0)
    - Clang, Compiling CUDA with clang (constexpr functions are implicitly host device; overloading on
      ``__host__``/``__device__``): https://llvm.org/docs/CompileCudaWithLLVM.html
    """

    code = "API021"
    name = "device-constexpr-called-from-host"
    severity = Severity.HIGH
    file_kinds = cs.CUDA_CXX_KINDS

    def check(self, ctx: FileContext) -> Iterable[Finding]:
        opts = ctx.options or {}
        rocm = [t for t in ctx.targets if t.family == "rocm"]
        if not opts.get("torch_extension") or not rocm:
            return
        text = _COMMENT.sub(lambda m: " " * len(m.group(0)), ctx.text)
        path = ctx.path.replace(os.sep, "/")
        root = opts.get("source_root")
        headers = _included(str(root), path, _QUOTED.findall(text), {path}) if root else []
        if "constexpr" not in text and not any(h.heads for _, h in headers):
            return
        macros = _device_macros(text).union(*(h.device_only for _, h in headers))
        # a caller declared with one of these is device or __host__ __device__ code (clang defers its errors)
        device_heads = _device_macros(text, False).union(*(h.device_any for _, h in headers))
        found, host = _device_constexpr(text, macros)
        where: dict[str, str] = {n: path for n in found}
        for hp, h in headers:
            found, also = _device_constexpr(h.text, macros, h.heads, h.usings)
            host |= also
            for n in found:
                where.setdefault(n, hp)
        for n in host:  # an overload host code can call: hipcc picks it
            where.pop(n, None)
        if not where:
            return
        view = cs.device_view(ctx)
        toks = view.tokens
        functions = view.functions
        for i in view.ident_indices(tuple(where)):
            if i + 1 >= len(toks) or toks[i + 1][3] != "(" or (i > 0 and toks[i - 1][3] in (".", "->")):
                continue
            fn = cs.enclosing_function(functions, toks[i][1])
            if fn is None or fn.name_start <= toks[i][1] < fn.body_start:
                continue  # not in a function body (a declaration, a definition's own name)
            head = _head_words(text, fn.name_start)
            if head & {"__device__", "__global__", "constexpr"} or head & device_heads or view.in_device_code(toks[i][1]):
                continue  # device or __host__ __device__ code, or a constexpr caller (__host__ __device__ to clang)
            name = toks[i][3]
            yield self.finding(
                ctx, toks[i][1], toks[i][2],
                f"{name} is a constexpr function declared __device__ only ({where[name]}), called here from host "
                f"code ({fn.name}): PyTorch's CUDA build lets nvcc accept that (--expt-relaxed-constexpr), hipcc "
                f"does not ('no matching function for call'); declare {name} __host__ __device__",
                {t.name: Verdict.MANUAL for t in rocm},
                effort=Effort(lines=1, constructs=1, hours=0.25),
                data={"function": name, "declared_in": where[name], "caller": fn.name},
            )
