"""Model providers: any OpenAI-compatible chat endpoint, and Anthropic's Messages API.

Both speak plain JSON over HTTP through the standard library (``urllib``), so the
agent adds no dependency. Keys come from the environment only (never from a
flag, so they do not land in shell history or transcripts):
``OPENAI_API_KEY`` (or the variable named by ``api_key_env``) for OpenAI-compatible
endpoints — local servers such as vLLM, llama.cpp's server or Ollama need none —
and ``ANTHROPIC_API_KEY`` for Anthropic.

Generation is made as repeatable as the endpoint allows: temperature 0 and a
fixed seed (OpenAI-compatible servers honour ``seed``; Anthropic has none).
"""

from __future__ import annotations

import http.client
import json
import os
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from typing import Protocol, Sequence

from vado.errors import AgentError

OPENAI_DEFAULT_BASE = "https://api.openai.com/v1"
ANTHROPIC_DEFAULT_BASE = "https://api.anthropic.com"
ANTHROPIC_VERSION = "2023-06-01"


@dataclass(frozen=True)
class Message:
    """One chat message: ``role`` is ``system``, ``user`` or ``assistant``."""

    role: str
    content: str


@dataclass(frozen=True)
class Completion:
    """A model's answer with what it cost in tokens (None where the endpoint did not say)."""

    text: str
    input_tokens: int | None = None
    output_tokens: int | None = None
    model: str = ""
    finish_reason: str = ""
    duration_s: float = 0.0
    raw: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Pricing:
    """Price per million input and output tokens, in US dollars, as the user states it."""

    input_per_mtok: float
    output_per_mtok: float

    def cost(self, c: Completion) -> float | None:
        """Dollars for one completion, or None when the token counts are unknown."""
        if c.input_tokens is None or c.output_tokens is None:
            return None
        return round(c.input_tokens * self.input_per_mtok / 1e6 + c.output_tokens * self.output_per_mtok / 1e6, 6)


class Provider(Protocol):
    """Something that turns messages into a completion."""

    name: str
    model: str

    def complete(self, messages: Sequence[Message], *, max_tokens: int) -> Completion:
        """One chat completion; raises :class:`AgentError` when the endpoint fails."""
        ...


#: The largest answer read from an endpoint (a chat completion is a few KiB).
MAX_ANSWER_BYTES = 8 * 2**20


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Refuse redirects: the request carries the API key, and a redirect may point anywhere."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        raise AgentError(f"the model endpoint redirected (HTTP {code}) to {newurl}",
                         "vado does not follow redirects: the request carries the API key",
                         "pass the final URL as --base-url") from None


def _tracking_handlers(sockets: list):
    """HTTP(S) handlers that record each connection's socket in ``sockets``, so that a
    watchdog can close it when the request's deadline passes (a server that drips its
    answer a byte at a time never trips a per-read timeout)."""

    def tracked(base):
        class Conn(base):
            def connect(self) -> None:
                super().connect()
                sockets.append(self.sock)

        return Conn

    http_conn, https_conn = tracked(http.client.HTTPConnection), tracked(http.client.HTTPSConnection)

    class Http(urllib.request.HTTPHandler):
        def http_open(self, req):
            return self.do_open(http_conn, req)

    class Https(urllib.request.HTTPSHandler):
        def https_open(self, req):
            return self.do_open(https_conn, req, context=self._context)

    return Http(), Https()


class EndpointLost(AgentError):
    """The connection to the model endpoint was refused, or closed before the answer ended."""


#: How a server that crashes during an answer looks to its client.
_CLOSED_MID_ANSWER = (ConnectionResetError, ConnectionAbortedError, BrokenPipeError, http.client.IncompleteRead,
                      http.client.RemoteDisconnected)
_CRASH_TIP = "the server has probably crashed: check its log and `dmesg`, restart it and run again"


