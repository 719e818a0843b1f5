"""The one aggregation: reviewer results in, a decision out.

Used by the in-process `MultiModelQA` and by the stream's aggregator alike, so a replayed topic
re-scores to exactly what the live system decided under the same settings. Everything here is pure
and deterministic: no clock, no I/O, no dependence on the order results arrived in (beyond "the
first result per reviewer counts": a re-delivered duplicate never changes a decision).

What a result says (agents.base): status ok (a verdict), skipped with reason "not applicable"
(nothing to check: no external links, no topic, no images, ...), skipped for another reason (could
not run: model server down, disabled), error (failed: a bug, a broken setting, a dependency it
cannot do without). A reviewer that was expected and sent nothing is missing (timed out).

Rules, in order (README "Aggregation rules"):
1. Short-circuit: a validator critical other than `known_wrong_fact` rejects at once; the final
   score is the validator's score alone (so it does not depend on what else had arrived).
2. `known_wrong_fact` gets a second chance: a status-ok web_factcheck `fact_verified` finding at
   the same span clears it (and gives the validator back the 10 points it cost); uncleared, it
   vetoes.
3. Score: the weighted mean over every reviewer that answered ok (validator `qa_validator_weight`,
   critic `qa_critic_weight`, every other reviewer `qa_gate_weight`), minus
   `content_validator_warning_qa_penalty` per validator warning, clamped to 0-100. Not applicable
   is not a score: such a reviewer stays out of the mean. With the critic answering this is the
   seed's formula. Without it the mean runs over whatever did answer, and the validator enters it
   with its own warning points given back, so each warning is charged exactly once; with no gates
   and the default penalty that is the validator's score, the seed's validator-only mode.
4. Strong negative signals are vetoes, checked apart from the mean, so no number of favourable
   gates can outvote one of them:
   - the critic scoring below `qa_critic_veto_threshold` (default 50: with the seed's weights a
     perfect validator and a critic below 50 cannot reach 70, so the gates, which were added to
     catch more, can never carry a draft the seed's two core reviewers reject);
   - the consistency gate scoring below `qa_consistency_veto_threshold`;
   - any other reviewer that answered ok and failed its own check (dead links, too many dead or
     too few citations, a contradicted claim, an image or preview below its pass threshold, a
     topic not delivered), unless listed in `qa_advisory_reviewers`. The critic is the one reviewer
     whose own approved flag is not trusted (critics nitpick the flag more than the number).
5. Required reviewers (`qa_required_to_pass`, and always the validator) must answer ok and
   approve; not applicable satisfies the requirement (nothing to check). For the critic, approve
   means a score at the approval threshold or its own approval (the seed's rule). One that was
   skipped, errored, timed out or is not enabled blocks approval and asks for a human.
6. Fail closed: a reviewer that errored blocks approval (needs_human_review) unless it is
   advisory: a check that could not run never silently drops out.
7. approved = no veto and final >= `qa_final_score_threshold`.
8. needs_human_review, with the reasons in the summary: reviewers' scores spread by more than
   `qa_disagreement_spread`; a required or normally-running reviewer missing, skipped or errored
   (not when the decision was made early: then no answer could have approved it); a finding that
   asks for a human (the validator's `needs_human_review`: a possibly cut list, a named source
   without a link, an ambiguous injection-like text).
9. Text that may be aimed at the reviewers (the validator's `possible_prompt_injection`) keeps
   the draft from approval whenever a model judged it: that model read the text, so its score may
   have been bought (a certain injection is a validator critical, rule 1, and no model is asked).
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from agents import _decision_settings  # noqa: F401  (registers the settings contradiction rules)
from agents.base import NOT_APPLICABLE, is_not_applicable
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
# Findings (any reviewer) that ask for a human whatever the outcome: the validator's marker for
# cases its rules cannot tell from good writing (agents.reviewers.validator.HUMAN_REVIEW, which
# lists them; an ambiguous injection-like text is one).
HUMAN_REVIEW_CODES = frozenset({"needs_human_review"})
# The validator's warning for text that may be aimed at the reviewers (rule 9).
POSSIBLE_INJECTION = "possible_prompt_injection"
# Reviewers whose verdict no text can talk into anything: no model reads the draft.
_NOT_MODELS = frozenset({Provider.PROGRAMMATIC, Provider.URL_VERIFIER, Provider.HTTP_HEAD})

# Fixed namespace for decision ids: uuid5(namespace, "<draft_id>:<version>"). Never change it:
# consumers de-duplicate decisions by this id.
DECISION_NAMESPACE = uuid.UUID("6d756c74-6971-612d-6465-636973696f6e")
_NAMESPACE_BYTES = DECISION_NAMESPACE.bytes

# What the validator charges (agents.reviewers.validator scores 100 - 10 x criticals - 3 x
# warnings); a test keeps these equal to the validator's own constants.
_CRITICAL_POINTS = 10.0
_WARNING_POINTS = 3.0
_REVIEW_FEEDBACK_CHARS = 2000

__all__ = [
    "NOT_APPLICABLE",
    "Aggregate",
    "aggregate",
    "build_decision",
    "decision_id",
    "first_per_reviewer",
    "is_settled",
    "short_circuits",
    "summarize",
]


@dataclass(frozen=True)
class Aggregate:
    """The outcome of aggregating one draft version's reviewer results."""

    approved: bool
    final_score: float
    vetoes: tuple[str, ...] = ()
    short_circuited: bool = False
    needs_human_review: bool = False
    missing_reviewers: tuple[str, ...] = ()
    # The critic produced no score: the mean runs without it (seed: critic_skipped).
    validator_only: bool = False
    # known_wrong_fact findings a web fact-check verified (their span texts).
    cleared_facts: tuple[str, ...] = ()
    summary: str = ""
    # Why a human should look (empty when needs_human_review is False).
    review_reasons: tuple[str, ...] = ()
    # Reviewers that had nothing to check on this draft.
    not_applicable: tuple[str, ...] = ()

    @property
    def critic_skipped(self) -> bool:
        return self.validator_only


