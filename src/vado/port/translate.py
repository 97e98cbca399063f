"""CUDA → HIP translation by token: identifiers, include paths, and ``__syncwarp`` on old HIP.

Translation never looks at raw text: it walks the lexer's tokens, so names in
comments and string literals stay as they are (``#include "..."`` operands are
the one exception, as in HIPIFY). Each identifier is looked up exactly in the
mapping data (:mod:`vado.knowledge.api`) — a table lookup on a whole token is
the token-level form of longest match: ``cudaMallocAsync`` can never be
rewritten as ``hipMalloc`` + ``Async``.

What the target lacks is not translated: the API rules report it with its
location, and the name stays so the compiler error points at it too.
"""

from __future__ import annotations

import bisect
import functools

from dataclasses import dataclass

from vado.model import Applicability, Edit, Fix, Target
from vado.rules.cuda_syntax import spelling_index
from vado.rules.warp import mask_side_effects  # shared with WARP008
from vado.scan.lexer import Kind

#: Libraries whose names are never renamed automatically: the ROCm counterpart
#: is not a 1:1 API (MIOpen differs from cuDNN in descriptors and workspace
#: handling), so a rename would compile into wrong code. LIB001 reports them.
NOT_RENAMED_LIBRARIES = frozenset({"cudnn"})

#: cuRAND's default (XORWOW) state has no rocRAND name in HIPIFY's table
#: (``ROCm/HIPIFY`` ``src/CUDA2HIP_RAND_API_types.cpp`` marks it ROC_UNSUPPORTED),
#: but with ``--roc`` the header is ``rocrand_kernel.h``, where ``hiprandState``
#: does not exist. hipRAND defines ``hiprandState`` as rocRAND's XORWOW state
#: (``hiprand_kernel_hcc.h``: ``DEFINE_HIPRAND_STATE(hiprandState, rocrand_state_xorwow)``).
ROC_STATE_NAMES = {
    "curandState": "rocrand_state_xorwow",
    "curandState_t": "rocrand_state_xorwow",
    "curandStateXORWOW": "rocrand_state_xorwow",
    "curandStateXORWOW_t": "rocrand_state_xorwow",
}


@dataclass(frozen=True)
class Rename:
    """What one CUDA name becomes on a target (``new``), and which table row says so."""

    new: str
    library: str
    kind: str


_RENAME_MAPS: dict[tuple, dict[str, "Rename"]] = {}


def rename_map(target: Target, roc: bool = False) -> dict[str, Rename]:
    """``{cuda_name: Rename}`` for every name that translates on ``target``.

    ``roc`` prefers roc* library names (rocBLAS, rocRAND …) over the hip*
    wrappers where the table has one. Names the target lacks are absent.
    Built once per (target profile, roc) and kept for the process.
    """
    key = (target.name, target.family, target.version, target.hip_version, roc)
    cached = _RENAME_MAPS.get(key)
    if cached is None:
        cached = _RENAME_MAPS[key] = _build_rename_map(target, roc)
    return cached


def _build_rename_map(target: Target, roc: bool) -> dict[str, Rename]:
    from vado.knowledge.api import AvailabilityStatus, api_table, availability

    ok = {AvailabilityStatus.AVAILABLE, AvailabilityStatus.RENAMED, AvailabilityStatus.DEPRECATED}
    out: dict[str, Rename] = {}
    for entry in api_table().entries:
        if entry.library in NOT_RENAMED_LIBRARIES or entry.cuda_name in out:
            continue
        av = availability(entry, target)
        if av.status not in ok or av.replacement is None:
            continue
        new = av.replacement
        roc_name = entry.roc_name or ROC_STATE_NAMES.get(entry.cuda_name, "")
        if roc and roc_name and entry.kind != "header":
            new = roc_name
        elif roc and entry.kind == "header" and entry.roc_name:
            new = entry.roc_name
        out[entry.cuda_name] = Rename(new, entry.library, entry.kind)
    return out


def _prev_code(toks: list, i: int):
    j = i - 1
    while j >= 0 and toks[j][0] is Kind.COMMENT:
        j -= 1
    return toks[j] if j >= 0 else None


