"""Instruction handlers: predicates, misc arithmetic, atomics, barriers and nanosleep."""

from __future__ import annotations

from vado.model import Applicability
from vado.rules.ptx_lower.core import C_TYPE, Lowerer, Refusal, _const, is_float, paren
from vado.rules.ptx_lower.handlers_data import _need, _type


def _setp(lw: Lowerer, ins, row) -> None:
    """``setp.CMP.TYPE p, a, b`` (optionally ``.and/.or/.xor`` with a third predicate)."""
    t = _type(ins)
    cmp = next((m for m in ins.modifiers if m in _CMP), None)
    if cmp is None or "ftz" in ins.modifiers:
        raise Refusal(f"{ins.mnemonic}: comparison")
    ops = ins.operands
    combine = next((m for m in ins.modifiers if m in ("and", "or", "xor")), None)
    if not 3 <= len(ops) <= 4 or (len(ops) == 4) != (combine is not None):
        raise Refusal(f"{ins.mnemonic}: operands")
    d = ops[0]
    if "|" in d:
        raise Refusal("setp with two destinations")
    x, y = lw.read(ops[1], t), lw.read(ops[2], t)
    op = _CMP[cmp]
    if is_float(t):
        if cmp in ("equ", "neu", "ltu", "leu", "gtu", "geu"):
            value = f"!({paren(x)} {_CMP[cmp[:-1] if cmp != 'neu' else 'eq']} {paren(y)})" if cmp != "neu" else \
                f"!({paren(x)} == {paren(y)})"
            if cmp != "neu":
                inv = {"equ": "!=", "ltu": ">=", "leu": ">", "gtu": "<=", "geu": "<"}[cmp]
                value = f"!({paren(x)} {inv} {paren(y)})"
        elif cmp == "num":
            value = f"({paren(x)} == {paren(x)} && {paren(y)} == {paren(y)})"
        elif cmp == "nan":
            value = f"({paren(x)} != {paren(x)} || {paren(y)} != {paren(y)})"
        elif cmp == "ne":
            value = f"({paren(x)} < {paren(y)} || {paren(x)} > {paren(y)})"  # ordered: false on NaN
        else:
            value = f"{paren(x)} {op} {paren(y)}"
    else:
        if cmp in ("lo", "ls", "hi", "hs"):
            t2 = "u" + t[1:] if not t.startswith("u") else t
            x, y = lw.read(ops[1], t2), lw.read(ops[2], t2)
        value = f"{paren(x)} {op} {paren(y)}"
    if combine:
        value = f"({value}) {_COMBINE[combine]} {paren(lw.read(ops[3], 'pred'))}"
    lw.write(d, "pred", value)


_CMP = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">=", "lo": "<", "ls": "<=", "hi": ">",
        "hs": ">=", "equ": "==", "neu": "!=", "ltu": "<", "leu": "<=", "gtu": ">", "geu": ">=", "num": "", "nan": ""}
_COMBINE = {"and": "&&", "or": "||", "xor": "!="}


def _arith_misc(lw: Lowerer, ins, row) -> None:
    """``setp``, ``selp``, integer ``min``/``max``; the rest of the row stays for a person."""
    if ins.opcode == "setp":
        _setp(lw, ins, row)
        return
    if ins.opcode == "selp":
        d, a, b, p = _need(ins, 4)
        t = _type(ins)
        lw.write(d, t, f"{paren(lw.read(p, 'pred'))} ? {paren(lw.read(a, t))} : {paren(lw.read(b, t))}")
        return
    if ins.opcode in ("min", "max") and _type(ins) in ("u32", "s32", "u64", "s64", "u16", "s16"):
        d, a, b = _need(ins, 3)
        t = _type(ins)
        x, y = lw.once(lw.read(a, t), C_TYPE[t]), lw.once(lw.read(b, t), C_TYPE[t])
        lw.write(d, t, f"{x} {'<' if ins.opcode == 'min' else '>'} {y} ? {x} : {y}")
        return
    raise Refusal(f"{ins.mnemonic} has no automatic rewrite")


