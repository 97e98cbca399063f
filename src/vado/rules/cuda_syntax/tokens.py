"""Token-level shapes: bracket matching (:func:`bracket_map` and its Python reference), the spelling
index of a token sequence (:class:`SpellingIndex`), call arguments, launch chevrons, statement starts,
preprocessor directive ranges, integer literal values and identifier patterns.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Mapping

from vado.model.text import split_text_args  # noqa: F401 - re-exported: the rules' import place
from vado.native import ext as _native_ext
from vado.scan.lexer import Kind, is_native_tokens

if _native_ext is not None:
    Mapping.register(_native_ext.BracketPairs)

#: C++'s alternative spellings of operators (``not``, ``and``, ``or``, ``bitand`` …): identifiers to the lexer,
#: operators to the compiler. A name after one is an operand (``not done and __all_sync(m, p)``), never a
#: declarator whose type the word would be (DeepEP's kernels spell their conditions so).
OPERATOR_WORDS = frozenset({"and", "and_eq", "bitand", "bitor", "compl", "not", "not_eq", "or", "or_eq", "xor",
                            "xor_eq"})
#: Keywords an expression follows, and :data:`OPERATOR_WORDS`: a call after one is a call, not the
#: declaration of a function of that name (``return __shfl_sync(…)``, ``else __syncwarp()``, ``x or __any(…)``).
EXPRESSION_WORDS = frozenset({"return", "else", "case", "throw", "do", "co_return", "co_yield", "co_await"}) | OPERATOR_WORDS
OPEN = {"(": ")", "[": "]", "{": "}"}
CLOSE = {")": "(", "]": "[", "}": "{"}
_BRACKETS = frozenset("()[]{}")


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


def enclosing_paren(tokens, i: int, *, comma_stops: bool = False) -> int | None:
    """Index of the unmatched ``(`` that encloses token ``i`` within its statement, scanning back from ``i - 1``;
    None when a statement boundary (``;``, ``{``, ``}``, the end of a directive) comes first, or, with
    ``comma_stops``, a ``,`` outside nested parentheses (``i`` is then not in the first argument)."""
    depth, k = 0, i - 1
    while k >= 0:
        tok = tokens[k]
        t = tok[3]
        if t == ")":
            depth += 1
        elif t == "(":
            if depth == 0:
                return k
            depth -= 1
        elif t in (";", "{", "}") or tok[0] is Kind.EOD or (comma_stops and t == "," and depth == 0):
            return None
        k -= 1
    return None


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
