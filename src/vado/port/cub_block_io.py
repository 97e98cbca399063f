"""CUB's warp-transposing block loads and stores on 64-lane wavefronts.

``BlockLoad<T, BLOCK_THREADS, ITEMS, BLOCK_LOAD_WARP_TRANSPOSE>`` (and the
``BlockStore`` and ``_TIMESLICED`` forms) needs a block that is a whole number of
warps: 32 threads on NVIDIA, 64 on AMD Instinct, where rocPRIM (under hipCUB)
rejects any other size with a static assertion ("BlockSize must be a multiple of
hardware wavefront size"). A block of 32 or 96 threads is fine for CUDA and does
not compile for gfx942/gfx950 (HeCBench blockScan).

The plain ``_TRANSPOSE`` algorithms give the same blocked arrangement for any
block size (CUB's documentation of ``BlockLoadAlgorithm``/``BlockStoreAlgorithm``),
through a block-wide exchange instead of a per-warp one. :func:`block_io_fixes`
writes the algorithm argument as a choice the compiler makes from the block's
dimensions: the warp form where the block is a multiple of 64 threads (nothing
changes for those), the plain form otherwise. Dimensions written as numbers are
decided here: whole wavefronts keep the warp form as written, others get the plain one. Safe: the data each thread holds is
the same.
"""

from __future__ import annotations

import math

from vado.model import Applicability, Edit, Fix, Target
from vado.port.overloads import _next_code
from vado.port.translate import split_call_args
from vado.rules.cuda_syntax import int_value, spelling_index
from vado.scan.lexer import Kind

#: The warp-transposing algorithms and their block-wide counterparts (same result, any block size).
ALGORITHMS = {
    "BLOCK_LOAD_WARP_TRANSPOSE": "BLOCK_LOAD_TRANSPOSE",
    "BLOCK_LOAD_WARP_TRANSPOSE_TIMESLICED": "BLOCK_LOAD_TRANSPOSE",
    "BLOCK_STORE_WARP_TRANSPOSE": "BLOCK_STORE_TRANSPOSE",
    "BLOCK_STORE_WARP_TRANSPOSE_TIMESLICED": "BLOCK_STORE_TRANSPOSE",
}
#: The wavefront of AMD Instinct GPUs (CDNA: gfx90a, gfx942, gfx950).
WAVEFRONT = 64
_CLASSES = frozenset({"BlockLoad", "BlockStore"})


def _text(text: str, toks, span: tuple[int, int]) -> str:
    return text[toks[span[0]][1]:toks[span[1]][2]].strip()


def block_io_fixes(path: str, text: str, toks: list, target: Target) -> list[Fix]:
    """``BlockLoad``/``BlockStore`` template arguments naming a warp-transposing algorithm, on ROCm targets."""
    if target.family != "rocm":
        return []
    index = spelling_index(toks)
    if not index.has_any(ALGORITHMS) or not index.has_any(_CLASSES):
        return []
    fixes: list[Fix] = []
    for cls in _CLASSES:
        for i in index.where(cls):
            j = _next_code(toks, i)
            if toks[i][0] is not Kind.IDENT or j >= len(toks) or toks[j][3] != "<":
                continue
            parsed = split_call_args(toks, j, angle=True)
            if parsed is None or len(parsed[1]) < 4:
                continue
            args = parsed[1]
            alg = [t for t in toks[args[3][0]:args[3][1] + 1] if t[0] is not Kind.COMMENT]
            name = alg[-1][3] if alg else ""
            if name not in ALGORITHMS or any(t[3] not in ("::",) and t[0] is not Kind.IDENT for t in alg):
                continue
            qualifier = _text(text, toks, (args[3][0], args[3][1]))[: -len(name)]
            dims = [args[1], *args[4:6]]
            literal = [int_value(toks[a][3]) if a == b and toks[a][0] is Kind.NUMBER else None for a, b in dims]
            if None not in literal:
                if math.prod(literal) % WAVEFRONT == 0:
                    continue  # whole wavefronts: the warp form works as written
                choice = f"{qualifier}{ALGORITHMS[name]}"
            else:
                threads = " * ".join(f"({_text(text, toks, a)})" for a in dims)
                choice = (f"(({threads}) % {WAVEFRONT} == 0 ? {qualifier}{name} : {qualifier}{ALGORITHMS[name]})")
            start, end = toks[args[3][0]][1], toks[args[3][1]][2]
            fixes.append(Fix(
                (Edit(path, start, end, choice),), Applicability.SAFE,
                f"{cls} with {name}: the warp form needs a block of whole {WAVEFRONT}-lane wavefronts on AMD "
                f"(rocPRIM asserts it); {ALGORITHMS[name]} gives the same blocked data for other block sizes",
                ("overload",)))
    return fixes
