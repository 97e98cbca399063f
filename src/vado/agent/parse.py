"""A model's answer → edits on one file, validated before anything is written.

The model is asked for SEARCH/REPLACE blocks::

    <<<<<<< SEARCH
    exact lines copied from the code shown
    =======
    the lines that replace them
    >>>>>>> REPLACE

A unified diff (``--- a/f`` / ``+++ b/f`` / ``@@`` hunks) is accepted too; each
hunk becomes one search/replace pair (context and removed lines → added lines).

Validation is what keeps the model inside its lane: every SEARCH text must occur
in the file, exactly once inside the window the model was shown (the finding's
span and the lines around it), the blocks must not overlap, and the result must
differ from the input. The path is never taken from the answer: edits apply to
the file the agent chose. Nothing in an answer is ever executed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from vado.model import Edit

_BLOCK = re.compile(
    r"^[ \t]*<{5,9}[ \t]*SEARCH[^\n]*\n(?P<search>.*?)^[ \t]*={5,9}[ \t]*\n(?P<replace>.*?)^[ \t]*>{5,9}[ \t]*REPLACE[^\n]*$",
    re.S | re.M,
)
_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@[^\n]*$", re.M)

#: An answer may rewrite at most this many characters more than the window holds.
MAX_GROWTH = 8000


class EditRejected(Exception):
    """The answer holds no usable edit; ``reason`` is told to the model on the next attempt."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Block:
    """One search/replace pair as the model wrote it."""

    search: str
    replace: str


def _normalise(text: str) -> str:
    return text.replace("\r\n", "\n")


def parse_blocks(answer: str) -> list[Block]:
    """The SEARCH/REPLACE blocks in ``answer``, else the hunks of a unified diff in it.

    Raises :class:`EditRejected` when it holds neither.
    """
    answer = _normalise(answer)
    blocks = [Block(m["search"], m["replace"]) for m in _BLOCK.finditer(answer)]
    if blocks:
        return blocks
    hunks = _diff_blocks(answer)
    if hunks:
        return hunks
    raise EditRejected(
        "the answer has no edit: write one or more blocks of the form\n"
        "<<<<<<< SEARCH\n<exact lines from the code shown>\n=======\n<new lines>\n>>>>>>> REPLACE"
    )


def _diff_blocks(answer: str) -> list[Block]:
    lines = answer.split("\n")
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        if not _HUNK.match(lines[i]):
            i += 1
            continue
        i += 1
        old: list[str] = []
        new: list[str] = []
        while i < len(lines) and not _HUNK.match(lines[i]) and not lines[i].startswith(("--- ", "+++ ", "```", "diff ")):
            line = lines[i]
            if line.startswith("-"):
                old.append(line[1:])
            elif line.startswith("+"):
                new.append(line[1:])
            elif line.startswith(" "):
                old.append(line[1:])
                new.append(line[1:])
            elif line == "":
                # A blank context line often loses its leading space in transit.
                old.append("")
                new.append("")
            elif line.startswith("\\"):
                pass
            else:
                break
            i += 1
        while old and new and old[-1] == "" and new[-1] == "":
            old.pop()
            new.pop()
        if old:
            blocks.append(Block("\n".join(old) + "\n", "\n".join(new) + ("\n" if new else "")))
    return blocks


def _occurrences(text: str, needle: str) -> list[int]:
    out, start = [], 0
    while True:
        at = text.find(needle, start)
        if at < 0:
            return out
        out.append(at)
        start = at + 1


def _locate(text: str, search: str, window: tuple[int, int]) -> tuple[int, int]:
    """Offsets of ``search`` in ``text`` inside ``window``; tolerant only of trailing whitespace."""
    lo, hi = window
    candidates = [search]
    if search.endswith("\n"):
        # The last line of the file or window may lack its newline.
        candidates.append(search[:-1])
    for needle in candidates:
        if not needle.strip():
            continue
        inside = [p for p in _occurrences(text, needle) if lo <= p and p + len(needle) <= hi]
        if len(inside) == 1:
            return inside[0], inside[0] + len(needle)
        if len(inside) > 1:
            raise EditRejected(f"the SEARCH text occurs {len(inside)} times in the code shown; include more lines so it is unique")
    # Trailing whitespace differs: match line by line with rstrip, still inside the window.
    want = [ln.rstrip() for ln in search.rstrip("\n").split("\n")]
    if not any(want):
        raise EditRejected("a SEARCH block is empty; copy the lines to replace from the code shown")
    region = text[lo:hi]
    starts = [0] + [m.end() for m in re.finditer("\n", region)]
    lines = region.split("\n")
    hits = []
    for k in range(len(lines) - len(want) + 1):
        if [ln.rstrip() for ln in lines[k:k + len(want)]] == want:
            begin = lo + starts[k]
            end_line = k + len(want) - 1
            end = lo + starts[end_line] + len(lines[end_line])
            if search.endswith("\n") and end < hi and text[end:end + 1] == "\n":
                end += 1
            hits.append((begin, end))
    if len(hits) == 1:
        return hits[0]
    if len(hits) > 1:
        raise EditRejected(f"the SEARCH text occurs {len(hits)} times in the code shown; include more lines so it is unique")
    if search.strip() and search.strip() in text:
        raise EditRejected("the SEARCH text is outside the lines you were shown; edit only those lines")
    first = want[0] if want else ""
    raise EditRejected(f"the SEARCH text does not occur in the code (first line: {first[:120]!r}); copy it exactly")


