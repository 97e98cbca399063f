"""A C/C++/CUDA lexer that keeps exact byte spans.

It works on the latin-1 view of a file (:mod:`vado.model.text`), so every offset
is a byte offset. It never fails: unterminated comments and raw strings run to the
end of the file, unterminated strings and character literals to the end of their
line, and any other byte becomes a one-character ``PUNCT`` token (a lone ``\\``,
``@``, a NUL byte, ...).

A token is a plain tuple ``(kind, start, end, text)`` with
``text == source[start:end]``: audit and port lex every byte of a tree, and a plain
tuple costs a third of a named tuple to build. Unpack it
(``kind, start, end, text = tok``) or use the ``KIND``/``START``/``END``/``TEXT``
indices. Tokens are sorted and do not overlap; the gaps between them hold only
whitespace (space, tab, form feed, vertical tab, CR, LF), line splices, and a
UTF-8 byte order mark at offset 0.

Line splices
    A backslash followed by a newline (``\\n``, ``\\r\\n`` or a lone ``\\r``) is
    deleted before tokenizing (C11 5.1.1.2 phase 2). Like GCC and Clang, vado also
    accepts spaces or tabs between the backslash and the newline. A splice between
    tokens is whitespace. A splice inside a token (``cuda\\<newline>Malloc``) is
    kept in the token's text, so ``text`` is still the exact source slice; use
    :func:`spelling` to get what the compiler sees (``cudaMalloc``). The one known
    gap: splices inside a raw string are not reverted when a splice sits right next
    to other characters on both sides (the file takes the spliced path below) and
    forms the raw string's closing ``)delim"``.

Literals
    Strings, characters and raw strings take their prefixes (``u8 u U L`` and
    ``R``) and a user-defined-literal suffix that starts with ``_`` (``"abc"_s``).
    Like GCC, a suffix without ``_`` is a separate identifier, so ``"%"PRId64``
    stays a string followed by a macro. Numbers are preprocessing numbers: digit
    separators (``1'000``), hex floats (``0x1p-3``) and suffixes (``1.0_km``,
    ``2.f``) are part of the token.

Preprocessor directives
    A ``#`` that is the first token of a line (comments before it count as
    whitespace) starts a directive: one ``DIRECTIVE`` token (``#`` plus the
    directive name, e.g. ``#include`` or ``# define``; just ``#`` for a null
    directive or a ``# 1 "file"`` line marker), then the ordinary tokens of the
    directive, then a zero-width ``EOD`` token where the directive ends: at the
    first newline that is not spliced and not inside a comment (a block comment
    that spans lines carries the directive on, C11 5.1.1.2 phase 3). After
    ``#include``, ``#include_next`` and ``#import`` a ``<...>`` operand is one
    ``HEADER`` token. ``#`` and ``##`` inside a directive (stringizing, token
    pasting) and anywhere else are ``PUNCT``. Macro bodies are thus ordinary
    tokens, which is what porting needs: CUDA names in ``#define`` bodies are
    translated too.

``>>>`` and ``<<<``
    ``<<<`` and ``>>>`` are always one token each (maximal munch, as nvcc lexes
    them), so ``a<b<c>>>d`` and ``std::vector<std::vector<std::vector<int>>>``
    end in a ``>>>`` that closes three template argument lists. A consumer that
    matches angle brackets must count ``>>>`` as three ``>`` (and ``>>`` as two)
    unless it is closing a ``<<<`` launch configuration.
"""

from __future__ import annotations

import bisect
import re
from enum import IntEnum
from typing import Sequence

from vado import native


class Kind(IntEnum):
    """Token kinds."""

    IDENT = 1
    NUMBER = 2
    STRING = 3  # ordinary, prefixed (u8/u/U/L) and raw strings
    CHAR = 4
    COMMENT = 5  # line and block comments
    PUNCT = 6
    DIRECTIVE = 7  # '#' + directive name at the start of a line
    HEADER = 8  # <path> operand of #include
    EOD = 9  # zero-width end of a directive


Token = tuple  # (Kind, start, end, text); see the module docstring
KIND, START, END, TEXT = 0, 1, 2, 3

_NL = r"(?:\r\n|\n|\r)"
_SPLICE_RE = r"\\[ \t\f\v]*" + _NL
_ID0 = r"[A-Za-z_$\x80-\xff]"
_ID1 = r"[0-9A-Za-z_$\x80-\xff]"
_UD_SUFFIX = rf"(?:_{_ID1}*+)?"
_PUNCT = (
    r"<<<|>>>|<<=|>>=|->\*|\.\.\.|<=>|::|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[+\-*%&|^]=|\.\*"
    r"|[(){}\[\];,*&=+\-!~?:|^%<>]|\.(?![0-9])"
)


