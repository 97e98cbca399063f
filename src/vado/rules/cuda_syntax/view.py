"""The per-file cache of the shapes the device-code rules read (:class:`DeviceView`, :func:`device_view`)."""

from __future__ import annotations

import bisect
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from vado.rules.cuda_syntax.asm import AsmStatement, _ASM_KEYWORDS, find_asm
from vado.rules.cuda_syntax.declarations import (
    FunctionDef, MacroDef, SharedDecl, find_defines, find_functions, find_shared_decls,
)
from vado.rules.cuda_syntax.tokens import SpellingIndex, _holds, bracket_map, int_value, spelling_index
from vado.scan.classify import FileKind
from vado.scan.facts import source_code_tokens
from vado.scan.lexer import Kind, is_native_tokens


#: CUDA and C++ sources and headers (already-ported .hip files are not audited for CUDA idioms).
CUDA_CXX_KINDS = frozenset({FileKind.CUDA_SOURCE, FileKind.CUDA_HEADER, FileKind.CXX_SOURCE, FileKind.CXX_HEADER})


@dataclass
class DeviceView:
    """Lazily built structure of one file."""

    text: str
    tokens: list
    _pairs: Mapping | None = field(default=None, repr=False)
    _functions: list | None = field(default=None, repr=False)
    _asm: list | None = field(default=None, repr=False)
    _shared: list | None = field(default=None, repr=False)
    _defines: list | None = field(default=None, repr=False)
    _starts: list | None = field(default=None, repr=False)
    _by_start: list | None = field(default=None, repr=False)
    _parents: list | None = field(default=None, repr=False)  # per _by_start entry: the enclosing one's index, or -1
    _lambdas: list | None = field(default=None, repr=False)  # (body start, body end) of __device__ lambdas
    _index: SpellingIndex | None = field(default=None, repr=False)
    _marks: list | None = field(default=None, repr=False)
    _strings: list | None = field(default=None, repr=False)
    _header_names: list | None = field(default=None, repr=False)
    _numbers: dict = field(default_factory=dict, repr=False)  # limit → {value: literals} (number_indices)
    _number_hits: dict = field(default_factory=dict, repr=False)  # values → indices (number_indices)
    _token_starts: list | None = field(default=None, repr=False)

    @property
    def pairs(self) -> Mapping[int, int]:
        """Bracket pairs of the code tokens."""
        if self._pairs is None:
            self._pairs = bracket_map(self.tokens)
        return self._pairs

    @property
    def functions(self) -> list[FunctionDef]:
        """Function definitions."""
        if self._functions is None:
            # Compiled tokens are read in C, which needs neither the pairs nor the opens.
            native = is_native_tokens(self.tokens)
            self._functions = find_functions(self.tokens) if native else find_functions(
                self.tokens, self.pairs, opens=self.text_indices("(", Kind.PUNCT))
        return self._functions

    @property
    def asm(self) -> list[AsmStatement]:
        """Inline asm statements."""
        if self._asm is None:
            # The text test first: most files have no asm and need no bracket map.
            # Every asm statement starts with one of these names: most files have none.
            hits = self.text_indices(_ASM_KEYWORDS, Kind.IDENT)
            self._asm = find_asm(self.text, self.tokens, self.pairs, candidates=hits, marks=self.directive_marks) if hits else []
        return self._asm

    @property
    def shared(self) -> list[SharedDecl]:
        """``__shared__`` declarators."""
        if self._shared is None:
            hits = self.text_indices("__shared__", Kind.IDENT)
            self._shared = find_shared_decls(self.text, self.tokens, self.pairs, candidates=hits) if hits else []
        return self._shared

    # Indexes for rules that look for a few names, operators or numbers: one pass over
    # the code tokens (compiled where vado._native_ext is built) groups token indices by
    # spelling, so a rule costs nothing per token in files without its names. Every
    # lookup gives exactly the tokens a loop over all code tokens comparing ``kind`` and
    # ``text`` would give, in order.

    @property
    def spelling_index(self) -> SpellingIndex:
        """Where each name, operator and number of the code tokens is (see :class:`SpellingIndex`)."""
        if self._index is None:
            self._index = spelling_index(self.tokens)
        return self._index

    @property
    def directive_marks(self) -> list[int]:
        """Indices of the DIRECTIVE and EOD code tokens, in order."""
        if self._marks is None:
            self._marks = self.spelling_index.directive_marks()
        return self._marks

    @property
    def string_indices(self) -> list[int]:
        """Indices of the STRING code tokens, in order."""
        if self._strings is None:
            self._strings = self.spelling_index.string_indices()
        return self._strings

    @property
    def header_names(self) -> list[tuple[tuple, str]]:
        """``(token, base name)`` of every ``<…>`` include operand and every string literal
        ending in ``.h"`` (quoted include operands among them), in order."""
        if self._header_names is None:
            toks, index, marks = self.tokens, self.spelling_index, self.directive_marks
            # A HEADER token follows its directive directly: code tokens hold no comments.
            # Looked up from the few HEADER tokens, and the string texts read without
            # their tuples: a big file has thousands of directives and strings.
            picked = [i for i in index.kind_indices(Kind.HEADER) if _holds(marks, i - 1)]
            strings = self.string_indices
            picked += [i for i, text in zip(strings, index.texts(strings)) if text.endswith('.h"')]
            self._header_names = [(toks[i], toks[i][3].strip('<>"').split("/")[-1]) for i in sorted(picked)]
        return self._header_names

    @property
    def token_starts(self) -> list[int]:
        """Start offset of each code token (for bisection)."""
        if self._token_starts is None:
            self._token_starts = [t[1] for t in self.tokens]
        return self._token_starts

    def text_indices(self, texts, kind: Kind) -> list[int]:
        """Indices of the code tokens of ``kind`` spelt one of ``texts``, in order."""
        if isinstance(texts, str):
            texts = (texts,)
        return self.spelling_index.indices_of(texts, kind)

    def ident_indices(self, names) -> list[int]:
        """Indices of the IDENT code tokens whose text is one of ``names``, in order."""
        return self.text_indices(names, Kind.IDENT)

    def idents_matching(self, pattern: re.Pattern, needle: str = "") -> list[int]:
        """Indices of IDENT code tokens whose whole text ``pattern`` matches, in order.

        ``pattern`` must match identifier characters only (see :func:`ident_pattern`).
        ``needle``, when given, is a string every match contains: a file whose text
        lacks it has no match, found without a look at its names.
        """
        if needle and needle not in self.text:
            return []
        index, fullmatch = self.spelling_index, pattern.fullmatch
        return sorted(i for t in index.spellings(Kind.IDENT) if fullmatch(t) for i in index.where(t))

    def punct_indices(self, punct: str) -> list[int]:
        """Indices of the PUNCT code tokens spelt ``punct`` (``"<<<"``), in order."""
        return self.text_indices(punct, Kind.PUNCT)

    def number_indices(self, *values: int) -> list[int]:
        """Indices of the NUMBER code tokens whose :func:`int_value` is one of ``values``, in order."""
        # Literals by value, for values up to a limit: the rules ask for small widths (5, 31,
        # 32), and a data table's thousands of larger literals are left out in C.
        hit = self._number_hits.get(values)
        if hit is not None:
            return list(hit)  # several rules of a file ask for 32
        limit = max(values, default=-1)
        if limit < 0:
            return []
        limit = 1 << max(limit.bit_length(), 6)  # a few limits serve every question
        by_value = self._numbers.get(limit)
        if by_value is None:
            by_value = self._numbers[limit] = {}
            for literal in self.spelling_index.integer_spellings(limit):
                v = int_value(literal)
                if v is not None:
                    by_value.setdefault(v, []).append(literal)
        hit = self._number_hits[values] = self.spelling_index.indices_of(
            [lit for v in set(values) for lit in by_value.get(v, ())], Kind.NUMBER)
        return list(hit)

    @property
    def defines(self) -> list[MacroDef]:
        """Object-like macros."""
        if self._defines is None:
            self._defines = find_defines(self.tokens, self.directive_marks)
        return self._defines

    def _enclosing(self, offset: int):
        """Indices into ``_by_start`` of the definitions whose bodies hold ``offset``, innermost first."""
        if self._starts is None:
            by_start = sorted(self.functions, key=lambda f: f.body_start)
            parents: list[int] = []
            stack: list[int] = []  # bodies are brace pairs, so they nest: the open ones that hold the next start
            for k, f in enumerate(by_start):
                while stack and by_start[stack[-1]].body_end <= f.body_start:
                    stack.pop()
                parents.append(stack[-1] if stack else -1)
                stack.append(k)
            self._by_start, self._parents = by_start, parents
            self._starts = [f.body_start for f in by_start]
        # Every body that holds offset holds the last body starting at or before it: walk its parents.
        i = bisect.bisect_right(self._starts, offset) - 1
        while i >= 0:
            if self._by_start[i].contains(offset):
                yield i
            i = self._parents[i]

    def function_at(self, offset: int) -> FunctionDef | None:
        """Innermost function whose body holds ``offset`` (binary search: rules ask per token)."""
        i = next(self._enclosing(offset), -1)
        return self._by_start[i] if i >= 0 else None

    def in_device_code(self, offset: int) -> bool:
        """True when ``offset`` is inside a ``__global__``/``__device__`` function body.

        Also where the innermost ``name(…) {`` holding it is not itself a device function but lies in one: C++
        defines no function inside another, so that is a statement macro's body (``KERNEL_LOOP(i, n) { … }``) or
        a local class's member, which run on the device with it (issue 26: warpSize in such a body stayed 64
        while the kernel's other lanes counted 32)."""
        if any(self._by_start[i].is_device for i in self._enclosing(offset)):
            return True
        return any(a <= offset < b for a, b in self.device_lambdas)

    @property
    def device_lambdas(self) -> list[tuple[int, int]]:
        """``(start, end)`` offsets of the bodies of extended lambdas (``[=] __device__ (int i) { … }``,
        ``[] __host__ __device__ { … }``): device code in a host function (issue 26: warpSize in the lambda a host
        function hands a templated kernel stayed 64 while its shuffles were pointed at the 32-lane helpers)."""
        if self._lambdas is None:
            toks, out = self.tokens, []
            hits = self.ident_indices(("__device__",))
            pairs = self.pairs if hits else {}
            n = len(toks)
            for k in hits:
                j = k - 1  # back over __host__ and a parameter list to the capture's ']'
                while j >= 0 and toks[j][3] in _LAMBDA_WORDS:
                    j -= 1
                if j >= 0 and toks[j][3] == ")" and j in pairs:
                    j = pairs[j] - 1
                    while j >= 0 and toks[j][3] in _LAMBDA_WORDS:
                        j -= 1
                if j < 0 or toks[j][3] != "]":
                    continue
                m = k + 1  # on to the body: a parameter list, specifiers, a trailing return type
                while m < n and toks[m][3] not in ("{", ";", "}", "=", ","):
                    m = pairs[m] + 1 if toks[m][3] in ("(", "[") and m in pairs else m + 1
                if m < n and toks[m][3] == "{" and m in pairs:
                    out.append((toks[m][1], toks[pairs[m]][2]))
            self._lambdas = out
        return self._lambdas


#: Words that may stand between an extended lambda's capture and its ``__device__``.
_LAMBDA_WORDS = frozenset({"__host__", "__device__", "mutable", "constexpr"})


def device_view(ctx) -> DeviceView:
    """The shared :class:`DeviceView` of ``ctx`` (built on first use)."""
    # Kept as an attribute of the context object: every rule of one file gets the same
    # context from the engine, and the view dies with it.
    view = getattr(ctx, "_device_view", None)
    if view is None or view.text is not ctx.text:
        view = DeviceView(ctx.text, source_code_tokens(ctx))
        ctx._device_view = view
    return view