def first_per_reviewer(results: Iterable[ReviewerResult]) -> list[ReviewerResult]:
    """One result per reviewer, the first that arrived; sorted in REVIEWER_NAMES order (unknown
    names after, alphabetically) so the outcome does not depend on arrival order."""
    seen: dict[str, ReviewerResult] = {}
    for result in results:
        seen.setdefault(result.reviewer, result)
    return sorted(seen.values(), key=_reviewer_order)


def _reviewer_order(result: ReviewerResult) -> tuple[int, str]:
    return review_sort_key(result.reviewer)


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
    results: Sequence[ReviewerResult],
    settings: Settings,
    *,
    expected: Sequence[str] = (),
    early: bool = False,
) -> Aggregate:
    """Decide one draft version from the results that have arrived (see the module docstring).

    `expected`: the reviewers that were to answer (enabled ones); those without a result are
    missing. `early`: the caller decided before they answered because no answer could approve
    the draft (`is_settled`), so their absence needs no human."""
    return _decide(first_per_reviewer(results), settings, expected, early)


def _decide(
    reviews: Sequence[ReviewerResult], settings: Settings, expected: Sequence[str], early: bool
) -> Aggregate:
    """`aggregate` of `reviews` that are already one per reviewer, in canonical order."""
    rules = _rules(settings)
    by_name = {r.reviewer: r for r in reviews}
    missing = tuple(dict.fromkeys(name for name in expected if name not in by_name))
    validator = by_name.get(VALIDATOR)
    critic = by_name.get(CRITIC)
    validator_only = critic is None or critic.status != ReviewStatus.OK

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
            validator_only=validator_only,
            summary=f"REJECTED {final:.1f}/100 (short-circuit) - {veto}",
        )

    vetoes: list[str] = []
    humans: list[str] = []
    cleared: tuple[str, ...] = ()
    scores = {r.reviewer: _clamp(r.score) for r in reviews if r.status == ReviewStatus.OK}
    warnings = 0
    if validator is not None and validator.status == ReviewStatus.OK:
        uncleared, cleared_findings = _known_wrong_facts(validator, by_name.get(WEB_FACTCHECK))
        cleared = tuple(_span_text(f) for f in cleared_findings)
        warnings = sum(1 for f in validator.findings if f.severity == Severity.WARNING)
        given_back = _CRITICAL_POINTS * len(cleared_findings)
        if validator_only:
            given_back += _WARNING_POINTS * warnings  # charged once, by the penalty below
        scores[VALIDATOR] = _clamp(validator.score + given_back)
        vetoes.extend(
            f"known wrong fact: {_span_text(f)!r} ({f.message})"
            if f.span
            else f"known wrong fact: {f.message}"
            for f in uncleared
        )

    if scores:
        final = _clamp(
            _weighted_mean(scores, settings)
            - settings.content_validator_warning_qa_penalty * warnings
        )
    else:
        final = 0.0
        vetoes.append("no score: no reviewer answered with one")
        humans.append("no reviewer produced a score")

    _check_reviewers(reviews, settings, rules, vetoes, humans)
    _check_bought(validator, reviews, vetoes, humans)
    _check_presence(by_name, rules, missing, early, vetoes, humans)
    spread = max(scores.values()) - min(scores.values()) if len(scores) >= 2 else 0.0
    if spread > settings.qa_disagreement_spread:
        humans.append(
            f"reviewers disagree: scores spread {spread:.0f} points "
            f"(more than {settings.qa_disagreement_spread:g})"
        )
    humans.extend(_flagged_for_humans(reviews))

    approved = not vetoes and final >= settings.qa_final_score_threshold
    not_applicable = tuple(r.reviewer for r in reviews if is_not_applicable(r))
    summary = _summary(approved, final, scores, validator_only, vetoes, humans, not_applicable)
    return Aggregate(
        approved=approved,
        final_score=final,
        vetoes=tuple(dict.fromkeys(vetoes)),
        short_circuited=False,
        needs_human_review=bool(humans),
        missing_reviewers=missing,
        validator_only=validator_only,
        cleared_facts=cleared,
        summary=summary,
        review_reasons=tuple(dict.fromkeys(humans)),
        not_applicable=not_applicable,
    )


