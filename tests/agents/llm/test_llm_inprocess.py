"""The LLM reviewers inside the in-process review (MultiModelQA), against the fake Ollama: a full
decision with critic and gates, and the validator-only decision when Ollama is down."""

from __future__ import annotations

from agents.base import Deps
from agents.qa import MultiModelQA
from agents.registry import all_reviewers
from agents.settings import Settings
from tests.agents.fakes import FakeOllama, ollama_chat
from tests.helpers.http import Reply, Seen

LLM_REVIEWERS = {"critic", "consistency", "topic_delivery"}
CONTENT = (
    "## Grind\n\nUse a medium-fine grind, about the texture of table salt. A burr grinder gives "
    "an even size, which keeps the extraction even.\n\n## Bloom\n\nWet the grounds with twice "
    "their weight in water and wait thirty seconds so the gas escapes.\n\n## Pour\n\nPour in "
    "slow circles until the scale reads 250 grams, then let it drain for about a minute."
)


class FixedSettings:
    def __init__(self, settings: Settings) -> None:
        self.value = settings

    async def get(self) -> Settings:
        return self.value


def qa_with(settings: Settings, deps: Deps) -> MultiModelQA:
    specs = [s for s in all_reviewers() if s.name in LLM_REVIEWERS | {"validator"}]
    # Only these reviewers run, so none of the others may be required (urls is by default).
    settings = settings.with_overrides(qa_required_to_pass="")
    return MultiModelQA(None, FixedSettings(settings), deps=deps, reviewers=specs)


async def test_full_review_with_the_llm_reviewers(
    fake_ollama: FakeOllama, llm_settings: Settings, llm_deps: Deps
) -> None:
    def by_schema(seen: Seen) -> Reply:
        required = seen.json()["format"]["required"]
        if "quality_score" in required:
            return ollama_chat({"approved": True, "quality_score": 85, "feedback": "Good."})
        if "consistent" in required:
            return ollama_chat({"consistent": True, "score": 90, "contradictions": []})
        return ollama_chat({"delivers": True, "score": 80, "reason": "Covers the steps."})

    fake_ollama.add_model("gemma3:27b", always=by_schema)
    qa = qa_with(llm_settings, llm_deps)
    result = await qa.review("How to brew pour-over coffee", CONTENT, topic="coffee")
    statuses = {r.reviewer: r.status for r in result.reviews}
    assert statuses == dict.fromkeys(LLM_REVIEWERS | {"validator"}, "ok")
    assert result.approved and not result.critic_skipped
    critic = next(r for r in result.reviews if r.reviewer == "critic")
    assert critic.cost.kwh > 0 and critic.draft_id == result.decision.draft_id
    assert len(fake_ollama.chats()) == 3


async def test_ollama_down_means_validator_only(
    fake_ollama: FakeOllama, llm_settings: Settings, llm_deps: Deps
) -> None:
    fake_ollama.tags_reply = Reply(hang=True)  # the health check times out
    settings = llm_settings.with_overrides(qa_fallback_critic_model="ollama/gemma3:27b")
    qa = qa_with(settings, llm_deps)
    result = await qa.review("How to brew pour-over coffee", CONTENT, topic="coffee")
    skipped = {r.reviewer: r.feedback for r in result.reviews if r.status == "skipped"}
    assert set(skipped) == LLM_REVIEWERS
    assert all("Ollama not available" in reason for reason in skipped.values())
    assert result.critic_skipped
    validator = next(r for r in result.reviews if r.reviewer == "validator")
    assert result.final_score == validator.score  # validator-only mode
    # The reviewers ran concurrently and shared one health check.
    assert len(fake_ollama.requests_to("/api/tags")) == 1
    assert fake_ollama.chats() == []