#: Calls whose arguments change with the rename (facts from HIPIFY's argument
#: transforms, ``ROCm/HIPIFY`` ``src/HipifyAction.cpp`` @ 014177bc, and HIP's
#: ``hip_runtime_api.h``). CUDA declares these with C++ template overloads taking
#: the kernel as ``T*``; HIP declares them with ``const void*``, and a function
#: pointer does not convert to ``const void*`` implicitly, so the kernel argument
#: (index given) gets ``reinterpret_cast<const void*>(...)``.
KERNEL_POINTER_ARGS = {
    "cudaFuncSetCacheConfig": 0,
    "cudaFuncSetSharedMemConfig": 0,
    "cudaFuncSetAttribute": 0,
    "cudaFuncGetAttributes": 1,
    "cudaLaunchKernel": 0,
    "cudaLaunchCooperativeKernel": 0,
}
#: ``(name, argument count) → HIP name`` where one CUDA name covers two HIP
#: functions told apart by arity: CUDA 12's ``cudaGraphInstantiate(exec, graph, flags)``
#: is HIP's ``hipGraphInstantiateWithFlags``; the five-argument (CUDA 11) form is
#: ``hipGraphInstantiate`` (HIPIFY ``CUDA2HIP_Runtime_API_functions.cpp``; HIP
#: ``hip_runtime_api.h``).
#: ``cuda_runtime.h``'s C++ overload ``cudaEventCreate(event, flags)`` is HIP's ``hipEventCreateWithFlags``: HIP
#: declares ``hipEventCreate(hipEvent_t*)`` alone (ROCm 7.2.4 ``hip_runtime_api.h``).
ARITY_RENAMES = {("cudaGraphInstantiate", 3): "hipGraphInstantiateWithFlags",
                 ("cudaEventCreate", 2): "hipEventCreateWithFlags"}
#: The names ARITY_RENAMES renames by their argument count.
_ARITY_NAMES = frozenset(name for name, _count in ARITY_RENAMES)
#: Arguments HIP requires that CUDA defaults: ``cudaMallocHost(ptr, size)`` is
#: ``hipHostMalloc(ptr, size, hipHostMallocDefault)`` (HIPIFY adds the flag; HIP's
#: C declaration has no default).
APPENDED_ARGS = {"cudaMallocHost": (2, "hipHostMallocDefault")}
#: Out-pointer arguments CUDA takes as ``T**`` through a template overload that HIP's
#: counterpart lacks: ``cuda_runtime.h`` declares ``template<class T> cudaHostAlloc(T** ptr,
#: size_t size, unsigned int flags)``, which passes ``(void**)(void*)ptr`` on; HIP declares
#: ``hipHostAlloc(void** ptr, size_t size, unsigned int flags)`` only (HIP 5.2's
#: ``hip_runtime_api.h`` has typed overloads for ``hipMalloc`` and ``hipHostMalloc``, not for
#: ``hipHostAlloc``), and ``int**`` does not convert to ``void**``. The argument (index
#: given) gets the C-style cast CUDA's overload makes, ``(void**)(...)`` (a C-style cast, like
#: CUDA's, also takes ``const T**``, which ``reinterpret_cast`` would refuse).
VOID_PTR_PTR_ARGS = {"cudaHostAlloc": 0}
#: A cast already present on an argument (text of its first tokens), so none is added.
_VOID_CASTS = ("(constvoid*)", "(void*)", "reinterpret_cast<constvoid*>", "reinterpret_cast<void*>", "(constvoid*const)")
_VOID_PTR_PTR_CASTS = ("(void**)", "reinterpret_cast<void**>", "static_cast<void**>")
#: name → (argument index, the cast's opening, casts already there that do, note for the fix title).
_ARGUMENT_CASTS = {
    **{n: (i, "reinterpret_cast<const void*>(", _VOID_CASTS, "; kernel argument cast to const void*")
       for n, i in KERNEL_POINTER_ARGS.items()},
    **{n: (i, "(void**)(", _VOID_PTR_PTR_CASTS, "; pointer argument cast to void**") for n, i in VOID_PTR_PTR_ARGS.items()},
}


def legacy_cublas(toks: list) -> bool:
    """Whether the file uses the legacy cuBLAS API: it includes ``cublas.h`` and not ``cublas_v2.h``.

    In such a file ``cublasSscal(n, alpha, x, incx)`` is the handle-less legacy
    function; ``cublas_v2.h`` is what turns the plain names into the ``*_v2``
    (handle-taking) API that hipBLAS and rocBLAS mirror. hipBLAS has no legacy
    API, so a rename would compile into a call with the wrong arguments.
    """
    return _legacy_cublas_includes(toks, _include_directives(toks))


def _legacy_cublas_includes(toks: list, includes: list[tuple[int, str]]) -> bool:
    """:func:`legacy_cublas` from the file's include directives (:func:`_include_directives`)."""
    legacy = v2 = False
    for i, directive in includes:
        if directive.endswith("include") and i + 1 < len(toks):
            inner = toks[i + 1][3][1:-1]
            if inner == "cublas.h":
                legacy = True
            elif inner == "cublas_v2.h":
                v2 = True
    return legacy and not v2


def _include_directives(toks) -> list[tuple[int, str]]:
    """``(index, text)`` of the DIRECTIVE tokens of ``toks`` ending in ``include`` or
    ``include_next``, in order. The texts are read without the tokens' tuples: most of a
    big file's directives are ``#define`` and ``#if``, which the include passes skip."""
    index = spelling_index(toks)
    directives = index.directives()
    return [(i, t) for i, t in zip(directives, index.texts(directives)) if t.endswith(("include", "include_next"))]


