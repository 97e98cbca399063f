"""``vado bench serve``: load-test an OpenAI-compatible inference server.

Works with any server that speaks the OpenAI HTTP API with streaming (vLLM,
SGLang, llama.cpp's server, llama-cpp-python's server, hosted APIs). For each
concurrency level C, C threads send the level's requests back to back until
they are all sent or the level's time budget is used (one untimed warm-up
request goes first); each request streams, so the client sees every token chunk
as it arrives:

- TTFT: time from sending the request to the first content chunk;
- ITL: gaps between successive content chunks;
- TPOT: (end-to-end latency − TTFT) / (output tokens − 1);
- output tokens: the server's ``usage`` when it reports one, else the chunk count;
- requests/s and output tokens/s: successful requests (tokens) over the level's wall time.

A request that streams to its end without a token (the model stopped at once)
succeeds with zero tokens and no TTFT; an HTTP error, a broken stream or an
error event counts as an error, with a sample of the messages kept.

A server that dies during the run (a crash shows to a client as a connection
closed mid-answer, then refused) is not measured further: after a request loses
its connection, the server's model list is asked for at once; when that fails too, no
more requests are sent and the result's ``stopped`` says what happened, after
how many answers (the CLI prints it and exits 3).

Prompts are synthetic word sequences whose lengths follow a distribution
(``fixed:N``, ``uniform:A-B``, ``normal:MEAN,SD``), seeded, so two servers can be
compared on the same load. Only the URL given is contacted.
"""

from __future__ import annotations

import http.client
import json
import random
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Callable, Sequence
from urllib.parse import urlsplit

from vado.bench.environment import detect_environment
from vado.bench.stats import percentile, summarize
from vado.errors import UsageError
from vado.model.bench import LevelResult, ServeBenchResult

_WORDS = (
    "the of and to in is that for it as was with be by on not he this are or his from at which but have an they "
    "you were her she there been one all we their has would when if so no will more can who out up said what its "
    "about into than them only other new some could time these two may first then do any like my now over such our"
).split()


@dataclass(frozen=True)
class LengthDist:
    """A distribution of lengths (words in a prompt, tokens to generate)."""

    kind: str
    a: float
    b: float = 0.0

    def sample(self, rng: random.Random) -> int:
        """One length, at least 1."""
        if self.kind == "fixed":
            return max(1, int(self.a))
        if self.kind == "uniform":
            return max(1, rng.randint(int(self.a), int(self.b)))
        return max(1, int(round(rng.gauss(self.a, self.b))))


def parse_length(spec: str) -> LengthDist:
    """``N`` / ``fixed:N`` / ``uniform:A-B`` / ``normal:MEAN,SD``."""
    text = spec.strip()
    try:
        if text.isdigit():
            return LengthDist("fixed", int(text))
        kind, _, rest = text.partition(":")
        if kind == "fixed":
            return LengthDist("fixed", int(rest))
        if kind == "uniform":
            a, _, b = rest.partition("-")
            lo, hi = int(a), int(b)
            if lo > hi:
                raise ValueError
            return LengthDist("uniform", lo, hi)
        if kind == "normal":
            m, _, sd = rest.partition(",")
            return LengthDist("normal", float(m), float(sd))
    except ValueError:
        pass
    raise UsageError(f"bad length distribution {spec!r}", "", "use N, fixed:N, uniform:A-B or normal:MEAN,SD")


@dataclass(frozen=True)
class RequestRecord:
    """One request's timings."""

    ok: bool
    latency_s: float
    ttft_s: float | None
    itl_s: tuple[float, ...]
    output_tokens: int
    prompt_words: int
    error: str = ""
    prompt_tokens: int = 0
    sent: bool = True
    #: The connection was refused, reset or closed before the answer ended (the server may be gone).
    connection_lost: bool = False


__all__ = ["LengthDist", "LevelResult", "RequestRecord", "ServeBenchResult", "bench_serve", "make_prompt",
           "parse_length", "summarize_level"]


