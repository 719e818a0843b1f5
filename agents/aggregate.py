"""The one aggregation: reviewer results in, a decision out.

Used by the in-process `MultiModelQA` and by the stream's aggregator alike, so a replayed topic
re-scores to exactly what the live system decided under the same settings. Everything here is pure
and deterministic: no clock, no I/O, no dependence on the order results arrived in (beyond "the
first result per reviewer counts": a re-delivered duplicate never changes a decision).

Rules (DESIGN.md "Aggregation", issue 4):
1. A validator critical other than `known_wrong_fact` short-circuits: rejected at once, and the
   final score is the validator's score alone (so it does not depend on which other results
   happened to have arrived).
2. `known_wrong_fact` is critical but gets a second chance: a status-ok web_factcheck result with a
   `fact_verified` finding at the same span clears it (and gives the validator back the 10 points
   the critical cost it); an uncleared one is a veto.
3. Score: weighted mean over reviewers with status ok (validator `qa_validator_weight`, critic
   `qa_critic_weight`, any other reviewer `qa_gate_weight`), minus
   `content_validator_warning_qa_penalty` per validator warning, clamped to 0-100.
4. Validator-only mode: when the critic produced no score, the final score is the validator's
   (effective) score, with no extra warning penalty: the validator's own score already charges
   3 points per warning, and charging them twice with no critic to balance would reject drafts a
   full review would pass. Vetoes from the gates still apply.
5. Vetoes: a reviewer in `qa_required_to_pass` that answered ok and did not approve; the
   consistency gate only when 0 < score < `qa_consistency_veto_threshold`; an uncleared
   `known_wrong_fact`; no score at all from both validator and critic.
6. approved = no veto and final >= `qa_final_score_threshold`. Reviewers' own approved flags are
   not trusted otherwise (critics nitpick the flag more than the number).
7. needs_human_review when the scored reviewers' scores spread by more than
   `qa_disagreement_spread` points.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from agents.feedback import format_feedback_text, review_sort_key
from agents.settings import Settings
from schemas.records import (
    DraftSubmitted,
    Finding,
    Provider,
    QADecision,
    ReviewerResult,
    ReviewStatus,
    ReviewSummary,
    Severity,
)

VALIDATOR = "validator"
CRITIC = "critic"
CONSISTENCY = "consistency"
WEB_FACTCHECK = "web_factcheck"
KNOWN_WRONG_FACT = "known_wrong_fact"
FACT_VERIFIED = "fact_verified"

# Fixed namespace for decision ids: uuid5(namespace, "<draft_id>:<version>"). Never change it:
# consumers de-duplicate decisions by this id.
DECISION_NAMESPACE = uuid.UUID("6d756c74-6971-612d-6465-636973696f6e")

# Points a validator critical costs (agents.validator scores 100 - 10 x criticals - 3 x warnings).
_CRITICAL_POINTS = 10.0
_REVIEW_FEEDBACK_CHARS = 2000


@dataclass(frozen=True)
class Aggregate:
    """The outcome of aggregating one draft version's reviewer results."""

    approved: bool
    final_score: float
    vetoes: tuple[str, ...] = ()
    short_circuited: bool = False
    needs_human_review: bool = False
    missing_reviewers: tuple[str, ...] = ()
    # The critic produced no score: the final score is the validator's (seed: critic_skipped).
    validator_only: bool = False
    # known_wrong_fact findings a web fact-check verified (their span texts).
    cleared_facts: tuple[str, ...] = ()
    summary: str = ""

    @property
    def critic_skipped(self) -> bool:
        return self.validator_only


def first_per_reviewer(results: Iterable[ReviewerResult]) -> list[ReviewerResult]:
    """One result per reviewer, the first that arrived; sorted in REVIEWER_NAMES order (unknown
    names after, alphabetically) so the outcome does not depend on arrival order."""
    seen: dict[str, ReviewerResult] = {}
    for result in results:
        seen.setdefault(result.reviewer, result)
    return sorted(seen.values(), key=lambda r: review_sort_key(r.reviewer))


def short_circuits(result: ReviewerResult) -> bool:
    """True when this result alone rejects the draft: a validator critical other than
    known_wrong_fact."""
    return (
        result.reviewer == VALIDATOR
        and result.status == ReviewStatus.OK
        and any(
            f.severity == Severity.CRITICAL and f.code != KNOWN_WRONG_FACT for f in result.findings
        )
    )


def reviewer_weight(name: str, settings: Settings) -> float:
    if name == VALIDATOR:
        return settings.qa_validator_weight
    if name == CRITIC:
        return settings.qa_critic_weight
    return settings.qa_gate_weight


