"""WARP rule about the value a shuffle moves: HIP's ``__shfl*`` overload set and class types.

HIP declares its mask-less shuffles (``__shfl``, ``__shfl_up``, ``__shfl_down``, ``__shfl_xor``) as
plain overloads: ``int``, ``unsigned int``, ``long``, ``unsigned long``, ``long long``, ``unsigned long
long``, ``float``, ``double`` (ROCm 7.2.4 ``amd_warp_functions.h``), ``__half`` and ``__half2``
(``amd_hip_fp16.h``) and ``__hip_bfloat16`` (``amd_hip_bf16.h``). A class type reaches one of them
only through its own implicit conversions, and PyTorch's ``c10::Half`` (``at::Half``) has two under
hipcc, ``operator float()`` and ``operator __half()``: both candidates are one user conversion away,
and the call is ambiguous. (``c10::BFloat16``'s ``operator __hip_bfloat16()`` is ``explicit``: it takes
the ``float`` overload and compiles; ROCm's ``__shfl_*_sync`` templates call the mask-less names
declared before ``amd_hip_fp16.h``, so they see no ``__half`` overload and compile too.)
"""

from __future__ import annotations

from typing import Iterable

from vado.model import Applicability, Effort, Finding, Fix, Severity, Verdict
from vado.rules import cuda_syntax as cs
from vado.rules.base import FileContext, Rule
from vado.scan.lexer import Kind

#: HIP's mask-less shuffles, and the warp32 helpers (``vado.port.wave``) that forward their value to
#: them from a template: a ``c10::Half`` given to either ends in the same ambiguous call. The value is
#: the argument at this index.
SHUFFLES = {
    "__shfl": 0, "__shfl_up": 0, "__shfl_down": 0, "__shfl_xor": 0,
    "vado_shfl32": 0, "vado_shfl_up32": 0, "vado_shfl_down32": 0, "vado_shfl_xor32": 0,
    "vado_shfl_sync32": 1, "vado_shfl_up_sync32": 1, "vado_shfl_down_sync32": 1, "vado_shfl_xor_sync32": 1,
}

#: The guard of the overloads the fix writes; a file that holds it is fixed.
GUARD = "VADO_SHFL_C10_HALF"

#: Spellings of PyTorch's half type, as the last names of a declared type.
_HALF_NAMES = frozenset({"Half"})
_HALF_SCOPES = frozenset({"at", "c10"})
#: Names that show a file dispatches kernels over ``at::Half`` (``AT_DISPATCH_*_AND_HALF``,
#: ``AT_DISPATCH_*_AND2(at::ScalarType::Half, …)``, ``kHalf``).
_DISPATCH_HALF = ("Half", "kHalf")

#: Words before a name that make it an operand, not a declaration (``return val;``).
_NOT_TYPES = frozenset({"return", "case", "else", "do", "throw", "co_return", "co_yield", "sizeof", "new", "delete",
                        "goto", "typeid", "decltype", "alignof"})

_ARGS = {"__shfl": "int src_lane", "__shfl_up": "unsigned int lane_delta", "__shfl_down": "unsigned int lane_delta",
         "__shfl_xor": "int lane_mask"}


def overload_block() -> str:
    """The text the fix inserts: exact ``c10::Half`` overloads of HIP's four mask-less shuffles.

    They move the 16 bits (``Half::x``) as an ``int`` through HIP's own ``int`` overload and rebuild
    the value from them: no conversion, the same bits on every lane. They live in namespace ``c10``
    so that argument-dependent lookup finds them from any template (the ``vado_*32`` helpers, a
    project's ``scalar_t`` kernels) as well as from plain calls. Written without ``warpSize`` (each
    name has a two- and a three-argument overload): HIP's own default width applies.
    """
    lines = [
        "// vado: c10::Half (at::Half) converts to both float and __half, and HIP overloads __shfl* for both:",
        "// a call with a c10::Half is ambiguous. These exact overloads shuffle its 16 bits as an int (in",
        "// namespace c10, so that argument-dependent lookup finds them from templates too).",
        f"#if defined(__HIPCC__) && !defined({GUARD})",
        f"#define {GUARD}",
        "namespace c10 {",
    ]
    for name, arg in _ARGS.items():
        var = arg.split()[-1]
        body = f"static_cast<unsigned short>(::{name}(static_cast<int>(var.x), {var}{{w}})), Half::from_bits()"
        lines.append(f"__device__ __forceinline__ Half {name}(Half var, {arg}) {{ return Half({body.format(w='')}); }}")
        lines.append(f"__device__ __forceinline__ Half {name}(Half var, {arg}, int width) {{ "
                     f"return Half({body.format(w=', width')}); }}")
    lines += ["}  // namespace c10", "#endif", ""]
    return "\n".join(lines) + "\n"