def _pred_logic(lw: Lowerer, ins, row) -> None:
    if "pred" not in ins.modifiers:
        raise Refusal(f"{ins.mnemonic}: type")
    if ins.opcode == "not":
        d, a = _need(ins, 2)
        lw.write(d, "pred", f"!{paren(lw.read(a, 'pred'))}")
        return
    d, a, b = _need(ins, 3)
    op = {"and": "&&", "or": "||", "xor": "!="}[ins.opcode]
    lw.write(d, "pred", f"{paren(lw.read(a, 'pred'))} {op} {paren(lw.read(b, 'pred'))}")


def _atom(lw: Lowerer, ins, row) -> None:
    """``atom``/``red`` ``.add`` on ``.global``/``.shared``/generic memory → ``atomicAdd`` (relaxed, device scope, as
    PTX's default); ``.sys`` → ``atomicAdd_system``. Ordering qualifiers other than ``.relaxed`` stay manual."""
    mods = set(ins.modifiers)
    if mods & {"acquire", "release", "acq_rel", "cluster", "v2", "v4", "v8", "f16", "f16x2", "bf16", "bf16x2", "noftz"}:
        raise Refusal(f"{ins.mnemonic}: ordering or vector variant")
    if "add" not in mods:
        raise Refusal(f"{ins.mnemonic}: only add is rewritten automatically")
    t = _type(ins)
    t = {"b32": "u32", "b64": "u64"}.get(t, t)
    if t not in ("u32", "s32", "u64", "f32", "f64"):
        raise Refusal(f"{ins.mnemonic}: type")
    fn = "atomicAdd_system" if "sys" in mods else "atomicAdd"
    if ins.opcode == "red":
        a, v = _need(ins, 2)
        lw.emit(f"{fn}(({C_TYPE[t]}*){lw.address(a)}, {lw.read(v, t, arg=True)});")
        return
    d, a, v = _need(ins, 3)
    lw.write(d, t, f"{fn}(({C_TYPE[t]}*){lw.address(a)}, {lw.read(v, t, arg=True)})")


def _bar(lw: Lowerer, ins, row) -> None:
    """``bar.sync 0`` / ``barrier.sync 0`` (no thread count) → ``__syncthreads()`` (exact)."""
    if len(ins.operands) != 1 or _const(lw, ins.operands[0]) != 0:
        raise Refusal("named barrier or thread count")
    lw.emit("__syncthreads();")


#: Clock rate assumed for nanosleep estimates: the middle of the 1.0-2.1 GHz range of CDNA parts.
SLEEP_GHZ = 1.5
#: Clocks per unit of ``s_sleep`` (gfx9 and later: 64 clocks).
SLEEP_UNIT = 64


def _nanosleep(lw: Lowerer, ins, row) -> None:
    """``nanosleep.u32 t`` → ``__builtin_amdgcn_s_sleep(N)``, N = round(t x 1.5 GHz / 64 clocks), clamped to 1..127.

    PTX promises a sleep anywhere in [0, 2t]; at 1.5 GHz the estimate lands in
    [0.7t, 1.5t] for clocks between 1.0 and 2.1 GHz, so a constant is safe.
    ``s_sleep`` needs an immediate: a variable t becomes a loop of ``s_sleep(1)``
    (about 43 ns each), marked unsafe because the loop itself adds time.
    """
    (t,) = _need(ins, 1)
    v = _const(lw, t)
    if v is not None:
        units = max(1, round(v * SLEEP_GHZ / SLEEP_UNIT))
        if units <= 127:
            lw.emit(f"__builtin_amdgcn_s_sleep({units});")
        else:
            if not lw.block:
                raise Refusal("long sleeps need a block")
            lw.emit(f"for (int _ptx_i = 0; _ptx_i < {-(-units // 127)}; ++_ptx_i) __builtin_amdgcn_s_sleep(127);")
        return
    if not lw.block:
        raise Refusal("a variable sleep needs a block")
    lw.note(Applicability.UNSAFE, "s_sleep takes an immediate; a variable duration becomes a loop of s_sleep(1), "
            "about 64 clocks each")
    ns = lw.read(t, "u32")
    per = SLEEP_UNIT / SLEEP_GHZ
    lw.emit(f"for (unsigned int _ptx_i = 0; _ptx_i < {paren(ns)} / {int(per)}u; ++_ptx_i) __builtin_amdgcn_s_sleep(1);")
