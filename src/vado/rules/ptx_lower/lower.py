"""The handler table, one instruction at a time, and lower(): an asm statement to C++ or a Refusal."""

from __future__ import annotations

import re

from vado.knowledge import ptx as facts
from vado.model import Applicability, Target
from vado.rules.ptx_lower.core import Lowerer, Lowering, Refusal, paren
from vado.rules.ptx_lower.handlers_data import _cvt, _ld, _mov, _st, _template
from vado.rules.ptx_lower.handlers_int import _bfe, _bfi, _carry, _lop3, _mad_hi, _mul_wide, _prmt
from vado.rules.ptx_lower.handlers_misc import _arith_misc, _atom, _bar, _nanosleep, _pred_logic
from vado.rules.ptx_lower.handlers_warp import _activemask, _shfl, _vote


HANDLERS = {
    "laneid": _mov, "clock": _mov, "clock64": _mov, "globaltimer": _mov, "tid": _mov, "ntid": _mov, "ctaid": _mov,
    "nctaid": _mov, "lanemask": _mov, "smid": _mov, "warpid": _mov, "mov": _mov,
    "ld-nc": _ld, "ld-stream": _ld, "ld-cv": _ld, "ld": _ld, "ld-vector": _ld,
    "st-stream": _st, "st": _st,
    "cvt-f16-f32": _cvt, "cvt-f32-f16": _cvt, "cvt-f16x2": _cvt, "cvt-bf16": _cvt, "cvt-round-f32": _cvt,
    "cvt-rn-f32-s32": _cvt, "cvt": _cvt,
    "bfe-u32": _bfe, "bfe-u64": _bfe, "bfe-signed": _bfe, "bfi-b32": _bfi, "bfi-b64": _bfi,
    "prmt": _prmt, "lop3": _lop3,
    "mul-wide-u32": _mul_wide, "mul-wide-s32": _mul_wide, "mul-wide": _mul_wide, "mad-wide": _mul_wide, "mad-hi": _mad_hi,
    "carry": _carry, "carry-sub": _carry, "carry-mad": _carry, "addc": _carry, "subc": _carry, "madc": _carry,
    "shfl-sync-idx": _shfl, "shfl-sync-up": _shfl, "shfl-sync-down": _shfl, "shfl-sync-bfly": _shfl, "shfl": _shfl,
    "vote-ballot": _vote, "vote": _vote, "activemask": _activemask,
    "arith-misc": _arith_misc, "pred-logic": _pred_logic,
    "atom-add": _atom, "red": _atom, "bar-sync-0": _bar, "nanosleep": _nanosleep,
}


def _one(lw: Lowerer, ins, row) -> None:
    if row is None or row.kind != "portable":
        raise Refusal(f"{ins.mnemonic} has no portable idiom")
    handler = HANDLERS.get(row.id)
    if handler is None:
        if row.value is None and row.effect is None:
            raise Refusal(f"{ins.mnemonic}: {row.hip} (no automatic rewrite)")
        handler = _template
    start = len(lw.body)
    handler(lw, ins, row)
    lw.note(row.applicability, row.note if row.applicability is not Applicability.SAFE else "")
    if row.id not in lw.idioms:
        lw.idioms.append(row.id)
    if ins.predicate is not None:
        neg = ins.predicate.startswith("!")
        cond = lw.read(ins.predicate.lstrip("!"), "pred")
        cond = f"!{paren(cond)}" if neg else cond
        stmts = lw.body[start:]
        del lw.body[start:]
        if not lw.block:
            raise Refusal("a guarded instruction needs a block")
        inner = stmts[0] if len(stmts) == 1 else "{ " + " ".join(stmts) + " }"
        lw.emit(f"if ({cond}) {inner}")


