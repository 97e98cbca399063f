"""The macros a project's own headers define, for :mod:`vado.scan.preprocessor`.

A file's conditions often test feature macros its project's headers derive from the platform
(``#if !defined(GGML_USE_HIP) && __CUDA_ARCH__ >= 800`` / ``#define CP_ASYNC_AVAILABLE`` in
``common.cuh``): :class:`ProjectHeaders` reads those headers from the audited tree, safely, and
evaluates each once per configuration.
"""

from __future__ import annotations

import functools
import os
import posixpath
import re
from typing import Callable, Iterable, Iterator

from vado.scan.lexer import Kind
from vado.scan.preprocessor import Configuration, _directives, _walk
from vado.scan.run_caches import per_run

__all__ = ["ProjectHeaders", "project_headers"]


#: How deep quoted includes are followed, and the largest header read.
_MAX_INCLUDE_DEPTH = 12
_MAX_HEADER = 4 << 20
#: A header's ``#define``/``#undef`` names and quoted includes, read from its bytes without lexing (a name
#: in a comment or string counts too: this only decides whether to read the header properly).
_DEFINE_RE = re.compile(rb"^[ \t]*#[ \t]*(?:define|undef)[ \t]+([A-Za-z_][A-Za-z0-9_]*)", re.MULTILINE)
_INCLUDE_RE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*"([^"\r\n]+)"', re.MULTILINE)
_SYSTEM_INCLUDE_RE = re.compile(rb"^[ \t]*#[ \t]*include[ \t]*<([^>\r\n]+)>", re.MULTILINE)


