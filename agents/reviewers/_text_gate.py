"""What the two LLM gates on the draft's text (consistency, topic_delivery; provider
`consistency_gate`) share: the model they ask (`qa_gate_model`, default the critic's), its output
budget (`qa_gate_max_tokens`; thinking models get `qa_thinking_model_max_tokens`), one call with
`qa_gate_timeout_seconds` and one retry after `qa_gate_retry_backoff_seconds`, and what a call
without a verdict becomes: skipped with the reason, or an error when the model cannot work as
configured (fail closed). Each gate's prompt, answer schema and reader live in its own module.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, TypeVar

from agents.base import Deps, errored, skipped
from agents.llm import Prompt, ask, model_unusable, router_for, token_budget
from agents.settings import Settings
from schemas.records import Cost, DraftSubmitted, Provider, ReviewerResult

log = logging.getLogger(__name__)
T = TypeVar("T")

PROVIDER = Provider.CONSISTENCY_GATE
ANSWER_RULE = "Answer with one JSON object only, nothing before or after it."


def gate_model(settings: Settings) -> str:
    return settings.qa_gate_model.strip() or settings.pipeline_critic_model


async def judge(
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
            return errored(name, PROVIDER, reason[:2000], cost=Cost(model=model))
        why = unusable.reason
        log.warning("[%s] %s v%s skipped: %s", name, draft.draft_id, draft.version, why)
        return skipped(name, PROVIDER, f"{name} skipped: {why}", cost=Cost(model=model))
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
            return errored(name, PROVIDER, reason[:2000], cost=judgement.cost)
        reason = f"{name} skipped: {judgement.reason}"
        log.warning("[%s] %s v%s: %s", name, draft.draft_id, draft.version, reason)
        return skipped(name, PROVIDER, reason[:2000], cost=judgement.cost)
    return judgement.value, judgement.cost