def _master(splices: bool) -> re.Pattern:
    """The token regex. With ``splices`` the text may hold line splices (the fast
    path: splices between tokens are skipped as whitespace, splices inside strings
    and line comments are part of them); without, splices were deleted beforehand
    and a backslash before a newline is an ordinary character."""
    if splices:
        ws = rf"(?:[ \t\f\v\r\n]++|{_SPLICE_RE})*+"
        esc = rf"\\(?:[ \t\f\v]*{_NL}|.)"  # an escape sequence or a splice
        lc_body = rf"(?:[^\r\n\\]++|{_SPLICE_RE}|\\)*+"
    else:
        ws = r"[ \t\f\v\r\n]*+"
        esc = r"\\[^\r\n]"
        lc_body = r"[^\r\n]*+"
    # Every match is leading whitespace plus one named group; the whitespace is
    # consumed inside the match because Python's re otherwise retries every
    # alternative at every blank (twice the time). Alternatives are ordered by
    # frequency. ``end`` takes trailing whitespace in one match (without it every
    # blank at the end of a text would start a failing scan to the end: quadratic).
    # ``ident`` refuses a name right before a quote so that string
    # prefixes (u8"", L'', R"()") reach the literal branches; ``ident2`` takes
    # the names that are not prefixes after all (``foo"x"``, ``R'x'``).
    return re.compile(
        rf"""{ws}(?:
        (?P<ident>{_ID0}{_ID1}*+(?!["']))
      | (?P<punct>{_PUNCT})
      | (?P<number>\.?[0-9](?:[eEpP][+-]|'(?=[0-9A-Za-z_])|[0-9A-Za-z_.])*+)
      | (?P<lcomment>//{lc_body})
      | (?P<bcomment>/\*(?:.*?\*/|.*\Z))
      | (?P<string>(?:u8|u|U|L)?"(?:[^"\\\r\n]++|{esc})*+(?:"{_UD_SUFFIX}|(?=[\r\n])|\Z))
      | (?P<char>(?:u8|u|U|L)?'(?:[^'\\\r\n]++|{esc})*+(?:'{_UD_SUFFIX}|(?=[\r\n])|\Z))
      | (?P<raw>(?:u8|u|U|L)?R"(?P<delim>[^ ()\\\t\v\f\r\n]{{0,16}})\((?:.*?\)(?P=delim)"{_UD_SUFFIX}|.*\Z))
      | (?P<hash>\#\#?)
      | (?P<ident2>{_ID0}{_ID1}*+)
      | (?P<other>/=|.)
      | (?P<end>\Z)
    )""",
        re.VERBOSE | re.DOTALL,
    )


class _Syntax:
    """The regexes of one lexing mode (with or without splices in the text).

    They are compiled on first use: where the compiled lexer runs (``vado._native_ext``)
    the Python lexer's regexes are seldom needed, and compiling them was a part of
    every start.
    """

    __slots__ = ("splices", "master", "kinds", "line_rest", "splice")

    def __init__(self, splices: bool) -> None:
        self.splices = splices

    def __getattr__(self, name: str):
        # Called only for a slot not yet set: compile them all, then read it.
        if name not in ("master", "kinds", "line_rest", "splice"):
            raise AttributeError(name)
        self._compile(self.splices)
        return object.__getattribute__(self, name)

    def _compile(self, splices: bool) -> None:
        self.master = _master(splices)
        names = {
            "ident": Kind.IDENT,
            "ident2": Kind.IDENT,
            "punct": Kind.PUNCT,
            "number": Kind.NUMBER,
            "lcomment": Kind.COMMENT,
            "bcomment": Kind.COMMENT,
            "string": Kind.STRING,
            "char": Kind.CHAR,
            "raw": Kind.STRING,
            # '#' is a directive start or PUNCT; decided in _fix_directives.
            "hash": Kind.DIRECTIVE,
            "other": Kind.PUNCT,
        }
        kinds: list = [None] * (self.master.groups + 1)
        for name, index in self.master.groupindex.items():
            kinds[index] = names.get(name)
        self.kinds = kinds
        # The rest of a logical line: up to the first newline that is not spliced.
        if splices:
            self.line_rest = re.compile(rf"(?:[^\r\n\\]++|{_SPLICE_RE}|\\)*+")
            self.splice = re.compile(_SPLICE_RE)
        else:
            self.line_rest = re.compile(r"[^\r\n]*+")
            self.splice = None


_FAST = _Syntax(splices=True)
_KINDS = (None, *sorted(Kind))  # indexed by kind value, for the compiled lexer
_native = native.ext
if _native is not None:
    _native.set_kinds(_KINDS)