class ProjectHeaders:
    """The macros a project's own headers define, read from the tree at ``root``.

    A quoted ``#include "name"`` is looked for beside the including file, then in the include
    directories the project's build names (:func:`vado.build.include_dirs.project_include_dirs`:
    the unit's own where the build compiles the file, then every one the build names), inside
    ``root`` (a path or link leading out of it is not followed), as a regular file of at most 4 MiB, at most 12 includes deep; a cycle or a
    header that cannot be read adds nothing. A header is evaluated on its own under the
    configuration (the including file's own defines before the ``#include`` are not seen
    there, so what depends on them is unknown), once per configuration while its size and
    modification time stay the same.
    """

    def __init__(self, root: str) -> None:
        self.root = os.path.realpath(root)
        self._cache: dict[tuple, dict | None] = {}
        self._names: dict[tuple, frozenset[str]] = {}
        self._system: dict[tuple, frozenset[str]] = {}
        self._functions: dict[tuple, frozenset[str]] = {}
        self._real: dict[str, str | None] = {}  # path → its real path inside the root (None: outside)
        self._visiting: set[str] = set()
        self._dirs = None  # the build's include directories, read on first need

    def include_dirs(self, path: str = "") -> tuple[str, ...]:
        """The include directories searched for an include of the file at ``path`` (relative to the root)."""
        if self._dirs is None:
            from vado.build.include_dirs import project_include_dirs

            self._dirs = project_include_dirs(self.root)
        return self._dirs.for_file(path)

    def locate(self, base: str, name: str, origin: str = "") -> str | None:
        """Include ``name`` of a file in directory ``base`` as a path relative to the root: beside it, else
        through the build's include directories of ``origin`` (the unit being read; the union when unknown);
        None where it leaves the tree."""
        from vado.build.include_dirs import locate

        return locate(self.root, base, name, self.include_dirs(origin))

    def resolver(self, path: str, config: Configuration) -> Callable[[str], dict | None]:
        """The ``includes`` callable of :func:`evaluate` for the file at ``path`` (relative to ``root``).

        Its ``may_define(name, names)`` says whether header ``name`` (or one it includes) spells a
        ``#define``/``#undef`` of one of ``names``: found by a regex over the bytes, so that a
        header whose macros no condition asks about is never lexed."""
        origin = path.replace(os.sep, "/")
        base = posixpath.dirname(origin)

        def target_of(name: str) -> str | None:
            return self.locate(base, name, origin)

        def resolve(name: str) -> dict | None:
            target = target_of(name)
            return None if target is None else self.macros(target, config)

        def may_define(name: str, names: set[str]) -> bool:
            target = target_of(name)
            return target is not None and not self.defined_names(target).isdisjoint(names)

        resolve.may_define = may_define  # type: ignore[attr-defined]
        return resolve

    def _file(self, path: str) -> tuple[str, os.stat_result] | None:
        """The real path of ``path`` inside the root and its status, or None."""
        if path not in self._real:
            full = os.path.realpath(os.path.join(self.root, path))
            inside = full == self.root or full.startswith(self.root + os.sep)
            self._real[path] = full if inside else None
        full = self._real[path]
        if full is None:
            return None
        try:
            st = os.stat(full)
        except OSError:
            return None
        return (full, st) if st.st_size <= _MAX_HEADER else None

    def defined_names(self, path: str) -> frozenset[str]:
        """The names the header at ``path`` and the headers it includes spell a ``#define``/``#undef`` of."""
        return self._gather(path, self._names, lambda data: {m.decode("latin-1") for m in _DEFINE_RE.findall(data)})

    def system_includes(self, path: str) -> frozenset[str]:
        """The ``<…>`` headers the header at ``path`` and the project headers it includes (quoted, found
        as :meth:`defined_names` finds them) name in an ``#include``, wherever it stands."""
        return self._gather(path, self._system,
                            lambda data: {m.decode("latin-1").strip() for m in _SYSTEM_INCLUDE_RE.findall(data)})

    def defined_functions(self, path: str) -> frozenset[str]:
        """The names of the functions (free functions and members of the project's own classes and structs)
        that the header at ``path`` and the project headers it includes define with a body, found as
        :func:`vado.rules.cuda_syntax.declarations.find_functions` finds them in a file's tokens."""
        return self._gather(path, self._functions, _function_names)

    def _gather(self, path: str, memo: dict, own_of, _seen: frozenset[str] = frozenset()) -> frozenset[str]:
        """What ``own_of(bytes)`` finds in the header at ``path`` and, through its quoted includes inside
        the tree, in the headers it includes; memoised in ``memo`` by (file, size, mtime)."""
        found = self._file(path)
        if found is None or found[0] in _seen or len(_seen) >= _MAX_INCLUDE_DEPTH:
            return frozenset()
        full, st = found
        key = (full, st.st_size, st.st_mtime_ns)
        names = memo.get(key)
        if names is None:
            from vado.scan.discover import read_regular

            try:
                data = read_regular(full, _MAX_HEADER + 1)
            except OSError:
                data = b""
            own = set(own_of(data))
            base = posixpath.dirname(path)
            for inc in _INCLUDE_RE.findall(data):
                target = self.locate(base, inc.decode("latin-1"))
                if target is not None:
                    own |= self._gather(target, memo, own_of, _seen | {full})
            names = memo[key] = frozenset(own)
        return names

    def headers_defining(self, path: str, includes: Iterable[str], names: set[str]) -> Iterator[tuple[str, str]]:
        """``(path, text)`` of each project header the file at ``path`` includes (its quoted
        ``includes``, then theirs, depth first, each once) that itself or through its own includes
        spells a ``#define``/``#undef`` of one of ``names``; found and bounded as :meth:`resolver`
        finds headers, so a header whose macros ``names`` does not hold is never read as text."""
        seen: set[str] = set()
        origin = path.replace(os.sep, "/")
        stack = [(posixpath.dirname(origin), name, 1) for name in reversed(list(includes))]
        while stack:
            base, name, depth = stack.pop()
            target = self.locate(base, name, origin)
            if target is None or depth > _MAX_INCLUDE_DEPTH:
                continue
            found = self._file(target)
            if found is None or found[0] in seen or self.defined_names(target).isdisjoint(names):
                continue
            seen.add(found[0])
            from vado.model.text import decode_source
            from vado.scan.discover import read_regular

            try:
                data = read_regular(found[0], _MAX_HEADER + 1)
            except OSError:
                continue
            if len(data) > _MAX_HEADER:
                continue
            yield target, decode_source(data)
            inner = posixpath.dirname(target)
            stack.extend((inner, inc.decode("latin-1"), depth + 1) for inc in reversed(_INCLUDE_RE.findall(data)))

    def macros(self, path: str, config: Configuration) -> dict | None:
        """What the header at ``path`` defines (a name → its value's token texts, ``None`` for an
        ``#undef``, unknown where it may or may not), or None when it is not read."""
        found = self._file(path)
        if found is None:
            return None
        full, st = found
        key = (full, st.st_size, st.st_mtime_ns, id(config))
        if key in self._cache:
            return self._cache[key]
        if full in self._visiting or len(self._visiting) >= _MAX_INCLUDE_DEPTH:
            return None
        found = None
        self._visiting.add(full)
        try:
            found = self._evaluate(full, path, config)
        finally:
            self._visiting.discard(full)
        self._cache[key] = found
        return found

    def _evaluate(self, full: str, path: str, config: Configuration) -> dict | None:
        from vado.model.text import decode_source
        from vado.scan.discover import read_regular
        from vado.scan.lexer import code_tokens, is_native_tokens, lex

        try:
            text = decode_source(read_regular(full, _MAX_HEADER + 1))
        except OSError:
            return None
        if len(text) > _MAX_HEADER:
            return None
        toks = lex(text)
        code = toks.code() if is_native_tokens(toks) else code_tokens(list(toks))
        if is_native_tokens(code):
            marks, index = code.directive_marks(), code
        else:
            marks = [i for i, t in enumerate(code) if t[0] is Kind.DIRECTIVE or t[0] is Kind.EOD]
            index = None
        return _walk(text, code, _directives(code, marks), config, index, self.resolver(path, config), exports=True)[1]


