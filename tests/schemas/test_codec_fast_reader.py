"""The codec's fast readers (schemas._fastread) change nothing but speed: every payload, valid or
not, decodes to the same record or raises the same error (type, reason, offset, field) as the full
path (fastavro + the plan + validation), and the fast reader really is what decodes valid events."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings

from schemas import (
    CodecError,
    InvalidRecordError,
    Provider,
    QADecision,
    ReviewerResult,
    decode,
    encode,
)
from schemas._codec import Codec, _default
from schemas._fastread import NotFast
from schemas._schemas import RECORD_TYPES
from tests.schemas.event_strategies import raw_payload, records
from tests.schemas.test_codec_fuzz import SEED, _mutations, _random, _seeds


def _full_path_codec() -> Codec:
    codec = Codec()
    for side in codec._sides.values():
        side.fast = None
    return codec


FULL = _full_path_codec()


def _outcome(codec: Codec, data: bytes, expected: type[Any] | None = None) -> Any:
    try:
        return codec.decode(data, expected)
    except CodecError as exc:
        return (type(exc), exc.reason, exc.offset, exc.field)


@settings(max_examples=300, database=None, deadline=None)
@given(records)
def test_valid_events_are_read_by_the_fast_reader_as_the_full_path_reads_them(record: Any) -> None:
    data = encode(record)
    side = _default._sides[type(record).__name__]
    assert side.fast is not None
    fast, end = side.fast(data, 10)
    assert end == len(data)
    assert fast == record == FULL.decode(data) == decode(data)
    assert type(fast) is type(record)


def test_every_record_type_has_a_fast_reader() -> None:
    assert {name for name, side in _default._sides.items() if side.fast is not None} == set(
        RECORD_TYPES
    )


def test_thousands_of_bad_payloads_fail_exactly_as_on_the_full_path() -> None:
    rnd = random.Random(SEED + 1)
    seeds = _seeds()
    mutated, random_ = _mutations(rnd, seeds), _random(rnd, seeds)
    decoded = failed = 0
    for i in range(6_000):
        data = next(mutated) if i % 3 else next(random_)
        expected = ReviewerResult if i % 7 == 0 else None
        want = _outcome(FULL, data, expected)
        assert _outcome(_default, data, expected) == want, data.hex()
        if isinstance(want, tuple):
            failed += 1
        else:
            decoded += 1
    assert decoded > 100 and failed > 1000  # both sides of the comparison were exercised


def _result_datum(**changes: Any) -> dict[str, Any]:
    result = ReviewerResult("critic", True, 80.0, "ok", Provider.OLLAMA, draft_id="d", version=1)
    datum: dict[str, Any] = _default.to_dict(result)
    datum.update(changes)
    return datum


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"score": 500.0}, "score"),
        ({"draft_id": "  "}, "draft_id"),
        ({"draft_id": "__offsets__:x"}, "draft_id"),
        ({"version": 0}, "version"),
        ({"reviewer": ""}, "reviewer"),
    ],
)
def test_a_well_formed_but_invalid_event_is_still_refused(
    changes: dict[str, Any], field: str
) -> None:
    """Validation is not skipped on the fast path: a hostile producer's record that reads fine
    is refused, with the field named, as before."""
    data = raw_payload("ReviewerResult.v3.avsc", _result_datum(**changes))
    with pytest.raises(InvalidRecordError) as caught:
        decode(data, ReviewerResult)
    assert caught.value.field == field
    assert _outcome(_default, data) == _outcome(FULL, data)


def test_what_the_fast_reader_declines_goes_to_the_full_path() -> None:
    """Oddities the fast reader does not vouch for (a boolean byte other than 0/1, a varint
    longer than 64 bits) are decoded by the full path, whatever it makes of them."""
    data = bytearray(
        encode(ReviewerResult("r", True, 1.0, "", Provider.OLLAMA, draft_id="d", version=1))
    )
    fast = _default._sides["ReviewerResult"].fast
    assert fast is not None
    flag = 10 + 1 + len(b"r")  # header, reviewer's length byte, "r": the approved flag
    assert data[flag] == 1
    data[flag] = 2
    with pytest.raises(NotFast):
        fast(bytes(data), 10)
    assert _outcome(_default, bytes(data)) == _outcome(FULL, bytes(data))


def test_decisions_too() -> None:
    decision = QADecision("id", "d", 1, True, 90.0, "s", "f", reviews=(), vetoes=("v",))
    data = encode(decision)
    assert decode(data, QADecision) == decision == FULL.decode(data, QADecision)