def _include_branches(toks) -> dict[int, tuple[tuple[int, int], ...]]:
    """For each include directive of ``toks`` (by token index): the conditional branches it sits in,
    outermost first, each as ``(group, branch)``: the ``#if``/``#ifdef``/``#ifndef`` group's ordinal in
    the file and which of its ``#if``/``#elif``/``#else`` parts holds the include. ``()`` for an include
    outside any group."""
    index = spelling_index(toks)
    directives = index.directives()
    out: dict[int, tuple[tuple[int, int], ...]] = {}
    stack: list[tuple[int, int]] = []
    groups = 0
    for i, text in zip(directives, index.texts(directives)):
        word = text[1:].strip()
        if word.startswith("if"):
            stack.append((groups, 0))
            groups += 1
        elif word.startswith(("elif", "else")):
            if stack:
                stack[-1] = (stack[-1][0], stack[-1][1] + 1)
        elif word == "endif":
            if stack:
                stack.pop()
        elif word.startswith("include"):
            out[i] = tuple(stack)
    return out


def _ident_indices(toks, names) -> list[int]:
    """Indices of the IDENT tokens of ``toks`` spelt one of ``names`` (a set or dict), in order."""
    return spelling_index(toks).indices_of(names, Kind.IDENT)


def _uses_legacy_cublas_names(toks: list, names: dict[str, Rename]) -> bool:
    """Whether some identifier is a plain cuBLAS name with a ``*_v2`` twin (a legacy call, in a legacy file)."""
    for text in spelling_index(toks).spellings(Kind.IDENT):
        if text.startswith("cublas"):
            twin = names.get(text + "_v2")
            if twin is not None and twin.library == "cublas":
                return True
    return False


def _call_args(toks: list, i: int) -> tuple[int, list[tuple[int, int]]] | None:
    """For the name at ``i`` followed by ``(`` (comments skipped): the ')' index and the arguments."""
    j = i + 1
    while j < len(toks) and toks[j][0] is Kind.COMMENT:
        j += 1
    if j >= len(toks) or toks[j][3] != "(":
        return None
    return split_call_args(toks, j)


def _merge_template_commas(toks: list, args: list[tuple[int, int]]) -> list[tuple[int, int]] | None:
    """Join arguments split at a comma inside template arguments (``kernel<float, 4>``).

    Tokens cannot tell a template ``<`` from less-than; an argument with more
    ``<`` than ``>`` is taken to continue into the next. None when the brackets
    never balance: then the caller leaves the call alone rather than guess.
    """
    out: list[tuple[int, int]] = []
    depth = 0
    start = None
    for first, last in args:
        if start is None:
            start = first
        for t in toks[first : last + 1]:
            if t[0] is Kind.PUNCT:
                depth += {"<": 1, ">": -1, ">>": -2}.get(t[3], 0)
        if depth <= 0:
            out.append((start, last))
            start, depth = None, 0
    return None if start is not None else out


def _argument_edits(path: str, toks: list, i: int, name: str) -> tuple[list[Edit], str]:
    """Edits to the call's arguments that go with renaming ``name`` at ``i``, and a note for the fix title."""
    if name not in KERNEL_POINTER_ARGS and name not in APPENDED_ARGS and name not in VOID_PTR_PTR_ARGS:
        return [], ""
    split = _call_args(toks, i)
    if split is None:
        return [], ""
    close, args = split
    args = _merge_template_commas(toks, args)
    if args is None:
        return [], ""
    cast = _ARGUMENT_CASTS.get(name)
    if cast is not None:
        at, opening, present, note = cast
        if at >= len(args):
            return [], ""
        first, last = args[at]
        # Skip leading comments inside the argument: the cast wraps the code.
        while first < last and toks[first][0] is Kind.COMMENT:
            first += 1
        head = "".join(t[3] for t in toks[first : min(last + 1, first + 8)] if t[0] is not Kind.COMMENT)
        if head.replace(" ", "").startswith(present):
            return [], ""
        return [Edit(path, toks[first][1], toks[first][1], opening), Edit(path, toks[last][2], toks[last][2], ")")], note
    count, extra = APPENDED_ARGS[name]
    if len(args) != count:
        return [], ""
    end = toks[args[-1][1]][2]
    return [Edit(path, end, end, f", {extra}")], f"; {extra} added"


#: Fix tag of a rename whose later edits change the call's arguments (:func:`identifier_fixes`).
ARGUMENTS = "arguments"