#: The bytes test before a header is lexed for :meth:`ProjectHeaders.defined_functions`: a body.
_HAS_BODY = re.compile(rb"\)[^;{}()]*\{")


def _function_names(data: bytes) -> set[str]:
    """The names of the functions ``data`` (a header's bytes) defines with a body."""
    if not _HAS_BODY.search(data):
        return set()
    from vado.rules.cuda_syntax.declarations import find_functions
    from vado.scan.lexer import lex

    return {f.name for f in find_functions(lex(data.decode("latin-1")))}


_QUOTED_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"\r\n]+)"', re.MULTILINE)


def quoted_includes(text: str) -> list[str]:
    """The names of the quoted ``#include "…"`` lines of a source text, in order."""
    return [m.group(1) for m in _QUOTED_INCLUDE.finditer(text)]


def in_tree(base: str, name: str) -> str | None:
    """Include ``name`` of a file in directory ``base`` as a path relative to the tree's root; None where it
    leaves the tree (``../`` past the root, an absolute path)."""
    target = posixpath.normpath(posixpath.join(base, name))
    if target == ".." or target.startswith("../") or posixpath.isabs(target):
        return None
    return target


def included_project_headers(root, path: str, text: str) -> tuple["ProjectHeaders", list[str]] | None:
    """The :class:`ProjectHeaders` of ``root`` (the rule option ``source_root``) and the headers the file at
    ``path`` includes by quoted ``#include`` lines of ``text``, as paths inside the tree; None where no root is
    known or the text includes nothing so."""
    quoted = quoted_includes(text)
    if not root or not quoted:
        return None
    origin = path.replace(os.sep, "/")
    base = posixpath.dirname(origin)
    headers = project_headers(str(root))
    return headers, [t for t in (headers.locate(base, q, origin) for q in quoted) if t is not None]


@per_run
@functools.lru_cache(maxsize=8)
def project_headers(root: str) -> ProjectHeaders:
    """The :class:`ProjectHeaders` of ``root``, shared by the files of one tree in a run (:mod:`vado.scan.run_caches`)."""
    return ProjectHeaders(root)
