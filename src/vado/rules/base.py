"""The rule contract.

A rule is a class with a code (``PTX001``), a name that describes the pattern
(``inline-ptx-asm``), a severity, the file kinds it reads, and a docstring with
the sections *What it does / Why is this bad? / Example / Use instead / Fix
safety / References* (checked by the test suite, printed by ``vado explain``).
``check`` reads one :class:`FileContext` and yields findings; it never raises
for bad input (a rule that cannot parse something says so in a finding or yields
nothing) and never writes anything.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any, ClassVar, Iterable, Iterator, Sequence

from vado.model import Edit, Effort, Finding, Fix, Severity, Span, Target, Verdict
from vado.model.text import LineIndex
from vado.scan.classify import FileKind

DOC_SECTIONS = ("What it does", "Why is this bad?", "Example", "Use instead", "Fix safety", "References")


@dataclass
class FileContext:
    """Everything a rule may read about one file.

    ``text`` is the latin-1 view of the file's bytes (offsets are byte offsets).
    ``tokens`` are lexed on first use and shared by all rules of the file.
    ``targets`` are the profiles the audit is run for; ``options`` holds
    user settings (e.g. ``{"roc": True}`` for roc* libraries instead of hip*).
    """

    path: str
    kind: FileKind
    text: str
    targets: tuple[Target, ...]
    options: dict[str, Any] = field(default_factory=dict)
    _tokens: Sequence | None = field(default=None, repr=False)
    _lines: LineIndex | None = field(default=None, repr=False)

    @property
    def tokens(self) -> Sequence:
        """C/C++/CUDA tokens ``(kind, start, end, text)``; empty for other file kinds.

        A read-only sequence (:func:`vado.scan.lexer.lex`): index it, slice it,
        iterate it; ``list(ctx.tokens)`` where a list is needed.
        """
        if self._tokens is None:
            if self.kind.is_c_family:
                from vado.scan.lexer import lex

                self._tokens = lex(self.text)
            else:
                self._tokens = []
        return self._tokens

    @property
    def lines(self) -> LineIndex:
        """Offset → (line, column) index."""
        if self._lines is None:
            self._lines = LineIndex(self.text)
        return self._lines

    def span(self, start: int, end: int) -> Span:
        """A :class:`Span` of this file with line and column filled in."""
        line, col = self.lines.position(start)
        end_line, end_col = self.lines.position(end)
        return Span(self.path, start, end, line, col, end_line, end_col)

    def edit(self, start: int, end: int, content: str) -> Edit:
        """An :class:`Edit` of this file."""
        return Edit(self.path, start, end, content)

    def target_names(self) -> tuple[str, ...]:
        """Names of the audited targets."""
        return tuple(t.name for t in self.targets)


class Rule:
    """Base class of all rules. Subclasses set the class attributes and ``check``."""

    code: ClassVar[str] = ""
    name: ClassVar[str] = ""
    severity: ClassVar[Severity] = Severity.MEDIUM
    #: File kinds this rule reads; the engine calls ``check`` only for these.
    file_kinds: ClassVar[frozenset[FileKind]] = frozenset()
    #: One-line summary for rule lists; defaults to the docstring's first line.
    summary: ClassVar[str] = ""
    #: Whether findings of this rule may carry a fix. ``vado port`` runs only these
    #: rules in the rounds that rewrite a file and the others once, on the result;
    #: :meth:`finding` refuses a fix from a rule that does not declare it.
    can_fix: ClassVar[bool] = False
    #: Spellings (names, operators or numbers, as written) of which a C/C++/CUDA file's
    #: code tokens must hold one for ``check`` to find anything there: the engine skips
    #: the rule for files without any, found in the file's spelling index. None: no
    #: such set, the rule always runs. A rule declares it only when its check starts
    #: from those tokens (a test runs every fixture with and without the skip).
    triggers: ClassVar[frozenset[str] | None] = None

    @property
    def family(self) -> str:
        """The letters of the code."""
        return self.code.rstrip("0123456789")

    def check(self, ctx: FileContext) -> Iterable[Finding]:  # pragma: no cover - interface
        """Yield findings for ``ctx``."""
        raise NotImplementedError

    # Helpers shared by rules -------------------------------------------------

    def finding(
        self,
        ctx: FileContext,
        start: int,
        end: int,
        message: str,
        verdicts: dict[str, Verdict],
        *,
        effort: Effort | None = None,
        fix: Fix | None = None,
        severity: Severity | None = None,
        data: dict[str, Any] | None = None,
    ) -> Finding:
        """Build a finding of this rule at ``[start, end)`` of ``ctx``."""
        if fix is not None and not self.can_fix:
            raise TypeError(f"rule {self.code} made a fix but does not declare can_fix = True")
        return Finding(
            code=self.code,
            name=self.name,
            severity=severity or self.severity,
            span=ctx.span(start, end),
            message=message,
            verdicts=verdicts,
            effort=effort or Effort(),
            fix=fix,
            data=data or {},
        )

    @classmethod
    def doc_sections(cls) -> dict[str, str]:
        """The docstring split into its named sections (see ``DOC_SECTIONS``)."""
        return parse_doc_sections(cls.__doc__ or "")

    @classmethod
    def one_line(cls) -> str:
        """Short description: ``summary`` or the docstring's first line."""
        if cls.summary:
            return cls.summary
        doc = (cls.__doc__ or "").strip()
        return doc.splitlines()[0].strip() if doc else cls.name


def parse_doc_sections(doc: str) -> dict[str, str]:
    """Split a rule docstring into ``{section: text}``; the text before the first section is ``""``.

    A section starts at a line that is exactly a section title followed by a
    line of dashes or ``=`` (reStructuredText style), or a line ``## Title``.
    """
    import inspect

    lines = inspect.cleandoc(doc).splitlines()
    sections: dict[str, list[str]] = {"": []}
    current = ""
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        title = None
        if stripped.startswith("## "):
            title = stripped[3:].strip()
        elif i + 1 < len(lines) and stripped and set(lines[i + 1].strip()) <= {"-"} and lines[i + 1].strip():
            title = stripped
            i += 1
        if title is not None:
            current = title
            sections[current] = []
        else:
            sections[current].append(line)
        i += 1
    return {k: "\n".join(v).strip() for k, v in sections.items()}


def verdicts_for(ctx: FileContext, verdict_of) -> dict[str, Verdict]:
    """``{target name: verdict_of(target)}`` for every audited target, dropping ``None``."""
    out: dict[str, Verdict] = {}
    for t in ctx.targets:
        v = verdict_of(t)
        if v is not None:
            out[t.name] = v
    return out


def iter_idents(tokens: list) -> Iterator[tuple[int, tuple]]:
    """``(index, token)`` for identifier tokens."""
    from vado.scan.lexer import Kind

    ident = Kind.IDENT
    for i, tok in enumerate(tokens):
        if tok[0] is ident:
            yield i, tok
