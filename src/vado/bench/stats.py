"""Summary statistics for benchmark samples."""

from __future__ import annotations

import math
import statistics
from typing import Sequence

from vado.model.bench import Stats


def percentile(sorted_values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0–100) by linear interpolation between closest ranks."""
    if not sorted_values:
        raise ValueError("percentile of no values")
    if len(sorted_values) == 1:
        return float(sorted_values[0])
    pos = (len(sorted_values) - 1) * q / 100.0
    lo = math.floor(pos)
    hi = math.ceil(pos)
    if lo == hi:
        return float(sorted_values[lo])
    return float(sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo))


def summarize(values: Sequence[float]) -> Stats | None:
    """Stats of ``values``; None when there are none."""
    if not values:
        return None
    s = sorted(float(v) for v in values)
    mean = statistics.fmean(s)
    stdev = statistics.stdev(s) if len(s) > 1 else 0.0
    return Stats(
        count=len(s),
        min=s[0],
        median=statistics.median(s),
        mean=mean,
        p95=percentile(s, 95),
        max=s[-1],
        stdev=stdev,
        cv=(stdev / mean) if mean else 0.0,
    )
