"""API rules about what nvcc declares for a CUDA file and HIP's headers do not (API010–API014).

nvcc compiles a ``.cu`` file with CUDA's runtime headers included first, and those declare more
than HIP's ``hip/hip_runtime.h`` does: ``std::printf`` usable in device code, ``min``/``max``
overloads for an ``int`` with an ``unsigned int``, and the C string functions of ``<string.h>``.
A port that only renames compiles with nvcc and fails (or, for ``min``/``max``, changes type) with
hipcc. Each fact was measured with ROCm 7.2.4's hipcc for gfx942 and nvcc 13 (the PORT fixtures
``device-printf``, ``min-max-signedness``, ``string-h`` compile with ROCm 7.2.4).
"""

from __future__ import annotations

import re
from typing import Iterable

from vado.model import Applicability, Effort, Finding, Fix, Severity, Target, Verdict
from vado.rules import cuda_syntax as cs
from vado.rules.base import FileContext, Rule
from vado.scan.classify import FileKind
from vado.scan.lexer import Kind


def _rocm_targets(ctx: FileContext) -> tuple[Target, ...]:
    return tuple(t for t in ctx.targets if t.family == "rocm" and t.hip_version)


def _plain_call(toks, i: int) -> bool:
    """``name(`` at ``i``, not a member (``x.name``) and not qualified by another namespace than ``std``."""
    if i + 1 >= len(toks) or toks[i + 1][3] != "(":
        return False
    if i > 0 and toks[i - 1][3] in (".", "->"):
        return False
    if i > 0 and toks[i - 1][3] == "::":
        return i > 1 and toks[i - 2][3] == "std" and not (i > 2 and toks[i - 3][3] == "::")
    return True


# --------------------------------------------------------------------------- API010


class StdPrintfInDeviceCode(Rule):
    """``std::printf`` in device code: HIP's device ``printf`` is the global one only.

    What it does
    ------------
    On ROCm targets, finds ``std::printf(...)`` inside a ``__global__`` or ``__device__`` function.

    Why is this bad?
    ----------------
    CUDA declares its device ``printf`` so that ``std::printf`` names it too; HIP declares a
    device ``printf`` in the global namespace only, so ``std::printf`` is the host function:
    ROCm 7.2.4's hipcc stops with "reference to __host__ function 'printf' in __device__
    function" (nccl-tests' ``verifiable.cu``).

    Example
    -------
    .. code-block:: cuda

        __global__ void k(int v) { std::printf("%d\\n", v); }

    Use instead
    -----------
    .. code-block:: cuda

        __global__ void k(int v) { printf("%d\\n", v); }

    Fix safety
    ----------
    Safe: ``std::`` is dropped; the call is the same device ``printf`` CUDA called.

    References
    ----------
    - ROCm 7.2.4 ``hip/amd_detail/amd_device_functions.h`` (``printf`` declared ``__device__`` at global scope)
    - CUDA Programming Guide, formatted output: https://docs.nvidia.com/cuda/cuda-c-programming-guide/#formatted-output
    """

    code = "API010"
    name = "std-printf-in-device-code"
    severity = Severity.HIGH
    file_kinds = cs.CUDA_CXX_KINDS
    triggers = ("printf",)
    can_fix = True

    def check(self, ctx: FileContext) -> Iterable[Finding]:
        targets = _rocm_targets(ctx)
        if not targets:
            return
        view = cs.device_view(ctx)
        toks = view.tokens
        for i in view.ident_indices(("printf",)):
            if not (i > 1 and toks[i - 1][3] == "::" and toks[i - 2][3] == "std" and _plain_call(toks, i)):
                continue
            if not view.in_device_code(toks[i][1]):
                continue
            start = toks[i - 2][1]
            fix = Fix((ctx.edit(start, toks[i][1], ""),), Applicability.SAFE, "std::printf → printf (HIP's device printf)",
                      ("api",))
            yield self.finding(ctx, start, toks[i][2], "std::printf in device code names the host printf on HIP "
                               "(its device printf is the global one): call printf",
                               {t.name: Verdict.AUTOMATIC for t in targets}, fix=fix,
                               effort=Effort(lines=1, constructs=1, hours=0.0))


# --------------------------------------------------------------------------- API011

_INT_WORDS = {("int",): "int", ("signed",): "int", ("signed", "int"): "int",
              ("unsigned",): "unsigned", ("unsigned", "int"): "unsigned"}
