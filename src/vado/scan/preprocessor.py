"""Which parts of a file a compiler configuration compiles: conditional groups evaluated three-valued.

A :class:`Configuration` names the macros a compiler is known to define (with the value an
``#if`` sees), the ones it is known not to define, and leaves every other name unknown. The
evaluator walks a file's directives once, in order (linear in the directive tokens), keeps the
``#if``/``#ifdef``/``#ifndef``/``#elif``/``#elifdef``/``#elifndef``/``#else``/``#endif``
structure (unbalanced input is tolerated: a stray ``#endif`` or ``#else`` is ignored, an
unclosed group runs to the end of the file), and evaluates each condition to true, false or
unknown:

- ``defined X`` / ``defined(X)``: known when the configuration or the file decides ``X``;
- integer arithmetic, comparisons, ``&&``/``||``/``!``/``?:``; ``0 && unknown`` is false and
  ``1 || unknown`` true, anything else touching an unknown is unknown;
- ``__has_include(...)``, ``__has_attribute(...)`` and every other function-like name: unknown;
- the file's own ``#define``/``#undef``: where the directive is certainly compiled it decides the
  name from there on; where it may be compiled it makes the name unknown; where it is not
  compiled it is ignored, except that a ``#define`` of a name nothing defined yet, in a body
  skipped by a test of a macro the configuration decides (``#if !defined(GGML_USE_HIP) && …``),
  makes that name undefined: a feature macro derived from the platform is off where its
  condition is (a body skipped by ``#if 0`` or by the file's own switches leaves it unknown,
  since a ``-D`` may still set it). An include guard (the file's first directive ``#ifndef G``
  followed by ``#define G``) counts as true: the first inclusion compiles the file.
- quoted ``#include "header"`` of the project, where the caller gives a way to read them
  (:class:`vado.scan.project_headers.ProjectHeaders`): the header's defines and undefines, as the
  header itself decides them, count from the include on.

A group's body is *inactive* when its branch is certainly not taken (an earlier branch certainly
taken, or its condition false) or its enclosing body is inactive. :attr:`Conditionals.inactive`
lists those bodies as byte ranges: from the end of the branch's directive line to the start of
the directive that ends the branch. Directive lines themselves stay outside, so the edits that
rewrite a condition are never inside the body it governs.
"""

from __future__ import annotations

import bisect
import dataclasses
import functools
import re
from dataclasses import dataclass, field
from typing import Callable, Iterable, Mapping, Sequence

from vado.scan.classify import FileKind
from vado.scan.lexer import Kind

__all__ = ["Configuration", "Conditionals", "amd_configuration", "build_macros", "configuration", "cuda_configuration",
           "deciding_directive", "evaluate", "file_conditionals", "has_build_macros", "parse_defines"]

#: The conditional directives, by name without ``#`` and blanks.
_OPENERS = frozenset({"if", "ifdef", "ifndef"})
_BRANCHES = frozenset({"elif", "elifdef", "elifndef", "else"})
#: Nesting of macro values evaluated inside one condition (``#define A B``, ``#define B 1``).
_MAX_EXPANSION = 16


@dataclass(frozen=True, eq=False)
class Configuration:
    """What one compiler configuration is known to define.

    ``defined`` maps a macro to its value as an ``#if`` reads it (``"1"`` for a ``-DNAME``);
    ``undefined`` lists macros known not to be defined; every other name is unknown.
    ``port_renamed`` lists macros vado's port rewrites into a HIP macro (``__CUDACC__`` →
    ``__HIPCC__``): they read as defined, except in a conditional that also tests one of
    ``hip_markers`` (the project's own HIP code), where the port keeps them and they read
    as undefined (what hipcc says of them). ``hipify_renamed``: those of them PyTorch's build-time
    hipify rewrites everywhere in a torch extension's device sources (``__CUDACC__`` → ``__HIPCC__``),
    which read as defined there, the project's own HIP conditionals included.
    """

    name: str
    defined: Mapping[str, str] = field(default_factory=dict)
    undefined: frozenset[str] = frozenset()
    port_renamed: frozenset[str] = frozenset()
    hip_markers: frozenset[str] = frozenset()
    hipify_renamed: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        # The macros' token texts, once per configuration (every file starts from them).
        start: dict[str, object] = {n: _value_tokens(v) for n, v in self.defined.items()}
        start.update(dict.fromkeys(self.undefined))  # None: known undefined
        object.__setattr__(self, "_start", start)


@functools.cache
def _data() -> dict:
    from vado.knowledge._data import load

    return load("preprocessor")


def parse_defines(defines: Iterable[str]) -> dict[str, str]:
    """``("A", "B=2", "-DC=3")`` → ``{"A": "1", "B": "2", "C": "3"}`` (a compiler's ``-D`` forms)."""
    out: dict[str, str] = {}
    for item in defines:
        item = str(item).strip()
        if item.startswith("-D"):
            item = item[2:]
        name, eq, value = item.partition("=")
        name = name.strip()
        if name and (name[0].isalpha() or name[0] == "_") and all(c.isalnum() or c == "_" for c in name):
            out[name] = value.strip() if eq else "1"
    return out


