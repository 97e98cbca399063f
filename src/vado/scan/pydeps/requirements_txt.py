"""pip requirements/constraints files: options, includes, index URLs and requirements, with byte spans."""

from __future__ import annotations

import posixpath
import re

from vado.scan.pydeps.lines import LogicalLine, logical_lines
from vado.scan.pydeps.model import DepSource, DependencyFile, Include, IndexOption, Problem, Requirement
from vado.scan.pydeps.requirement import parse_requirement


#: A pip comment, as a regular expression (the reference of ``_comment_start``, which finds
#: the same start without the quadratic backtracking of ``\s+`` over a long blank run).
_COMMENT = re.compile(r"(?:^|\s+)#.*$")
_WORD = re.compile(r"""(?:"[^"]*"|'[^']*'|[^\s"'])+""")

#: pip options that take a value, by every spelling → canonical long name.
_VALUE_OPTIONS = {
    "-r": "--requirement", "--requirement": "--requirement",
    "-c": "--constraint", "--constraint": "--constraint",
    "-i": "--index-url", "--index-url": "--index-url",
    "--extra-index-url": "--extra-index-url",
    "-f": "--find-links", "--find-links": "--find-links",
    "-e": "--editable", "--editable": "--editable",
    "--trusted-host": "--trusted-host",
    "--only-binary": "--only-binary", "--no-binary": "--no-binary",
    "--use-feature": "--use-feature",
    "--config-settings": "--config-settings", "--global-option": "--global-option",
    "--hash": "--hash",
}
_FLAG_OPTIONS = {"--no-index", "--pre", "--prefer-binary", "--require-hashes", "--no-deps"}
_INDEX_OPTIONS = {"--index-url", "--extra-index-url", "--find-links"}


def resolve_include(path: str, target: str) -> str | None:
    """Root-relative POSIX path of ``target`` included from ``path``; None when outside the root.

    URLs, absolute paths and paths that climb above the root are outside.
    """
    if re.match(r"^[A-Za-z][A-Za-z0-9+.-]*://", target) or target.startswith(("/", "~", "\\")) or re.match(r"^[A-Za-z]:", target):
        return None
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(path), target.replace("\\", "/")))
    if joined == ".." or joined.startswith("../") or joined.startswith("/"):
        return None
    return joined


def _words(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int, str]]:
    """Shell-like words of ``text[start:end]`` as ``(start, end, unquoted text)``."""
    end = len(text) if end is None else end
    out = []
    for m in _WORD.finditer(text, start, end):
        w = m.group(0)
        out.append((m.start(), m.end(), re.sub(r"""["']""", "", w)))
    return out