class _Client:
    """A minimal streaming OpenAI-API client on http.client (one connection per request)."""

    def __init__(self, url: str, api_key: str | None, timeout_s: float) -> None:
        parts = urlsplit(url if "://" in url else f"http://{url}")
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise UsageError(f"bad server URL {url!r}", "", "e.g. --url http://127.0.0.1:8000")
        self.scheme = parts.scheme
        self.host = parts.hostname
        self.port = parts.port or (443 if parts.scheme == "https" else 80)
        self.base = parts.path.rstrip("/")
        if self.base.endswith("/v1"):
            self.base = self.base[:-3]
        self.api_key = api_key
        self.timeout_s = timeout_s

    def _conn(self):
        cls = http.client.HTTPSConnection if self.scheme == "https" else http.client.HTTPConnection
        return cls(self.host, self.port, timeout=self.timeout_s)

    def models(self) -> list[str]:
        """Model ids the server lists (``GET /v1/models``)."""
        conn = self._conn()
        try:
            conn.request("GET", self.base + "/v1/models", headers=self._headers())
            resp = conn.getresponse()
            body = resp.read()
            if resp.status != 200:
                return []
            return [m.get("id", "") for m in json.loads(body).get("data", [])]
        finally:
            conn.close()

    def _headers(self) -> dict[str, str]:
        h = {"Content-Type": "application/json", "Accept": "text/event-stream"}
        if self.api_key:
            h["Authorization"] = f"Bearer {self.api_key}"
        return h

    def stream(self, endpoint: str, payload: dict) -> RequestRecord:
        """Send one streaming request and time its chunks."""
        words = len(str(payload.get("prompt") or payload.get("messages", [{}])[-1].get("content", "")).split())
        start = time.perf_counter()
        first = None
        last = None
        gaps: list[float] = []
        chunks = 0
        usage_tokens = None
        prompt_tokens = 0
        finished = False
        conn = self._conn()
        try:
            conn.request("POST", self.base + endpoint, body=json.dumps(payload), headers=self._headers())
            resp = conn.getresponse()
            if resp.status != 200:
                body = resp.read(2000).decode("utf-8", "replace")
                return RequestRecord(False, time.perf_counter() - start, None, (), 0, words, f"HTTP {resp.status}: {body[:200]}")
            while True:
                line = resp.readline()
                if not line:
                    break
                line = line.strip()
                if not line.startswith(b"data:"):
                    continue
                data = line[5:].strip()
                if data == b"[DONE]":
                    finished = True
                    break
                try:
                    event = json.loads(data)
                except ValueError:
                    continue
                if isinstance(event, dict) and event.get("error"):
                    err = event["error"]
                    msg = err.get("message", "") if isinstance(err, dict) else str(err)
                    return RequestRecord(False, time.perf_counter() - start, None, (), 0, words,
                                         f"server error mid-stream: {msg[:200]}")
                if _finish_reason(event):
                    finished = True
                usage = event.get("usage") if isinstance(event, dict) else None
                if isinstance(usage, dict) and usage.get("completion_tokens") is not None:
                    usage_tokens = int(usage["completion_tokens"])
                    prompt_tokens = int(usage.get("prompt_tokens") or 0)
                if _has_content(event):
                    now = time.perf_counter()
                    if first is None:
                        first = now
                    elif last is not None:
                        gaps.append(now - last)
                    last = now
                    chunks += 1
        except (OSError, http.client.HTTPException) as exc:
            return RequestRecord(False, time.perf_counter() - start, None, (), 0, words, f"{type(exc).__name__}: {exc}",
                                 connection_lost=isinstance(exc, CONNECTION_LOST))
        finally:
            conn.close()
        end = time.perf_counter()
        tokens = usage_tokens if usage_tokens is not None else chunks
        # A stream that ended properly is a success even when the model stopped at once (zero tokens: no TTFT).
        ok = first is not None or finished
        return RequestRecord(
            ok, end - start, (first - start) if first is not None else None, tuple(gaps), tokens, words,
            "" if ok else "the stream ended without tokens or a finish", prompt_tokens,
            connection_lost=not finished,
        )


    def refused(self) -> str:
        """Why the server does not answer a ``GET /v1/models`` now, or ``""`` when it answers (any status).

        A bare TCP connect is no proof of life: the kernel completes it from the listen backlog while the
        process is still dying (writing a core dump, say)."""
        conn = self._conn()
        conn.timeout = min(10.0, self.timeout_s)
        try:
            conn.request("GET", self.base + "/v1/models", headers=self._headers())
            conn.getresponse().read(1 << 16)
        except (OSError, http.client.HTTPException) as exc:
            return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        finally:
            conn.close()
        return ""


