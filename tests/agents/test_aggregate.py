"""The one aggregation: worked examples pin the arithmetic, every veto, the known_wrong_fact
second chance, validator-only mode, early decision and the decision record."""

from __future__ import annotations

import dataclasses
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
from agents.base import not_applicable
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
from tests.helpers.drafts import make_draft

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
# The arithmetic table runs with nothing required but the validator (always required), so that
# each case needs only the reviewers it is about; the required-reviewer rules have their own table.
FREE = S.with_overrides(qa_required_to_pass="")


def na(name: str) -> ReviewerResult:
    return not_applicable(name, Provider.UNKNOWN, "nothing to check")


# (id, results, final_score, approved, veto substrings)
WORKED_EXAMPLES = [
    ("validator+critic", [r("validator", 90), r("critic", 80)], 84.0, True, []),
    (
        # (94 x 0.4 + 70 x 0.6) / 1.0 = 79.6, minus 2 warnings x 3 = 73.6 (the seed's formula)
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
    (
        "just below: the critic veto and the threshold agree",
        [r("validator", 100), r("critic", 49)],
        69.4,
        False,
        ["critic: score 49 below the critic veto threshold 50"],
    ),
    (
        # critic skipped, nothing else answered: the validator's score, warnings charged once
        "without the critic: validator alone",
        [r("validator", 85, findings=warnings(5)), r("critic", 0, status=SKIPPED)],
        85.0,
        True,
        [],
    ),
    (
        "without the critic, low",
        [r("validator", 65), r("critic", 0, status=SKIPPED)],
        65.0,
        False,
        [],
    ),
    ("critic absent", [r("validator", 75)], 75.0, True, []),
    (
        # the gates count without the critic: (90 x 0.4 + 20 x 0.3) / 0.7
        "without the critic the gates count",
        [r("validator", 90), r("urls", 20, approved=True)],
        (36 + 6) / 0.7,
        False,
        [],
    ),
    (
        # validator 85 = 100 - 5 warnings x 3 enters as 100; the 15 points are charged once
        "without the critic, warnings charged exactly once",
        [r("validator", 85, findings=warnings(5)), r("urls", 100)],
        (40 + 30) / 0.7 - 15,
        True,
        [],
    ),
    (
        "scores trusted over the critic's own approved flag",
        [r("validator", 100), r("critic", 90, approved=False)],
        94.0,
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
        # the seed read 0 as "no score"; here status says that, so a 0 is the model's verdict
        "consistency 0 is a score and vetoes",
        [r("validator", 100), r("critic", 100), r("consistency", 0)],
        100 / 1.3,
        False,
        ["consistency: score 0 below 50"],
    ),
    (
        "consistency at 50: no veto, its own flag ignored",
        [r("validator", 100), r("critic", 100), r("consistency", 50, approved=False)],
        115 / 1.3,
        True,
        [],
    ),
    (
        "a gate that failed its own check vetoes, required or not",
        [r("validator", 100), r("critic", 100), r("urls", 60, approved=False, veto="2 dead links")],
        (40 + 60 + 18) / 1.3,
        False,
        ["urls: 2 dead links"],
    ),
    (
        "a failed gate without veto text: its feedback is the reason",
        [
            r("validator", 100),
            r("critic", 100),
            r("topic_delivery", 80, approved=False, feedback="no"),
        ],
        (40 + 60 + 24) / 1.3,
        False,
        ["topic_delivery: no"],
    ),
    (
        "a skipped gate is no veto",
        [r("validator", 100), r("critic", 100), r("urls", 0, status=SKIPPED, approved=False)],
        100.0,
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
        "a skipped fact-check does not clear",
        [
            r("validator", 90, approved=False, findings=(KWF,)),
            r("critic", 90),
            r("web_factcheck", 0, status=SKIPPED, findings=(VERIFIED,)),
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
        ["critic: score 0"],
    ),
    (
        "no score at all",
        [r("validator", 0, status=SKIPPED), r("critic", 0, status=SKIPPED)],
        0.0,
        False,
        ["no score", "required reviewer validator did not run"],
    ),
]


@pytest.mark.parametrize(
    ("results", "final", "approved", "vetoes"),
    [pytest.param(*case[1:], id=case[0]) for case in WORKED_EXAMPLES],
)
def test_worked_examples(
    results: list[ReviewerResult], final: float, approved: bool, vetoes: list[str]
) -> None:
    outcome = aggregate(results, FREE)
    assert outcome.final_score == pytest.approx(final)
    assert outcome.approved is approved
    assert len(outcome.vetoes) == len(vetoes), outcome.vetoes
    for expected, actual in zip(vetoes, outcome.vetoes, strict=True):
        assert expected in actual
    assert not outcome.short_circuited


# --- issue 12: each finding as a case, with the numbers that were seen -------------------------


def test_a_critic_at_10_is_not_outvoted_by_four_gates() -> None:
    """validator 100, critic 10 (not approved), consistency 90, topic 90, citations 100, urls 85:
    the seed's weighted mean is 70.7 (four gates at 0.3 outweigh the critic at 0.6) and used to
    approve; the critic veto rejects it whatever the gates scored."""
    results = [
        r("validator", 100),
        r("critic", 10, approved=False),
        r("consistency", 90),
        r("topic_delivery", 90),
        r("citations", 100),
        r("urls", 85),
    ]
    outcome = aggregate(results, S)
    assert outcome.final_score == pytest.approx(155.5 / 2.2)  # 70.68: the score is unchanged
    assert round(outcome.final_score, 1) == 70.7
    assert outcome.approved is False
    assert outcome.vetoes == ("critic: score 10 below the critic veto threshold 50",)
    assert "veto: critic: score 10" in outcome.summary
    # The veto is what rejects: switched off (0), the same results approve as they used to.
    assert aggregate(results, S.with_overrides(qa_critic_veto_threshold=0.0)).approved


def test_many_gates_cannot_outvote_one_failed_gate() -> None:
    """Eight gates at 100 do not carry a draft whose citations failed their own check."""
    gates = [r(name, 100) for name in ("consistency", "topic_delivery", "urls", "vision")]
    results = [
        r("validator", 100),
        r("critic", 100),
        *gates,
        r("citations", 50, approved=False, feedback="2 of 4 checked citations dead"),
    ]
    outcome = aggregate(results, S)
    assert outcome.final_score > 90
    assert not outcome.approved
    assert outcome.vetoes == ("citations: 2 of 4 checked citations dead",)


@pytest.mark.parametrize("critic", [10.0, 30.0, 49.9])
def test_critic_veto_holds_however_many_gates_score_100(critic: float) -> None:
    gates = [r(f"gate{i}", 100) for i in range(20)]
    outcome = aggregate([r("validator", 100), r("critic", critic), *gates], S)
    assert outcome.final_score > 90 and not outcome.approved


def test_not_applicable_is_not_a_score() -> None:
    """`urls` used to give 80 to a draft without external links, and that 80 entered the mean:
    validator 90 and critic 55 scored 71.5 and were approved; the mean over what had something
    to check is 69, rejected."""
    seen_before = aggregate(
        [r("validator", 90), r("critic", 55), r("urls", 80, feedback="no external links")], S
    )
    assert seen_before.final_score == pytest.approx((36 + 33 + 24) / 1.3) and seen_before.approved
    outcome = aggregate([r("validator", 90), r("critic", 55), na("urls"), na("topic_delivery")], S)
    assert outcome.final_score == pytest.approx(69.0)
    assert not outcome.approved and outcome.vetoes == ()
    assert outcome.not_applicable == ("topic_delivery", "urls")
    assert "not applicable: topic_delivery, urls" in outcome.summary
    # Not applicable satisfies qa_required_to_pass (default urls) and asks for no human.
    assert not outcome.needs_human_review
    assert aggregate([r("validator", 100), r("critic", 90), na("urls")], S).approved


def test_without_the_critic_deterministic_gates_still_count() -> None:
    """Validator-only mode used to ignore the gates: 2 of 4 cited sources dead, or 1 citation
    against qa_citation_min_count=3, still approved at 100."""
    critic_down = r("critic", 0, status=SKIPPED, feedback="critic skipped: Ollama not available")
    two_dead = r("citations", 50, approved=False, feedback="2 of 4 checked citations dead")
    outcome = aggregate([r("validator", 100), critic_down, two_dead, na("urls")], S)
    assert outcome.final_score == pytest.approx((40 + 15) / 0.7)  # mean over what answered
    assert not outcome.approved
    assert outcome.vetoes == ("citations: 2 of 4 checked citations dead",)
    assert outcome.validator_only and "without the critic" in outcome.summary

    too_few = r("citations", 100, approved=False, feedback="1 cited URLs; at least 3 required")
    outcome = aggregate([r("validator", 100), critic_down, too_few, na("urls")], S)
    assert outcome.final_score == 100.0 and not outcome.approved
    assert outcome.vetoes == ("citations: 1 cited URLs; at least 3 required",)


# (id, results, qa_required_to_pass, expected reviewers, veto substring)
REQUIRED_CASES = [
    (
        "critic skipped (model down)",
        [r("validator", 100), r("critic", 0, status=SKIPPED, feedback="Ollama not available")],
        "urls,critic",
        (),
        "required reviewer critic did not run: Ollama not available",
    ),
    (
        "critic errored",
        [r("validator", 100), r("critic", 0, status=ERROR, feedback="boom")],
        "critic",
        (),
        "critic errored: boom",
    ),
    (
        "critic timed out",
        [r("validator", 100)],
        "critic",
        ("validator", "critic"),
        "required reviewer critic did not answer (timed out)",
    ),
    (
        "required reviewer not enabled",
        [r("validator", 100), r("critic", 100)],
        "urls",
        ("validator", "critic"),
        "required reviewer urls did not answer (is not enabled or not deployed)",
    ),
    (
        "required urls skipped for another reason than not applicable",
        [r("validator", 100), r("critic", 100), r("urls", 0, status=SKIPPED, feedback="off")],
        "urls",
        (),
        "required reviewer urls did not run: off",
    ),
    (
        "the validator is always required",
        [r("critic", 100), r("urls", 100)],
        "",
        ("validator", "critic", "urls"),
        "required reviewer validator did not answer (timed out)",
    ),
]


@pytest.mark.parametrize(
    ("results", "required", "expected", "veto"),
    [pytest.param(*case[1:], id=case[0]) for case in REQUIRED_CASES],
)
def test_required_means_must_answer_ok_and_approve(
    results: list[ReviewerResult], required: str, expected: tuple[str, ...], veto: str
) -> None:
    outcome = aggregate(results, S.with_overrides(qa_required_to_pass=required), expected=expected)
    assert not outcome.approved
    assert outcome.needs_human_review
    assert any(veto in v for v in outcome.vetoes), outcome.vetoes
    assert "needs human review" in outcome.summary


def test_required_critic_approves_by_score_or_its_own_flag() -> None:
    required = S.with_overrides(qa_required_to_pass="urls,critic")
    base = [r("validator", 100), na("urls")]
    # the seed's rule: approved = score >= 70 or the model's approved
    assert aggregate([*base, r("critic", 95, approved=False)], required).approved
    assert aggregate([*base, r("critic", 65, approved=True)], required).approved
    vetoed = aggregate([*base, r("critic", 65, approved=False)], required)
    assert not vetoed.approved
    assert vetoed.vetoes == ("required reviewer critic did not approve: no reason",)
    # not required: the same critic 65 is averaged in (0.4 x 100 + 0.6 x 65 = 79)
    assert aggregate([*base, r("critic", 65, approved=False)], S).approved


def test_an_error_blocks_approval_fail_closed() -> None:
    """A broken allowlist made the URL reviewers error on every draft, and a draft linking to a
    dead loopback URL was approved 97: the mean over the others. An error now blocks."""
    broken = r(
        "urls",
        0,
        status=ERROR,
        feedback="ValueError: qa_url_allowlist entry '10.0.0.0/33' is not a valid IP or CIDR",
    )
    outcome = aggregate([r("validator", 100), r("critic", 95), broken], S)
    assert outcome.final_score == pytest.approx(97.0)
    assert not outcome.approved and outcome.needs_human_review
    assert outcome.vetoes[0].startswith("urls errored: ValueError: qa_url_allowlist entry")
    # The validator failing to read fact_overrides with no copy: the same.
    facts_down = r("validator", 0, status=ERROR, feedback="fact_overrides unreadable")
    outcome = aggregate([facts_down, r("critic", 95), na("urls")], S)
    assert not outcome.approved and outcome.needs_human_review
    assert "validator errored: fact_overrides unreadable" in outcome.vetoes


def test_advisory_reviewers_count_but_do_not_veto() -> None:
    advisory = S.with_overrides(qa_advisory_reviewers="citations,consistency")
    results = [
        r("validator", 100),
        r("critic", 90),
        r("citations", 50, approved=False),
        r("consistency", 20),
        na("urls"),
    ]
    outcome = aggregate(results, advisory)
    assert outcome.final_score == pytest.approx((40 + 54 + 15 + 6) / 1.6)
    assert outcome.approved and outcome.vetoes == ()
    assert not aggregate(results, S).approved
    # an advisory reviewer's error does not block either (its verdict could not have)
    errored_advisory = [*results[:2], r("citations", 0, status=ERROR), na("urls")]
    assert aggregate(errored_advisory, advisory).approved
    # required beats advisory (the settings validator refuses both at once)
    both = S.with_overrides(qa_required_to_pass="citations", qa_advisory_reviewers="citations")
    assert not aggregate(results[:3], both).approved


def test_a_missing_normally_running_reviewer_asks_for_a_human() -> None:
    results = [r("validator", 100), r("critic", 90), na("urls")]
    expected = ["validator", "critic", "urls", "consistency"]
    outcome = aggregate(results, S, expected=expected)
    assert outcome.approved  # not required: decided on what answered ...
    assert outcome.needs_human_review  # ... and a human is told what is missing
    assert outcome.review_reasons == ("consistency did not answer before the decision (timed out)",)
    # decided early (nothing could approve it): the cancelled reviewers need no human
    low = [r("validator", 60), r("critic", 40), na("urls")]
    early = aggregate(low, S, expected=expected, early=True)
    assert not early.approved and not early.needs_human_review


def test_findings_that_ask_for_a_human() -> None:
    from agents.reviewers.validator import HUMAN_REVIEW

    hint = Finding(HUMAN_REVIEW, Severity.INFO, "a person should decide: possible_prompt_injection")
    outcome = aggregate([r("validator", 97, findings=(hint,)), r("critic", 90), na("urls")], S)
    assert outcome.approved and outcome.needs_human_review
    assert outcome.review_reasons == (
        "validator: needs_human_review: a person should decide: possible_prompt_injection",
    )


def test_validator_constants_match_the_validator() -> None:
    import sys

    from agents.reviewers.validator._core import CRITICAL_POINTS, WARNING_POINTS

    agg = sys.modules["agents.aggregate"]

    assert (agg._CRITICAL_POINTS, agg._WARNING_POINTS) == (CRITICAL_POINTS, WARNING_POINTS)


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
    outcome = aggregate([r("validator", 90), r("critic", 0, status=SKIPPED)], FREE)
    assert outcome.validator_only and outcome.critic_skipped
    assert "without the critic" in outcome.summary
    assert not aggregate([r("validator", 90), r("critic", 90)], FREE).validator_only


@pytest.mark.parametrize(("critic", "expected"), [(50, True), (60, False), (59, True)])
def test_disagreement_flags_human_review(critic: float, expected: bool) -> None:
    # spread 100 - critic; flagged when above qa_disagreement_spread (40)
    outcome = aggregate([r("validator", 100), r("critic", critic)], FREE)
    assert outcome.needs_human_review is expected
    if expected:
        assert outcome.review_reasons[0].startswith("reviewers disagree: scores spread")


def test_settings_change_the_arithmetic() -> None:
    results = [r("validator", 100), r("critic", 50)]
    heavy_critic = FREE.with_overrides(qa_validator_weight=0.0, qa_critic_weight=1.0)
    assert aggregate(results, heavy_critic).final_score == 50.0
    zero = FREE.with_overrides(qa_validator_weight=0.0, qa_critic_weight=0.0, qa_gate_weight=0.0)
    assert aggregate(results, zero).final_score == 75.0  # all weights 0: plain mean
    lenient = FREE.with_overrides(qa_final_score_threshold=60.0, qa_critic_veto_threshold=30.0)
    assert aggregate([r("validator", 100), r("critic", 40)], lenient).approved
    strict_critic = FREE.with_overrides(qa_critic_veto_threshold=70.0)
    assert not aggregate([r("validator", 100), r("critic", 69)], strict_critic).approved
    penalty = FREE.with_overrides(content_validator_warning_qa_penalty=10.0)
    assert aggregate(
        [r("validator", 100, findings=warnings(1)), r("critic", 100)], penalty
    ).final_score == pytest.approx(90.0)


def test_first_result_per_reviewer_wins_and_order_does_not_matter() -> None:
    first = [r("validator", 90), r("critic", 80), r("critic", 10)]
    assert aggregate(first, FREE).final_score == pytest.approx(84.0)
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
        # (0.4 x 60 + 0.6 x 55 + 30 + 30) / 1.6 = 73 -> reachable
        pytest.param(
            [r("validator", 60), r("critic", 55)],
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
    assert is_settled(results, pending, FREE) is settled


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


def stamped(result: ReviewerResult, d: DraftSubmitted) -> ReviewerResult:
    from dataclasses import replace

    return replace(result, draft_id=d.draft_id, version=d.version)


def test_build_decision_is_deterministic_and_order_independent() -> None:
    d = make_draft(version=3, task_id="task-9")
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
    d = make_draft()
    other = stamped(r("critic", 0), make_draft(draft_id="other"))
    old_version = stamped(r("urls", 0, approved=False), make_draft(version=2))
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
    d = make_draft()
    v = stamped(r("validator", 90, approved=False, findings=(critical("placeholder"),)), d)
    decision = build_decision(
        d, [v], S, expected=["validator", "critic"], decided_at=DECIDED_AT, early=True
    )
    assert decision.short_circuited and not decision.early_decided
    assert decision.vetoes == ("validator critical: placeholder",)
    assert "Blocked by:" in decision.feedback_text


def test_long_feedback_is_shortened_in_the_decision() -> None:
    d = make_draft()
    decision = build_decision(
        d,
        [stamped(r("validator", 90), d), stamped(r("critic", 90, feedback="x" * 10_000), d)],
        S,
        expected=["validator", "critic"],
        decided_at=DECIDED_AT,
    )
    assert len(decision.reviews[1].feedback) == 2000
    assert len(decision.feedback_text) <= 4000


def test_a_possible_injection_read_by_a_model_is_not_approved() -> None:
    """Rule 9: "the editor already approved this" is only a warning for the validator, but the
    critic read it, so its 95 may have been bought."""
    maybe = (Finding("possible_prompt_injection", Severity.WARNING, "reads like an instruction"),)
    validator = r("validator", 97, findings=maybe)
    free = S.with_overrides(qa_required_to_pass="")
    outcome = aggregate([validator, r("critic", 95)], free)
    assert not outcome.approved and outcome.needs_human_review
    assert any("possible injection" in v and "critic" in v for v in outcome.vetoes)
    # The same warning with no model's answer: nothing could be bought (charged and flagged only).
    alone = aggregate([validator], free)
    assert alone.approved and alone.final_score == 97.0 and not alone.vetoes
    # Nor can a link checker be talked into anything.
    urls = dataclasses.replace(r("urls", 100), provider=Provider.URL_VERIFIER)
    assert aggregate([validator, urls], free).approved
    # Another warning is no reason to distrust the critic.
    assert aggregate([r("validator", 97, findings=warnings(1)), r("critic", 95)], free).approved
