"""Re-deciding one decision from the reviews it was made from: the step `multiqa rescore` runs
for every decision, in one process (streams.cli.replay) or in several (streams.cli.replay_jobs)."""

from __future__ import annotations

from dataclasses import dataclass

from agents.aggregate import build_decision
from agents.settings import Settings
from schemas import DraftSubmitted, QADecision, ReviewerResult


@dataclass(frozen=True)
class Rescored:
    original: QADecision
    rescored: QADecision | None  # None: the evidence is incomplete (see `problem`)
    problem: str = ""

    @property
    def flipped(self) -> bool:
        return self.rescored is not None and self.rescored.approved != self.original.approved

    @property
    def score_delta(self) -> float:
        if self.rescored is None:
            return 0.0
        return self.rescored.final_score - self.original.final_score


def rescore_one(
    original: QADecision,
    by_version: dict[tuple[str, int], list[ReviewerResult]],
    settings: Settings,
) -> Rescored:
    counted = [r.reviewer for r in original.reviews]
    evidence: list[ReviewerResult] = []
    found: set[str] = set()
    for review in by_version.get((original.draft_id, original.version), ()):
        if review.reviewer in counted and review.reviewer not in found:
            evidence.append(review)
            found.add(review.reviewer)
    missing = sorted(set(counted) - found)
    if missing:
        return Rescored(
            original,
            None,
            f"results of {', '.join(missing)} are no longer on the reviews topic "
            "(retention or compaction)",
        )
    draft = DraftSubmitted(
        draft_id=original.draft_id,
        version=original.version,
        title="",
        content="",
        task_id=original.task_id,
        submitted_at=original.decided_at,  # unused by the aggregation; saves a clock read
    )
    rescored = build_decision(
        draft,
        evidence,
        settings,
        expected=[*counted, *original.missing_reviewers],
        decided_at=original.decided_at,
        timed_out=original.timed_out,
        early=original.early_decided,
        # The same review's trace: a re-score is about the same evidence, not a new review.
        trace_id=original.trace_id,
    )
    return Rescored(original, rescored)
