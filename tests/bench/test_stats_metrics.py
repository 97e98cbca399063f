"""Summary statistics and the metric specs that read numbers from a program's output."""

import math

import pytest

from vado.bench.metrics import parse_spec
from vado.bench.stats import percentile, summarize
from vado.errors import UsageError


def test_summarize_known_series():
    s = summarize([4.0, 1.0, 3.0, 2.0, 5.0])
    assert (s.count, s.min, s.median, s.max, s.mean) == (5, 1.0, 3.0, 5.0, 3.0)
    assert s.p95 == pytest.approx(4.8)  # rank 0.95 * 4 = 3.8: between 4 and 5
    assert s.stdev == pytest.approx(math.sqrt(2.5))
    assert s.cv == pytest.approx(math.sqrt(2.5) / 3.0)


def test_summarize_edge_cases():
    assert summarize([]) is None
    one = summarize([7])
    assert (one.median, one.p95, one.stdev, one.cv) == (7.0, 7.0, 0.0, 0.0)
    assert summarize([0.0, 0.0]).cv == 0.0


def test_percentile_interpolates_between_ranks():
    vals = [10.0, 20.0, 30.0, 40.0]
    assert percentile(vals, 0) == 10.0 and percentile(vals, 100) == 40.0
    assert percentile(vals, 50) == 25.0
    with pytest.raises(ValueError):
        percentile([], 50)


def test_regex_metric_takes_the_last_match_and_its_group():
    spec = parse_spec(r"ms=time: ([0-9.]+) ms")
    assert spec.name == "ms"
    assert spec.parse("time: 1.5 ms\ntime: 2.25 ms\n") == 2.25
    assert spec.parse("nothing here") is None


def test_regex_metric_named_group_and_unnamed_spec():
    spec = parse_spec(r"rate (?P<value>[0-9.e+]+) GB/s")
    assert spec.name == "metric" and spec.parse("rate 1.2e+03 GB/s") == 1200.0


def test_json_metric_reads_the_last_json_line_with_the_key():
    spec = parse_spec("tok=json:stats.tokens_per_s")
    out = 'log\n{"stats": {"tokens_per_s": 10}}\n{"other": 1}\nnot json {\n'
    assert spec.name == "tok" and spec.parse(out) == 10.0
    assert parse_spec("json:x").name == "x"
    assert parse_spec("json:flag").parse('{"flag": true}') is None  # booleans are no numbers


@pytest.mark.parametrize("bad", ["t=([0-9", "json:"])
def test_bad_specs_are_usage_errors(bad):
    with pytest.raises(UsageError):
        parse_spec(bad)
