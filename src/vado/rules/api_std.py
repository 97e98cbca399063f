"""API rule about the C++ standard library in device code where clang (HIP) and nvcc differ (API020).

nvcc with ``--expt-relaxed-constexpr`` lets device code call a ``constexpr`` host function, and compiles
``std::array::at`` (``constexpr`` since C++17) for the device; its out-of-range path, a call of libstdc++'s
host function ``std::__throw_out_of_range_fmt``, is never diagnosed. clang treats a ``constexpr`` function
as ``__host__ __device__`` too, but reports the host-only call in it once the device side emits it:
"reference to __host__ function '__throw_out_of_range_fmt' in __host__ __device__ function" (ROCm 7.2.4,
libstdc++ 16; gsplat 1.5.3 ``Cameras.cuh``).
"""

from __future__ import annotations

from typing import Iterable

from vado.model import Applicability, Effort, Finding, Fix, Severity, Verdict
from vado.rules import cuda_syntax as cs
from vado.rules.base import FileContext, Rule
from vado.scan.lexer import Kind


def _declared_std_array(toks, name: str, before: int) -> bool:
    """Whether ``name`` is declared ``std::array<…> name`` (or ``array<…> name``) before token ``before``."""
    for k in range(before - 1, 2, -1):
        if toks[k][0] is not Kind.IDENT or toks[k][3] != name or toks[k - 1][3] != ">":
            continue
        depth, j = 0, k - 1
        while j > 0:
            t = toks[j][3]
            depth += t == ">"
            depth -= t == "<"
            if depth == 0:
                break
            j -= 1
        if j > 0 and toks[j - 1][3] == "array":
            return True
    return False



def _project_header_defines(ctx: FileContext, text: str, name: str) -> bool:
    """Whether a project header the file includes (``#include "…"``, read within the audited tree,
    ``source_root``), or one those include, defines a function ``name`` (a member of its own class or struct)."""
    from vado.scan.project_headers import included_project_headers

    found = included_project_headers((ctx.options or {}).get("source_root"), ctx.path, text)
    if found is None:
        return False
    headers, targets = found
    return any(name in headers.defined_functions(target) for target in targets)


_CONTROL = frozenset({"if", "for", "while", "switch", "catch", "do", "else", "try"})


def _device_function(view: cs.DeviceView, i: int) -> str | None:
    """The name of the device function (``__device__``/``__global__``) whose body holds token ``i``, else None.

    Found from the braces around ``i``, innermost first: a block whose head (the tokens back to the previous
    ``;``, ``{`` or ``}``) has a parameter list is a function (a constructor with an initializer list too),
    device code when the head names ``__device__`` or ``__global__``; blocks of classes, namespaces and
    statements are looked through."""
    toks, pairs = view.tokens, view.pairs
    opens = sorted((o for o, c in pairs.items() if toks[o][3] == "{" and o < i < c), reverse=True)
    for b in opens:
        head, j = [], b - 1
        while j >= 0 and toks[j][3] not in (";", "{") and not (toks[j][3] == "}" and toks[j + 1][3] not in (",", "{")):
            if toks[j][3] in (")", "}"):  # a group, or a braced member initializer (`x{}` before `,` or the body)
                # a bracketed group: step over it (its opening is the pair whose close is j)
                start = next((o for o, c in pairs.items() if c == j), None)
                if start is None:
                    break
                head.append("()")
                j = start - 1
                continue
            head.append(toks[j][3])
            j -= 1
        if "__device__" in head or "__global__" in head:
            return next((w for w in reversed(head) if w not in ("()", "__host__", "__device__", "__global__", "inline",
                                                                 "__forceinline__", "static", "constexpr", ":", ",")),
                        "?")
        if "()" in head and not _CONTROL.intersection(head) and "=" not in head:
            return None  # a host function
    return None


