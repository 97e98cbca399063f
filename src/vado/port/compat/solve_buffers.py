"""cuSPARSE's ``SpSM``/``SpSV`` solves take no buffer while hipSPARSE's do: the port passes the one the
matching analysis got (:func:`solve_buffer_fixes`).
"""

from __future__ import annotations

from vado.model import Applicability, Edit, Fix, Target
from vado.port.compat.calls import _arg_text, _calls, _written_between
from vado.port.compat.helpers import _api_status
from vado.port.compat.placement import _top_level_starts
from vado.rules.cuda_syntax import spelling_index
from vado.scan.lexer import Kind

#: Triangular solves that take no buffer in CUDA (since cuSPARSE 11.3's generic API) but do in
#: hipSPARSE (``hipsparse.h``: ``hipsparseSpSM_solve(..., spsmDescr, void* externalBuffer)``, in
#: 5.3.3 and in later releases): solve → (analysis, index of the descriptor argument, argument
#: count of the CUDA call).
SOLVE_BUFFER = {
    "cusparseSpSM_solve": ("cusparseSpSM_analysis", 9, 10),
    "cusparseSpSV_solve": ("cusparseSpSV_analysis", 8, 9),
}
_HIP_SPELLING = {"cusparseSpSM_solve": "hipsparseSpSM_solve", "cusparseSpSV_solve": "hipsparseSpSV_solve",
                 "cusparseSpSM_analysis": "hipsparseSpSM_analysis", "cusparseSpSV_analysis": "hipsparseSpSV_analysis"}


_SOLVE_NAMES = frozenset(n for s in SOLVE_BUFFER for n in (s, _HIP_SPELLING[s]))


#: ROCm releases whose hipSPARSE solve takes no buffer argument, as CUDA's does: ROCm 7.2.4's hipSPARSE 4.2.0
#: declares ``hipsparseSpSV_solve(handle, opA, alpha, matA, x, y, computeType, alg, spsvDescr)`` (nine
#: arguments, hipsparse/internal/generic/hipsparse_spsv.h) while its ``hipsparseSpSM_solve`` still ends
#: with ``void* externalBuffer`` (hipsparse_spsm.h); measured with its hipcc (HeCBench bicgstab).
SOLVE_WITHOUT_BUFFER_SINCE = {"cusparseSpSV_solve": "7.2"}


def _takes_solve_buffer(cuda_name: str, target: Target) -> bool:
    """Whether ``target`` renames ``cuda_name`` to a hipSPARSE solve that takes a buffer."""
    if target.family != "rocm" or _api_status(cuda_name, target) not in ("renamed", "available", "deprecated"):
        return False
    # By ROCm release: the targets' hipSPARSE entries are not comparable (Debian's are package versions).
    since, have = SOLVE_WITHOUT_BUFFER_SINCE.get(cuda_name), target.version
    if since and have:
        from packaging.version import Version

        return Version(have) < Version(since)
    return True


def solve_buffer_fixes(path: str, text: str, toks: list, target: Target) -> list[Fix]:
    """A ``cusparseSpSM_solve``/``cusparseSpSV_solve`` call (CUDA's has no buffer argument) gets the
    buffer that the analysis with the same descriptor was given, for hipSPARSE's solve, which takes one.

    What hipSPARSE does with it differs by release, and the analysis buffer is
    right for both: recent hipSPARSE ignores the solve's argument and solves with
    the buffer its analysis stored (``spsmDescr->externalBuffer``, passed to
    ``rocsparse_spsm(..., rocsparse_spsm_stage_compute, nullptr, ...)``), and
    rocSPARSE's own examples give the compute stage the buffer of the preprocess
    stage. HIPIFY passes ``nullptr``, which only the first kind accepts. The fix
    is safe when the buffer is a variable that the same top-level function does
    not write between the analysis and the solve; unsafe when that cannot be
    seen (another function, an expression, a write in between). No analysis with
    that descriptor in the file, or two with different buffers: no fix (the
    compiler reports the missing argument).
    """
    spelled = {toks[i][3] for i in spelling_index(toks).indices_of(_SOLVE_NAMES, Kind.IDENT)}
    wanted = {n for n in SOLVE_BUFFER if spelled & {n, _HIP_SPELLING[n]} and _takes_solve_buffer(n, target)}
    if not wanted:
        return []
    code = [t for t in toks if t[0] is not Kind.COMMENT]
    solves = {n: {n, _HIP_SPELLING[n]} for n in wanted}
    analyses = {SOLVE_BUFFER[n][0] for n in wanted} | {_HIP_SPELLING[SOLVE_BUFFER[n][0]] for n in wanted}
    found_analyses = _calls(code, analyses)
    found_solves = _calls(code, set().union(*solves.values()))
    starts = _top_level_starts(code, [c[0] for c in found_analyses + found_solves])
    fixes: list[Fix] = []
    for i, name, close, args in found_solves:
        cuda = next(n for n in wanted if name in solves[n])
        analysis, at, count = SOLVE_BUFFER[cuda]
        if len(args) != count:
            continue
        descr = _arg_text(code, args[-1])
        buffers = [(j, _arg_text(code, a_args[-1])) for j, a_name, a_close, a_args in found_analyses
                   if a_name in (analysis, _HIP_SPELLING[analysis]) and len(a_args) == at + 2
                   and _arg_text(code, a_args[at]) == descr]
        if len({b for _, b in buffers}) != 1:
            continue
        j, buffer = buffers[-1]
        provable = (buffer.isidentifier() and j < i and starts[j][0] == starts[i][0]
                    and not _written_between(code, buffer, j, i))
        end = code[args[-1][1]][2]
        fixes.append(Fix((Edit(path, end, end, f", {buffer}"),), Applicability.SAFE if provable else Applicability.UNSAFE,
                         f"{name}: pass {buffer}, the buffer of the analysis with {descr} (hipSPARSE before 6.0 takes it)",
                         ("helper",)))
    return fixes
