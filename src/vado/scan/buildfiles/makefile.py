"""Makefiles: nvcc calls, nvcc flags, CUDA libraries and CUDA paths (:func:`parse_makefile`, read line by line
with comments removed, only the runs of continued lines that hold a candidate); the conditional blocks
(:func:`makefile_conditionals`, :func:`tested_for_value`) and the branches that build for Windows or macOS only
(:func:`other_platform_ranges`)."""

from __future__ import annotations

import bisect
import functools
import itertools
import re
from dataclasses import dataclass
from typing import Iterable

from vado.scan.buildfiles.facts import BuildFact, BuildFacts, FactKind, dedupe, with_text
from vado.scan.buildfiles.nvcc_flags import CUDA_TOOLKIT_PATH, NVCC_WORD, flag_facts, path_form


#: A word of a Makefile line (a run of characters other than blanks and backslashes).
_MAKE_WORD = re.compile(r"[^\s\\]+")
#: Where a word starting with a dash (after quotes) begins: every flag fact needs one.
_DASH_WORD = re.compile(r"(?:^|[\s\\])[\"']*-")
MAKE_ASSIGN = re.compile(r"^\s*(?:export\s+|override\s+)?(?P<name>[A-Za-z_][\w.-]*)\s*(?P<op>[:+?!]?=|::=)")


def make_comment_cut(line: str, recipe: bool) -> int:
    """Index where the comment of a Makefile line starts (``len(line)`` when none)."""
    if "#" not in line:  # most lines: no comment can start
        return len(line)
    i = 0
    quote = ""
    while i < len(line):
        ch = line[i]
        if ch == "\\":
            i += 2
            continue
        if recipe and ch in "\"'":
            quote = "" if quote == ch else (quote or ch)
        elif ch == "#" and not quote and (not recipe or i == 0 or line[i - 1] in " \t;"):
            return i
        i += 1
    return len(line)


#: Where a Makefile fact may be: a word starting with a dash (after quotes), nvcc, cuda. The
#: definition; the reader finds the same places through _MAKE_MARK and _opens_dash_word.
_MAKE_CANDIDATE = re.compile(r"nvcc|NVCC|cuda|CUDA|" + _DASH_WORD.pattern, re.MULTILINE)
#: The marks of a candidate: the words, and each run of dashes (only a run's first dash may
#: start a dash word: the others follow a dash). Every alternative starts with a literal, so
#: the regex engine skips to the next n, N, c, C or dash, where _MAKE_CANDIDATE's blank-led
#: alternative is tried at every character.
_MAKE_MARK = re.compile(r"nvcc|NVCC|cuda|CUDA|-[-]*")


def _opens_dash_word(text: str, at: int) -> bool:
    """Whether the dash at ``at`` starts a dash word as _DASH_WORD finds one: after quotes only,
    which follow the text's start, a blank (``\\s`` is ``str.isspace``, line breaks included)
    or a backslash."""
    k = at - 1
    while k >= 0 and text[k] in "\"'":
        k -= 1
    return k < 0 or text[k].isspace() or text[k] == "\\"


def _continues(line: str) -> bool:
    """Whether a Makefile line (without its line break) goes on onto the next one: it ends in one backslash."""
    return line.endswith("\\") and not line.endswith("\\\\")


def _makefile_lines(raws: Iterable[str]) -> list[BuildFact]:
    """The facts of a run of lines (with their line breaks), read one by one from a line that
    opens no comment or assignment, at offsets from the run's start."""
    facts: list[BuildFact] = []
    in_comment = False
    variable = ""
    continued = False
    offset = 0
    for raw in raws:
        line_start, offset = offset, offset + len(raw)
        line = raw.rstrip("\r\n")
        ends_continued = _continues(line)
        if in_comment:
            # A comment ending in a backslash continues onto the next line.
            in_comment = ends_continued
            continue
        recipe = line.startswith("\t")
        if "#" in line:
            cut = make_comment_cut(line, recipe)
            if cut < len(line):
                in_comment = ends_continued
            body = line[:cut]
        else:
            cut, body = len(line), line
        if not continued:
            am = MAKE_ASSIGN.match(body) if "=" in body else None  # an assignment has an "="
            variable = am.group("name") if am else ("recipe" if recipe else "")
            value_at = am.end() if am else 0
        else:
            value_at = 0
        continued = ends_continued and cut == len(line)
        # Every fact needs one of these: a flag (and the value a flag takes) starts with a
        # dash, an nvcc word holds nvcc/NVCC, a CUDA path cuda/CUDA. Most lines have none.
        nvcc = "nvcc" in body or "NVCC" in body
        if nvcc or ("-" in body and _DASH_WORD.search(body)):
            words = [(line_start + m.start(), line_start + m.end(), m.group(0)) for m in _MAKE_WORD.finditer(body)
                     if m.start() >= value_at]
            if nvcc:
                for s, e, w in words:
                    if NVCC_WORD.match(w.strip("\"'")):
                        facts.append(BuildFact(FactKind.NVCC, s, e, "", variable, {"source": "make"}))
            facts += flag_facts(words, variable, "make")
        if "cuda" in body or "CUDA" in body:
            for m in CUDA_TOOLKIT_PATH.finditer(body):
                facts.append(BuildFact(FactKind.CUDA_PATH, line_start + m.start(), line_start + m.end(), "", variable,
                                       {"source": "make", "form": path_form(m.group(0))}))
    return facts