def _template_params(view: cs.DeviceView, func: cs.FunctionDef) -> frozenset[str]:
    """The type parameter names of ``func``'s ``template <typename T, class U, int N>`` clause."""
    toks = view.tokens
    k = next((j for j in view.ident_indices(("template",)) if toks[j][1] == func.start), None)
    if k is None or k + 1 >= len(toks) or toks[k + 1][3] != "<":
        return frozenset()
    names, depth, j = set(), 0, k + 1
    while j < func.name_index:
        t = toks[j][3]
        if t == "<":
            depth += 1
        elif t == ">":
            depth -= 1
            if depth == 0:
                break
        elif t in ("typename", "class") and depth == 1 and j + 1 < len(toks) and toks[j + 1][0] is Kind.IDENT:
            names.add(toks[j + 1][3])
        j += 1
    return frozenset(names)


def _declared_type(toks, i: int, name: str, lo: int) -> list[str] | None:
    """The type words of the nearest declaration of ``name`` before token ``i`` (not before ``lo``):
    ``const at::Half& v`` → ``["at", "::", "Half"]``; None when none is seen."""
    for k in range(i - 1, lo - 1, -1):
        tok = toks[k]
        if tok[0] is not Kind.IDENT or tok[3] != name or k + 1 >= len(toks):
            continue
        if toks[k + 1][3] not in ("=", ";", ",", ")", "[", "{"):
            continue
        words: list[str] = []
        j = k - 1
        while j >= lo and (toks[j][3] in ("&", "*", "::") or toks[j][0] is Kind.IDENT):
            w = toks[j][3]
            if w in ("const", "volatile", "&", "__restrict__", "register"):
                j -= 1
                continue
            if w == "*":
                return None  # a pointer: shuffled values are not
            if toks[j][0] is Kind.IDENT and words and words[0] != "::":
                break  # two names in a row: the first is not part of this type
            words.insert(0, w)
            j -= 1
        if words and words[-1] != "::" and words[0] not in _NOT_TYPES:
            return words
    return None


def _macro_params(toks, i: int) -> tuple[int, frozenset[str]] | None:
    """``(index of the #define, its parameter names)`` when token ``i`` lies in a function-like macro's body."""
    for j in range(i - 1, -1, -1):
        kind = toks[j][0]
        if kind is Kind.EOD:
            return None
        if kind is Kind.DIRECTIVE:
            if toks[j][3].replace(" ", "") != "#define" or j + 2 >= len(toks) or toks[j + 2][3] != "(":
                return None
            names, k = set(), j + 3
            while k < i and toks[k][3] != ")":
                if toks[k][0] is Kind.IDENT:
                    names.add(toks[k][3])
                k += 1
            return j, frozenset(names)
    return None


def _dispatches_half(view: cs.DeviceView) -> bool:
    """Whether the file dispatches kernels over ``at::Half`` or names the type: a ``scalar_t`` may be it."""
    index = view.spelling_index
    if index.has_any(_DISPATCH_HALF):
        return True
    return any(s.startswith("AT_DISPATCH") and "HALF" in s for s in index.spellings(Kind.IDENT))


