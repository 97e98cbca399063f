"""CMake's syntax as CMake reads it: commands and their quoted, bracket and unquoted arguments, line and bracket
comments (:func:`cmake_commands`, in time linear in the text). The CMake fact reader and other modules
(the project scope, the BLD rules, the port's CMake edits) read CMake files through it."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from vado.scan.pydeps import Problem


@dataclass(frozen=True, slots=True)  # slots: a CMake file of short arguments makes millions
class CMakeArg:
    """One argument: ``text`` is its content (quotes and brackets removed, escapes kept)."""

    text: str
    start: int
    end: int
    quoted: bool = False


@dataclass(frozen=True, slots=True)
class CMakeCommand:
    """A command invocation ``name(args)``."""

    name: str
    start: int
    end: int
    name_start: int
    name_end: int
    args: tuple[CMakeArg, ...] = ()

    @property
    def lname(self) -> str:
        """Lower-case name (CMake command names are case-insensitive)."""
        return self.name.lower()


#: CMake's tokens, as one regular expression: the reference of :func:`_cmake_token`, which
#: finds the same tokens by hand. Matching this expression costs ~300 bytes of stack per
#: byte of a long argument (an alternation inside a repeat saves state at each character) and
#: scans to the end of the text again at every unclosed ``[[``.
_CMAKE_TOKEN = re.compile(
    r"""
    (?P<bcomment>\#\[(?P<beq>=*)\[.*?\](?P=beq)\])
  | (?P<comment>\#[^\n]*)
  | (?P<bracket>\[(?P<eq>=*)\[.*?\](?P=eq)\])
  | (?P<quoted>"(?:[^"\\]|\\.)*"?)
  | (?P<open>\()
  | (?P<close>\))
  | (?P<unquoted>(?:[^\s()#"\\]|\\.)(?:[^\s()"\\]|\\.)*)
  | (?P<ws>\s+)
    """,
    re.VERBOSE | re.DOTALL,
)
_CMAKE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_OPEN_BRACKET = re.compile(r"\[(=*)\[")
_UNQUOTED_RUN = re.compile(r'[^\s()"\\]*')
_QUOTED_RUN = re.compile(r'[^"\\]*')
_BLANKS = re.compile(r"\s+")


def _cmake_token(text: str, i: int, unclosed: set[int]) -> tuple[str, int, int, int] | None:
    """The token at ``i``: ``(kind, start, end, length of the "=" run of a bracket)``, or None;
    ``_CMAKE_TOKEN.match(text, i)`` (kind is its ``lastgroup``) in time linear in the token.

    ``unclosed`` holds the "=" counts of brackets found to have no close after some point
    (``]==]`` missing from there on): a later bracket of that count has none either, so
    the text is searched for each close at most once after its last occurrence.
    """
    n = len(text)
    c = text[i]
    if c == "#" or c == "[":
        at = i + 1 if c == "#" else i
        m = _OPEN_BRACKET.match(text, at) if at < n and text[at] == "[" else None
        if m is not None:
            eq = m.end(1) - m.start(1)
            if eq not in unclosed:
                end = text.find("]" + "=" * eq + "]", m.end())
                if end != -1:
                    return ("bcomment" if c == "#" else "bracket"), i, end + eq + 2, eq
                unclosed.add(eq)
        if c == "#":
            end = text.find("\n", i)
            return "comment", i, n if end == -1 else end, 0
    if c == '"':
        j = i + 1
        while True:
            j = _QUOTED_RUN.match(text, j).end()
            if j + 1 < n and text[j] == "\\":
                j += 2
                continue
            break
        if j < n and text[j] == '"':
            j += 1
        return "quoted", i, j, 0
    if c == "(":
        return "open", i, i + 1, 0
    if c == ")":
        return "close", i, i + 1, 0
    if c == "\\":
        if i + 1 >= n:
            return None
        j = i + 2
    elif c.isspace():
        return "ws", i, _BLANKS.match(text, i).end(), 0
    else:
        j = i + 1  # c is none of \s ( ) # " \ here
    while True:
        j = _UNQUOTED_RUN.match(text, j).end()
        if j + 1 < n and text[j] == "\\":
            j += 2
            continue
        return "unquoted", i, j, 0


def cmake_commands(text: str) -> tuple[list[CMakeCommand], list[Problem]]:
    """Command invocations of a CMake file, in order; an unclosed one is a :class:`Problem`."""
    cmds, probs = _cmake_commands(text)
    return list(cmds), list(probs)


@functools.lru_cache(maxsize=32)  # port reads one CMake text twice: for its facts and for its fixes
def _cmake_commands(text: str) -> tuple[tuple[CMakeCommand, ...], tuple[Problem, ...]]:
    cmds: list[CMakeCommand] = []
    probs: list[Problem] = []
    unclosed: set[int] = set()
    i = 0
    n = len(text)
    while i < n:
        tok = _cmake_token(text, i, unclosed)
        if tok is None:
            i += 1
            continue
        kind, s, e, _ = tok
        if kind == "unquoted" and _CMAKE_NAME.fullmatch(text, s, e):
            name = text[s:e]
            j = e
            while j < n and text[j] in " \t":
                j += 1
            if j < n and text[j] == "(":
                cmd, i, closed = _cmake_args(text, name, s, e, j + 1, unclosed)
                cmds.append(cmd)
                if not closed:
                    # CMake itself stops here; the arguments read so far are still facts.
                    probs.append(Problem(s, n, f"{name}( is never closed"))
                    break
                continue
        i = e
    return tuple(cmds), tuple(probs)


def _cmake_args(text: str, name: str, ns: int, ne: int, i: int, unclosed: set[int]) -> tuple[CMakeCommand, int, bool]:
    args: list[CMakeArg] = []
    depth = 0
    n = len(text)
    while i < n:
        tok = _cmake_token(text, i, unclosed)
        if tok is None:
            i += 1
            continue
        kind, s, e, eq = tok
        if kind == "close":
            if depth == 0:
                return CMakeCommand(name, ns, e, ns, ne, tuple(args)), e, True
            depth -= 1
        elif kind == "open":
            depth += 1
        elif kind == "quoted":
            close = 1 if text[e - 1] == '"' and e - s >= 2 else 0
            args.append(CMakeArg(text[s + 1 : e - close], s + 1, e - close, True))
        elif kind == "bracket":
            k = eq + 2
            args.append(CMakeArg(text[s + k : e - k], s + k, e - k, True))
        elif kind == "unquoted":
            args.append(CMakeArg(text[s:e], s, e))
        i = e
    return CMakeCommand(name, ns, n, ns, ne, tuple(args)), n, False
