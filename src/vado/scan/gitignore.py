"""What a git work tree says to leave out of a walk: its ignore files and its submodules.

Ignore files
    ``.gitignore`` files (at any level) and ``.git/info/exclude`` are read with git's
    wildmatch semantics (pathspec's ``GitIgnoreSpec``): negations, directory-only
    patterns, anchored patterns; deeper files win over shallower ones, the last
    matching line of a file wins (:func:`_is_ignored`). When the root lies inside a
    git work tree, the ``.gitignore`` files between the top of the work tree and the
    root apply too (:func:`_outer_ignores`); a root that its work tree ignores is
    scanned with only the ignore files inside it. The user's global excludes file is
    not read, so a plan does not depend on who runs it. A line that is not a valid
    pattern, or one with more than four ``**`` (matching it could take exponential
    time), becomes a ``MALFORMED`` skip against its file; the other lines still
    apply. Patterns with several ``*`` in one segment get a regex that cannot
    backtrack exponentially (:func:`_linear_stars`). Parsed files are cached by path
    and identity, so one ``.gitignore`` above the roots of many walks is parsed once.

Submodules
    :func:`_root_submodules` reads the ``path =`` entries of the ``.gitmodules`` of the
    root's work tree (which may lie above the root); the walk treats them as vendored.

The walk (:mod:`vado.scan.discover`) decides where these apply.
"""

from __future__ import annotations

import os
import posixpath
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathspec import GitIgnoreSpec
    from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

from vado.model import Skip, SkipReason
from vado.scan.reading import _display, _os_error, read_regular


@dataclass(frozen=True)
class _IgnoreFile:
    """One ignore file: its patterns apply to paths below ``base`` (relative to the root).

    ``prefix`` is the root's own path relative to the ignore file's directory, for
    ignore files above the root (empty for those inside it).
    """

    base: str
    prefix: str
    source: str  # shown in details: the ignore file's path relative to the root
    spec: GitIgnoreSpec
    lines: tuple[tuple[int, str], ...]  # (line number, pattern) per spec pattern
    #: One regex matching where any pattern matches (None when it cannot be built).
    any_pattern: re.Pattern | None = None
    #: The patterns as they test a directory's own path (:func:`_directory_patterns`); derived on first use
    #: when not given.
    dir_patterns: tuple | None = None

    def decide(self, path: str):
        """pathspec's result for ``path`` (relative to this file's directory) when a pattern
        decides it, else None. A path no pattern matches (most of them) is settled by one
        regex, ``any_pattern``."""
        if self.any_pattern is not None and self.any_pattern.match(path) is None:
            return None
        result = self.spec.check_file(path)
        return None if result.include is None else result

    def check(self, rel: str, is_dir: bool) -> tuple[bool, str] | None:
        """``(ignored, why)`` when a pattern of this file decides ``rel``, else None."""
        if self.base:
            if not rel.startswith(self.base + "/"):
                return None
            rel = rel[len(self.base) + 1:]
        if is_dir:
            index, include = self._decide_directory(self.prefix + rel)
        else:
            result = self.decide(self.prefix + rel)
            index, include = (None, None) if result is None else (result.index, result.include)
        if index is None:
            return None
        lineno, pattern = self.lines[index]
        return bool(include), f"matches {pattern!r} in {self.source}:{lineno}"

    def _decide_directory(self, path: str) -> tuple[int | None, bool | None]:
        """``(pattern index, include)`` of the last pattern that matches the directory ``path`` itself, as git
        decides a directory: a ``dir/`` pattern matches it as ``dir`` does, and a match of one of its parents
        does not count (the walk judged the parents; they were not ignored). pathspec ranks a file pattern's
        match above a directory pattern's whatever their order, which is right for files below an ignored
        directory but not for the directory: ``*`` then ``!*/`` (ignore every file without an extension, keep
        the directories: Learn-CUDA-Programming 10bd9b5) left every directory out of the walk."""
        patterns = self.dir_patterns
        if patterns is None:
            patterns = _directory_patterns(self.spec.patterns)
            object.__setattr__(self, "dir_patterns", patterns)  # frozen: derived once, from the spec alone
        for index in range(len(patterns) - 1, -1, -1):
            pattern = patterns[index]
            if pattern.include is None:
                continue
            result = pattern.match_file(path)
            if result is None:
                continue
            if (result.match.groupdict().get(_DIR_MARK) or "") != "":
                continue  # matched a parent directory of path
            return index, pattern.include
        return None, None


#: The group pathspec's gitignore regexes give the ``/`` after a directory a pattern matched.
_DIR_MARK = "ps_d"


def _directory_patterns(patterns) -> tuple:
    """``patterns`` as git applies them to a directory's own path (without its trailing ``/``): a directory-only
    pattern (``build/``, ``!*/``) as the same pattern without the slash, the others as they are."""
    from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

    out = []
    for pattern in patterns:
        text = (pattern.pattern or "").rstrip()
        if text.endswith("/") and not text.endswith("\\/") and text.strip("!/"):
            try:
                pattern = GitIgnoreSpecPattern(text[:-1])
            except Exception:  # pathspec raises GitIgnorePatternError, ValueError, re.error
                pass  # kept as it is: pathspec's own reading
            else:
                _linear_stars(pattern)
        out.append(pattern)
    return tuple(out)


