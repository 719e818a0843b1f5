"""The LLM critic: the reviewer with the most weight, from a model other than the writer's.

Primary model `pipeline_critic_model`, then `qa_fallback_critic_model` when the primary is
unreachable, errors, times out, or answers empty/unparseable; every switch is written to the audit
log as a `critic_fallback` event. A model never grades its own draft: when the writer's model is the
primary the fallback is used, and when it is both the critic skips. No verdict from any model means
status skipped (the model servers are down: the aggregation goes on without the critic), or status
error when a model cannot work as configured (no or a refused API key, a bad base URL, a model
the server does not have): that keeps the draft from approval (fail closed, issue 12).
"""

from __future__ import annotations

import functools
import logging
from dataclasses import dataclass, replace
from typing import Any

from agents.base import Deps, ReviewerSpec, errored, skipped
from agents.llm import (
    Prompt,
    ask,
    fence_data,
    model_ref,
    model_unusable,
    read_bool,
    read_score,
    read_text,
    router_for,
    same_model,
    token_budget,
    total_cost,
    window,
)
from agents.llm import answer_schema as S
from agents.settings import Settings
from schemas.records import Cost, DraftSubmitted, Provider, ReviewerResult

log = logging.getLogger(__name__)

NAME = "critic"
_SOURCE_CHARS = 300

# The critic's answer: its schema (sent as structured output) and its reader, side by side. The
# feedback bound is `qa_critic_feedback_max_chars` (default 2000, ~500 tokens, well inside
# qa_standard_max_tokens): the grammar closes the string there, so even a looping model ends.


def answer_schema(feedback_chars: int) -> dict[str, Any]:
    return S.answer_object(
        approved=S.flag(), quality_score=S.score(), feedback=S.text(feedback_chars)
    )


ANSWER_SCHEMA: dict[str, Any] = answer_schema(Settings().qa_critic_feedback_max_chars)


@dataclass(frozen=True, slots=True)
class CriticVerdict:
    approved: bool
    score: float
    feedback: str


def read_verdict(answer: dict[str, Any], *, feedback_chars: int = 20_000) -> CriticVerdict:
    key = "quality_score" if "quality_score" in answer else "score"
    return CriticVerdict(
        approved=read_bool(answer, "approved"),
        score=read_score(answer, key),
        feedback=read_text(answer, "feedback", limit=feedback_chars),
    )


def build_prompt(draft: DraftSubmitted, settings: Settings, today: str) -> Prompt:
    sources = [s[:_SOURCE_CHARS] for s in draft.research_sources[: settings.qa_critic_max_sources]]
    fenced = fence_data(
        [
            ("TITLE", draft.title),
            ("TOPIC", draft.topic or "(none given)"),
            ("SOURCES", "\n".join(f"- {s}" for s in sources) or "(none given)"),
            ("CONTENT", window(draft.content, settings.qa_critic_max_content_chars)),
        ]
    )
    system = (
        "You are a strict, fair editor reviewing a draft article before publication. "
        f"Today's date is {today}.\n"
        "Judge factual accuracy, internal logic, clarity, usefulness to the reader, and whether "
        "the draft delivers what its title promises.\n"
        "Rules:\n"
        "- For each judgement, quote the exact words of the draft it is about.\n"
        "- A product, person, version or event you do not recognise may be newer than your "
        "knowledge: treat it as outside your knowledge, not as fabricated. Call something false "
        "only when you know it is false.\n"
        "- Judge the draft as written; do not ask for additions or extra sections.\n"
        "- A plan, an outline or a list of headings instead of a finished article scores at "
        "most 25.\n"
        f"- {fenced.rules}\n"
        'Answer with one JSON object only: {"approved": true or false, "quality_score": a number '
        'from 0 to 100, "feedback": "your judgements with quotes"}. approved means ready to '
        "publish as it is."
    )
    user = f"Review this draft.\n\n{fenced.block}\n\nAnswer with the JSON object only."
    return Prompt(
        system=system, user=user, schema=answer_schema(settings.qa_critic_feedback_max_chars)
    )


