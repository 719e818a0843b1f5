"""Review every draft of a corpus in-process, with the same MultiModelQA the library offers.

Validator-only by default (no network, deterministic); `reviewers=None` runs every reviewer the
registry has, as configured by the settings (LLM reviewers need their model servers).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agents.evaluation._corpus import Case, Corpus
from agents.settings import Settings
from schemas.records import Finding, QADecision

if TYPE_CHECKING:  # agents.qa imports every reviewer: only when a review actually runs
    from agents.base import Deps
    from agents.qa import MultiModelQA

APPROVED, REVIEW, REJECTED, ERROR = "approved", "review", "rejected", "error"

Progress = Callable[[int, int, Case], None]


@dataclass(frozen=True)
class ReviewerFinding:
    reviewer: str
    finding: Finding


@dataclass(frozen=True)
class Outcome:
    case: Case
    decision: str  # approved, review, rejected, or error (the review itself failed)
    final_score: float = 0.0
    findings: tuple[ReviewerFinding, ...] = ()
    vetoes: tuple[str, ...] = ()
    families: frozenset[str] = frozenset()  # rule families of the validator's findings
    reviews: tuple[tuple[str, str, float], ...] = ()  # (reviewer, status, score)
    error: str = ""

    @property
    def caught(self) -> bool:
        """A clean draft is right when approved; a draft with a defect when it got the expected
        decision AND a rule of its labelled family fired (a rejection for another reason is
        luck, not recall)."""
        if self.case.clean:
            return self.decision == APPROVED
        return self.decision == self.case.expected and self.case.family in self.families


def decision_of(decision: QADecision) -> str:
    """approved / review / rejected as a publisher sees it: a draft held for a human is neither
    published nor sent back, unless it was short-circuited by a validator critical."""
    if decision.needs_human_review and not decision.short_circuited:
        return REVIEW
    return APPROVED if decision.approved else REJECTED


class _FixedSettings:
    def __init__(self, settings: Settings) -> None:
        self._settings = settings

    async def get(self) -> Settings:
        return self._settings


async def run_eval(
    corpus: Corpus,
    settings: Settings,
    *,
    all_reviewers: bool = False,
    rule_families: Mapping[str, str] | None = None,
    progress: Progress | None = None,
    deps: Deps | None = None,
) -> list[Outcome]:
    """Review each case; one Outcome per case, in corpus order. Never raises for one draft: a
    review that fails is an `error` outcome (which the report counts against the targets)."""
    from agents.base import Deps, ReviewerSpec
    from agents.qa import MultiModelQA
    from agents.reviewers.validator import SPECS, rules

    families = (
        dict(rule_families) if rule_families is not None else {r.code: r.family for r in rules()}
    )
    reviewers: Sequence[ReviewerSpec] | None = None if all_reviewers else SPECS
    if not all_reviewers:
        # Only the validator is deployed on purpose: no other reviewer is required (qa_required_to
        # _pass names urls by default, which would reject every draft as "not deployed").
        settings = settings.with_overrides(qa_required_to_pass="")
    qa = MultiModelQA(
        None,
        _FixedSettings(settings),
        deps=deps if deps is not None else Deps(),
        reviewers=reviewers,
    )
    outcomes: list[Outcome] = []
    total = len(corpus.cases)
    for index, case in enumerate(corpus.cases):
        outcomes.append(await _review_one(qa, case, families))
        if progress is not None:
            progress(index + 1, total, case)
    return outcomes


async def _review_one(qa: MultiModelQA, case: Case, families: Mapping[str, str]) -> Outcome:
    try:
        result = await qa.review(case.title, case.content, draft_id=f"eval:{case.name}")
    except Exception as exc:  # one draft's failure is reported, the others still run
        return Outcome(case, ERROR, error=f"{type(exc).__name__}: {exc}")
    found = tuple(
        ReviewerFinding(review.reviewer, finding)
        for review in result.reviews
        for finding in review.findings
    )
    return Outcome(
        case=case,
        decision=decision_of(result.decision),
        final_score=result.final_score,
        findings=found,
        vetoes=result.vetoes,
        families=frozenset(
            families[f.finding.code]
            for f in found
            if f.reviewer == "validator" and f.finding.code in families
        ),
        reviews=tuple((r.reviewer, str(r.status), r.score) for r in result.reviews),
    )
