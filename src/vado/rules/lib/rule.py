"""The shared body of the LIB rules (:class:`_LibraryRule`): one finding per file and library, with the
verdicts per target and all the evidence in ``data``.
"""

from __future__ import annotations

from typing import ClassVar, Iterable, Iterator

from vado.model import Effort, Finding, Verdict
from vado.rules.base import FileContext, Rule
from vado.rules.compiled_span import first_compiled
from vado.rules.lib.evidence import LibraryUse, _evidence_text, library_uses
from vado.rules.lib.verdicts import library_verdict
from vado.scan.classify import FileKind


#: C/C++/CUDA kinds; ``.hip`` files are already ported and are not read.
CUDA_KINDS = frozenset(
    {FileKind.CUDA_SOURCE, FileKind.CUDA_HEADER, FileKind.CXX_SOURCE, FileKind.CXX_HEADER}
)


class _LibraryRule(Rule):
    """Shared body: one finding per file and library of ``library_ids`` that the file uses."""

    library_ids: ClassVar[tuple[str, ...]] = ()
    #: Hours of manual work per distinct API name when the verdict is needs-manual-work.
    hours_per_name: ClassVar[float] = 0.5

    def check(self, ctx: FileContext) -> Iterable[Finding]:
        uses = library_uses(ctx)
        if uses.keys().isdisjoint(self.library_ids):
            return ()  # most files use none of this rule's libraries: no generator to run
        return self._findings(ctx, uses)

    def _findings(self, ctx: FileContext, uses: dict[str, LibraryUse]) -> Iterator[Finding]:
        roc = bool(ctx.options.get("roc"))
        for lib_id in self.library_ids:
            use = uses.get(lib_id)
            if use is None:
                continue
            lib = use.lib
            verdicts: dict[str, Verdict] = {}
            reasons: dict[str, str] = {}
            for t in ctx.targets:
                verdicts[t.name], reasons[t.name] = library_verdict(lib, t, roc=roc)
            per_target = "; ".join(f"{t}: {reasons[t]}" for t in verdicts)
            evidence = _evidence_text(use)
            message = f"uses {lib.name} ({evidence}) — {per_target}" if per_target else f"uses {lib.name} ({evidence})"
            distinct = len(use.identifiers)
            worst = Verdict.worst(verdicts.values())
            manual = worst.rank >= Verdict.MANUAL.rank
            effort = Effort(
                lines=len(use.lines),
                constructs=distinct if manual else 0,
                hours=round(self.hours_per_name * max(distinct, 1), 2) if manual else 0.0,
            )
            start, end = first_compiled(ctx, use.first, use.spans)
            yield self.finding(
                ctx,
                start,
                end,
                message,
                verdicts,
                effort=effort,
                data={
                    "library": lib.id,
                    "name": lib.name,
                    "headers": list(use.headers),
                    "identifiers": dict(use.identifiers),
                    "links": list(use.links),
                    "count": sum(use.identifiers.values()) + len(use.headers) + len(use.links),
                    "reasons": reasons,
                },
            )

