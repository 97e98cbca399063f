"""Port-only build-file transforms: what a CMake HIP build needs beyond the BLD rules' renames.

The BLD rules rewrite what is there (``CUDA`` → ``HIP`` in ``project()``,
``CUDA::cublas`` → ``roc::hipblas`` …). Two things a port must *add*:

- CMake compiles a file by its extension: once the CUDA language is gone, a
  ``.cu`` source whose name is kept needs ``set_source_files_properties(...
  PROPERTIES LANGUAGE HIP)``, and the HIP language needs CMake 3.21.
- With ``--rename-sources`` (``.cu`` → ``.hip``) the build files that name a
  renamed source (CMake arguments, Makefile words, ``#include "k.cu"``) must
  name the new file.

These fixes are produced only by the port (never by ``vado audit``) and only
once the file already enables HIP, so a port without ``--unsafe-fixes``, which
keeps the CUDA build, gets none of them.
"""

from __future__ import annotations

import posixpath
import re
from typing import Iterable

from vado.model import Applicability, Edit, Fix
from vado.scan.buildfiles import cmake_commands

#: CMake commands whose arguments list sources.
SOURCE_COMMANDS = frozenset({"add_executable", "add_library", "target_sources"})
HIP_MIN_CMAKE = (3, 21)


def renamed_name(name: str) -> str:
    """The name of a source after ``--rename-sources``: ``k.cu`` → ``k.hip``."""
    return name[: -len(".cu")] + ".hip" if name.endswith(".cu") else name


def _enables_hip(cmds) -> bool:
    for c in cmds:
        if c.lname == "project" and any(a.text == "HIP" for a in c.args[1:]):
            return True
        if c.lname == "enable_language" and any(a.text == "HIP" for a in c.args):
            return True
    return False


def cmake_hip_fixes(path: str, text: str, renamed: Iterable[str] = ()) -> list[Fix]:
    """``LANGUAGE HIP`` for kept ``.cu`` sources and ``cmake_minimum_required`` ≥ 3.21, once HIP is enabled.

    Sources in ``renamed`` (paths relative to the tree root) become ``.hip``
    files, which CMake compiles as HIP by their extension.
    """
    names = set(renamed)
    here = posixpath.dirname(path)
    cmds, problems = cmake_commands(text)
    if problems or not _enables_hip(cmds):
        return []
    fixes: list[Fix] = []
    marked: set[str] = set()
    for c in cmds:
        words = [a.text for a in c.args]
        if c.lname == "set_source_files_properties" and "PROPERTIES" in words:
            p = words.index("PROPERTIES")
            props = words[p + 1 :]
            if any(props[k] == "LANGUAGE" and props[k + 1] == "HIP" for k in range(len(props) - 1)):
                marked.update(words[:p])
    for c in cmds:
        if c.lname == "cmake_minimum_required":
            fix = _min_version_fix(path, c)
            if fix:
                fixes.append(fix)
        if c.lname not in SOURCE_COMMANDS:
            continue
        sources = [a.text for a in c.args[1:] if a.text.endswith(".cu") and "$" not in a.text and a.text not in marked
                   and not _refers(here, a.text, names)]
        if not sources:
            continue
        line_start = text.rfind("\n", 0, c.start) + 1
        indent = re.match(r"[ \t]*", text[line_start:c.start]).group()
        eol = text.find("\n", c.end)
        at = len(text) if eol < 0 else eol
        stmt = f"\n{indent}set_source_files_properties({' '.join(sources)} PROPERTIES LANGUAGE HIP)"
        fixes.append(Fix((Edit(path, at, at, stmt),), Applicability.SAFE,
                         f"compile {', '.join(sources)} as HIP (CMake picks the language by extension)", ("build",)))
        marked.update(sources)
    return fixes


def _min_version_fix(path: str, cmd) -> Fix | None:
    args = list(cmd.args)
    for k, a in enumerate(args[:-1]):
        if a.text != "VERSION":
            continue
        v = args[k + 1]
        low = v.text.split("...")[0]
        parts = tuple(int(p) for p in re.findall(r"\d+", low)[:2])
        if len(parts) == 2 and parts < HIP_MIN_CMAKE:
            new = "3.21" + v.text[len(low):]
            return Fix((Edit(path, v.start, v.end, new),), Applicability.SAFE,
                       "the HIP language needs CMake 3.21", ("build",))
    return None


def cmake_rename_fixes(path: str, text: str, renamed: Iterable[str]) -> list[Fix]:
    """CMake arguments naming a renamed ``.cu`` source (relative to the CMake file's folder) → ``.hip``."""
    names = set(renamed)
    if not names:
        return []
    here = posixpath.dirname(path)
    cmds, _ = cmake_commands(text)
    fixes = []
    for c in cmds:
        for a in c.args:
            if a.text.endswith(".cu") and _refers(here, a.text, names):
                start = a.start + (1 if a.quoted else 0)
                end = start + len(a.text)
                if text[start:end] == a.text:
                    fixes.append(_rename_fix(path, start, end, a.text))
    return fixes


_MAKE_WORD = re.compile(r"[^\s:=;|&<>()'\"$,]+\.cu(?![\w.])")


def makefile_rename_fixes(path: str, text: str, renamed: Iterable[str]) -> list[Fix]:
    """Makefile words naming a renamed source (``k.cu``, ``src/k.cu``) or a ``.cu`` pattern (``%.cu``, ``*.cu``) → ``.hip``.

    Patterns change only when every ``.cu`` file of the Makefile's folder tree is
    renamed, which ``--rename-sources`` does.
    """
    names = set(renamed)
    if not names:
        return []
    here = posixpath.dirname(path)
    fixes = []
    offset = 0
    for line in text.splitlines(keepends=True):
        code = _strip_make_comment(line)
        for m in _MAKE_WORD.finditer(code):
            word = m.group()
            if "%" in word or "*" in word or _refers(here, word, names):
                fixes.append(_rename_fix(path, offset + m.start(), offset + m.end(), word))
        offset += len(line)
    return fixes


def include_rename_fixes(path: str, toks: list, renamed: Iterable[str]) -> list[Fix]:
    """``#include "k.cu"`` of a renamed source → ``"k.hip"`` (quoted includes resolve beside the including file)."""
    if not renamed:  # the common case: no --rename-sources
        return []
    from vado.rules.cuda_syntax import spelling_index
    from vado.scan.lexer import Kind

    names = set(renamed)
    here = posixpath.dirname(path)
    fixes = []
    for i in spelling_index(toks).directive_marks():
        tok = toks[i]
        if i + 1 >= len(toks) or tok[0] is not Kind.DIRECTIVE or not tok[3].endswith("include"):
            continue
        op = toks[i + 1]
        if op[0] is Kind.STRING and op[3].endswith('.cu"') and _refers(here, op[3][1:-1], names):
            fixes.append(_rename_fix(path, op[1] + 1, op[2] - 1, op[3][1:-1]))
    return fixes


def _strip_make_comment(line: str) -> str:
    for i, ch in enumerate(line):
        if ch == "#" and (i == 0 or line[i - 1] != "\\"):
            return line[:i]
    return line


def _refers(here: str, word: str, names: set[str]) -> bool:
    return posixpath.normpath(posixpath.join(here, word)) in names


def _rename_fix(path: str, start: int, end: int, word: str) -> Fix:
    new = renamed_name(word)
    return Fix((Edit(path, start, end, new),), Applicability.SAFE, f"{word} → {new} (renamed source)", ("rename-source",))
