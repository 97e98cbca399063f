"""PTX types and registers, operand slots, immediates, and the Lowerer that turns instructions into C++ statements."""

from __future__ import annotations

import re
from dataclasses import dataclass

from vado.model import Applicability, Target


#: C type that stores a value of each PTX type. 16-bit floats are kept as their bits.
C_TYPE = {
    "pred": "bool",
    "b8": "unsigned char", "u8": "unsigned char", "s8": "signed char",
    "b16": "unsigned short", "u16": "unsigned short", "s16": "short", "f16": "unsigned short", "bf16": "unsigned short",
    "b32": "unsigned int", "u32": "unsigned int", "s32": "int", "f32": "float", "f16x2": "unsigned int", "bf16x2": "unsigned int",
    "b64": "unsigned long long", "u64": "unsigned long long", "s64": "long long", "f64": "double",
    "b128": "unsigned __int128", "u128": "unsigned __int128", "s128": "__int128",
}
WIDTH = {"pred": 1, "b8": 8, "u8": 8, "s8": 8, "b16": 16, "u16": 16, "s16": 16, "f16": 16, "bf16": 16,
         "b32": 32, "u32": 32, "s32": 32, "f32": 32, "f16x2": 32, "bf16x2": 32,
         "b64": 64, "u64": 64, "s64": 64, "f64": 64, "b128": 128, "u128": 128, "s128": 128}
#: PTX type of the register a constraint letter names.
CONSTRAINT_TYPE = {"h": "b16", "r": "b32", "l": "b64", "f": "f32", "d": "f64", "q": "b128"}
_RANK = {Applicability.SAFE: 0, Applicability.UNSAFE: 1, Applicability.DISPLAY_ONLY: 2}


def is_float(t: str) -> bool:
    """True for the PTX types that C++ holds in ``float``/``double``."""
    return t in ("f32", "f64")


def is_signed(t: str) -> bool:
    """True for ``.sNN`` types."""
    return t.startswith("s")


def weakest(*levels: Applicability) -> Applicability:
    """The least safe of ``levels`` (display-only < unsafe < safe)."""
    return max(levels, key=_RANK.__getitem__, default=Applicability.SAFE)