@functools.lru_cache(maxsize=256)
def configuration(name: str, extra_defines: tuple[str, ...] = (), extra_undefined: tuple[str, ...] = (),
                  build_defines: tuple[str, ...] = (), build_undefined: tuple[str, ...] = ()) -> Configuration:
    """The ``cuda`` or ``amd`` configuration of ``preprocessor.yaml``, plus ``extra_defines``
    (``NAME`` or ``NAME=VALUE``: a project's own HIP option), which are defined and also count
    as HIP markers for ``amd``, and ``extra_undefined`` (names known not to be defined there:
    other backends' options the build leaves off).

    ``build_defines`` and ``build_undefined`` are what the project's build decides for one file
    (:mod:`vado.build.judged`: a unit's ``-D``/``-U``, the switches it leaves off): known, but no
    HIP marker; the compiler's own macros (the YAML's) and the ``extra_`` ones win over them."""
    data = _data()
    conf = data["configurations"][name]
    extra = parse_defines(extra_defines)
    off = frozenset(parse_defines(extra_undefined)) - set(extra)
    platform = {str(k) for k in (conf.get("defined") or {})} | {str(n) for n in conf.get("undefined") or ()}
    built = {k: v for k, v in parse_defines(build_defines).items() if k not in platform}
    built_off = frozenset(parse_defines(build_undefined)) - platform - set(built)
    defined = {**built, **{str(k): str(v) for k, v in (conf.get("defined") or {}).items() if k not in off}, **extra}
    for n in off:
        defined.pop(n, None)
    undefined = (frozenset(str(n) for n in conf.get("undefined") or ()) | off | (built_off - set(extra))) - set(extra)
    renamed = frozenset(str(n) for n in (conf.get("port_renamed") or {})) - set(extra) - off
    markers = frozenset(str(n) for n in data.get("hip_markers") or ())
    if name == "amd":
        markers |= frozenset(extra)
    return Configuration(name, defined, undefined, renamed, markers)


