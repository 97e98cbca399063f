"""Shallow CUDA/C++ structure over the token stream, shared by the device-code rules.

vado does not parse C++; the rules need only a few shapes, found with bracket
matching over the lexer's tokens (:mod:`vado.scan.lexer`):

- brackets and call arguments (:func:`bracket_map`, :func:`split_args`);
- inline ``asm`` statements with their template strings decoded and their PTX
  split into instructions (:func:`find_asm`, :func:`parse_ptx`);
- function definitions with their CUDA execution-space qualifiers
  (:func:`find_functions`);
- ``__shared__`` declarations (:func:`find_shared_decls`);
- object-like ``#define`` macros (:func:`find_defines`);
- a per-file cache of all of these (:func:`device_view`) and the verdict helpers
  the device-code rule families share (:func:`warp_verdict`, :func:`hip_at_least`).

Every function takes *code tokens* (comments removed, see
:func:`vado.scan.lexer.code_tokens`) unless it says otherwise, never raises on
malformed input, and returns plain frozen dataclasses with byte offsets.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from vado.model import Verdict
from vado.native import ext as _native_ext
from vado.scan.classify import FileKind
from vado.scan.facts import source_code_tokens
from vado.scan.lexer import Kind, is_native_tokens

if _native_ext is not None:
    Mapping.register(_native_ext.BracketPairs)

OPEN = {"(": ")", "[": "]", "{": "}"}
CLOSE = {")": "(", "]": "[", "}": "{"}
_BRACKETS = frozenset("()[]{}")

#: Words that precede ``(`` without being a function name.
_NOT_FUNCTIONS = frozenset(
    "if for while switch catch return sizeof alignof decltype typeid static_assert "
    "noexcept new delete throw co_return co_await co_yield __attribute__ __declspec "
    "__launch_bounds__ alignas defined asm __asm__ __asm else do case".split()
)
#: Tokens that may sit between a parameter list's ``)`` and a function body's ``{``.
_AFTER_PARAMS = frozenset("const volatile noexcept override final mutable throw &".split()) | {"&&"}
#: Execution-space and inlining qualifiers collected for a function.
FUNCTION_QUALIFIERS = frozenset(
    "__global__ __device__ __host__ __forceinline__ __noinline__ inline static extern constexpr "
    "virtual template".split()
)
_ASM_KEYWORDS = frozenset({"asm", "__asm__", "__asm"})
_ASM_QUALIFIERS = frozenset({"volatile", "__volatile__", "__volatile", "inline", "goto"})


def bracket_map(tokens: list) -> Mapping[int, int]:
    """``{index of an open bracket: index of its close}`` and the reverse, for balanced pairs.

    Unbalanced brackets (from macros or ``#if`` arms) are left out rather than
    mismatched: a close that does not match the innermost open pops back to the
    nearest open of its kind, dropping the ones in between. For compiled tokens
    the map is a read-only ``BracketPairs`` over one array (a big file has
    hundreds of thousands of brackets, and rules look a few up), equal to the
    dict :func:`python_bracket_map` builds.
    """
    if is_native_tokens(tokens):
        return tokens.bracket_map()
    return python_bracket_map(tokens)


def python_bracket_map(tokens: list) -> dict[int, int]:
    """:func:`bracket_map` in Python, the reference of the compiled one."""
    pairs: dict[int, int] = {}
    stack: list[tuple[str, int]] = []
    # Only PUNCT tokens have a bracket as their whole text (strings, chars and
    # headers keep their delimiters), so a text test finds exactly the brackets;
    # the comprehension runs at C speed and the stack loop sees brackets only.
    for i in [i for i, tok in enumerate(tokens) if tok[3] in _BRACKETS]:
        t = tokens[i][3]
        if t in OPEN:
            stack.append((t, i))
        else:
            want = CLOSE[t]
            if stack and stack[-1][0] == want:  # the common, balanced case
                j = stack.pop()[1]
                pairs[j] = i
                pairs[i] = j
                continue
            for depth in range(len(stack) - 1, -1, -1):
                if stack[depth][0] == want:
                    j = stack[depth][1]
                    del stack[depth:]
                    pairs[j] = i
                    pairs[i] = j
                    break
    return pairs


#: A plain integer literal: its digits (decimal without a leading zero, or hex) and suffix letters only.
_PLAIN_INTEGER = re.compile(r"(0|[1-9][0-9]*|0[xX][0-9a-fA-F]+)[uUlLzZ]*")


def _plain_above(literal: str, limit: int) -> bool:
    """Whether ``literal`` is a plain integer (:data:`_PLAIN_INTEGER`) whose value exceeds ``limit``."""
    m = _PLAIN_INTEGER.fullmatch(literal)
    if m is None:
        return False
    digits = m.group(1)
    if digits[:2] in ("0x", "0X"):
        return int(digits, 16) > limit  # hex: int() has no digit limit for a power-of-two base
    # A decimal longer than the limit's is above it; int() refuses more than 4300 digits.
    return len(digits) > len(str(limit)) or int(digits) > limit


class SpellingIndex:
    """Where each spelling of an IDENT, PUNCT or NUMBER token is, for one token sequence.

    The three kinds never share a spelling (numbers start with a digit or a ``.``
    and a digit, punctuators hold no letter or digit, names start with neither),
    so a text decides the kind of all its tokens. The pure-Python index behind
    ``vado._native_ext.Tokens.where``/``spellings``, which give the same answers.
    """

    def __init__(self, tokens: list) -> None:
        by_text: dict[str, list[int]] = {}
        marks: list[int] = []
        strings: list[int] = []
        grouped = (Kind.IDENT, Kind.PUNCT, Kind.NUMBER)
        kinds: dict[str, Kind] = {}
        for i, tok in enumerate(tokens):
            if tok[0] in grouped:
                hits = by_text.get(tok[3])
                if hits is None:
                    by_text[tok[3]] = [i]
                    kinds[tok[3]] = tok[0]
                else:
                    hits.append(i)
            elif tok[0] is Kind.DIRECTIVE or tok[0] is Kind.EOD:
                marks.append(i)
            elif tok[0] is Kind.STRING:
                strings.append(i)
        self._by_text, self._kinds, self._marks, self._strings = by_text, kinds, marks, strings
        self._tokens = tokens

    def where(self, text: str) -> list[int]:
        """Indices of the tokens spelt ``text``, in order."""
        return list(self._by_text.get(text, ()))

    def spellings(self, kind: Kind) -> list[str]:
        """The distinct texts of the tokens of ``kind``, in first-use order."""
        return [t for t, k in self._kinds.items() if k is kind]

    def directive_marks(self) -> list[int]:
        """Indices of the DIRECTIVE and EOD tokens."""
        return list(self._marks)

    def indices_of(self, texts, kind: Kind) -> list[int]:
        """Indices of the tokens of ``kind`` spelt one of ``texts`` (an iterable of str), in order."""
        return sorted(i for t in set(texts) if self._kinds.get(t) is kind for i in self._by_text[t])

    def integer_spellings(self, limit: int = -1) -> list[str]:
        """The distinct NUMBER texts that may be integers, in first-use order: those without a
        ``.`` and, with ``limit`` >= 0, without the plain integers above it (:func:`_plain_above`:
        a data table's thousands of large literals never reach Python)."""
        return [t for t, k in self._kinds.items() if k is Kind.NUMBER and "." not in t
                and not (limit >= 0 and _plain_above(t, limit))]

    def directives(self) -> list[int]:
        """Indices of the DIRECTIVE tokens."""
        return [i for i in self._marks if self._tokens[i][0] is Kind.DIRECTIVE]

    def string_indices(self) -> list[int]:
        """Indices of the STRING tokens."""
        return list(self._strings)

    def has_any(self, texts) -> bool:
        """Whether some IDENT, PUNCT or NUMBER token is spelt one of ``texts``."""
        return any(t in self._by_text for t in texts)

    def texts(self, indices) -> list[str]:
        """The texts of the tokens at ``indices`` (compiled tokens skip building their tuples)."""
        return [self._tokens[i][3] for i in indices]

    def kind_indices(self, kind: Kind) -> list[int]:
        """Indices of the tokens of ``kind`` (any kind, HEADER included), in order."""
        return [i for i, tok in enumerate(self._tokens) if tok[0] is kind]

    def spelling_mentions(self, kind: Kind, words) -> bool:
        """Whether a spelling of ``kind`` holds one of ``words`` (lower-case) in any case."""
        low = "\n".join(self.spellings(kind)).lower()
        return any(w in low for w in words)


def _holds(ordered: list[int], value: int) -> bool:
    """Whether the sorted list ``ordered`` holds ``value``."""
    at = bisect.bisect_left(ordered, value)
    return at < len(ordered) and ordered[at] == value


def spelling_index(tokens) -> "SpellingIndex":
    """The :class:`SpellingIndex` of ``tokens`` (a compiled token sequence is its own index)."""
    if is_native_tokens(tokens):
        return tokens
    return SpellingIndex(tokens)


def matching(tokens: list, i: int, pairs: Mapping[int, int] | None = None) -> int | None:
    """Index of the bracket that matches the one at ``i``, or None."""
    if pairs is None:
        pairs = bracket_map(tokens)
    return pairs.get(i)


def split_args(tokens: list, open_i: int, close_i: int) -> list[tuple[int, int]]:
    """Top-level comma-separated pieces between brackets ``open_i`` and ``close_i``.

    Returns ``(first, end)`` token index ranges (``end`` exclusive); an empty
    argument list gives ``[]``, an empty piece between commas gives ``(i, i)``.
    """
    out: list[tuple[int, int]] = []
    depth = 0
    start = open_i + 1
    if start >= close_i:
        return out
    for i in range(open_i + 1, close_i):
        tok = tokens[i]
        if tok[0] is Kind.PUNCT:
            t = tok[3]
            if t in OPEN:
                depth += 1
            elif t in CLOSE:
                depth -= 1
            elif t == "," and depth == 0:
                out.append((start, i))
                start = i + 1
    out.append((start, close_i))
    return out


def text_of(text: str, tokens: list, first: int, end: int) -> str:
    """Source text covered by tokens ``[first, end)`` (with its original spacing)."""
    if first >= end:
        return ""
    return text[tokens[first][1]:tokens[end - 1][2]]


#: Widths of the chevron tokens a launch's ``<<<``/``>>>`` may be split into.
_CHEVRON_WIDTH = {"<<<": 3, "<<": 2, "<": 1, ">>>": 3, ">>": 2, ">": 1}


def chevron_run(tokens, text: str, i: int) -> int:
    """The index of the last token of a launch chevron starting at token ``i``: ``i`` itself for
    ``<<<``/``>>>``, the last of ``<< <``, ``< <<``, ``>> >`` … (three ``<`` or ``>`` split only by
    spaces, as clang-format writes old CUDA code, which nvcc accepts and clang does not); -1 otherwise."""
    tok = tokens[i]
    width = _CHEVRON_WIDTH.get(tok[3])
    if width is None or tok[0] is not Kind.PUNCT:
        return -1
    if width == 3:
        return i
    ch = tok[3][0]
    j = i
    while width < 3 and j + 1 < len(tokens):
        nxt = tokens[j + 1]
        w = _CHEVRON_WIDTH.get(nxt[3])
        if w is None or nxt[0] is not Kind.PUNCT or nxt[3][0] != ch or width + w > 3 or text[tokens[j][2]:nxt[1]].strip():
            return -1
        width += w
        j += 1
    return j if width == 3 else -1


def spaced_launches(tokens, text: str, starts=None) -> list[tuple[int, int, int, int]]:
    """``(open first, open last, close first, close last)`` token indices of each kernel launch whose
    ``<<<`` or ``>>>`` is split by spaces (``k<< <grid, block >> >(args)``): after a name (or a
    template argument list), the configuration's brackets balanced, the closing run followed by ``(``.

    ``starts`` are the indices of the ``<<<`` and ``<<`` tokens when known (a spelling index has them);
    a split ``<<<`` holds a ``<<`` (``<< <``, ``< <<``)."""
    if starts is None:
        starts = [k for k, t in enumerate(tokens) if t[0] is Kind.PUNCT and t[3] in ("<<<", "<<")]
    out = []
    n = len(tokens)
    done = -1
    for i in sorted({k - 1 if k > 0 and tokens[k][3] == "<<" and tokens[k - 1][3] == "<" else k for k in starts}):
        if i <= done or i == 0:
            continue
        last = chevron_run(tokens, text, i)
        prev = tokens[i - 1]
        if last < 0 or not (prev[0] is Kind.IDENT or prev[3] in (">", ">>")):
            continue
        depth, j, close = 0, last + 1, None
        while j < n:
            t = tokens[j]
            if t[0] is Kind.PUNCT:
                if t[3] in ("(", "[", "{"):
                    depth += 1
                elif t[3] in (")", "]", "}"):
                    depth -= 1
                    if depth < 0:
                        break
                elif t[3] == ";" or (t[3][0] == "<" and chevron_run(tokens, text, j) >= 0):
                    break
                elif depth == 0 and t[3][0] == ">":
                    end = chevron_run(tokens, text, j)
                    if end >= 0:
                        close = (j, end)
                        break
            elif t[0] is Kind.DIRECTIVE:
                break
            j += 1
        if close is not None and close[1] + 1 < n and tokens[close[1] + 1][3] == "(" and (last > i or close[1] > close[0]):
            out.append((i, last, close[0], close[1]))
            done = close[1]
    return out


def statement_start(tokens: list, i: int) -> int:
    """Index of the first token of the statement that contains token ``i``."""
    j = i
    while j > 0:
        t = tokens[j - 1]
        if (t[0] is Kind.PUNCT and t[3] in (";", "{", "}")) or t[0] is Kind.EOD:
            break
        j -= 1
    return j


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
    out, depth, cur = [], 0, []
    for ch in text:
        if ch in "[{(":
            depth += 1
        elif ch in "]})":
            depth -= 1
        if ch == "," and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    out.append("".join(cur))
    return [o for o in out if o.strip()]


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


def directive_ranges(tokens: list, marks: list[int] | None = None) -> list[tuple[int, int]]:
    """``(directive index, EOD index)`` of every preprocessor directive.

    ``marks`` are the indices of the DIRECTIVE and EOD tokens when known.
    """
    out = []
    start = None
    directive, eod = Kind.DIRECTIVE, Kind.EOD
    if marks is None:
        marks = [i for i, tok in enumerate(tokens) if tok[0] is directive or tok[0] is eod]
    for i in marks:
        if tokens[i][0] is directive:
            start = i
        elif start is not None:
            out.append((start, i))
            start = None
    return out


def in_directive_mask(tokens: list, marks: list[int] | None = None) -> list[bool]:
    """Per token: True when it lies inside a preprocessor directive."""
    mask = [False] * len(tokens)
    for a, b in directive_ranges(tokens, marks):
        for i in range(a, b + 1):
            mask[i] = True
    return mask


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


# --- functions -----------------------------------------------------------------


@dataclass(frozen=True)
class FunctionDef:
    """A function definition: its name, CUDA qualifiers and body.

    ``body_open``/``body_close`` are token indices of the braces; ``start`` is
    the offset of the first qualifier (or the name), ``name_start``/``name_end``
    the name's span.
    """

    name: str
    qualifiers: frozenset[str]
    name_index: int
    body_open: int
    body_close: int
    start: int
    name_start: int
    name_end: int
    body_start: int
    body_end: int

    @property
    def is_kernel(self) -> bool:
        """``__global__``."""
        return "__global__" in self.qualifiers

    @property
    def is_device(self) -> bool:
        """Runs on the device: ``__global__`` or ``__device__`` (also ``__host__ __device__``)."""
        return "__global__" in self.qualifiers or "__device__" in self.qualifiers

    def contains(self, offset: int) -> bool:
        """True when ``offset`` lies inside the body."""
        return self.body_start <= offset < self.body_end


def find_functions(
    tokens: list, pairs: Mapping[int, int] | None = None, *, opens: list[int] | None = None
) -> list[FunctionDef]:
    """Function definitions (free functions, methods, templates) in source order.

    A definition is ``name ( ... ) [qualifiers] {``; qualifiers before the name
    are collected back to the previous ``;``, ``{``, ``}`` or directive end,
    skipping ``__launch_bounds__(...)``/``__attribute__((...))`` groups and
    template parameter lists. ``opens``, when given, are the indices of the
    ``(`` tokens (from a :class:`DeviceView`). Compiled tokens are read in C (with
    their own bracket pairs, which are :func:`bracket_map`'s); :func:`python_find_functions`
    is the reference.
    """
    if is_native_tokens(tokens):
        return [
            FunctionDef(name=tokens[i][3], qualifiers=frozenset(quals), name_index=i, body_open=j, body_close=close,
                        start=start, name_start=name_start, name_end=name_end, body_start=body_start, body_end=body_end)
            for i, j, close, start, name_start, name_end, body_start, body_end, quals
            in tokens.functions(_NOT_FUNCTIONS, _AFTER_PARAMS, FUNCTION_QUALIFIERS)
        ]
    return python_find_functions(tokens, pairs, opens=opens)


def python_find_functions(
    tokens: list, pairs: Mapping[int, int] | None = None, *, opens: list[int] | None = None
) -> list[FunctionDef]:
    """:func:`find_functions` in Python, for any token sequence: the reference of the compiled one."""
    if pairs is None:
        pairs = bracket_map(tokens)
    out: list[FunctionDef] = []
    n = len(tokens)
    if opens is None:
        opens = [k for k, tok in enumerate(tokens) if tok[3] == "("]
    # A definition's name is the token before a "(": look only there.
    for i in [k - 1 for k in opens if k]:
        tok = tokens[i]
        if tok[0] is not Kind.IDENT or tok[3] in _NOT_FUNCTIONS:
            continue
        if (i + 1) not in pairs:
            continue
        if i > 0 and tokens[i - 1][3] in (".", "->", "new", "=", "return", ",", "("):
            continue
        j = pairs[i + 1] + 1
        while j < n:
            t = tokens[j]
            if t[3] in _AFTER_PARAMS:
                j += 1
            elif t[3] in ("__attribute__", "noexcept", "throw", "__launch_bounds__") and j + 1 < n and tokens[j + 1][3] == "(":
                j = pairs.get(j + 1, j) + 1
            elif t[3] == "->":  # trailing return type: skip to the body
                k = j + 1
                while k < n and tokens[k][3] not in ("{", ";"):
                    k += 1
                j = k
                break
            else:
                break
        if j >= n or tokens[j][3] != "{" or j not in pairs:
            continue
        # A constructor initialiser list (": a(x), b(y) {") also reaches "{" only through ":",
        # which the loop above does not skip, so such constructors are simply not found.
        quals, start = _qualifiers_before(tokens, i, pairs)
        close = pairs[j]
        out.append(
            FunctionDef(
                name=tok[3],
                qualifiers=frozenset(quals),
                name_index=i,
                body_open=j,
                body_close=close,
                start=start,
                name_start=tok[1],
                name_end=tok[2],
                body_start=tokens[j][1],
                body_end=tokens[close][2],
            )
        )
    return out


def _qualifiers_before(tokens: list, i: int, pairs: Mapping[int, int]) -> tuple[set[str], int]:
    quals: set[str] = set()
    start = tokens[i][1]
    k = i - 1
    while k >= 0:
        t = tokens[k]
        if t[0] is Kind.EOD or t[0] is Kind.DIRECTIVE or t[3] in (";", "{", "}"):
            break
        if t[3] == ")" and k in pairs:
            opener = pairs[k]
            if opener > 0 and tokens[opener - 1][3] in ("__launch_bounds__", "__attribute__", "__declspec", "alignas", "__align__"):
                k = opener - 2
                start = tokens[opener - 1][1]
                continue
            break
        if t[3] == ">":  # template parameter list: walk back to its "template"
            depth = 0
            m = k
            while m >= 0:
                if tokens[m][3] == ">":
                    depth += 1
                elif tokens[m][3] == ">>":
                    depth += 2
                elif tokens[m][3] == "<":
                    depth -= 1
                    if depth <= 0:
                        break
                elif tokens[m][3] in (";", "{", "}"):
                    break
                m -= 1
            k = m - 1
            continue
        if t[3] == ":" and k > 0 and tokens[k - 1][3] in ("public", "private", "protected"):
            break
        if t[0] is Kind.IDENT and t[3] in FUNCTION_QUALIFIERS:
            quals.add(t[3])
        start = t[1]
        k -= 1
    return quals, start


def enclosing_function(functions: list[FunctionDef], offset: int) -> FunctionDef | None:
    """The innermost function whose body contains ``offset``."""
    best = None
    for f in functions:
        if f.contains(offset) and (best is None or f.body_start >= best.body_start):
            best = f
    return best


# --- __shared__ declarations --------------------------------------------------------------


@dataclass(frozen=True)
class SharedDecl:
    """One declarator of a ``__shared__`` declaration: ``__shared__ float s[32];``.

    ``dims`` are the texts between each pair of brackets (``("32",)``);
    ``extern`` marks ``extern __shared__`` (dynamic) arrays.
    """

    name: str
    type_text: str
    dims: tuple[str, ...]
    volatile: bool
    extern: bool
    start: int
    end: int
    name_start: int
    name_end: int


def find_shared_decls(
    text: str, tokens: list, pairs: Mapping[int, int] | None = None, *, candidates: list[int] | None = None
) -> list[SharedDecl]:
    """Every ``__shared__`` variable declarator, in order (``tokens`` are tokens of ``text``).

    ``candidates``, when given, are the indices of the ``__shared__`` tokens.
    """
    if candidates is None and "__shared__" not in text:
        return []
    if pairs is None:
        pairs = bracket_map(tokens)
    out: list[SharedDecl] = []
    n = len(tokens)
    if candidates is None:
        candidates = [i for i, tok in enumerate(tokens) if tok[3] == "__shared__"]
    for i in candidates:
        tok = tokens[i]
        if tok[0] is not Kind.IDENT:
            continue
        s = statement_start(tokens, i)
        end = i + 1
        depth = 0
        while end < n:
            t = tokens[end][3]
            if t in OPEN:
                depth += 1
            elif t in CLOSE:
                depth -= 1
                if depth < 0:
                    break
            elif t == ";" and depth == 0:
                break
            end += 1
        prefix = [t[3] for t in tokens[s:i]]
        extern = "extern" in prefix
        volatile = "volatile" in prefix
        decl_tokens = list(range(i + 1, end))
        # Split declarators at top-level commas.
        pieces: list[list[int]] = [[]]
        depth = 0
        for k in decl_tokens:
            t = tokens[k][3]
            if t in OPEN:
                depth += 1
            elif t in CLOSE:
                depth -= 1
            if t == "," and depth == 0:
                pieces.append([])
            else:
                pieces[-1].append(k)
        type_text = ""
        for p_idx, piece in enumerate(pieces):
            name_k = None
            dims: list[str] = []
            k_iter = 0
            while k_iter < len(piece):
                k = piece[k_iter]
                t = tokens[k]
                if t[3] == "=":
                    break
                if t[3] == "(" and k in pairs:  # __align__(16), alignas(16)
                    close = pairs[k]
                    while k_iter < len(piece) and piece[k_iter] <= close:
                        k_iter += 1
                    continue
                if t[3] == "[" and k in pairs:
                    close = pairs[k]
                    dims.append(text_of(text, tokens, k + 1, close))
                    while k_iter < len(piece) and piece[k_iter] <= close:
                        k_iter += 1
                    continue
                if t[0] is Kind.IDENT and not dims:
                    if t[3] == "volatile":
                        volatile = True
                    else:
                        name_k = k
                k_iter += 1
            if name_k is None:
                continue
            if p_idx == 0:
                type_text = " ".join(
                    tokens[k][3] for k in piece if k < name_k and tokens[k][3] not in ("volatile",)
                    and tokens[k][0] is Kind.IDENT
                )
            last = piece[-1]
            out.append(
                SharedDecl(
                    name=tokens[name_k][3],
                    type_text=type_text,
                    dims=tuple(dims),
                    volatile=volatile,
                    extern=extern,
                    start=tokens[s][1],
                    end=tokens[last][2],
                    name_start=tokens[name_k][1],
                    name_end=tokens[name_k][2],
                )
            )
    return out


# --- macros ------------------------------------------------------------------------


@dataclass(frozen=True)
class MacroDef:
    """An object-like ``#define NAME body``; ``body`` tokens are kept for inspection."""

    name: str
    body: tuple
    start: int
    end: int
    name_start: int
    name_end: int

    @property
    def body_text(self) -> str:
        """The body tokens joined by spaces."""
        return " ".join(t[3] for t in self.body)


def find_defines(tokens: list, marks: list[int] | None = None) -> list[MacroDef]:
    """Object-like macro definitions (function-like ones, ``#define F(x)``, are skipped).

    ``marks`` are the indices of the DIRECTIVE and EOD tokens when known.
    """
    out: list[MacroDef] = []
    for a, b in directive_ranges(tokens, marks):
        d = tokens[a][3]
        if not d.replace(" ", "").replace("\t", "").endswith("define"):
            continue
        if a + 1 >= b or tokens[a + 1][0] is not Kind.IDENT:
            continue
        name = tokens[a + 1]
        body_first = a + 2
        if body_first < b and tokens[body_first][3] == "(" and tokens[body_first][1] == name[2]:
            continue  # function-like
        out.append(MacroDef(name[3], tuple(tokens[body_first:b]), tokens[a][1], tokens[b][1], name[1], name[2]))
    return out


def _decimal(digits: str) -> int:
    """``int(digits)`` for any number of digits (``int`` refuses more than
    ``sys.get_int_max_str_digits()``, 4300 by default), by chunks below that limit."""
    if len(digits) <= 4000:
        return int(digits)
    value = 0
    for i in range(0, len(digits), 4000):
        chunk = digits[i : i + 4000]
        value = value * 10 ** len(chunk) + int(chunk)
    return value


@functools.lru_cache(maxsize=65536)  # files repeat the same few literals (0, 1, 32, 256 …)
def int_value(literal: str) -> int | None:
    """Value of a C integer literal (``32``, ``0x20``, ``32u``, ``0b100000``, ``1'000``), else None."""
    t = literal.replace("'", "").rstrip("uUlLzZ")
    try:
        if t[:2] in ("0x", "0X"):
            return int(t[2:], 16)
        if t[:2] in ("0b", "0B"):
            return int(t[2:], 2)
        if len(t) > 1 and t[0] == "0" and t.isdigit():
            return int(t, 8)
        if t.isdigit():
            return _decimal(t)
    except ValueError:
        return None
    return None


# --- per-file view and shared verdict helpers ---------------------------------------
#: CUDA and C++ sources and headers (already-ported .hip files are not audited for CUDA idioms).
CUDA_CXX_KINDS = frozenset({FileKind.CUDA_SOURCE, FileKind.CUDA_HEADER, FileKind.CXX_SOURCE, FileKind.CXX_HEADER})


@dataclass
class DeviceView:
    """Lazily built structure of one file."""

    text: str
    tokens: list
    _pairs: Mapping | None = field(default=None, repr=False)
    _functions: list | None = field(default=None, repr=False)
    _asm: list | None = field(default=None, repr=False)
    _shared: list | None = field(default=None, repr=False)
    _defines: list | None = field(default=None, repr=False)
    _starts: list | None = field(default=None, repr=False)
    _by_start: list | None = field(default=None, repr=False)
    _index: SpellingIndex | None = field(default=None, repr=False)
    _marks: list | None = field(default=None, repr=False)
    _strings: list | None = field(default=None, repr=False)
    _header_names: list | None = field(default=None, repr=False)
    _numbers: dict = field(default_factory=dict, repr=False)  # limit → {value: literals} (number_indices)
    _number_hits: dict = field(default_factory=dict, repr=False)  # values → indices (number_indices)
    _token_starts: list | None = field(default=None, repr=False)

    @property
    def pairs(self) -> Mapping[int, int]:
        """Bracket pairs of the code tokens."""
        if self._pairs is None:
            self._pairs = bracket_map(self.tokens)
        return self._pairs

    @property
    def functions(self) -> list[FunctionDef]:
        """Function definitions."""
        if self._functions is None:
            # Compiled tokens are read in C, which needs neither the pairs nor the opens.
            native = is_native_tokens(self.tokens)
            self._functions = find_functions(self.tokens) if native else find_functions(
                self.tokens, self.pairs, opens=self.text_indices("(", Kind.PUNCT))
        return self._functions

    @property
    def asm(self) -> list[AsmStatement]:
        """Inline asm statements."""
        if self._asm is None:
            # The text test first: most files have no asm and need no bracket map.
            # Every asm statement starts with one of these names: most files have none.
            hits = self.text_indices(_ASM_KEYWORDS, Kind.IDENT)
            self._asm = find_asm(self.text, self.tokens, self.pairs, candidates=hits, marks=self.directive_marks) if hits else []
        return self._asm

    @property
    def shared(self) -> list[SharedDecl]:
        """``__shared__`` declarators."""
        if self._shared is None:
            hits = self.text_indices("__shared__", Kind.IDENT)
            self._shared = find_shared_decls(self.text, self.tokens, self.pairs, candidates=hits) if hits else []
        return self._shared

    # Indexes for rules that look for a few names, operators or numbers: one pass over
    # the code tokens (compiled where vado._native_ext is built) groups token indices by
    # spelling, so a rule costs nothing per token in files without its names. Every
    # lookup gives exactly the tokens a loop over all code tokens comparing ``kind`` and
    # ``text`` would give, in order.

    @property
    def spelling_index(self) -> SpellingIndex:
        """Where each name, operator and number of the code tokens is (see :class:`SpellingIndex`)."""
        if self._index is None:
            self._index = spelling_index(self.tokens)
        return self._index

    @property
    def directive_marks(self) -> list[int]:
        """Indices of the DIRECTIVE and EOD code tokens, in order."""
        if self._marks is None:
            self._marks = self.spelling_index.directive_marks()
        return self._marks

    @property
    def string_indices(self) -> list[int]:
        """Indices of the STRING code tokens, in order."""
        if self._strings is None:
            self._strings = self.spelling_index.string_indices()
        return self._strings

    @property
    def header_names(self) -> list[tuple[tuple, str]]:
        """``(token, base name)`` of every ``<…>`` include operand and every string literal
        ending in ``.h"`` (quoted include operands among them), in order."""
        if self._header_names is None:
            toks, index, marks = self.tokens, self.spelling_index, self.directive_marks
            # A HEADER token follows its directive directly: code tokens hold no comments.
            # Looked up from the few HEADER tokens, and the string texts read without
            # their tuples: a big file has thousands of directives and strings.
            picked = [i for i in index.kind_indices(Kind.HEADER) if _holds(marks, i - 1)]
            strings = self.string_indices
            picked += [i for i, text in zip(strings, index.texts(strings)) if text.endswith('.h"')]
            self._header_names = [(toks[i], toks[i][3].strip('<>"').split("/")[-1]) for i in sorted(picked)]
        return self._header_names

    @property
    def token_starts(self) -> list[int]:
        """Start offset of each code token (for bisection)."""
        if self._token_starts is None:
            self._token_starts = [t[1] for t in self.tokens]
        return self._token_starts

    def text_indices(self, texts, kind: Kind) -> list[int]:
        """Indices of the code tokens of ``kind`` spelt one of ``texts``, in order."""
        if isinstance(texts, str):
            texts = (texts,)
        return self.spelling_index.indices_of(texts, kind)

    def ident_indices(self, names) -> list[int]:
        """Indices of the IDENT code tokens whose text is one of ``names``, in order."""
        return self.text_indices(names, Kind.IDENT)

    def idents_matching(self, pattern: re.Pattern, needle: str = "") -> list[int]:
        """Indices of IDENT code tokens whose whole text ``pattern`` matches, in order.

        ``pattern`` must match identifier characters only (see :func:`ident_pattern`).
        ``needle``, when given, is a string every match contains: a file whose text
        lacks it has no match, found without a look at its names.
        """
        if needle and needle not in self.text:
            return []
        index, fullmatch = self.spelling_index, pattern.fullmatch
        return sorted(i for t in index.spellings(Kind.IDENT) if fullmatch(t) for i in index.where(t))

    def punct_indices(self, punct: str) -> list[int]:
        """Indices of the PUNCT code tokens spelt ``punct`` (``"<<<"``), in order."""
        return self.text_indices(punct, Kind.PUNCT)

    def number_indices(self, *values: int) -> list[int]:
        """Indices of the NUMBER code tokens whose :func:`int_value` is one of ``values``, in order."""
        # Literals by value, for values up to a limit: the rules ask for small widths (5, 31,
        # 32), and a data table's thousands of larger literals are left out in C.
        hit = self._number_hits.get(values)
        if hit is not None:
            return list(hit)  # several rules of a file ask for 32
        limit = max(values, default=-1)
        if limit < 0:
            return []
        limit = 1 << max(limit.bit_length(), 6)  # a few limits serve every question
        by_value = self._numbers.get(limit)
        if by_value is None:
            by_value = self._numbers[limit] = {}
            for literal in self.spelling_index.integer_spellings(limit):
                v = int_value(literal)
                if v is not None:
                    by_value.setdefault(v, []).append(literal)
        hit = self._number_hits[values] = self.spelling_index.indices_of(
            [lit for v in set(values) for lit in by_value.get(v, ())], Kind.NUMBER)
        return list(hit)

    @property
    def defines(self) -> list[MacroDef]:
        """Object-like macros."""
        if self._defines is None:
            self._defines = find_defines(self.tokens, self.directive_marks)
        return self._defines

    def function_at(self, offset: int) -> FunctionDef | None:
        """Innermost function whose body holds ``offset`` (binary search: rules ask per token)."""
        if self._starts is None:
            self._by_start = sorted(self.functions, key=lambda f: f.body_start)
            self._starts = [f.body_start for f in self._by_start]
        i = bisect.bisect_right(self._starts, offset) - 1
        # Definitions rarely nest (local classes); look back a few for an enclosing one.
        for k in range(i, max(-1, i - 8), -1):
            if self._by_start[k].contains(offset):
                return self._by_start[k]
        return None

    def in_device_code(self, offset: int) -> bool:
        """True when ``offset`` is inside a ``__global__``/``__device__`` function body."""
        f = self.function_at(offset)
        return f is not None and f.is_device


#: Characters of an identifier, as the lexer reads them.
_ID_CHAR = "0-9A-Za-z_$\\x80-\\xff"


def ident_pattern(body: str) -> re.Pattern:
    """A regex finding ``body`` (identifier characters only) where an identifier may end.

    No look-behind: a hit that starts inside a longer identifier is not a token
    start and :meth:`DeviceView.idents_matching` drops it; since such a hit is a
    suffix of a run of identifier characters, it never hides a real token (the
    one place a token starts right after identifier characters is after a UTF-8
    byte order mark, which a look-behind would get wrong).
    """
    return re.compile(rf"(?:{body})(?![{_ID_CHAR}])")


def device_view(ctx) -> DeviceView:
    """The shared :class:`DeviceView` of ``ctx`` (built on first use)."""
    # Kept as an attribute of the context object: every rule of one file gets the same
    # context from the engine, and the view dies with it.
    view = getattr(ctx, "_device_view", None)
    if view is None or view.text is not ctx.text:
        view = DeviceView(ctx.text, source_code_tokens(ctx))
        ctx._device_view = view
    return view


def version_tuple(v: str | None) -> tuple[int, ...]:
    """``"7.2"`` → ``(7, 2)``; unparsable parts count as 0."""
    if not v:
        return ()
    out = []
    for part in str(v).split("."):
        digits = "".join(ch for ch in part if ch.isdigit())
        out.append(int(digits) if digits else 0)
    return tuple(out)


def hip_at_least(target, version: str) -> bool:
    """True when ``target`` is a HIP target whose HIP version is at least ``version``."""
    return target.hip_version is not None and version_tuple(target.hip_version) >= version_tuple(version)


def has_wave64(target) -> bool:
    """True when some architecture of ``target`` runs 64-wide wavefronts by default."""
    return target.max_wavefront > 32


def warp_verdict(target, *, fixable: bool, scale_as_is: bool = True) -> Verdict | None:
    """Verdict of a 32-wide-warp assumption on ``target``.

    - rocm: wave64 architectures (CDNA) break the assumption: automatic edits when
      ``fixable``, else manual; a rocm target of only wave32 archs moves as is.
    - zluda: RDNA only (wave32): moves as is.
    - oneapi: sub-group sizes are chosen per kernel and differ per GPU: manual.
    - scale: SCALE emulates a 32-wide warp on every target by default
      (scale-docs diagnostic-reference, ``-Wptx-wave64``), so as is unless the
      caller says the pattern also breaks under emulation.
    """
    fam = target.family
    if fam == "rocm":
        if not has_wave64(target):
            return Verdict.MOVES_AS_IS
        return Verdict.AUTOMATIC if fixable else Verdict.MANUAL
    if fam == "zluda":
        return Verdict.MOVES_AS_IS if not has_wave64(target) else Verdict.MANUAL
    if fam == "oneapi":
        return Verdict.MANUAL
    if fam == "scale":
        return Verdict.MOVES_AS_IS if scale_as_is else Verdict.MANUAL
    return None


#: Why SCALE moves warp-32 code as is (cited by the WARP findings' data).
SCALE_WARP_NOTE = (
    "SCALE emulates a warp size of 32 on all targets by default (since v1.3.0); most programs see no "
    "measurable slowdown, but patterns such as alternating warps taking different paths are pathological"
)
SCALE_WARP_SOURCE = (
    "https://github.com/spectral-compute/scale-docs/blob/f20700f5f55e411fd0c0c1b03da5b896b5b6eae3/"
    "docs/manual/compiler/diagnostic-reference.md"
)
HIP_WARP_SOURCE = (
    "https://github.com/ROCm/HIP/blob/c5e11fcac8249ce4f7e70157588ff9661a870b59/docs/reference/kernel_language.rst"
)