def identifier_fixes(path: str, toks: list, target: Target, *, roc: bool = False) -> list[Fix]:
    """One safe fix per identifier token that has a translation on ``target``.

    Member names (after ``.`` or ``->``) are left alone: ``s.cudaMalloc`` is a
    user's field, not the runtime function. In a legacy-cuBLAS file
    (:func:`legacy_cublas`) the plain cuBLAS names that have a ``*_v2`` twin stay:
    they are the handle-less legacy functions, which hipBLAS lacks. A few calls
    change arguments with their name (:data:`KERNEL_POINTER_ARGS`, :data:`VOID_PTR_PTR_ARGS`,
    :data:`APPENDED_ARGS`, :data:`ARITY_RENAMES`); those edits belong to the
    rename's fix, so they are made once.
    """
    names = rename_map(target, roc)
    fixes: list[Fix] = []
    legacy = None
    # Only the identifiers the table knows: found through the spelling index, in token order.
    for i in _ident_indices(toks, names):
        tok = toks[i]
        r = names.get(tok[3])
        if r is None or r.kind == "header" or r.new == tok[3]:
            continue
        prev = _prev_code(toks, i)
        if prev is not None and prev[0] is Kind.PUNCT and prev[3] in (".", "->"):
            continue
        if r.library == "cublas" and tok[3] + "_v2" in names:
            if legacy is None:
                legacy = legacy_cublas(toks)
            if legacy:
                continue
        new = r.new
        if tok[3] in _ARITY_NAMES:
            split = _call_args(toks, i)
            if split is not None:
                new = ARITY_RENAMES.get((tok[3], len(split[1])), new)
        extra, note = _argument_edits(path, toks, i, tok[3])
        fixes.append(
            Fix(
                (Edit(path, tok[1], tok[2], new), *extra),
                Applicability.SAFE,
                f"{tok[3]} → {new}{note}",
                # ARGUMENTS: the edits after the first (the rename) change the call's arguments, which a
                # torch extension's port keeps when PyTorch's hipify does the rename (vado.port.torch_ext).
                ("rename", r.library, ARGUMENTS) if extra else ("rename", r.library),
            )
        )
    return fixes


#: Header directories whose headers the tables do not all list, and the umbrella header
#: whose row answers for the rest. cub.csv maps each CUB header with a hipCUB counterpart
#: that compiles on its own to it, and the others to ``hipcub/hipcub.hpp``; a ``cub/``
#: header it does not list (``cub/detail/…``, one a newer CCCL adds) is ported like
#: ``cub/cub.cuh``: hipCUB's ``hipcub.hpp`` declares all that hipCUB ports from CUB, and
#: no ROCm release ships a ``cub/`` directory. Following the umbrella's row keeps the
#: target's answer (a target without hipCUB renames neither).
_UMBRELLA_DIRS = {"cub/": "cub/cub.cuh"}


#: HIP headers that ROCm distributions ship under different names: the header the tables
#: map to → the one to include where it is missing (``#if __has_include(<first>)`` …
#: ``#else`` ``#include <fallback>``). AMD's ROCm 7 ships ROCTx as
#: ``rocprofiler-sdk-roctx/roctx.h`` (rocprofiler-sdk docs, using-rocprofiler-sdk-roctx);
#: Debian's ROCm 7.2.4 packages (libroctx-dev) and ROCm before 6.2 ship only roctracer's
#: ``roctracer/roctx.h``, which declares the same roctxMarkA, roctxRangePushA/Pop and
#: roctxRangeStartA/Stop.
HEADER_FALLBACKS = {"rocprofiler-sdk-roctx/roctx.h": "roctracer/roctx.h"}


def _fallback_include(directive: str, operand: str, header: str) -> str:
    """``#include <header>`` kept only where it exists, :data:`HEADER_FALLBACKS`' header elsewhere."""
    open_, close = operand[0], operand[-1]
    fallback = HEADER_FALLBACKS[header]
    return (f"#if __has_include(<{header}>)\n{directive} {open_}{header}{close}\n"
            f"#else  // vado: {header} is missing where only {fallback} is installed (same functions)\n"
            f"{directive} {open_}{fallback}{close}\n#endif")