_QUALIFIERS = frozenset({"const", "volatile", "register", "static", "constexpr", "__restrict__"})
_BUILTIN_DIM = frozenset({"threadIdx", "blockIdx", "blockDim", "gridDim"})
_ARITH = frozenset({"+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^"})
_DECIMAL = re.compile(r"(?:0|[1-9][0-9]*)([uU]?)")


#: Words that stand before a name without declaring it (``return x;``).
_NOT_TYPES = frozenset({"return", "case", "else", "do", "sizeof", "new", "delete", "throw", "co_return", "goto",
                        "typename", "template", "operator", "using", "namespace", "struct", "class", "enum"})


def _declared_types(toks, first: int, end: int) -> dict[str, tuple[int, str | None]]:
    """Names declared ``int``/``unsigned`` (``const int n``, ``unsigned int i = …``, ``for (int i …``)
    between token ``first`` and ``end``: name → (index of the declaration, "int" or "unsigned"); a name
    declared later with another type (``float u``) maps to None, so that it is not taken for the int."""
    out: dict[str, tuple[int, str | None]] = {}
    bounds = ("(", ",", ";", "{", "}")
    for j in range(first + 1, end):
        t = toks[j]
        if t[0] is not Kind.IDENT or j + 1 >= len(toks) or toks[j + 1][3] not in ("=", ",", ";", ")", "["):
            continue
        words: list[str] = []
        k = j - 1
        while k >= first and toks[k][3] in ("int", "unsigned", "signed", *_QUALIFIERS):
            if toks[k][3] not in _QUALIFIERS:
                words.insert(0, toks[k][3])
            k -= 1
        if words:
            if k >= first and toks[k][3] not in bounds:
                continue  # long int, a cast, a template argument …
            kind = _INT_WORDS.get(tuple(words))
            out[t[3]] = (j, kind)
        elif (toks[j - 1][0] is Kind.IDENT and toks[j - 1][3] not in _NOT_TYPES and j >= 2
              and (toks[j - 2][3] in bounds or toks[j - 2][3] in _QUALIFIERS)):
            out[t[3]] = (j, None)  # float u, size_t n, T v: not an int
    return out


def _expr_type(toks, first: int, end: int, names: dict[str, tuple[int, str]], pairs) -> str | None:
    """"int" or "unsigned" for an arithmetic expression of known names, literals and CUDA's built-in
    index variables (``blockDim.x`` is unsigned), following C's conversions; None for anything else."""
    kinds: list[str] = []
    j = first
    expect_operand = True
    while j < end:
        t = toks[j]
        text = t[3]
        if expect_operand:
            if text in ("-", "+"):
                j += 1
                continue
            if text == "(":
                close = pairs.get(j)
                if close is None or close >= end:
                    return None
                inner = _expr_type(toks, j + 1, close, names, pairs)
                if inner is None:
                    return None
                kinds.append(inner)
                j = close + 1
            elif t[0] is Kind.NUMBER:
                m = _DECIMAL.fullmatch(text)
                if m is None or (not m.group(1) and int(text) > 0x7FFFFFFF):
                    return None
                kinds.append("unsigned" if m.group(1) else "int")
                j += 1
            elif t[0] is Kind.IDENT and text in _BUILTIN_DIM:
                if j + 2 >= end or toks[j + 1][3] != "." or toks[j + 2][3] not in ("x", "y", "z"):
                    return None
                kinds.append("unsigned")
                j += 3
            elif (t[0] is Kind.IDENT and names.get(text, (0, None))[1] is not None
                  and (j + 1 >= end or toks[j + 1][3] not in ("(", "[", ".", "->"))):
                kinds.append(names[text][1])
                j += 1
            else:
                return None
            expect_operand = False
        else:
            if text not in _ARITH:
                return None
            expect_operand = True
            j += 1
    if expect_operand or not kinds:
        return None
    return "unsigned" if "unsigned" in kinds else "int"


