"""Calls whose HIP counterpart depends on which CUDA overload (or CUDA release) they were written for.

One CUDA name can stand for two functions that HIP spells differently, and the
plain rename then compiles for one of them only:

- CUDA 13 changed ``cudaMemPrefetchAsync`` and ``cudaMemAdvise`` to take a
  ``cudaMemLocation`` (and, for the prefetch, ``unsigned int flags``) where
  CUDA 12 took ``int device``; HIP keeps the ``int`` forms under the old names
  and has the location forms as ``hipMemPrefetchAsync_v2`` and
  ``hipMemAdvise_v2`` (:data:`LOCATION_OVERLOADS`). The argument count decides
  where it can (a 3-argument prefetch is CUDA 12's, a 5-argument one CUDA 13's);
  where it cannot (a 4-argument prefetch, every ``cudaMemAdvise``), the type of
  the argument does when the file declares it plainly (an ``int`` variable or
  literal, a ``cudaMemLocation`` variable), and otherwise the call goes to a
  small pair of ``vado_`` overloads that let C++ overload resolution pick the
  HIP function by that argument's type, which is right by construction.
- CUDA's ``dim3`` converts from ``uint3``, HIP's does not, so
  ``grid = make_uint3(x, y, z)`` does not compile; ``dim3(x, y, z)`` is the same
  value (:func:`dim3_assign_fixes`).

Fixes are tagged ``overload`` and are safe: each keeps the call's meaning.
"""

from __future__ import annotations

from dataclasses import dataclass

from vado.model import Applicability, Edit, Fix, Target
from vado.port.compat import guarded_block, insertion_offsets, line_start_insert
from vado.port.translate import split_call_args
from vado.rules.cuda_syntax import EXPRESSION_WORDS, hip_at_least, spelling_index
from vado.scan.lexer import Kind


@dataclass(frozen=True)
class LocationOverload:
    """A CUDA function with an ``int device`` form (CUDA ≤ 12) and a ``cudaMemLocation`` form (CUDA 13).

    ``device_form``/``location_form`` are the HIP functions for each; ``by_count``
    maps the argument counts only one form accepts to that form (``"device"`` or
    ``"location"``); ``position`` is the index of the argument whose type tells
    them apart (``int`` or a location); ``helper`` the overload pair used when
    nothing in the file tells; ``since`` the first HIP release whose headers were
    read to hold ``location_form``.
    """

    cuda_name: str
    device_form: str
    location_form: str
    by_count: dict[int, str]
    position: int
    helper: str
    code: str
    source: str
    since: str = "7.2"

    @property
    def guard(self) -> str:
        return self.helper.upper()

    def block(self) -> str:
        why = (f"CUDA 12's {self.cuda_name} takes an int device, CUDA 13's a location; HIP has "
               f"{self.device_form} and {self.location_form}: overload resolution on that argument picks one")
        return guarded_block(why, self.guard, self.code)


_PREFETCH_CODE = """\
static inline hipError_t vado_hipMemPrefetchAsync(const void* dev_ptr, size_t count, int device,
                                                  hipStream_t stream = 0) {
  return hipMemPrefetchAsync(dev_ptr, count, device, stream);
}
static inline hipError_t vado_hipMemPrefetchAsync(const void* dev_ptr, size_t count, hipMemLocation location,
                                                  unsigned int flags, hipStream_t stream = 0) {
  return hipMemPrefetchAsync_v2(dev_ptr, count, location, flags, stream);
}
"""

_ADVISE_CODE = """\
static inline hipError_t vado_hipMemAdvise(const void* dev_ptr, size_t count, hipMemoryAdvise advice, int device) {
  return hipMemAdvise(dev_ptr, count, advice, device);
}
static inline hipError_t vado_hipMemAdvise(const void* dev_ptr, size_t count, hipMemoryAdvise advice,
                                           hipMemLocation location) {
  return hipMemAdvise_v2(dev_ptr, count, advice, location);
}
"""

_SOURCES = (
    "CUDA 13.0 cuda_runtime_api.h: cudaMemPrefetchAsync(const void*, size_t, struct cudaMemLocation, unsigned int flags, "
    "cudaStream_t = 0), cudaMemAdvise(const void*, size_t, enum cudaMemoryAdvise, struct cudaMemLocation); "
    "CUDA 12.x: cudaMemPrefetchAsync(const void*, size_t, int dstDevice, cudaStream_t = 0), "
    "cudaMemAdvise(const void*, size_t, enum cudaMemoryAdvise, int device); "
    "ROCm 7.2.4 hip/hip_runtime_api.h: hipMemPrefetchAsync(const void*, size_t, int, hipStream_t = 0), "
    "hipMemPrefetchAsync_v2(const void*, size_t, hipMemLocation, unsigned int, hipStream_t = 0), "
    "hipMemAdvise(const void*, size_t, hipMemoryAdvise, int), hipMemAdvise_v2(const void*, size_t, hipMemoryAdvise, hipMemLocation) "
    "(HIPIFY's table of Oct 2024 still lists the _v2 forms as unsupported)"
)