def include_fixes(path: str, toks: list, target: Target, *, roc: bool = False) -> list[Fix]:
    """Fixes for ``#include`` operands naming CUDA headers (``<cublas_v2.h>`` → ``<hipblas/hipblas.h>``).

    A ``cub/`` header no table lists follows ``cub/cub.cuh`` (:data:`_UMBRELLA_DIRS`).
    A header whose HIP counterpart is empty (``device_launch_parameters.h``) is
    turned into a comment; a second include of the same HIP header is dropped,
    as HIPIFY does, where the first is included on every configuration the second
    is (not when the first sits in an ``#if`` branch the second is outside of). ``cublas.h`` stays in a legacy-cuBLAS file (:func:`legacy_cublas`)
    that calls legacy functions.
    """
    names = rename_map(target, roc)
    fixes: list[Fix] = []
    # header -> the conditional branches of each earlier include of it (:func:`_include_branches`). A later
    # include is redundant only where an earlier one sits in the same branches or fewer (unconditional,
    # or in a group branch that also holds the later one): one inside `#ifdef HALF_IO` does not make a
    # later unconditional `#include <cuda_fp16.h>` redundant, since builds without HALF_IO need it.
    seen: dict[str, list[tuple]] = {}
    branches = _include_branches(toks)

    def included(header: str, where: tuple) -> bool:
        return any(where[: len(p)] == p for p in seen.get(header, ()))
    # A legacy-cuBLAS file that calls legacy functions keeps <cublas.h>: hipBLAS
    # has no handle-less API, the calls stay (identifier_fixes), and keeping the
    # header keeps the file recognisable as legacy, so a second port changes nothing.
    includes = _include_directives(toks)
    keep = {"cublas.h"} if _legacy_cublas_includes(toks, includes) and _uses_legacy_cublas_names(toks, names) else set()
    for i, _text in includes:
        tok = toks[i]
        if i + 1 >= len(toks):
            continue
        operand = toks[i + 1]
        if operand[0] not in (Kind.HEADER, Kind.STRING) or len(operand[3]) < 2:
            continue
        inner = operand[3][1:-1]
        r = names.get(inner)
        if r is None and inner.startswith(tuple(_UMBRELLA_DIRS)):
            r = names.get(_UMBRELLA_DIRS[inner[: inner.index("/") + 1]])
        where = branches.get(i, ())
        if r is None or r.kind != "header" or inner in keep:
            seen.setdefault(inner, []).append(where)
            continue
        if not r.new or included(r.new, where):
            end = toks[i + 2][1] if i + 2 < len(toks) and toks[i + 2][0] is Kind.EOD else operand[2]
            why = "not needed with HIP" if not r.new else f"{r.new} is already included"
            fixes.append(
                Fix(
                    (Edit(path, tok[1], end, f"// {tok[3]} {operand[3]}: {why}"),),
                    Applicability.SAFE,
                    f"drop #include {operand[3]} ({why})",
                    ("header",),
                )
            )
            continue
        seen.setdefault(r.new, []).append(where)
        new_operand = operand[3][0] + r.new + operand[3][-1]
        if r.new in HEADER_FALLBACKS:
            fixes.append(Fix((Edit(path, tok[1], operand[2], _fallback_include(tok[3], operand[3], r.new)),),
                             Applicability.SAFE, f"{operand[3]} → {new_operand} (or {HEADER_FALLBACKS[r.new]} where it is missing)",
                             ("header",)))
            continue
        fixes.append(
            Fix((Edit(path, operand[1], operand[2], new_operand),), Applicability.SAFE, f"{operand[3]} → {new_operand}", ("header",))
        )
    return fixes


def split_call_args(toks: list, open_idx: int, *, angle: bool = False) -> tuple[int, list[tuple[int, int]]] | None:
    """For the '(' at ``open_idx``: the index of its ')' and each argument's (first, last) token index.

    With ``angle``, for the '<' of a template argument list instead: ``<``/``>`` nest as well (with
    ``(``/``[``), the list ends at its ``>``, and a ``>>`` closing it, a directive, ``;`` or a brace
    (not a template argument list after all) give None.
    """
    opens, closes = (("<", "(", "["), (">", ")", "]")) if angle else (("(", "[", "{"), (")", "]", "}"))
    depth = 0
    args: list[tuple[int, int]] = []
    first = open_idx + 1
    for j in range(open_idx, len(toks)):
        kind, _, _, text = toks[j]
        if angle and (kind is Kind.DIRECTIVE or text in (";", "{", "}")):
            return None
        if kind is not Kind.PUNCT:
            continue
        if text in opens:
            depth += 1
        elif text in closes:
            depth -= 1
            if depth == 0:
                if first <= j - 1:
                    args.append((first, j - 1))
                return j, args
        elif angle and text == ">>":
            depth -= 2
            if depth <= 0:
                return None  # Block<T, Traits<X>> : rare, left alone
        elif text == "," and depth == 1:
            args.append((first, j - 1))
            first = j + 1
    return None


def sync_downgrade_fixes(path: str, text: str, toks: list, target: Target) -> list[Fix]:
    """On targets without ``__syncwarp`` (HIP < 7.0 with no ``*_sync`` builtins), ``__syncwarp([mask])`` →
    the wavefront fence and barrier (:func:`_syncwarp_fix`).

    The other ``*_sync`` warp functions and ``__activemask`` are lowered by the
    rule WARP008 (:class:`vado.rules.warp.WarpSyncIntrinsicWithoutSyncBuiltins`),
    which also reports the calls whose lowering is not safe.
    """
    if target.family != "rocm" or target.features.get("warp_sync_builtins", True):
        return []
    if not spelling_index(toks).indices_of(("__syncwarp",), Kind.IDENT):
        return []
    code = [t for t in toks if t[0] is not Kind.COMMENT]
    fixes: list[Fix] = []
    for i, tok in enumerate(code):
        if tok[0] is not Kind.IDENT or tok[3] != "__syncwarp":
            continue
        if i + 1 >= len(code) or code[i + 1][3] != "(":
            continue
        if i > 0 and (code[i - 1][0] is Kind.DIRECTIVE or code[i - 1][3] in (".", "->", "::")):
            continue  # `#define __syncwarp()` (a stand-in the code brings along), or a member
        split = split_call_args(code, i + 1)
        if split is None:
            continue
        close, args = split
        fixes.append(_syncwarp_fix(path, code, tok, close, args, target))
    return fixes