def _post_json(url: str, body: dict, headers: dict[str, str], timeout_s: float, deadline: float | None = None) -> dict:
    """POST ``body`` as JSON and read the JSON answer, in at most ``timeout_s`` seconds in all
    (and not past ``deadline``, a ``time.monotonic()`` value), of at most
    :data:`MAX_ANSWER_BYTES`, without following redirects."""
    import socket
    import threading

    data = json.dumps(body).encode("utf-8")
    req = urllib.request.Request(url, data=data, method="POST", headers={"content-type": "application/json", **headers})
    now = time.monotonic()
    end = now + timeout_s if deadline is None else min(now + timeout_s, deadline)
    if end <= now:
        raise AgentError("no time left for the model endpoint", "the run's time budget is spent", "raise --max-seconds")
    sockets: list = []
    expired = threading.Event()

    def expire() -> None:
        expired.set()
        for sock in list(sockets):
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    watchdog = threading.Timer(end - now, expire)
    watchdog.daemon = True
    opener = urllib.request.build_opener(_NoRedirect, *_tracking_handlers(sockets))
    watchdog.start()
    try:
        with opener.open(req, timeout=max(0.1, end - now)) as resp:
            chunks, size = [], 0
            while chunk := resp.read1(1 << 16):
                size += len(chunk)
                if size > MAX_ANSWER_BYTES:
                    raise AgentError(f"the model endpoint's answer is larger than {MAX_ANSWER_BYTES // 2**20} MiB",
                                     "a completion is a few KiB", "check --base-url and --max-answer-tokens")
                chunks.append(chunk)
                if time.monotonic() > end:
                    raise TimeoutError("the answer did not arrive in time")
            payload = b"".join(chunks)
    except AgentError:
        raise
    except urllib.error.HTTPError as exc:
        detail = exc.read(2000).decode("utf-8", "replace")[:500] if exc.fp is not None else ""
        raise AgentError(f"the model endpoint answered HTTP {exc.code}", detail or str(exc.reason), _tip_for(exc.code)) from None
    except (urllib.error.URLError, TimeoutError, OSError, ValueError, http.client.HTTPException) as exc:
        reason = getattr(exc, "reason", exc)
        if expired.is_set():
            raise AgentError(f"the model endpoint {url} did not answer within {timeout_s:g} s or the run's time budget",
                             str(reason), "raise --max-seconds, or check the server") from None
        why = f"{type(reason).__name__}: {reason}" if str(reason) else type(reason).__name__
        if isinstance(reason, _CLOSED_MID_ANSWER):
            raise EndpointLost(f"the model endpoint {url} closed the connection before its answer ended", why,
                               _CRASH_TIP) from None
        if isinstance(reason, ConnectionRefusedError):
            raise EndpointLost(f"cannot reach the model endpoint {url}", why,
                               "check --base-url and that the server is running") from None
        raise AgentError(f"cannot reach the model endpoint {url}", str(reason), "check --base-url and that the server is running") from None
    finally:
        watchdog.cancel()
    if expired.is_set():
        raise AgentError(f"the model endpoint {url} did not answer in time", "the deadline passed", "raise --max-seconds")
    try:
        doc = json.loads(payload)
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
        raise AgentError("the model endpoint did not answer JSON", payload[:200].decode("utf-8", "replace"), "check --base-url points at the API root (…/v1)") from None
    if not isinstance(doc, dict):
        raise AgentError("the model endpoint's answer is not a JSON object", payload[:200].decode("utf-8", "replace"),
                         "check --base-url points at the API root (…/v1)")
    return doc


def _count(usage: object, key: str) -> int | None:
    """A token count from an answer's ``usage`` object: a non-negative int, else None."""
    if not isinstance(usage, dict):
        return None
    v = usage.get(key)
    return v if isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 1 << 40 else None


def _str(value: object, default: str = "") -> str:
    return value if isinstance(value, str) else default


def _tip_for(code: int) -> str:
    if code in (401, 403):
        return "set the API key in the environment (OPENAI_API_KEY, ANTHROPIC_API_KEY or the one named by --api-key-env)"
    if code == 404:
        return "check --base-url (OpenAI-compatible servers serve /v1/chat/completions) and --model"
    if code == 429:
        return "the endpoint is rate limiting; retry later or lower the budget"
    return "see the endpoint's logs"


class OpenAICompatible:
    """``POST {base_url}/chat/completions`` as OpenAI, vLLM, llama.cpp's server and Ollama serve it."""

    name = "openai"

    def __init__(self, model: str, base_url: str = OPENAI_DEFAULT_BASE, *, api_key_env: str = "OPENAI_API_KEY",
                 timeout_s: float = 300.0, seed: int = 0, temperature: float = 0.0) -> None:
        self.model = model
        self.base_url = base_url.rstrip("/")
        self.api_key = os.environ.get(api_key_env, "")
        self.api_key_env = api_key_env
        self.timeout_s = timeout_s
        self.seed = seed
        self.temperature = temperature
        #: ``time.monotonic()`` after which no request may run (the agent's --max-seconds); None: none.
        self.deadline: float | None = None
        #: Answers received so far (a server that answered before and is unreachable now has died).
        self.answers = 0

    def complete(self, messages: Sequence[Message], *, max_tokens: int) -> Completion:
        """One chat completion at temperature 0 with a fixed seed."""
        headers = {"authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        body = {
            "model": self.model,
            "messages": [{"role": m.role, "content": m.content} for m in messages],
            "max_tokens": max_tokens,
            "temperature": self.temperature,
            "seed": self.seed,
        }
        started = time.perf_counter()
        try:
            doc = _post_json(self.base_url + "/chat/completions", body, headers, self.timeout_s, self.deadline)
        except EndpointLost as exc:
            if not self.answers:
                raise
            # It answered before: the server was there and is gone now, which a plain "cannot reach" would hide.
            raise EndpointLost(f"the model endpoint {self.base_url} stopped answering after {self.answers} "
                               f"answer{'s' if self.answers != 1 else ''}", f"{exc.what}: {exc.why}", _CRASH_TIP) from None
        self.answers += 1
        try:
            choice = doc["choices"][0]
            text = choice["message"].get("content") or ""
            if not isinstance(text, str):
                raise TypeError("content is not text")
        except (KeyError, IndexError, TypeError, AttributeError):
            raise AgentError("the model endpoint's answer has no choices[0].message", json.dumps(doc)[:300], "is --base-url an OpenAI-compatible API?") from None
        usage = doc.get("usage")
        return Completion(
            text=text,
            input_tokens=_count(usage, "prompt_tokens"),
            output_tokens=_count(usage, "completion_tokens"),
            model=_str(doc.get("model"), self.model),
            finish_reason=_str(choice.get("finish_reason")),
            duration_s=round(time.perf_counter() - started, 3),
            raw={"id": _str(doc.get("id"))},
        )


