"""LIB012: a ``cub::`` name that hipCUB does not declare (CUB's dispatch layer, agent policies, ``cub::detail``).

Which names hipCUB has is data generated from the real headers (``tools/hipcub_names.py`` →
``knowledge/data/cub_hipcub_names.csv``: every name CUB 13.0 declares at namespace scope, probed with
using-declarations compiled by nvcc and by ROCm 7.2.4's hipcc against hipCUB 4.2.0), never a hand list.
"""

from __future__ import annotations

import functools
from typing import Iterable

from vado import package_files
from vado.model import Effort, Finding, Severity, Verdict
from vado.rules.base import FileContext, Rule
from vado.rules.lib.rule import CUDA_KINDS
from vado.scan.lexer import Kind

#: What the name table was probed against, for messages.
HIPCUB_PROBED = "hipCUB 4.2.0 (ROCm 7.2.4)"


@functools.cache
def hipcub_lacks() -> frozenset[str]:
    """The CUB names (``Name`` or ``detail::Name``) hipCUB does not declare (the generated table)."""
    text = package_files.files("vado.knowledge").joinpath("data", "cub_hipcub_names.csv").read_text(encoding="utf-8")
    out = set()
    for line in text.splitlines():
        if line and not line.startswith("#") and line != "name,hipcub":
            name, _, has = line.partition(",")
            if has == "no":
                out.add(name)
    return frozenset(out)


class CubNameHipcubLacks(Rule):
    """A ``cub::`` name that hipCUB does not declare.

    What it does
    ------------
    Reports each distinct name a file qualifies with ``cub::`` (or, in a port,
    ``hipcub::``) that CUB declares and hipCUB does not: CUB's dispatch layer
    (``cub::DispatchRadixSort``, ``cub::ChainedPolicy``), its agent tuning
    policies (``cub::AgentRadixSortOnesweepPolicy``), enumerators of
    algorithms hipCUB lacks (``cub::RADIX_RANK_MATCH_EARLY_COUNTS_ANY``) and
    ``cub::detail`` internals. The names come from a table generated from the
    real headers of CUB (CUDA 13.0) and hipCUB 4.2.0 (ROCm 7.2.4).

    Why is this bad?
    ----------------
    The port renames ``cub::`` to ``hipcub::`` (as HIPIFY does); for these
    names the result does not compile. hipCUB wraps rocPRIM's public
    algorithms, not CUB's internals: code written against them needs the
    public algorithm (``hipcub::DeviceRadixSort``) or rocPRIM's own config
    types instead.

    Example
    -------
    .. code-block:: cuda

        using Dispatch = cub::DispatchRadixSort<false, K, V, int, Policy>;

    Use instead
    -----------
    .. code-block:: cpp

        hipcub::DeviceRadixSort::SortPairs(tmp, bytes, keys_in, keys_out, vals_in, vals_out, n);

    Fix safety
    ----------
    No fix: which public algorithm replaces an internal is a design choice.
    The finding stays after the port's namespace rename.

    References
    ----------
    - hipCUB, https://github.com/ROCm/hipCUB
    - tools/hipcub_names.py (how the table is made)
    """

    code = "LIB012"
    name = "cub-name-hipcub-lacks"
    severity = Severity.HIGH
    file_kinds = CUDA_KINDS
    triggers = frozenset({"cub", "hipcub"})

    def check(self, ctx: FileContext) -> Iterable[Finding]:
        targets = [t for t in ctx.targets if t.family == "rocm"]
        if not targets:
            return
        from vado.rules.cuda_syntax import device_view

        view = device_view(ctx)
        code = view.tokens
        lacks = hipcub_lacks()
        seen: dict[str, list[int]] = {}
        order: list[tuple[str, int, int, str]] = []
        for i in view.ident_indices(("cub", "hipcub")):
            name, start, end = _qualified(code, i)
            if not name or name not in lacks:
                continue
            if name not in seen:
                order.append((name, start, end, code[i][3]))
                seen[name] = []
            seen[name].append(code[i][1])
        for name, start, end, ns in order:
            uses = len(seen[name])
            verdicts = {t.name: Verdict.MANUAL for t in targets}
            why = ("CUB declares it; hipCUB does not, so the port's cub:: → hipcub:: rename leaves code that does not "
                   "compile" if ns == "cub" else "a CUB name the rename of cub:: to hipcub:: does not make exist")
            yield self.finding(
                ctx, start, end,
                f"{HIPCUB_PROBED} lacks {ns}::{name} ({why}); {uses} use{'' if uses == 1 else 's'} in this file: "
                "rewrite it on hipCUB's public algorithms or rocPRIM",
                verdicts,
                effort=Effort(lines=uses, constructs=1, hours=1.0),
                data={"name": name, "namespace": ns, "uses": uses, "probed": HIPCUB_PROBED},
            )


def _qualified(code, i: int) -> tuple[str, int, int]:
    """The name ``code[i]`` (``cub``/``hipcub``) qualifies, as the table spells it (``Name``, ``detail::Name``),
    with its span from the namespace token; ``("", 0, 0)`` where it qualifies nothing or is nested in another
    namespace (``x::cub``) or a member (``a.cub``)."""
    n = len(code)
    prev = code[i - 1][3] if i > 0 else ""
    if prev in (".", "->") or (prev == "::" and i > 1 and code[i - 2][0] is Kind.IDENT):
        return "", 0, 0
    if i + 2 >= n or code[i + 1][3] != "::" or code[i + 2][0] is not Kind.IDENT:
        return "", 0, 0
    name, end = code[i + 2][3], code[i + 2][2]
    if name == "detail" and i + 4 < n and code[i + 3][3] == "::" and code[i + 4][0] is Kind.IDENT:
        name, end = f"detail::{code[i + 4][3]}", code[i + 4][2]
    return name, code[i][1], end
