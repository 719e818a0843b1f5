"""The check the session-5 shape tests share: a sentence planted between two plain paragraphs,
then either some code of a family is critical and the draft rejected, or none of them fires."""

from __future__ import annotations

from agents.reviewers.validator import validate
from agents.settings import Settings


def _codes(text: str, pad: str, settings: Settings | None) -> tuple[set[str], bool]:
    report = validate(pad + text + "\n\n" + pad, settings=settings)
    return set(report.codes()), report.approved


def assert_rejected_by(
    text: str, pad: str, codes: set[str], settings: Settings | None = None
) -> None:
    found, approved = _codes(text, pad, settings)
    assert found & codes, text
    assert not approved, text


def assert_none_of(text: str, pad: str, codes: set[str], settings: Settings | None = None) -> None:
    found, _ = _codes(text, pad, settings)
    assert found & codes == set(), text
