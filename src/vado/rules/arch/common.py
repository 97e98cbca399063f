"""What every ARCH rule module shares: verdict shorthands, pinned documentation roots, a per-family
verdict table reader and the include finder.
"""

from __future__ import annotations

from typing import Iterable

from vado.model import Verdict
from vado.rules import cuda_syntax as cs


AS_IS, AUTO, MANUAL, BLOCKED = Verdict.MOVES_AS_IS, Verdict.AUTOMATIC, Verdict.MANUAL, Verdict.BLOCKED

SCALE_DOCS = "https://github.com/spectral-compute/scale-docs/blob/f20700f5f55e411fd0c0c1b03da5b896b5b6eae3/"
HIP_DOCS = "https://github.com/ROCm/HIP/blob/c5e11fcac8249ce4f7e70157588ff9661a870b59/"


def _by_family(table: dict[str, Verdict]):
    """A ``verdict_of(target)`` reading ``table[target.family]``."""
    return lambda t: table.get(t.family)


def _includes(view: cs.DeviceView, headers: dict[str, str]) -> Iterable[tuple[tuple, str]]:
    """``(token, header)`` for each ``<…>`` include operand, or string literal ending in ``.h"``,
    whose base name is one of ``headers``."""
    # Such a token is a slice of the text: a text that never spells one of the names has none
    # (most files), found without reading its directives and strings.
    if not any(h in view.text for h in headers):
        return
    for tok, name in view.header_names:
        if name in headers:
            yield tok, name