#: What HIP 7 does for ``__syncwarp`` on AMD (amd_warp_sync_functions.h): a wavefront-scope
#: release fence, a wave barrier, an acquire fence. HIP 5.2 has the builtins but not the function.
SYNCWARP_AMD = (
    '((void)__builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront"), __builtin_amdgcn_wave_barrier(), '
    '__builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront"))'
)


def _syncwarp_fix(path: str, code: list, tok, close: int, args: list, target: Target) -> Fix:
    """``__syncwarp([mask])`` → the wavefront fence/barrier sequence (HIP < 7 lacks ``__syncwarp``).

    The sequence is HIP 7's own ``__syncwarp()``, and HIP 7's ``__syncwarp(mask)``
    is ``__hip_check_mask(mask); return __syncwarp();`` (ROCm/rocm-systems
    ``projects/clr/hipamd/include/hip/amd_detail/amd_warp_sync_functions.h`` @
    3dbb9f83): the mask feeds debug-build assertions only, and the whole
    wavefront is fenced whatever it names. So the rewrite is safe for any mask,
    as safe as HIP's own function, unless the mask expression may have side
    effects (which it would drop): then it is unsafe. Lanes of the wavefront
    outside the mask take part in the fence too, which only orders more memory
    operations than asked.
    """
    effects = bool(args) and mask_side_effects(code, args[0][0], args[-1][1] + 1)
    mask = "".join(t[3] for a, b in args for t in code[a : b + 1])
    return Fix(
        (Edit(path, tok[1], code[close][2], SYNCWARP_AMD),),
        Applicability.UNSAFE if effects else Applicability.SAFE,
        f"__syncwarp → wavefront fence and barrier (HIP {target.hip_version} has no __syncwarp"
        + (f"; mask {mask} may have side effects, which the rewrite drops" if effects else "") + ")",
        ("wave64", "sync-downgrade"),
    )


def register_keyword_fixes(path: str, toks: list) -> list[Fix]:
    """Drop the ``register`` storage class: C++17 removed it, and clang (hipcc) rejects it where nvcc warns.

    It never had a meaning compilers honour, so removing it is safe.
    """
    fixes: list[Fix] = []
    for i in _ident_indices(toks, ("register",)):
        tok = toks[i]
        nxt = toks[i + 1] if i + 1 < len(toks) else None
        if nxt is None or nxt[0] is not Kind.IDENT:
            continue  # `register` must precede a type or name to be the storage class
        prev = toks[i - 1] if i > 0 else None
        if prev is not None and (prev[0] is Kind.DIRECTIVE or prev[3] in (".", "->", "::")):
            continue  # `#define register`, or a member or scoped name
        fixes.append(Fix((Edit(path, tok[1], nxt[1], ""),), Applicability.SAFE, "drop the `register` storage class", ("cxx17",)))
    return fixes


#: CUDA's calling-convention macros for host callbacks → the CUDA header that defines them. Each is
#: ``__stdcall`` on Windows and empty elsewhere (CUDA 13.0 ``driver_types.h``: ``CUDART_CB``; ``cuda.h``:
#: ``CUDA_CB``). HIP has no such macro: ROCm 7.2.4's ``hip_runtime_api.h`` declares ``hipHostFn_t`` and
#: ``hipStreamCallback_t`` with the default calling convention, and HIPIFY maps neither (hipify-perl lists
#: ``CUDA_CB`` as unsupported and leaves ``CUDART_CB``), so hipcc failed on them (cuda-samples
#: simpleCudaGraphs, simpleCallback). Without the macro a callback has HIP's declaration on every platform.
CALLBACK_CONVENTIONS = {"CUDART_CB": "driver_types.h", "CUDA_CB": "cuda.h"}


def callback_convention_fixes(path: str, text: str, toks: list) -> list[Fix]:
    """Drop :data:`CALLBACK_CONVENTIONS`' macros (``void CUDART_CB fn(void*)`` → ``void fn(void*)``).

    A file that ``#define``s the macro itself keeps it (it compiles as it is); a use in a
    conditional (``#ifdef CUDART_CB``) or as a member or scoped name is not the macro's expansion.
    """
    index = spelling_index(toks)
    uses = index.indices_of(CALLBACK_CONVENTIONS, Kind.IDENT)
    if not uses:
        return []
    marks = index.directive_marks()
    defined = {toks[i + 1][3] for i, t in zip(index.directives(), index.texts(index.directives()))
               if t[1:].strip() == "define" and i + 1 < len(toks) and toks[i + 1][0] is Kind.IDENT}
    fixes: list[Fix] = []
    for i in uses:
        tok = toks[i]
        if tok[3] in defined:
            continue
        k = bisect.bisect_left(marks, i) - 1
        if k >= 0 and toks[marks[k]][0] is Kind.DIRECTIVE and toks[marks[k]][3][1:].strip() != "define":
            continue  # #ifdef CUDART_CB, #if defined(CUDA_CB), #undef …: a test of the macro, not a use
        prev = _prev_code(toks, i)
        if prev is not None and prev[3] in (".", "->", "::"):
            continue
        end = tok[2]
        while end < len(text) and text[end] in " \t":
            end += 1
        fixes.append(Fix((Edit(path, tok[1], end, ""),), Applicability.SAFE,
                         f"drop {tok[3]} (CUDA's host-callback calling convention, {CALLBACK_CONVENTIONS[tok[3]]}: "
                         "empty outside Windows; HIP's callback types declare none)", ("callback-convention",)))
    return fixes


