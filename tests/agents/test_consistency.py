"""The consistency and topic-delivery gates against the fake Ollama: verdicts, the single retry,
skips with reasons, and the bad answers of the issue."""

from __future__ import annotations

from typing import Any

import pytest

from agents.base import Deps, is_not_applicable
from agents.llm import LLMRouter
from agents.reviewers.consistency import SPECS as CONSISTENCY_SPECS
from agents.reviewers.consistency import review_consistency
from agents.reviewers.topic_delivery import SPECS as TOPIC_DELIVERY_SPECS
from agents.reviewers.topic_delivery import review_topic_delivery
from agents.settings import Settings
from schemas.records import Provider, ReviewStatus, Severity
from tests.agents.fakes import FakeOllama, ollama_chat, ollama_error
from tests.helpers.drafts import make_draft
from tests.helpers.http import Reply
from tests.helpers.ports import closed_port_url

MODEL = "gemma3:27b"
CONSISTENT = {"consistent": True, "score": 92, "contradictions": []}
CONTRADICTS = {
    "consistent": False,
    "score": 40,
    "contradictions": ['"brew at 92C" vs "never above 85C"', {"a": "2 cups", "b": "3 cups"}],
}
DELIVERS = {"delivers": True, "score": 88, "reason": "It walks through every step."}


async def test_consistent_draft(
    fake_ollama: FakeOllama, llm_settings: Settings, llm_deps: Deps
) -> None:
    fake_ollama.add_model(MODEL, always=ollama_chat(CONSISTENT, duration_ms=3600))
    result = await review_consistency(make_draft(), llm_settings, llm_deps)
    assert (result.status, result.approved, result.score) == (ReviewStatus.OK, True, 92.0)
    assert result.provider is Provider.CONSISTENCY_GATE
    assert result.findings == ()
    assert result.cost.kwh == pytest.approx(3.6 / 3600 * 0.35)
    (sent,) = fake_ollama.chats(MODEL)
    assert sent["format"]["required"] == ["consistent", "score", "contradictions"]
    assert sent["options"]["num_predict"] == llm_settings.qa_gate_max_tokens


async def test_contradictions_become_findings_and_low_score_disapproves(
    fake_ollama: FakeOllama, llm_settings: Settings, llm_deps: Deps
) -> None:
    fake_ollama.add_model(MODEL, always=ollama_chat(CONTRADICTS))
    result = await review_consistency(make_draft(), llm_settings, llm_deps)
    assert (result.status, result.approved, result.score) == (ReviewStatus.OK, False, 40.0)
    assert [f.code for f in result.findings] == ["contradiction", "contradiction"]
    assert all(f.severity is Severity.WARNING for f in result.findings)
    assert "brew at 92C" in result.feedback and "2 cups" in result.feedback
    assert result.veto is None  # the aggregation owns the veto rule


async def test_consistency_sees_only_the_first_10000_chars(
    fake_ollama: FakeOllama, llm_settings: Settings, llm_deps: Deps
) -> None:
    fake_ollama.add_model(MODEL, always=ollama_chat(CONSISTENT))
    fake_ollama.add_model("other:1b", always=ollama_chat(DELIVERS))
    content = "\n\n".join(f"P{i} " + "x" * 990 for i in range(30))  # ~30,000 chars
    await review_consistency(make_draft(content=content), llm_settings, llm_deps)
    user = fake_ollama.chats(MODEL)[0]["messages"][1]["content"]
    assert "P8 " in user and "P11 " not in user
    settings = llm_settings.with_overrides(qa_gate_model="ollama/other:1b")
    await review_topic_delivery(make_draft(content=content), settings, llm_deps)
    user = fake_ollama.chats("other:1b")[0]["messages"][1]["content"]
    assert "P4 " in user and "P7 " not in user  # first 6,000 chars


async def test_topic_delivery(
    fake_ollama: FakeOllama, llm_settings: Settings, llm_deps: Deps
) -> None:
    fake_ollama.add_model(MODEL, always=ollama_chat(DELIVERS))
    result = await review_topic_delivery(make_draft(), llm_settings, llm_deps)
    assert (result.status, result.approved, result.score) == (ReviewStatus.OK, True, 88.0)
    assert result.feedback == DELIVERS["reason"]
    user = fake_ollama.chats(MODEL)[0]["messages"][1]["content"]
    assert "pour-over coffee brewing" in user  # the topic is shown, inside the fence


async def test_topic_delivery_without_a_topic_is_not_applicable(
    fake_ollama: FakeOllama, llm_settings: Settings, llm_deps: Deps
) -> None:
    """It used to ask the model even when the draft had no topic."""
    fake_ollama.add_model(MODEL, always=ollama_chat(DELIVERS))
    for topic in ("", "   "):
        result = await review_topic_delivery(make_draft(topic=topic), llm_settings, llm_deps)
        assert is_not_applicable(result)
        assert result.feedback == "not applicable: the draft has no topic"
    assert fake_ollama.chats() == []


async def test_topic_not_delivered(
    fake_ollama: FakeOllama, llm_settings: Settings, llm_deps: Deps
) -> None:
    answer = {"delivers": False, "score": 30, "reason": "Promises 10 tips, gives 3."}
    fake_ollama.add_model(MODEL, always=ollama_chat(answer))
    result = await review_topic_delivery(make_draft(), llm_settings, llm_deps)
    assert (result.approved, result.score) == (False, 30.0)
    assert [f.code for f in result.findings] == ["topic_not_delivered"]


