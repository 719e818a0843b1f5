"""Early decisions are a function of the evidence, never of arrival order (issue 13).

The stream's aggregator calls `agents.aggregate.early_evidence` after every result and decides on
the first answer that is not None; the in-process review uses the same rule. Here every arrival
order of a draft's results is replayed through that rule, and every order must give the same
decision, field for field, as the in-process review of the same draft."""

from __future__ import annotations

import dataclasses
import itertools
from datetime import UTC, datetime

import pytest

from agents.aggregate import build_decision, early_evidence
from agents.base import Deps, ReviewerSpec
from agents.qa import MultiModelQA
from agents.settings import Settings
from schemas import DraftSubmitted, Finding, Provider, ReviewerResult, Severity

AT = datetime(2026, 1, 1, tzinfo=UTC)
PAID = {"critic", "consistency"}


def result(name: str, score: float, *findings: Finding, approved: bool = True) -> ReviewerResult:
    return ReviewerResult(
        name, approved, score, f"{name} {score}", Provider.UNKNOWN, findings=tuple(findings)
    )


CRITICAL = Finding("ai_refusal", Severity.CRITICAL, "refused")
CASES = {
    # A validator critical: certain whatever else says; the paid critic is not counted.
    "short-circuit": [result("validator", 80, CRITICAL), result("critic", 95), result("urls", 90)],
    # A dead link (a free gate's veto): certain once the free reviewers are in.
    "free veto": [
        result("validator", 90),
        result("critic", 95),
        result("consistency", 90),
        result("urls", 0, approved=False),
    ],
    # The critic's low score puts the threshold out of reach (a paid result settles it).
    "out of reach": [result("validator", 70), result("critic", 5), result("urls", 100)],
    # Nothing settles early: every result counts.
    "complete": [
        result("validator", 95),
        result("critic", 88),
        result("consistency", 90),
        result("urls", 100),
    ],
}


def stream_decision(draft: DraftSubmitted, arrivals: list[ReviewerResult]) -> object:
    expected = [r.reviewer for r in CASES_BY_ID[draft.draft_id]]
    settings = Settings()
    seen: list[ReviewerResult] = []
    for r in arrivals:
        seen.append(r)
        evidence = early_evidence(seen, expected, PAID, settings)
        if evidence is not None:
            early = len(evidence) < len(expected)
            return build_decision(
                draft, evidence, settings, expected=expected, decided_at=AT, early=early
            )
    raise AssertionError("never decided")


CASES_BY_ID = {f"d-{name}": results for name, results in CASES.items()}


def spec_for(r: ReviewerResult) -> ReviewerSpec:
    async def review(draft: DraftSubmitted, settings: Settings, deps: Deps) -> ReviewerResult:
        return r

    return ReviewerSpec(r.reviewer, r.provider, review, lambda s: True, paid=r.reviewer in PAID)


@pytest.mark.parametrize("case", sorted(CASES_BY_ID))
async def test_every_arrival_order_gives_the_in_process_decision(case: str) -> None:
    results = CASES_BY_ID[case]
    draft = DraftSubmitted(case, 1, "T", "text")
    reference = (
        await MultiModelQA(None, reviewers=[spec_for(r) for r in results]).review_draft(
            draft, Settings()
        )
    ).decision
    reference = dataclasses.replace(reference, decided_at=AT)
    stamped = [dataclasses.replace(r, draft_id=case, version=1) for r in results]
    decisions = {
        order: stream_decision(draft, list(order)) for order in itertools.permutations(stamped)
    }
    for order, decision in decisions.items():
        assert decision == reference, [r.reviewer for r in order]