def is_settled(
    results: Sequence[ReviewerResult], pending: Sequence[str], settings: Settings
) -> bool:
    """True when the decision can be made now, before the pending reviewers answer.

    That is: nothing is pending; or the draft is short-circuited; or no possible answer from the
    pending reviewers could make it approved (a veto that is already certain, or a threshold out of
    reach). "Possible" is checked by aggregating best cases with the one aggregation: every pending
    reviewer scoring 100 and approving (a pending web fact-check verifying every known-wrong fact),
    and, when the critic is pending, also the critic not scoring at all (the mean without the
    critic gives the validator its warning points back, so it can score higher). Within each case
    a 100 can only raise a weighted mean and adds no veto, so these two cases bound every other
    outcome, a pending reviewer that skips or is not applicable included.
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


def early_evidence(
    results: Sequence[ReviewerResult],
    expected: Sequence[str],
    paid: Collection[str],
    settings: Settings,
) -> list[ReviewerResult] | None:
    """The results a decision counts, or None while it must wait for more (issue 13).

    Used by the stream's aggregator and the in-process review alike (before any deadline), so a
    decision depends on the evidence, not on which answer happened to arrive first:
    - never before every expected free reviewer (not in `paid`: the validator and the other
      deterministic ones) has answered;
    - when the free results alone settle it (`is_settled` with every paid reviewer pending),
      exactly the free results: paid results that arrived before the free ones are not counted,
      so the decision is the same whether they came first, last or not at all;
    - else every result, once nothing is pending or the results so far settle it.
    A decision counting fewer results than `expected` is an early one.
    """
    answered = _names(results)
    pending = [name for name in dict.fromkeys(expected) if name not in answered]
    if any(name not in paid for name in pending):
        return None
    free = [r for r in results if r.reviewer not in paid]
    paid_expected = [name for name in dict.fromkeys(expected) if name in paid]
    if paid_expected and is_settled(free, paid_expected, settings):
        return free
    if not pending or is_settled(results, pending, settings):
        return list(results)
    return None


def build_decision(
    draft: DraftSubmitted,
    results: Sequence[ReviewerResult],
    settings: Settings,
    *,
    expected: Sequence[str],
    decided_at: datetime,
    timed_out: bool = False,
    early: bool = False,
    trace_id: str = "",
) -> QADecision:
    """The QADecision record for one draft version, emitted by the stream and the in-process API.

    Deterministic given the same inputs: the id is uuid5 of draft id and version, reviews are in
    canonical order, and the caller supplies `decided_at` (and the review's `trace_id`, if any).
    """
    reviews = first_per_reviewer(r for r in results if _same_draft(r, draft))
    outcome = _decide(reviews, settings, expected, early)
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
        trace_id=trace_id,
    )


def decision_id(draft_id: str, version: int) -> str:
    """str(uuid.uuid5(DECISION_NAMESPACE, f"{draft_id}:{version}")), a third of the cost."""
    name = f"{draft_id}:{version}".encode()
    digest = bytearray(hashlib.sha1(_NAMESPACE_BYTES + name, usedforsecurity=False).digest()[:16])
    digest[6] = (digest[6] & 0x0F) | 0x50  # version 5
    digest[8] = (digest[8] & 0x3F) | 0x80  # the RFC 4122 variant
    h = digest.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def summarize(result: ReviewerResult) -> ReviewSummary:
    """The compact copy of a result a QADecision carries."""
    feedback = result.feedback
    if len(feedback) > _REVIEW_FEEDBACK_CHARS:
        feedback = feedback[: _REVIEW_FEEDBACK_CHARS - 1] + "…"
    return ReviewSummary(
        result.reviewer,
        str(result.provider),
        str(result.status),
        result.approved,
        result.score,
        feedback,
        result.veto,
    )


# --- the rules ---------------------------------------------------------------------------------


def _check_reviewers(
    reviews: Sequence[ReviewerResult],
    settings: Settings,
    rules: _Rules,
    vetoes: list[str],
    humans: list[str],
) -> None:
    """Rules 4-6 for the reviewers that sent a result."""
    required = rules.required
    advisory = rules.advisory
    for r in reviews:
        name = r.reviewer
        if r.status == ReviewStatus.ERROR:
            if name not in advisory:
                vetoes.append(f"{name} errored: {_reason(r, 'no reason given')}")
                humans.append(f"{name} errored, so its check did not run")
            continue
        if r.status != ReviewStatus.OK:
            if name in required and not is_not_applicable(r):
                vetoes.append(f"required reviewer {name} did not run: {_reason(r, 'skipped')}")
                humans.append(f"required reviewer {name} did not run")
            continue
        if name == VALIDATOR:
            continue  # its criticals are rules 1-2; its approved flag means "no critical"
        negative = _strong_negative(r, settings)
        if negative and name not in advisory:
            vetoes.append(negative)
        elif name in required and not _approves(r, settings):
            vetoes.append(f"required reviewer {name} did not approve: {_reason(r, 'no reason')}")


def _strong_negative(r: ReviewerResult, settings: Settings) -> str | None:
    """Rule 4: the veto text when this status-ok result is a strong negative signal."""
    if r.reviewer == CRITIC:
        if r.score < settings.qa_critic_veto_threshold:
            return (
                f"critic: score {r.score:.0f} below the critic veto threshold "
                f"{settings.qa_critic_veto_threshold:g}"
            )
        return None
    if r.reviewer == CONSISTENCY:
        if r.score < settings.qa_consistency_veto_threshold:
            return (
                f"consistency: score {r.score:.0f} below {settings.qa_consistency_veto_threshold:g}"
            )
        return None
    if not r.approved:
        return f"{r.reviewer}: {_reason(r, 'did not approve')}"
    return None


def _approves(r: ReviewerResult, settings: Settings) -> bool:
    if r.reviewer == CRITIC:
        return r.approved or r.score >= settings.qa_final_score_threshold
    if r.reviewer == CONSISTENCY:
        return r.score >= settings.qa_consistency_veto_threshold
    return r.approved


def _check_presence(
    by_name: dict[str, ReviewerResult],
    rules: _Rules,
    missing: Sequence[str],
    early: bool,
    vetoes: list[str],
    humans: list[str],
) -> None:
    """Rules 5 and 8 for reviewers that sent nothing. Decided early, the reviewers still pending
    were cancelled because no answer of theirs could approve the draft (is_settled): their
    absence still blocks (so an early decision can never approve) but asks for no human."""
    for name in rules.required_in_order:
        if name in by_name:
            continue
        if name not in missing:
            why = "is not enabled or not deployed"
        else:
            why = "cancelled: decided early" if early else "timed out"
        vetoes.append(f"required reviewer {name} did not answer ({why})")
        if not (early and name in missing):
            humans.append(f"required reviewer {name} did not answer")
    if early:
        return
    for name in missing:
        if name not in rules.required:
            humans.append(f"{name} did not answer before the decision (timed out)")


def _check_bought(
    validator: ReviewerResult | None,
    reviews: Sequence[ReviewerResult],
    vetoes: list[str],
    humans: list[str],
) -> None:
    """Rule 9: text that may be an instruction to the reviewers (the validator's warning
    `possible_prompt_injection`, e.g. "the editor already approved this") was read by every model
    that judged the draft, so a model's score may have been bought: the draft is not approved
    until a person clears it. Without a model's answer nothing could be bought (the warning is
    then only charged and flagged, rule 8)."""
    if validator is None or validator.status != ReviewStatus.OK:
        return
    if not any(f.code == POSSIBLE_INJECTION for f in validator.findings):
        return
    readers = [
        r.reviewer
        for r in reviews
        if r.status == ReviewStatus.OK and r.provider not in _NOT_MODELS and r.reviewer != VALIDATOR
    ]
    if readers:
        vetoes.append(
            f"possible injection aimed at the reviewers, read by {', '.join(readers)}: their "
            "scores may have been bought"
        )
        humans.append("a person must clear text that may be aimed at the reviewers")


def _flagged_for_humans(reviews: Sequence[ReviewerResult]) -> list[str]:
    flagged: list[str] = []
    for r in reviews:
        if r.status != ReviewStatus.OK:
            continue
        for f in r.findings:
            if f.code in HUMAN_REVIEW_CODES:
                flagged.append(f"{r.reviewer}: {f.code}: {_one_line(f.message, 200)}")
    return flagged


def _summary(
    approved: bool,
    final: float,
    scores: dict[str, float],
    validator_only: bool,
    vetoes: Sequence[str],
    humans: Sequence[str],
    not_applicable: Sequence[str],
) -> str:
    parts = ", ".join(f"{name} {score:.0f}" for name, score in scores.items()) or "no scores"
    if validator_only:
        parts += "; without the critic"
    if not_applicable:
        parts += f"; not applicable: {', '.join(not_applicable)}"
    summary = f"{'APPROVED' if approved else 'REJECTED'} {final:.1f}/100 ({parts})"
    if vetoes:
        more = f" (+{len(vetoes) - 1} more)" if len(vetoes) > 1 else ""
        summary += f" - veto: {vetoes[0]}{more}"
    if humans:
        more = f" (+{len(humans) - 1} more)" if len(humans) > 1 else ""
        summary += f" - needs human review: {humans[0]}{more}"
    return summary


# --- helpers -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Rules:
    """What the rules read of one Settings, parsed once (settings are immutable)."""

    required: frozenset[str]  # qa_required_to_pass and always the validator
    required_in_order: tuple[str, ...]  # the same, in canonical reviewer order
    advisory: frozenset[str]  # qa_advisory_reviewers that are not required


_RULES: dict[int, tuple[Settings, _Rules]] = {}


def _rules(settings: Settings) -> _Rules:
    # Keyed by identity, holding the settings so their id is not reused while cached: a
    # re-score or a worker uses one Settings object for thousands of decisions.
    hit = _RULES.get(id(settings))
    if hit is not None and hit[0] is settings:
        return hit[1]
    required = settings.required_to_pass() | {VALIDATOR}
    rules = _Rules(
        required=required,
        required_in_order=tuple(sorted(required, key=review_sort_key)),
        advisory=settings.advisory_reviewers() - required,
    )
    if len(_RULES) >= 64:
        _RULES.clear()
    _RULES[id(settings)] = (settings, rules)
    return rules


def _same_draft(result: ReviewerResult, draft: DraftSubmitted) -> bool:
    # Unstamped results (draft_id "") are accepted: in-process callers may build them by hand.
    return not result.draft_id or (
        result.draft_id == draft.draft_id and result.version == draft.version
    )


def _names(results: Sequence[ReviewerResult]) -> set[str]:
    return {r.reviewer for r in results}


def _clamp(value: float) -> float:
    return min(100.0, max(0.0, float(value)))


def _one_line(text: str, limit: int) -> str:
    return " ".join(str(text).split())[:limit]


def _reason(r: ReviewerResult, default: str) -> str:
    text = (r.veto or r.feedback or "").strip()
    return _one_line(text.splitlines()[0], 300) if text else default


def _weighted_mean(scores: dict[str, float], settings: Settings) -> float:
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


def _best_case(name: str, facts: Sequence[Finding]) -> ReviewerResult:
    """A pending reviewer's best possible answer: 100, approved, no warnings; a fact-check that
    verifies every known-wrong fact."""
    findings: tuple[Finding, ...] = ()
    if name == WEB_FACTCHECK:
        findings = tuple(Finding(FACT_VERIFIED, Severity.INFO, "best case", f.span) for f in facts)
    return ReviewerResult(name, True, 100.0, "", Provider.UNKNOWN, findings=findings)
