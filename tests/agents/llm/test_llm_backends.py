"""The two backends and the router, with the real `ollama` client and `anthropic` SDK talking to
local servers that speak their wire protocols: good answers, and every way a server misbehaves."""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import Iterator
from typing import Any

import pytest

from agents.llm import (
    AnthropicProvider,
    ChatMessage,
    LLMBadResponse,
    LLMMisconfigured,
    LLMResponseTooLarge,
    LLMRouter,
    LLMTimeout,
    LLMUnavailable,
    OllamaProvider,
)
from tests.agents.fakes import (
    FakeAnthropic,
    FakeOllama,
    anthropic_error,
    anthropic_text,
    anthropic_tool,
    ollama_chat,
    ollama_error,
)
from tests.helpers.http import Reply
from tests.helpers.ports import closed_port_url

MESSAGES: list[ChatMessage] = [
    {"role": "system", "content": "You judge drafts."},
    {"role": "user", "content": "Judge this."},
]
SCHEMA = {"type": "object", "properties": {"score": {"type": "number"}}, "required": ["score"]}
TEN_MB = 10 * 1024 * 1024


@pytest.fixture
def ollama_server() -> Iterator[FakeOllama]:
    with FakeOllama() as server:
        server.add_model("gemma3:27b", "completion")
        yield server


@pytest.fixture
def anthropic_server() -> Iterator[FakeAnthropic]:
    with FakeAnthropic() as server:
        yield server


def ollama(url: str, *, limit: int = 1_048_576) -> OllamaProvider:
    return OllamaProvider(url, max_response_bytes=limit, health_timeout=0.5)


def claude(url: str, key: str | None = "sk-ant-test-key") -> AnthropicProvider:
    return AnthropicProvider(api_key=key, base_url=url, max_response_bytes=1_048_576)


async def chat(provider: Any, model: str, *, timeout: float = 2.0, **kwargs: Any) -> Any:
    return await provider.chat(
        model,
        MESSAGES,
        json_schema=SCHEMA,
        max_tokens=321,
        temperature=0.3,
        timeout=timeout,
        **kwargs,
    )


# --- Ollama ------------------------------------------------------------------------------------


async def test_ollama_answer_tokens_and_request(ollama_server: FakeOllama) -> None:
    ollama_server.script(
        "gemma3:27b",
        ollama_chat({"score": 77}, prompt_tokens=812, output_tokens=64, duration_ms=4321),
    )
    answer = await chat(ollama(ollama_server.url), "gemma3:27b")
    assert json.loads(answer.text) == {"score": 77}
    assert (answer.tokens_in, answer.tokens_out, answer.duration_ms) == (812, 64, 4321)
    assert answer.model == "ollama/gemma3:27b"
    assert answer.stop_reason == "stop"
    (sent,) = ollama_server.chats()
    assert sent["format"] == SCHEMA  # structured output requested
    assert sent["options"]["num_predict"] == 321
    assert sent["options"]["temperature"] == 0.3
    assert sent["stream"] is False
    assert [m["role"] for m in sent["messages"]] == ["system", "user"]


async def test_ollama_images_travel_base64_on_the_user_message(ollama_server: FakeOllama) -> None:
    ollama_server.script("gemma3:27b", ollama_chat({"score": 1}))
    await chat(ollama(ollama_server.url), "gemma3:27b", images=[b"\x89PNG fake", b"\xff\xd8 jpg"])
    (sent,) = ollama_server.chats()
    user = sent["messages"][-1]
    assert [base64.b64decode(i) for i in user["images"]] == [b"\x89PNG fake", b"\xff\xd8 jpg"]
    assert "images" not in sent["messages"][0]


async def test_ollama_separate_thinking_trace(ollama_server: FakeOllama) -> None:
    ollama_server.script(
        "gemma3:27b", ollama_chat('{"score": 5}', thinking="hmm", done_reason="length")
    )
    answer = await chat(ollama(ollama_server.url), "gemma3:27b")
    assert answer.thinking == "hmm"
    assert answer.hit_token_limit