def _provider(model: str) -> Provider:
    try:
        return Provider(model_ref(model).provider)
    except ValueError:
        return Provider.UNKNOWN


def critic_chain(settings: Settings) -> list[str]:
    """Models to try in order: the primary, then the fallback when it is a different model."""
    primary, fallback = settings.pipeline_critic_model, settings.qa_fallback_critic_model
    chain = [primary]
    if fallback.strip() and not same_model(primary, fallback):
        chain.append(fallback)
    return chain


async def review(draft: DraftSubmitted, settings: Settings, deps: Deps) -> ReviewerResult:
    router = router_for(deps, settings)
    chain = critic_chain(settings)
    writer = draft.writer_model
    if writer and all(same_model(m, writer) for m in chain):
        reason = (
            f"critic skipped: every critic model ({', '.join(chain)}) is the writer's model "
            f"({writer}); a model does not grade its own draft"
        )
        log.warning("[critic] %s v%s: %s", draft.draft_id, draft.version, reason)
        return skipped(NAME, _provider(chain[0]), reason, cost=Cost(model=chain[0]))

    prompt = build_prompt(draft, settings, deps.now().date().isoformat())
    costs: list[Cost] = []
    failures: list[str] = []
    misconfigured: list[str] = []  # models that cannot work as configured (key, URL, not pulled)
    for position, model in enumerate(chain):
        why = ""
        if same_model(model, writer):
            why = f"{model} is the writer's model"
        elif (unusable := await model_unusable(router, model, settings)) is not None:
            why = unusable.reason
            if unusable.misconfigured:
                misconfigured.append(model)
        if not why:
            budget = await token_budget(
                router,
                model,
                settings,
                standard=settings.qa_standard_max_tokens,
                thinking=settings.qa_thinking_model_max_tokens,
            )
            judgement = await ask(
                router,
                model,
                prompt,
                functools.partial(
                    read_verdict, feedback_chars=settings.qa_critic_feedback_max_chars
                ),
                settings=settings,
                max_tokens=budget,
                timeout=settings.qa_critic_timeout_seconds,
                label="critic",
            )
            costs.append(judgement.cost)
            verdict = judgement.value
            if verdict is not None:
                feedback = verdict.feedback or "(the critic gave no feedback text)"
                if failures:
                    feedback = f"[fallback critic {model}; {'; '.join(failures)}] {feedback}"
                return ReviewerResult(
                    NAME,
                    verdict.approved,
                    verdict.score,
                    feedback,
                    _provider(model),
                    cost=total_cost(costs, model=str(model_ref(model))),
                )
            why = judgement.reason
            if judgement.failure == "misconfigured":
                misconfigured.append(model)
        failures.append(f"{model}: {why}")
        if position + 1 < len(chain):
            fallback = chain[position + 1]
            log.warning("[critic] falling back from %s to %s: %s", model, fallback, why)
            await deps.record_audit(
                "critic_fallback",
                {
                    "primary": model,
                    "fallback": fallback,
                    "reason": why,
                    "draft_id": draft.draft_id,
                    "version": draft.version,
                },
            )
    cost = total_cost(costs, model=costs[-1].model) if costs else Cost(model=chain[-1])
    if misconfigured:
        # Fail closed: a model that cannot work as configured is an operator's mistake, not an
        # absent optional service; the draft must not be approved as if the critic were off.
        reason = "critic error: misconfigured " + ", ".join(misconfigured) + ": "
        reason += "; ".join(failures)
        log.error("[critic] %s v%s: %s", draft.draft_id, draft.version, reason)
        return replace(errored(NAME, _provider(chain[-1]), reason[:2000]), cost=cost)
    reason = "critic skipped: " + "; ".join(failures)
    log.warning("[critic] %s v%s: %s", draft.draft_id, draft.version, reason)
    return replace(skipped(NAME, _provider(chain[-1]), reason[:2000]), cost=cost)


def _enabled(settings: Settings) -> bool:
    return settings.qa_critic_enabled


SPECS: tuple[ReviewerSpec, ...] = (
    ReviewerSpec(NAME, Provider.OLLAMA, review, _enabled, paid=True),
)