def edits_from_answer(answer: str, path: str, text: str, window: tuple[int, int]) -> list[Edit]:
    """Validated edits for ``path`` (whose text is ``text``) from ``answer``, confined to ``window``.

    ``window`` is the ``[start, end)`` character range of the code shown to the
    model. Raises :class:`EditRejected` with a reason the model can act on.
    """
    blocks = parse_blocks(answer)
    lo, hi = window
    if not (0 <= lo <= hi <= len(text)):
        raise ValueError(f"bad window {window} for a text of {len(text)} characters")
    edits: list[Edit] = []
    for b in blocks:
        start, end = _locate(text, b.search, window)
        replacement = b.replace
        if b.search.endswith("\n") and not text[start:end].endswith("\n") and replacement.endswith("\n"):
            replacement = replacement[:-1]
        edits.append(Edit(path, start, end, replacement))
    edits.sort()
    for a, b in zip(edits, edits[1:]):
        if a.overlaps(b) or b.start < a.end:
            raise EditRejected("two SEARCH blocks overlap; merge them into one")
    if all(text[e.start:e.end] == e.content for e in edits):
        raise EditRejected("the REPLACE text equals the SEARCH text: the edit changes nothing")
    growth = sum(e.delta for e in edits)
    if growth > MAX_GROWTH:
        raise EditRejected(f"the edit adds {growth} characters; keep the change focused on the finding")
    for e in edits:
        check_replacement(text[e.start:e.end], e.content)
    return edits


#: Characters a model's edit may not add: NUL and other C0/C1 controls (a tab, newline,
#: carriage return and form feed aside), and the Unicode direction controls that make
#: code read differently than it compiles ("Trojan Source", CVE-2021-42574).
_FORBIDDEN = re.compile("[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")

#: The ``#`` of a directive as the preprocessor reads it: ``#``, the digraph ``%:`` or the trigraph ``??=``.
_HASH = r"(?:#|%:|\?\?=)"
#: An include-like directive and the file it names (``#include``, ``#include_next``, ``#import``,
#: ``#embed``; ``__has_include``, ``__has_embed``), with ``"..."`` or ``<...>``.
_INCLUDE = re.compile(_HASH + r'\s*(?:include(?:_next)?|import|embed)\s*(?:"([^"\n]*)"|<([^>\n]*)>)'
                      r'|__has_(?:include(?:_next)?|embed)\s*\(\s*(?:"([^"\n]*)"|<([^>\n]*)>)')
#: The same directives naming their file through a macro (``#define F "/etc/shadow"`` then ``#embed F``):
#: what the macro expands to is not seen here, so such an addition is refused.
_MACRO_INCLUDE = re.compile(_HASH + r'\s*(?:include(?:_next)?|import|embed)\s+(?=[A-Za-z_])'
                            r'|__has_(?:include(?:_next)?|embed)\s*\(\s*(?=[A-Za-z_])')
#: ``#pragma GCC dependency "FILE"`` (and its _Pragma form) reads another file's time stamp.
_DEPENDENCY = re.compile(r'[Pp]ragma\b[^\n]*?\bdependency\b')
#: A backslash-newline: the preprocessor joins the lines before it reads a directive.
_SPLICE = re.compile(r"\\\r?\n")


def _escapes(name: str) -> bool:
    """Whether an included name can reach outside the tree: absolute, home-relative or with ``..``."""
    name = name.strip().replace("\\", "/")
    return name.startswith(("/", "~")) or (len(name) > 1 and name[1] == ":") or ".." in name.split("/")


def check_replacement(old: str, new: str) -> None:
    """Refuse a replacement that adds forbidden characters or an include of a file outside the tree.

    What the replaced text already had is allowed again (the model keeps it, it does not add it).
    """
    m = _FORBIDDEN.search(new)
    if m and m.group() not in old:
        raise EditRejected(f"the edit adds the control character U+{ord(m.group()):04X}; write plain source text")
    old, new = _SPLICE.sub("", old), _SPLICE.sub("", new)
    before = {"".join(m) for m in _INCLUDE.findall(old)}
    for m in _INCLUDE.findall(new):
        name = "".join(m)
        if name not in before and _escapes(name):
            raise EditRejected(f"the edit includes {name!r}, a file outside the project; include only project or "
                               "toolchain headers by their usual names")
    if len(_MACRO_INCLUDE.findall(new)) > len(_MACRO_INCLUDE.findall(old)):
        raise EditRejected("the edit includes or embeds a file named by a macro; name project or toolchain headers "
                           "directly (#include \"file.h\")")
    if len(_DEPENDENCY.findall(new)) > len(_DEPENDENCY.findall(old)):
        raise EditRejected("the edit adds #pragma GCC dependency (it reads another file); leave it out")