def _insertion_offset(view: cs.DeviceView, first_use: int) -> int:
    """Where the overloads go (an offset): before the top-level construct of the first shuffle (token
    index ``first_use``), outside every conditional open there except an include guard: the project's
    own ``#ifdef USE_ROCM`` body is left as written, and one copy before it serves every branch."""
    from vado.port.compat.placement import insertion_offsets

    toks = view.tokens
    at = insertion_offsets(view.text, toks, [first_use])[0]
    first = next((k for k, t in enumerate(toks) if t[0] is not Kind.COMMENT), None)
    stack: list[tuple[int, bool]] = []  # (offset of the #if line, whether it is the include guard)
    for k, t in enumerate(toks):
        if t[1] >= at:
            break
        if t[0] is not Kind.DIRECTIVE:
            continue
        d = t[3].replace(" ", "").replace("\t", "")
        if d in ("#if", "#ifdef", "#ifndef"):
            guard = False
            if d == "#ifndef" and k == first and k + 1 < len(toks):
                nxt = next((m for m in range(k + 2, len(toks)) if toks[m][0] is Kind.DIRECTIVE), None)
                guard = (nxt is not None and toks[nxt][3].replace(" ", "") == "#define" and nxt + 1 < len(toks)
                         and toks[nxt + 1][3] == toks[k + 1][3])
            stack.append((t[1], guard))
        elif d == "#endif" and stack:
            stack.pop()
    open_ = [o for o, guard in stack if not guard]
    return open_[0] if open_ else at