_use_native = True  # see python_tokens
_SPLICED = _Syntax(splices=False)
_SPLICE = re.compile(_SPLICE_RE)
# A run of splices with a non-blank character right before and right after it may
# join two pieces into one token (``foo\<newline>bar``); such files are lexed with
# the splices deleted first. Elsewhere a splice is whitespace or sits inside a
# string or line comment, which the fast path handles exactly.
_JOINING_SPLICE = re.compile(rf"(?<=[^ \t\f\v\r\n])(?:{_SPLICE_RE})+(?=[^ \t\f\v\r\n])")
_HEADER_NAME = re.compile(r"<[^>\r\n]*>")
_INCLUDE_NAMES = frozenset({"include", "include_next", "import"})


def tokenize(text: str, offset: int = 0) -> list[Token]:
    """All tokens of ``text`` in order (see the module docstring for the rules).

    ``offset`` is added to every position, for lexing a slice of a larger text.
    Never raises, whatever ``text`` holds.
    """
    if "\\" in text and _joins_tokens(text):
        tokens = _tokenize_spliced(text)
    else:
        tokens = _lex(text, _FAST)
    if offset:
        tokens = [(k, s + offset, e + offset, t) for k, s, e, t in tokens]
    return tokens


def lex(text: str) -> "Sequence[Token]":
    """The tokens of ``text`` as a read-only sequence, equal to :func:`tokenize`'s list.

    Where the compiled lexer is built, this is a ``vado._native_ext.Tokens``: the
    tokens are kept as C structs and each tuple is built when first read, so a
    caller that reads few of them (audit's rules) never pays for the rest. Use
    :func:`tokenize` where a real list is needed.
    """
    if _native is not None and _use_native and not _joins_tokens(text):
        start = _bom_length(text)
        tokens = _native.lex_tokens(text, start)
        if tokens is not None:
            return tokens
    return tokenize(text)


def is_native_tokens(tokens: object) -> bool:
    """Whether ``tokens`` is a compiled token sequence (see :func:`lex`)."""
    return _native is not None and type(tokens) is _native.Tokens


def _joins_tokens(text: str) -> bool:
    """Whether a line splice in ``text`` may join two pieces into one token."""
    if _native is not None and _use_native:
        joins = _native.joining_splice(text)
        if joins is not None:
            return joins
    return _JOINING_SPLICE.search(text) is not None


def python_tokens(text: str, offset: int = 0) -> list[Token]:
    """:func:`tokenize` by the pure-Python lexer, even where the compiled one is built.

    The Python lexer is the reference: tests compare the compiled lexer with it.
    """
    global _use_native
    _use_native = False
    try:
        return tokenize(text, offset)
    finally:
        _use_native = True


def _lex_range(text: str, syntax: _Syntax, pos: int = 0, endpos: int | None = None) -> list[Token]:
    kinds = syntax.kinds
    it = syntax.master.finditer(text, pos, len(text) if endpos is None else endpos)
    # The hot loop: one comprehension, the group index looked up once per match.
    out = [(kinds[i := m.lastindex], m.start(i), m.end(), m.group(i)) for m in it]
    while out and out[-1][0] is None:  # the zero-width ``end`` match(es)
        out.pop()
    return out


def _bom_length(text: str) -> int:
    """Length of a leading byte order mark, which is not a token.

    A UTF-8 one (``\xef\xbb\xbf`` in the latin-1 view) or a decoded U+FEFF; its bytes
    would otherwise start an identifier and hide a first-line directive.
    """
    return 3 if text.startswith("\xef\xbb\xbf") else 1 if text.startswith("\ufeff") else 0


def _lex(text: str, syntax: _Syntax) -> list[Token]:
    start = _bom_length(text)
    if _native is not None and _use_native:
        # The compiled translation of _lex_range + _fix_directives (vado/_native/lexer.c);
        # None for a text that is not a latin-1 view (characters above U+00FF).
        tokens = _native.lex(text, start, syntax is _SPLICED, _KINDS)
        if tokens is not None:
            return tokens
    raw = _lex_range(text, syntax, start)
    if "#" in text:
        return _fix_directives(text, raw, syntax)
    return raw