#: Errors that mean the connection itself went away: refused, reset, or closed before the answer ended.
CONNECTION_LOST = (ConnectionRefusedError, ConnectionResetError, ConnectionAbortedError, BrokenPipeError,
                   http.client.RemoteDisconnected, http.client.IncompleteRead)


def _finish_reason(event) -> bool:
    if not isinstance(event, dict):
        return False
    return any(isinstance(c, dict) and c.get("finish_reason") for c in event.get("choices") or [])


def _has_content(event) -> bool:
    if not isinstance(event, dict):
        return False
    for choice in event.get("choices") or []:
        if not isinstance(choice, dict):
            continue
        if choice.get("text"):
            return True
        delta = choice.get("delta") or {}
        if delta.get("content"):
            return True
    return False


def _payload(endpoint: str, model: str, prompt: str, max_tokens: int) -> dict:
    # stream_options.include_usage asks for a final usage chunk (vLLM, SGLang, OpenAI); servers without it ignore it.
    body: dict = {"model": model, "max_tokens": max_tokens, "stream": True, "temperature": 0,
                  "stream_options": {"include_usage": True}}
    if endpoint == "completions":
        body["prompt"] = prompt
    else:
        body["messages"] = [{"role": "user", "content": prompt}]
    return body


def make_prompt(rng: random.Random, words: int) -> str:
    """A synthetic prompt of ``words`` words."""
    return " ".join(rng.choice(_WORDS) for _ in range(words))


