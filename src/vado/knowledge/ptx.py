"""PTX instruction facts: the portable equivalent or AMD route of each inline-PTX instruction.

The table is ``data/ptx.yaml``; it is read on first use and cached. Rules ask
:func:`lookup` for the idiom of a parsed instruction
(:class:`vado.rules.cuda_syntax.PtxInstruction`), and :func:`target_ptx`
for how one target family treats inline PTX; ``vado port`` rewrites the asm
through :mod:`vado.rules.ptx_lower`, which renders an idiom's ``value`` or
``effect`` template or calls the handler written for it.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Any

from vado.errors import KnowledgeError
from vado.knowledge._data import as_str, as_tuple, load, require
from vado.model import Applicability, Verdict

KINDS = ("portable", "manual", "amd-route")
FAMILIES = ("rocm", "oneapi", "scale", "zluda")

#: Placeholders a ``value``/``effect`` template may use (see the top of ``ptx.yaml``).
_TEMPLATE_FIELD = re.compile(r"\{(?:[ap]?\d|T)\}")
_ANY_FIELD = re.compile(r"\{[^{}]*\}")


@dataclass(frozen=True)
class PtxIdiom:
    """One row of the table (see the field comments at the top of ``ptx.yaml``)."""

    id: str
    opcodes: tuple[str, ...]
    kind: str
    hip: str
    source: str
    source_url: str
    mods_all: frozenset[str] = frozenset()
    mods_any: frozenset[str] = frozenset()
    mods_none: frozenset[str] = frozenset()
    operand: re.Pattern | None = None
    value: str | None = None
    effect: str | None = None
    result: str | None = None
    applicability: Applicability = Applicability.SAFE
    min_hip: str | None = None
    verdicts: dict[str, Verdict] = field(default_factory=dict)
    note: str = ""

    def matches(self, instr) -> bool:
        """True when ``instr`` (a ``PtxInstruction``) is described by this row."""
        mods = set(instr.modifiers)
        if self.mods_all and not self.mods_all <= mods:
            return False
        if self.mods_any and not (self.mods_any & mods):
            return False
        if self.mods_none & mods:
            return False
        if self.operand is not None and not any(self.operand.search(o) for o in instr.operands):
            return False
        return True


@dataclass(frozen=True)
class TargetPtx:
    """How one target family treats inline PTX."""

    family: str
    inline_ptx: str
    note: str
    source_url: str
    supported_opcodes: frozenset[str] = frozenset()
    unsupported_prefixes: tuple[str, ...] = ()
    unsupported_types: frozenset[str] = frozenset()


@dataclass(frozen=True)
class PtxFacts:
    """The whole table, indexed by opcode."""

    idioms: tuple[PtxIdiom, ...]
    by_opcode: dict[str, tuple[PtxIdiom, ...]]
    targets: dict[str, TargetPtx]
    sources: dict[str, dict[str, Any]]


def _parse_verdict(value: Any, where: str) -> Verdict:
    try:
        return Verdict(as_str(value))
    except ValueError:
        choices = ", ".join(v.value for v in Verdict)
        raise KnowledgeError(f"knowledge entry {where} is malformed", f"verdict {value!r} is not one of {choices}") from None


@functools.cache
def ptx_facts() -> PtxFacts:
    """Load and index ``data/ptx.yaml`` (once per process)."""
    data = load("ptx")
    sources = data.get("sources") or {}
    if not isinstance(sources, dict):
        raise KnowledgeError("knowledge file ptx.yaml is malformed", "'sources' is not a mapping")

    def url_of(key: str, where: str) -> str:
        src = sources.get(key)
        if not isinstance(src, dict) or not src.get("url"):
            raise KnowledgeError(f"knowledge entry {where} is malformed", f"source {key!r} is not defined under 'sources'")
        return as_str(src["url"])

    idioms: list[PtxIdiom] = []
    seen: set[str] = set()
    for n, raw in enumerate(data.get("instructions") or []):
        where = f"ptx.yaml instructions[{n}]"
        ident = as_str(require(raw, "id", where))
        where = f"ptx.yaml instruction {ident!r}"
        if ident in seen:
            raise KnowledgeError(f"knowledge entry {where} is malformed", "its id is used twice")
        seen.add(ident)
        kind = as_str(require(raw, "kind", where))
        if kind not in KINDS:
            raise KnowledgeError(f"knowledge entry {where} is malformed", f"kind {kind!r} is not one of {', '.join(KINDS)}")
        source = as_str(require(raw, "source", where))
        operand = raw.get("operand")
        try:
            op_re = re.compile(as_str(operand)) if operand else None
        except re.error as exc:
            raise KnowledgeError(f"knowledge entry {where} is malformed", f"operand pattern: {exc}") from None
        verdicts = {fam: _parse_verdict(raw[fam], where) for fam in FAMILIES if fam in raw}
        value = raw.get("value")
        effect = raw.get("effect")
        if value is not None and effect is not None:
            raise KnowledgeError(f"knowledge entry {where} is malformed", "it has both a value and an effect template")
        for tmpl in (value, effect):
            if tmpl is None:
                continue
            bad = [f for f in _ANY_FIELD.findall(as_str(tmpl)) if not _TEMPLATE_FIELD.fullmatch(f)]
            if bad:
                raise KnowledgeError(f"knowledge entry {where} is malformed", f"unknown template field {bad[0]}")
        idioms.append(
            PtxIdiom(
                id=ident,
                opcodes=as_tuple(require(raw, "opcode", where)),
                kind=kind,
                hip=as_str(require(raw, "hip", where)),
                source=source,
                source_url=url_of(source, where),
                mods_all=frozenset(as_tuple(raw.get("mods_all"))),
                mods_any=frozenset(as_tuple(raw.get("mods_any"))),
                mods_none=frozenset(as_tuple(raw.get("mods_none"))),
                operand=op_re,
                value=None if value is None else as_str(value),
                effect=None if effect is None else as_str(effect),
                result=as_str(raw["result"]) if raw.get("result") else None,
                applicability=Applicability(as_str(raw.get("applicability") or "safe")),
                min_hip=as_str(raw["min_hip"]) if raw.get("min_hip") else None,
                verdicts=verdicts,
                note=as_str(raw.get("note")),
            )
        )
    by_opcode: dict[str, list[PtxIdiom]] = {}
    for idiom in idioms:
        for op in idiom.opcodes:
            by_opcode.setdefault(op, []).append(idiom)
    targets: dict[str, TargetPtx] = {}
    for fam, raw in (data.get("targets") or {}).items():
        where = f"ptx.yaml targets.{fam}"
        targets[fam] = TargetPtx(
            family=fam,
            inline_ptx=as_str(require(raw, "inline_ptx", where)),
            note=as_str(raw.get("note")),
            source_url=url_of(as_str(require(raw, "source", where)), where),
            supported_opcodes=frozenset(as_tuple(raw.get("supported_opcodes"))),
            unsupported_prefixes=as_tuple(raw.get("unsupported_prefixes")),
            unsupported_types=frozenset(as_tuple(raw.get("unsupported_types"))),
        )
    return PtxFacts(tuple(idioms), {k: tuple(v) for k, v in by_opcode.items()}, targets, dict(sources))


def lookup(instr) -> PtxIdiom | None:
    """The first idiom row that describes ``instr``, or None when vado does not know it."""
    for idiom in ptx_facts().by_opcode.get(instr.opcode, ()):
        if idiom.matches(instr):
            return idiom
    return None


def target_ptx(family: str) -> TargetPtx | None:
    """How ``family`` treats inline PTX (None for a family the table does not describe)."""
    return ptx_facts().targets.get(family)


def scale_supports(instr) -> bool | None:
    """Whether SCALE translates ``instr``: True, False (listed as unsupported), None (not in its list)."""
    facts = target_ptx("scale")
    if facts is None:
        return None
    if any(instr.mnemonic == p or instr.mnemonic.startswith(p + ".") for p in facts.unsupported_prefixes):
        return False
    if facts.unsupported_types & set(instr.modifiers):
        return False
    return True if instr.opcode in facts.supported_opcodes else None


def lop3_expression(lut: int, a: str, b: str, c: str) -> str:
    """A C++ bitwise expression equal to PTX ``lop3`` with truth table ``lut`` over ``a``, ``b``, ``c``.

    PTX defines the table through ``ta = 0xF0, tb = 0xCC, tc = 0xAA``: the
    result bit is ``lut``'s bit at index ``(a<<2)|(b<<1)|c``. Common tables get
    their familiar form; any other becomes an OR of minterms (exact, if long).
    """
    lut &= 0xFF
    named = {
        0x00: "0u",
        0xFF: "0xffffffffu",
        0xF0: a, 0xCC: b, 0xAA: c,
        0x0F: f"~{a}", 0x33: f"~{b}", 0x55: f"~{c}",
        0x80: f"({a} & {b} & {c})",
        0xFE: f"({a} | {b} | {c})",
        0x96: f"({a} ^ {b} ^ {c})",
        0x69: f"~({a} ^ {b} ^ {c})",
        0xE8: f"(({a} & {b}) | ({a} & {c}) | ({b} & {c}))",
        0xCA: f"(({a} & {b}) | (~{a} & {c}))",
        0xF8: f"({a} | ({b} & {c}))",
        0xEA: f"(({a} & {b}) | {c})",
        0xC0: f"({a} & {b})", 0xA0: f"({a} & {c})", 0x88: f"({b} & {c})",
        0xFC: f"({a} | {b})", 0xFA: f"({a} | {c})", 0xEE: f"({b} | {c})",
        0x3C: f"({a} ^ {b})", 0x5A: f"({a} ^ {c})", 0x66: f"({b} ^ {c})",
        0x78: f"({a} ^ ({b} & {c}))",
        0x1E: f"({a} ^ ({b} | {c}))",
        0xB4: f"({a} ^ ({b} & ~{c}))",
        0xD2: f"({a} ^ (~{b} & {c}))",
        0x6A: f"({c} ^ ({a} & {b}))",
        0xF6: f"({a} | ({b} ^ {c}))",
    }
    if lut in named:
        return named[lut]
    terms = []
    for idx in range(8):
        if lut >> idx & 1:
            x = a if idx & 4 else f"~{a}"
            y = b if idx & 2 else f"~{b}"
            z = c if idx & 1 else f"~{c}"
            terms.append(f"({x} & {y} & {z})")
    return "(" + " | ".join(terms) + ")"