def _open_comment(comment: str) -> bool:
    """Whether a comment token runs to the end of the file: ``/*`` without its ``*/``, or a
    ``//`` comment whose last line is continued by a backslash."""
    if comment.startswith("/*"):
        return len(comment) < 4 or not comment.endswith("*/")
    return comment.startswith("//") and comment.rstrip("\r\n").endswith("\\")


#: What a CUDA translation unit gets from nvcc's implicit ``cuda_runtime.h`` and HIP's ``hip_runtime.h`` does
#: not give (measured with ``-E``: nvcc 13 pulls in ``<string.h>``, ``<strings.h>``, ``<cmath>``,
#: ``<cstdlib>`` and libstdc++'s ``<math.h>``; ROCm 7.2.4's hipcc pulls in C's ``<math.h>`` and
#: ``<stdlib.h>`` but neither ``<string.h>`` nor the C++ ``<math.h>``): the header to add → the names whose calls need it, and the includes that already
#: provide them. Under hipcc a host call of ``memset`` then finds only HIP's ``__device__`` ``memset``, and
#: ``isfinite`` only HIP's device overloads (HeCBench flame, permute).
IMPLICIT_STD_HEADERS = {
    # <string.h>'s functions are API012's (vado.rules.api_host): a finding with its fix, one mechanism.
    # libstdc++'s <math.h>, not <cmath>: it also puts std::isfinite and friends in the global namespace,
    # as the <math.h> nvcc's runtime include pulls in does (an unqualified host call needs that).
    "math.h": (frozenset({"isfinite", "isnan", "isinf", "isnormal", "signbit", "fpclassify"}),
               frozenset({"math.h"})),
}
_DEVICE_WORDS = frozenset({"__global__", "__device__", "__host__"})


def implicit_std_include_fixes(path: str, text: str, toks: list, *, cuda_file: bool) -> list[Fix]:
    """Add the standard headers CUDA's implicit runtime include brought and HIP's does not.

    For a CUDA source or header (``cuda_file``), or a C++ header holding device
    code, that calls a name of :data:`IMPLICIT_STD_HEADERS` without including a
    header that declares it: ``#include <math.h>`` (``<string.h>`` is API012's) after
    its ``hip/hip_runtime.h`` include (a later round, once that include is
    there). Safe: a standard header the file used through nvcc's implicit
    include, nothing else.
    """
    index = spelling_index(toks)
    if not cuda_file and not index.has_any(_DEVICE_WORDS):
        return []
    included: set[str] = set()
    runtime_end = None
    for i, _ in _include_directives(toks):
        if i + 1 < len(toks) and toks[i + 1][0] in (Kind.HEADER, Kind.STRING):
            name = toks[i + 1][3][1:-1]
            included.add(name)
            if name == "hip/hip_runtime.h" and runtime_end is None:
                nl = text.find("\n", toks[i + 1][2])
                runtime_end = len(text) if nl < 0 else nl + 1
    if runtime_end is None:
        return []
    wanted = []
    for header, (names, providers) in IMPLICIT_STD_HEADERS.items():
        if providers & included:
            continue
        for i in index.indices_of(names, Kind.IDENT):
            nxt = i + 1
            while nxt < len(toks) and toks[nxt][0] is Kind.COMMENT:
                nxt += 1
            # A call, not a member (.memset) or a qualified name other than std:: (ns::isfinite).
            prev = toks[i - 1][3] if i else ""
            if nxt < len(toks) and toks[nxt][3] == "(" and prev not in (".", "->") and (
                    prev != "::" or (i >= 2 and toks[i - 2][3] == "std")):
                wanted.append(header)
                break
    if not wanted:
        return []
    block = "".join(f"#include <{h}>\n" for h in wanted)
    return [Fix((Edit(path, runtime_end, runtime_end, block),), Applicability.SAFE,
                f"add {', '.join(f'<{h}>' for h in wanted)} (nvcc's implicit cuda_runtime.h brought it; hip_runtime.h does not)",
                ("header",))]


#: First folders of ``<dir/x.h>`` includes that are the system's, not a project's.
_SYSTEM_DIRS = frozenset({"sys", "bits", "linux", "asm", "asm-generic", "arpa", "netinet", "net", "machine", "gnu"})


@functools.lru_cache(maxsize=1)
def _rocm_header_dirs() -> frozenset[str]:
    """The first folders of the ROCm headers the library table replaces CUDA's with (``hipblas``, ``rocwmma`` …)."""
    from vado.knowledge.libraries import _index

    dirs = set()
    for lib in _index().by_id.values():
        if lib.rocm is not None:
            for h in (*lib.rocm.headers.values(), *lib.rocm.roc_headers.values(), *lib.rocm.link_when_included):
                if "/" in h:
                    dirs.add(h.split("/", 1)[0])
    return frozenset(dirs)