def _fix_directives(text: str, raw: list[Token], syntax: _Syntax) -> list[Token]:
    """Turn ``#`` tokens into directives (name, operands, EOD) or ``PUNCT``."""
    DIRECTIVE, PUNCT, COMMENT, IDENT = Kind.DIRECTIVE, Kind.PUNCT, Kind.COMMENT, Kind.IDENT
    line_rest = syntax.line_rest.match
    out: list[Token] = []
    marks = [i for i, t in enumerate(raw) if t[0] is DIRECTIVE]
    n = len(raw)
    prev = 0  # raw[:prev] has been handled
    mi = 0
    while mi < len(marks):
        i = marks[mi]
        mi += 1
        if i < prev:
            continue  # inside the directive before: handled there
        out.extend(raw[prev:i])
        _, hs, he, htext = raw[i]
        prev = i + 1
        if htext != "#" or not _at_line_start(text, raw, i, syntax):
            out.append((PUNCT, hs, he, htext))
            continue
        # The directive name: an identifier on the same logical line.
        j = i + 1
        name = ""
        dend = he
        if j < n and raw[j][0] is IDENT and not _has_newline(text[he:raw[j][1]], syntax):
            name = raw[j][3]
            dend = raw[j][2]
            j += 1
        out.append((DIRECTIVE, hs, dend, text[hs:dend]))
        end = line_rest(text, dend).end()
        is_include = spelling(name) in _INCLUDE_NAMES if name else False
        first = True
        while j < n and raw[j][1] < end:
            tok = raw[j]
            k, s, e, t = tok
            if e > end:  # a block comment or raw string spanning lines carries the directive on
                end = line_rest(text, e).end()
            if first and is_include and t[0] == "<":
                m = _HEADER_NAME.match(text, s)
                if m is not None and m.end() <= end:
                    hend = m.end()
                    out.append((Kind.HEADER, s, hend, m.group()))
                    j += 1
                    while j < n and raw[j][2] <= hend:
                        j += 1
                    if j < n and raw[j][1] < hend:
                        # A token straddles the '>' (``<a'b>``, ``<a//b>``): lex the rest anew.
                        raw = raw[:j] + _lex_range(text, syntax, hend)
                        n = len(raw)
                        marks = [x for x in range(j, n) if raw[x][0] is DIRECTIVE]
                        mi = 0
                    end = line_rest(text, hend).end()
                    first = False
                    continue
            first = False
            if k is DIRECTIVE:  # '#' or '##' inside a directive: stringizing, pasting
                tok = (PUNCT, s, e, t)
            out.append(tok)
            j += 1
        out.append((Kind.EOD, end, end, ""))
        prev = j
    out.extend(raw[prev:])
    return out


def _has_newline(gap: str, syntax: _Syntax) -> bool:
    """Whether a gap between tokens ends a line (splices do not)."""
    if "\n" not in gap and "\r" not in gap:
        return False
    if syntax.splice is not None:
        gap = syntax.splice.sub("", gap)
    return "\n" in gap or "\r" in gap


def _at_line_start(text: str, raw: list[Token], i: int, syntax: _Syntax) -> bool:
    """Whether ``raw[i]`` is the first token of its line, comments not counting."""
    pos = raw[i][1]
    j = i - 1
    while j >= 0:
        k, s, e, _ = raw[j]
        if _has_newline(text[e:pos], syntax):
            return True
        if k is not Kind.COMMENT:
            return False
        pos = s
        j -= 1
    return True  # only comments and blanks before it in the file


def _tokenize_spliced(text: str) -> list[Token]:
    """Lex with every line splice deleted, then map the spans back to ``text``."""
    seg_start = [0]  # offset in the spliced text where each segment starts
    seg_shift = [0]  # original offset minus spliced offset within that segment
    pieces = []
    pos = 0
    removed = 0
    for m in _SPLICE.finditer(text):
        pieces.append(text[pos:m.start()])
        removed += m.end() - m.start()
        pos = m.end()
        seg_start.append(pos - removed)
        seg_shift.append(removed)
    pieces.append(text[pos:])
    spliced = "".join(pieces)
    tokens = _lex(spliced, _SPLICED)
    find = bisect.bisect_right
    out = []
    for k, s, e, _ in tokens:
        os_ = s + seg_shift[find(seg_start, s) - 1]
        if e == s:  # EOD: before the newline it stands at
            oe = os_
        else:
            oe = e - 1 + seg_shift[find(seg_start, e - 1) - 1] + 1
        out.append((k, os_, oe, text[os_:oe]))
    return out


def code_tokens(tokens: list[Token]) -> list[Token]:
    """``tokens`` without comments: what the compiler sees, in order."""
    comment = Kind.COMMENT
    return [t for t in tokens if t[0] != comment]


def spelling(text: str) -> str:
    """A token's text as the compiler sees it: line splices removed.

    ``spelling("cuda\\\\\\nMalloc") == "cudaMalloc"``. Raw strings keep their
    splices in C++, so do not pass them here when the exact contents matter.
    """
    if "\\" not in text:
        return text
    return _SPLICE.sub("", text)


def joined_directive_text(text: str) -> str:
    """Text of a directive with backslash-newline continuations removed."""
    return spelling(text)