def _run(asm, target: Target, block: bool, wave: str = "warp32") -> Lowerer:
    lw = Lowerer(asm, target, block=block, wave=wave)
    if asm.program.directive_texts:
        if not block:
            raise Refusal("registers need a block")
        lw.declare_registers()
    for ins in asm.instructions:
        _one(lw, ins, facts.lookup(ins))
    missing = [o.index for o in lw.ops if o.index not in lw.used]
    if missing:
        raise Refusal("operand " + ", ".join(f"%{i}" for i in missing) + " is never used by the template")
    for o in lw.ops:
        if o.output and not o.read_write and o.index not in lw.written:
            raise Refusal(f"output %{o.index} is never written")
    return lw


def lower(asm, target: Target, text: str, wave: str = "warp32") -> Lowering | Refusal:
    """The C++ for ``asm`` (a :class:`vado.rules.cuda_syntax.AsmStatement` of ``text``) on ``target``.

    ``wave`` is the port's wave mode (:mod:`vado.rules.warp`): under ``warp32`` on a ROCm
    target, ``%laneid``, ``%lanemask_*``, ``shfl``, ``vote`` and ``activemask`` become the
    ``vado_*32`` helpers of :mod:`vado.port.wave` (CUDA's 32-lane warp, exact: safe).

    Returns a :class:`Refusal` with the reason when the template holds
    something vado cannot rewrite exactly (labels, unknown instructions,
    vector registers, a carry read across statements …).
    """
    prog = asm.program
    if asm.opaque:
        return Refusal("the template is built from macros")
    if asm.in_directive:
        return Refusal("the asm is part of a macro definition; rewrite the macro by hand")
    if prog.labels or prog.unparsed or not prog.instructions:
        return Refusal("labels, branches or text vado cannot parse")
    if "goto" in text[asm.start:asm.template_start]:
        return Refusal("asm goto")
    try:
        try:
            lw = _run(asm, target, block=False, wave=wave)
            if not lw.body and not lw.decls:
                return Lowering("(void)0", asm.end, lw.applicability, tuple(lw.idioms), tuple(lw.notes))
            if len(lw.body) == 1 and not lw.decls and not lw.prologue:
                stmt = lw.body[0]
                return Lowering(stmt[:-1] if stmt.endswith(";") else f"{stmt}", asm.end, lw.applicability,
                                tuple(lw.idioms), tuple(lw.notes))
        except Refusal:
            pass
        if asm.stmt_end == asm.end or not _statement_position(text, asm.start):
            return Refusal("the asm is not a statement of its own, so no block can replace it")
        lw = _run(asm, target, block=True, wave=wave)
    except Refusal as refusal:
        return refusal
    lines = lw.decls + lw.prologue + lw.body + lw.epilogue
    indent = _indent_of(text, asm.start)
    code = "{\n" + "".join(f"{indent}  {s}\n" for s in lines) + indent + "}"
    return Lowering(code, asm.stmt_end, lw.applicability, tuple(lw.idioms), tuple(lw.notes))


def _indent_of(text: str, offset: int) -> str:
    line_start = text.rfind("\n", 0, offset) + 1
    m = re.match(r"[ \t]*", text[line_start:offset])
    return m.group(0) if m else ""


def _statement_position(text: str, offset: int) -> bool:
    """True when the code before ``offset`` ends a statement (so a block may stand here)."""
    i = offset - 1
    while i >= 0:
        # Skip whitespace and comments backwards.
        if text[i].isspace():
            i -= 1
            continue
        if text[i] == "/" and i > 0 and text[i - 1] == "*":
            j = text.rfind("/*", 0, i - 1)
            if j < 0:
                return False
            i = j - 1
            continue
        line_start = text.rfind("\n", 0, i) + 1
        k = text.find("//", line_start, i + 1)
        if k >= 0 and '"' not in text[line_start:k]:
            i = k - 1
            continue
        break
    if i < 0:
        return True
    ch = text[i]
    if ch in ";{}:":
        return True
    if ch == ")":
        return True  # if (...) / for (...) / while (...)
    return text[max(0, i - 3):i + 1] == "else" or text[max(0, i - 1):i + 1] == "do"
