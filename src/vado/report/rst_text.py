"""reStructuredText of rule docstrings as readable plain text (what ``vado explain`` prints).

Covers the subset vado's docstrings use, without docutils (not a dependency):

- inline literals (````code````) lose their backticks;
- roles (``:func:`name```, ``:mod:`~pkg.mod```, ``:class:`title <target>```) become their text;
- links (```text <url>`_``) become ``text (url)``; ```text`_`` becomes ``text``;
- ``**strong**`` and ``*emphasis*`` lose their stars (outside literals); ``\\*`` becomes ``*``;
- ``.. code-block:: lang`` and ``.. code::`` lines go (the indented block stays, indented);
  other directives (``.. note::``) become their name as a label (``Note:``); comments (``..``) go;
- a paragraph ending in ``::`` ends in ``:``.
"""

from __future__ import annotations

import re

_LITERAL = re.compile(r"``(.+?)``", re.S)
_ROLE = re.compile(r":[a-zA-Z][\w.-]*(?::[\w.-]+)?:`([^`]+)`")
_TITLED = re.compile(r"^(.*?)\s*<([^<>]+)>$", re.S)
_LINK = re.compile(r"`([^`<>]+?)\s*<([^<>`]+)>`__?")
_REF = re.compile(r"`([^`]+)`__?")
_STRONG = re.compile(r"(?<![\w*\\])\*\*(?=\S)(.+?)(?<=\S)\*\*(?![\w*])", re.S)
_EMPH = re.compile(r"(?<![\w*\\])\*(?=[^\s*])(.+?)(?<=[^\s*\\])\*(?![\w*])", re.S)
_INTERPRETED = re.compile(r"(?<![\w`])`([^`]+)`(?![\w`_])")
_CODE_DIRECTIVE = re.compile(r"^\s*\.\.\s+(code-block|code|sourcecode|highlight)::.*$")
_DIRECTIVE = re.compile(r"^(\s*)\.\.\s+([a-zA-Z][\w-]*)::\s*(.*)$")
_COMMENT = re.compile(r"^\s*\.\.(\s.*)?$")
_HOLE = "\x00{}\x00"


def _role_text(match: re.Match) -> str:
    text = match.group(1)
    titled = _TITLED.match(text)
    if titled:
        return titled.group(1)
    # ``~pkg.mod.name`` shows only the last part, as Sphinx does.
    return text[1:].rsplit(".", 1)[-1] if text.startswith("~") else text.lstrip("!")


def inline(text: str) -> str:
    """Inline markup of ``text`` removed: literals, roles, links, strong and emphasis."""
    held: list[str] = []

    def hold(value: str) -> str:
        held.append(value)
        return _HOLE.format(len(held) - 1)

    text = _LITERAL.sub(lambda m: hold(m.group(1)), text)
    text = _ROLE.sub(lambda m: hold(_role_text(m)), text)
    text = _LINK.sub(lambda m: hold(f"{m.group(1)} ({m.group(2)})"), text)
    text = _REF.sub(lambda m: hold(m.group(1)), text)
    text = _INTERPRETED.sub(lambda m: hold(m.group(1)), text)
    text = _STRONG.sub(r"\1", text)
    text = _EMPH.sub(r"\1", text)
    text = text.replace("\\*", "*").replace("\\`", "`")
    return re.sub("\x00(\\d+)\x00", lambda m: held[int(m.group(1))], text)


def to_text(rst: str) -> str:
    """``rst`` (the subset in the module docstring) as plain text; code blocks are kept verbatim.

    Inline markup may span the lines of a paragraph, so prose is converted a paragraph at a time;
    literal blocks (after a code directive or a ``::``) are copied as they are (``*p`` stays).
    """
    out: list[str] = []
    para: list[str] = []
    code_indent: int | None = None  # inside a literal block: the indentation of its introducing line

    def flush() -> None:
        if para:
            out.extend(inline("\n".join(para)).split("\n"))
            para.clear()

    for line in rst.splitlines():
        indent = len(line) - len(line.lstrip())
        if code_indent is not None:
            if not line.strip() or indent > code_indent:
                out.append(line.rstrip())
                continue
            code_indent = None
        if not line.strip():
            flush()
            out.append("")
            continue
        if _CODE_DIRECTIVE.match(line):
            flush()
            code_indent = indent
            continue
        directive = _DIRECTIVE.match(line)
        if directive:
            flush()
            lead, name, rest = directive.groups()
            out.append(f"{lead}{name.capitalize()}:" + (f" {inline(rest)}" if rest else ""))
            continue
        if _COMMENT.match(line):
            flush()
            continue
        stripped = line.rstrip()
        if stripped.endswith("::"):
            before = stripped[:-2].rstrip()
            if before:
                para.append(before + ":")
            flush()
            code_indent = indent
            continue
        para.append(stripped)
    flush()
    text = "\n".join(out)
    # A removed directive leaves its blank line behind: at most one blank line in a row.
    return re.sub(r"\n{3,}", "\n\n", text).strip("\n")
