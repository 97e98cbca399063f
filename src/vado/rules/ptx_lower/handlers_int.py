"""Instruction handlers: bit fields, byte permutes, LOP3, wide multiplies and carry chains."""

from __future__ import annotations


from vado.knowledge import ptx as facts
from vado.model import Applicability
from vado.rules.ptx_lower.core import C_TYPE, Lowerer, Refusal, WIDTH, _SIMPLE, _const, _hex, cast, is_signed, paren
from vado.rules.ptx_lower.handlers_data import _need, _type


def _bfe(lw: Lowerer, ins, row) -> None:
    """``bfe``: constant position/length become shifts and masks (exact); otherwise ``__bitextract_u32/u64``
    (unsafe: HIP masks position and length to 5/6 bits, PTX clamps them to 0..255) for unsigned types, and an
    exact shift/mask block for signed ones."""
    d, a, b, c = _need(ins, 4)
    t = _type(ins)
    if t not in ("u32", "s32", "u64", "s64"):
        raise Refusal(f"{ins.mnemonic}: type")
    w = WIDTH[t]
    ut = "u32" if w == 32 else "u64"
    pos, length = _const(lw, b), _const(lw, c)
    x = lw.read(a, ut)
    if pos is not None and length is not None:
        pos &= 0xFF
        length &= 0xFF
        real = max(0, min(length, w - pos)) if pos < w else 0  # bits that come from a
        if length == 0:
            lw.write(d, t, "0")
            return
        mask = (1 << real) - 1
        body = f"({paren(x)} >> {pos})" if pos else paren(x)
        if real == 0:
            extracted = "0"
        elif real == w:
            extracted = x
        else:
            extracted = f"({body} & {_hex(mask, w)})"
        if not is_signed(t):
            lw.write(d, t, extracted)
            return
        sbit = min(pos + length - 1, w - 1)
        if real == w:
            lw.write(d, t, cast(t, x))
            return
        # The sign bit is a[min(pos+len-1, msb)]; it fills the bits above the extracted field.
        xs = lw.once(x, C_TYPE[ut])
        ext = f"(({xs} >> {pos}) & {_hex(mask, w)})" if real else "0"
        fill = _hex(((1 << w) - 1) ^ mask, w)
        lw.write(d, t, cast(t, f"{ext} | ((({xs} >> {sbit}) & 1) ? {fill} : 0)"))
        return
    if not is_signed(t):
        lw.note(Applicability.UNSAFE, "__bitextract masks position and length to 5 (6) bits; PTX clamps them to 0..255, "
                "so a length of 32 (64) or a position past the width differ")
        fn = "__bitextract_u32" if w == 32 else "__bitextract_u64"
        lw.write(d, t, f"{fn}({lw.read(a, ut, arg=True)}, {lw.read(b, 'u32', arg=True)}, {lw.read(c, 'u32', arg=True)})")
        return
    # Signed, variable: the exact PTX definition, spelled out.
    xs = lw.once(x, C_TYPE[ut])
    p = lw.once(f"{lw.read(b, 'u32')} & 0xffu", "unsigned int")
    n = lw.once(f"{lw.read(c, 'u32')} & 0xffu", "unsigned int")
    real = lw.once(f"{p} >= {w}u ? 0u : ({n} < {w}u - {p} ? {n} : {w}u - {p})", "unsigned int")
    one = "1u" if w == 32 else "1ull"
    mask = lw.once(f"{real} >= {w}u ? ~0{'u' if w == 32 else 'ull'} : (({one} << {real}) - {one})", C_TYPE[ut])
    field = f"({p} >= {w}u ? 0 : ({xs} >> {p}) & {mask})"
    sbit = f"{n} == 0u ? 0u : (({xs} >> ({p} + {n} - 1u < {w - 1}u ? {p} + {n} - 1u : {w - 1}u)) & 1u)"
    lw.write(d, t, cast(t, f"{n} == 0u ? 0 : ({field} | (({sbit}) ? ~{mask} : 0))"))


