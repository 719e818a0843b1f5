"""The one aggregation: worked examples pin the arithmetic, every veto, the known_wrong_fact
second chance, validator-only mode, early decision and the decision record."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import pytest

from agents.aggregate import (
    DECISION_NAMESPACE,
    aggregate,
    build_decision,
    decision_id,
    is_settled,
)
from agents.settings import Settings
from schemas.records import (
    DraftSubmitted,
    Finding,
    Provider,
    ReviewerResult,
    ReviewStatus,
    Severity,
    Span,
)

S = Settings()
FACT_SPAN = Span(10, 30, "the moon is cheese")


def r(
    name: str,
    score: float,
    *,
    status: ReviewStatus = ReviewStatus.OK,
    approved: bool = True,
    findings: tuple[Finding, ...] = (),
    veto: str | None = None,
    feedback: str = "",
) -> ReviewerResult:
    return ReviewerResult(
        name,
        approved,
        score,
        feedback,
        Provider.UNKNOWN,
        status=status,
        findings=findings,
        veto=veto,
    )


def warnings(n: int) -> tuple[Finding, ...]:
    return tuple(Finding("filler_phrase", Severity.WARNING, "filler") for _ in range(n))


def critical(code: str, span: Span | None = None) -> Finding:
    return Finding(code, Severity.CRITICAL, f"{code} found", span)


KWF = critical("known_wrong_fact", FACT_SPAN)
VERIFIED = Finding("fact_verified", Severity.INFO, "verified", FACT_SPAN)
SKIPPED = ReviewStatus.SKIPPED
ERROR = ReviewStatus.ERROR

# (id, results, final_score, approved, veto substrings)
WORKED_EXAMPLES = [
    ("validator+critic", [r("validator", 90), r("critic", 80)], 84.0, True, []),
    (
        # (94 x 0.4 + 70 x 0.6) / 1.0 = 79.6, minus 2 warnings x 3 = 73.6
        "warning penalty",
        [r("validator", 94, findings=warnings(2)), r("critic", 70)],
        73.6,
        True,
        [],
    ),
    (
        # (100 x 0.4 + 60 x 0.6 + 100 x 0.3) / 1.3
        "gate weight",
        [r("validator", 100), r("critic", 60), r("urls", 100)],
        106 / 1.3,
        True,
        [],
    ),
    ("exactly the threshold", [r("validator", 100), r("critic", 50)], 70.0, True, []),
    ("just below", [r("validator", 100), r("critic", 49)], 69.4, False, []),
    (
        # critic skipped: validator-only, its score as is (no second warning penalty)
        "validator-only",
        [r("validator", 85, findings=warnings(5)), r("critic", 0, status=SKIPPED)],
        85.0,
        True,
        [],
    ),
    ("validator-only low", [r("validator", 65), r("critic", 0, status=ERROR)], 65.0, False, []),
    ("validator-only, critic absent", [r("validator", 75)], 75.0, True, []),
    (
        "gates still count in validator-only mode? no: validator only",
        [r("validator", 90), r("urls", 20, approved=True)],
        90.0,
        True,
        [],
    ),
    (
        "required_to_pass veto (urls)",
        [
            r("validator", 100),
            r("critic", 100),
            r("urls", 60, approved=False, veto="2 dead links"),
        ],
        (40 + 60 + 18) / 1.3,
        False,
        ["urls: 2 dead links"],
    ),
    (
        "required reviewer without veto text: feedback is the reason",
        [r("validator", 100), r("critic", 100), r("urls", 80, approved=False, feedback="dead")],
        (40 + 60 + 24) / 1.3,
        False,
        ["urls: dead"],
    ),
    (
        "required reviewer skipped: no veto",
        [r("validator", 100), r("critic", 100), r("urls", 0, status=SKIPPED, approved=False)],
        100.0,
        True,
        [],
    ),
    (
        "consistency below 50 vetoes",
        [r("validator", 100), r("critic", 100), r("consistency", 40)],
        (40 + 60 + 12) / 1.3,
        False,
        ["consistency: score 40 below 50"],
    ),
    (
        "consistency 0 means no score: no veto",
        [r("validator", 100), r("critic", 100), r("consistency", 0)],
        100 / 1.3,
        True,
        [],
    ),
    (
        "consistency at 50: no veto",
        [r("validator", 100), r("critic", 100), r("consistency", 50)],
        115 / 1.3,
        True,
        [],
    ),
    (
        "scores trusted over a non-required reviewer's approved flag",
        [r("validator", 100), r("critic", 90, approved=False)],
        94.0,
        True,
        [],
    ),
    (
        "known_wrong_fact without a fact-check: veto, no short-circuit",
        [r("validator", 90, approved=False, findings=(KWF,)), r("critic", 90)],
        90.0,
        False,
        ["known wrong fact"],
    ),
    (
        # cleared: the validator gets its 10 points back -> (100 x .4 + 90 x .6 + 100 x .3) / 1.3
        "known_wrong_fact cleared by web_factcheck",
        [
            r("validator", 90, approved=False, findings=(KWF,)),
            r("critic", 90),
            r("web_factcheck", 100, findings=(VERIFIED,)),
        ],
        124 / 1.3,
        True,
        [],
    ),
    (
        "fact_verified at another span does not clear",
        [
            r("validator", 90, approved=False, findings=(KWF,)),
            r("critic", 90),
            r(
                "web_factcheck",
                100,
                findings=(Finding("fact_verified", Severity.INFO, "x", Span(50, 60, "other")),),
            ),
        ],
        (36 + 54 + 30) / 1.3,
        False,
        ["known wrong fact"],
    ),
    (
        "a fact-check that errored does not clear",
        [
            r("validator", 90, approved=False, findings=(KWF,)),
            r("critic", 90),
            r("web_factcheck", 0, status=ERROR, findings=(VERIFIED,)),
        ],
        90.0,
        False,
        ["known wrong fact"],
    ),
    (
        "penalty clamps at 0",
        [r("validator", 40, findings=warnings(20)), r("critic", 0)],
        0.0,
        False,
        [],
    ),
    (
        "no score at all",
        [r("validator", 0, status=ERROR), r("critic", 0, status=SKIPPED)],
        0.0,
        False,
        ["no score"],
    ),
    (
        "validator errored, critic scored: mean over what scored",
        [r("validator", 0, status=ERROR), r("critic", 80), r("urls", 100)],
        (48 + 30) / 0.9,
        True,
        [],
    ),
]


@pytest.mark.parametrize(
    ("results", "final", "approved", "vetoes"),
    [pytest.param(*case[1:], id=case[0]) for case in WORKED_EXAMPLES],
)
def test_worked_examples(
    results: list[ReviewerResult], final: float, approved: bool, vetoes: list[str]
) -> None:
    outcome = aggregate(results, S)
    assert outcome.final_score == pytest.approx(final)
    assert outcome.approved is approved
    assert len(outcome.vetoes) == len(vetoes)
    for expected, actual in zip(vetoes, outcome.vetoes, strict=True):
        assert expected in actual
    assert not outcome.short_circuited


def test_validator_critical_short_circuits_with_validator_score() -> None:
    results = [
        r("validator", 87, approved=False, findings=(critical("placeholder"), *warnings(1))),
        r("critic", 100),
        r("urls", 100),
    ]
    outcome = aggregate(results, S, expected=["validator", "critic", "urls", "vision"])
    assert outcome.short_circuited
    assert not outcome.approved
    assert outcome.final_score == 87.0
    assert outcome.vetoes == ("validator critical: placeholder",)
    assert outcome.missing_reviewers == ("vision",)
    assert "short-circuit" in outcome.summary


def test_short_circuit_ignores_known_wrong_fact_but_not_other_criticals() -> None:
    both = r("validator", 80, approved=False, findings=(KWF, critical("prompt_injection")))
    assert aggregate([both, r("critic", 100)], S).short_circuited
    only_fact = r("validator", 90, approved=False, findings=(KWF,))
    assert not aggregate([only_fact, r("critic", 100)], S).short_circuited


def test_validator_only_flag_and_critic_skipped_alias() -> None:
    outcome = aggregate([r("validator", 90), r("critic", 0, status=SKIPPED)], S)
    assert outcome.validator_only and outcome.critic_skipped
    assert "validator-only" in outcome.summary
    assert not aggregate([r("validator", 90), r("critic", 90)], S).validator_only


@pytest.mark.parametrize(("critic", "expected"), [(50, True), (60, False), (59, True)])
def test_disagreement_flags_human_review(critic: float, expected: bool) -> None:
    # spread 100 - critic; flagged when above qa_disagreement_spread (40)
    outcome = aggregate([r("validator", 100), r("critic", critic)], S)
    assert outcome.needs_human_review is expected


def test_settings_change_the_arithmetic() -> None:
    results = [r("validator", 100), r("critic", 50)]
    heavy_critic = S.with_overrides(qa_validator_weight=0.0, qa_critic_weight=1.0)
    assert aggregate(results, heavy_critic).final_score == 50.0
    zero = S.with_overrides(qa_validator_weight=0.0, qa_critic_weight=0.0, qa_gate_weight=0.0)
    assert aggregate(results, zero).final_score == 75.0  # all weights 0: plain mean
    lenient = S.with_overrides(qa_final_score_threshold=60.0)
    assert aggregate([r("validator", 100), r("critic", 40)], lenient).approved
    nothing_required = S.with_overrides(qa_required_to_pass="")
    vetoed = [r("validator", 100), r("critic", 100), r("urls", 60, approved=False)]
    assert aggregate(vetoed, nothing_required).approved
    critic_required = S.with_overrides(qa_required_to_pass="urls,critic")
    assert not aggregate(
        [r("validator", 100), r("critic", 95, approved=False)], critic_required
    ).approved
    penalty = S.with_overrides(content_validator_warning_qa_penalty=10.0)
    assert aggregate(
        [r("validator", 100, findings=warnings(1)), r("critic", 100)], penalty
    ).final_score == pytest.approx(90.0)


def test_first_result_per_reviewer_wins_and_order_does_not_matter() -> None:
    first = [r("validator", 90), r("critic", 80), r("critic", 10)]
    assert aggregate(first, S).final_score == pytest.approx(84.0)
    shuffled = [r("urls", 100), r("critic", 80), r("validator", 90)]
    again = [r("validator", 90), r("urls", 100), r("critic", 80)]
    assert aggregate(shuffled, S) == aggregate(again, S)


def test_missing_reviewers_are_expected_minus_answered() -> None:
    outcome = aggregate(
        [r("validator", 90), r("critic", 0, status=SKIPPED)],
        S,
        expected=["validator", "critic", "urls", "citations", "urls"],
    )
    assert outcome.missing_reviewers == ("urls", "citations")


# --- early decision ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("results", "pending", "settled"),
    [
        pytest.param([r("validator", 100), r("critic", 90)], [], True, id="nothing pending"),
        pytest.param(
            [r("validator", 70, approved=False, findings=(critical("placeholder"),))],
            ["critic", "urls"],
            True,
            id="short-circuit",
        ),
        pytest.param([r("validator", 100)], ["critic", "urls"], False, id="all still possible"),
        # best critic 100: 0.4 x 30 + 0.6 x 100 = 72 -> reachable
        pytest.param([r("validator", 30)], ["critic"], False, id="critic could rescue"),
        # 0.4 x 20 + 60 = 68, and without a critic the score is 20: out of reach
        pytest.param([r("validator", 20)], ["critic"], True, id="out of reach either way"),
        # validator-only would give 75 if the critic never answers: not settled
        pytest.param([r("validator", 75)], ["critic", "urls"], False, id="critic may skip"),
        # (40 + 0.6 x 20 + 30 + 30) / 1.6 = 70 -> reachable
        pytest.param(
            [r("validator", 100), r("critic", 20)],
            ["urls", "consistency"],
            False,
            id="gates could lift",
        ),
        pytest.param(
            [r("validator", 100), r("critic", 10)],
            ["urls", "consistency"],
            True,
            id="gates cannot lift",
        ),
        pytest.param(
            [r("validator", 100), r("critic", 100), r("urls", 0, approved=False, veto="dead")],
            ["consistency", "vision"],
            True,
            id="certain veto",
        ),
        pytest.param(
            [r("validator", 90, approved=False, findings=(KWF,)), r("critic", 95)],
            ["web_factcheck"],
            False,
            id="fact-check pending may clear",
        ),
        pytest.param(
            [
                r("validator", 90, approved=False, findings=(KWF,)),
                r("critic", 95),
                r("web_factcheck", 100),
            ],
            ["urls"],
            True,
            id="fact-check answered without clearing",
        ),
        pytest.param(
            [r("validator", 90, approved=False, findings=(KWF,)), r("critic", 95)],
            ["urls"],
            True,
            id="no fact-check coming",
        ),
    ],
)
def test_is_settled(results: list[ReviewerResult], pending: list[str], settled: bool) -> None:
    assert is_settled(results, pending, S) is settled


def test_is_settled_never_contradicts_a_possible_outcome() -> None:
    """Whenever is_settled says so, no combination of pending answers approves."""
    pending = ["critic", "urls", "consistency"]
    for validator_score in range(0, 101, 5):
        base = [r("validator", validator_score)]
        if not is_settled(base, pending, S):
            continue
        for critic in (None, 0, 50, 100):
            for urls in (None, 100):
                results = list(base)
                if critic is not None:
                    results.append(r("critic", critic))
                if urls is not None:
                    results.append(r("urls", urls))
                results.append(r("consistency", 100))
                assert not aggregate(results, S).approved


# --- the decision record -------------------------------------------------------------------------

DECIDED_AT = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


def draft(**changes: object) -> DraftSubmitted:
    values: dict[str, object] = {
        "draft_id": "d-1",
        "version": 3,
        "title": "T",
        "content": "C",
        "task_id": "task-9",
    }
    values.update(changes)
    return DraftSubmitted(**values)  # type: ignore[arg-type]


def stamped(result: ReviewerResult, d: DraftSubmitted) -> ReviewerResult:
    from dataclasses import replace

    return replace(result, draft_id=d.draft_id, version=d.version)


def test_build_decision_is_deterministic_and_order_independent() -> None:
    d = draft()
    results = [
        stamped(r("critic", 80, feedback="solid"), d),
        stamped(r("validator", 90), d),
        stamped(r("urls", 100), d),
    ]
    one = build_decision(
        d, results, S, expected=["validator", "critic", "urls", "vision"], decided_at=DECIDED_AT
    )
    two = build_decision(
        d,
        list(reversed(results)),
        S,
        expected=["validator", "critic", "urls", "vision"],
        decided_at=DECIDED_AT,
    )
    assert one == two
    assert one.decision_id == str(uuid.uuid5(DECISION_NAMESPACE, "d-1:3")) == decision_id("d-1", 3)
    assert one.task_id == "task-9"
    assert [rv.reviewer for rv in one.reviews] == ["validator", "critic", "urls"]
    assert one.missing_reviewers == ("vision",)
    assert one.settings_version == S.version()
    assert one.feedback_text.startswith("QA APPROVED")
    assert one.approved and one.final_score == pytest.approx((36 + 48 + 30) / 1.3)


def test_build_decision_flags_and_foreign_results() -> None:
    d = draft()
    other = stamped(r("critic", 0), draft(draft_id="other"))
    old_version = stamped(r("urls", 0, approved=False), draft(version=2))
    decision = build_decision(
        d,
        [stamped(r("validator", 20), d), other, old_version],
        S,
        expected=["validator", "critic", "urls"],
        decided_at=DECIDED_AT,
        timed_out=True,
        early=True,
    )
    assert [rv.reviewer for rv in decision.reviews] == ["validator"]
    assert decision.timed_out and decision.early_decided
    assert not decision.approved and decision.final_score == 20.0
    assert decision.missing_reviewers == ("critic", "urls")


def test_short_circuit_decision_is_not_marked_early() -> None:
    d = draft()
    v = stamped(r("validator", 90, approved=False, findings=(critical("placeholder"),)), d)
    decision = build_decision(
        d, [v], S, expected=["validator", "critic"], decided_at=DECIDED_AT, early=True
    )
    assert decision.short_circuited and not decision.early_decided
    assert decision.vetoes == ("validator critical: placeholder",)
    assert "Blocked by:" in decision.feedback_text


def test_long_feedback_is_shortened_in_the_decision() -> None:
    d = draft()
    decision = build_decision(
        d,
        [stamped(r("validator", 90), d), stamped(r("critic", 90, feedback="x" * 10_000), d)],
        S,
        expected=["validator", "critic"],
        decided_at=DECIDED_AT,
    )
    assert len(decision.reviews[1].feedback) == 2000
    assert len(decision.feedback_text) <= 4000