@pytest.mark.parametrize(
    ("reply", "error", "message"),
    [
        pytest.param(ollama_error(500, "CUDA out of memory"), LLMBadResponse, "HTTP 500: CUDA"),
        pytest.param(Reply(hang=True), LLMTimeout, "within 0.5s"),
        pytest.param(ollama_chat({"score": 1}, delay=3.0), LLMTimeout, "within 0.5s", id="slow"),
        pytest.param(ollama_chat("x" * TEN_MB), LLMResponseTooLarge, "1048576 bytes", id="10MB"),
        pytest.param(
            ollama_chat("x" * TEN_MB, chunked=True),
            LLMResponseTooLarge,
            "1048576 bytes",
            id="10MB-chunked",
        ),
        pytest.param(
            Reply(200, b"<html>proxy error</html>", "text/html"),
            LLMBadResponse,
            "wire format",
            id="not-json",
        ),
        pytest.param(
            Reply.json({"unexpected": True}), LLMBadResponse, "wire format", id="wrong-shape"
        ),
    ],
)
async def test_ollama_failures_become_llm_errors(
    ollama_server: FakeOllama, reply: Reply, error: type[Exception], message: str
) -> None:
    ollama_server.script("gemma3:27b", reply)
    with pytest.raises(error, match=message):
        await chat(ollama(ollama_server.url), "gemma3:27b", timeout=0.5)


async def test_ollama_unknown_model(ollama_server: FakeOllama) -> None:
    # a model the server does not have is the configuration's fault (issue 12: fail closed)
    with pytest.raises(LLMMisconfigured, match=r"not on the Ollama server.*not found"):
        await chat(ollama(ollama_server.url), "llama9:1t")


async def test_ollama_not_running() -> None:
    provider = ollama(closed_port_url())
    with pytest.raises(LLMUnavailable, match="not reachable"):
        await chat(provider, "gemma3:27b")
    assert await provider.healthy() is False


async def test_ollama_health_and_capabilities(ollama_server: FakeOllama) -> None:
    ollama_server.add_model("qwen3-vl:30b", "completion", "vision", "thinking")
    provider = ollama(ollama_server.url)
    assert await provider.healthy() is True
    assert await provider.installed_models() == ["gemma3:27b", "qwen3-vl:30b"]
    assert await provider.capabilities("qwen3-vl:30b") == frozenset(
        {"completion", "vision", "thinking"}
    )
    assert await provider.capabilities("qwen3-vl:30b") is not None
    assert len(ollama_server.requests_to("/api/show")) == 1  # cached per model
    assert await provider.capabilities("absent:1b") is None


async def test_ollama_hung_health_check_is_bounded(ollama_server: FakeOllama) -> None:
    ollama_server.tags_reply = Reply(hang=True)
    assert await ollama(ollama_server.url).healthy() is False


async def test_router_shares_and_caches_health_checks(ollama_server: FakeOllama) -> None:
    ollama_server.tags_reply = Reply(hang=True)  # every check waits out the health timeout
    router = LLMRouter({"ollama": ollama(ollama_server.url)}, health_cache_seconds=60)
    # Four reviewers of one draft ask at once: one request, one wait.
    results = await asyncio.gather(*(router.healthy("ollama/gemma3:27b") for _ in range(4)))
    assert results == [False] * 4
    assert await router.healthy("ollama/qwen3:30b") is False  # same backend, cached
    assert len(ollama_server.requests_to("/api/tags")) == 1


async def test_router_health_expires(ollama_server: FakeOllama) -> None:
    router = LLMRouter({"ollama": ollama(ollama_server.url)}, health_cache_seconds=0)
    assert await router.healthy("gemma3:27b")
    assert await router.healthy("gemma3:27b")
    assert len(ollama_server.requests_to("/api/tags")) == 2


async def test_router_routes_by_provider_prefix(
    ollama_server: FakeOllama, anthropic_server: FakeAnthropic
) -> None:
    ollama_server.script("gemma3:27b", ollama_chat({"score": 1}))
    anthropic_server.script("claude-haiku-4-5", anthropic_tool({"score": 2}))
    router = LLMRouter(
        {"ollama": ollama(ollama_server.url), "anthropic": claude(anthropic_server.url)}
    )
    a = await chat(router, "gemma3:27b")
    b = await chat(router, "anthropic/claude-haiku-4-5")
    assert (a.model, b.model) == ("ollama/gemma3:27b", "anthropic/claude-haiku-4-5")
    with pytest.raises(LLMUnavailable, match="no google provider"):
        await chat(router, "google/gemini-2.5")
    assert await router.healthy("google/gemini-2.5") is False