def aggregate(
    results: Sequence[ReviewerResult], settings: Settings, *, expected: Sequence[str] = ()
) -> Aggregate:
    """Decide one draft version from the results that have arrived (see the module docstring)."""
    reviews = first_per_reviewer(results)
    by_name = {r.reviewer: r for r in reviews}
    answered = set(by_name)
    missing = tuple(dict.fromkeys(name for name in expected if name not in answered))
    validator = by_name.get(VALIDATOR)
    scored = [r for r in reviews if r.status == ReviewStatus.OK]

    if validator is not None and short_circuits(validator):
        final = _clamp(validator.score)
        codes = sorted(
            {
                f.code
                for f in validator.findings
                if f.severity == Severity.CRITICAL and f.code != KNOWN_WRONG_FACT
            }
        )
        veto = f"validator critical: {', '.join(codes)}"
        return Aggregate(
            approved=False,
            final_score=final,
            vetoes=(veto,),
            short_circuited=True,
            missing_reviewers=missing,
            validator_only=by_name.get(CRITIC) is None or by_name[CRITIC].status != ReviewStatus.OK,
            summary=f"REJECTED {final:.1f}/100 (short-circuit) - {veto}",
        )

    vetoes: list[str] = []
    cleared: tuple[str, ...] = ()
    validator_score: float | None = None
    warnings = 0
    if validator is not None and validator.status == ReviewStatus.OK:
        uncleared, cleared_findings = _known_wrong_facts(validator, by_name.get(WEB_FACTCHECK))
        cleared = tuple(_span_text(f) for f in cleared_findings)
        validator_score = _clamp(validator.score + _CRITICAL_POINTS * len(cleared_findings))
        warnings = sum(1 for f in validator.findings if f.severity == Severity.WARNING)
        vetoes.extend(
            f"known wrong fact: {_span_text(f)!r} ({f.message})"
            if f.span
            else f"known wrong fact: {f.message}"
            for f in uncleared
        )

    scores = {r.reviewer: r.score for r in scored}
    if validator_score is not None:
        scores[VALIDATOR] = validator_score
    critic = by_name.get(CRITIC)
    validator_only = critic is None or critic.status != ReviewStatus.OK
    if validator_only:
        if validator_score is None:
            final = 0.0
            vetoes.append("no score: neither the validator nor the critic produced one")
        else:
            final = validator_score
    else:
        final = _clamp(
            _weighted_mean(scores, settings)
            - settings.content_validator_warning_qa_penalty * warnings
        )

    vetoes.extend(_reviewer_vetoes(scored, settings))
    approved = not vetoes and final >= settings.qa_final_score_threshold
    spread = max(scores.values()) - min(scores.values()) if len(scores) >= 2 else 0.0
    needs_human = spread > settings.qa_disagreement_spread or not scores

    parts = ", ".join(f"{name} {score:.0f}" for name, score in scores.items()) or "no scores"
    verdict = "APPROVED" if approved else "REJECTED"
    mode = "; validator-only" if validator_only else ""
    summary = f"{verdict} {final:.1f}/100 ({parts}{mode})"
    if vetoes:
        summary += f" - veto: {vetoes[0]}" + (
            f" (+{len(vetoes) - 1} more)" if len(vetoes) > 1 else ""
        )
    return Aggregate(
        approved=approved,
        final_score=final,
        vetoes=tuple(vetoes),
        short_circuited=False,
        needs_human_review=needs_human,
        missing_reviewers=missing,
        validator_only=validator_only,
        cleared_facts=cleared,
        summary=summary,
    )


def is_settled(
    results: Sequence[ReviewerResult], pending: Sequence[str], settings: Settings
) -> bool:
    """True when the decision can be made now, before the pending reviewers answer.

    That is: nothing is pending; or the draft is short-circuited; or no possible answer from the
    pending reviewers could make it approved (a veto that is already certain, or a threshold out of
    reach). "Possible" is checked by aggregating best cases with the one aggregation: every pending
    reviewer scoring 100 and approving (a pending web fact-check verifying every known-wrong fact),
    and, when the critic is pending, also the critic not scoring at all (validator-only mode can
    score higher than a mean that includes the critic). Adding a 100 can never lower a weighted
    mean, so these two cases bound every other outcome.
    """
    pending_names = [name for name in dict.fromkeys(pending) if name not in _names(results)]
    if not pending_names:
        return True
    current = first_per_reviewer(results)
    by_name = {r.reviewer: r for r in current}
    if VALIDATOR in by_name and short_circuits(by_name[VALIDATOR]):
        return True
    validator = by_name.get(VALIDATOR)
    facts = [
        f
        for f in (validator.findings if validator is not None else ())
        if f.code == KNOWN_WRONG_FACT and f.span is not None
    ]
    best = [_best_case(name, facts) for name in pending_names]
    scenarios = [current + best]
    if CRITIC in pending_names:
        scenarios.append(current + [r for r in best if r.reviewer != CRITIC])
    return not any(aggregate(s, settings).approved for s in scenarios)