def _project_header(spelt: str) -> bool:
    """Whether an include's header token (``"x.h"`` or ``<dir/x.h>``) names a project's header, not a standard,
    system or CUDA library one: quoted, or in a folder other than the system's, and no library's."""
    from vado.knowledge.libraries import library_for_header

    name = spelt[1:-1]
    if library_for_header(name) is not None or name.split("/", 1)[0] in _rocm_header_dirs():
        # A CUDA library's header (<nvtx3/nvToolsExt.h>, <thrust/…>) or its ROCm replacement (an earlier round
        # renamed it: <rocprofiler-sdk-roctx/roctx.h>) includes what it needs.
        return False
    if spelt.startswith('"'):
        return True
    return "/" in name and name.split("/", 1)[0] not in _SYSTEM_DIRS


#: The tag of :func:`runtime_include_fix`'s fix: a torch extension's port keeps it where PyTorch's hipify does not add
#: the include itself (:func:`vado.port.torch_ext.hipify_adds_runtime`).
RUNTIME_INCLUDE = "runtime-include"


def runtime_include_fix(path: str, text: str, toks: list) -> Fix | None:
    """Insert ``#include <hip/hip_runtime.h>`` into a CUDA source that lacks it.

    nvcc includes ``cuda_runtime.h`` implicitly in ``.cu`` files; hipcc does not
    include ``hip/hip_runtime.h``, so kernels and ``threadIdx`` would not compile.
    A ``.cu`` file that includes the runtime itself, but after a project header
    (:func:`_project_header`), gets it first too: that header was compiled with
    the runtime already included.
    Inserted before the first ``#include`` when that is the first code of the
    file, else at the top; either way after a leading ``#pragma once`` and
    include guard (``#ifndef X`` / ``#define X``), as HIPIFY does. Never inside
    any other conditional block: an include there would be conditional too.
    """
    before: list[str] = []  # the headers included before the runtime include
    for i, directive in _include_directives(toks):
        if directive.endswith("include") and i + 1 < len(toks):
            if toks[i + 1][3][1:-1] in ("hip/hip_runtime.h", "hip_runtime.h", "cuda_runtime.h", "cuda.h"):
                if not (path.endswith(".cu") and any(_project_header(h) for h in before)):
                    return None
                # nvcc's implicit include comes before everything: a project header included ahead of the
                # file's own runtime include may use threadIdx or atomicCAS (tiny-cuda-nn's common_host.cu
                # includes <tiny-cuda-nn/common_device.h> first), which clang's HIP wrapper does not declare.
                break
            before.append(toks[i + 1][3])
    n = len(toks)

    def code(k: int) -> int:
        while k < n and toks[k][0] is Kind.COMMENT:
            k += 1
        return k

    def line_after(k: int) -> tuple[int, int]:
        # (token index after the directive starting at k, offset of the next line's start)
        while k < n and toks[k][0] is not Kind.EOD:
            k += 1
        end = toks[k][2] if k < n else len(text)
        nl = text.find("\n", end)
        return k + 1, (len(text) if nl < 0 else nl + 1)

    def words(k: int, count: int) -> list[str]:
        return [t[3] for t in toks[k : k + count]]

    at: int | None = None
    k = code(0)
    guard_seen = False
    while k < n:
        if words(k, 2) == ["#pragma", "once"]:
            k, at = line_after(k)
        elif not guard_seen and toks[k][3] == "#ifndef" and k + 1 < n and toks[k + 1][0] is Kind.IDENT:
            nxt = code(line_after(k)[0])
            if words(nxt, 2) != ["#define", toks[k + 1][3]]:
                break
            guard_seen = True
            k, at = line_after(nxt)
        else:
            break
        k = code(k)
    if k < n and toks[k][0] is Kind.DIRECTIVE and toks[k][3].endswith("include"):
        at = toks[k][1]
    elif at is None:
        # Code first: at its start; comments first: at the top; comments only: at the end.
        at = len(text) if k >= n else (toks[k][1] if k == 0 else 0)
        if at == len(text) and n and _open_comment(toks[-1][3]):
            at = 0  # at the end the include would be part of an unterminated comment, round after round
    prefix = ""
    if at and text[at - 1 : at] not in ("\n", ""):
        if at == len(text):
            prefix = "\n"
        else:
            at = text.rfind("\n", 0, at) + 1
    if prefix:
        return Fix((Edit(path, at, at, prefix + "#include <hip/hip_runtime.h>\n"),), Applicability.SAFE, "add #include <hip/hip_runtime.h>", ("header", RUNTIME_INCLUDE))
    return Fix((Edit(path, at, at, "#include <hip/hip_runtime.h>\n"),), Applicability.SAFE, "add #include <hip/hip_runtime.h>", ("header", RUNTIME_INCLUDE))