@functools.lru_cache(maxsize=4096)
def _run_facts(run: tuple[str, ...]) -> tuple[BuildFact, ...]:
    """The facts of one run of continued Makefile lines (with their line breaks), at offsets
    from the run's start. A run's facts depend on its lines alone, so they are kept: the
    second round of a port reads the Makefile again with most runs unchanged, and the
    Makefiles of one project repeat their flag lines."""
    return tuple(_makefile_lines(run))


def parse_makefile(text: str, path: str = "Makefile") -> BuildFacts:
    """nvcc calls, nvcc flags, CUDA libraries and CUDA paths in a Makefile."""
    facts: list[BuildFact] = []
    raws = text.splitlines(keepends=True)
    # Only lines that hold a candidate (a dash word, nvcc, cuda) can hold a fact. Each is read
    # with the lines it continues (backslash-newline), from the first line of that run, which
    # starts with no comment and no assignment open: exactly as a read of every line.
    starts: list[int] = []
    last = -1  # the last line read
    for m in _MAKE_MARK.finditer(text):
        at = m.start()  # a word's first character or the dash: on the candidate's line
        if text[at] == "-" and not _opens_dash_word(text, at):
            continue
        if not starts:
            starts = list(itertools.accumulate(map(len, raws), initial=0))
        k = bisect.bisect_right(starts, at) - 1
        if k <= last:
            continue  # read with an earlier candidate's run
        first = k
        while first > last + 1 and _continues(raws[first - 1].rstrip("\r\n")):
            first -= 1
        last = k
        while last + 1 < len(raws) and _continues(raws[last].rstrip("\r\n")):
            last += 1
        base = starts[first]
        for f in _run_facts(tuple(raws[first : last + 1])):
            # A copy per use: the kept facts are shared, and their data dicts must stay as they are.
            facts.append(BuildFact(f.kind, f.start + base, f.end + base, f.text, f.context, dict(f.data)))
    if not starts:
        return BuildFacts(path, (), ())
    return BuildFacts(path, _makefile_result(text, facts), ())


#: Words of a Makefile condition that select a platform other than Linux: ``ifeq ($(OS),Windows_NT)``,
#: ``ifeq ($(shell uname),Darwin)``.
_OTHER_PLATFORMS = (("Windows_NT", "windows"), ("Darwin", "macos"))


def other_platform_ranges(text: str) -> list[tuple[int, int, str]]:
    """``(start, end, platform)`` of the Makefile branches that build for Windows or macOS only.

    A branch of ``ifeq ($(OS),Windows_NT)`` (or the ``else`` of an ``ifneq`` on it), and the
    same for ``Darwin``, is not part of a Linux ROCm build: a port leaves it alone. Nested
    conditionals are followed; an ``else ifeq`` branch gets the platform its own condition names.
    """
    if "Windows_NT" not in text and "Darwin" not in text:
        return []
    out: list[tuple[int, int, str]] = []
    # One frame per open conditional: the platform its current branch builds for only ("" for any).
    stack: list[list] = []  # [platform of the branch, its start, platform of the else branch]

    def close(at: int) -> None:
        platform, start, _ = stack[-1]
        if platform:
            out.append((start, at, platform))

    for m in re.finditer(r"^[ \t]*(?:else\b[ \t]*)?(?:ifeq|ifneq|ifdef|ifndef)\b.*$|^[ \t]*(?:else|endif)\b.*$",
                         text, re.MULTILINE):
        line = m.group().strip()
        words = line.split(None, 1)
        head = words[0]
        if head == "endif":
            if stack:
                close(m.start())
                stack.pop()
            continue
        if head == "else":
            if not stack:
                continue
            close(m.start())
            rest = words[1] if len(words) > 1 else ""
            cond = rest.split(None, 1)
            if cond and cond[0] in ("ifeq", "ifneq", "ifdef", "ifndef"):
                here, other = _platform_of(cond[0], cond[1] if len(cond) > 1 else "")
                stack[-1] = [here, m.end(), other]
            else:
                stack[-1] = [stack[-1][2], m.end(), ""]
            continue
        here, other = _platform_of(head, words[1] if len(words) > 1 else "")
        stack.append([here, m.end(), other])
    while stack:
        close(len(text))
        stack.pop()
    return out


