"""Lowering inline PTX to HIP C++: the rewrite behind PTX001's fix.

:func:`lower` turns one parsed ``asm`` statement into C++ for one target, or
explains why it cannot (:class:`Refusal`). It models just enough of PTX to be
exact:

- *Operands.* ``%N`` and ``%[name]`` refer to the asm operands, outputs first.
  Constraint letters give the register each operand lives in (``h`` 16-bit,
  ``r`` 32-bit, ``l`` 64-bit, ``f`` float, ``d`` double, ``n``/``i``
  immediates). A read at another class than the constraint's is a bit cast
  (``__float_as_uint``), as in PTX, where a register is just bits.
- *Registers.* ``.reg .b32 t, u<2>;`` become C++ locals named ``_ptx_t``,
  ``_ptx_u0``, ``_ptx_u1``; ``.pred`` registers become ``bool``. The carry flag of
  ``add.cc``/``addc`` chains is a local ``_ptx_cc``.
- *Order of effects.* GCC asm reads every input before it writes any output.
  A single-instruction template becomes one expression (``d = __brev(a)``) in
  place of the ``asm(...)``; anything longer becomes a block in which outputs
  are temporaries assigned back at the end, so an output that is also an input
  can never be clobbered early, and every operand expression is evaluated once.

Each instruction's translation carries an applicability (:class:`Applicability`):
safe when C++ computes exactly what PTX does, unsafe when it differs at the
edges or on wave64 hardware, display-only when a person must choose; the
statement's is the weakest of its instructions'. The choices and their reasons
are listed per idiom in ``vado/knowledge/data/ptx.yaml`` and, for the
handlers below, in their docstrings.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from vado.knowledge import ptx as facts
from vado.model import Applicability, Target

# --- types -------------------------------------------------------------------------------------------

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


# --- instruction handlers --------------------------------------------------------------------------------


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
