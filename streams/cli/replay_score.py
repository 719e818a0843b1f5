"""Re-deciding decisions from the reviews they were made from: the step `multiqa rescore` runs
for every decision, in one process or in several (streams.cli.replay_jobs).

Two forms of the same step. `rescore_one` builds the whole re-scored QADecision (the library's
`streams.cli.replay.rescore`, and `--publish`, which writes it). `score_partitions`, what the
command runs, builds the whole decision only when it is published: its report shows approved and
final score before and after, and those come from the one aggregation (`agents.aggregate`) run
on the same evidence either way; what it skips is writing texts nobody reads (the feedback text,
the review summaries, the decision id), never the aggregation.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from agents.aggregate import aggregate, build_decision
from agents.settings import Settings
from schemas import DraftSubmitted, QADecision, ReviewerResult, encode

ByVersion = dict[tuple[str, int], list[ReviewerResult]]


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


def _evidence(original: QADecision, by_version: ByVersion) -> tuple[list[ReviewerResult], str]:
    """The results the live decision counted (the first of each reviewer it names, as live),
    and what is missing from them ("" when nothing)."""
    counted = [r.reviewer for r in original.reviews]
    evidence: list[ReviewerResult] = []
    found: set[str] = set()
    for review in by_version.get((original.draft_id, original.version), ()):
        if review.reviewer in counted and review.reviewer not in found:
            evidence.append(review)
            found.add(review.reviewer)
    if len(found) == len(set(counted)):
        return evidence, ""
    missing = sorted(set(counted) - found)
    return evidence, (
        f"results of {', '.join(missing)} are no longer on the reviews topic "
        "(retention or compaction)"
    )


def _expected(original: QADecision) -> list[str]:
    return [*(r.reviewer for r in original.reviews), *original.missing_reviewers]


def rescore_one(original: QADecision, by_version: ByVersion, settings: Settings) -> Rescored:
    evidence, problem = _evidence(original, by_version)
    if problem:
        return Rescored(original, None, problem)
    return Rescored(original, _rebuild(original, evidence, settings))


def _rebuild(
    original: QADecision, evidence: list[ReviewerResult], settings: Settings
) -> QADecision:
    draft = DraftSubmitted(
        draft_id=original.draft_id,
        version=original.version,
        title="",
        content="",
        task_id=original.task_id,
        submitted_at=original.decided_at,  # unused by the aggregation; saves a clock read
    )
    return build_decision(
        draft,
        evidence,
        settings,
        expected=_expected(original),
        decided_at=original.decided_at,
        timed_out=original.timed_out,
        early=original.early_decided,
        # The same review's trace: a re-score is about the same evidence, not a new review.
        trace_id=original.trace_id,
    )


@dataclass
class Share:
    """What `score_partitions` found in the partitions it was given."""

    counts: dict[str, int] = field(default_factory=dict)  # partitions per topic
    decisions: int = 0
    reviews: int = 0
    undecodable: list[str] = field(default_factory=list)
    # (partition, decision_id, draft_id, version, approved, score, approved after, score after,
    # problem), in partition and offset order, the first copy of each decision
    rows: list[tuple[Any, ...]] = field(default_factory=list)
    published: list[tuple[bytes, bytes]] = field(default_factory=list)  # (key, encoded)


def score_partitions(
    share: Share,
    events: Mapping[tuple[str, int], Sequence[Any]],
    reviews_topic: str,
    settings: Settings,
    *,
    publish: bool = False,
    on_scored: Callable[[int, int], None] | None = None,
    every: int = 512,
) -> None:
    """Re-score the decisions of `events` ((topic, partition) -> events; every topic other than
    `reviews_topic` holds decisions) into `share`. `on_scored(done, total)` is called before
    the first, every `every` decisions and at the end."""
    by_version: ByVersion = defaultdict(list)
    partitions: list[tuple[int, Sequence[QADecision]]] = []
    for (topic, partition), got in sorted(events.items()):
        if topic == reviews_topic:
            share.reviews += len(got)
            for review in got:
                by_version[(review.draft_id, review.version)].append(review)
        else:
            share.decisions += len(got)
            partitions.append((partition, got))
    total = share.decisions
    done = 0
    if on_scored is not None:
        on_scored(0, total)  # the total before the first decision: the bar's clock starts now
    seen: set[str] = set()
    rows = share.rows
    published = share.published
    for partition, decisions in partitions:
        for original in decisions:
            done += 1
            if on_scored is not None and done % every == 0:
                on_scored(done, total)
            if original.decision_id in seen:
                continue  # the stream delivers decisions at least once
            seen.add(original.decision_id)
            evidence, problem = _evidence(original, by_version)
            if problem:
                approved, score = None, None
            elif publish:
                after = _rebuild(original, evidence, settings)
                approved, score = after.approved, after.final_score
                published.append((after.draft_id.encode(), encode(after)))
            else:
                # build_decision's own aggregation of the same evidence: the same outcome
                # (the evidence is one draft version's, the first result of each reviewer).
                outcome = aggregate(
                    evidence, settings, expected=_expected(original), early=original.early_decided
                )
                approved, score = outcome.approved, outcome.final_score
            rows.append((
                partition, original.decision_id, original.draft_id, original.version,
                original.approved, original.final_score, approved, score, problem,
            ))  # fmt: skip
    if on_scored is not None:
        on_scored(done, total)
