"""The topic-delivery gate (provider `consistency_gate`): does the draft deliver what its title
and topic promise? Not applicable when the draft has no topic.

Its prompt, answer schema and reader are here; the model call it shares with consistency is
agents/reviewers/_text_gate.py. No verdict means status skipped with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agents.base import Deps, ReviewerSpec, not_applicable
from agents.llm import Prompt, fence_data, read_bool, read_score, read_text, window
from agents.llm import answer_schema as S
from agents.reviewers._text_gate import ANSWER_RULE, PROVIDER, judge
from agents.settings import Settings
from schemas.records import DraftSubmitted, Finding, ReviewerResult, Severity

TOPIC_DELIVERY_CHARS = 6_000

# The answer's schema beside its reader (bounded: see agents.llm.answer_schema).
REASON_CHARS = 600
TOPIC_DELIVERY_SCHEMA: dict[str, Any] = S.answer_object(
    delivers=S.flag(), score=S.score(), reason=S.text(REASON_CHARS)
)


@dataclass(frozen=True, slots=True)
class DeliveryVerdict:
    delivers: bool
    score: float
    reason: str


def read_delivery(answer: dict[str, Any]) -> DeliveryVerdict:
    return DeliveryVerdict(
        delivers=read_bool(answer, "delivers"),
        score=read_score(answer, "score"),
        reason=read_text(answer, "reason", limit=REASON_CHARS),
    )


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
        f"quality and facts are not your concern. {fenced.rules} {ANSWER_RULE} "
        '{"delivers": true or false, "score": 0-100, "reason": "one or two sentences"}'
    )
    user = f"Does this article deliver what its title and topic promise?\n\n{fenced.block}"
    return Prompt(system=system, user=user, schema=TOPIC_DELIVERY_SCHEMA)


async def review_topic_delivery(
    draft: DraftSubmitted, settings: Settings, deps: Deps
) -> ReviewerResult:
    if not draft.topic.strip():
        # The gate compares the article with the topic it was written for; without one there
        # is nothing to compare (the seed skips it too), and asking the model would only score
        # the title against itself.
        return not_applicable("topic_delivery", PROVIDER, "the draft has no topic")
    outcome = await judge(
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
        PROVIDER,
        findings=findings,
        cost=cost,
    )


SPECS: tuple[ReviewerSpec, ...] = (
    ReviewerSpec(
        "topic_delivery",
        PROVIDER,
        review_topic_delivery,
        lambda s: s.qa_topic_delivery_enabled,
        paid=True,
    ),
)