def bench_serve(
    url: str,
    *,
    model: str | None = None,
    concurrency: Sequence[int] = (1, 4),
    requests_per_level: int = 16,
    prompt_len: str = "uniform:16-64",
    output_len: str = "fixed:32",
    endpoint: str = "completions",
    seed: int = 0,
    timeout_s: float = 120.0,
    level_time_budget_s: float = 300.0,
    api_key: str | None = None,
    warmup_requests: int = 1,
    label: str = "",
    progress: Callable[[int, int], None] | None = None,
) -> ServeBenchResult:
    """Load-test the server at ``url``; see the module docstring for the metrics.

    ``endpoint`` is ``completions`` or ``chat``. ``model`` defaults to the first
    id of ``/v1/models``. Every level draws prompts from the same seed, so
    levels and servers see the same requests.
    """
    if endpoint not in ("completions", "chat"):
        raise UsageError(f"unknown endpoint {endpoint!r}", "", "use completions or chat")
    if not concurrency or any(c < 1 for c in concurrency):
        raise UsageError("concurrency levels must be positive integers")
    client = _Client(url, api_key, timeout_s)
    if model is None:
        try:
            ids = client.models()
        except (OSError, http.client.HTTPException) as exc:
            raise UsageError(f"cannot reach {url}", str(exc), "is the server running? pass --url") from None
        if not ids:
            raise UsageError(f"{url} lists no models", "", "pass --model")
        model = ids[0]
    plen, olen = parse_length(prompt_len), parse_length(output_len)
    path = "/v1/completions" if endpoint == "completions" else "/v1/chat/completions"
    if requests_per_level < 1:
        raise UsageError("--requests must be at least 1")
    levels = []
    total = len(concurrency) * requests_per_level
    # Untimed requests first: a server's first request pays for loading and compiling (seconds on llama.cpp).
    done = [0]
    lock = threading.Lock()
    answered = [0]
    stopped = [""]

    def check(rec: RequestRecord, where: str) -> RequestRecord:
        """Count an answer; stop the run when a lost connection turns out to be a server that is gone.

        A stream that ended without its finish from a server that is gone broke off: it counts as failed."""
        why = client.refused() if rec.connection_lost else ""
        with lock:
            if not why:
                answered[0] += rec.ok
                return rec
            error = rec.error or "the stream ended before its finish"
            if not stopped[0]:
                stopped[0] = (f"the server at {url} stopped answering {where} after {answered[0]} "
                              f"answer{'s' if answered[0] != 1 else ''}: {error}; a new request fails "
                              f"({why}), so the server process has probably died")
        return replace(rec, ok=False, error=error)

    warm_rng = random.Random(seed + 1)
    for _ in range(max(0, warmup_requests)):
        rec = client.stream(path, _payload(endpoint, model, make_prompt(warm_rng, plen.sample(warm_rng)), olen.sample(warm_rng)))
        check(rec, "during the warm-up requests")
        if stopped[0]:
            break
    for level in concurrency:
        if stopped[0]:
            break
        rng = random.Random(seed)
        payloads = []
        for _ in range(requests_per_level):
            prompt = make_prompt(rng, plen.sample(rng))
            payloads.append(_payload(endpoint, model, prompt, olen.sample(rng)))
        records: list[RequestRecord] = []
        deadline = time.perf_counter() + level_time_budget_s
        started = time.perf_counter()

        def one(payload: dict) -> RequestRecord:
            if stopped[0]:
                rec = RequestRecord(False, 0.0, None, (), 0, 0, "not sent: the server stopped answering", sent=False)
            elif time.perf_counter() > deadline:
                rec = RequestRecord(False, 0.0, None, (), 0, 0, "level time budget exhausted", sent=False)
            else:
                rec = check(client.stream(path, payload), f"at concurrency {level}")
            with lock:
                done[0] += 1
                if progress:
                    progress(done[0], total)
            return rec

        with ThreadPoolExecutor(max_workers=level) as pool:
            records = list(pool.map(one, payloads))
        levels.append(summarize_level(level, records, time.perf_counter() - started))
    return ServeBenchResult(url, model, endpoint, prompt_len, output_len, seed, tuple(levels), label=label,
                            environment=detect_environment(), stopped=stopped[0])


def summarize_level(concurrency: int, records: Sequence[RequestRecord], duration_s: float) -> LevelResult:
    """One level's summary from its request records (pure arithmetic; see the module docstring).

    Requests the time budget left unsent are counted apart, not as errors;
    failed requests count as errors and stay out of the latency summaries.
    Throughputs divide by the level's wall time ``duration_s``.
    """
    sent = [r for r in records if r.sent]
    ok = [r for r in sent if r.ok]
    ttfts = [r.ttft_s for r in ok if r.ttft_s is not None]
    tpots = [(r.latency_s - r.ttft_s) / (r.output_tokens - 1) for r in ok if r.ttft_s is not None and r.output_tokens > 1]
    itls = [g for r in ok for g in r.itl_s]
    lats = [r.latency_s for r in ok]
    tokens = sum(r.output_tokens for r in ok)
    series = (("ttft_s", ttfts), ("tpot_s", tpots), ("itl_s", itls), ("latency_s", lats))
    return LevelResult(
        concurrency=concurrency,
        requests=len(sent),
        errors=len(sent) - len(ok),
        duration_s=duration_s,
        requests_per_s=len(ok) / duration_s if duration_s > 0 else 0.0,
        output_tokens_per_s=tokens / duration_s if duration_s > 0 else 0.0,
        ttft=summarize(ttfts),
        tpot=summarize(tpots),
        itl=summarize(itls),
        latency=summarize(lats),
        p99={k: percentile(sorted(v), 99) for k, v in series if v},
        error_samples=tuple(sorted({r.error for r in sent if r.error})[:5]),
        not_sent=len(records) - len(sent),
        output_tokens=tokens,
        prompt_tokens=sum(r.prompt_tokens for r in ok),
    )