class ClassValueToHipShuffle(Rule):
    """A ``c10::Half`` (``at::Half``) value passed to HIP's ``__shfl``/``__shfl_up``/``__shfl_down``/``__shfl_xor``.

    What it does
    ------------
    Finds calls of HIP's mask-less shuffles (and of the ``vado_shfl*32`` helpers
    warp32 emulation writes, which forward their value to them) whose value is
    PyTorch's half type: a variable declared ``at::Half``/``c10::Half``, a
    variable of a function template's type parameter (``scalar_t``) in a file
    that dispatches kernels over ``at::Half`` (``AT_DISPATCH_*_AND_HALF``,
    ``AT_DISPATCH_*_AND2(at::ScalarType::Half, …)``), or the parameter of a
    function-like macro (``#define SHFL_DOWN_SYNC(mask, var, delta)
    __shfl_down(var, delta)``) in a file that names ``at::Half``.

    Why is this bad?
    ----------------
    HIP overloads each shuffle for ``float`` and ``__half`` (ROCm 7.2.4
    ``amd_warp_functions.h``, ``amd_hip_fp16.h``); ``c10::Half`` converts
    implicitly to both (``operator float()``, and ``operator __half()`` under
    hipcc), so overload resolution finds two equally good candidates:
    ``call to '__shfl_down' is ambiguous``. Every instantiation with
    ``at::Half`` fails to compile. torch_scatter 2.1.2's own ROCm branch
    (``csrc/cuda/utils.cuh``) fails so. ``c10::BFloat16`` is not affected (its
    ``__hip_bfloat16`` conversion is explicit: the ``float`` overload is taken),
    nor are ROCm's ``__shfl_*_sync`` templates, which see only the overloads
    declared before ``amd_hip_fp16.h``.

    Example
    -------
    .. code-block:: cuda

        #ifdef USE_ROCM
        #define SHFL_DOWN_SYNC(mask, var, delta) __shfl_down(var, delta)
        #endif
        template <typename scalar_t> __global__ void k(scalar_t* out) {
          scalar_t val = out[threadIdx.x];
          val += SHFL_DOWN_SYNC(FULL_MASK, val, 1);   // scalar_t = at::Half: ambiguous
        }

    Use instead
    -----------
    .. code-block:: cuda

        namespace c10 {  // exact overloads: chosen over both conversions, found by ADL from templates
        __device__ __forceinline__ Half __shfl_down(Half var, unsigned int lane_delta) {
          return Half(static_cast<unsigned short>(::__shfl_down(static_cast<int>(var.x), lane_delta)),
                      Half::from_bits());
        }
        }

    Fix safety
    ----------
    Safe. The fix inserts exact ``c10::Half`` overloads of the four shuffles
    (two- and three-argument forms) once per file, under ``#if
    defined(__HIPCC__) && !defined(VADO_SHFL_C10_HALF)``, before the first
    call and outside the conditional that holds it (a project's ``#ifdef
    USE_ROCM`` branch stays as written). They move the value's 16 bits through
    HIP's ``int`` shuffle and rebuild the same bits: what the CUDA build's
    ``__half`` shuffle computes, with no rounding. Calls with any other type
    resolve as before (an exact overload still wins). In a torch extension's
    port the block stands inside ``#if defined(USE_ROCM)``; the CUDA build
    reads the original lines.

    References
    ----------
    - ROCm 7.2 ``amd_warp_functions.h`` (the shuffle overloads): https://github.com/ROCm/rocm-systems/blob/develop/projects/clr/hipamd/include/hip/amd_detail/amd_warp_functions.h
    - ROCm 7.2 ``amd_hip_fp16.h`` (``__shfl*(__half, …)``): https://github.com/ROCm/rocm-systems/blob/develop/projects/clr/hipamd/include/hip/amd_detail/amd_hip_fp16.h
    - PyTorch ``c10/util/Half.h`` (``operator float()``, ``operator __half()`` under ``__HIPCC__``): https://github.com/pytorch/pytorch/blob/main/torch/headeronly/util/Half.h
    """

    code = "WARP015"
    name = "class-value-to-hip-shuffle"
    severity = Severity.HIGH
    file_kinds = cs.CUDA_CXX_KINDS
    can_fix = True
    triggers = frozenset(SHUFFLES)

    def check(self, ctx: FileContext) -> Iterable[Finding]:
        rocm = [t for t in ctx.targets if t.family == "rocm"]
        if not rocm:
            return
        view = cs.device_view(ctx)
        if view.spelling_index.has_any((GUARD,)):
            return  # the overloads are in the file already
        hits = view.ident_indices(frozenset(SHUFFLES))
        if not hits:
            return
        toks = view.tokens
        found: list[tuple[int, int, str, str]] = []  # (start, end, call, why)
        dispatch = None
        for i in hits:
            name = toks[i][3]
            prev = toks[i - 1] if i > 0 else None
            if prev is not None and (prev[3] in (".", "->", "::") or
                                     (prev[0] is Kind.IDENT and prev[3] not in cs.EXPRESSION_WORDS)):
                continue  # a member, a qualified name (vado's own block) or a declaration
            if i + 1 >= len(toks) or toks[i + 1][3] != "(" or (i + 1) not in view.pairs:
                continue
            close = view.pairs[i + 1]
            args = cs.split_args(toks, i + 1, close)
            pos = SHUFFLES[name]
            if len(args) <= pos:
                continue
            lo, hi = args[pos]
            arg = [t for t in toks[lo:hi] if t[0] is not Kind.COMMENT]
            if len(arg) != 1 or arg[0][0] is not Kind.IDENT:
                continue
            var = arg[0][3]
            why = None
            macro = _macro_params(toks, i)
            if macro is not None:
                if var in macro[1] and view.spelling_index.has_any(("Half",)):
                    why = (f"the macro's parameter `{var}` is given to {name}, and this file uses at::Half: "
                           f"a caller that passes one gets an ambiguous call")
            else:
                func = view.function_at(toks[i][1])
                words = _declared_type(toks, i, var, func.name_index if func is not None else 0)
                if words and words[-1] in _HALF_NAMES and (len(words) == 1 or words[-3:-1][0] in _HALF_SCOPES):
                    why = f"`{var}` is {''.join(words)}"
                elif words and len(words) == 1 and func is not None and words[0] in _template_params(view, func):
                    if dispatch is None:
                        dispatch = _dispatches_half(view)
                    if dispatch:
                        why = (f"`{var}` is of the template parameter {words[0]}, which may be at::Half: this file "
                               f"names Half (an AT_DISPATCH over it, or the type)")
            if why is not None:
                found.append((i, toks[close][2], name, why))
        if not found:
            return
        from vado.port.compat.placement import line_start_insert

        at = _insertion_offset(view, found[0][0])
        verdicts = {t.name: Verdict.AUTOMATIC for t in rocm}
        for k, (start, end, name, why) in enumerate(found):
            fix = None
            if k == 0:
                fix = Fix((line_start_insert(ctx.path, ctx.text, at, overload_block()),), Applicability.SAFE,
                          "exact c10::Half overloads of HIP's __shfl, __shfl_up, __shfl_down, __shfl_xor",
                          ("warp", "shfl-half"))
            hip = name if name.startswith("__") else "__" + name[len("vado_"):].replace("_sync32", "").replace("32", "")
            yield self.finding(ctx, toks[start][1], end,
                               f"{name} is given a c10::Half ({why}); under hipcc that call is ambiguous: c10::Half "
                               f"converts to both float and __half, and HIP overloads {hip} for both",
                               verdicts, fix=fix, effort=Effort(lines=1, constructs=1, hours=0.0),
                               data={"call": name, "hip": hip})
