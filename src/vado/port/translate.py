"""CUDA → HIP translation by token: identifiers, include paths, and the warp-sync downgrade.

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

from dataclasses import dataclass

from vado.model import Applicability, Edit, Fix, Target
from vado.scan.lexer import Kind

#: Libraries whose names are never renamed automatically: the ROCm counterpart
#: is not a 1:1 API (MIOpen differs from cuDNN in descriptors and workspace
#: handling), so a rename would compile into wrong code. LIB001 reports them.
NOT_RENAMED_LIBRARIES = frozenset({"cudnn"})

#: Warp-level *_sync intrinsics and their pre-6.2 HIP forms (mask argument dropped).
SYNC_DOWNGRADE = {
    "__shfl_sync": "__shfl",
    "__shfl_up_sync": "__shfl_up",
    "__shfl_down_sync": "__shfl_down",
    "__shfl_xor_sync": "__shfl_xor",
    "__ballot_sync": "__ballot",
    "__any_sync": "__any",
    "__all_sync": "__all",
}

#: Mask spellings that mean "every lane": dropping such a mask keeps the meaning.
FULL_MASKS = frozenset(
    {
        "0xffffffff", "0xffffffffu", "0xffffffffU", "0xFFFFFFFF", "0xFFFFFFFFu", "0xFFFFFFFFU",
        "0xffffffffull", "0xffffffffffffffff", "0xffffffffffffffffull", "0xFFFFFFFFFFFFFFFF",
        "0xFFFFFFFFFFFFFFFFull", "0xFFFFFFFFFFFFFFFFULL", "0xffffffffffffffffULL", "~0", "~0u", "~0ull", "-1",
        "FULL_MASK", "FINAL_MASK", "__activemask()",
    }
)


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
        if roc and entry.roc_name and entry.kind != "header":
            new = entry.roc_name
        elif roc and entry.kind == "header" and entry.roc_name:
            new = entry.roc_name
        out[entry.cuda_name] = Rename(new, entry.library, entry.kind)
    return out


def _prev_code(toks: list, i: int):
    j = i - 1
    while j >= 0 and toks[j][0] is Kind.COMMENT:
        j -= 1
    return toks[j] if j >= 0 else None


def identifier_fixes(path: str, toks: list, target: Target, *, roc: bool = False) -> list[Fix]:
    """One safe fix per identifier token that has a translation on ``target``.

    Member names (after ``.`` or ``->``) are left alone: ``s.cudaMalloc`` is a
    user's field, not the runtime function.
    """
    names = rename_map(target, roc)
    fixes: list[Fix] = []
    ident = Kind.IDENT
    for i, tok in enumerate(toks):
        if tok[0] is not ident:
            continue
        r = names.get(tok[3])
        if r is None or r.kind == "header" or r.new == tok[3]:
            continue
        prev = _prev_code(toks, i)
        if prev is not None and prev[0] is Kind.PUNCT and prev[3] in (".", "->"):
            continue
        fixes.append(
            Fix((Edit(path, tok[1], tok[2], r.new),), Applicability.SAFE, f"{tok[3]} → {r.new}", ("rename", r.library))
        )
    return fixes


def include_fixes(path: str, toks: list, target: Target, *, roc: bool = False) -> list[Fix]:
    """Fixes for ``#include`` operands naming CUDA headers (``<cublas_v2.h>`` → ``<hipblas/hipblas.h>``).

    A header whose HIP counterpart is empty (``device_launch_parameters.h``) is
    turned into a comment; a second include of the same HIP header is dropped,
    as HIPIFY does.
    """
    names = rename_map(target, roc)
    fixes: list[Fix] = []
    seen: set[str] = set()
    for i, tok in enumerate(toks):
        if tok[0] is not Kind.DIRECTIVE or not tok[3].endswith(("include", "include_next")):
            continue
        if i + 1 >= len(toks):
            continue
        operand = toks[i + 1]
        if operand[0] not in (Kind.HEADER, Kind.STRING) or len(operand[3]) < 2:
            continue
        inner = operand[3][1:-1]
        r = names.get(inner)
        if r is None or r.kind != "header":
            seen.add(inner)
            continue
        if not r.new or r.new in seen:
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
        seen.add(r.new)
        new_operand = operand[3][0] + r.new + operand[3][-1]
        fixes.append(
            Fix((Edit(path, operand[1], operand[2], new_operand),), Applicability.SAFE, f"{operand[3]} → {new_operand}", ("header",))
        )
    return fixes


def split_call_args(toks: list, open_idx: int) -> tuple[int, list[tuple[int, int]]] | None:
    """For the '(' at ``open_idx``: the index of its ')' and each argument's (first, last) token index."""
    depth = 0
    args: list[tuple[int, int]] = []
    first = open_idx + 1
    for j in range(open_idx, len(toks)):
        kind, _, _, text = toks[j]
        if kind is not Kind.PUNCT:
            continue
        if text in ("(", "[", "{"):
            depth += 1
        elif text in (")", "]", "}"):
            depth -= 1
            if depth == 0:
                if first <= j - 1:
                    args.append((first, j - 1))
                return j, args
        elif text == "," and depth == 1:
            args.append((first, j - 1))
            first = j + 1
    return None


