"""The consistency gate (provider `consistency_gate`): does the draft contradict itself (numbers,
claims, recommendations)? Advisory: the aggregation vetoes only when
0 < score < `qa_consistency_veto_threshold`.

Its prompt, answer schema and reader are here; the model call it shares with topic_delivery is
agents/reviewers/_text_gate.py. No verdict means status skipped with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agents.base import Deps, ReviewerSpec
from agents.llm import Prompt, fence_data, read_bool, read_list, read_score, read_text, window
from agents.llm import answer_schema as S
from agents.reviewers._text_gate import ANSWER_RULE, PROVIDER, judge
from agents.settings import Settings
from schemas.records import DraftSubmitted, Finding, ReviewerResult, Severity

CONSISTENCY_CHARS = 10_000

# The answer's schema beside its reader. Bounds keep a whole answer inside qa_gate_max_tokens
# (600): 8 contradictions of 240 characters are about 500 tokens.
MAX_CONTRADICTIONS = 8
CONTRADICTION_CHARS = 240
CONSISTENCY_SCHEMA: dict[str, Any] = S.answer_object(
    consistent=S.flag(),
    score=S.score(),
    contradictions=S.items(S.text(CONTRADICTION_CHARS), MAX_CONTRADICTIONS),
)


@dataclass(frozen=True, slots=True)
class ConsistencyVerdict:
    consistent: bool
    score: float
    contradictions: tuple[str, ...]


def read_consistency(answer: dict[str, Any]) -> ConsistencyVerdict:
    items = read_list(answer, "contradictions", limit=MAX_CONTRADICTIONS)
    return ConsistencyVerdict(
        consistent=read_bool(answer, "consistent"),
        score=read_score(answer, "score"),
        contradictions=tuple(
            read_text({"c": item}, "c", limit=CONTRADICTION_CHARS) for item in items
        ),
    )


def consistency_prompt(draft: DraftSubmitted) -> Prompt:
    fenced = fence_data(
        [("TITLE", draft.title), ("CONTENT", window(draft.content, CONSISTENCY_CHARS))]
    )
    system = (
        "You check an article for internal contradictions: two statements of the article that "
        "cannot both be true (different numbers for the same thing, a recommendation and its "
        "opposite, a claim and a later denial). Outside facts and style are not your concern. "
        f"{fenced.rules} {ANSWER_RULE} "
        '{"consistent": true or false, "score": 0-100 (100 = no contradictions), '
        '"contradictions": ["quote A vs quote B", ...]}'
    )
    user = f"Check this article for internal contradictions.\n\n{fenced.block}"
    return Prompt(system=system, user=user, schema=CONSISTENCY_SCHEMA)


async def review_consistency(
    draft: DraftSubmitted, settings: Settings, deps: Deps
) -> ReviewerResult:
    outcome = await judge(
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
        PROVIDER,
        findings=findings,
        cost=cost,
    )


SPECS: tuple[ReviewerSpec, ...] = (
    ReviewerSpec(
        "consistency",
        PROVIDER,
        review_consistency,
        lambda s: s.qa_consistency_enabled,
        paid=True,
    ),
)