class MinMaxOfMixedSignedness(Rule):
    """``min``/``max`` of an ``int`` and an ``unsigned int`` in device code: HIP picks the ``double`` overload.

    What it does
    ------------
    On ROCm targets, finds unqualified ``min(a, b)`` / ``max(a, b)`` calls in device code whose two
    arguments are an ``int`` and an ``unsigned int`` by their declarations in the function (or
    literals, ``threadIdx.x``/``blockDim.x``…, and arithmetic of those).

    Why is this bad?
    ----------------
    CUDA declares ``min(int, unsigned int)`` and ``max(unsigned int, int)`` …: the ``int`` converts to
    ``unsigned int`` and the result is ``unsigned int``. HIP (ROCm 7.2.4) has no mixed overloads, and
    the call resolves to ``min(double, double)``: a ``double`` result, so ``x[min(n - 1, i)]`` stops with
    "array subscript is not an integer" (llm.c ``dev/cuda/softmax_forward.cu``), and elsewhere a
    negative ``int`` compares below the unsigned value where CUDA compares it as a huge one.

    Example
    -------
    .. code-block:: cuda

        int C; unsigned int i = threadIdx.x;
        float v = x[min(C - 1, i + blockDim.x)];

    Use instead
    -----------
    .. code-block:: cuda

        float v = x[min((unsigned int)(C - 1), i + blockDim.x)];

    Fix safety
    ----------
    Safe when both types are read from declarations in the function: the cast is the conversion
    CUDA's overload makes, so the result (type and value) is CUDA's. Where one argument is an ``int``
    and the other's type cannot be read but it adds or multiplies an ``unsigned int`` operand
    (``i + off * blockDim.x``, ``off`` a member or a macro), the finding names the cast and has no fix
    (needs manual work): the other operand decides. Other unread types give no finding.

    References
    ----------
    - CUDA ``crt/math_functions.hpp`` (``min(const int a, const unsigned int b)`` → ``umin``)
    - ROCm 7.2.4 ``hip/amd_detail/amd_math_functions.h`` (``min``/``max`` for int, unsigned int,
      long long …; measured: ``decltype(min(int(), 1u))`` is ``double`` with hipcc 7.2.4)
    """

    code = "API011"
    name = "min-max-of-mixed-signedness"
    severity = Severity.HIGH
    file_kinds = cs.CUDA_CXX_KINDS
    triggers = ("min", "max")
    can_fix = True

    def check(self, ctx: FileContext) -> Iterable[Finding]:
        targets = _rocm_targets(ctx)
        if not targets:
            return
        view = cs.device_view(ctx)
        toks = view.tokens
        pairs = view.pairs
        for i in view.ident_indices(("min", "max")):
            if not _plain_call(toks, i) or (i > 0 and toks[i - 1][3] == "::"):
                continue
            f = view.function_at(toks[i][1])
            if f is None or not f.is_device:
                continue
            close = pairs.get(i + 1)
            if close is None:
                continue
            args = cs.split_args(toks, i + 1, close)
            if len(args) != 2:
                continue
            names = _declared_types(toks, f.name_index, i)
            kinds = [_expr_type(toks, a, b, names, pairs) for a, b in args]
            if None in kinds:
                if "int" in kinds:
                    found = self._probable(ctx, toks, i, close, args, kinds, names, pairs, targets)
                    if found is not None:
                        yield found
                continue
            if kinds[0] == kinds[1]:
                continue
            a, b = args[kinds.index("int")]
            arg = ctx.text[toks[a][1]:toks[b - 1][2]]
            single = b - a == 1 or (toks[a][3] == "(" and pairs.get(a) == b - 1)
            cast = f"(unsigned int){arg}" if single else f"(unsigned int)({arg})"
            fix = Fix((ctx.edit(toks[a][1], toks[b - 1][2], cast),), Applicability.SAFE,
                      f"{toks[i][3]}(int, unsigned int): cast the int as CUDA's overload does", ("api",))
            yield self.finding(
                ctx, toks[i][1], toks[close][2],
                f"{toks[i][3]}() of an int ({arg}) and an unsigned int: CUDA converts the int to unsigned int; "
                f"HIP has no such overload and calls {toks[i][3]}(double, double). Cast: {cast}",
                {t.name: Verdict.AUTOMATIC for t in targets}, fix=fix, effort=Effort(lines=1, constructs=1, hours=0.0),
                data={"function": toks[i][3], "int_argument": arg})


    def _probable(self, ctx: FileContext, toks, i: int, close: int, args, kinds, names, pairs, targets):
        """One argument an ``int``, the other an expression whose type is not read but that adds, multiplies
        … an ``unsigned int`` operand (``i + offset * blockDim.x``, ``offset`` unknown): most likely
        ``unsigned int``, so HIP's ``double`` overload; a finding with no fix that names the cast."""
        other = args[1 - kinds.index("int")]
        unsigned = _unsigned_operand(toks, other[0], other[1], names, pairs)
        if unsigned is None:
            return None
        a, b = args[kinds.index("int")]
        arg = ctx.text[toks[a][1]:toks[b - 1][2]]
        return self.finding(
            ctx, toks[i][1], toks[close][2],
            f"{toks[i][3]}() of an int ({arg}) and an expression with an unsigned int operand ({unsigned}) whose "
            f"type vado does not read: if it is unsigned int, HIP calls {toks[i][3]}(double, double) where CUDA "
            f"converts the int; cast: (unsigned int)({arg})",
            {t.name: Verdict.MANUAL for t in targets}, effort=Effort(lines=1, constructs=1, hours=0.1),
            severity=Severity.MEDIUM, data={"function": toks[i][3], "int_argument": arg})


