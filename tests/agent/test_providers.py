"""Providers over real HTTP: a loopback stub that records requests and answers recorded JSON."""

from __future__ import annotations

import pytest

from vado.agent.providers import Anthropic, Message, OpenAICompatible, Pricing, make_provider
from vado.errors import AgentError

MESSAGES = [Message("system", "be brief"), Message("user", "fix it")]


def test_openai_compatible_request_and_answer(stub, monkeypatch):
    monkeypatch.setenv("VADO_TEST_KEY", "sk-test")
    stub["answers"]["/v1/chat/completions"] = (200, {
        "id": "c1", "model": "m-1",
        "choices": [{"message": {"role": "assistant", "content": "edit"}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 12, "completion_tokens": 3},
    })
    p = OpenAICompatible("m-1", stub["url"] + "/v1/", api_key_env="VADO_TEST_KEY", seed=7)
    c = p.complete(MESSAGES, max_tokens=64)
    assert (c.text, c.input_tokens, c.output_tokens, c.finish_reason) == ("edit", 12, 3, "stop")
    path, headers, body = stub["requests"][0]
    assert path == "/v1/chat/completions"
    assert headers["authorization"] == "Bearer sk-test"
    assert body == {"model": "m-1", "messages": [{"role": "system", "content": "be brief"}, {"role": "user", "content": "fix it"}],
                    "max_tokens": 64, "temperature": 0.0, "seed": 7}
    assert Pricing(3.0, 15.0).cost(c) == round(12 * 3 / 1e6 + 3 * 15 / 1e6, 6)


def test_local_servers_need_no_key(stub, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    stub["answers"]["/v1/chat/completions"] = (200, {"choices": [{"message": {"content": "x"}}]})
    c = make_provider("local", base_url=stub["url"] + "/v1").complete(MESSAGES, max_tokens=8)
    assert c.text == "x" and c.input_tokens is None
    assert "authorization" not in stub["requests"][0][1]
    assert Pricing(1, 1).cost(c) is None


def test_anthropic_messages_api(stub, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "ak-test")
    stub["answers"]["/v1/messages"] = (200, {
        "id": "msg_1", "model": "claude-x", "stop_reason": "end_turn",
        "content": [{"type": "text", "text": "part 1 "}, {"type": "text", "text": "part 2"}],
        "usage": {"input_tokens": 20, "output_tokens": 5},
    })
    p = make_provider("claude-x", provider="anthropic", base_url=stub["url"])
    assert isinstance(p, Anthropic)
    c = p.complete(MESSAGES, max_tokens=100)
    assert (c.text, c.input_tokens, c.output_tokens) == ("part 1 part 2", 20, 5)
    path, headers, body = stub["requests"][0]
    assert path == "/v1/messages"
    assert headers["x-api-key"] == "ak-test" and headers["anthropic-version"] == "2023-06-01"
    assert body["system"] == "be brief" and body["messages"] == [{"role": "user", "content": "fix it"}]
    assert body["max_tokens"] == 100 and body["temperature"] == 0.0


def test_anthropic_without_key_is_an_agent_error(monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(AgentError) as exc:
        make_provider("claude-sonnet-4-5")
    assert "ANTHROPIC_API_KEY" in exc.value.what


def test_provider_guess():
    assert isinstance(make_provider("gpt-x"), OpenAICompatible)
    assert isinstance(make_provider("claude-via-proxy", base_url="http://127.0.0.1:1/v1"), OpenAICompatible)
    with pytest.raises(AgentError):
        make_provider("m", provider="bard")


@pytest.mark.parametrize("status, tip", [(401, "API key"), (404, "--base-url"), (500, "logs")])
def test_http_errors_become_agent_errors_with_tips(stub, status, tip):
    stub["answers"]["/v1/chat/completions"] = (status, {"error": "boom"})
    with pytest.raises(AgentError) as exc:
        OpenAICompatible("m", stub["url"] + "/v1").complete(MESSAGES, max_tokens=8)
    assert f"HTTP {status}" in exc.value.what and "boom" in exc.value.why and tip in exc.value.tip


def test_unreachable_endpoint(stub):
    url = stub["url"]
    with pytest.raises(AgentError) as exc:
        OpenAICompatible("m", url.rsplit(":", 1)[0] + ":1/v1", timeout_s=5).complete(MESSAGES, max_tokens=8)
    assert "cannot reach" in exc.value.what


def test_answer_without_choices(stub):
    stub["answers"]["/v1/chat/completions"] = (200, {"object": "list"})
    with pytest.raises(AgentError) as exc:
        OpenAICompatible("m", stub["url"] + "/v1").complete(MESSAGES, max_tokens=8)
    assert "choices" in exc.value.what


def test_a_server_that_dies_is_named_as_such():
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from _servers import dying_server
    from vado.agent.providers import EndpointLost

    with dying_server(1) as url:
        prov = OpenAICompatible("m", url + "/v1", timeout_s=10)
        assert prov.complete(MESSAGES, max_tokens=8).text == "no change"
        with pytest.raises(EndpointLost) as exc:
            prov.complete(MESSAGES, max_tokens=8)  # the server dies while answering
        assert exc.value.what == f"the model endpoint {url}/v1 stopped answering after 1 answer"
        assert "closed the connection before its answer ended" in exc.value.why
        assert "crashed" in exc.value.tip and "dmesg" in exc.value.tip
        _wait_refused(url)  # the dying process may still hold its socket for a moment
        with pytest.raises(EndpointLost) as exc:
            prov.complete(MESSAGES, max_tokens=8)  # and is gone
        assert "stopped answering after 1 answer" in exc.value.what and "ConnectionRefusedError" in exc.value.why


def _wait_refused(url: str, timeout_s: float = 10.0) -> None:
    import socket
    import time
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        try:
            socket.create_connection((parts.hostname, parts.port), timeout=1).close()
        except ConnectionRefusedError:
            return
        time.sleep(0.05)
    raise AssertionError(f"{url} still accepts connections")
