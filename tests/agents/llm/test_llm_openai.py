"""The OpenAI-compatible provider with the real `openai` SDK against a local server that speaks
the protocol: structured answers, usage and cost, the response_format fallback, and every bad
input the issue lists (HTML, a rejected response_format, no provider, a base URL with a path, an
empty key, a score of 150), each one clear skipped/error result and never an exception."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import pytest

from agents.base import Deps
from agents.llm import (
    ChatMessage,
    LLMBadResponse,
    LLMResponseTooLarge,
    LLMRouter,
    LLMTimeout,
    LLMUnavailable,
    OpenAIProvider,
    Prompt,
    answer_counts,
    ask,
    on_answer,
    token_budget,
)
from agents.reviewers import critic
from agents.reviewers.consistency import review_consistency
from agents.settings import Settings
from schemas.records import Provider, ReviewStatus
from tests.agents.fakes import AuditRecorder, FakeOpenAI, openai_chat
from tests.helpers.drafts import make_draft
from tests.helpers.http import Reply
from tests.helpers.ports import closed_port_url

MODEL = "qwen2.5:7b"
VERDICT = {"approved": True, "quality_score": 82, "feedback": "Clear and correct."}
MESSAGES: list[ChatMessage] = [
    {"role": "system", "content": "You judge drafts."},
    {"role": "user", "content": "Judge this."},
]
FAST: dict[str, Any] = {
    "openai_health_timeout_seconds": 0.5,
    "qa_critic_timeout_seconds": 1.0,
    "qa_gate_timeout_seconds": 1.0,
    "qa_gate_retry_backoff_seconds": 0.01,
}


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        fake.add_model(MODEL, always=openai_chat(VERDICT))
        yield fake


def settings_for(server: FakeOpenAI, **changes: Any) -> Settings:
    values: dict[str, Any] = {
        "openai_base_url": f"{server.url}/v1",
        "pipeline_critic_model": f"openai/{MODEL}",
        "qa_fallback_critic_model": "",
        **FAST,
    }
    values.update(changes)
    return Settings(**values)


def deps_for(settings: Settings, *, key: str | None = None) -> Deps:
    return Deps(llm=LLMRouter.from_settings(settings, openai_api_key=key), audit=AuditRecorder())


def provider(url: str, *, key: str | None = None, limit: int = 1_048_576) -> OpenAIProvider:
    return OpenAIProvider(url, api_key=key, max_response_bytes=limit, health_timeout=0.5)


async def chat(p: OpenAIProvider, *, timeout: float = 2.0, **kwargs: Any) -> Any:
    kwargs.setdefault("json_schema", critic.ANSWER_SCHEMA)
    return await p.chat(MODEL, MESSAGES, max_tokens=321, temperature=0.3, timeout=timeout, **kwargs)


# --- the call ----------------------------------------------------------------------------------


async def test_structured_request_usage_and_server_timings(server: FakeOpenAI) -> None:
    server.script(MODEL, openai_chat(VERDICT, timings={"prompt_ms": 120.0, "predicted_ms": 880.0}))
    answer = await chat(provider(f"{server.url}/v1"))
    sent = server.chats()[0]
    assert sent["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "answer", "strict": True, "schema": critic.ANSWER_SCHEMA},
    }
    assert (sent["max_tokens"], sent["temperature"], sent["model"]) == (321, 0.3, MODEL)
    assert (answer.tokens_in, answer.tokens_out, answer.stop_reason) == (120, 30, "stop")
    assert answer.duration_ms == 1000  # the server's own prompt + generation time
    assert answer.model == f"openai/{MODEL}"


async def test_reasoning_trace_and_images_travel_the_openai_way(server: FakeOpenAI) -> None:
    server.script(MODEL, openai_chat(VERDICT, reasoning="first I read it"))
    png = b"\x89PNG\r\n\x1a\n" + b"0" * 20
    answer = await chat(provider(f"{server.url}/v1"), images=[png])
    assert answer.thinking == "first I read it"
    parts = server.chats()[0]["messages"][-1]["content"]
    assert parts[0] == {"type": "text", "text": "Judge this."}
    assert parts[1]["image_url"]["url"].startswith("data:image/png;base64,")


@pytest.mark.parametrize(
    ("reply", "error", "match"),
    [
        pytest.param(
            Reply(200, b"<!doctype html><html>login</html>", "text/html"),
            LLMBadResponse,
            r"not a chat completion \(HTML\)",
            id="html-200",
        ),
        pytest.param(Reply.json({"unexpected": 1}), LLMBadResponse, "not a chat", id="shape"),
        pytest.param(Reply(hang=True), LLMTimeout, "within 0.5s", id="hang"),
        pytest.param(
            openai_chat("x" * (10 * 1024 * 1024)), LLMResponseTooLarge, "bytes", id="10MB"
        ),
        pytest.param(Reply.json({"error": {"message": "boom"}}, 500), LLMBadResponse, "HTTP 500"),
    ],
)
async def test_misbehaving_servers_raise_one_error_class(
    server: FakeOpenAI, reply: Reply, error: type[Exception], match: str
) -> None:
    server.script(MODEL, reply)
    with pytest.raises(error, match=match):
        await chat(provider(f"{server.url}/v1"), timeout=0.5)


async def test_unreachable_server_is_unavailable() -> None:
    with pytest.raises(LLMUnavailable, match="not reachable"):
        await chat(provider(f"{closed_port_url()}/v1"))


async def test_a_rejected_response_format_is_asked_in_prose_once_and_remembered(
    server: FakeOpenAI,
) -> None:
    server.rejects_format = True
    server.defaults[MODEL] = openai_chat(
        "Sure! " + '{"approved": false, "quality_score": 40, "feedback": "thin"} Hope that helps.'
    )
    settings = settings_for(server)
    deps = deps_for(settings)
    seen: list[tuple[str, str]] = []
    stop = on_answer(lambda provider, how: seen.append((provider, how)))
    before = answer_counts().get(("openai", "parser"), 0)
    try:
        first = await critic.review(make_draft(), settings, deps)
        second = await critic.review(make_draft(draft_id="d-2"), settings, deps)
    finally:
        stop()
    assert (first.status, first.score, second.score) == (ReviewStatus.OK, 40.0, 40.0)
    bodies = server.chats()
    # The first review: rejected request, then prose. The second: prose straight away.
    assert ["response_format" in b for b in bodies] == [True, False, False]
    assert first.cost.parser_fallbacks == 1 and second.cost.parser_fallbacks == 1
    assert seen == [("openai", "parser"), ("openai", "parser")]
    assert answer_counts()[("openai", "parser")] == before + 2


async def test_structured_answers_are_counted_as_such(server: FakeOpenAI) -> None:
    settings = settings_for(server)
    before = answer_counts().get(("openai", "structured"), 0)
    result = await critic.review(make_draft(), settings, deps_for(settings))
    assert result.status is ReviewStatus.OK and result.provider is Provider.OPENAI
    assert result.cost.parser_fallbacks == 0
    assert answer_counts()[("openai", "structured")] == before + 1


async def test_cut_at_max_tokens_is_a_failure_even_when_readable(server: FakeOpenAI) -> None:
    server.defaults[MODEL] = openai_chat(VERDICT, finish_reason="length")
    settings = settings_for(server)
    prompt = Prompt("sys", "user", critic.ANSWER_SCHEMA)
    judgement = await ask(
        deps_for(settings).llm,
        f"openai/{MODEL}",
        prompt,
        critic.read_verdict,
        settings=settings,
        max_tokens=64,
        timeout=1.0,
    )
    assert judgement.value is None and judgement.failure == "truncated"
    assert "cut at the 64-token limit (finish reason length)" in judgement.reason


# --- cost ------------------------------------------------------------------------------------


async def test_local_server_costs_energy_from_usage(server: FakeOpenAI) -> None:
    server.script(
        MODEL,
        openai_chat(
            VERDICT,
            prompt_tokens=900,
            completion_tokens=100,
            timings={"prompt_ms": 3600.0, "predicted_ms": 3600.0},
        ),
    )
    settings = settings_for(server, local_model_watts=500.0, electricity_rate_kwh=0.2)
    result = await critic.review(make_draft(), settings, deps_for(settings))
    assert (result.cost.tokens_in, result.cost.tokens_out) == (900, 100)
    # 7.2 s at 500 W = 0.001 kWh, at 0.2 USD/kWh = 0.0002 USD; no per-token price on our hardware.
    assert result.cost.kwh == pytest.approx(0.001)
    assert result.cost.usd == pytest.approx(0.0002)
    assert result.cost.model == f"openai/{MODEL}"


def test_hosted_openai_is_priced_per_token() -> None:
    from agents.llm import LLMAnswer, answer_cost

    settings = Settings(openai_base_url="https://api.openai.com/v1")
    cost = answer_cost(LLMAnswer("{}", 10_000, 2_000, 900, "openai/gpt-4o-mini"), settings)
    # 0.15 USD/Mtok in, 0.60 out -> 0.0015 + 0.0012.
    assert cost.usd == pytest.approx(0.0027) and cost.kwh == 0.0
    unknown = answer_cost(LLMAnswer("{}", 1_000_000, 0, 900, "openai/gpt-9"), settings)
    assert unknown.usd == pytest.approx(15.0)  # the dearest in the table: never under-counted


async def test_thinking_budget_applies_to_openai_models(server: FakeOpenAI) -> None:
    settings = settings_for(server)
    router = deps_for(settings).llm
    budget = await token_budget(router, "openai/qwen3:8b", settings, standard=100, thinking=900)
    assert budget == 900
    assert (
        await token_budget(router, f"openai/{MODEL}", settings, standard=100, thinking=900) == 100
    )


# --- fallback chain ----------------------------------------------------------------------------


async def test_a_model_the_server_does_not_list_falls_back_with_an_audit_row(
    server: FakeOpenAI,
) -> None:
    settings = settings_for(
        server, pipeline_critic_model="openai/gpt-4o", qa_fallback_critic_model=f"openai/{MODEL}"
    )
    deps = deps_for(settings)
    result = await critic.review(make_draft(), settings, deps)
    assert result.status is ReviewStatus.OK and result.score == 82.0
    assert "does not serve gpt-4o" in result.feedback
    assert isinstance(deps.audit, AuditRecorder)
    [(kind, payload)] = deps.audit.events
    assert kind == "critic_fallback" and payload["fallback"] == f"openai/{MODEL}"
    assert [b["model"] for b in server.chats()] == [MODEL]  # gpt-4o was never asked


# --- bad input: one clear skipped result each; a configuration that cannot work is an error ----
# (issue 12: a missing or refused key, a bad URL or model id keeps the draft from approval)


async def test_html_200_is_a_skipped_critic_with_the_reason(server: FakeOpenAI) -> None:
    server.defaults[MODEL] = Reply(200, b"<html><body>proxy login</body></html>", "text/html")
    settings = settings_for(server)
    result = await critic.review(make_draft(), settings, deps_for(settings))
    assert result.status is ReviewStatus.SKIPPED
    assert "not a chat completion (HTML)" in result.feedback


async def test_a_score_of_150_is_refused_not_clamped(server: FakeOpenAI) -> None:
    server.defaults[MODEL] = openai_chat({**VERDICT, "quality_score": 150})
    settings = settings_for(server)
    result = await critic.review(make_draft(), settings, deps_for(settings))
    assert result.status is ReviewStatus.SKIPPED
    assert "quality_score 150 is outside 0-100" in result.feedback


async def test_a_model_id_without_provider_is_an_error_saying_how_to_write(
    server: FakeOpenAI,
) -> None:
    settings = settings_for(server, pipeline_critic_model="qwen2.5:7b", qa_gate_model="gpt-4o")
    deps = deps_for(settings)
    result = await critic.review(make_draft(), settings, deps)
    assert result.status is ReviewStatus.ERROR
    assert "'qwen2.5:7b' names no provider; write provider/model" in result.feedback
    gate = await review_consistency(make_draft(), settings, deps)
    assert gate.status is ReviewStatus.ERROR and "'gpt-4o' names no provider" in gate.feedback
    assert server.chats() == []


@pytest.mark.parametrize(
    ("changes", "needle"),
    [
        pytest.param(
            {"openai_base_url": "http://127.0.0.1:9/v1/chat/completions"},
            "names an endpoint",
            id="openai-endpoint-path",
        ),
        pytest.param(
            {
                "pipeline_critic_model": "ollama/gemma3:27b",
                "ollama_base_url": "http://127.0.0.1:11434/api",
            },
            "has a path (/api)",
            id="ollama-path",
        ),
        pytest.param(
            {"openai_base_url": "http://user:sk-secret-123@127.0.0.1:9/v1"},
            "carries credentials",
            id="credentials-in-url",
        ),
    ],
)
async def test_a_base_url_that_cannot_work_is_an_error_with_the_reason(
    changes: dict[str, Any], needle: str
) -> None:
    settings = Settings(
        pipeline_critic_model=f"openai/{MODEL}", qa_fallback_critic_model="", **FAST
    ).with_overrides(**changes)
    result = await critic.review(make_draft(), settings, deps_for(settings))
    assert result.status is ReviewStatus.ERROR and needle in result.feedback
    assert "sk-secret-123" not in result.feedback


async def test_an_empty_key_for_the_hosted_api_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "  ")
    settings = Settings(
        openai_base_url="https://api.openai.com/v1",
        pipeline_critic_model="openai/gpt-4o-mini",
        qa_fallback_critic_model="",
        **FAST,
    )
    result = await critic.review(
        make_draft(), settings, Deps(llm=LLMRouter.from_settings(settings))
    )
    assert result.status is ReviewStatus.ERROR
    assert "no OpenAI API key (set OPENAI_API_KEY; it is empty or unset)" in result.feedback


async def test_a_refused_key_never_reaches_feedback_or_logs(
    server: FakeOpenAI, caplog: pytest.LogCaptureFixture
) -> None:
    server.api_key = "sk-the-right-one"
    settings = settings_for(server)
    wrong = "sk-wrong-but-still-secret-4242"
    caplog.set_level(logging.DEBUG)
    result = await critic.review(make_draft(), settings, deps_for(settings, key=wrong))
    assert result.status is ReviewStatus.ERROR
    assert "rejected the API key (HTTP 401)" in result.feedback
    with pytest.raises(LLMUnavailable) as caught:
        await chat(provider(f"{server.url}/v1", key=wrong))
    # The server echoed the key in its 401; none of it reached the reason, the chain or a log.
    assert wrong not in caught.value.reason and caught.value.__cause__ is None
    assert wrong not in result.feedback
    assert wrong not in caplog.text


async def test_the_right_key_is_sent_as_a_bearer_token(server: FakeOpenAI) -> None:
    server.api_key = "sk-the-right-one"
    answer = await chat(provider(f"{server.url}/v1", key="sk-the-right-one"))
    assert answer.tokens_out == 30
    assert server.requests_to("/v1/chat/completions")[0].headers["authorization"] == (
        "Bearer sk-the-right-one"
    )


# --- the audit's additions: the conventions end to end, the parser count where it is read ------


async def test_a_library_user_environment_reaches_an_openai_compatible_server(
    server: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    """OPENAI_BASE_URL and OPENAI_API_KEY alone (no setting, no key argument: what a library
    user's environment holds) reach the server, the key as the bearer token; a setting wins."""
    server.api_key = "sk-from-the-environment"
    monkeypatch.setenv("OPENAI_BASE_URL", f"{server.url}/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-the-environment")
    settings = Settings(
        pipeline_critic_model=f"openai/{MODEL}", qa_fallback_critic_model="", **FAST
    )
    result = await critic.review(make_draft(), settings, Deps())
    assert result.status is ReviewStatus.OK and result.score == 82.0
    (sent,) = server.requests_to("/v1/chat/completions")
    assert sent.headers["authorization"] == "Bearer sk-from-the-environment"

    with FakeOpenAI() as other:
        other.add_model(MODEL, always=openai_chat({**VERDICT, "quality_score": 61}))
        other.api_key = "sk-from-the-environment"
        chosen = settings.with_overrides(openai_base_url=f"{other.url}/v1")
        result = await critic.review(make_draft(), chosen, Deps())
    assert result.score == 61.0  # the setting's server, not the environment's
    assert len(server.requests_to("/v1/chat/completions")) == 1


async def test_a_parser_fallback_reaches_the_cost_row_and_the_metric(
    server: FakeOpenAI, pg_pool: Any
) -> None:
    """The issue: count how often the defensive parser was needed, in a metric and in the cost
    row. A server that ignores the schema and answers in prose: cost_logs.parser_fallbacks and
    multiqa_model_parser_fallbacks_total both say 1."""
    from prometheus_client import REGISTRY

    from agents.base import run_reviewer
    from agents.registry import get_reviewer
    from streams.runtime.db import migrate
    from streams.runtime.observe import record_result
    from streams.runtime.sinks import persist_review

    server.rejects_format = True
    server.defaults[MODEL] = openai_chat(
        'Here you go: {"approved": true, "quality_score": 70, "feedback": "ok"}'
    )
    settings = settings_for(server)
    labels = {"reviewer": "critic", "model": f"openai/{MODEL}"}
    before = REGISTRY.get_sample_value("multiqa_model_parser_fallbacks_total", labels) or 0.0
    draft = make_draft(draft_id="d-parser")
    result = await run_reviewer(get_reviewer("critic"), draft, settings, deps_for(settings))
    assert result.status is ReviewStatus.OK and result.cost.parser_fallbacks == 1
    await migrate(pg_pool)
    assert await persist_review(pg_pool, result)
    row = await pg_pool.fetchrow(
        "SELECT parser_fallbacks, model FROM cost_logs WHERE draft_id = 'd-parser'"
    )
    assert (row["parser_fallbacks"], row["model"]) == (1, f"openai/{MODEL}")
    record_result(result)
    after = REGISTRY.get_sample_value("multiqa_model_parser_fallbacks_total", labels)
    assert after == before + 1