#: The CUDA calls with an ``int device`` and a location form, by CUDA name.
LOCATION_OVERLOADS = {
    o.cuda_name: o
    for o in (
        LocationOverload("cudaMemPrefetchAsync", "hipMemPrefetchAsync", "hipMemPrefetchAsync_v2",
                         {3: "device", 5: "location"}, 2, "vado_hipMemPrefetchAsync", _PREFETCH_CODE, _SOURCES),
        LocationOverload("cudaMemAdvise", "hipMemAdvise", "hipMemAdvise_v2",
                         {}, 3, "vado_hipMemAdvise", _ADVISE_CODE, _SOURCES),
    )
}

#: Type names of a location argument, and of an ``int`` device argument.
_LOCATION_TYPES = frozenset({"cudaMemLocation", "hipMemLocation"})
_DEVICE_TYPES = frozenset({"int"})
#: Device numbers CUDA and HIP define as macros or constants.
_DEVICE_CONSTANTS = frozenset({"cudaCpuDeviceId", "hipCpuDeviceId", "cudaInvalidDeviceId", "hipInvalidDeviceId"})


#: Words that precede a name without declaring it.
_NOT_TYPES = frozenset({"return", "case", "else", "sizeof", "new", "delete", "throw", "goto", "do", "co_return"})


def _next_code(toks, i: int) -> int:
    j = i + 1
    while j < len(toks) and toks[j][0] is Kind.COMMENT:
        j += 1
    return j


def _prev_code(toks, i: int) -> int:
    j = i - 1
    while j >= 0 and toks[j][0] is Kind.COMMENT:
        j -= 1
    return j


def _code_span(toks, first: int, last: int) -> list:
    return [t for t in toks[first:last + 1] if t[0] is not Kind.COMMENT]


def declared_types(toks, index, name: str) -> set[str]:
    """The type names written right before ``name`` where the file declares it (``int dev``,
    ``struct cudaMemLocation loc``, ``const int dev``): every declaration in the file, whatever its scope.
    A reference or pointer declaration adds ``""``, so a name declared both ways decides nothing."""
    types: set[str] = set()
    for i in index.where(name):
        k = _prev_code(toks, i)
        after = _next_code(toks, i)
        if after < len(toks) and toks[after][3] not in (";", "=", ",", ")", "{", "["):
            continue
        if k >= 0 and toks[k][3] in ("&", "*", "&&"):
            types.add("")  # ``T& loc``, ``int* dev`` (or a product): not a plain type, so nothing is decided
        elif k >= 0 and toks[k][0] is Kind.IDENT and toks[k][3] not in _NOT_TYPES:
            types.add(toks[k][3])
    return types


def _form_of_argument(toks, index, arg: list) -> str | None:
    """``"device"``, ``"location"`` or None (not known) for the argument's tokens."""
    if len(arg) != 1:
        return None
    kind, text = arg[0][0], arg[0][3]
    if kind is Kind.NUMBER:
        return "device"
    if kind is not Kind.IDENT:
        return None
    if text in _DEVICE_CONSTANTS:
        return "device"
    types = declared_types(toks, index, text)
    if types and types <= _DEVICE_TYPES:
        return "device"
    if types and types <= _LOCATION_TYPES:
        return "location"
    return None


def _calls(toks, index, name: str) -> list[tuple[int, list[tuple[int, int]]]]:
    """Calls of the free function ``name``: its token index and argument spans."""
    out = []
    for i in index.where(name):
        if toks[i][0] is not Kind.IDENT:
            continue
        k = _prev_code(toks, i)
        if k >= 0 and (toks[k][3] in (".", "->", "::") or toks[k][0] is Kind.DIRECTIVE
                       or toks[k][0] is Kind.IDENT and toks[k][3] not in EXPRESSION_WORDS):
            continue  # a member, a macro being defined, or a declaration
        j = _next_code(toks, i)
        if j >= len(toks) or toks[j][3] != "(":
            continue
        split = split_call_args(toks, j)
        if split is not None:
            out.append((i, split[1]))
    return out


