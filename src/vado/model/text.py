"""Source text as vado sees it: bytes viewed as latin-1.

Latin-1 maps every byte to exactly one code point, so decoding never fails, a
character offset equals a byte offset, and encoding back gives the original bytes.
Lexers, rules and edits all work in this view; only display code decodes as UTF-8.
"""

from __future__ import annotations

from vado import native


def decode_source(data: bytes) -> str:
    """Bytes → text whose character offsets are byte offsets."""
    return data.decode("latin-1")


def encode_source(text: str) -> bytes:
    """Inverse of :func:`decode_source`.

    Characters above U+00FF cannot come from a decoded file; they can only be in
    replacement text that vado (or a model) wrote, and are stored as UTF-8.
    """
    try:
        return text.encode("latin-1")
    except UnicodeEncodeError:
        return b"".join(
            ch.encode("latin-1") if ord(ch) < 256 else ch.encode("utf-8") for ch in text
        )


def display_text(data: bytes | str) -> str:
    """Text for humans: UTF-8 where valid, with replacement characters elsewhere."""
    if isinstance(data, str):
        data = encode_source(data)
    return data.decode("utf-8", errors="replace")


def line_starts(text: str) -> list[int]:
    """Offsets at which each line begins (``\\n`` ends a line; ``\\r\\n`` counts once)."""
    if native.ext is not None:
        starts = native.ext.line_starts(text)
        if starts is not None:
            return starts
    return python_line_starts(text)


def python_line_starts(text: str) -> list[int]:
    """:func:`line_starts` in Python, the reference of the compiled one."""
    starts = [0]
    find = text.find
    i = find("\n")
    while i != -1:
        starts.append(i + 1)
        i = find("\n", i + 1)
    return starts


class LineIndex:
    """Maps byte offsets to 1-based (line, column) in one file, by binary search."""

    __slots__ = ("_starts",)

    def __init__(self, text: str) -> None:
        self._starts = line_starts(text)

    def position(self, offset: int) -> tuple[int, int]:
        """(line, column) of ``offset``, both 1-based."""
        import bisect

        line = bisect.bisect_right(self._starts, offset)
        return line, offset - self._starts[line - 1] + 1

    def line_start(self, line: int) -> int:
        """Offset where 1-based ``line`` starts."""
        return self._starts[line - 1]

    @property
    def line_count(self) -> int:
        """Number of lines."""
        return len(self._starts)


def split_text_args(text: str, brackets: str = "()[]{}", most: int = 0) -> list[str]:
    """``text`` cut at its commas outside the ``brackets`` (pairs, opening then closing: ``"()[]{}<>"`` counts
    template brackets too); every piece as written, blanks included, an empty text giving ``[""]``. With
    ``most``, at most that many pieces: the last keeps the rest of the text, commas included."""
    opening, closing = brackets[0::2], brackets[1::2]
    out, depth, cur = [], 0, []
    for ch in text:
        if ch in opening:
            depth += 1
        elif ch in closing:
            depth -= 1
        if ch == "," and depth == 0 and (not most or len(out) < most - 1):
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    out.append("".join(cur))
    return out
