"""Inline ``asm`` statements: string literal decoding, the PTX of an asm template split into instructions
(:func:`parse_ptx`) and the statements with their operands (:func:`find_asm`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from vado.rules.cuda_syntax.tokens import CLOSE, OPEN, bracket_map, in_directive_mask, split_text_args, text_of
from vado.scan.lexer import Kind


_ASM_KEYWORDS = frozenset({"asm", "__asm__", "__asm"})
_ASM_QUALIFIERS = frozenset({"volatile", "__volatile__", "__volatile", "inline", "goto"})


# --- string literals ---------------------------------------------------------

_SIMPLE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "v": "\v", "f": "\f", "a": "\a", "b": "\b",
                   "0": "\0", "\\": "\\", "'": "'", '"': '"', "?": "?", "e": "\x1b"}
_ESCAPE = re.compile(r"\\(x[0-9A-Fa-f]+|[0-7]{1,3}|\r?\n|.)", re.DOTALL)
_RAW = re.compile(r'(?:u8|u|U|L)?R"([^ ()\\\t\v\f\r\n]{0,16})\((.*)\)\1"\Z', re.DOTALL)


def decode_string(literal: str) -> str:
    """The characters of one C/C++ string literal token (prefix, quotes and escapes resolved).

    Unterminated literals decode to what is there; unknown escapes keep the
    escaped character (as compilers do, with a warning).
    """
    raw = _RAW.match(literal)
    if raw:
        return raw.group(2)
    body = literal
    q = body.find('"')
    if q == -1:
        return ""
    body = body[q + 1:]
    if body.endswith('"'):
        backslashes = len(body) - 1 - len(body[:-1].rstrip("\\"))
        if backslashes % 2 == 0:  # the quote closes the literal (it is not escaped)
            body = body[:-1]

    def sub(m: re.Match) -> str:
        e = m.group(1)
        if e[0] == "x":
            # "\\x" without a hex digit is an error to compilers; keep the "x", as for an unknown escape.
            return chr(int(e[1:], 16) & 0xFF) if len(e) > 1 else "x"
        if e[0] in "01234567" and e.isdigit():
            return chr(int(e, 8) & 0xFF)
        if e in ("\n", "\r\n"):
            return ""
        return _SIMPLE_ESCAPES.get(e, e)

    return _ESCAPE.sub(sub, body)


# --- inline asm and PTX ------------------------------------------------------


@dataclass(frozen=True)
class PtxInstruction:
    """One PTX instruction of an asm template.

    ``mnemonic`` is the full dotted name (``shfl.sync.down.b32``), ``opcode``
    its first part (``shfl``), ``modifiers`` the rest. ``predicate`` is the guard
    (``p``, ``!p``) or None. ``operands`` are the comma-separated operand texts
    with ``%%`` already reduced to ``%`` (``%0``, ``%laneid``, ``[%1+4]``).
    """

    mnemonic: str
    opcode: str
    modifiers: tuple[str, ...]
    operands: tuple[str, ...] = ()
    predicate: str | None = None

    def has(self, *mods: str) -> bool:
        """True when every one of ``mods`` is among the modifiers."""
        return all(m in self.modifiers for m in mods)


@dataclass(frozen=True)
class PtxProgram:
    """The parsed template: instructions in order, plus what surrounds them."""

    instructions: tuple[PtxInstruction, ...] = ()
    #: ``.reg``/``.pred``/``.shared`` … directives (their first word).
    directives: tuple[str, ...] = ()
    labels: tuple[str, ...] = ()
    #: Text vado could not read (an operand reference through a macro, say).
    unparsed: tuple[str, ...] = ()
    has_scopes: bool = False
    #: The full text of each directive in ``directives`` (``.reg .pred p, q``), same order.
    directive_texts: tuple[str, ...] = ()

    @property
    def declares_registers(self) -> bool:
        """True when the template declares its own ``.reg`` temporaries."""
        return ".reg" in self.directives


_PTX_LINE_COMMENT = re.compile(r"//[^\n]*")
_PTX_BLOCK_COMMENT = re.compile(r"/\*.*?\*/", re.DOTALL)
_PTX_LABEL = re.compile(r"\s*([A-Za-z_$%][\w$]*)\s*:(?!:)")  # matched at a position (no copy per label)
_PTX_PRED = re.compile(r"^@(!?[%\w$]+)\s*")
_PTX_MNEMONIC = re.compile(r"^([A-Za-z_][\w]*(?:\.[\w:]+)*)")


def parse_ptx(template: str) -> PtxProgram:
    """Split a PTX asm template into instructions.

    Statements end at ``;``; ``{``/``}`` open and close register scopes;
    ``label:`` and ``@p``/``@!p`` guards are recognised; ``//`` and ``/* */``
    comments are dropped; ``%%`` (the asm escape for ``%``) becomes ``%``.
    """
    src = _PTX_BLOCK_COMMENT.sub(" ", template)
    src = _PTX_LINE_COMMENT.sub(" ", src).replace("%%", "%")
    instructions: list[PtxInstruction] = []
    directives: list[str] = []
    directive_texts: list[str] = []
    labels: list[str] = []
    unparsed: list[str] = []
    has_scopes = "{" in src or "}" in src
    for chunk in _ptx_statements(src):
        stmt = chunk.strip()
        at = 0
        while m := _PTX_LABEL.match(stmt, at):
            labels.append(m.group(1))
            at = m.end()
        if at:
            stmt = stmt[at:].strip()
        if not stmt:
            continue
        if stmt.startswith("."):
            directives.append(stmt.split()[0])
            directive_texts.append(" ".join(stmt.split()))
            continue
        pred = None
        pm = _PTX_PRED.match(stmt)
        if pm:
            pred = pm.group(1)
            stmt = stmt[pm.end():]
        mm = _PTX_MNEMONIC.match(stmt)
        if not mm:
            unparsed.append(stmt)
            continue
        mnemonic = mm.group(1)
        rest = stmt[mm.end():].strip()
        parts = mnemonic.split(".")
        operands = tuple(o.strip() for o in _split_operands(rest)) if rest else ()
        instructions.append(PtxInstruction(mnemonic, parts[0], tuple(parts[1:]), operands, pred))
    return PtxProgram(tuple(instructions), tuple(directives), tuple(labels), tuple(unparsed), has_scopes,
                      tuple(directive_texts))


def _ptx_statements(src: str) -> list[str]:
    """Split at ``;``; a brace opens or closes a scope only where a statement could start.

    Braces inside an instruction (vector operands ``{%0, %1}``) stay with it. A statement
    could start where the text since the last split is blank or labels (``L1: L2:``); that
    is followed char by char (``_AT_START`` and the states below), in one pass: a long
    template costs time in proportion to its length.
    """
    out: list[str] = []
    begin = 0  # where the current statement starts in src
    depth = 0  # braces inside the current instruction
    state = _BLANK  # what src[begin:i] is: blank or labels, inside a label name, after one, or an instruction
    for i, ch in enumerate(src):
        if ch in "{}" and depth == 0 and state == _BLANK:
            out.append(src[begin:i])
            begin, state = i + 1, _BLANK
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth = max(0, depth - 1)
        if ch == ";" and depth == 0:
            out.append(src[begin:i])
            begin, state = i + 1, _BLANK
            continue
        if state != _TEXT:
            state = _next_state(state, ch)
    out.append(src[begin:])
    return out


# What the text of a statement so far is, for _ptx_statements: blank or whole labels
# (``\s*(?:[A-Za-z_$][\w$]*\s*:\s*)*``), a label's name, a name then blanks, or anything else.
_BLANK, _NAME, _NAME_END, _TEXT = range(4)


def _next_state(state: int, ch: str) -> int:
    if ch.isspace():
        return _BLANK if state == _BLANK else _NAME_END if state in (_NAME, _NAME_END) else _TEXT
    if state == _BLANK:
        return _NAME if ch.isascii() and (ch.isalpha() or ch in "_$") else _TEXT
    if state == _NAME and (ch.isalnum() or ch in "_$"):
        return _NAME
    if ch == ":" and state in (_NAME, _NAME_END):
        return _BLANK
    return _TEXT


def _split_operands(text: str) -> list[str]:
    return [o for o in split_text_args(text) if o.strip()]


@dataclass(frozen=True)
class AsmOperand:
    """One ``"constraint"(expression)`` operand of an asm statement."""

    constraint: str
    expr: str
    output: bool
    #: The symbolic name of ``[name] "r"(x)`` (referenced as ``%[name]``), or "".
    name: str = ""

    @property
    def read_write(self) -> bool:
        """``+r``-style operands are both read and written."""
        return "+" in self.constraint


@dataclass(frozen=True)
class AsmStatement:
    """An ``asm``/``__asm__`` statement and what its template says.

    ``start``/``end`` cover the keyword through the closing parenthesis;
    ``stmt_end`` includes the ``;`` when there is one. ``template`` is the
    decoded, concatenated string literals of the template; ``opaque`` is true
    when the template also contains non-literal pieces (macros) that vado cannot
    see through. ``in_directive`` marks asm written in a ``#define`` body.
    """

    start: int
    end: int
    stmt_end: int
    keyword: str
    volatile: bool
    template: str
    template_start: int
    template_end: int
    outputs: tuple[AsmOperand, ...] = ()
    inputs: tuple[AsmOperand, ...] = ()
    clobbers: tuple[str, ...] = ()
    opaque: bool = False
    in_directive: bool = False
    program: PtxProgram = field(default_factory=PtxProgram)

    @property
    def operands(self) -> tuple[AsmOperand, ...]:
        """Outputs then inputs: the order of ``%0``, ``%1`` …"""
        return self.outputs + self.inputs

    @property
    def instructions(self) -> tuple[PtxInstruction, ...]:
        """The parsed PTX instructions."""
        return self.program.instructions


def find_asm(
    text: str,
    tokens: list,
    pairs: Mapping[int, int] | None = None,
    *,
    candidates: list[int] | None = None,
    marks: list[int] | None = None,
) -> list[AsmStatement]:
    """Every asm statement in ``tokens`` (code tokens) of ``text``.

    A keyword that is not followed by ``(`` (after qualifiers) is not asm;
    strings and comments never produce asm because they are single tokens.
    ``tokens`` are tokens of ``text``: every asm keyword contains ``asm``, so a
    text without it has no asm statement and costs one substring search.
    ``candidates``, when given, are the indices of the tokens spelt like an asm
    keyword and ``marks`` those of the DIRECTIVE/EOD tokens (both from a
    :class:`DeviceView`), saving passes over ``tokens``.
    """
    if candidates is None and "asm" not in text:
        return []
    if pairs is None:
        pairs = bracket_map(tokens)
    mask = None
    out: list[AsmStatement] = []
    n = len(tokens)
    if candidates is None:
        candidates = [i for i, tok in enumerate(tokens) if tok[3] in _ASM_KEYWORDS]
    for i in candidates:
        tok = tokens[i]
        if tok[0] is not Kind.IDENT:
            continue
        j = i + 1
        volatile = False
        while j < n and tokens[j][0] is Kind.IDENT and tokens[j][3] in _ASM_QUALIFIERS:
            volatile = volatile or "volatile" in tokens[j][3]
            j += 1
        if j >= n or tokens[j][3] != "(" or j not in pairs:
            continue
        close = pairs[j]
        sections = _asm_sections(tokens, j, close)
        tmpl_first, tmpl_end = sections[0]
        pieces = tokens[tmpl_first:tmpl_end]
        opaque = any(p[0] is not Kind.STRING for p in pieces) or not pieces
        template = "".join(decode_string(p[3]) for p in pieces if p[0] is Kind.STRING)
        outputs = _asm_operands(text, tokens, sections[1], True) if len(sections) > 1 else ()
        inputs = _asm_operands(text, tokens, sections[2], False) if len(sections) > 2 else ()
        clobbers = ()
        if len(sections) > 3:
            a, b = sections[3]
            clobbers = tuple(decode_string(t[3]) for t in tokens[a:b] if t[0] is Kind.STRING)
        stmt_end = tokens[close][2]
        if close + 1 < n and tokens[close + 1][3] == ";":
            stmt_end = tokens[close + 1][2]
        if mask is None:
            mask = in_directive_mask(tokens, marks)
        t_start = pieces[0][1] if pieces else tokens[j][2]
        t_end = pieces[-1][2] if pieces else tokens[j][2]
        out.append(
            AsmStatement(
                start=tok[1],
                end=tokens[close][2],
                stmt_end=stmt_end,
                keyword=tok[3],
                volatile=volatile,
                template=template,
                template_start=t_start,
                template_end=t_end,
                outputs=outputs,
                inputs=inputs,
                clobbers=clobbers,
                opaque=opaque,
                in_directive=mask[i],
                program=parse_ptx(template),
            )
        )
    return out


def _asm_sections(tokens: list, open_i: int, close_i: int) -> list[tuple[int, int]]:
    """Split asm parentheses at top-level ``:`` (and ``::``, which is two empty sections)."""
    out: list[tuple[int, int]] = []
    depth = 0
    start = open_i + 1
    for i in range(open_i + 1, close_i):
        t = tokens[i]
        if t[0] is not Kind.PUNCT:
            continue
        if t[3] in OPEN:
            depth += 1
        elif t[3] in CLOSE:
            depth -= 1
        elif depth == 0 and t[3] in (":", "::"):
            out.append((start, i))
            if t[3] == "::":
                out.append((i, i))
            start = i + 1
    out.append((start, close_i))
    return out


def _asm_operands(text: str, tokens: list, section: tuple[int, int], output: bool) -> tuple[AsmOperand, ...]:
    a, b = section
    out = []
    i = a
    while i < b:
        t = tokens[i]
        if t[0] is Kind.STRING and i + 1 < b and tokens[i + 1][3] == "(":
            depth = 0
            k = i + 1
            while k < b:
                if tokens[k][3] in OPEN:
                    depth += 1
                elif tokens[k][3] in CLOSE:
                    depth -= 1
                    if depth == 0:
                        break
                k += 1
            name = ""
            if i - 3 >= a and tokens[i - 1][3] == "]" and tokens[i - 3][3] == "[" and tokens[i - 2][0] is Kind.IDENT:
                name = tokens[i - 2][3]
            out.append(AsmOperand(decode_string(t[3]), text_of(text, tokens, i + 2, k), output, name))
            i = k + 1
        else:
            i += 1
    return tuple(out)