def location_overload_fixes(path: str, text: str, toks: list, target: Target) -> list[Fix]:
    """Calls of :data:`LOCATION_OVERLOADS` on ROCm targets whose HIP has the location forms.

    A call whose argument count or argument fits one form only is renamed to
    that form's HIP function; the rest go to the overload pair (inserted where
    :func:`vado.port.compat.insertion_offsets` puts it), all in one fix per name.
    The HIP names are handled too when a rename made them wrong: a 5-argument
    ``hipMemPrefetchAsync`` (no such overload) becomes ``hipMemPrefetchAsync_v2``.
    Calls the plain rename already ports (CUDA 12's forms) are left to it.
    """
    if target.family != "rocm":
        return []
    index = spelling_index(toks)
    names = [o for o in LOCATION_OVERLOADS.values() if hip_at_least(target, o.since)]
    wanted = [n for o in names for n in (o.cuda_name, o.device_form)]
    if not index.has_any(wanted):
        return []
    fixes: list[Fix] = []
    for o in names:
        renames: list[Edit] = []
        helper_uses: list[int] = []
        notes: list[str] = []
        for name in (o.cuda_name, o.device_form):
            for i, args in _calls(toks, index, name):
                form = o.by_count.get(len(args))
                if form is None and o.position < len(args):
                    form = _form_of_argument(toks, index, _code_span(toks, *args[o.position]))
                    if form is None and name == o.device_form:
                        form = "device"  # a HIP call the port did not write: HIP's own overload
                if form == "location":
                    renames.append(Edit(path, toks[i][1], toks[i][2], o.location_form))
                    notes.append(f"{name} → {o.location_form} ({len(args)} arguments, location form)")
                elif form is None and name == o.cuda_name:
                    helper_uses.append(i)
        if helper_uses:
            edits = [line_start_insert(path, text, off, o.block()) for off in insertion_offsets(text, toks, helper_uses)]
            edits += [Edit(path, toks[i][1], toks[i][2], o.helper) for i in helper_uses]
            notes.append(f"{o.cuda_name} → {o.helper} (int device or location: overload resolution picks "
                         f"{o.device_form} or {o.location_form})")
            fixes.append(Fix((*edits, *renames), Applicability.SAFE, "; ".join(dict.fromkeys(notes)), ("overload",)))
        else:
            fixes.extend(Fix((e,), Applicability.SAFE, n, ("overload",)) for e, n in zip(renames, notes))
    return fixes


def yield_to(fixes: list[Fix], overload_fixes: list[Fix]) -> list[Fix]:
    """``fixes`` without the plain renames of the call names ``overload_fixes`` rewrite.

    A rename fix of the same token (``cudaMemAdvise`` → ``hipMemAdvise``) would
    otherwise compete with the overload's fix, and whichever the applier takes
    first (or the only one, when the overload's helper waits a round behind
    another insertion at the same place) would decide the port. Dropping the
    rename makes the overload's choice the only one.
    """
    claimed = {(e.path, e.start, e.end) for f in overload_fixes for e in f.edits if e.end > e.start}
    if not claimed:
        return fixes
    return [f for f in fixes
            if not (f.tags[:1] == ("rename",) and any((e.path, e.start, e.end) in claimed for e in f.edits))]


# --------------------------------------------------------------------------- dim3 = make_uint3(...)

def variables_declared_as(toks, index, type_name: str) -> set[str]:
    """Names the file declares as ``type_name`` (``dim3 grid;``, ``dim3 grid(1), block;``, ``const dim3 g = …``),
    as the type itself or as a pointer or reference to it."""
    return {name for name, _ in declarators(toks, index, type_name)}


def declarators(toks, index, type_name: str) -> set[tuple[str, bool]]:
    """``(name, indirect)`` for each name the file declares with ``type_name``: ``indirect`` when the
    declarator is a pointer or reference to it (``dim3* g``, ``dim3& g``)."""
    names: set[tuple[str, bool]] = set()
    for i in index.where(type_name):
        if toks[i][0] is not Kind.IDENT:
            continue
        j = _next_code(toks, i)
        depth = 0
        expect_name = True
        through = False  # the declarator so far has a * or &
        while j < len(toks):
            t = toks[j]
            if t[0] is Kind.COMMENT:
                j += 1
                continue
            if t[0] is Kind.DIRECTIVE or t[0] is Kind.EOD:
                break
            if depth == 0 and expect_name:
                if t[0] is Kind.IDENT and t[3] not in ("const", "volatile"):
                    names.add((t[3], through))
                    expect_name = False
                elif t[3] in ("&", "*", "&&"):
                    through = True
                else:
                    break
            elif t[3] in ("(", "{", "["):
                depth += 1
            elif t[3] in (")", "}", "]"):
                depth -= 1
                if depth < 0:
                    break
            elif depth == 0 and t[3] == ",":
                expect_name = True
                through = False
            elif depth == 0 and t[3] in (";", ")"):
                break
            j += 1
    return names


