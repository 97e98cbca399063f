"""Instruction handlers: moves and special registers, loads, stores, conversions, and value templates."""

from __future__ import annotations

import re

from vado.model import Applicability
from vado.rules.ptx_lower.core import C_TYPE, Lowerer, Refusal, WIDTH, _OPERAND_REF, cast, is_float, paren


def _type(ins, default: str | None = None) -> str:
    """The instruction's (last) type suffix."""
    for m in reversed(ins.modifiers):
        if m in C_TYPE:
            return m
    if default is None:
        raise Refusal(f"{ins.mnemonic} has no type suffix")
    return default


def _types(ins) -> list[str]:
    return [m for m in ins.modifiers if m in C_TYPE]


def _need(ins, n: int) -> tuple[str, ...]:
    if len(ins.operands) != n:
        raise Refusal(f"{ins.mnemonic} with {len(ins.operands)} operands")
    return ins.operands


_TEMPLATE_FIELD = re.compile(r"\{(a|p)?(\d)\}|\{T\}")


def _template(lw: Lowerer, ins, row) -> None:
    """Rows with a ``value``/``effect`` template: ``{N}`` typed reads, ``{aN}`` argument reads, ``{pN}`` addresses."""
    t = _type(ins, "b32")
    reads_from = 1 if row.value is not None else 0
    if row.effect == "":  # a hint with no C++ form (prefetch): its operands are consumed, nothing is emitted
        for o in ins.operands:
            ref = lw._ref(o.strip("[] ")) if _OPERAND_REF.match(o.strip("[] ")) else None
            if ref is not None:
                lw.used.add(ref.index)
        return

    def sub(m: re.Match) -> str:
        if m.group(0) == "{T}":
            return C_TYPE[t]
        n = int(m.group(2))
        if n >= len(ins.operands):
            raise Refusal(f"{ins.mnemonic} lacks operand {n}")
        if m.group(1) == "p":
            return lw.address(ins.operands[n])
        return lw.read(ins.operands[n], t, arg=m.group(1) == "a")

    refs = {int(m.group(2)) for m in _TEMPLATE_FIELD.finditer(row.value or row.effect) if m.group(2)}
    expected = set(range(reads_from, len(ins.operands)))
    if refs != expected:
        raise Refusal(f"{ins.mnemonic}: the template does not use every operand")
    if row.value is not None:
        value = _TEMPLATE_FIELD.sub(sub, row.value)
        lw.write(ins.operands[0], row.result or t, value)
    else:
        text = _TEMPLATE_FIELD.sub(sub, row.effect)
        if text:
            lw.emit(text + ";")


def _mov(lw: Lowerer, ins, row) -> None:
    d, a = _need(ins, 2)
    t = _type(ins)
    if d.startswith("{"):  # unpack: mov.b64 {lo, hi}, x
        parts = [p.strip() for p in d.strip("{}").split(",")]
        w = WIDTH[t] // len(parts)
        pt = {16: "b16", 32: "b32", 8: "b8"}.get(w)
        if pt is None or len(parts) not in (2, 4):
            raise Refusal(f"{ins.mnemonic} unpack into {len(parts)} parts")
        src = lw.once(lw.read(a, t), C_TYPE[t])
        for k, p in enumerate(parts):
            if p != "_":
                lw.write(p, pt, f"({C_TYPE[pt]})({src} >> {k * w})" if k else f"({C_TYPE[pt]}){src}")
        return
    if a.startswith("{"):  # pack: mov.b64 x, {lo, hi}
        parts = [p.strip() for p in a.strip("{}").split(",")]
        w = WIDTH[t] // len(parts)
        pt = {16: "b16", 32: "b32", 8: "b8"}.get(w)
        if pt is None or len(parts) not in (2, 4):
            raise Refusal(f"{ins.mnemonic} pack of {len(parts)} parts")
        pieces = [cast(t, lw.read(p, pt)) + (f" << {k * w}" if k else "") for k, p in enumerate(parts)]
        lw.write(d, t, " | ".join(f"({p})" if "<<" in p else p for p in pieces))
        return
    lw.write(d, t, lw.read(a, t))