# --- Anthropic ---------------------------------------------------------------------------------


async def test_anthropic_forced_tool_answer(anthropic_server: FakeAnthropic) -> None:
    anthropic_server.script(
        "claude-haiku-4-5", anthropic_tool({"score": 64}, input_tokens=900, output_tokens=120)
    )
    answer = await chat(
        claude(anthropic_server.url), "claude-haiku-4-5", images=[b"\x89PNG...", b"\xff\xd8..."]
    )
    assert json.loads(answer.text) == {"score": 64}
    assert (answer.tokens_in, answer.tokens_out) == (900, 120)
    assert answer.model == "anthropic/claude-haiku-4-5"
    (sent,) = anthropic_server.messages()
    assert sent["system"] == "You judge drafts."
    assert sent["tools"][0]["input_schema"] == SCHEMA
    assert sent["tool_choice"] == {"type": "tool", "name": sent["tools"][0]["name"]}
    assert sent["max_tokens"] == 321
    content = sent["messages"][0]["content"]
    assert [b["type"] for b in content] == ["image", "image", "text"]
    assert [b["source"]["media_type"] for b in content[:2]] == ["image/png", "image/jpeg"]
    assert base64.b64decode(content[0]["source"]["data"]) == b"\x89PNG..."


async def test_anthropic_text_answer(anthropic_server: FakeAnthropic) -> None:
    anthropic_server.script("claude-haiku-4-5", anthropic_text('```json\n{"score": 3}\n```'))
    answer = await chat(claude(anthropic_server.url), "claude-haiku-4-5")
    assert answer.text == '```json\n{"score": 3}\n```'
    assert answer.stop_reason == "end_turn"


@pytest.mark.parametrize(
    ("reply", "error", "message"),
    [
        pytest.param(anthropic_error(500, "api_error", "boom"), LLMBadResponse, "HTTP 500"),
        pytest.param(
            anthropic_error(529, "overloaded_error", "Overloaded"), LLMBadResponse, "HTTP 529"
        ),
        pytest.param(Reply(hang=True), LLMTimeout, "within 0.5s"),
        pytest.param(anthropic_text("x" * TEN_MB), LLMResponseTooLarge, "bytes", id="10MB"),
        pytest.param(
            anthropic_text("x" * TEN_MB, chunked=True),
            LLMResponseTooLarge,
            "bytes",
            id="10MB-chunked",
        ),
        pytest.param(
            Reply(200, b"not json", "text/plain"), LLMBadResponse, "not a Message", id="not-json"
        ),
        pytest.param(
            Reply.json({"unexpected": True}), LLMBadResponse, "not a Message", id="wrong-shape"
        ),
    ],
)
async def test_anthropic_failures_become_llm_errors(
    anthropic_server: FakeAnthropic, reply: Reply, error: type[Exception], message: str
) -> None:
    anthropic_server.script("claude-haiku-4-5", reply)
    with pytest.raises(error, match=message):
        await chat(claude(anthropic_server.url), "claude-haiku-4-5", timeout=0.5)
    # The SDK's own retries are off: our fallback chain is the only retry policy.
    assert len(anthropic_server.requests_to("/v1/messages")) == 1


async def test_anthropic_key_problems(anthropic_server: FakeAnthropic) -> None:
    # A refused key is "unavailable": retrying cannot help, the fallback chain moves on.
    with pytest.raises(LLMUnavailable, match=r"rejected the key \(HTTP 401\)"):
        await chat(claude(anthropic_server.url, key="wrong"), "claude-haiku-4-5")
    keyless = claude(anthropic_server.url, key=None)
    assert await keyless.healthy() is False
    with pytest.raises(LLMUnavailable, match="API key"):
        await chat(keyless, "claude-haiku-4-5")


async def test_anthropic_unreachable() -> None:
    with pytest.raises(LLMUnavailable, match="not reachable"):
        await chat(claude(closed_port_url()), "claude-haiku-4-5")
