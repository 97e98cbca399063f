"""A C/C++/CUDA lexer that keeps exact byte spans.

It works on the latin-1 view of a file (:mod:`vado.model.text`), so every offset
is a byte offset. It never fails: unterminated comments and strings run to the
end of the file (or line), unknown bytes become one-character ``PUNCT`` tokens.
Whitespace and backslash-newline continuations are not tokens; the gaps between
tokens hold them.

A token is a plain tuple ``(kind, start, end, text)``: audit and port lex every
byte of a tree, and a plain tuple costs a third of a named tuple to build. Unpack
it (``kind, start, end, text = tok``) or use the ``KIND``/``START``/``END``/``TEXT``
indices.

Preprocessor directives are lexed as a ``DIRECTIVE`` token (``#`` plus the
directive name, e.g. ``#include`` or ``# define``) followed by the ordinary
tokens of the directive and a zero-width ``EOD`` token where the directive ends
(the first newline not escaped by a backslash). After ``#include``,
``#include_next`` and ``#import`` a ``<...>`` operand is one ``HEADER`` token.
Macro bodies are thus ordinary tokens, which is what porting needs: CUDA names in
``#define`` bodies are translated too.
"""

from __future__ import annotations

import re
from enum import IntEnum


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

_MASTER = re.compile(
    # Alternatives are ordered by frequency in real CUDA code; Python's re tries
    # them in order at every token. ``ident`` refuses string prefixes (u8"", L'',
    # R"()") so the string branches below see them.
    r"""
    (?P<ident>(?!(?:u8|u|U|L)?R?["'])[A-Za-z_$\x80-\xff][0-9A-Za-z_$\x80-\xff]*+)
  | (?P<punct><<<|>>>|<<=|>>=|->\*|\.\.\.|<=>|::|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[+\-*%&|^]=|\.\*|[(){}\[\];,*&=+\-!~?:|^%<>]|\.(?![0-9]))
  | (?P<number>\.?[0-9](?:[eEpP][+-]|'(?=[0-9A-Za-z_])|[0-9A-Za-z_.])*+)
  | (?P<lcomment>//(?:[^\r\n\\]|\\(?:\r?\n|.)|\\)*+)
  | (?P<bcomment>/\*(?:.*?\*/|.*\Z))
  | (?P<string>(?:u8|u|U|L)?"(?:[^"\\\r\n]|\\(?:\r?\n|.))*+(?:"|(?=[\r\n])|\Z))
  | (?P<char>(?:u8|u|U|L)?'(?:[^'\\\r\n]|\\(?:\r?\n|.))*+(?:'|(?=[\r\n])|\Z))
  | (?P<raw>(?:u8|u|U|L)?R"(?P<delim>[^ ()\\\t\v\f\r\n]{0,16})\((?:.*?\)(?P=delim)"|.*\Z))
  | (?P<directive>^[ \t\f\v]*\#(?:[ \t\f\v]|\\\r?\n)*(?P<dname>[A-Za-z_]\w*)?)
  | (?:(?<=include)|(?<=include_next)|(?<=import))[ \t\f\v]*(?P<header><[^>\r\n]*>)
  | (?P<other>/=|\\\r?\n|[^ \t\f\v\r\n])
    """,
    re.VERBOSE | re.DOTALL | re.MULTILINE,
)

# A directive ends at the first newline that no backslash escapes.
_DIRECTIVE_END = re.compile(r"(?<!\\)\n|(?<!\\)\r(?!\n)|\Z")
_CONTINUATION = re.compile(r"\\\r?\n")
_INCLUDE_NAME = re.compile(r"#(?:[ \t\f\v]|\\\r?\n)*(?:include|include_next|import)\Z")

_KIND_OF = {
    "ident": Kind.IDENT,
    "punct": Kind.PUNCT,
    "number": Kind.NUMBER,
    "lcomment": Kind.COMMENT,
    "bcomment": Kind.COMMENT,
    "string": Kind.STRING,
    "char": Kind.CHAR,
    "raw": Kind.STRING,
    "directive": Kind.DIRECTIVE,
    "header": Kind.HEADER,
    "other": Kind.PUNCT,
}


def tokenize(text: str, offset: int = 0) -> list[Token]:
    """All tokens of ``text`` in order (see the module docstring for the rules).

    ``offset`` is added to every position, for lexing a slice of a larger text.
    """
    kind_of = _KIND_OF
    # The bulk pass is one comprehension (the hot loop); directives, headers and
    # line continuations are rare and fixed up in slices afterwards.
    raw = [(kind_of[m.lastgroup], m.start(), m.end(), m.group()) for m in _MASTER.finditer(text)]
    DIRECTIVE = Kind.DIRECTIVE
    marks = [i for i, t in enumerate(raw) if t[0] >= DIRECTIVE]
    tokens = _fix_directives(text, raw, marks) if marks else raw
    if "\\" in text:
        tokens = [t for t in tokens if not (t[0] is Kind.PUNCT and t[3][0] == "\\" and len(t[3]) > 1)]
    if offset:
        tokens = [(k, s + offset, e + offset, t) for k, s, e, t in tokens]
    return tokens


def _fix_directives(text: str, raw: list[Token], marks: list[int]) -> list[Token]:
    out: list[Token] = []
    n = len(raw)
    prev = 0
    for i in marks:
        if i < prev:
            continue  # consumed by the directive before
        out.extend(raw[prev:i])
        kind, start, end, _ = raw[i]
        if kind is Kind.HEADER:  # '<' after a word that merely ends in "include"
            lt = text.index("<", start)
            out.extend(tokenize(text[lt:end], lt))
            prev = i + 1
            continue
        hash_at = text.index("#", start)
        dtext = text[hash_at:end]
        out.append((Kind.DIRECTIVE, hash_at, end, dtext))
        directive_end = _directive_end(text, end)
        include_pending = _INCLUDE_NAME.match(dtext) is not None
        j = i + 1
        while j < n and raw[j][1] < directive_end:
            tok = raw[j]
            k, s, e, t = tok
            if k is Kind.HEADER:
                lt = text.index("<", s)
                if include_pending:
                    out.append((Kind.HEADER, lt, e, text[lt:e]))
                else:
                    out.extend(tokenize(text[lt:e], lt))
            elif k is Kind.DIRECTIVE:  # a continuation line starting with '#': stringizing
                h = text.index("#", s)
                out.append((Kind.PUNCT, h, h + 1, "#"))
                out.extend(tokenize(text[h + 1:e], h + 1))
            else:
                out.append(tok)
            include_pending = False
            j += 1
        out.append((Kind.EOD, directive_end, directive_end, ""))
        prev = j
    out.extend(raw[prev:])
    return out


def _directive_end(text: str, pos: int) -> int:
    end = _DIRECTIVE_END.search(text, pos).start()
    # A block comment that opens on the directive line and spans lines carries
    # the directive on to the line where the comment closes (C11 5.1.1.2 phase 3).
    block = text.find("/*", pos, end)
    while block != -1:
        close = text.find("*/", block + 2)
        if close == -1:
            return len(text)
        if close + 2 > end:
            end = _DIRECTIVE_END.search(text, close + 2).start()
        block = text.find("/*", close + 2, end)
    return end


def code_tokens(tokens: list[Token]) -> list[Token]:
    """``tokens`` without comments: what the compiler sees, in order."""
    comment = Kind.COMMENT
    return [t for t in tokens if t[0] != comment]


def joined_directive_text(text: str) -> str:
    """Text of a directive with backslash-newline continuations removed."""
    return _CONTINUATION.sub("", text)