def _unsigned_operand(toks, first: int, end: int, names, pairs) -> str | None:
    """The first ``unsigned int`` operand (a declared name or ``blockDim.x`` …) at the top level of an
    arithmetic expression (not inside a call's or a subscript's brackets, no cast, no ``?:``), or None."""
    j = first
    while j < end:
        t = toks[j]
        text = t[3]
        if text in ("?", ":", "<", ">", "<=", ">=", "==", "!=", "&&", "||", "=", "sizeof"):
            return None
        if text in ("(", "["):
            close = pairs.get(j)
            if close is None or close >= end:
                return None
            if text == "(" and j + 1 < close and toks[j + 1][3] in ("int", "unsigned", "float", "double", "long",
                                                                   "short", "char", "size_t", "bool", "const"):
                return None  # a cast decides the type
            j = close + 1
            continue
        if t[0] is Kind.IDENT and text in _BUILTIN_DIM and j + 2 < end and toks[j + 1][3] == "." \
                and toks[j + 2][3] in ("x", "y", "z"):
            return f"{text}.{toks[j + 2][3]}"
        if t[0] is Kind.IDENT and names.get(text, (0, None))[1] == "unsigned" and (j == first or toks[j - 1][3] not in (".", "->")) \
                and (j + 1 >= end or toks[j + 1][3] not in ("(", "[", ".", "->")):
            return text
        j += 1
    return None


# --------------------------------------------------------------------------- API012

#: ``<string.h>`` functions CUDA's runtime headers declare for every ``.cu`` file and HIP's do not.
STRING_H = frozenset({"strcmp", "strncmp", "strcpy", "strncpy", "strcat", "strncat", "strlen", "strchr", "strrchr",
                      "strstr", "strtok", "strdup", "strndup", "strerror", "strspn", "strcspn", "strpbrk", "strcoll",
                      "memcpy", "memset", "memcmp", "memmove", "memchr"})
