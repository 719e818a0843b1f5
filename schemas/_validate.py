"""The rules a schema cannot express. Checked on encode (never publish an invalid record) and on
decode (never hand an invalid record to a reviewer or the aggregator).

A rule names the offending field with the same dotted path the type checks use.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from schemas._errors import InvalidRecordError, OversizeError
from schemas.records import (
    Cost,
    DeadLetter,
    DraftSubmitted,
    Finding,
    QADecision,
    ReviewerResult,
    ReviewSummary,
)

__all__ = ["Limits", "validate"]

_MiB = 1024 * 1024


@dataclass(frozen=True, slots=True)
class Limits:
    """Size limits. Kafka's own default message limit is 1 MB; raise the broker's
    `message.max.bytes` (and the producer's `max_request_size`) if drafts may be larger."""

    # UTF-8 bytes of DraftSubmitted.content.
    max_content_bytes: int = 2 * _MiB
    # A whole encoded event, checked before decoding anything (so a 50 MB payload costs nothing).
    max_payload_bytes: int = 4 * _MiB

    def __post_init__(self) -> None:
        if self.max_content_bytes < 1 or self.max_payload_bytes < self.max_content_bytes:
            raise ValueError("need 1 <= max_content_bytes <= max_payload_bytes")


def validate(record: Any, limits: Limits) -> None:
    """Raise InvalidRecordError (or OversizeError) if `record` breaks a rule of the contract."""
    rule = _RULES.get(type(record))
    if rule is not None:
        rule(record, limits)


def _nonempty(value: str, field: str) -> None:
    if not value.strip():
        raise InvalidRecordError("must not be empty or blank", field=field)


# Draft ids are untrusted: one beginning with this would name one of the aggregator's own table
# keys (`__offsets__:...`, `__settings__:...`) instead of an entry, so it is refused everywhere.
RESERVED_ID_PREFIX = "__"


def _draft_id(value: str) -> None:
    _nonempty(value, "draft_id")
    if value.startswith(RESERVED_ID_PREFIX):
        raise InvalidRecordError(
            f"must not start with {RESERVED_ID_PREFIX!r} (reserved for the stream's own keys)",
            field="draft_id",
        )


def _version(value: int, field: str = "version") -> None:
    if value < 1:
        raise InvalidRecordError(f"version must be >= 1, got {value}", field=field)


def _score(value: float, field: str) -> None:
    if not math.isfinite(value) or not 0.0 <= value <= 100.0:
        raise InvalidRecordError(f"score must be within 0-100, got {value!r}", field=field)


def _amount(value: float, field: str) -> None:
    if not math.isfinite(value) or value < 0:
        raise InvalidRecordError(f"must be finite and >= 0, got {value!r}", field=field)


def _draft(d: DraftSubmitted, limits: Limits) -> None:
    _draft_id(d.draft_id)
    _version(d.version)
    # Cheap bound first: a str of n code points is at most 4n UTF-8 bytes.
    if len(d.content) * 4 > limits.max_content_bytes:
        size = len(d.content.encode("utf-8", "surrogatepass"))
        if size > limits.max_content_bytes:
            raise OversizeError(
                f"content is {size} bytes, over the maximum of {limits.max_content_bytes}",
                field="content",
            )


def _finding(f: Finding, field: str) -> None:
    _nonempty(f.code, f"{field}.code")
    if f.span is not None and not 0 <= f.span.start <= f.span.end:
        raise InvalidRecordError(
            f"span needs 0 <= start <= end, got {f.span.start}..{f.span.end}", field=f"{field}.span"
        )


def _cost(c: Cost) -> None:
    # The usual case in one expression (a comparison with NaN is false, so finite and >= 0);
    # the loop below names the offending field otherwise.
    if (
        c.tokens_in >= 0
        and c.tokens_out >= 0
        and c.duration_ms >= 0
        and c.parser_fallbacks >= 0
        and 0.0 <= c.usd < math.inf
        and 0.0 <= c.kwh < math.inf
    ):
        return
    for name in ("tokens_in", "tokens_out", "usd", "kwh", "duration_ms", "parser_fallbacks"):
        _amount(getattr(c, name), f"cost.{name}")


def _result(r: ReviewerResult, limits: Limits) -> None:
    _draft_id(r.draft_id)
    _version(r.version)
    _nonempty(r.reviewer, "reviewer")
    _score(r.score, "score")
    for i, finding in enumerate(r.findings):
        _finding(finding, f"findings[{i}]")
    _cost(r.cost)


def _summary(s: ReviewSummary, field: str) -> None:
    _nonempty(s.reviewer, f"{field}.reviewer")
    _score(s.score, f"{field}.score")


def _decision(d: QADecision, limits: Limits) -> None:
    _nonempty(d.decision_id, "decision_id")
    _draft_id(d.draft_id)
    _version(d.version)
    _score(d.final_score, "final_score")
    for i, review in enumerate(d.reviews):
        _summary(review, f"reviews[{i}]")


def _dead_letter(d: DeadLetter, limits: Limits) -> None:
    _nonempty(d.source_topic, "source_topic")
    _nonempty(d.error_type, "error_type")
    # -1: the bad event did not come from Kafka (e.g. an HTTP submission).
    for name in ("source_partition", "source_offset"):
        if getattr(d, name) < -1:
            raise InvalidRecordError(f"must be >= -1, got {getattr(d, name)}", field=name)


_RULES: dict[type[Any], Callable[[Any, Limits], None]] = {
    DraftSubmitted: _draft,
    ReviewerResult: _result,
    QADecision: _decision,
    DeadLetter: _dead_letter,
}