class Refusal(Exception):
    """The template cannot be rewritten exactly; ``reason`` says why (shown in the finding)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Lowering:
    """The C++ that replaces one asm statement.

    ``end`` is where the replaced span ends: the asm's closing parenthesis for
    an expression, the ``;`` after it for a block. ``notes`` are the caveats of
    the idioms used (for the finding's data and the fix description).
    """

    code: str
    end: int
    applicability: Applicability
    idioms: tuple[str, ...]
    notes: tuple[str, ...] = ()


_IDENT = re.compile(r"^[A-Za-z_]\w*$")
_SIMPLE = re.compile(r"^(?:[A-Za-z_][\w]*(?:(?:\.|->)[A-Za-z_]\w*|\[[\w.+\- ]*\])*|-?\d+[uUlL]*|0[xX][0-9A-Fa-f]+[uUlL]*)$")
_CAST_OF_SIMPLE = re.compile(r"^\((?:unsigned |signed )?(?:int|short|char|long long|long|float|double|bool)\)[A-Za-z_]\w*$")
_INT_IMM = re.compile(r"^-?(?:0[xX][0-9A-Fa-f]+|\d+)[uU]?$")
_FLOAT_IMM = re.compile(r"^0[fF]([0-9A-Fa-f]{8})$")
_DOUBLE_IMM = re.compile(r"^0[dD]([0-9A-Fa-f]{16})$")
_OPERAND_REF = re.compile(r"^%(\d+|\[\s*[A-Za-z_]\w*\s*\])$")
_REG_DECL = re.compile(r"^\.reg\s+((?:\.v[248]\s+)?)\.(\w+)\s+(.+)$")
_REG_NAME = re.compile(r"^%?([A-Za-z_$][\w$]*)(?:<(\d+)>)?$")


def paren(e: str) -> str:
    """``e`` wrapped in parentheses unless it is one token-ish primary expression."""
    e = e.strip()
    if _SIMPLE.match(e) or _CAST_OF_SIMPLE.match(e) or (e.startswith("(") and _balanced_outer(e)):
        return e
    return f"({e})"


def _balanced_outer(e: str) -> bool:
    depth = 0
    for i, ch in enumerate(e):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0 and i != len(e) - 1:
                return False
    return e.endswith(")")


def cast(t: str, e: str) -> str:
    """``e`` as C type of PTX type ``t``; a non-negative integer literal gets a suffix instead of a cast."""
    e = e.strip()
    if _INT_IMM.match(e) and not e.startswith("-") and not is_float(t) and t != "pred":
        v = e.rstrip("uU")
        if WIDTH[t] <= 32:
            return v if is_signed(t) else v + "u"
        return v + ("ll" if is_signed(t) else "ull")
    return f"({C_TYPE[t]}){paren(e)}"


def bitcast(src: str, dst: str, e: str) -> str:
    """Value ``e`` of PTX type ``src`` reinterpreted (or converted, between integers) as ``dst``."""
    if src == dst or C_TYPE[src] == C_TYPE[dst]:
        return e
    if src == "pred" or dst == "pred":
        if dst == "pred":
            return f"{paren(e)} != 0"
        return f"({C_TYPE[dst]}){paren(e)}"
    if is_float(src) == is_float(dst):
        if is_float(src):
            raise Refusal(f"a .{src} value used as .{dst} needs a cvt")
        return f"({C_TYPE[dst]}){paren(e)}"
    if WIDTH[src] != WIDTH[dst]:
        raise Refusal(f"a .{src} register read as .{dst} (different widths)")
    if dst == "f32":
        return f"__uint_as_float({e if C_TYPE[src] == 'unsigned int' else cast('u32', e)})"
    if dst == "f64":
        return f"__longlong_as_double({e if C_TYPE[src] == 'long long' else cast('s64', e)})"
    if src == "f32":
        v = f"__float_as_uint({e})"
        return v if dst in ("u32", "b32") else f"({C_TYPE[dst]}){v}"
    v = f"__double_as_longlong({e})"
    return v if dst == "s64" else f"({C_TYPE[dst]}){v}"


# --- storage -------------------------------------------------------------------------------------------


@dataclass
class _Slot:
    """Where a PTX operand's value lives in the C++ code.

    ``known`` is False for user expressions, whose C++ type vado cannot see:
    reads then cast to the instruction's type (an ``int`` variable read by
    ``shr.u32`` must shift logically).
    """

    expr: str
    ptype: str
    known: bool
    writable: bool = True


@dataclass
class _Operand:
    index: int
    constraint: str
    expr: str
    output: bool
    read_write: bool
    name: str

    @property
    def letter(self) -> str:
        letters = [c for c in self.constraint if c.isalpha()]
        return letters[0] if letters else ""

    @property
    def immediate(self) -> bool:
        return self.letter in ("n", "i")


class Lowerer:
    """Translates one asm statement (see the module docstring). One instance per attempt."""

    def __init__(self, asm, target: Target, *, block: bool, wave: str = "warp32") -> None:
        self.asm = asm
        self.target = target
        #: warp32 emulation (vado.port.wave's helpers) applies: the default wave mode, on ROCm.
        self.warp32 = wave == "warp32" and target.family == "rocm"
        self.block = block
        self.ops = [_Operand(i, o.constraint, o.expr.strip(), o.output, o.read_write, getattr(o, "name", ""))
                    for i, o in enumerate(asm.operands)]
        self.by_name = {o.name: o for o in self.ops if o.name}
        self.slots: dict[int, _Slot] = {}
        self.regs: dict[str, _Slot] = {}
        self.decls: list[str] = []
        self.body: list[str] = []
        self.prologue: list[str] = []
        self.epilogue: list[str] = []
        self.temps = 0
        self.applicability = Applicability.SAFE
        self.idioms: list[str] = []
        self.notes: list[str] = []
        self.cc_state = "none"  # none | set: whether _ptx_cc holds a carry written in this template
        self.used: set[int] = set()
        self.written: set[int] = set()
        for op in self.ops:
            if op.immediate and op.output:
                raise Refusal(f"operand %{op.index} is an immediate output")
            if not op.letter:
                raise Refusal(f"operand %{op.index} has constraint {op.constraint!r}")
            if op.letter not in CONSTRAINT_TYPE and not op.immediate:
                raise Refusal(f"operand %{op.index} has constraint {op.constraint!r}, which vado does not model")
            if not op.expr:
                raise Refusal(f"operand %{op.index} has no expression")
            self.slots[op.index] = self._operand_slot(op)

    # -- operands ---------------------------------------------------------------

    def _operand_slot(self, op: _Operand) -> _Slot:
        if op.immediate:
            return _Slot(paren(op.expr), "s64", False, writable=False)
        ptype = CONSTRAINT_TYPE[op.letter]
        if not self.block:
            return _Slot(op.expr, ptype, False)
        if op.output:
            name = f"_ptx{op.index}"
            init = f" = {op.expr}" if op.read_write else ""
            self.prologue.append(f"{C_TYPE[ptype]} {name}{init};")
            self.epilogue.append(f"{op.expr} = {name};")
            return _Slot(name, ptype, True)
        if _SIMPLE.match(op.expr):
            return _Slot(op.expr, ptype, False, writable=False)
        name = f"_ptx{op.index}"
        self.prologue.append(f"auto {name} = {op.expr};")
        return _Slot(name, ptype, False, writable=False)

    def _ref(self, text: str) -> _Operand | None:
        m = _OPERAND_REF.match(text.strip())
        if not m:
            return None
        key = m.group(1)
        if key.isdigit():
            n = int(key)
            if n >= len(self.ops):
                raise Refusal(f"%{n} names no operand")
            return self.ops[n]
        name = key.strip("[] \t")
        if name not in self.by_name:
            raise Refusal(f"%[{name}] names no operand")
        return self.by_name[name]

    def declare_registers(self) -> None:
        """Turn the template's ``.reg`` directives into C++ locals."""
        prog = self.asm.program
        for d in prog.directive_texts:
            word = d.split()[0]
            if word != ".reg":
                raise Refusal(f"directive {word} has no C++ form here")
            m = _REG_DECL.match(d)
            if not m or m.group(1):
                raise Refusal(f"register declaration {d!r} (vector registers are not modelled)")
            ptype = m.group(2)
            if ptype not in C_TYPE:
                raise Refusal(f"register type .{ptype}")
            for piece in m.group(3).split(","):
                rm = _REG_NAME.match(piece.strip())
                if not rm:
                    raise Refusal(f"register name {piece.strip()!r}")
                if rm.group(2) is not None and (len(rm.group(2)) > 5 or int(rm.group(2)) > _MAX_REGISTERS):
                    raise Refusal(f"register range {piece.strip()!r} declares more than {_MAX_REGISTERS} registers")
                names = [rm.group(1)] if rm.group(2) is None else [f"{rm.group(1)}{k}" for k in range(int(rm.group(2)))]
                for name in names:
                    prev = self.regs.get(name)
                    if prev is not None:
                        if prev.ptype != ptype:
                            raise Refusal(f"register {name} is declared twice with different types")
                        continue
                    cname = "_ptx_" + name.replace("$", "_")
                    self.regs[name] = _Slot(cname, ptype, True)
                    self.decls.append(f"{C_TYPE[ptype]} {cname};")

    def read(self, text: str, t: str, *, arg: bool = False) -> str:
        """C++ value of operand ``text`` at PTX type ``t``; ``arg``: it is a call argument, so no integer cast."""
        text = text.strip()
        if text.startswith("!"):
            return f"!{paren(self.read(text[1:], 'pred'))}"
        op = self._ref(text)
        if op is not None:
            self.used.add(op.index)
            slot = self.slots[op.index]
            if t == "pred" and not op.immediate:
                raise Refusal(f"operand %{op.index} is used as a predicate; PTX has no predicate asm operands")
            if op.immediate:
                return slot.expr if t == "pred" or arg else cast(t, slot.expr)
            return self._read_slot(slot, t, arg)
        if _INT_IMM.match(text):
            if is_float(t):
                raise Refusal(f"integer immediate {text} used as .{t}")
            value = text.rstrip("uU")
            if t == "pred":
                return "true" if _imm_value(value.lstrip("-")) else "false"
            return value if arg and not value.startswith("-") else cast(t, value)
        m = _FLOAT_IMM.match(text)
        if m:
            return bitcast("u32", t, f"0x{m.group(1).upper()}u") if t != "u32" else f"0x{m.group(1).upper()}u"
        m = _DOUBLE_IMM.match(text)
        if m:
            return bitcast("s64", t, f"0x{m.group(1).upper()}ll")
        if text.startswith("%") and text[1:].split(".")[0] in _SPECIAL_NAMES:
            expr, ptype = self.special(text)
            return bitcast(ptype, t, expr)
        reg = self.regs.get(text.lstrip("%")) if text.lstrip("%") in self.regs else self.regs.get(text)
        if reg is not None:
            return self._read_slot(reg, t, arg)
        raise Refusal(f"operand {text!r} is not something vado can read")

    def _read_slot(self, slot: _Slot, t: str, arg: bool) -> str:
        if slot.known:
            if slot.ptype == t or C_TYPE[slot.ptype] == C_TYPE[t]:
                return slot.expr
            if arg and not is_float(t) and not is_float(slot.ptype) and slot.ptype != "pred" and t != "pred":
                return slot.expr
            return bitcast(slot.ptype, t, slot.expr)
        if is_float(slot.ptype) != is_float(t) and t != "pred":
            return bitcast(slot.ptype, t, slot.expr)
        if arg or is_float(t):
            return paren(slot.expr)
        if t == "pred":
            return f"{paren(slot.expr)} != 0"
        return cast(t, slot.expr)

    def address(self, text: str) -> str:
        """C++ pointer-valued expression (an integer or pointer) of ``[%N]``, ``[%N+8]``, ``[reg]``."""
        t = text.strip()
        if not (t.startswith("[") and t.endswith("]")):
            raise Refusal(f"{text!r} is not an address operand")
        inner = t[1:-1].strip()
        m = re.match(r"^(.*?)\s*([+-])\s*(-?(?:0[xX][0-9A-Fa-f]+|\d+))$", inner)
        base, off = (m.group(1), (m.group(2), m.group(3))) if m else (inner, None)
        op = self._ref(base)
        if op is not None:
            self.used.add(op.index)
            b = paren(self.slots[op.index].expr)
        elif base.lstrip("%") in self.regs:
            b = self.regs[base.lstrip("%")].expr
        else:
            raise Refusal(f"address {text!r}")
        if off is None:
            return b
        return f"((unsigned long long){b} {off[0]} {off[1]})"  # a byte offset, so on the integer address

    def write(self, text: str, t: str, value: str) -> None:
        """Store ``value`` (of PTX type ``t``) into operand ``text``."""
        text = text.strip()
        if text == "_":
            self.emit(f"(void){paren(value)};")
            return
        op = self._ref(text)
        if op is not None:
            if not op.output:
                raise Refusal(f"the template writes input operand %{op.index}")
            if t == "pred":
                raise Refusal(f"a predicate is written to operand %{op.index}")
            self.used.add(op.index)
            self.written.add(op.index)
            slot = self.slots[op.index]
            self.emit(f"{slot.expr} = {self._store(slot, t, value)};")
            return
        reg = self.regs.get(text.lstrip("%"))
        if reg is None:
            raise Refusal(f"destination {text!r} is not an operand or a declared register")
        self.emit(f"{reg.expr} = {self._store(reg, t, value)};")

    def _store(self, slot: _Slot, t: str, value: str) -> str:
        if is_float(slot.ptype) != is_float(t) and t != "pred" and slot.ptype != "pred":
            return bitcast(t, slot.ptype, value)
        if slot.ptype == "pred" and t != "pred":
            return f"{paren(value)} != 0"
        return value

    def decls_text(self) -> str:
        """The register declarations so far, as one string."""
        return "\n".join(self.decls)

    def emit(self, stmt: str) -> None:
        """Append one C++ statement to the body."""
        self.body.append(stmt)

    def once(self, expr: str, ctype: str = "auto") -> str:
        """``expr`` held in a fresh local (so it is evaluated once); block mode only."""
        if _SIMPLE.match(expr.strip()):
            return expr.strip()
        if not self.block:
            raise Refusal("needs a temporary")
        name = f"_ptx_t{self.temps}"
        self.temps += 1
        self.emit(f"{ctype} {name} = {expr};")
        return name

    def note(self, level: Applicability, text: str = "") -> None:
        """Lower the statement's applicability to ``level`` and record why."""
        self.applicability = weakest(self.applicability, level)
        if text and text not in self.notes:
            self.notes.append(text)

    def sync_builtins(self) -> bool:
        """Whether the target has the ``*_sync`` warp builtins (64-bit masks)."""
        return bool(self.target.features.get("warp_sync_builtins", True)) if self.target.family == "rocm" else True

    def hip_at_least(self, version: str) -> bool:
        """True when the target's HIP is at least ``version`` (non-HIP targets: True)."""
        from vado.rules.cuda_syntax import hip_at_least

        return self.target.hip_version is None or hip_at_least(self.target, version)

    # -- special registers -----------------------------------------------------

    def special(self, text: str) -> tuple[str, str]:
        """C++ expression and PTX type of special register ``text`` (``%laneid``)."""
        name = text.lstrip("%")
        if name in ("tid.x", "tid.y", "tid.z", "ntid.x", "ntid.y", "ntid.z", "ctaid.x", "ctaid.y", "ctaid.z",
                    "nctaid.x", "nctaid.y", "nctaid.z"):
            base, axis = name.split(".")
            return f"{_SPECIAL_DIM[base]}.{axis}", "u32"
        if name == "laneid":
            return ("vado_lane32()" if self.warp32 else "__lane_id()"), "u32"
        if name in ("clock", "clock_hi", "clock64"):
            if name == "clock":
                return "(unsigned int)clock()", "u32"
            if name == "clock_hi":
                return "(unsigned int)((unsigned long long)clock64() >> 32)", "u32"
            return "(unsigned long long)clock64()", "u64"
        if name in ("globaltimer", "globaltimer_lo", "globaltimer_hi"):
            self.note(Applicability.UNSAFE, "%globaltimer counts nanoseconds; the AMD wall clock ticks at "
                      "hipDeviceAttributeWallClockRate kHz (100 MHz on CDNA): scale differences by 1e6 / rate")
            # HIP 5.2 declares wall_clock64() for the device pass only, so host-side parsing of a
            # __device__ body fails; the builtin it wraps is accepted in both passes.
            clk = "wall_clock64()" if self.hip_at_least("6.0") else "__builtin_amdgcn_s_memrealtime()"
            if name == "globaltimer":
                return f"(unsigned long long){clk}", "u64"
            if name == "globaltimer_lo":
                return f"(unsigned int){clk}", "u32"
            return f"(unsigned int)((unsigned long long){clk} >> 32)", "u32"
        if name == "warpid":
            self.note(Applicability.UNSAFE, "%warpid is the warp's hardware slot on its SM and may change; the rewrite is the "
                      "warp's index in its block, counted in warpSize lanes (64 on CDNA)")
            return ("((threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y) / warpSize)",
                    "u32")
        if name == "nwarpid":
            self.note(Applicability.DISPLAY_ONLY, "%nwarpid is the number of warp slots per SM; the suggestion is the number "
                      "of warps in this block, which is what most code wants: check")
            return "((blockDim.x * blockDim.y * blockDim.z + warpSize - 1) / warpSize)", "u32"
        if name == "smid":
            self.note(Applicability.UNSAFE, "__smid() packs shader engine and compute unit ids (SE << 4 | CU): an id of the "
                      "CU, not a dense SM index below the SM count")
            return "__smid()", "u32"
        if name in ("lanemask_lt", "lanemask_eq", "lanemask_le", "lanemask_gt", "lanemask_ge"):
            # HIP's __lanemask_lt()/__lanemask_gt() AND with the active lanes; PTX's masks do not.
            if self.warp32:
                # 32-bit masks of the caller's CUDA warp, exactly PTX's (2u << 31 wraps to 0: le/gt of lane 31).
                expr = {"lt": "((1u << vado_lane32()) - 1u)", "eq": "(1u << vado_lane32())",
                        "le": "((2u << vado_lane32()) - 1u)", "gt": "(~((2u << vado_lane32()) - 1u))",
                        "ge": "(~((1u << vado_lane32()) - 1u))"}[name.split("_")[1]]
                return expr, "u32"
            self.note(Applicability.UNSAFE, "lane masks are 64-bit on wave64; a 32-bit destination keeps lanes 0-31")
            expr = {"lt": "((1ull << __lane_id()) - 1ull)", "eq": "(1ull << __lane_id())",
                    "le": "((2ull << __lane_id()) - 1ull)", "gt": "(~((2ull << __lane_id()) - 1ull))",
                    "ge": "(~((1ull << __lane_id()) - 1ull))"}[name.split("_")[1]]
            return expr, "u64"
        raise Refusal(f"special register %{name} has no HIP equivalent")