def _in_launch_config(toks, k: int) -> bool:
    """Whether the token at ``k`` (the one before an expression) is ``<<<`` or a top-level ``,`` of a
    launch configuration: an argument starting there is converted to ``dim3`` (or a size)."""
    if toks[k][3] == "<<<":
        return True
    if toks[k][3] != ",":
        return False
    depth = 0
    j = k - 1
    while j >= 0:
        t = toks[j][3]
        if toks[j][0] is Kind.PUNCT:
            if t in (")", "]", "}"):
                depth += 1
            elif t in ("(", "[", "{"):
                if depth == 0:
                    return False
                depth -= 1
            elif t in (";", ">>>"):
                return False
            elif t == "<<<":
                return depth == 0 and _first_config_argument(toks, j, k)
        elif toks[j][0] is Kind.DIRECTIVE:
            return False
        j -= 1
    return False


def _first_config_argument(toks, open_k: int, comma: int) -> bool:
    """Whether the ``,`` at ``comma`` is the first top-level one after the ``<<<`` at ``open_k``
    (the second argument, the block, is a ``dim3``; the third is a byte count, the fourth a stream)."""
    depth = 0
    for j in range(open_k + 1, comma):
        t = toks[j][3]
        if toks[j][0] is Kind.PUNCT:
            if t in ("(", "[", "{"):
                depth += 1
            elif t in (")", "]", "}"):
                depth -= 1
            elif t == "," and depth == 0:
                return False
    return True


def dim3_assign_fixes(path: str, text: str, toks: list, target: Target) -> list[Fix]:
    """``v = make_uint3(x, y, z)`` where the file declares ``v`` as ``dim3`` → ``v = dim3(x, y, z)``.

    CUDA's ``dim3`` has a constructor from ``uint3``; HIP's (``hip_runtime_api.h``
    of ROCm 7.2.4 and HIP 5.2) takes three ``uint32_t`` only, so the assignment
    finds no ``operator=`` ("no viable overloaded '='"). ``dim3(x, y, z)`` builds
    the same value (both are three unsigned components). The same holds for a
    ``make_uint3`` given as the grid or block of a ``<<<…>>>`` launch, which is
    converted to ``dim3``. Safe. ``make_uint3`` anywhere else (a real ``uint3``)
    is left alone.
    """
    if target.family != "rocm":
        return []
    index = spelling_index(toks)
    if not index.has_any(["make_uint3"]) or not index.has_any(["dim3"]):
        return []
    variables = variables_declared_as(toks, index, "dim3")
    fixes: list[Fix] = []
    for i in index.where("make_uint3"):
        if toks[i][0] is not Kind.IDENT:
            continue
        j = _next_code(toks, i)
        if j >= len(toks) or toks[j][3] != "(":
            continue
        eq = _prev_code(toks, i)
        if eq >= 0 and _in_launch_config(toks, eq):
            fixes.append(Fix((Edit(path, toks[i][1], toks[i][2], "dim3"),), Applicability.SAFE,
                             "make_uint3(...) → dim3(...) in a launch configuration (HIP's dim3 has no constructor "
                             "from uint3)", ("overload",)))
            continue
        if eq < 0 or toks[eq][3] != "=":
            continue
        lhs = _prev_code(toks, eq)
        if lhs < 0 or toks[lhs][0] is not Kind.IDENT or toks[lhs][3] not in variables:
            continue
        before = _prev_code(toks, lhs)
        if before >= 0 and toks[before][3] in (".", "->"):
            continue  # a member of another object with the same name
        if before >= 0 and toks[before][0] is Kind.IDENT and toks[before][3] not in EXPRESSION_WORDS:
            if toks[before][3] != "dim3":
                continue  # a declaration of another type (``uint3 grid = make_uint3(...)``)
        fixes.append(Fix((Edit(path, toks[i][1], toks[i][2], "dim3"),), Applicability.SAFE,
                         f"{toks[lhs][3]} = make_uint3(...) → dim3(...) (HIP's dim3 has no constructor from uint3)",
                         ("overload",)))
    return fixes
