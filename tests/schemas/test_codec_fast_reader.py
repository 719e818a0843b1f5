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


def _decoded_by(decode_one: Any, data: bytes) -> Any:
    try:
        return decode_one(data)
    except CodecError as exc:
        return (type(exc), exc.reason, exc.offset, exc.field)


def test_the_decoder_of_a_type_decodes_as_decode_does() -> None:
    """`schemas.decoder(T)` (one function for many events of one type: `multiqa rescore`) gives
    the record or the error `decode(data, T)` gives, on valid, mutated and random payloads."""
    rnd = random.Random(SEED + 2)
    seeds = _seeds()
    mutated, random_ = _mutations(rnd, seeds), _random(rnd, seeds)
    decoders: dict[type[Any], Any] = {
        ReviewerResult: _default.decoder(ReviewerResult),
        QADecision: _default.decoder(QADecision),
    }
    decoded = failed = 0
    payloads = [*seeds, *(next(mutated) if i % 3 else next(random_) for i in range(4_000))]
    for data in payloads:
        for expected, decode_one in decoders.items():
            want = _outcome(FULL, data, expected)
            assert _decoded_by(decode_one, data) == want, data.hex()
            failed += isinstance(want, tuple)
            decoded += not isinstance(want, tuple)
    assert decoded > 40 and failed > 1000


@pytest.mark.parametrize("length", [0, 63, 64, 65, 8191, 8192, 100_000])
def test_lengths_around_each_varint_size_read_alike_whole_and_cut(length: int) -> None:
    """Lengths that take one, two (read inline) and three or more bytes (read by _varint), and
    every payload cut inside or just past them: the same record or the same error both ways."""
    text = "x" * length
    result = ReviewerResult(
        "critic", True, 80.0, text, Provider.OLLAMA, draft_id="d", version=8191 + length,
        veto=text or None,
    )  # fmt: skip
    data = encode(result)
    one = _default.decoder(ReviewerResult)
    assert one(data) == decode(data, ReviewerResult) == FULL.decode(data) == result
    cuts = {*range(10, 40), *range(max(10, len(data) - 40), len(data))}
    for cut in sorted(cuts):
        want = _outcome(FULL, data[:cut], ReviewerResult)
        assert isinstance(want, tuple)
        assert _outcome(_default, data[:cut], ReviewerResult) == want
        assert _decoded_by(one, data[:cut]) == want


def _small_result() -> bytes:
    return encode(ReviewerResult("r", True, 1.0, "", Provider.OLLAMA, draft_id="d", version=1))


# Where the one-byte values of _small_result lie: header (10), reviewer's length byte and "r",
# then the approved flag, the score (8 bytes), feedback's length byte (""), provider, status.
_FLAG, _PROVIDER, _STATUS = 12, 22, 23


@pytest.mark.parametrize(("at", "outcomes"), [(_FLAG, {False}), (_PROVIDER, {True, False}),
                                             (_STATUS, {True, False})])  # fmt: skip
def test_every_byte_at_a_boolean_or_enum_reads_as_on_the_full_path(at: int, outcomes) -> None:
    """The fast reader looks a boolean or an enum index up by its byte: each of the 256 bytes
    there gives the record or the error the full path gives (fastavro reads any byte of a
    boolean; an enum byte past the symbols, or odd, is refused)."""
    data = bytearray(_small_result())
    agreed = set()
    for byte in range(256):
        data[at] = byte
        want = _outcome(FULL, bytes(data), ReviewerResult)
        assert _outcome(_default, bytes(data), ReviewerResult) == want, byte
        agreed.add(isinstance(want, tuple))
    assert agreed == outcomes  # True: some refused


@pytest.mark.parametrize("at", [_PROVIDER, _STATUS])
def test_an_enum_index_in_a_longer_varint_goes_to_the_full_path(at: int) -> None:
    """An index written in two bytes (0x80 | low bits, then 0) is still that index to fastavro:
    the fast reader declines it and the full path reads the same record."""
    data = _small_result()
    longer = data[:at] + bytes([0x80 | data[at], 0]) + data[at + 1 :]
    fast = _default._sides["ReviewerResult"].fast
    assert fast is not None
    with pytest.raises(NotFast):
        fast(longer, 10)
    assert decode(longer, ReviewerResult) == FULL.decode(longer) == decode(data)


def test_an_optional_field_in_a_longer_varint_goes_to_the_full_path() -> None:
    """The same for the branch index of an optional field (veto: null or a string)."""
    result = ReviewerResult("r", True, 1.0, "", Provider.OLLAMA, veto="v", draft_id="d", version=1)
    data = encode(result)
    at = data.index(b"\x02\x02v")  # branch 1 (the string), then its length 1 and "v"
    longer = data[:at] + b"\x82\x00" + data[at + 1 :]
    assert _outcome(_default, longer) == _outcome(FULL, longer)
    assert decode(longer, ReviewerResult) == result
