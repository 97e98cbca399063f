"""WARP006, WARP007: warp reductions written for 32 lanes: shuffle loops whose offsets start at 16,
and warp-synchronous shared-memory code without ``__syncwarp`` (the unrolled ``tid < 32`` reduction).
"""

from __future__ import annotations

import re
from typing import Iterable

from vado.model import Applicability, Effort, Finding, Fix, Severity, Verdict
from vado.rules import cuda_syntax as cs
from vado.rules.base import FileContext, Rule, verdicts_for
from vado.rules.warp.common import _WARP_NOTE, _idents, _is_laneish
from vado.rules.warp.modes import emulated, wave_verdicts
from vado.scan.lexer import Kind


class ShuffleReductionFrom16(Rule):
    """Warp shuffle loops whose offsets start at 16: a 32-lane reduction or scan.

    What it does
    ------------
    Finds ``for`` loops whose counter starts at 16 and halves (``o >>= 1``,
    ``o /= 2``) or that count 1, 2, 4 … up to 32 (``o < 32``, ``o <= 16``), and
    whose body calls ``__shfl_down*``/``__shfl_xor*``/``__shfl_up*`` with the
    counter as the offset.

    Why is this bad?
    ----------------
    On a 64-lane wavefront such a loop reduces lanes 0-31 and 32-63 separately:
    lane 0 ends with half the sum. It is right only if the surrounding code also
    treats each wavefront as two 32-lane halves (``lane = tid & 31``, one
    result per half).

    Example
    -------
    .. code-block:: cuda

        for (int offset = 16; offset > 0; offset >>= 1)
            v += __shfl_down_sync(0xffffffff, v, offset);

    Use instead
    -----------
    .. code-block:: cuda

        for (int offset = warpSize / 2; offset > 0; offset >>= 1)
            v += __shfl_down_sync(0xffffffffffffffffull, v, offset);

    Fix safety
    ----------
    vado offers ``16`` → ``warpSize / 2`` (or ``32`` → ``warpSize`` as the
    bound of an ascending loop) as an unsafe fix: the reduction then spans the
    whole wavefront, which is wrong if other code still collects one result per
    32 lanes.

    Wave mode: under ``vado port --wave warp32`` (the default) the program
    keeps CUDA's 32-lane warps (WARP009), so this pattern is right as it
    stands: ROCm targets get "moves as is" and no fix. The fix above is
    what ``--wave native`` applies.

    References
    ----------
    - HIP warp shuffle functions: https://github.com/ROCm/HIP/blob/c5e11fcac8249ce4f7e70157588ff9661a870b59/docs/reference/kernel_language.rst
    """

    code = "WARP006"
    can_fix = True
    name = "shuffle-reduction-from-16"
    severity = Severity.HIGH
    file_kinds = cs.CUDA_CXX_KINDS

    _SHUFFLES = frozenset({"__shfl_down_sync", "__shfl_xor_sync", "__shfl_up_sync", "__shfl_down", "__shfl_xor", "__shfl_up"})
    triggers = _SHUFFLES

    def check(self, ctx: FileContext) -> Iterable[Finding]:
        view = cs.device_view(ctx)
        # A loop matches only when its body calls a shuffle: no shuffle, no finding.
        if not view.ident_indices(self._SHUFFLES):
            return
        toks, pairs = view.tokens, view.pairs
        n = len(toks)
        covered = emulated(ctx)
        verdicts = wave_verdicts(ctx, fixable=False, covered=covered)
        for i in view.ident_indices(("for",)):
            tok = toks[i]
            if i + 1 >= n or toks[i + 1][3] != "(" or (i + 1) not in pairs:
                continue
            close = pairs[i + 1]
            header = toks[i + 2:close]
            texts = [t[3] for t in header]
            semis = [k for k, t in enumerate(texts) if t == ";"]
            if len(semis) != 2:
                continue
            init, cond, step = header[:semis[0]], header[semis[0] + 1:semis[1]], header[semis[1] + 1:]
            eq = [k for k, t in enumerate(init) if t[3] == "="]
            if not eq:
                continue
            var_tok = init[eq[0] - 1]
            start_tok = init[eq[0] + 1] if eq[0] + 1 < len(init) else None
            if var_tok[0] is not Kind.IDENT or start_tok is None or start_tok[0] is not Kind.NUMBER:
                continue
            start_val = cs.int_value(start_tok[3])
            step_text = "".join(t[3] for t in step)
            var = var_tok[3]
            edit_tok = None
            if start_val == 16 and re.search(rf"{re.escape(var)}(>>=1|/=2|={re.escape(var)}>>1|={re.escape(var)}/2)", step_text):
                edit_tok, repl = start_tok, "warpSize / 2"
            elif start_val == 1 and re.search(rf"{re.escape(var)}(<<=1|\*=2|={re.escape(var)}<<1|={re.escape(var)}\*2)", step_text):
                nums = [t for t in cond if t[0] is Kind.NUMBER]
                cond_text = "".join(t[3] for t in cond)
                if len(nums) == 1 and ((cs.int_value(nums[0][3]) == 32 and "<" in cond_text and "<=" not in cond_text)
                                       or (cs.int_value(nums[0][3]) == 16 and "<=" in cond_text)):
                    edit_tok = nums[0]
                    repl = "warpSize" if cs.int_value(nums[0][3]) == 32 else "warpSize / 2"
            if edit_tok is None:
                continue
            # the body: a braced block or one statement
            b0 = close + 1
            if b0 < n and toks[b0][3] == "{" and b0 in pairs:
                body = range(b0, pairs[b0])
            else:
                e = b0
                while e < n and toks[e][3] != ";":
                    e += 1
                body = range(b0, e)
            uses = False
            for k in body:
                if toks[k][3] in self._SHUFFLES and k + 1 < n and (k + 1) in pairs:
                    args = cs.split_args(toks, k + 1, pairs[k + 1])
                    offset_arg = args[2] if toks[k][3].endswith("_sync") and len(args) >= 3 else (args[1] if len(args) >= 2 else None)
                    if offset_arg and var in _idents(toks, *offset_arg):
                        uses = True
                        break
            if not uses:
                continue
            fix = None if covered else Fix((ctx.edit(edit_tok[1], edit_tok[2], repl),), Applicability.UNSAFE,
                                           f"let the shuffle loop span the wavefront ({repl})", ("warp",))
            yield self.finding(ctx, tok[1], toks[close][2], f"shuffle loop over `{var}` covers 32 lanes; a 64-lane wavefront is reduced in two halves",
                               verdicts, fix=fix, effort=Effort(lines=2, constructs=1, hours=0.5), data={"counter": var, **_WARP_NOTE})


