"""Instruction handlers: shuffles, votes and the active mask (exact 32-lane helpers under warp32)."""

from __future__ import annotations

from vado.model import Applicability
from vado.rules.ptx_lower.core import Lowerer, Refusal, _const, _hex, paren
from vado.rules.ptx_lower.handlers_data import _need


def _shfl(lw: Lowerer, ins, row) -> None:
    """``shfl[.sync].{idx,up,down,bfly}.b32`` → ``__shfl*_sync`` with a 64-bit mask where the target has the
    sync builtins, else ``__shfl*``; the segment width comes from the ``c`` operand (must be a constant).

    Unsafe: the shuffle itself is exact within each 32-lane segment (width 32),
    but a warp is 64 lanes on CDNA and a 32-bit member mask cannot name lanes
    32-63 (a full mask becomes the full 64-bit mask)."""
    sync = "sync" in ins.modifiers
    ops = ins.operands
    if len(ops) != (5 if sync else 4):
        raise Refusal(f"{ins.mnemonic} with {len(ops)} operands")
    d, a, b, c = ops[:4]
    if "|" in d:
        raise Refusal("shfl with a predicate destination (d|p)")
    mode = next((m for m in ("idx", "up", "down", "bfly") if m in ins.modifiers), None)
    if mode is None or "b32" not in ins.modifiers:
        raise Refusal(f"{ins.mnemonic}: mode or type")
    cval = _const(lw, c)
    if cval is None:
        raise Refusal("shfl with a variable clamp/segment operand")
    seg, clamp = cval >> 8 & 0x1F, cval & 0x1F
    width = 32 - seg
    if width & (width - 1) or clamp != (0 if mode == "up" else 0x1F) and not (clamp == width - 1 and mode != "up"):
        raise Refusal(f"shfl clamp/segment value {c} is not a CUDA width")
    fn = {"idx": "__shfl", "up": "__shfl_up", "down": "__shfl_down", "bfly": "__shfl_xor"}[mode]
    src_slot_float = _is_float_operand(lw, a)
    t = "f32" if src_slot_float else "b32"
    args = [lw.read(a, t, arg=True), lw.read(b, "u32", arg=True), str(width)]
    if lw.warp32:
        # CUDA's shuffle within the caller's 32-lane warp: exact (vado.port.wave).
        helper = "vado" + fn[1:] + ("_sync32" if sync else "32")
        mask = [lw.read(ops[4], "b32", arg=True)] if sync else []
        lw.write(d, t, f"{helper}({', '.join(mask + args)})")
        return
    lw.note(Applicability.UNSAFE, "a warp is 64 lanes on CDNA: the shuffle works within 32-lane segments (width 32), "
            "but code around it that assumes 32 lanes needs review")
    if sync and lw.sync_builtins():
        value = f"{fn}_sync({_mask64(lw, ops[4])}, {', '.join(args)})"
    else:
        if sync:
            _mask_used(lw, ops[4])
        value = f"{fn}({', '.join(args)})"
    lw.write(d, t, value)


def _is_float_operand(lw: Lowerer, text: str) -> bool:
    op = lw._ref(text)
    return op is not None and op.letter == "f"


def _mask64(lw: Lowerer, text: str) -> str:
    """A 64-bit member mask for the HIP ``*_sync`` builtins."""
    v = _const(lw, text)
    if v is not None:
        if v & 0xFFFFFFFF == 0xFFFFFFFF:
            return "0xffffffffffffffffull"
        return f"{_hex(v, 32)}ull"
    lw.note(Applicability.DISPLAY_ONLY, "a variable 32-bit member mask names lanes 0-31 only; on wave64 the mask "
            "must be rebuilt for 64 lanes")
    return f"(unsigned long long){paren(lw.read(text, 'b32'))}"


def _mask_used(lw: Lowerer, text: str) -> None:
    """The non-sync builtins take no mask: dropping a full one keeps the meaning, a partial one does not."""
    v = _const(lw, text)
    lw.read(text, "b32")  # marks the operand used
    if v is None or v & 0xFFFFFFFF != 0xFFFFFFFF:
        lw.note(Applicability.DISPLAY_ONLY, "this HIP has no *_sync warp builtins and the member mask is not all "
                "lanes: the rewrite drops the mask")


def _vote(lw: Lowerer, ins, row) -> None:
    """``vote[.sync].{all,any,uni}.pred`` / ``.ballot.b32`` → ``__all``/``__any``/``__ballot`` (``*_sync`` with a
    64-bit mask where the target has them). Unsafe: the vote covers 64 lanes on CDNA and ballot results are
    64-bit; a 32-bit destination keeps lanes 0-31."""
    sync = "sync" in ins.modifiers
    ops = ins.operands
    if len(ops) != (3 if sync else 2):
        raise Refusal(f"{ins.mnemonic} with {len(ops)} operands")
    d, p = ops[0], ops[1]
    mode = next((m for m in ("all", "any", "uni", "ballot") if m in ins.modifiers), None)
    if mode is None:
        raise Refusal(f"{ins.mnemonic}: mode")
    pred = lw.read(p, "pred")
    if lw.warp32:
        # The vote over the caller's 32-lane warp, ballot in 32 bits: exact (vado.port.wave).
        mask = lw.read(ops[2], "b32", arg=True) + ", " if sync else ""
        suffix = "_sync32" if sync else "32"
        if mode == "ballot":
            lw.write(d, "b32", f"vado_ballot{suffix}({mask}{pred})")
        elif mode == "uni":
            q = lw.once(pred, "bool")
            lw.write(d, "pred", f"vado_all{suffix}({mask}{q}) || !vado_any{suffix}({mask}{q})")
        else:
            lw.write(d, "pred", f"vado_{mode}{suffix}({mask}{pred}) != 0")
        return
    use_sync = lw.sync_builtins() and sync
    if sync and not lw.sync_builtins():
        _mask_used(lw, ops[2])
    mask = _mask64(lw, ops[2]) + ", " if use_sync else ""
    suffix = "_sync" if use_sync else ""
    lw.note(Applicability.UNSAFE, "a warp is 64 lanes on CDNA: the vote spans 64 lanes and __ballot returns 64 bits")
    if mode == "ballot":
        lw.write(d, "b64", f"__ballot{suffix}({mask}{pred})")
        return
    if mode == "uni":
        q = lw.once(pred, "bool")
        value = f"__all{suffix}({mask}{q}) || !__any{suffix}({mask}{q})"
    else:
        value = f"__{mode}{suffix}({mask}{pred})"
    lw.write(d, "pred", f"{value} != 0" if mode != "uni" else value)


def _activemask(lw: Lowerer, ins, row) -> None:
    """``activemask.b32`` → ``__ballot(1)`` (every HIP version has it); 64-bit on CDNA."""
    (d,) = _need(ins, 1)
    if lw.warp32:
        lw.write(d, "b32", "vado_activemask32()")  # the caller's 32-lane warp (vado.port.wave)
        return
    lw.note(Applicability.UNSAFE, "the active mask has 64 bits on wave64; a 32-bit destination keeps lanes 0-31")
    lw.write(d, "b64", "__ballot(1)")