def sync_downgrade_fixes(path: str, text: str, toks: list, target: Target) -> list[Fix]:
    """On targets without the ``*_sync`` warp builtins (HIP < 6.2), ``__shfl_down_sync(mask, v, d)`` → ``__shfl_down(v, d)``.

    Dropping the mask keeps the meaning only when the mask names every lane;
    such rewrites are safe, others unsafe (partial-warp code needs a human).
    """
    if target.family != "rocm" or target.features.get("warp_sync_builtins", True):
        return []
    code = [t for t in toks if t[0] is not Kind.COMMENT]
    fixes: list[Fix] = []
    for i, tok in enumerate(code):
        if tok[0] is not Kind.IDENT or tok[3] not in SYNC_DOWNGRADE:
            continue
        if i + 1 >= len(code) or code[i + 1][3] != "(":
            continue
        split = split_call_args(code, i + 1)
        if split is None:
            continue
        close, args = split
        if len(args) < 2:
            continue
        mask_first, mask_last = args[0]
        mask_text = "".join(t[3] for t in code[mask_first : mask_last + 1])
        full = mask_text in FULL_MASKS
        new_name = SYNC_DOWNGRADE[tok[3]]
        rest_start = code[args[1][0]][1]
        edits = (
            Edit(path, tok[1], tok[2], new_name),
            Edit(path, code[mask_first][1], rest_start, ""),
        )
        fixes.append(
            Fix(
                edits,
                Applicability.SAFE if full else Applicability.UNSAFE,
                f"{tok[3]} → {new_name} (HIP {target.hip_version} has no *_sync warp builtins"
                + ("" if full else f"; mask {mask_text} is not known to be all lanes") + ")",
                ("wave64", "sync-downgrade"),
            )
        )
    return fixes


def runtime_include_fix(path: str, text: str, toks: list) -> Fix | None:
    """Insert ``#include <hip/hip_runtime.h>`` into a CUDA source that lacks it.

    nvcc includes ``cuda_runtime.h`` implicitly in ``.cu`` files; hipcc does not
    include ``hip/hip_runtime.h``, so kernels and ``threadIdx`` would not compile.
    Inserted before the first ``#include`` (after a leading comment block), or at
    the top.
    """
    for i, tok in enumerate(toks):
        if tok[0] is Kind.DIRECTIVE and tok[3].endswith("include") and i + 1 < len(toks):
            if toks[i + 1][3][1:-1] in ("hip/hip_runtime.h", "hip_runtime.h", "cuda_runtime.h", "cuda.h"):
                return None
    at = 0
    for tok in toks:
        if tok[0] is Kind.DIRECTIVE and tok[3].endswith("include"):
            at = tok[1]
            break
        if tok[0] is not Kind.COMMENT:
            at = tok[1] if toks and tok is toks[0] else 0
            break
    else:
        at = len(text)
    if at and text[at - 1 : at] not in ("\n", ""):
        at = text.rfind("\n", 0, at) + 1
    return Fix((Edit(path, at, at, "#include <hip/hip_runtime.h>\n"),), Applicability.SAFE, "add #include <hip/hip_runtime.h>", ("header",))