class Anthropic:
    """Anthropic's Messages API (``POST {base_url}/v1/messages``); the key is ``$ANTHROPIC_API_KEY``."""

    name = "anthropic"

    def __init__(self, model: str, base_url: str = ANTHROPIC_DEFAULT_BASE, *, api_key_env: str = "ANTHROPIC_API_KEY",
                 timeout_s: float = 300.0, temperature: float = 0.0) -> None:
        self.model = model
        self.base_url = base_url.rstrip("/")
        self.api_key = os.environ.get(api_key_env, "")
        self.api_key_env = api_key_env
        self.timeout_s = timeout_s
        self.temperature = temperature
        #: ``time.monotonic()`` after which no request may run (the agent's --max-seconds); None: none.
        self.deadline: float | None = None
        if not self.api_key:
            raise AgentError(f"${api_key_env} is not set", "Anthropic's API needs a key", f"export {api_key_env}=… (keys are read from the environment only)")

    def complete(self, messages: Sequence[Message], *, max_tokens: int) -> Completion:
        """One message; the system prompt goes in the top-level ``system`` field, as the API wants."""
        system = "\n\n".join(m.content for m in messages if m.role == "system")
        body: dict = {
            "model": self.model,
            "max_tokens": max_tokens,
            "temperature": self.temperature,
            "messages": [{"role": m.role, "content": m.content} for m in messages if m.role != "system"],
        }
        if system:
            body["system"] = system
        headers = {"x-api-key": self.api_key, "anthropic-version": ANTHROPIC_VERSION}
        started = time.perf_counter()
        doc = _post_json(self.base_url + "/v1/messages", body, headers, self.timeout_s, self.deadline)
        blocks = doc.get("content")
        if not isinstance(blocks, list):
            raise AgentError("Anthropic's answer has no content list", json.dumps(doc)[:300], "check --model and the API version")
        text = "".join(_str(b.get("text")) for b in blocks if isinstance(b, dict) and b.get("type") == "text")
        usage = doc.get("usage")
        return Completion(
            text=text,
            input_tokens=_count(usage, "input_tokens"),
            output_tokens=_count(usage, "output_tokens"),
            model=_str(doc.get("model"), self.model),
            finish_reason=_str(doc.get("stop_reason")),
            duration_s=round(time.perf_counter() - started, 3),
            raw={"id": _str(doc.get("id"))},
        )


def make_provider(model: str, *, provider: str | None = None, base_url: str | None = None,
                  api_key_env: str | None = None, timeout_s: float = 300.0, seed: int = 0) -> Provider:
    """The provider for ``model``: ``anthropic`` for Claude models without a base URL, else OpenAI-compatible.

    ``provider`` (``openai`` or ``anthropic``) overrides the guess.
    """
    if provider is None:
        provider = "anthropic" if model.startswith("claude") and base_url is None else "openai"
    if provider == "anthropic":
        return Anthropic(model, base_url or ANTHROPIC_DEFAULT_BASE, api_key_env=api_key_env or "ANTHROPIC_API_KEY", timeout_s=timeout_s)
    if provider == "openai":
        return OpenAICompatible(model, base_url or OPENAI_DEFAULT_BASE, api_key_env=api_key_env or "OPENAI_API_KEY", timeout_s=timeout_s, seed=seed)
    raise AgentError(f"unknown provider {provider!r}", "vado speaks OpenAI-compatible APIs and Anthropic's", "use --provider openai or --provider anthropic")