@pytest.mark.parametrize(
    "first",
    [
        pytest.param(ollama_error(500, "loading model"), id="500"),
        pytest.param(Reply(hang=True), id="never-answers"),
        pytest.param(ollama_chat({**CONSISTENT, "score": 150}), id="score-150"),
        pytest.param(ollama_chat('{"consistent": tr'), id="broken-json"),
    ],
)
async def test_one_retry_after_a_failure(
    fake_ollama: FakeOllama, llm_settings: Settings, llm_deps: Deps, first: Reply
) -> None:
    fake_ollama.add_model(MODEL, always=ollama_chat(CONSISTENT))
    fake_ollama.script(MODEL, first)
    result = await review_consistency(make_draft(), llm_settings, llm_deps)
    assert (result.status, result.score) == (ReviewStatus.OK, 92.0)
    assert len(fake_ollama.chats(MODEL)) == 2


@pytest.mark.parametrize(
    ("reply", "why"),
    [
        pytest.param(ollama_error(500, "boom"), "HTTP 500", id="500"),
        pytest.param(ollama_chat({**DELIVERS, "score": 150}), "outside 0-100", id="score-150"),
        pytest.param(ollama_chat({**DELIVERS, "score": "ninety"}), "not a number", id="ninety"),
        pytest.param(ollama_chat("x" * (10 * 1024 * 1024)), "bytes", id="10MB"),
        pytest.param(ollama_chat("```json\n{\n```"), "no JSON object", id="fenced-broken"),
    ],
)
async def test_two_failures_skip_with_the_reason(
    fake_ollama: FakeOllama, llm_settings: Settings, llm_deps: Deps, reply: Reply, why: str
) -> None:
    fake_ollama.add_model(MODEL, always=reply)
    result = await review_topic_delivery(make_draft(), llm_settings, llm_deps)
    assert result.status is ReviewStatus.SKIPPED
    assert result.feedback.startswith("topic_delivery skipped:")
    assert why in result.feedback
    assert len(fake_ollama.chats(MODEL)) == 2


async def test_ollama_unreachable_skips_every_gate_after_one_health_check(
    fake_ollama: FakeOllama, llm_settings: Settings, llm_deps: Deps
) -> None:
    fake_ollama.tags_reply = Reply(hang=True)
    results = [
        await review_consistency(make_draft(), llm_settings, llm_deps),
        await review_topic_delivery(make_draft(), llm_settings, llm_deps),
    ]
    for result in results:
        assert result.status is ReviewStatus.SKIPPED
        assert "Ollama not available or health check timed out after 0.5s" in result.feedback
    assert len(fake_ollama.requests_to("/api/tags")) == 1
    assert fake_ollama.chats() == []


async def test_refused_connection_skips(llm_settings: Settings) -> None:
    settings = llm_settings.with_overrides(ollama_base_url=closed_port_url())
    result = await review_consistency(
        make_draft(), settings, Deps(llm=LLMRouter.from_settings(settings))
    )
    assert result.status is ReviewStatus.SKIPPED
    assert "Ollama not available" in result.feedback


async def test_gate_model_and_thinking_budget(
    fake_ollama: FakeOllama, llm_settings: Settings, llm_deps: Deps
) -> None:
    fake_ollama.add_model("qwen3:8b", always=ollama_chat(CONSISTENT))
    settings = llm_settings.with_overrides(qa_gate_model="ollama/qwen3:8b")
    result = await review_consistency(make_draft(), settings, llm_deps)
    assert result.status is ReviewStatus.OK
    (sent,) = fake_ollama.chats("qwen3:8b")
    assert sent["options"]["num_predict"] == settings.qa_thinking_model_max_tokens


def test_specs() -> None:
    specs = (*CONSISTENCY_SPECS, *TOPIC_DELIVERY_SPECS)
    assert [s.name for s in specs] == ["consistency", "topic_delivery"]
    off = Settings(qa_consistency_enabled=False, qa_topic_delivery_enabled=False)
    for spec in specs:
        assert spec.provider is Provider.CONSISTENCY_GATE
        assert spec.enabled(Settings()) and not spec.enabled(off)


@pytest.mark.timeout(20)
@pytest.mark.parametrize(
    "gate", [review_consistency, review_topic_delivery], ids=lambda g: g.__name__
)
@pytest.mark.parametrize(
    ("reply", "why"),
    [
        pytest.param(Reply(hang=True), "did not answer within", id="never-answers"),
        pytest.param(
            ollama_chat({**CONSISTENT, **DELIVERS, "score": 150}), "outside 0-100", id="150"
        ),
        pytest.param(
            ollama_chat({**CONSISTENT, **DELIVERS, "score": "ninety"}), "not a number", id="ninety"
        ),
        pytest.param(ollama_chat("x" * (10 * 1024 * 1024)), "bytes", id="10MB"),
    ],
)
async def test_every_bad_answer_twice_skips_either_gate_with_the_reason(
    fake_ollama: FakeOllama,
    llm_settings: Settings,
    llm_deps: Deps,
    gate: Any,
    reply: Reply,
    why: str,
) -> None:
    """The issue's bad answers on both attempts, for both gates: the retry is spent, then a skip
    naming the cause; bounded by the gate timeout and the size limit, never an exception."""
    fake_ollama.add_model(MODEL, always=reply)
    result = await gate(make_draft(), llm_settings, llm_deps)
    assert result.status is ReviewStatus.SKIPPED
    assert (result.score, result.approved) == (0.0, False)
    assert why in result.feedback, result.feedback
    assert len(fake_ollama.chats(MODEL)) == 2
