"""Fail closed (issue 12): a reviewer that cannot do its job because of its configuration or a
dependency it cannot do without reports `error` with the cause, and the decision is then not
approved and asks for a human. A model server that is simply down stays `skipped` (an optional
service absent, as the seed says). Real clients against the fake servers on 127.0.0.1."""

from __future__ import annotations

from typing import Any

import pytest

from agents.aggregate import aggregate
from agents.base import Deps, not_applicable, run_reviewer
from agents.llm import LLMRouter
from agents.net import GuardedClient
from agents.registry import get_reviewer
from agents.reviewers.consistency import review_consistency
from agents.reviewers.critic import SPECS as CRITIC_SPECS
from agents.reviewers.urls import SPECS as URL_SPECS
from agents.settings import Settings
from schemas.records import Provider, ReviewerResult, ReviewStatus
from tests.agents.fakes import FakeOllama, ollama_chat
from tests.helpers.drafts import make_draft

GOOD = {"approved": True, "quality_score": 92, "feedback": "fine"}
VALIDATOR = ReviewerResult("validator", True, 100.0, "no issues found", Provider.PROGRAMMATIC)
NO_LINKS = not_applicable("urls", Provider.URL_VERIFIER, "no external links to verify")


def decide(*results: ReviewerResult) -> tuple[bool, bool, tuple[str, ...]]:
    outcome = aggregate([VALIDATOR, *results], Settings())
    return outcome.approved, outcome.needs_human_review, outcome.vetoes


async def critic(settings: Settings, deps: Deps) -> ReviewerResult:
    return await run_reviewer(CRITIC_SPECS[0], make_draft(), settings, deps)


async def test_a_critic_model_that_is_not_pulled_is_an_error(
    fake_ollama: FakeOllama, llm_settings: Settings
) -> None:
    fake_ollama.add_model("llama3.1:8b", always=ollama_chat(GOOD))
    settings = llm_settings.with_overrides(qa_fallback_critic_model="")  # gemma3:27b absent
    result = await critic(settings, Deps(llm=LLMRouter.from_settings(settings)))
    assert result.status is ReviewStatus.ERROR
    assert "misconfigured ollama/gemma3:27b" in result.feedback
    assert "not on the Ollama server" in result.feedback and "not found" in result.feedback
    approved, human, vetoes = decide(result, NO_LINKS)
    assert not approved and human and vetoes[0].startswith("critic errored: critic error")
    # A fallback that works is a verdict: the misconfigured primary is named in the feedback.
    settings = llm_settings.with_overrides(qa_fallback_critic_model="ollama/llama3.1:8b")
    result = await critic(settings, Deps(llm=LLMRouter.from_settings(settings)))
    assert result.status is ReviewStatus.OK and "[fallback critic" in result.feedback


async def test_an_anthropic_critic_without_a_key_is_an_error_not_a_skip(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    settings = Settings(
        pipeline_critic_model="anthropic/claude-haiku-4-5", qa_fallback_critic_model=""
    )
    result = await critic(settings, Deps(llm=LLMRouter.from_settings(settings)))
    assert result.status is ReviewStatus.ERROR
    assert "no Anthropic API key" in result.feedback
    assert not decide(result, NO_LINKS)[0]


async def test_a_model_server_that_is_down_is_still_a_skip(llm_settings: Settings) -> None:
    """The seed's behaviour, kept: Ollama unreachable -> the critic skips and the decision goes
    on without it (unless the critic is required)."""
    settings = llm_settings.with_overrides(
        ollama_base_url="http://127.0.0.1:9", qa_fallback_critic_model=""
    )
    result = await critic(settings, Deps(llm=LLMRouter.from_settings(settings)))
    assert result.status is ReviewStatus.SKIPPED and "Ollama not available" in result.feedback
    assert decide(result, NO_LINKS)[0]
    required = Settings(qa_required_to_pass="urls,critic")
    outcome = aggregate([VALIDATOR, result, NO_LINKS], required)
    assert not outcome.approved and outcome.needs_human_review


async def test_a_gate_model_that_is_not_pulled_is_an_error(
    fake_ollama: FakeOllama, llm_settings: Settings
) -> None:
    settings = llm_settings.with_overrides(qa_gate_model="ollama/absent:1b")
    deps = Deps(llm=LLMRouter.from_settings(settings))
    result = await review_consistency(make_draft(), settings, deps)
    assert result.status is ReviewStatus.ERROR
    assert "consistency error: misconfigured ollama/absent:1b" in result.feedback


async def test_a_vision_model_without_vision_is_an_error(
    fake_ollama: FakeOllama, llm_settings: Settings
) -> None:
    fake_ollama.add_model("textonly:1b", "completion")
    settings = llm_settings.with_overrides(
        qa_vision_check_enabled=True, qa_vision_model="ollama/textonly:1b"
    )
    draft = make_draft(content="![mug](https://images.example/mug.png)\n\nA mug.")
    spec = get_reviewer("vision")
    result = await run_reviewer(spec, draft, settings, Deps(llm=LLMRouter.from_settings(settings)))
    assert result.status is ReviewStatus.ERROR and "has no vision capability" in result.feedback


async def test_a_broken_allowlist_blocks_the_draft_it_cannot_check(local_web: Any) -> None:
    """Seen: a broken allowlist made the URL reviewers error on every draft, and a draft linking
    to a dead loopback URL was approved 97. The settings validator refuses such a value when it
    is written; one that reaches a worker anyway (hand-written SQL) errors with the cause, and
    the error keeps the draft from approval."""
    web = local_web()
    broken = Settings(qa_url_allowlist="127.0.0.1,10.0.0.0/33")  # bypasses the write checks
    draft = make_draft(content=f"See [the guide]({web.url_for('/missing')}).")
    result = await run_reviewer(URL_SPECS[0], draft, broken, Deps())
    assert result.status is ReviewStatus.ERROR
    assert "qa_url_allowlist entry '10.0.0.0/33' is not a valid IP or CIDR" in result.feedback
    critic_ok = ReviewerResult("critic", True, 95.0, "fine", Provider.OLLAMA)
    approved, human, vetoes = decide(critic_ok, result)
    assert not approved and human and vetoes[0].startswith("urls errored: ValueError")
    assert web.seen == []  # nothing was fetched with a guard it could not build
    # the same draft with a working allowlist: the dead link is found and vetoes
    fixed = Settings(qa_url_allowlist="127.0.0.1")
    async with GuardedClient(fixed) as http:
        checked = await run_reviewer(URL_SPECS[0], draft, fixed, Deps(http=http))
    assert checked.status is ReviewStatus.OK and checked.veto == "1 dead link"