def _ld(lw: Lowerer, ins, row) -> None:
    """Loads: ``.nc`` → ``__ldg``; ``.cs``/``.lu`` → ``__builtin_nontemporal_load``; ``.cv``/``.volatile`` →
    a volatile load; other hints (``.ca``, ``.cg``, ``.L1::…``) → a plain load. Vectors load HIP vector types."""
    d, a = _need(ins, 2)
    t = _type(ins)
    if any(m in ins.modifiers for m in ("acquire", "relaxed", "shared::cluster", "param", "const")) or \
            any(m.startswith("L2::") and m not in ("L2::64B", "L2::128B", "L2::256B") for m in ins.modifiers):
        raise Refusal(f"{ins.mnemonic}: memory-model or state-space variant")
    vec = next((int(m[1:]) for m in ins.modifiers if m in ("v2", "v4")), 1)
    ptr = lw.address(a)
    if vec == 1:
        ct = C_TYPE[t]
        if "nc" in ins.modifiers:
            value = f"__ldg((const {ct}*){ptr})"
        elif "cs" in ins.modifiers or "lu" in ins.modifiers:
            value = f"__builtin_nontemporal_load((const {ct}*){ptr})"
        elif "cv" in ins.modifiers or "volatile" in ins.modifiers:
            value = f"*(const volatile {ct}*){ptr}"
            lw.note(Applicability.UNSAFE, "a volatile load re-reads memory as ld.cv does, but seeing another agent's "
                    "writes also needs fine-grained (coherent) memory on AMD")
        else:
            value = f"*(const {ct}*){ptr}"
        lw.write(d, t, value)
        if "cg" in ins.modifiers:
            lw.note(Applicability.UNSAFE, "ld.cg skips L1; code that relies on that to see other blocks' writes needs "
                    "__hip_atomic_load(p, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT) on AMD")
        return
    vt = _VECTOR_TYPE.get((t, vec))
    if vt is None or not d.startswith("{"):
        raise Refusal(f"{ins.mnemonic}: no HIP vector type for {vec} x .{t}")
    parts = [p.strip() for p in d.strip("{}").split(",")]
    if len(parts) != vec:
        raise Refusal(f"{ins.mnemonic}: {len(parts)} destinations")
    if "cv" in ins.modifiers or "volatile" in ins.modifiers:
        raise Refusal("volatile vector load")
    load = f"__ldg((const {vt}*){ptr})" if "nc" in ins.modifiers else f"*(const {vt}*){ptr}"
    if not lw.block:
        raise Refusal("vector load needs a block")
    v = f"_ptx_v{lw.temps}"
    lw.temps += 1
    lw.emit(f"{vt} {v} = {load};")
    for p, comp in zip(parts, "xyzw"):
        if p != "_":
            lw.write(p, t, f"{v}.{comp}")


_VECTOR_TYPE = {("f32", 2): "float2", ("f32", 4): "float4", ("b32", 2): "uint2", ("b32", 4): "uint4",
                ("u32", 2): "uint2", ("u32", 4): "uint4", ("s32", 2): "int2", ("s32", 4): "int4",
                ("f64", 2): "double2", ("b64", 2): "ulonglong2", ("u64", 2): "ulonglong2", ("s64", 2): "longlong2"}


def _st(lw: Lowerer, ins, row) -> None:
    """Stores: ``.cs`` → ``__builtin_nontemporal_store``; ``.wb``/``.cg``/``.wt`` → a plain store."""
    a, v = _need(ins, 2)
    t = _type(ins)
    if any(m in ins.modifiers for m in ("release", "relaxed", "shared::cluster", "async", "volatile")) or \
            any(m.startswith("v") and m[1:].isdigit() for m in ins.modifiers):
        raise Refusal(f"{ins.mnemonic}: memory-model, vector or cluster variant")
    ptr = lw.address(a)
    value = lw.read(v, t, arg=True)
    if "cs" in ins.modifiers:
        lw.emit(f"__builtin_nontemporal_store({value}, ({C_TYPE[t]}*){ptr});")
    else:
        lw.emit(f"*({C_TYPE[t]}*){ptr} = {value};")