def _bfi(lw: Lowerer, ins, row) -> None:
    """``bfi``: constant position/length become masks and shifts (exact); otherwise ``__bitinsert_u32/u64``
    (unsafe for the same masking reason as ``bfe``)."""
    d, a, b, c, e = _need(ins, 5)
    t = _type(ins)
    if t not in ("b32", "b64"):
        raise Refusal(f"{ins.mnemonic}: type")
    w = WIDTH[t]
    pos, length = _const(lw, c), _const(lw, e)
    if pos is not None and length is not None:
        pos &= 0xFF
        length &= 0xFF
        real = max(0, min(length, w - pos)) if pos < w else 0
        if real == 0:
            lw.write(d, t, lw.read(b, t))
            return
        mask = ((1 << real) - 1) << pos
        ins_bits = f"({paren(lw.read(a, t))} << {pos})" if pos else paren(lw.read(a, t))
        if real == w:
            lw.write(d, t, lw.read(a, t))
            return
        lw.write(d, t, f"({paren(lw.read(b, t))} & {_hex(((1 << w) - 1) ^ mask, w)}) | ({ins_bits} & {_hex(mask, w)})")
        return
    lw.note(Applicability.UNSAFE, "__bitinsert masks position and length to 5 (6) bits; PTX clamps them to 0..255")
    fn = "__bitinsert_u32" if w == 32 else "__bitinsert_u64"
    lw.write(d, t, f"{fn}({lw.read(b, t, arg=True)}, {lw.read(a, t, arg=True)}, {lw.read(c, 'u32', arg=True)}, "
                   f"{lw.read(e, 'u32', arg=True)})")


def _prmt(lw: Lowerer, ins, row) -> None:
    """``prmt.b32`` (default mode) → ``__byte_perm``, which ignores each selector's sign-replicate bit (bit 3).
    A constant selector with such a bit becomes exact shifts and masks; a variable one is unsafe."""
    d, a, b, c = _need(ins, 4)
    sel = _const(lw, c)
    if sel is None:
        lw.note(Applicability.UNSAFE, "HIP's __byte_perm ignores the sign-replicate bit (bit 3) of each selector nibble")
        lw.write(d, "b32", f"__byte_perm({lw.read(a, 'b32', arg=True)}, {lw.read(b, 'b32', arg=True)}, "
                           f"{lw.read(c, 'b32', arg=True)})")
        return
    sel &= 0xFFFF
    if not sel & 0x8888:
        lw.write(d, "b32", f"__byte_perm({lw.read(a, 'b32', arg=True)}, {lw.read(b, 'b32', arg=True)}, {_hex(sel, 32)})")
        return
    pair = lw.once(f"((unsigned long long){paren(lw.read(b, 'b32'))} << 32) | {lw.read(a, 'b32')}", "unsigned long long")
    parts = []
    for k in range(4):
        nib = sel >> (4 * k) & 0xF
        byte = nib & 7
        if nib & 8:
            piece = f"(({pair} >> {8 * byte + 7}) & 1 ? 0xffu : 0u)"
        else:
            piece = f"(unsigned int)(({pair} >> {8 * byte}) & 0xffu)"
        parts.append(piece + (f" << {8 * k}" if k else ""))
    lw.write(d, "b32", " | ".join(f"({p})" for p in parts))


def _lop3(lw: Lowerer, ins, row) -> None:
    d, a, b, c, lut_text = _need(ins, 5)
    if "b32" not in ins.modifiers:
        raise Refusal(f"{ins.mnemonic}: type")
    lut = _const(lw, lut_text)
    if lut is None:
        raise Refusal("lop3 with a variable truth table")
    xs = [lw.read(x, "b32") for x in (a, b, c)]
    xs = [x if _SIMPLE.match(x) else paren(x) for x in xs]
    lw.write(d, "b32", facts.lop3_expression(lut, *xs))


def _mul_wide(lw: Lowerer, ins, row) -> None:
    """``mul.wide`` / ``mad.wide``: a product at twice the width (exact)."""
    t = _type(ins)
    wide = {"u16": "u32", "s16": "s32", "u32": "u64", "s32": "s64"}.get(t)
    if wide is None:
        raise Refusal(f"{ins.mnemonic}: type")
    if ins.opcode == "mul":
        d, a, b = _need(ins, 3)
        lw.write(d, wide, f"{cast(wide, lw.read(a, t))} * {cast(wide, lw.read(b, t))}")
    else:
        d, a, b, c = _need(ins, 4)
        lw.write(d, wide, f"{cast(wide, lw.read(a, t))} * {cast(wide, lw.read(b, t))} + {lw.read(c, wide)}")