def _load_ignore_file(path: Path, base: str, prefix: str, source: str, skips: list[Skip]) -> _IgnoreFile | None:
    try:
        st = os.stat(path)
        key = (str(path), st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
        cached = _PARSED_IGNORES.get(key)
        if cached is None:
            parsed = _parse_ignore_file(read_regular(path, _MAX_IGNORE_FILE))
            # pathspec is imported here, by the first walk that meets an ignore file: a
            # one-file audit (an editor, a pre-commit hook) never needs it.
            from pathspec import GitIgnoreSpec

            # One pathspec per parsed file, shared by every walk: pathspec only reads it.
            cached = (parsed, GitIgnoreSpec(list(parsed[0])) if parsed[0] else None,
                      _directory_patterns(parsed[0]) if parsed[0] else None)
            if len(_PARSED_IGNORES) >= 4096:
                _PARSED_IGNORES.clear()
            _PARSED_IGNORES[key] = cached
    except FileNotFoundError:
        return None
    except OSError as exc:
        skips.append(Skip(_display(source), SkipReason.UNREADABLE, f"ignore file not read: {_os_error(exc)}"))
        return None
    (patterns, lines, malformed, any_pattern), spec, dir_patterns = cached
    for detail in malformed:
        skips.append(Skip(_display(source), SkipReason.MALFORMED, detail))
    if spec is None:
        return None
    return _IgnoreFile(base, prefix, _display(source), spec, lines, any_pattern, dir_patterns)


#: The bytes of an ignore file that are read (git itself reads any size; none comes near).
_MAX_IGNORE_FILE = 4 * 2**20

#: Parsed ignore files by path and identity (device, inode, size, mtime): the same
#: ``.gitignore`` files above the roots of many walks (a fleet, a port per program) are
#: parsed once, with their pathspec. A file that changes gets a new key.
_PARSED_IGNORES: dict[tuple, tuple[tuple[tuple, tuple, tuple, re.Pattern | None], GitIgnoreSpec | None, tuple | None]] = {}


def _parse_ignore_file(data: bytes) -> tuple[tuple, tuple[tuple[int, str], ...], tuple[str, ...], re.Pattern | None]:
    """``(patterns, (line number, pattern) per pattern, details of the malformed lines, their
    union as one regex)``."""
    from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

    patterns = []
    lines = []
    malformed = []
    # Paths from os.scandir carry undecodable bytes as surrogates; decode the same way.
    for lineno, line in enumerate(data.decode("utf-8", "surrogateescape").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        try:
            pattern = GitIgnoreSpecPattern(line)
        except Exception as exc:  # pathspec raises GitIgnorePatternError, ValueError, re.error
            malformed.append(f"line {lineno}: pattern {_display(line)!r} not used: {exc}")
            continue
        if pattern.include is None:
            continue
        if line.count("**") > _MAX_DOUBLE_STARS:
            malformed.append(f"line {lineno}: pattern {_display(line)!r} not used: more than "
                             f"{_MAX_DOUBLE_STARS} '**' (matching it could take exponential time)")
            continue
        _linear_stars(pattern)
        patterns.append(pattern)
        lines.append((lineno, _display(line)))
    return tuple(patterns), tuple(lines), tuple(malformed), _any_pattern(patterns)


_PLAIN_FLAGS = re.compile("").flags

#: The most ``**`` one ignore pattern may hold: each is a ``.+`` that can span directories,
#: and a path is tried at every split among them.
_MAX_DOUBLE_STARS = 4

_STAR = "[^/]*"
#: What lies between two ``*`` of one path segment in pathspec's regex: escaped or plain
#: characters, ``[^/]`` for ``?`` and bracket classes, each matching exactly one character.
_FIXED_CHUNK = re.compile(r"(?:\\.|[^\\()|*+?{}/.\[\]^$]|\[(?:\\.|[^\]\\])+\])+")


def _linear_stars(pattern: GitIgnoreSpecPattern) -> None:
    """Give ``pattern`` a regex whose ``*`` cannot backtrack exponentially (``a*a*a*…b``).

    pathspec turns each ``*`` into ``[^/]*``; with k of them in one segment a failing
    match tries every split of the name among them. Every ``*`` but the last of a run
    is followed by a fixed-length chunk and another ``*``: taking that chunk at its
    first occurrence loses no match (the next ``*`` absorbs the rest), so
    ``[^/]*CHUNK`` becomes the atomic ``(?>[^/]*?CHUNK)``. The last ``*`` keeps its
    backtracking, which is linear. Same matches: ``tests/fuzz/test_fuzz_targets.py`` compares them.
    """
    regex = getattr(pattern, "regex", None)
    if regex is None or regex.pattern.count(_STAR) < 2:
        return
    text = regex.pattern
    while _STAR + _STAR in text:  # "a**b" inside a segment: two stars are one
        text = text.replace(_STAR + _STAR, _STAR)
    parts = text.split(_STAR)
    if any((len(p) - len(p.rstrip("\\"))) % 2 for p in parts[:-1]):
        return  # a "[^/]*" that is an escaped "[" and text, not pathspec's star: leave the regex as it is
    out = [parts[0]]
    for i in range(1, len(parts)):
        piece = parts[i]
        if i < len(parts) - 1 and _FIXED_CHUNK.fullmatch(piece):
            out.append(f"(?>{_STAR}?{piece})")
        else:
            out.append(_STAR + piece)
    try:
        pattern.regex = re.compile("".join(out), regex.flags)
    except (re.error, AttributeError):
        return


def _any_pattern(patterns: list) -> re.Pattern | None:
    """The patterns' regexes as one alternation (``match`` semantics, as pathspec's), or None.

    pathspec tries each pattern's regex in turn to find the last one that matches;
    a path no pattern matches (most of them) needs only this one search to say so.
    Group names are dropped: every pattern names its trailing-slash group alike.
    """
    try:
        if any(p.regex.flags != _PLAIN_FLAGS for p in patterns):
            return None
        parts = [re.sub(r"\(\?P<\w+>", "(?:", p.regex.pattern) for p in patterns]
        return re.compile("|".join(f"(?:{part})" for part in parts)) if parts else None
    except (AttributeError, re.error):
        return None


def _is_ignored(stack: tuple[_IgnoreFile, ...], rel: str, is_dir: bool) -> str | None:
    """Why ``rel`` is ignored, or None. The deepest deciding ignore file wins."""
    for ignore in reversed(stack):
        decided = ignore.check(rel, is_dir)
        if decided is not None:
            return decided[1] if decided[0] else None
    return None


def _outer_ignores(real_root: Path, skips: list[Skip]) -> list[_IgnoreFile]:
    """``.git/info/exclude`` and the ``.gitignore`` files above the root, outermost first."""
    top = None
    for candidate in (real_root, *real_root.parents):
        if os.path.lexists(candidate / ".git"):
            top = candidate
            break
    if top is None:
        return []
    out: list[_IgnoreFile] = []
    root_in_top = real_root.relative_to(top).as_posix()
    prefix = "" if root_in_top == "." else root_in_top + "/"
    up = "../" * (0 if not prefix else prefix.count("/"))
    git_dir = top / ".git"
    if git_dir.is_file():  # a worktree or submodule: ".git" says "gitdir: <path>"
        try:
            line = git_dir.read_text(encoding="utf-8", errors="replace").strip()
        except OSError:
            line = ""
        if line.startswith("gitdir:"):
            git_dir = (top / line[len("gitdir:"):].strip()).resolve()
    exclude = _load_ignore_file(git_dir / "info" / "exclude", "", prefix, f"{up}.git/info/exclude", skips)
    if exclude is not None:
        out.append(exclude)
    if prefix:
        parts = root_in_top.split("/")
        for depth in range(len(parts)):
            directory = top.joinpath(*parts[:depth])
            sub_prefix = "/".join(parts[depth:]) + "/"
            source = "../" * (len(parts) - depth) + ".gitignore"
            found = _load_ignore_file(directory / ".gitignore", "", sub_prefix, source, skips)
            if found is not None:
                out.append(found)
        # The root was asked for by name: if the work tree ignores it (``vado audit build/``),
        # the ignore files above it would hide everything, so only its own ones apply.
        for ignore in reversed(out):
            result = ignore.decide(ignore.prefix)
            if result is not None:
                return [] if result.include else out
    return out


# --- submodules ------------------------------------------------------------------


_SUBMODULE_PATH = re.compile(r"^\s*path\s*=\s*(.+?)\s*$", re.MULTILINE)


def _submodule_paths(gitmodules: str) -> frozenset[str]:
    """The ``path =`` values of a ``.gitmodules`` file, as clean relative POSIX paths (none
    when the file is absent, unreadable or not text: the walk goes on without them)."""
    try:
        data = read_regular(gitmodules, _MAX_IGNORE_FILE)
    except OSError:
        return frozenset()
    out = set()
    for m in _SUBMODULE_PATH.finditer(data.decode("utf-8", "surrogateescape")):
        path = posixpath.normpath(m.group(1).strip('"').replace("\\", "/"))
        if path and not path.startswith(("/", "../")) and path != ".":
            out.add(path)
    return frozenset(out)


def _root_submodules(real_root: Path) -> frozenset[str]:
    """The submodule paths of the git work tree holding ``real_root``, relative to ``real_root``
    (the ``.gitmodules`` of the work tree's top, which may lie above the root)."""
    for top in (real_root, *real_root.parents):
        if os.path.lexists(top / ".git") or os.path.lexists(top / ".gitmodules"):
            break
    else:
        return frozenset()
    paths = _submodule_paths(str(top / ".gitmodules"))
    if top == real_root:
        return paths
    prefix = real_root.relative_to(top).as_posix() + "/"
    return frozenset(p[len(prefix):] for p in paths if p.startswith(prefix))