_STRING_HEADERS = frozenset({"string.h", "cstring"})
#: PyTorch headers measured to bring ``<cstring>`` with them (torch 2.13.0's ROCm headers: host ones through g++
#: ``-E -H``, the hipified ``ATen/hip``/``c10/hip`` ones through ROCm 7.2.4 hipcc ``-E -H``). A file that includes
#: one (itself or through a project header) has the C string functions on ROCm too. Not every PyTorch header does:
#: ``c10/macros/Macros.h``, ``c10/util/Exception.h``, ``c10/cuda/CUDAException.h``, ``c10/cuda/CUDAMathCompat.h``,
#: ``ATen/cuda/NumericLimits.cuh``, ``ATen/cuda/AsmUtils.cuh``, ``ATen/cuda/PhiloxUtils.cuh``,
#: ``ATen/cuda/detail/KernelUtils.h``, ``ATen/cuda/detail/TensorInfo.cuh`` and ``torch/headeronly/…`` were measured
#: not to, so only this list counts.
_TORCH_STRING_H = frozenset({
    "torch/extension.h", "torch/types.h", "torch/all.h", "torch/torch.h", "torch/library.h", "torch/python.h",
    "torch/script.h", "torch/csrc/utils/pybind.h", "torch/csrc/stable/library.h", "torch/csrc/api/include/torch/all.h",
    "torch/csrc/api/include/torch/types.h",
    "ATen/ATen.h", "ATen/Tensor.h", "ATen/core/Tensor.h", "ATen/core/TensorBase.h", "ATen/core/TensorAccessor.h",
    "ATen/TensorAccessor.h", "ATen/Dispatch.h", "ATen/TensorUtils.h", "ATen/Parallel.h", "ATen/Context.h",
    "ATen/AccumulateType.h", "ATen/OpMathType.h", "ATen/core/Scalar.h", "ATen/native/TensorIterator.h",
    *(f"ATen/{gpu}/{h}" for gpu in ("cuda", "hip") for h in (
        "Atomic.cuh", "DeviceUtils.cuh", "Exceptions.h", "detail/IndexUtils.cuh", "ScanUtils.cuh", "ThrustAllocator.h")),
    *(f"ATen/cuda/{h}" for h in ("CUDAContext.h", "CUDAContextLight.h", "CUDAApplyUtils.cuh", "CUDAEvent.h",
                                 "CUDAGeneratorImpl.h", "CUDABlas.h", "CUDADataType.h", "CUDATensorMethods.cuh")),
    *(f"ATen/hip/{h}" for h in ("HIPContext.h", "HIPContextLight.h", "HIPApplyUtils.cuh", "HIPEvent.h",
                                "HIPGeneratorImpl.h", "HIPBlas.h", "HIPDataType.h", "impl/HIPGuardImplMasqueradingAsCUDA.h")),
    "ATen/native/cuda/block_reduce.cuh", "ATen/native/hip/block_reduce.cuh",
    "c10/cuda/CUDAGuard.h", "c10/cuda/CUDAStream.h", "c10/cuda/CUDAFunctions.h", "c10/cuda/CUDACachingAllocator.h",
    "c10/hip/HIPGuard.h", "c10/hip/HIPStream.h", "c10/hip/HIPFunctions.h", "c10/hip/HIPCachingAllocator.h",
    "c10/util/Half.h", "c10/util/BFloat16.h", "c10/util/complex.h", "c10/util/Float8_e4m3fn.h", "c10/util/ArrayRef.h",
    "c10/core/ScalarType.h", "c10/core/TensorOptions.h", "c10/core/Scalar.h",
})
_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"]([^>"\r\n]+)[>"]', re.M)


def _brings_string_h(header: str) -> bool:
    """Whether including ``header`` declares the ``<string.h>`` functions: the header itself, or one of
    PyTorch's measured to include it."""
    return header in _STRING_HEADERS or header in _TORCH_STRING_H


def _header_includes_string_h(ctx: FileContext, view: cs.DeviceView) -> bool:
    """Whether a project header the file includes (``#include "…"``, read within the audited tree,
    ``source_root``) includes ``<string.h>``/``<cstring>`` or a PyTorch header that brings it, itself or
    through its own project headers."""
    from vado.scan.project_headers import included_project_headers

    found = included_project_headers((ctx.options or {}).get("source_root"), ctx.path, view.text)
    if found is None:
        return False
    headers, targets = found
    return any(_brings_string_h(h) for target in targets for h in headers.system_includes(target))


_DIRECTIVE_LINE = re.compile(r"^[ \t]*#[ \t]*(\w+)[ \t]*([^\r\n]*)", re.M)


def _unconditional_include_point(text: str) -> int:
    """Where an ``#include`` every configuration reads goes: before the first ``#include`` outside any
    conditional (an include guard's ``#ifndef``/``#define`` pair does not count), else after the guard's
    ``#define`` or a ``#pragma once``, else at the top of the file."""
    depth = guard_depth = 0
    guard = ""
    after = 0
    for n, m in enumerate(_DIRECTIVE_LINE.finditer(text)):
        word, rest = m.group(1), m.group(2).strip()
        if word in ("if", "ifdef", "ifndef"):
            if n == 0 and word == "ifndef":
                guard = rest.split()[0] if rest else ""
            depth += 1
        elif word == "endif":
            depth = max(0, depth - 1)
        elif word == "define" and n == 1 and guard and rest.split()[:1] == [guard]:
            guard_depth = 1
            after = m.end() + 1 if m.end() < len(text) else m.end()
        elif word == "pragma" and rest == "once" and depth == 0:
            after = m.end() + 1 if m.end() < len(text) else m.end()
        elif word == "include" and depth <= guard_depth:
            return m.start()
    return min(after, len(text))


class StringFunctionsWithoutStringH(Rule):
    """C string functions (``strcmp``, ``memcpy`` …) in a CUDA file that never includes ``<string.h>``.

    What it does
    ------------
    On ROCm targets, finds the first call of a ``<string.h>`` function (``strcmp``, ``strlen``,
    ``memcpy``, ``memset`` …) in a CUDA source or header, or a C++ header, that includes neither
    ``<string.h>`` nor ``<cstring>``, itself or through a project header it includes (read within the
    audited tree). Most of PyTorch's headers (``torch/extension.h``, ``ATen/ATen.h``, ``c10/cuda/CUDAGuard.h`` …,
    a measured list) include ``<cstring>``: a torch extension's file that includes one is left alone.

    Why is this bad?
    ----------------
    nvcc includes CUDA's runtime headers first in every ``.cu`` file, and they include
    ``<string.h>``; so a CUDA file (or a header only ``.cu`` files include) can call ``strcmp``
    without including it. HIP's ``hip/hip_runtime.h`` does not include ``<string.h>``: ROCm 7.2.4's
    hipcc stops with "use of undeclared identifier 'strcmp'" (nccl-tests' ``src/common.h``).

    Example
    -------
    .. code-block:: cuda

        #include <stdio.h>
        int is_all(const char* s) { return strcmp(s, "all") == 0; }

    Use instead
    -----------
    .. code-block:: cuda

        #include <string.h>
        #include <stdio.h>
        int is_all(const char* s) { return strcmp(s, "all") == 0; }

    Fix safety
    ----------
    Safe: ``#include <string.h>`` is added before the file's first include (or at its top), the
    header nvcc's own includes bring in.

    References
    ----------
    - CUDA ``crt/host_runtime.h`` / ``cuda_runtime.h`` (include ``<string.h>``; nvcc 13 compiles a
      ``.cu`` file calling ``strcmp`` with no include)
    - ROCm 7.2.4 ``hip/hip_runtime.h`` (measured: ``strcmp`` undeclared)
    """

    code = "API012"
    name = "string-functions-without-string-h"
    severity = Severity.MEDIUM
    file_kinds = frozenset({FileKind.CUDA_SOURCE, FileKind.CUDA_HEADER, FileKind.CXX_HEADER, FileKind.CXX_SOURCE})
    triggers = tuple(sorted(STRING_H))
    can_fix = True

    def check(self, ctx: FileContext) -> Iterable[Finding]:
        targets = _rocm_targets(ctx)
        if not targets:
            return
        view = cs.device_view(ctx)
        toks = view.tokens
        if ctx.kind is FileKind.CXX_SOURCE and not any(w in view.text for w in ("__global__", "__device__", "__host__")):
            return  # a C++ source without device code is compiled by the host compiler, which needs the include anyway
        if any(_brings_string_h(m.group(1).strip()) for m in _INCLUDE.finditer(view.text)):
            return
        # Device code has HIP's device memcpy/memset; the host's are <string.h>'s.
        calls = [i for i in view.ident_indices(tuple(STRING_H)) if _plain_call(toks, i)
                 and not view.in_device_code(toks[i][1])]
        if not calls or _header_includes_string_h(ctx, view):
            return
        first = min(calls)
        names = sorted({toks[i][3] for i in calls})
        at = _unconditional_include_point(view.text)
        fix = Fix((ctx.edit(at, at, "#include <string.h>\n"),), Applicability.SAFE,
                  "include <string.h> (what CUDA's runtime headers include)", ("api",))
        yield self.finding(ctx, toks[first][1], toks[first][2],
                           f"{', '.join(names)} without <string.h>: CUDA's runtime headers declare "
                           f"{'it' if len(names) == 1 else 'them'} for a .cu file, HIP's do not; include <string.h>",
                           {t.name: Verdict.AUTOMATIC for t in targets}, fix=fix,
                           effort=Effort(lines=1, constructs=1, hours=0.0), data={"functions": names})


# --------------------------------------------------------------------------- API013

#: Tokens that make an adjacent name an operand of pointer arithmetic.
_ARITHMETIC = frozenset({"+", "-", "+=", "-=", "++", "--"})
#: Tokens that may follow a declared name (``CUdeviceptr p;``, ``= 0``, a parameter, ``{}``).
_DECL_END = frozenset({";", "=", ",", ")", "{", "["})


class DevicePointerArithmetic(Rule):
    """Arithmetic on a ``CUdeviceptr``, which HIP renames to the ``void*`` ``hipDeviceptr_t``.

    What it does
    ------------
    Finds the names a file declares as ``CUdeviceptr`` (variables, members, parameters) and each place
    one of them is an operand of ``+``, ``-``, ``+=``, ``-=``, ``++`` or ``--`` without a cast in between.

    Why is this bad?
    ----------------
    The CUDA Driver API's ``CUdeviceptr`` is an unsigned integer (``unsigned long long``): adding a byte
    offset to it is integer arithmetic. Its HIP counterpart ``hipDeviceptr_t`` is ``void*``, and C++ has
    no arithmetic on ``void*``: after the rename, ROCm 7.2.4's hipcc stops with "arithmetic on a pointer
    to void" (tiny-cuda-nn's ``gpu_memory.h``: ``m_base_address + m_size``).

    Example
    -------
    .. code-block:: cuda

        CUdeviceptr base;
        cuMemMap(base + offset, size, 0, handle, 0);

    Use instead
    -----------
    .. code-block:: cpp

        hipDeviceptr_t base;
        hipMemMap(static_cast<char*>(base) + offset, size, 0, handle, 0);

    Fix safety
    ----------
    No fix: whether the value is a byte address (``char*``) or a number to keep (``uintptr_t``) is the
    code's meaning.

    References
    ----------
    - ROCm 7.2.4 ``hip/hip_runtime_api.h`` (``typedef void* hipDeviceptr_t``)
    - CUDA Driver API ``cuda.h`` (``typedef unsigned long long CUdeviceptr_v2; typedef CUdeviceptr_v2 CUdeviceptr``)
    """

    code = "API013"
    name = "device-pointer-arithmetic"
    severity = Severity.HIGH
    file_kinds = frozenset({FileKind.CUDA_SOURCE, FileKind.CUDA_HEADER, FileKind.CXX_HEADER, FileKind.CXX_SOURCE})
    triggers = ("CUdeviceptr", "CUdeviceptr_v2")

    def check(self, ctx: FileContext) -> Iterable[Finding]:
        targets = _rocm_targets(ctx)
        if not targets:
            return
        toks = [t for t in ctx.tokens if t[0] is not Kind.COMMENT]
        names: set[str] = set()
        for i, t in enumerate(toks[:-2]):
            if t[3] in self.triggers and toks[i + 1][0] is Kind.IDENT and toks[i + 2][3] in _DECL_END:
                names.add(toks[i + 1][3])
        if not names:
            return
        for i, t in enumerate(toks):
            if t[0] is not Kind.IDENT or t[3] not in names:
                continue
            before = toks[i - 1][3] if i else ""
            after = toks[i + 1][3] if i + 1 < len(toks) else ""
            if before in (".", "->", "::") or toks[i - 1][3] in self.triggers:
                continue  # a member of something else, or the declaration itself
            if after in _ARITHMETIC or (before in _ARITHMETIC and before not in ("+", "-")) or (
                    before in ("+", "-") and i > 1 and (toks[i - 2][0] in (Kind.IDENT, Kind.NUMBER)
                                                         or toks[i - 2][3] in (")", "]"))):
                yield self.finding(
                    ctx, t[1], t[2],
                    f"{t[3]} is a CUdeviceptr, an integer in CUDA; HIP's hipDeviceptr_t is void*, and arithmetic "
                    f"on it does not compile (\"arithmetic on a pointer to void\"): cast it (char* for a byte "
                    f"address, uintptr_t for a number)",
                    {**{x.name: Verdict.MANUAL for x in targets}},
                    effort=Effort(lines=1, constructs=1, hours=0.25), data={"name": t[3]},
                )


# --------------------------------------------------------------------------- API014

#: The device functions ROCm 7.2.4 marks ``__hip_img_chk__`` (hip/amd_detail/texture_fetch_functions.h,
#: texture_indirect_functions.h, amd_surface_functions.h): unavailable where the GPU has no image instructions.
TEXTURE_FUNCTIONS = frozenset(
    [f"tex{s}" for s in ("1D", "1DGrad", "1DLayered", "1DLayeredGrad", "1DLayeredLod", "1DLod", "1Dfetch", "2D",
                         "2DGrad", "2DLayered", "2DLayeredGrad", "2DLayeredLod", "2DLod", "2Dgather", "3D", "3DGrad",
                         "3DLod", "Cubemap", "CubemapGrad", "CubemapLayered", "CubemapLayeredGrad",
                         "CubemapLayeredLod", "CubemapLod")]
    + [f"surf{s}{rw}" for s in ("1D", "1DLayered", "2D", "2DLayered", "3D", "Cubemap", "CubemapLayered")
       for rw in ("read", "write")])
#: Offload architectures without image instructions, where those functions are unavailable: measured with
#: ROCm 7.2.4's hipcc -fsyntax-only on a tex2D<float4> / tex1Dfetch / surf2Dread kernel (errors on gfx942,
#: gfx950, gfx1250; compiles for gfx908, gfx90a, gfx1030, gfx1100, gfx1201).
NO_IMAGE_ARCHS = frozenset({"gfx942", "gfx950", "gfx1250"})


def _target_archs(ctx: FileContext, t: Target) -> tuple[str, ...]:
    given = ctx.options.get("offload_arch")
    if given:
        parts = given if isinstance(given, (list, tuple)) else str(given).replace(",", ";").split(";")
        return tuple(p.strip() for p in parts if str(p).strip())
    return tuple(t.default_arch)


#: Words after which a name followed by ``(`` is still a call, not a declaration.
_CALL_AFTER = frozenset({"return", "co_return", "co_yield", "throw", "case", "else", "do", "sizeof", "decltype"})


class TextureFetchWithoutImageSupport(Rule):
    """Texture and surface fetches (``tex2D``, ``tex1Dfetch``, ``surf2Dread`` …) for GPUs without image units.

    What it does
    ------------
    On ROCm targets whose offload architectures include one without image instructions (gfx942, gfx950,
    gfx1250), finds the calls of HIP's texture and surface functions (the texture-object API that
    ``cudaTextureObject_t`` code renames to) and reports them once per file, at the first, with the count.

    Why is this bad?
    ----------------
    HIP keeps CUDA's texture-object API, so the rename looks automatic, but ROCm 7.2.4 declares every
    fetch ``unavailable`` where the GPU has no image instructions: hipcc stops with "'tex2D<…>' is
    unavailable: The image/texture API not supported on the device" for gfx942 (MI300X) and gfx950
    (MI355X), the default targets (tiny-cuda-nn's samples and benchmarks). The same code compiles for
    gfx90a and RDNA GPUs.

    Example
    -------
    .. code-block:: cuda

        float4 v = tex2D<float4>(tex, x, y);

    Use instead
    -----------
    .. code-block:: cpp

        // Read the image from global memory and interpolate by hand (or build only for GPUs with images).
        float4 v = bilinear(image, width, height, x, y);

    Fix safety
    ----------
    No fix: filtering, addressing modes and normalised coordinates are the texture unit's, and a rewrite
    has to reproduce the ones the code uses.

    References
    ----------
    - ROCm 7.2.4 ``hip/amd_detail/host_defines.h`` (``__hip_img_chk__`` when ``__HIP_NO_IMAGE_SUPPORT``)
    - https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/hip_runtime_api/memory_management/texture_fetching.html
    """

    code = "API014"
    name = "texture-fetch-without-image-support"
    severity = Severity.HIGH
    file_kinds = frozenset({FileKind.CUDA_SOURCE, FileKind.CUDA_HEADER, FileKind.CXX_HEADER, FileKind.CXX_SOURCE})
    triggers = tuple(sorted(TEXTURE_FUNCTIONS))

    def check(self, ctx: FileContext) -> Iterable[Finding]:
        lacking = {t.name: sorted(set(_target_archs(ctx, t)) & NO_IMAGE_ARCHS) for t in _rocm_targets(ctx)}
        lacking = {name: archs for name, archs in lacking.items() if archs}
        if not lacking:
            return
        toks = [t for t in ctx.tokens if t[0] is not Kind.COMMENT]
        calls = []
        for i, t in enumerate(toks):
            if t[0] is not Kind.IDENT or t[3] not in TEXTURE_FUNCTIONS or (i and toks[i - 1][3] in (".", "->")):
                continue
            if i and (toks[i - 1][3] in ("*", "&", ">") or (toks[i - 1][0] is Kind.IDENT
                                                            and toks[i - 1][3] not in _CALL_AFTER)):
                continue  # a declaration (float tex1Dfetch(int) const), not a call
            j = i + 1
            if j < len(toks) and toks[j][3] == "<":  # tex2D<float4>(…)
                depth = 0
                while j < len(toks):
                    depth += {"<": 1, ">": -1, ">>": -2}.get(toks[j][3], 0)
                    j += 1
                    if depth <= 0:
                        break
            if j < len(toks) and toks[j][3] == "(":
                calls.append(i)
        if not calls:
            return
        first = toks[calls[0]]
        names = sorted({toks[i][3] for i in calls})
        archs = sorted({a for v in lacking.values() for a in v})
        yield self.finding(
            ctx, first[1], first[2],
            f"{len(calls)} texture/surface fetch{'es' if len(calls) != 1 else ''} ({', '.join(names[:4])}"
            f"{' …' if len(names) > 4 else ''}): {', '.join(archs)} {'has' if len(archs) == 1 else 'have'} no image "
            f"instructions, and ROCm 7.2.4 declares these functions unavailable there; read the data from "
            f"global memory instead (and filter by hand)",
            {name: Verdict.MANUAL for name in lacking},
            effort=Effort(lines=len(calls), constructs=len(calls), hours=1.0 + 0.25 * len(calls)),
            data={"functions": names, "calls": len(calls), "archs": archs},
        )