def _mad_hi(lw: Lowerer, ins, row) -> None:
    """``mad.hi``: the high half of the product plus c (``__umulhi(a, b) + c``), wrapping like PTX."""
    d, a, b, c = _need(ins, 4)
    t = _type(ins)
    fn = {"u32": "__umulhi", "s32": "__mulhi", "u64": "__umul64hi", "s64": "__mul64hi"}.get(t)
    if fn is None or "sat" in ins.modifiers:
        raise Refusal(f"{ins.mnemonic}: type or saturation")
    ut = "u32" if WIDTH[t] == 32 else "u64"
    lw.write(d, t, f"{cast(ut, fn + '(' + lw.read(a, t, arg=True) + ', ' + lw.read(b, t, arg=True) + ')')} + "
                   f"{lw.read(c, ut)}")


def _carry(lw: Lowerer, ins, row) -> None:
    """Carry chains: ``add.cc``, ``addc[.cc]``, ``sub.cc``, ``subc[.cc]``, ``mad{.lo,.hi}.cc``, ``madc``.

    Each step is one addition at twice the width (``unsigned __int128`` for
    64-bit operands) with the carry (borrow, for subtraction) kept in ``_ptx_cc``.
    Exact; the compiler turns it back into add-with-carry instructions. A chain
    that reads a carry set by an earlier asm statement is refused: nvcc does not
    keep CC.CF across asm statements either.
    """
    if not lw.block:
        raise Refusal("carry chains need a block")
    t = _type(ins)
    if t not in ("u32", "s32", "u64", "s64"):
        raise Refusal(f"{ins.mnemonic}: type")
    w = WIDTH[t]
    ut = "u32" if w == 32 else "u64"
    wide = "unsigned long long" if w == 32 else "unsigned __int128"
    op = ins.opcode
    carry_in = op in ("addc", "subc", "madc")
    carry_out = "cc" in ins.modifiers
    if carry_in and lw.cc_state != "set":
        raise Refusal(f"{ins.mnemonic} reads a carry no instruction of this asm statement set")
    if op in ("add", "addc"):
        d, a, b = _need(ins, 3)
        expr = f"({wide}){paren(lw.read(a, ut))} + {lw.read(b, ut)}"
    elif op in ("sub", "subc"):
        d, a, b = _need(ins, 3)
        expr = f"({wide}){paren(lw.read(a, ut))} - {lw.read(b, ut)}"
    else:  # mad / madc
        d, a, b, c = _need(ins, 4)
        if "hi" in ins.modifiers:
            fn = "__umulhi" if w == 32 else "__umul64hi"
            prod = f"{fn}({lw.read(a, ut, arg=True)}, {lw.read(b, ut, arg=True)})"
        elif "lo" in ins.modifiers:
            prod = f"({C_TYPE[ut]})({lw.read(a, ut)} * {lw.read(b, ut)})"
        else:
            raise Refusal(f"{ins.mnemonic}: needs .lo or .hi")
        if is_signed(t) and "hi" in ins.modifiers:
            raise Refusal(f"{ins.mnemonic}: signed high product")
        expr = f"({wide}){prod} + {lw.read(c, ut)}"
    if carry_in:
        expr += " - _ptx_cc" if op == "subc" else " + _ptx_cc"
    if "_ptx_cc" not in lw.decls_text():
        lw.decls.append("unsigned int _ptx_cc = 0;")
    if not carry_out:
        lw.write(d, t, f"({C_TYPE[t]})({expr})")
        return
    s = f"_ptx_s{lw.temps}"
    lw.temps += 1
    lw.emit(f"{wide} {s} = {expr};")
    lw.write(d, t, f"({C_TYPE[t]}){s}")
    lw.emit(f"_ptx_cc = (unsigned int)({s} >> {w}) & 1u;")
    lw.cc_state = "set"