def build_decision(
    draft: DraftSubmitted,
    results: Sequence[ReviewerResult],
    settings: Settings,
    *,
    expected: Sequence[str],
    decided_at: datetime,
    timed_out: bool = False,
    early: bool = False,
) -> QADecision:
    """The QADecision record for one draft version, emitted by the stream and the in-process API.

    Deterministic given the same inputs: the id is uuid5 of draft id and version, reviews are in
    canonical order, and the caller supplies `decided_at`.
    """
    reviews = first_per_reviewer(r for r in results if _same_draft(r, draft))
    outcome = aggregate(reviews, settings, expected=expected)
    return QADecision(
        decision_id=decision_id(draft.draft_id, draft.version),
        draft_id=draft.draft_id,
        version=draft.version,
        task_id=draft.task_id,
        approved=outcome.approved,
        final_score=outcome.final_score,
        summary=outcome.summary,
        feedback_text=format_feedback_text(
            reviews, outcome.final_score, outcome.approved, vetoes=outcome.vetoes
        ),
        reviews=tuple(summarize(r) for r in reviews),
        missing_reviewers=outcome.missing_reviewers,
        vetoes=outcome.vetoes,
        timed_out=timed_out,
        short_circuited=outcome.short_circuited,
        early_decided=early and not outcome.short_circuited,
        needs_human_review=outcome.needs_human_review,
        settings_version=settings.version(),
        decided_at=decided_at,
    )


def decision_id(draft_id: str, version: int) -> str:
    return str(uuid.uuid5(DECISION_NAMESPACE, f"{draft_id}:{version}"))


def summarize(result: ReviewerResult) -> ReviewSummary:
    """The compact copy of a result a QADecision carries."""
    feedback = result.feedback
    if len(feedback) > _REVIEW_FEEDBACK_CHARS:
        feedback = feedback[: _REVIEW_FEEDBACK_CHARS - 1] + "…"
    return ReviewSummary(
        reviewer=result.reviewer,
        provider=str(result.provider),
        status=str(result.status),
        approved=result.approved,
        score=result.score,
        feedback=feedback,
        veto=result.veto,
    )


# --- helpers -----------------------------------------------------------------------------------


def _same_draft(result: ReviewerResult, draft: DraftSubmitted) -> bool:
    # Unstamped results (draft_id "") are accepted: in-process callers may build them by hand.
    return not result.draft_id or (
        result.draft_id == draft.draft_id and result.version == draft.version
    )


def _names(results: Sequence[ReviewerResult]) -> set[str]:
    return {r.reviewer for r in results}


def _clamp(value: float) -> float:
    return min(100.0, max(0.0, float(value)))


def _weighted_mean(scores: dict[str, float], settings: Settings) -> float:
    if not scores:
        return 0.0
    weights = {name: reviewer_weight(name, settings) for name in scores}
    total = sum(weights.values())
    if total <= 0:
        # Every weight set to 0: no reviewer is preferred, so each counts the same.
        return sum(scores.values()) / len(scores)
    return sum(scores[name] * weights[name] for name in scores) / total


def _known_wrong_facts(
    validator: ReviewerResult, factcheck: ReviewerResult | None
) -> tuple[list[Finding], list[Finding]]:
    """(uncleared, cleared) known_wrong_fact findings of the validator."""
    verified: set[tuple[int, int]] = set()
    if factcheck is not None and factcheck.status == ReviewStatus.OK:
        verified = {
            (f.span.start, f.span.end)
            for f in factcheck.findings
            if f.code == FACT_VERIFIED and f.span is not None
        }
    uncleared: list[Finding] = []
    cleared: list[Finding] = []
    for f in validator.findings:
        if f.code != KNOWN_WRONG_FACT:
            continue
        if f.span is not None and (f.span.start, f.span.end) in verified:
            cleared.append(f)
        else:
            uncleared.append(f)
    return uncleared, cleared


def _span_text(finding: Finding) -> str:
    return finding.span.text if finding.span is not None else ""


def _reviewer_vetoes(scored: Sequence[ReviewerResult], settings: Settings) -> list[str]:
    required = settings.required_to_pass()
    vetoes: list[str] = []
    for r in scored:
        if r.reviewer in required and r.reviewer != VALIDATOR and not r.approved:
            reason = (r.veto or r.feedback or "did not approve").strip().splitlines()[0][:300]
            vetoes.append(f"{r.reviewer}: {reason}")
        elif r.reviewer == CONSISTENCY and 0 < r.score < settings.qa_consistency_veto_threshold:
            vetoes.append(
                f"consistency: score {r.score:.0f} below "
                f"{settings.qa_consistency_veto_threshold:.0f}"
            )
    return vetoes


def _best_case(name: str, facts: Sequence[Finding]) -> ReviewerResult:
    """A pending reviewer's best possible answer: 100, approved, no warnings; a fact-check that
    verifies every known-wrong fact."""
    findings: tuple[Finding, ...] = ()
    if name == WEB_FACTCHECK:
        findings = tuple(Finding(FACT_VERIFIED, Severity.INFO, "best case", f.span) for f in facts)
    return ReviewerResult(name, True, 100.0, "", Provider.UNKNOWN, findings=findings)