def parse_pip_args(
    line: LogicalLine | str,
    path: str,
    source: DepSource,
    *,
    group: str = "",
    begin: int = 0,
    end: int | None = None,
    offset: int = 0,
) -> tuple[list[Requirement], list[IndexOption], list[Include], list[Problem]]:
    """Requirements and options in ``line.text[begin:end]`` read as one requirements-file line.

    Used for requirements files, conda ``pip:`` items and, with ``source``
    ``PIP_COMMAND``, for the arguments of ``pip install`` on a command line
    (where every word that is not an option is one requirement).
    """
    if isinstance(line, str):
        text = line
        pos = lambda i: offset + i  # noqa: E731
        end_pos = lambda j: offset + j  # noqa: E731
    else:
        text = line.text
        pos, end_pos = line.pos, line.end_pos
    end = len(text) if end is None else end
    reqs: list[Requirement] = []
    idx: list[IndexOption] = []
    incs: list[Include] = []
    probs: list[Problem] = []
    words = _words(text, begin, end)
    if not words:
        return reqs, idx, incs, probs

    def handle_option(k: int) -> int:
        ws, we, w = words[k]
        opt, eq, val = w.partition("=")
        vs = ve = None
        if opt in _VALUE_OPTIONS:
            if eq:
                vs, ve = ws + len(opt) + 1, we
            elif k + 1 < len(words):
                k += 1
                vs, ve, val = words[k]
            else:
                probs.append(Problem(pos(ws), end_pos(we), f"option {opt} needs a value", w))
                return k + 1
        elif len(opt) > 2 and opt[:2] in ("-r", "-c", "-i", "-f", "-e") and not opt.startswith("--"):
            # pip accepts the short forms glued to their value (``-rbase.txt``).
            vs, ve, val, opt = ws + 2, we, w[2:], opt[:2]
        elif opt in _FLAG_OPTIONS:
            return k + 1
        else:
            probs.append(Problem(pos(ws), end_pos(we), f"unknown pip option {opt}", w))
            return k + 1
        canon = _VALUE_OPTIONS[opt]
        raw_val = text[vs:ve]
        if raw_val[:1] in "\"'" and raw_val[-1:] == raw_val[:1] and len(raw_val) >= 2:
            vs, ve = vs + 1, ve - 1
        if canon in _INDEX_OPTIONS:
            idx.append(IndexOption(canon, val, pos(ws), end_pos(ve), pos(vs), end_pos(ve), source))
        elif canon in ("--requirement", "--constraint"):
            incs.append(Include(canon, val, pos(ws), end_pos(ve), pos(vs), end_pos(ve), resolve_include(path, val)))
        elif canon == "--editable":
            r = parse_requirement(text[vs:ve], source=source, group=group, editable=True,
                                  pos=lambda i: pos(vs + i), end_pos=lambda j: end_pos(vs + j))
            (reqs if isinstance(r, Requirement) else probs).append(r)
        return k + 1

    if source is DepSource.PIP_COMMAND:
        k = 0
        while k < len(words):
            ws, we, w = words[k]
            if w.startswith("-"):
                opt = w.partition("=")[0]
                if opt in _VALUE_OPTIONS or opt in _FLAG_OPTIONS or (len(opt) > 2 and opt[:2] in ("-r", "-c", "-i", "-f", "-e") and not opt.startswith("--")):
                    k = handle_option(k)
                else:
                    # Other pip install flags (-U, --no-cache-dir, --upgrade …) and
                    # their values are not dependencies.
                    k += 1
                continue
            s, e = ws, we
            if text[s] in "\"'" and text[e - 1] == text[s] and e - s >= 2:
                s, e = s + 1, e - 1
            if not re.match(r"[A-Za-z0-9./]", text[s:e] or " ") or "$" in text[s:e]:
                k += 1
                continue
            r = parse_requirement(text[s:e], source=source, group=group,
                                  pos=lambda i, s=s: pos(s + i), end_pos=lambda j, s=s: end_pos(s + j))
            (reqs if isinstance(r, Requirement) else probs).append(r)
            k += 1
        return reqs, idx, incs, probs

    first = words[0]
    if first[2].startswith("-"):
        k = 0
        while k < len(words):
            if words[k][2].startswith("-"):
                k = handle_option(k)
            else:
                ws, we, w = words[k]
                probs.append(Problem(pos(ws), end_pos(we), "value without an option", w))
                k += 1
        return reqs, idx, incs, probs
    # A requirement, possibly followed by per-requirement options (--hash …):
    # they begin at the first word that starts with '-' after whitespace.
    opt_at = end
    for ws, we, w in words[1:]:
        if w.startswith("-") and re.match(r"--?[A-Za-z]", w):
            opt_at = ws
            break
    r = parse_requirement(text[begin:opt_at], source=source, group=group,
                          pos=lambda i: pos(begin + i), end_pos=lambda j: end_pos(begin + j))
    (reqs if isinstance(r, Requirement) else probs).append(r)
    return reqs, idx, incs, probs


def _comment_start(text: str) -> int:
    """Where ``_COMMENT.search(text)`` starts (``len(text)`` when it finds nothing): the blank run
    before the first ``#`` that starts the text or follows a blank, with no line break after it
    but a final one."""
    last = len(text) - 1
    inner_nl = text.rfind("\n", 0, last) if last > 0 else -1  # a "\n" that is not the final character
    i = text.find("#", inner_nl + 1)
    while i != -1:
        if i == 0 or text[i - 1].isspace():
            j = i
            while j > 0 and text[j - 1].isspace():
                j -= 1
            return j
        i = text.find("#", i + 1)
    return len(text)


def parse_requirements_txt(text: str, path: str = "requirements.txt") -> DependencyFile:
    """Requirements, index options and includes of a pip requirements or constraints file."""
    reqs: list[Requirement] = []
    idx: list[IndexOption] = []
    incs: list[Include] = []
    probs: list[Problem] = []
    for line in logical_lines(text):
        end = _comment_start(line.text)
        if not line.text[:end].strip():
            continue
        r, i, c, p = parse_pip_args(line, path, DepSource.REQUIREMENTS, end=end)
        reqs += r
        idx += i
        incs += c
        probs += p
    return DependencyFile(path, DepSource.REQUIREMENTS, tuple(reqs), tuple(idx), tuple(incs), (), (), tuple(probs))
