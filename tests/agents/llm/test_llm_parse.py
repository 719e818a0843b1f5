"""The one answer parser: what models really send, and every bad answer the issue lists."""

from __future__ import annotations

import contextlib
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agents.llm import AnswerError, parse_json_answer, read_bool, read_score, read_scores
from agents.reviewers.critic import read_verdict

GOOD = {"approved": True, "quality_score": 82, "feedback": "Clear steps."}
GOOD_TEXT = json.dumps(GOOD)


@pytest.mark.parametrize(
    "answer",
    [
        pytest.param(GOOD_TEXT, id="plain"),
        pytest.param(f"```json\n{GOOD_TEXT}\n```", id="fenced-json"),
        pytest.param(f"```\n{GOOD_TEXT}\n```", id="fenced-bare"),
        pytest.param(f"```json{GOOD_TEXT}```", id="fenced-no-newline"),
        pytest.param(f"<think>Score it {{maybe 90}}. Hmm.</think>\n{GOOD_TEXT}", id="think"),
        pytest.param(f"<thinking>a</thinking>{GOOD_TEXT}", id="thinking-tag"),
        pytest.param(f"long reasoning with {{braces}}\n</think>\n{GOOD_TEXT}", id="think-no-open"),
        pytest.param(f"Here is my review:\n{GOOD_TEXT}\nHope this helps!", id="prose-around"),
        pytest.param(f"Sure! {{not json}} then {GOOD_TEXT}", id="brace-in-prose"),
        pytest.param(
            f"<think>x</think>Sure:\n```json\n{GOOD_TEXT}\n```\nDone.", id="think-prose-fence"
        ),
        pytest.param(json.dumps(GOOD, indent=2), id="pretty"),
    ],
)
def test_finds_the_answer_however_it_is_wrapped(answer: str) -> None:
    verdict = read_verdict(parse_json_answer(answer))
    assert (verdict.approved, verdict.score, verdict.feedback) == (True, 82.0, "Clear steps.")


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        pytest.param("", "empty answer", id="empty"),
        pytest.param("   \n", "empty answer", id="blank"),
        pytest.param("<think>still thinking about the score", "never ended", id="think-unclosed"),
        pytest.param("<think>done</think>", "only a reasoning trace", id="think-only"),
        pytest.param('{"approved": true, "quality_score": 8', "no JSON object", id="truncated"),
        pytest.param("I think this draft is good, 85/100.", "no JSON object", id="prose-only"),
        pytest.param("[1, 2, 3]", "no JSON object", id="array"),
        pytest.param('{"quality_score": NaN, "approved": true}', "NaN", id="nan-literal"),
        pytest.param('{"quality_score": Infinity}', "Infinity", id="inf-literal"),
    ],
)
def test_unparseable_answers_raise_answer_error_with_a_reason(answer: str, reason: str) -> None:
    with pytest.raises(AnswerError, match=reason):
        parse_json_answer(answer)


@pytest.mark.parametrize(
    ("score", "expected"),
    [(0, 0.0), (100, 100.0), (73.5, 73.5), ("85", 85.0), ("85/100", 85.0), ("85%", 85.0)],
)
def test_scores_accepted(score: object, expected: float) -> None:
    assert read_score({"s": score}, "s") == expected


@pytest.mark.parametrize(
    ("score", "reason"),
    [
        pytest.param(150, "outside 0-100", id="150"),
        pytest.param(-5, "outside 0-100", id="negative"),
        pytest.param(100.01, "outside 0-100", id="just-over"),
        pytest.param("ninety", "not a number", id="ninety"),
        pytest.param("NaN", "not a number", id="nan-text"),
        pytest.param(float("nan"), "not a finite", id="nan-float"),
        pytest.param(float("inf"), "not a finite", id="inf-float"),
        pytest.param(True, "boolean", id="bool"),
        pytest.param(None, "not a number", id="null"),
        pytest.param([90], "not a number", id="list"),
        pytest.param("9e99", "not a number", id="exponent-text"),
    ],
)
def test_bad_scores_refused_not_clamped(score: object, reason: str) -> None:
    with pytest.raises(AnswerError, match=reason):
        read_score({"s": score}, "s")


def test_missing_fields_are_named() -> None:
    with pytest.raises(AnswerError, match="'approved'"):
        read_verdict({"quality_score": 80, "feedback": ""})
    with pytest.raises(AnswerError, match="'score'"):
        read_verdict({"approved": True, "feedback": ""})


def test_bool_reader() -> None:
    assert read_bool({"a": "yes"}, "a") is True
    assert read_bool({"a": "False"}, "a") is False
    with pytest.raises(AnswerError):
        read_bool({"a": 1}, "a")


def test_score_lists_validate_every_item() -> None:
    assert read_scores({"s": [10, "20", 30.5]}, "s") == [10.0, 20.0, 30.5]
    with pytest.raises(AnswerError, match="outside"):
        read_scores({"s": [10, 150]}, "s")
    with pytest.raises(AnswerError, match="not a list"):
        read_scores({"s": "10, 20"}, "s")


def test_parsing_a_huge_adversarial_answer_is_bounded() -> None:
    # 200,000 "{" characters: the parser gives up after a bounded number of decode attempts.
    with pytest.raises(AnswerError):
        parse_json_answer("{" * 200_000)


@given(st.text(max_size=400))
def test_any_text_either_parses_to_an_object_or_raises_answer_error(text: str) -> None:
    with contextlib.suppress(AnswerError):
        assert isinstance(parse_json_answer(text), dict)