def _cvt(lw: Lowerer, ins, row) -> None:
    """Conversions with an exact HIP or C++ form; FP8, TF32, saturation and packing stay for a person."""
    mods = set(ins.modifiers)
    types = _types(ins)
    if "sat" in mods or "relu" in mods or "satfinite" in mods or "ftz" in mods:
        raise Refusal(f"{ins.mnemonic}: saturating/ftz conversions")
    if len(types) != 2:
        raise Refusal(f"{ins.mnemonic}: expected a destination and a source type")
    dt, st = types
    rnd = next((m for m in ins.modifiers if m in ("rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi", "rna")), None)
    ops = ins.operands
    if dt in ("f16x2", "bf16x2") and st == "f32":
        d, a, b = _need(ins, 3)
        if rnd != "rn":
            raise Refusal(f"{ins.mnemonic}: only .rn packs exactly")
        hi = _to_half(lw, dt[:-2], lw.read(a, "f32", arg=True))
        lo = _to_half(lw, dt[:-2], lw.read(b, "f32", arg=True))
        lw.write(d, "b32", f"(unsigned int){paren(lo)} | ((unsigned int){paren(hi)} << 16)")
        return
    d, a = _need(ins, 2) if len(ops) == 2 else (None, None)
    if d is None:
        raise Refusal(f"{ins.mnemonic} with {len(ops)} operands")
    if dt in ("f16", "bf16") and st == "f32":
        if rnd != "rn":
            raise Refusal(f"{ins.mnemonic}: rounding .{rnd} to a 16-bit float")
        lw.write(d, "b16", _to_half(lw, dt, lw.read(a, "f32", arg=True)))
        return
    if dt == "f32" and st in ("f16", "bf16"):
        h = lw.read(a, "b16", arg=True)
        if st == "f16":
            value = f"(float)__builtin_bit_cast(_Float16, (unsigned short){paren(h)})"
        else:
            value = f"__uint_as_float((unsigned int)(unsigned short){paren(h)} << 16)"
        lw.write(d, "f32", value)
        return
    if st in ("f32", "f64") and dt in ("s32", "u32", "s64", "u64") and rnd in ("rni", "rzi", "rmi", "rpi"):
        fn = {"s32": "int", "u32": "uint", "s64": "ll", "u64": "ull"}[dt]
        src = "float" if st == "f32" else "double"
        mode = {"rni": "rn", "rzi": "rz", "rmi": "rd", "rpi": "ru"}[rnd]
        lw.note(Applicability.UNSAFE, "PTX saturates out-of-range values and turns NaN into 0; HIP's __float2int_* "
                "conversions are only defined in range")
        lw.write(d, dt, f"__{src}2{fn}_{mode}({lw.read(a, st, arg=True)})")
        return
    if dt in ("f32", "f64") and st in ("s32", "u32", "s64", "u64") and rnd in ("rn", None):
        fn = {"s32": "int", "u32": "uint", "s64": "ll", "u64": "ull"}[st]
        dst = "float" if dt == "f32" else "double"
        if rnd is None:
            raise Refusal(f"{ins.mnemonic}: int-to-float needs a rounding mode")
        lw.write(d, dt, f"__{fn}2{dst}_rn({lw.read(a, st, arg=True)})")
        return
    if dt == "f32" and st == "f64" and rnd == "rn":
        lw.write(d, "f32", f"__double2float_rn({lw.read(a, 'f64', arg=True)})")
        return
    if dt == st and is_float(dt) and rnd in ("rni", "rzi", "rmi", "rpi"):
        fn = {"rni": "rint", "rzi": "trunc", "rmi": "floor", "rpi": "ceil"}[rnd] + ("f" if dt == "f32" else "")
        lw.write(d, dt, f"{fn}({lw.read(a, dt, arg=True)})")
        return
    if dt == "f64" and st == "f32" and rnd is None:
        lw.write(d, "f64", f"(double){paren(lw.read(a, 'f32'))}")
        return
    if not is_float(dt) and not is_float(st) and dt not in ("f16", "bf16") and st not in ("f16", "bf16") and rnd is None:
        # Integer widening/narrowing: truncate to the source type, then sign- or zero-extend.
        lw.write(d, dt, cast(dt, cast(st, lw.read(a, st))))
        return
    raise Refusal(f"{ins.mnemonic}: no exact rewrite for this conversion")


def _to_half(lw: Lowerer, kind: str, f: str) -> str:
    """Bits of ``f`` (a float) rounded to nearest-even as f16 or bf16."""
    if kind == "f16":
        return f"__builtin_bit_cast(unsigned short, (_Float16){paren(f)})"
    # bf16: round to nearest even on the bits; NaN becomes the canonical 0x7fff, as cvt.rn.bf16.f32 gives.
    u = lw.once(f"__float_as_uint({f})", "unsigned int")
    return (f"(unsigned short)((({u} & 0x7fffffffu) > 0x7f800000u) ? 0x7fffu : "
            f"(({u} + 0x7fffu + (({u} >> 16) & 1u)) >> 16))")
