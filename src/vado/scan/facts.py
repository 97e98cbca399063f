"""Facts of one C/C++/CUDA file, extracted from its tokens in one pass.

Rules ask questions such as "which CUDA names does this file use, and where?",
"which headers does it include?", "where are its kernel launches?". Each of
them could walk the token list itself; instead :func:`extract_facts` walks it
once and :func:`source_facts` keeps the result on the :class:`FileContext`, so
every rule of a file shares one pass.

What counts as a *use* of an identifier (``SourceFacts.idents``):

- only ``IDENT`` tokens: names inside comments, strings and character literals
  are never uses, because the lexer gives them their own kinds;
- not a member: a name right after ``.`` / ``->`` (``ops.cudaMalloc``) is a
  field of a user type, kept apart in ``members``;
- not a macro's own name: ``#define cudaCheck(x) …`` and ``#undef`` define or
  drop a name, kept apart in ``defines``; the tokens of a macro *body* are uses
  (``#define CHECK(x) cudaGetErrorString(x)`` uses ``cudaGetErrorString``);
- not prose: the operands of ``#error``, ``#warning``, ``#pragma``, ``#line``
  and ``#ident`` are not code (``#pragma comment(lib, …)`` is read for links);
- tokens inside macro *invocations* are ordinary tokens, so
  ``CUDA_CHECK(cudaMalloc(&p, n))`` uses ``CUDA_CHECK`` and ``cudaMalloc``.

Uses are grouped by name (``{name: [start offsets]}``): a file has far fewer
distinct names than identifier tokens, so a rule that looks names up in a table
does one dict lookup per distinct name, not per token.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from vado.scan.lexer import Kind, is_native_tokens

if TYPE_CHECKING:  # pragma: no cover - typing only
    from vado.rules.base import FileContext

__all__ = [
    "Include",
    "KernelDef",
    "KernelLaunch",
    "LinkRef",
    "SourceFacts",
    "extract_facts",
    "source_facts",
]


@dataclass(frozen=True)
class Include:
    """One ``#include`` / ``#include_next`` / ``#import`` directive.

    ``path`` is the operand without its delimiters (``cuda_runtime.h``,
    ``cutlass/gemm/device/gemm.h``); ``system`` is True for ``<…>`` and False
    for ``"…"``. ``start``/``end`` span the operand including its delimiters;
    ``directive_start`` is where the ``#`` is. An include whose operand is a
    macro (``#include MY_HEADER``) has no path and is not recorded.
    """

    path: str
    system: bool
    start: int
    end: int
    directive_start: int


@dataclass(frozen=True)
class KernelLaunch:
    """A triple-chevron launch ``kernel<<<config>>>(args)``.

    ``kernel`` is the launched name as written, qualifiers included and
    template arguments dropped (``ns::k`` for ``ns::k<float><<<…>>>``);
    ``start`` is where that name starts, ``end`` where ``>>>`` ends;
    ``config`` holds the text of each top-level launch-configuration argument.
    """

    kernel: str
    start: int
    end: int
    config: tuple[str, ...]


@dataclass(frozen=True)
class KernelDef:
    """A ``__global__`` function: its name and the span of the name."""

    name: str
    start: int
    end: int


@dataclass(frozen=True)
class LinkRef:
    """A reference to a library binary inside source code.

    ``how`` is ``pragma`` for ``#pragma comment(lib, "cublas.lib")`` (MSVC) and
    ``load`` for a string that names a shared library (``dlopen("libcudnn.so.9")``,
    ``LoadLibrary("nvcuda.dll")``). ``file`` is the string's content, ``name``
    the library stem (``cudnn`` for ``libcudnn.so.9``, ``cublas`` for
    ``cublas64_12.dll``); ``start``/``end`` span the string literal.
    """

    name: str
    file: str
    how: str
    start: int
    end: int


@dataclass
class SourceFacts:
    """What one file includes, uses, launches and links.

    ``idents`` maps each used name to the start offsets of its uses (see the
    module docstring for what a use is), in file order. ``qualifiers`` maps the
    start offset of a qualified use to its qualifier (``cub::DeviceReduce`` for
    the ``Sum`` of ``cub::DeviceReduce::Sum``); unqualified and ``::``-global
    uses have no entry. ``scopes`` maps the first component of each qualified
    name (``cutlass`` in ``cutlass::gemm::Gemm``) to its offsets. ``members``
    and ``defines`` hold member names and macro names being defined, which are
    not uses. ``calls`` holds the used names that are followed by ``(`` at least
    once (called functions, function-like macros, constructors).
    """

    includes: tuple[Include, ...] = ()
    idents: dict[str, list[int]] = field(default_factory=dict)
    qualifiers: dict[int, str] = field(default_factory=dict)
    scopes: dict[str, list[int]] = field(default_factory=dict)
    members: dict[str, list[int]] = field(default_factory=dict)
    defines: dict[str, list[int]] = field(default_factory=dict)
    calls: set[str] = field(default_factory=set)
    launches: tuple[KernelLaunch, ...] = ()
    kernels: tuple[KernelDef, ...] = ()
    links: tuple[LinkRef, ...] = ()

    def count(self, name: str) -> int:
        """Number of uses of ``name``."""
        return len(self.idents.get(name, ()))

    def first_use(self, name: str) -> int | None:
        """Offset of the first use of ``name``, or None."""
        offsets = self.idents.get(name)
        return offsets[0] if offsets else None

    def qualified_name(self, name: str, start: int) -> str:
        """``qualifier::name`` for the use of ``name`` at ``start`` (just ``name`` when unqualified)."""
        q = self.qualifiers.get(start)
        return f"{q}::{name}" if q else name


# Directives whose operands are not code uses.
_PROSE_DIRECTIVES = frozenset({"error", "warning", "pragma", "line", "ident", "sccs", "assert", "unassert"})
_INCLUDE_DIRECTIVES = frozenset({"include", "include_next", "import"})
_DEFINING_DIRECTIVES = frozenset({"define", "undef"})
# Identifiers whose parenthesised operand sits between ``__global__`` and a kernel's name.
_DECL_ATTRIBUTES = frozenset(
    {"__launch_bounds__", "__attribute__", "__declspec", "alignas", "__cluster_dims__", "__maxnreg__", "decltype"}
)
_CLOSE_OF = {"(": ")", "[": "]", "{": "}"}

# A string literal that is nothing but a shared-library or import-library file name.
_LIBRARY_FILE = re.compile(
    r"""^(?:[^"\s]*[/\\])?                 # optional directory
        (?P<file>(?:lib)?(?P<stem>[A-Za-z][A-Za-z0-9_+-]*?)
        (?:64)?(?:_[0-9]+)*                 # cublas64_12.dll, cudnn64_9.dll
        \.(?:so(?:\.[0-9]+)*|dll|lib|dylib|a))$""",
    re.VERBOSE,
)
_PRAGMA_LIB = re.compile(r"\bcomment\s*\(\s*lib\s*,\s*\Z")


def _directive_name(text: str) -> str:
    """``include`` for ``#include``, ``# include`` or ``#\\<newline>include``."""
    return text[1:].replace("\\\r\n", "").replace("\\\n", "").strip(" \t\f\v")


def _library_stem(stem: str, file: str) -> str:
    # ``libcudnn_ops.so`` is cuDNN's; the sub-library suffix still names cuDNN.
    if file.startswith("lib") and stem.startswith("lib"):
        stem = stem[3:]
    return stem.lower()


def extract_facts(text: str, tokens: list) -> SourceFacts:
    """Facts of a file from its text and tokens (see :class:`SourceFacts`).

    Linear in the number of tokens: one pass, with short look-backs for
    qualifiers and launch names and a forward scan per launch configuration.
    """
    return extract_facts_and_code(text, tokens)[0]


def extract_facts_and_code(text: str, tokens: list) -> tuple[SourceFacts, list]:
    """:func:`extract_facts` and the code tokens (``tokens`` without comments) it walked.

    A compiled token sequence (:func:`vado.scan.lexer.lex`) is walked in C; a list
    (the Python lexer's, or a file with line splices inside tokens) in Python.
    """
    if is_native_tokens(tokens):
        return _native_facts(text, tokens)
    return _python_facts(text, tokens)


def python_facts(text: str, tokens: list) -> SourceFacts:
    """:func:`extract_facts` by the pure-Python pass, the reference of the compiled one."""
    return _python_facts(text, tokens)[0]


class LazyUses(Mapping):
    """``SourceFacts.idents`` of a compiled pass: name → start offsets of its uses, read on demand.

    The compiled facts pass marks each use on the code tokens instead of building a
    list of offsets per name; the names are listed when first asked for (in first-use
    order, as the dict of the Python pass), and each name's offsets when it is looked
    up. Rules ask for a few names of a file's thousands. ``keys()`` is a real dict's
    keys view, so set operations with it run at C speed. Equal to the dict of the same
    uses (``Mapping``'s equality), and unhashable like it.
    """

    __slots__ = ("_code", "_names", "_offsets")

    def __init__(self, code) -> None:
        self._code = code
        self._names: dict[str, None] | None = None
        self._offsets: dict[str, list[int]] = {}

    def _name_set(self) -> dict[str, None]:
        if self._names is None:
            self._names = dict.fromkeys(self._code.use_names())
        return self._names

    def __getitem__(self, name: str) -> list[int]:
        found = self._offsets.get(name)
        if found is None:
            if not isinstance(name, str) or name not in self._name_set():
                raise KeyError(name)
            found = self._offsets[name] = self._code.use_offsets(name)
        return found

    def __contains__(self, name: object) -> bool:
        return name in self._name_set()

    def __iter__(self):
        return iter(self._name_set())

    def __len__(self) -> int:
        return len(self._name_set())

    def keys(self):  # type: ignore[override]
        """The names, as a dict keys view (set operations at C speed)."""
        return self._name_set().keys()

    def __repr__(self) -> str:
        return repr(dict(self.items()))


def _native_facts(text: str, tokens: list) -> tuple[SourceFacts, list]:
    # The token loop runs in C (vado/_native/facts.c); the few includes and library-name
    # candidates it reports are finished here, exactly as the Python loop does.
    # The loop runs on the C structs (vado/_native/tokens.c); ``code`` is a Tokens too.
    code, qualifiers, scopes, members, defines, calls, launch_at, global_at, incs, strings = tokens.facts()
    idents = LazyUses(code)
    includes = [Include(code[i][3][1:-1].strip(), system, code[i][1], code[i][2], ds) for i, system, ds in incs]
    links: list[LinkRef] = []
    for i, pragma in strings:
        s = code[i][3]
        m = _LIBRARY_FILE.match(s[1:-1])
        if m is None:
            continue
        how = "load"
        if pragma:
            if _PRAGMA_LIB.search(text_before(code[max(0, i - 5):i], 5)) is None:
                continue
            how = "pragma"
        links.append(LinkRef(_library_stem(m["stem"], m["file"]), s[1:-1], how, code[i][1], code[i][2]))
    facts = _assemble(text, code, includes, idents, qualifiers, scopes, members, defines, calls, launch_at, global_at, links)
    return facts, code


def _assemble(text, code, includes, idents, qualifiers, scopes, members, defines, calls, launch_at, global_at, links):
    """The :class:`SourceFacts` of one pass's collections (launches and kernels read from ``code``)."""
    return SourceFacts(
        includes=tuple(includes),
        idents=idents,
        qualifiers=qualifiers,
        scopes=scopes,
        members=members,
        defines=defines,
        calls=calls,
        launches=tuple(l for l in (_launch(text, code, i) for i in launch_at) if l is not None),
        kernels=tuple(k for k in (_kernel_def(code, i) for i in global_at) if k is not None),
        links=tuple(links),
    )


def _python_facts(text: str, tokens: list) -> tuple[SourceFacts, list]:
    IDENT, COMMENT, PUNCT = Kind.IDENT, Kind.COMMENT, Kind.PUNCT
    DIRECTIVE, HEADER, EOD, STRING = Kind.DIRECTIVE, Kind.HEADER, Kind.EOD, Kind.STRING

    idents: dict[str, list[int]] = {}
    qualifiers: dict[int, str] = {}
    scopes: dict[str, list[int]] = {}
    members: dict[str, list[int]] = {}
    defines: dict[str, list[int]] = {}
    calls: set[str] = set()
    includes: list[Include] = []
    links: list[LinkRef] = []
    launch_at: list[int] = []
    global_at: list[int] = []

    directive = ""  # name of the directive we are inside, "" in code
    directive_start = 0
    operand_pending = False  # the next token is the operand of #include / the name of #define
    prose = False
    prev = None  # previous token that is not a comment
    prev2 = None  # the one before it
    last_use = -1  # start offset of the latest identifier recorded as a use
    code: list = []  # non-comment tokens; look-backs index this list

    for tok in tokens:
        kind = tok[0]
        if kind is COMMENT:
            continue
        if kind is IDENT:
            if prose:
                pass
            elif operand_pending:
                operand_pending = False
                if directive in _DEFINING_DIRECTIVES:
                    defines.setdefault(tok[3], []).append(tok[1])
            else:
                name = tok[3]
                ptext = prev[3] if prev is not None else ""
                if ptext == "." or ptext == "->":
                    members.setdefault(name, []).append(tok[1])
                else:
                    last_use = tok[1]
                    uses = idents.get(name)
                    if uses is None:
                        idents[name] = [tok[1]]
                    else:
                        uses.append(tok[1])
                    if ptext == "::" and prev2 is not None and prev2[0] is IDENT:
                        qualifiers[tok[1]] = _qualifier(code)
                    elif name == "__global__" and not directive:
                        global_at.append(len(code))
        elif kind is PUNCT:
            operand_pending = False
            punct = tok[3]
            if punct == "::":
                # The head of a qualified name: an identifier use not itself after ``::``.
                if prev is not None and prev[1] == last_use and (prev2 is None or prev2[3] != "::"):
                    scopes.setdefault(prev[3], []).append(prev[1])
            elif punct == "(":
                if prev is not None and prev[1] == last_use:
                    calls.add(prev[3])
            elif punct == "<<<" and not directive:
                launch_at.append(len(code))
        elif kind is DIRECTIVE:
            directive = _directive_name(tok[3])
            directive_start = tok[1]
            prose = directive in _PROSE_DIRECTIVES
            operand_pending = directive in _INCLUDE_DIRECTIVES or directive in _DEFINING_DIRECTIVES
        elif kind is EOD:
            directive = ""
            prose = operand_pending = False
        elif kind is HEADER:
            if operand_pending:
                includes.append(Include(tok[3][1:-1].strip(), True, tok[1], tok[2], directive_start))
            operand_pending = False
        elif kind is STRING:
            s = tok[3]
            if operand_pending and directive in _INCLUDE_DIRECTIVES:
                if s.startswith('"') and s.endswith('"') and len(s) >= 2:
                    includes.append(Include(s[1:-1].strip(), False, tok[1], tok[2], directive_start))
            elif s.startswith('"') and s.endswith('"') and (not prose or directive == "pragma"):
                m = _LIBRARY_FILE.match(s[1:-1])
                if m is not None:
                    how = "load"
                    if directive == "pragma":
                        before = text_before(code, 5)
                        if _PRAGMA_LIB.search(before) is None:
                            m = None
                        how = "pragma"
                    if m is not None:
                        links.append(
                            LinkRef(_library_stem(m["stem"], m["file"]), s[1:-1], how, tok[1], tok[2])
                        )
            operand_pending = False
        else:
            operand_pending = False
        code.append(tok)
        prev2 = prev
        prev = tok

    facts = _assemble(text, code, includes, idents, qualifiers, scopes, members, defines, calls, launch_at, global_at, links)
    return facts, code


def text_before(code: list, n: int) -> str:
    """The texts of the last ``n`` code tokens, space-joined (for short pattern checks)."""
    return " ".join(t[3] for t in code[-n:])


def _qualifier(code: list) -> str:
    """``a::b`` for the use just after ``a::b::`` at the end of ``code``.

    ``code[-1]`` is the ``::`` and ``code[-2]`` an identifier. The walk stops at
    anything that is not an ``ident ::`` pair (template arguments end it, which
    keeps it short and linear).
    """
    parts = []
    j = len(code) - 2
    while j >= 0 and code[j][0] is Kind.IDENT:
        parts.append(code[j][3])
        if j >= 1 and code[j - 1][3] == "::":
            j -= 2
        else:
            break
    return "::".join(reversed(parts))


def _launch(text: str, code: list, at: int) -> KernelLaunch | None:
    """The launch whose ``<<<`` is ``code[at]``, or None if no kernel name precedes it."""
    j = at - 1
    if j >= 0 and code[j][3] == ">":  # explicit template arguments: k<float, 4><<<…>>>
        depth = 0
        while j >= 0:
            t = code[j][3]
            if t == ">":
                depth += 1
            elif t == ">>":
                depth += 2
            elif t == "<":
                depth -= 1
                if depth == 0:
                    break
            elif t in (";", "{", "}"):
                return None
            j -= 1
        j -= 1
    if j < 0 or code[j][0] is not Kind.IDENT:
        return None
    first = j
    while first >= 2 and code[first - 1][3] == "::" and code[first - 2][0] is Kind.IDENT:
        first -= 2
    kernel = "".join(t[3] for t in code[first : j + 1])
    # The configuration ends at the first ``>>>`` outside brackets.
    config: list[str] = []
    depth = 0
    arg_start = code[at][2]
    k = at + 1
    n = len(code)
    while k < n:
        t = code[k][3]
        if code[k][0] is Kind.PUNCT:
            if t in _CLOSE_OF:
                depth += 1
            elif t in (")", "]", "}"):
                depth -= 1
                if depth < 0:
                    return None
            elif depth == 0 and t == ",":
                config.append(text[arg_start : code[k][1]].strip())
                arg_start = code[k][2]
            elif depth == 0 and t == ">>>":
                config.append(text[arg_start : code[k][1]].strip())
                return KernelLaunch(kernel, code[first][1], code[k][2], tuple(config))
            elif t == ";":
                return None
        k += 1
    return None


def _kernel_def(code: list, at: int) -> KernelDef | None:
    """The kernel declared by the ``__global__`` at ``code[at]``, or None."""
    n = len(code)
    k = at + 1
    limit = min(n, at + 256)  # a declarator is short; never scan a whole file
    while k < limit:
        t = code[k]
        text = t[3]
        if text in (";", "{", "}", "=") or t[0] is Kind.EOD:
            return None
        if text == "(":
            prev = code[k - 1]
            if prev[0] is Kind.IDENT and prev[3] not in _DECL_ATTRIBUTES:
                return KernelDef(prev[3], prev[1], prev[2])
            depth = 0  # skip the attribute's operand
            while k < limit:
                if code[k][3] == "(":
                    depth += 1
                elif code[k][3] == ")":
                    depth -= 1
                    if depth == 0:
                        break
                k += 1
        k += 1
    return None


_ATTR = "_vado_source_facts"
_CODE_ATTR = "_vado_code_tokens"


def source_facts(ctx: "FileContext") -> SourceFacts:
    """The facts of ``ctx``'s file, extracted on first call and kept on ``ctx``.

    Stored as a private attribute of the context object itself, so the facts
    live exactly as long as the file's context and every rule of the file
    shares them. Files that are not C/C++/CUDA have no tokens and empty facts.
    """
    facts = getattr(ctx, _ATTR, None)
    if facts is None:
        facts, code = extract_facts_and_code(ctx.text, ctx.tokens)
        setattr(ctx, _ATTR, facts)
        setattr(ctx, _CODE_ATTR, code)
    return facts


def source_code_tokens(ctx: "FileContext") -> list:
    """The code tokens (comments left out) of ``ctx``'s file, shared like :func:`source_facts`.

    The facts pass walks exactly these tokens, so they come with the facts.
    """
    code = getattr(ctx, _CODE_ATTR, None)
    if code is None:
        source_facts(ctx)
        code = getattr(ctx, _CODE_ATTR)
    return code