@dataclass(frozen=True)
class Conditionals:
    """The result of :func:`evaluate`: the inactive bodies of one file, sorted and merged."""

    inactive: tuple[tuple[int, int], ...] = ()
    _starts: tuple[int, ...] = field(default=(), repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.inactive:
            object.__setattr__(self, "_starts", tuple([s for s, _ in self.inactive]))

    def covers(self, start: int, end: int) -> bool:
        """Whether ``[start, end)`` (an insertion when ``start == end``) lies inside an inactive body."""
        i = bisect.bisect_right(self._starts, start) - 1
        if i < 0:
            return False
        s, e = self.inactive[i]
        return start >= s and end <= e

    def overlaps(self, start: int, end: int) -> bool:
        """Whether ``[start, end)`` touches an inactive body (an insertion: lies at or inside one)."""
        i = bisect.bisect_right(self._starts, end if end > start else start) - 1
        while i >= 0:
            s, e = self.inactive[i]
            if end > start and start < e and end > s or end == start and s <= start <= e:
                return True
            if e <= start:
                return False
            i -= 1
        return False

    def union(self, other: "Conditionals") -> "Conditionals":
        """These bodies and ``other``'s, merged."""
        return Conditionals(_merge(sorted(self.inactive + other.inactive)))

    def shifted(self, edits: Iterable[tuple[int, int, int]]) -> "Conditionals":
        """The bodies after applying ``edits``, ``(start, end, new length)`` each, none of which
        :meth:`overlaps` a body (so every body keeps its text and only moves)."""
        edits = sorted(edits)
        starts = [e[0] for e in edits]
        deltas = [0]
        for s, e, n in edits:
            deltas.append(deltas[-1] + n - (e - s))

        def move(b: int) -> int:
            return b + deltas[bisect.bisect_left(starts, b)]  # the edits that start before b

        return Conditionals(tuple((move(s), move(e)) for s, e in self.inactive))

    def __bool__(self) -> bool:
        return bool(self.inactive)


def _merge(ranges: list[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    """Sorted ranges with the overlapping and touching ones joined."""
    merged: list[tuple[int, int]] = []
    for s, e in ranges:
        if merged and s <= merged[-1][1]:
            if e > merged[-1][1]:
                merged[-1] = (merged[-1][0], e)
        else:
            merged.append((s, e))
    return tuple(merged)


_NONE = Conditionals()
_UNKNOWN = object()  # a macro the file made unknown (defined where it may not be compiled)
_FUNCTION = object()  # a function-like macro of the file: its use in #if is unknown


_DIRECTIVE_NAMES: dict[str, str] = {}


def _name(tok) -> str:
    """A directive's name without ``#`` and blanks (``# if`` → ``if``), memoised: files repeat a few."""
    text = tok[3]
    name = _DIRECTIVE_NAMES.get(text)
    if name is None:
        name = text[1:].replace(" ", "").replace("\t", "")
        if len(_DIRECTIVE_NAMES) < 4096:
            _DIRECTIVE_NAMES[text] = name
    return name


def evaluate(text: str, tokens: Sequence, marks: Sequence[int], config: Configuration, index=None,
             includes: "Callable[[str], dict | None] | None" = None) -> Conditionals:
    """The bodies of ``text`` that ``config`` certainly does not compile.

    ``tokens`` are the file's code tokens (:func:`vado.scan.lexer.lex` without comments, as
    :class:`vado.rules.cuda_syntax.DeviceView` keeps them) and ``marks`` the indices of their
    ``DIRECTIVE`` and ``EOD`` tokens, in order. ``index``, the tokens' spelling index where the
    caller has it (``DeviceView.spelling_index``), spares the look for HIP markers in files
    that spell none. ``includes(name)``, where given, answers a quoted ``#include "name"`` with
    the macros that header defines and undefines (:class:`vado.scan.project_headers.ProjectHeaders`).
    """
    directives = _directives(tokens, marks)
    if not any(d[2] in _OPENERS for d in directives):
        return _NONE
    return _walk(text, tokens, directives, config, index, includes)[0]


def _directives(tokens, marks) -> list[tuple[int, int, str]]:
    """``(directive index, EOD index, name)`` of every directive."""
    directives: list[tuple[int, int, str]] = []
    DIRECTIVE = Kind.DIRECTIVE
    pending = None
    for i in marks:
        tok = tokens[i]
        if tok[0] is DIRECTIVE:
            pending = (i, _name(tok))
        elif pending is not None:
            directives.append((pending[0], i, pending[1]))
            pending = None
    if pending is not None:
        directives.append((pending[0], len(tokens), pending[1]))
    return directives


def _group_chains(directives: list[tuple[int, int, str]]) -> dict[int, int]:
    """Position (in ``directives``) of each conditional directive → position of its group's opener."""
    owner: dict[int, int] = {}
    stack: list[int] = []
    for pos, (_, _, name) in enumerate(directives):
        if name in _OPENERS:
            stack.append(pos)
            owner[pos] = pos
        elif name in _BRANCHES or name == "endif":
            if stack:
                owner[pos] = stack[-1]
                if name == "endif":
                    stack.pop()
    return owner


def _hip_aware(tokens, directives, groups: dict[int, int], config: Configuration) -> set[int]:
    """Openers of the groups some condition of which names a HIP marker."""
    markers = config.hip_markers
    out: set[int] = set()
    for pos, opener in groups.items():
        d, eod, name = directives[pos]
        if name in ("else", "endif") or opener in out:
            continue
        if any(tokens[k][3] in markers for k in range(d + 1, eod)):
            out.add(opener)
    return out


class _Frame:
    """One open group: whether its enclosing body is compiled, whether a branch was taken."""

    __slots__ = ("parent", "taken", "state", "body_start", "opener", "platform")

    def __init__(self, parent, opener: int) -> None:
        self.parent = parent  # True / None (maybe) / False of the enclosing body
        self.taken = False  # True / None / False: an earlier branch was (maybe) taken
        self.state = False  # of the current branch's body
        self.body_start = -1
        self.opener = opener
        self.platform = False  # a condition of the group so far names a macro the configuration decides


def _and(a, b):
    if a is False or b is False:
        return False
    if a is True and b is True:
        return True
    return None


def _walk(text, tokens, directives, config: Configuration, index, includes, exports: bool = False
          ) -> tuple[Conditionals, dict]:
    """The inactive bodies, and (``exports``) the macros the file with its project headers defines or undefines.

    Headers are read lazily: an ``#include`` waits until a condition names a macro nothing has
    decided yet (most files test only include guards and the configuration's macros, and never
    read a header), and then every waiting header is merged in order, except for the names the
    file itself set after that ``#include``.
    """
    groups = _group_chains(directives)
    looks = config.port_renamed and (index is None or index.has_any(config.port_renamed) and index.has_any(config.hip_markers))
    aware = _hip_aware(tokens, directives, groups, config) if looks else set()
    macros: dict[str, object] = dict(config._start)
    touched: dict[str, object] = {}
    guard = _include_guard(tokens, directives)
    stack: list[_Frame] = []
    active = True  # of the text being walked
    inactive: list[tuple[int, int]] = []
    waiting: list[tuple[int, object, str]] = []  # (sequence number, active, header name) of includes not read yet
    set_at: dict[str, int] = {}  # the sequence number at which the file last set each name

    def read_waiting() -> None:
        for seq, was_active, header in waiting:
            for macro, value in (includes(header) or {}).items():
                if set_at.get(macro, -1) < seq:
                    macros[macro] = touched[macro] = value if was_active is True else _UNKNOWN
        waiting.clear()

    may_define = getattr(includes, "may_define", None)

    def undecided(d: int, eod: int) -> bool:
        names = {tokens[k][3] for k in range(d + 1, eod) if tokens[k][0] is Kind.IDENT and tokens[k][3] not in macros}
        return bool(names) and (may_define is None or any(may_define(header, names) for _, _, header in waiting))

    for pos, (d, eod, name) in enumerate(directives):
        line_end = tokens[eod][1] if eod < len(tokens) else len(text)
        if waiting and (name in _OPENERS or name in ("elif", "elifdef", "elifndef")) and active is not False \
                and undecided(d, eod):
            read_waiting()
        if name in _OPENERS:
            frame = _Frame(active, pos)
            stack.append(frame)
            if active is False:
                cond = False
            elif pos == 0 and guard is not None:
                cond = True
            else:
                cond = _condition(tokens, d, eod, name, macros, config, pos in aware)
                frame.platform = _names_known(tokens, d, eod, config)
            _enter(frame, cond, line_end)
            active = frame.state
        elif name in _BRANCHES:
            if not stack or groups.get(pos) != stack[-1].opener:
                continue  # a stray #else/#elif
            frame = stack[-1]
            _leave(frame, tokens[d][1], inactive)
            if frame.parent is False or frame.taken is True:
                cond = False
            elif name == "else":
                cond = True
            else:
                cond = _condition(tokens, d, eod, name, macros, config, frame.opener in aware)
                frame.platform = frame.platform or _names_known(tokens, d, eod, config)
            _enter(frame, cond, line_end)
            active = frame.state
        elif name == "endif":
            if not stack:
                continue
            frame = stack.pop()
            _leave(frame, tokens[d][1], inactive)
            active = frame.parent
        elif name in ("define", "undef") and active is not False:
            macro = _record_define(tokens, d, eod, name, macros, active)
            if macro is not None:
                touched[macro] = macros[macro]
                set_at[macro] = pos
        elif name == "define" and eod > d + 1 and _off_by_platform(stack):
            # A feature macro of the project (``#if !defined(GGML_USE_HIP) && … #define CP_ASYNC_AVAILABLE``)
            # whose only definition so far is in a body this configuration certainly skips is off.
            macro = tokens[d + 1][3]
            if waiting and macro not in macros:
                read_waiting()
            if macro not in macros:
                macros[macro] = touched[macro] = None
                set_at[macro] = pos
        elif name == "include" and includes is not None and active is not False and eod > d + 1:
            operand = tokens[d + 1][3]
            if operand[:1] == '"' and operand[-1:] == '"':
                waiting.append((pos, active, operand[1:-1]))
    while stack:  # unclosed groups run to the end of the file
        _leave(stack.pop(), len(text), inactive)
    if waiting and exports:
        read_waiting()
    # A body as token indices means nothing outside this file: its texts go out.
    defined = {n: tuple(tokens[k][3] for k in v) if type(v) is range else v for n, v in touched.items()}
    return Conditionals(_merge(sorted(inactive))), defined


def _names_known(tokens, d: int, eod: int, config: Configuration) -> bool:
    """Whether the condition of the directive at ``d`` names a macro the configuration decides."""
    start = config._start
    renamed = config.port_renamed
    return any((t := tokens[k][3]) in start or t in renamed for k in range(d + 1, eod))


def _off_by_platform(stack: list) -> bool:
    """Whether the innermost skipped body was skipped by a group that tests a configuration's macro
    (not a plain ``#if 0``, whose defines are a switch the build may still set)."""
    for frame in reversed(stack):
        if frame.parent is not False:
            return frame.state is False and frame.platform
    return False


def _enter(frame: _Frame, cond, body_start: int) -> None:
    """Start a branch whose condition is ``cond`` (True/False/None)."""
    taken = frame.taken
    branch = False if taken is True or cond is False else (True if taken is False and cond is True else None)
    frame.state = _and(frame.parent, branch)
    frame.taken = True if taken is True or cond is True else (None if taken is None or cond is None else False)
    frame.body_start = body_start


def _leave(frame: _Frame, end: int, inactive: list) -> None:
    # A body inside an inactive one is covered by it already.
    if frame.state is False and frame.parent is not False and frame.body_start < end:
        inactive.append((frame.body_start, end))


def _include_guard(tokens, directives) -> str | None:
    """The guard name when the file's first directive is ``#ifndef G`` (or ``#if !defined G``)
    and the next is ``#define G``."""
    if len(directives) < 2:
        return None
    (d, eod, name), (d2, eod2, name2) = directives[0], directives[1]
    texts = [tokens[k][3] for k in range(d + 1, eod)]
    if name == "ifndef" and len(texts) == 1:
        guard = texts[0]
    elif name == "if" and len(texts) == 3 and texts[:2] == ["!", "defined"]:
        guard = texts[2]
    elif name == "if" and len(texts) == 5 and texts[:3] == ["!", "defined", "("] and texts[4] == ")":
        guard = texts[3]
    else:
        return None
    if name2 == "define" and eod2 > d2 + 1 and tokens[d2 + 1][3] == guard:
        return guard
    return None


def _record_define(tokens, d: int, eod: int, name: str, macros: dict, active) -> str | None:
    """Record a ``#define``/``#undef``; the macro's name, or None for a malformed one."""
    if eod <= d + 1 or tokens[d + 1][0] is not Kind.IDENT:
        return None
    macro = tokens[d + 1]
    if active is None:
        macros[macro[3]] = _UNKNOWN
    elif name == "undef":
        macros[macro[3]] = None
    elif eod > d + 2 and tokens[d + 2][3] == "(" and tokens[d + 2][1] == macro[2]:
        macros[macro[3]] = _FUNCTION
    else:
        macros[macro[3]] = range(d + 2, eod)  # the body's tokens, read when a condition uses the macro
    return macro[3]


def _condition(tokens, d: int, eod: int, name: str, macros: dict, config: Configuration, aware: bool):
    """True, False or None (unknown) for the condition of the directive at ``d``."""
    if name in ("ifdef", "ifndef", "elifdef", "elifndef"):
        if eod <= d + 1:
            return None
        v = _is_defined(tokens[d + 1][3], macros, config, aware)
        if v is None:
            return None
        return v if name in ("ifdef", "elifdef") else not v
    texts = [tokens[k][3] for k in range(d + 1, eod)]
    value = _Parser(texts, macros, config, aware, 0, tokens).parse()
    if value is None:
        return None
    return value != 0


def _is_defined(name: str, macros: dict, config: Configuration, aware: bool):
    if name in macros:
        v = macros[name]
        if v is _UNKNOWN:
            return None
        return v is not None
    if name in config.port_renamed:
        return name in config.hipify_renamed or not aware
    return None


class _Parser:
    """A precedence-climbing evaluator of one ``#if`` expression over token texts.

    Values are ints or None (unknown). Every operand is parsed even where the result is
    already decided, so the parser always consumes the whole expression; a syntax error
    makes the whole condition unknown.
    """

    __slots__ = ("texts", "pos", "macros", "config", "aware", "depth", "tokens")

    _BINARY = {
        "*": 10, "/": 10, "%": 10, "+": 9, "-": 9, "<<": 8, ">>": 8, "<": 7, ">": 7, "<=": 7, ">=": 7,
        "==": 6, "!=": 6, "&": 5, "^": 4, "|": 3, "&&": 2, "||": 1,
    }

    def __init__(self, texts, macros, config, aware, depth, tokens) -> None:
        self.texts, self.pos, self.macros, self.config, self.aware, self.depth = texts, 0, macros, config, aware, depth
        self.tokens = tokens

    def parse(self):
        try:
            v = self._ternary()
        except _Syntax:
            return None
        if self.pos != len(self.texts):
            return None
        return v

    def _peek(self) -> str:
        return self.texts[self.pos] if self.pos < len(self.texts) else ""

    def _take(self) -> str:
        if self.pos >= len(self.texts):
            raise _Syntax
        t = self.texts[self.pos]
        self.pos += 1
        return t

    def _ternary(self):
        cond = self._binary(1)
        if self._peek() != "?":
            return cond
        self.pos += 1
        a = self._ternary()
        if self._take() != ":":
            raise _Syntax
        b = self._ternary()
        if cond is None:
            return a if a == b else None
        return a if cond else b

    def _binary(self, min_prec: int):
        left = self._unary()
        while True:
            op = self._peek()
            prec = self._BINARY.get(op)
            if prec is None or prec < min_prec:
                return left
            self.pos += 1
            right = self._binary(prec + 1)
            left = _apply(op, left, right)

    def _unary(self):
        t = self._take()
        if t == "(":
            v = self._ternary()
            if self._take() != ")":
                raise _Syntax
            return v
        if t in ("!", "~", "-", "+"):
            v = self._unary()
            if v is None:
                return None
            return {"!": lambda x: int(not x), "~": lambda x: ~x, "-": lambda x: -x, "+": lambda x: x}[t](v)
        if t == "defined":
            paren = self._peek() == "("
            if paren:
                self.pos += 1
            name = self._take()
            if paren and self._take() != ")":
                raise _Syntax
            v = _is_defined(name, self.macros, self.config, self.aware)
            return None if v is None else int(v)
        if t[:1].isdigit():
            return _int_literal(t)
        if t[:1] == "'" or t[:1] == '"':
            return None
        if t[:1].isalpha() or t[:1] == "_":
            return self._identifier(t)
        raise _Syntax

    def _identifier(self, name: str):
        if self._peek() == "(":  # __has_include(...), a function-like macro: unknown
            self._skip_parens()
            return None
        if name in ("true", "false") and name not in self.macros:
            return int(name == "true")
        if name in self.macros:
            v = self.macros[name]
            if v is None:
                return 0
            if v is _UNKNOWN or v is _FUNCTION:
                return None
            if type(v) is range:
                v = tuple(self.tokens[k][3] for k in v)
            if len(v) == 1 and v[0][:1].isdigit():
                return _int_literal(v[0])
            if not v or self.depth >= _MAX_EXPANSION:
                return None
            return _Parser(v, self.macros, self.config, self.aware, self.depth + 1, self.tokens).parse()
        if name in self.config.port_renamed:
            return int(name in self.config.hipify_renamed or not self.aware)
        return None

    def _skip_parens(self) -> None:
        depth = 0
        while self.pos < len(self.texts):
            t = self.texts[self.pos]
            self.pos += 1
            if t == "(":
                depth += 1
            elif t == ")":
                depth -= 1
                if depth == 0:
                    return
        raise _Syntax


def evaluate_expression(texts: Sequence[str], values: Mapping[str, int], undefined: Iterable[str] = ()) -> int | None:
    """The value of a C expression of integer constants given as token texts (``#if`` arithmetic and logic),
    each identifier in ``values`` read as its value and each of ``undefined`` as a macro known not to be
    defined (``defined(X)`` is 0, ``X`` is 0); None where an operand is unknown or the text does not
    parse. For constant expressions outside directives (a ``static_assert``'s condition) and one
    condition read under a single assumption (``__CUDA_ARCH__`` undefined, as hipcc leaves it)."""
    macros: dict[str, object] = dict.fromkeys(undefined)
    macros.update({name: (str(int(v)),) for name, v in values.items()})
    return _Parser(list(texts), macros, Configuration("expression"), False, 0, ()).parse()


class _Syntax(Exception):
    """A condition vado cannot parse: its value is unknown."""


def _value_tokens(value: str) -> tuple[str, ...]:
    """The token texts of a macro value given as text (a configuration's ``NAME=VALUE``)."""
    if value.isalnum() or value.replace("_", "a").isalnum():
        return (value,)
    from vado.scan.lexer import tokenize

    return tuple(t[3] for t in tokenize(value) if t[0] is not Kind.COMMENT)


def _int_literal(text: str):
    t = text.replace("'", "").rstrip("uUlLzZ")
    try:
        if t[:2] in ("0x", "0X"):
            return int(t[2:], 16)
        if t[:2] in ("0b", "0B"):
            return int(t[2:], 2)
        if len(t) > 1 and t[0] == "0":
            return int(t, 8)
        return int(t)
    except ValueError:
        return None


def _apply(op: str, a, b):
    if op == "&&":
        if a == 0 or b == 0:  # None == 0 is False: an unknown never decides
            return 0
        return None if a is None or b is None else 1
    if op == "||":
        if (a is not None and a != 0) or (b is not None and b != 0):
            return 1
        return None if a is None or b is None else 0
    if a is None or b is None:
        return None
    if op in ("/", "%"):
        if b == 0:
            return None
        q = abs(a) // abs(b) * (1 if (a >= 0) == (b >= 0) else -1)  # C truncates toward zero
        return q if op == "/" else a - q * b
    if op in ("<<", ">>"):
        if b < 0 or b > 63:
            return None
        return a << b if op == "<<" else a >> b
    return {
        "*": lambda: a * b, "+": lambda: a + b, "-": lambda: a - b, "<": lambda: int(a < b), ">": lambda: int(a > b),
        "<=": lambda: int(a <= b), ">=": lambda: int(a >= b), "==": lambda: int(a == b), "!=": lambda: int(a != b),
        "&": lambda: a & b, "^": lambda: a ^ b, "|": lambda: a | b,
    }[op]()


def file_conditionals(ctx, config: Configuration) -> Conditionals:
    """:func:`evaluate` for a rules :class:`~vado.rules.base.FileContext`, kept on the context per configuration.

    A file without a conditional directive costs one look at its directive marks. With the rule
    option ``source_root`` (the audited tree; ``ctx.path`` is relative to it) and the AMD build's
    defines (``amd_defines``/``amd_undefined``: a project with its own HIP path), the file's quoted
    includes inside the tree are followed for the macros they define
    (:class:`vado.scan.project_headers.ProjectHeaders`).
    """
    cache = getattr(ctx, "_conditionals", None)
    if cache is None or cache[0] is not ctx.text:
        cache = (ctx.text, {})
        ctx._conditionals = cache
    if config.hipify_renamed and ctx.kind in (FileKind.CXX_SOURCE, FileKind.HIP_SOURCE):
        # The host C++ compiler compiles a torch extension's .cpp units: hipify's __HIPCC__ is undefined there.
        config = _with_hipify_renamed(config, frozenset())
    found = cache[1].get(config)
    if found is None:
        from vado.rules.cuda_syntax import device_view

        view = device_view(ctx)
        options = ctx.options or {}
        root = options.get("source_root")
        # Headers are followed for a project whose AMD build is known (its own HIP path: the feature
        # macros its headers derive from the platform switch); elsewhere they cost audit time and
        # decide little.
        follow = root and (options.get("amd_defines") or options.get("amd_undefined"))
        if follow:
            from vado.scan.project_headers import project_headers

            includes = project_headers(str(root)).resolver(ctx.path, config)
        else:
            includes = None
        found = cache[1][config] = evaluate(ctx.text, view.tokens, view.directive_marks, config, view.spelling_index,
                                            includes)
    return found


def deciding_directive(text: str, tokens: Sequence, marks: Sequence[int], offset: int,
                       conditionals: Conditionals, directives: list | None = None) -> str | None:
    """The directive line (``#ifdef ENABLE_CUDNN``) of the outermost branch around ``offset`` whose body
    ``conditionals`` marks inactive: the test that switches the code there off (a branch inside it is off
    because of it); None where no enclosing body is inactive. ``directives``: the file's
    ``(directive, end, name)`` list where the caller keeps it for several offsets."""
    stack: list[tuple[int, int]] = []  # (directive token index, its end-of-directive index), per open group
    for d, eod, name in directives if directives is not None else _directives(tokens, marks):
        if tokens[d][1] >= offset:
            break
        if name in _OPENERS:
            stack.append((d, eod))
        elif name in _BRANCHES and stack:
            stack[-1] = (d, eod)
        elif name == "endif" and stack:
            stack.pop()
    for d, eod in stack:
        body = tokens[eod][2] if eod < len(tokens) else len(text)
        if conditionals.covers(body, body):
            end = tokens[eod][1] if eod < len(tokens) else len(text)
            return " ".join(text[tokens[d][1]:end].split())
    return None


def _option_names(value) -> tuple[str, ...]:
    if not value:
        return ()
    if isinstance(value, str):
        value = value.replace(";", ",").split(",")
    return tuple(sorted(str(v).strip() for v in value if str(v).strip()))


#: A build macro named for one GPU platform (``USE_CUDA``, ``GGML_USE_CUBLAS``, ``WITH_HIP``): the CUDA
#: build's value of it says nothing of what the AMD build sets, so the AMD configuration leaves it unknown.
_PLATFORM_SWITCH = re.compile(
    r"(?:^|_)(?:CUDA|CUDART|CUBLAS|CUBLASLT|CUDNN|CUFFT|CURAND|CUSPARSE|CUSOLVER|CUTLASS|NVCC|NVIDIA|NV|NVTX|TENSORRT"
    r"|HIP|HIPBLAS|HIPBLASLT|ROCM|ROCBLAS|MIOPEN|AMD|CK)(?:_|$|BLAS)", re.IGNORECASE)


#: An NVIDIA library's word in a build switch (``ENABLE_CUDNN``, ``USE_CUTLASS``, ``WITH_NVTX``).
_NVIDIA_LIBRARY = re.compile(r"(?:^|_)(?:CUBLASLT|CUBLAS|CUDNN|CUFFT|CURAND|CUSPARSE|CUSOLVER|CUTLASS|NVTX|TENSORRT)(?=_|$)",
                             re.IGNORECASE)


def _library_switch_left_off(name: str) -> bool:
    """Whether ``name`` names an NVIDIA library and no GPU platform (``ENABLE_CUDNN``, not ``USE_CUDA_CUDNN``
    or ``GGML_USE_HIPBLAS``): a build that leaves it off leaves it off in vado's port of that build too (the port
    switches no library on), where a platform switch left off (``USE_HIP``) is what an AMD build turns on."""
    rest = _NVIDIA_LIBRARY.sub("_", name)
    return rest != name and not _PLATFORM_SWITCH.search(rest)


def build_macros(options: Mapping | None, *, amd: bool = False) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The rule options' ``build_defines`` and ``build_undefined`` (what the project's build decides
    for the file, :mod:`vado.build.judged`), for the ``amd`` configuration without the macros named
    for one GPU platform (:data:`_PLATFORM_SWITCH`), except an NVIDIA library's switch the build leaves
    undefined (:func:`_library_switch_left_off`)."""
    options = options or {}
    defines, undefined = options.get("build_defines") or (), options.get("build_undefined") or ()
    if isinstance(defines, str):
        defines = (defines,)
    if isinstance(undefined, str):
        undefined = (undefined,)
    defines = tuple(sorted(str(d) for d in defines))
    undefined = tuple(sorted(str(u) for u in undefined))
    if amd:
        defines = tuple(d for d in defines if not _PLATFORM_SWITCH.search(d.partition("=")[0]))
        undefined = tuple(u for u in undefined if not _PLATFORM_SWITCH.search(u) or _library_switch_left_off(u))
    return defines, undefined


def has_build_macros(options: Mapping | None) -> bool:
    """Whether the rule options carry what a read build decides for the file (:mod:`vado.build.judged`)."""
    return bool(options) and ("build_defines" in options or "build_undefined" in options)


def amd_configuration(options: Mapping | None = None) -> Configuration:
    """The ``amd`` configuration for rule options: ``amd_defines`` (``NAME`` or ``NAME=VALUE``
    strings: the project's own HIP option, the AMD build's ``-D`` flags), ``amd_undefined``
    (names the AMD build leaves undefined: other backends' options), and the build's own
    ``build_defines``/``build_undefined`` for the file (:func:`build_macros`)."""
    options = options or {}
    defines, undefined = options.get("amd_defines"), options.get("amd_undefined")
    bdef, bundef = build_macros(options, amd=True)
    if not defines and not undefined and not bdef and not bundef:
        config = configuration("amd")
    else:
        config = configuration("amd", _option_names(defines), _option_names(undefined), bdef, bundef)
    if options.get("torch_extension"):
        # A torch extension's ROCm build runs PyTorch's hipify over its sources: every __CUDACC__ test reads
        # __HIPCC__ there (pytorch3d's `defined(__CUDACC__) && defined(__HIP_PLATFORM_AMD__)` branch is its
        # AMD code), not only those the port would rename.
        from vado.port.torch_ext import hipify_macros

        hipcc = frozenset(n for n, to in hipify_macros().items() if to == "__HIPCC__") & config.port_renamed
        config = _with_hipify_renamed(config, hipcc)
    return config


@functools.lru_cache(maxsize=256)
def _with_hipify_renamed(config: Configuration, names: frozenset[str]) -> Configuration:
    """``config`` with ``hipify_renamed`` = ``names``, one object per pair: configurations key the per-file caches
    by identity."""
    return config if config.hipify_renamed == names else dataclasses.replace(config, hipify_renamed=names)


#: A name that says HIP or ROCm as a word of it (``GGML_USE_HIP``, ``USE_ROCM``, ``LLAMA_HIPBLAS``).
_HIP_OPTION = re.compile(r"(?:^|_)(?:HIP|ROCM)(?:_|$|BLAS)", re.IGNORECASE)


def cuda_configuration(options: Mapping | None = None, *, with_build: bool = True) -> Configuration:
    """The ``cuda`` configuration for rule options: the names of ``amd_defines`` that say HIP or
    ROCm (the project's own HIP switch, ``GGML_USE_HIP``) are undefined there, since the CUDA build
    does not switch the HIP path on; the AMD build's other defines (``NDEBUG``) stay unknown. With
    ``with_build``, the build's ``build_defines``/``build_undefined`` for the file count too (the
    CUDA build is the one vado read)."""
    options = options or {}
    names = tuple(n for n in parse_defines(_option_names(options.get("amd_defines"))) if _HIP_OPTION.search(n))
    bdef, bundef = build_macros(options) if with_build else ((), ())
    names = tuple(n for n in names if n not in parse_defines(bdef))
    return configuration("cuda", (), names, bdef, bundef)


def hip_aware_directives(tokens: Sequence, marks: Sequence[int], config: Configuration) -> frozenset[int]:
    """Token indices of the directives of every conditional some condition of which names one of
    ``config.hip_markers`` (``#if defined(__NVCC__) … #elif defined(__HIP_PLATFORM_AMD__)``):
    code that already tells HIP apart, whose ``__CUDACC__``/``__NVCC__`` tests the port keeps."""
    directives = _directives(tokens, marks)
    groups = _group_chains(directives)
    aware = _hip_aware(tokens, directives, groups, config)
    return frozenset(directives[pos][0] for pos, opener in groups.items() if opener in aware)


def kept_renamed_spans(tokens: Sequence, marks: Sequence[int], index, config: Configuration) -> tuple[tuple[int, int], ...]:
    """Byte ranges of the ``__CUDACC__``/``__NVCC__`` tokens (``config.port_renamed``) in conditionals that
    also test a HIP macro (:func:`hip_aware_directives`): the port keeps them as written, since under
    hipcc they are undefined and the conditional's HIP branch is the one the project wrote for it."""
    renamed = config.port_renamed
    if not renamed or not index.has_any(renamed) or not index.has_any(config.hip_markers):
        return ()
    aware = hip_aware_directives(tokens, marks, config)
    if not aware:
        return ()
    out = []
    for i in index.indices_of(renamed, Kind.IDENT):
        k = bisect.bisect_left(marks, i) - 1  # the directive or end of directive before the token
        if k >= 0 and marks[k] in aware:
            out.append((tokens[i][1], tokens[i][2]))
    return tuple(out)