_SPECIAL_DIM = {"tid": "threadIdx", "ntid": "blockDim", "ctaid": "blockIdx", "nctaid": "gridDim"}
_SPECIAL_NAMES = frozenset({"tid", "ntid", "ctaid", "nctaid", "laneid", "clock", "clock_hi", "clock64", "globaltimer",
                            "globaltimer_lo", "globaltimer_hi", "warpid", "nwarpid", "smid", "nsmid", "gridid",
                            "lanemask_lt", "lanemask_eq", "lanemask_le", "lanemask_gt", "lanemask_ge",
                            "dynamic_smem_size", "total_smem_size"})



#: The most registers one ``.reg .b32 r<N>;`` range may declare: each becomes a C++ local.
_MAX_REGISTERS = 4096


def _imm_value(text: str) -> int:
    """Value of a PTX integer immediate (``0x1F``, ``017``, ``42``); a :class:`Refusal` when
    Python cannot read it (a leading-zero decimal, thousands of digits)."""
    from vado.rules.cuda_syntax import int_value

    v = int_value(text)
    if v is None:
        raise Refusal(f"integer immediate {text[:40]!r} is not a value vado reads")
    return v


def _const(lw: Lowerer, text: str) -> int | None:
    """Integer value of an immediate operand or of ``%N`` bound to an ``n``/``i`` constant."""
    from vado.rules.cuda_syntax import int_value

    t = text.strip()
    if _INT_IMM.match(t):
        return _imm_value(t.rstrip("uU")) if not t.startswith("-") else -_imm_value(t[1:].rstrip("uU"))
    op = lw._ref(t) if _OPERAND_REF.match(t) else None
    if op is not None and op.immediate:
        v = int_value(op.expr.strip())
        if v is not None:
            lw.used.add(op.index)
        return v
    return None


def _hex(v: int, w: int) -> str:
    return f"0x{v:x}u" if w <= 32 else f"0x{v:x}ull"
