"""LLM gates on the draft's text (provider `consistency_gate`).

- consistency: does the draft contradict itself (numbers, claims, recommendations)? Advisory: the
  aggregation vetoes only when 0 < score < `qa_consistency_veto_threshold`.
- topic_delivery: does the draft deliver what its title and topic promise? Not applicable when
  the draft has no topic.

Both use `qa_gate_model` (default: the critic's model), `qa_gate_max_tokens` (thinking models get
`qa_thinking_model_max_tokens`), `qa_gate_timeout_seconds`, and one retry after
`qa_gate_retry_backoff_seconds`. No verdict means status skipped with the reason.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from agents.base import Deps, ReviewerSpec, errored, not_applicable, skipped
from agents.llm import (
    Prompt,
    ask,
    fence_data,
    model_unusable,
    read_bool,
    read_list,
    read_score,
    read_text,
    router_for,
    token_budget,
    window,
)
from agents.llm import answer_schema as S
from agents.settings import Settings
from schemas.records import Cost, DraftSubmitted, Finding, Provider, ReviewerResult, Severity

log = logging.getLogger(__name__)
T = TypeVar("T")

CONSISTENCY_CHARS = 10_000
TOPIC_DELIVERY_CHARS = 6_000
_PROVIDER = Provider.CONSISTENCY_GATE

# Each answer's schema beside its reader. Bounds keep a whole answer inside qa_gate_max_tokens
# (600): 8 contradictions of 240 characters are about 500 tokens.
MAX_CONTRADICTIONS = 8
CONTRADICTION_CHARS = 240
REASON_CHARS = 600
CONSISTENCY_SCHEMA: dict[str, Any] = S.answer_object(
    consistent=S.flag(),
    score=S.score(),
    contradictions=S.items(S.text(CONTRADICTION_CHARS), MAX_CONTRADICTIONS),
)
TOPIC_DELIVERY_SCHEMA: dict[str, Any] = S.answer_object(
    delivers=S.flag(), score=S.score(), reason=S.text(REASON_CHARS)
)


@dataclass(frozen=True, slots=True)
class ConsistencyVerdict:
    consistent: bool
    score: float
    contradictions: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class DeliveryVerdict:
    delivers: bool
    score: float
    reason: str


def read_consistency(answer: dict[str, Any]) -> ConsistencyVerdict:
    items = read_list(answer, "contradictions", limit=MAX_CONTRADICTIONS)
    return ConsistencyVerdict(
        consistent=read_bool(answer, "consistent"),
        score=read_score(answer, "score"),
        contradictions=tuple(
            read_text({"c": item}, "c", limit=CONTRADICTION_CHARS) for item in items
        ),
    )


def read_delivery(answer: dict[str, Any]) -> DeliveryVerdict:
    return DeliveryVerdict(
        delivers=read_bool(answer, "delivers"),
        score=read_score(answer, "score"),
        reason=read_text(answer, "reason", limit=REASON_CHARS),
    )


def gate_model(settings: Settings) -> str:
    return settings.qa_gate_model.strip() or settings.pipeline_critic_model


_ANSWER_RULE = "Answer with one JSON object only, nothing before or after it."


def consistency_prompt(draft: DraftSubmitted) -> Prompt:
    fenced = fence_data(
        [("TITLE", draft.title), ("CONTENT", window(draft.content, CONSISTENCY_CHARS))]
    )
    system = (
        "You check an article for internal contradictions: two statements of the article that "
        "cannot both be true (different numbers for the same thing, a recommendation and its "
        "opposite, a claim and a later denial). Outside facts and style are not your concern. "
        f"{fenced.rules} {_ANSWER_RULE} "
        '{"consistent": true or false, "score": 0-100 (100 = no contradictions), '
        '"contradictions": ["quote A vs quote B", ...]}'
    )
    user = f"Check this article for internal contradictions.\n\n{fenced.block}"
    return Prompt(system=system, user=user, schema=CONSISTENCY_SCHEMA)


def topic_delivery_prompt(draft: DraftSubmitted) -> Prompt:
    fenced = fence_data(
        [
            ("TITLE", draft.title),
            ("TOPIC", draft.topic or "(none given)"),
            ("CONTENT", window(draft.content, TOPIC_DELIVERY_CHARS)),
        ]
    )
    system = (
        "You check whether an article delivers what its title and topic promise (a 'how to' "
        "that shows how, a 'top 10' with ten items, a comparison that compares). Writing "
        f"quality and facts are not your concern. {fenced.rules} {_ANSWER_RULE} "
        '{"delivers": true or false, "score": 0-100, "reason": "one or two sentences"}'
    )
    user = f"Does this article deliver what its title and topic promise?\n\n{fenced.block}"
    return Prompt(system=system, user=user, schema=TOPIC_DELIVERY_SCHEMA)


async def _judge(
    name: str,
    prompt: Prompt,
    read: Callable[[dict[str, Any]], T],
    draft: DraftSubmitted,
    settings: Settings,
    deps: Deps,
) -> tuple[T, Cost] | ReviewerResult:
    """Run one gate call: the verdict and its cost, or a result saying why there is none:
    skipped when the model server does not answer, error when the model cannot work as
    configured (no key, a bad URL, a model the server does not have: fail closed)."""
    router = router_for(deps, settings)
    model = gate_model(settings)
    unusable = await model_unusable(router, model, settings)
    if unusable is not None:
        if unusable.misconfigured:
            log.error("[%s] %s v%s: %s", name, draft.draft_id, draft.version, unusable.reason)
            reason = f"{name} error: misconfigured {model}: {unusable.reason}"
            return errored(name, _PROVIDER, reason[:2000], cost=Cost(model=model))
        why = unusable.reason
        log.warning("[%s] %s v%s skipped: %s", name, draft.draft_id, draft.version, why)
        return skipped(name, _PROVIDER, f"{name} skipped: {why}", cost=Cost(model=model))
    budget = await token_budget(
        router,
        model,
        settings,
        standard=settings.qa_gate_max_tokens,
        thinking=settings.qa_thinking_model_max_tokens,
    )
    judgement = await ask(
        router,
        model,
        prompt,
        read,
        settings=settings,
        max_tokens=budget,
        timeout=settings.qa_gate_timeout_seconds,
        attempts=2,
        backoff=settings.qa_gate_retry_backoff_seconds,
        label=name,
    )
    if judgement.value is None:
        if judgement.failure == "misconfigured":
            reason = f"{name} error: misconfigured {model}: {judgement.reason}"
            log.error("[%s] %s v%s: %s", name, draft.draft_id, draft.version, reason)
            return errored(name, _PROVIDER, reason[:2000], cost=judgement.cost)
        reason = f"{name} skipped: {judgement.reason}"
        log.warning("[%s] %s v%s: %s", name, draft.draft_id, draft.version, reason)
        return skipped(name, _PROVIDER, reason[:2000], cost=judgement.cost)
    return judgement.value, judgement.cost


async def review_consistency(
    draft: DraftSubmitted, settings: Settings, deps: Deps
) -> ReviewerResult:
    outcome = await _judge(
        "consistency", consistency_prompt(draft), read_consistency, draft, settings, deps
    )
    if isinstance(outcome, ReviewerResult):
        return outcome
    verdict, cost = outcome
    findings = tuple(
        Finding("contradiction", Severity.WARNING, text) for text in verdict.contradictions if text
    )
    if verdict.contradictions:
        feedback = "Contradictions: " + "; ".join(verdict.contradictions)
    else:
        feedback = "No internal contradictions found."
    return ReviewerResult(
        "consistency",
        verdict.score >= settings.qa_consistency_veto_threshold,
        verdict.score,
        feedback[:4000],
        _PROVIDER,
        findings=findings,
        cost=cost,
    )


async def review_topic_delivery(
    draft: DraftSubmitted, settings: Settings, deps: Deps
) -> ReviewerResult:
    if not draft.topic.strip():
        # The gate compares the article with the topic it was written for; without one there
        # is nothing to compare (the seed skips it too), and asking the model would only score
        # the title against itself.
        return not_applicable("topic_delivery", _PROVIDER, "the draft has no topic")
    outcome = await _judge(
        "topic_delivery", topic_delivery_prompt(draft), read_delivery, draft, settings, deps
    )
    if isinstance(outcome, ReviewerResult):
        return outcome
    verdict, cost = outcome
    feedback = verdict.reason or (
        "Delivers what the title promises." if verdict.delivers else "Does not deliver."
    )
    findings: tuple[Finding, ...] = ()
    if not verdict.delivers:
        findings = (Finding("topic_not_delivered", Severity.WARNING, feedback[:500]),)
    return ReviewerResult(
        "topic_delivery",
        verdict.delivers,
        verdict.score,
        feedback,
        _PROVIDER,
        findings=findings,
        cost=cost,
    )


SPECS: tuple[ReviewerSpec, ...] = (
    ReviewerSpec(
        "consistency",
        _PROVIDER,
        review_consistency,
        lambda s: s.qa_consistency_enabled,
        paid=True,
    ),
    ReviewerSpec(
        "topic_delivery",
        _PROVIDER,
        review_topic_delivery,
        lambda s: s.qa_topic_delivery_enabled,
        paid=True,
    ),
)