class StdArrayAtInDeviceCode(Rule):
    """``x.at(i)`` in device code: ``std::array::at``'s out-of-range path calls a host-only libstdc++ function.

    What it does
    ------------
    Finds member calls ``.at(index)`` inside ``__device__``, ``__host__
    __device__`` and ``__global__`` functions (a device function that calls
    ``at`` on a value of ``std::array``, the one standard container device
    code can use).

    Why is this bad?
    ----------------
    ``std::array::at`` is ``constexpr``, so nvcc with
    ``--expt-relaxed-constexpr`` compiles it for the device and never looks at
    its out-of-range branch, which throws through libstdc++'s host function
    ``std::__throw_out_of_range_fmt``. hipcc (clang) treats the ``constexpr``
    function as ``__host__ __device__`` as well, and rejects the host-only
    call once the device code is emitted: "reference to __host__ function
    '__throw_out_of_range_fmt' in __host__ __device__ function". Device code
    cannot throw on either platform.

    Example
    -------
    .. code-block:: cuda

        __host__ __device__ Camera(Params const& p) {
          d1 = 1.f * p.poly.at(1);   // std::array<float, 6> poly
        }

    Use instead
    -----------
    .. code-block:: cuda

        __host__ __device__ Camera(Params const& p) {
          d1 = 1.f * p.poly[1];
        }

    Fix safety
    ----------
    ``.at(i)`` becomes ``[i]``: the same element for every index in range,
    and no exception path, which device code cannot take anyway. Safe where the
    value is declared ``std::array<…>`` in the file; unsafe otherwise (vado
    does not see the type: a class of the project's own with an ``at`` that
    differs from its ``operator[]`` would change meaning). Where the file, or
    a project header it includes (read within the audited tree), defines an
    ``at`` of its own, a call is that member's as far as vado can tell: only
    values declared ``std::array<…>`` in the file are reported (torch-ans
    0.4.0's ``__host__ __device__ T& at(int64_t)`` of its view type in
    ``ta/view.hpp`` is not std's).

    References
    ----------
    - libstdc++ ``<array>`` (``at``: ``__throw_out_of_range_fmt`` when ``n >= N``): https://gcc.gnu.org/onlinedocs/libstdc++/
    - Clang, CUDA/HIP: ``constexpr`` functions are implicitly host and device; deferred diagnostics of host calls: https://clang.llvm.org/docs/HIPSupport.html
    """

    code = "API020"
    name = "std-array-at-in-device-code"
    severity = Severity.HIGH
    file_kinds = cs.CUDA_CXX_KINDS
    can_fix = True
    triggers = frozenset({"at"})

    def check(self, ctx: FileContext) -> Iterable[Finding]:
        rocm = [t for t in ctx.targets if t.family == "rocm"]
        if not rocm:
            return
        view = cs.device_view(ctx)
        toks = view.tokens
        hits = view.ident_indices(("at",))
        if not hits:
            return
        # The file, or a project header it includes, defines an `at` of its own (torch-ans 0.4.0's
        # `TA_VIEW_API T& at(int64_t i) const` in ta/view.hpp): `.at()` may be that member, not std's;
        # only values declared std::array here are reported then.
        own = any(f.name == "at" for f in view.functions) or _project_header_defines(ctx, view.text, "at")
        for i in hits:
            if i < 2 or i + 1 >= len(toks) or toks[i - 1][3] != "." or toks[i + 1][3] != "(":
                continue
            close = view.pairs.get(i + 1)
            if close is None or close == i + 2 or any(toks[k][3] == "," for k in range(i + 2, close)):
                continue  # at() with no index, or with several arguments: not std::array's
            func = _device_function(view, i)
            if func is None:
                continue
            obj = toks[i - 2]
            known = obj[0] is Kind.IDENT and _declared_std_array(toks, obj[3], i - 2)
            if own and not known:
                continue
            fix = Fix((ctx.edit(toks[i - 1][1], toks[i + 1][2], "["), ctx.edit(toks[close][1], toks[close][2], "]")),
                      Applicability.SAFE if known else Applicability.UNSAFE,
                      ".at(i) → [i] in device code (no host-only throw path)", ("std", "array-at"))
            yield self.finding(
                ctx, toks[i - 1][1], toks[close][2],
                "`.at()` in device code: std::array::at's out-of-range path calls libstdc++'s "
                "host-only __throw_out_of_range_fmt, which hipcc rejects in device code (nvcc's relaxed constexpr "
                "lets it pass)" + ("" if known else "; the value's type is not declared in this file"),
                {t.name: Verdict.AUTOMATIC for t in rocm}, fix=fix, effort=Effort(lines=1, constructs=1, hours=0.0))
