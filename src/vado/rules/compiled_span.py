"""Where a finding that gathers a file's many uses (one per library: LIB rules, API004) stands.

The engine judges a finding by its span (:func:`vado.rules.engine.mark_inactive`): one that stands at a use inside
a branch the AMD build does not compile loses its ROCm verdict. A finding that gathers several uses stands at the
first one the AMD build may compile, so that a use outside such branches keeps the verdict (llm.c's
attention_forward.cu: cuBLAS names in ``#ifdef ENABLE_CUDNN`` first, dozens outside it after).
"""

from __future__ import annotations

from typing import Iterable

from vado.rules.base import FileContext


def first_compiled(ctx: FileContext, first: tuple[int, int], spans: Iterable[tuple[int, int]]) -> tuple[int, int]:
    """``first`` (the first use), unless it lies in a body the AMD build certainly does not compile and another of
    ``spans`` does not: then the earliest such one. Without a ROCm target, or a conditional body switched off,
    ``first``."""
    if not any(t.family == "rocm" for t in ctx.targets):
        return first
    from vado.scan.preprocessor import amd_configuration, file_conditionals

    regions = file_conditionals(ctx, amd_configuration(ctx.options))
    if not regions or not regions.covers(*first):
        return first
    active = [s for s in spans if not regions.covers(*s)]
    return min(active) if active else first