@dataclass(frozen=True)
class MakeConditional:
    """One ``ifeq``/``ifneq``/``ifdef``/``ifndef`` … ``endif`` block of a Makefile.

    ``start`` is the start of the ``if`` line, ``body`` the start of the line after it,
    ``end_line`` the start of the ``endif`` line and ``end`` the offset after it (its line
    break included). ``has_else`` says whether the block has an ``else`` branch.
    """

    keyword: str
    condition: str
    start: int
    body: int
    end_line: int
    end: int
    has_else: bool


_MAKE_CONDITIONAL_LINE = re.compile(
    r"^[ \t]*(?:(?P<else>else\b[ \t]*)?(?P<kw>ifeq|ifneq|ifdef|ifndef)\b[ \t]*(?P<cond>[^\n#]*)"
    r"|(?P<plain_else>else)\b[^\n]*|(?P<endif>endif)\b[^\n]*|(?P<define>define)\b[^\n]*|(?P<endef>endef)\b[^\n]*)\n?",
    re.MULTILINE)


def makefile_conditionals(text: str) -> list[MakeConditional]:
    """Every complete conditional block of a Makefile, in the order their ``endif`` lines come.

    Lines inside ``define`` … ``endef`` are text, not conditionals, and are skipped; an
    unbalanced ``endif`` or an unclosed ``if`` gives no block.
    """
    if "if" not in text:
        return []
    out: list[MakeConditional] = []
    stack: list[list] = []  # [keyword, condition, start, body, has_else]
    in_define = 0
    for m in _MAKE_CONDITIONAL_LINE.finditer(text):
        if m.group("define"):
            in_define += 1
            continue
        if m.group("endef"):
            in_define = max(0, in_define - 1)
            continue
        if in_define:
            continue
        if m.group("kw"):
            if m.group("else"):
                if stack:
                    stack[-1][4] = True
                continue
            stack.append([m.group("kw"), m.group("cond").strip(), m.start(), m.end(), False])
        elif m.group("plain_else"):
            if stack:
                stack[-1][4] = True
        elif m.group("endif") and stack:
            kw, cond, start, body, has_else = stack.pop()
            out.append(MakeConditional(kw, cond, start, body, m.start(), m.end(), has_else))
    return out


_MAKE_REF = re.compile(r"\$\((?:strip[ \t]+)?\$\((?P<a>\w+)\)\)|\$\((?P<b>\w+)\)|\$\{(?P<c>\w+)\}")


def tested_for_value(cond: MakeConditional) -> str:
    """The variable a conditional's true branch requires to be non-empty (``ifneq ($(V),)``,
    ``ifneq (,$(V))``, ``ifneq "$(V)" ""``, ``ifneq ($(strip $(V)),)``, ``ifdef V``), or ``""``."""
    if cond.keyword == "ifdef":
        return cond.condition if re.fullmatch(r"\w+", cond.condition) else ""
    if cond.keyword != "ifneq":
        return ""
    c = cond.condition
    if c.startswith("(") and c.endswith(")"):
        parts = c[1:-1].split(",")
        if len(parts) != 2:
            return ""
    else:
        parts = re.findall(r"\"([^\"]*)\"|'([^']*)'", c)
        parts = [a or b for a, b in parts]
        if len(parts) != 2:
            return ""
    a, b = (p.strip() for p in parts)
    value = a if not b else b if not a else ""
    m = _MAKE_REF.fullmatch(value)
    return (m.group("a") or m.group("b") or m.group("c")) if m else ""


def _platform_of(keyword: str, condition: str) -> tuple[str, str]:
    """The platform the true branch of a condition builds for only, and the one its else builds for."""
    for word, platform in _OTHER_PLATFORMS:
        if word in condition and keyword in ("ifeq", "ifneq"):
            return (platform, "") if keyword == "ifeq" else ("", platform)
    return "", ""


def _makefile_result(text: str, facts: list[BuildFact]) -> tuple[BuildFact, ...]:
    """The Makefile facts read line by line, deduplicated, with their text; none in a Windows or macOS branch."""
    facts = dedupe(facts)
    skipped = other_platform_ranges(text)
    if skipped:
        facts = [f for f in facts if not any(s <= f.start < e for s, e, _ in skipped)]
    # ``CUDA_PATH ?= /usr/local/cuda``: the literal path is the fact; the name beside it adds nothing.
    literal_lines = {text.count("\n", 0, f.start) for f in facts
                     if f.kind is FactKind.CUDA_PATH and f.data.get("form") == "literal"}
    facts = [f for f in facts if not (f.kind is FactKind.CUDA_PATH and f.data.get("form") == "name"
                                      and text.count("\n", 0, f.start) in literal_lines)]
    return tuple(with_text(text, facts))