class ImplicitWarpSynchronousReduction(Rule):
    """Warp-synchronous shared-memory code without ``__syncwarp``: the unrolled ``tid < 32`` reduction.

    What it does
    ------------
    Finds ``if (tid < 32)`` (or ``<= 31``) blocks that update a shared or
    ``volatile`` array from offsets 32, 16, 8 … (``sdata[tid] += sdata[tid + 16]``)
    with no ``__syncwarp()``/``__syncthreads()`` between the steps.

    Why is this bad?
    ----------------
    The code relies on the 32 lanes running in lockstep. AMD wavefronts do run
    in lockstep (32 lanes of a 64-lane wavefront included), so on ROCm, SCALE and
    ZLUDA it works as it did before Volta. SYCL sub-groups are 8-32 lanes and
    work-items of different sub-groups are not in lockstep, so on oneAPI it
    races. Even on NVIDIA it is undefined behaviour since independent thread
    scheduling (Volta).

    Example
    -------
    .. code-block:: cuda

        if (tid < 32) {
            volatile float* s = sdata;
            s[tid] += s[tid + 32];
            s[tid] += s[tid + 16];
        }

    Use instead
    -----------
    .. code-block:: cuda

        if (tid < 32) {
            float v = sdata[tid] + sdata[tid + 32];
            for (int o = 16; o > 0; o >>= 1) v += __shfl_down(v, o, 32);
            if (tid == 0) sdata[0] = v;
        }

    Fix safety
    ----------
    No automatic fix: the rewrite restructures the reduction.

    References
    ----------
    - HIP warp cross-lane functions (lockstep): https://github.com/ROCm/HIP/blob/c5e11fcac8249ce4f7e70157588ff9661a870b59/docs/reference/kernel_language.rst
    """

    code = "WARP007"
    name = "implicit-warp-synchronous-reduction"
    severity = Severity.LOW
    file_kinds = cs.CUDA_CXX_KINDS

    @staticmethod
    def _verdict(target) -> Verdict | None:
        if target.family in ("rocm", "scale", "zluda"):
            return Verdict.MOVES_AS_IS
        if target.family == "oneapi":
            return Verdict.MANUAL
        return None

    def check(self, ctx: FileContext) -> Iterable[Finding]:
        view = cs.device_view(ctx)
        toks = view.tokens
        n = len(toks)
        # The condition ends in ``< 32`` or ``<= 31``: start from those literals and
        # walk out to the ``if`` whose parenthesis the literal closes.
        candidates = []
        pairs = None
        for k in view.number_indices(32, 31):
            if k + 1 < n and toks[k + 1][3] == ")":
                if pairs is None:
                    pairs = view.pairs
                o = pairs.get(k + 1)
                if o is not None and o < k + 1 and o >= 1 and toks[o - 1][3] == "if":
                    candidates.append(o - 1)
        for i in candidates:
            tok = toks[i]
            if i + 1 >= n or toks[i + 1][3] != "(" or (i + 1) not in pairs:
                continue
            close = pairs[i + 1]
            cond = toks[i + 2:close]
            if len(cond) < 3:
                continue
            cmp_ok = (cond[-2][3] == "<" and cs.int_value(cond[-1][3]) == 32) or (cond[-2][3] == "<=" and cs.int_value(cond[-1][3]) == 31)
            if not cmp_ok or not _is_laneish(_idents(toks, i + 2, close - 2)):
                continue
            b0 = close + 1
            if b0 >= n or toks[b0][3] != "{" or b0 not in pairs:
                continue
            body_end = pairs[b0]
            steps = 0
            synced = False
            for k in range(b0, body_end):
                t = toks[k][3]
                if t in ("__syncwarp", "__syncthreads", "__syncthreads_count"):
                    synced = True
                if t == "[" and k in pairs:
                    inner = toks[k + 1:pairs[k]]
                    if len(inner) >= 3 and inner[-2][3] == "+" and cs.int_value(inner[-1][3]) in (32, 16, 8, 4, 2, 1) \
                            and _is_laneish(_idents(toks, k + 1, pairs[k])):
                        steps += 1
            if steps < 2 or synced:
                continue
            verdicts = verdicts_for(ctx, self._verdict)
            yield self.finding(ctx, tok[1], toks[close][2],
                               f"{steps} shared-memory steps under `{cs.text_of(ctx.text, toks, i + 2, close)}` rely on warp lockstep without __syncwarp",
                               verdicts, effort=Effort(lines=steps, constructs=1, hours=0.5), data={"steps": steps})
