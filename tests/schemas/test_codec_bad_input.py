"""Every bad input of the issue raises its one specific CodecError, with the reason and the offset
of the offending bytes. Bad payloads are written with plain fastavro, the way a buggy or hostile
producer would, since the codec itself refuses to write them."""

from __future__ import annotations

import dataclasses
import io
import pickle
import struct
from datetime import UTC, datetime
from typing import Any

import pytest
from fastavro import parse_schema, schemaless_writer

from schemas import (
    BadMagicError,
    Codec,
    CodecError,
    CorruptBodyError,
    DraftSubmitted,
    Finding,
    InvalidRecordError,
    Limits,
    OversizeError,
    ReviewerResult,
    Severity,
    Span,
    TrailingBytesError,
    TruncatedError,
    UnknownSchemaError,
    WrongRecordTypeError,
    decode,
    encode,
    to_dict,
)
from tests.schemas.event_strategies import AT, load_avsc, raw_payload

RESULT_CURRENT = "ReviewerResult.v3.avsc"
DRAFT_V1 = "DraftSubmitted.v1.avsc"


def field_start(avsc: str, record: Any, field: str) -> int:
    """Where `field` starts in an encoded record, computed independently of the codec: the
    length of the single-object header plus the fields before it, written by fastavro."""
    schema = load_avsc(avsc)
    names = [f["name"] for f in schema["fields"]]
    schema["fields"] = schema["fields"][: names.index(field)]
    out = io.BytesIO()
    datum = to_dict(record)
    schemaless_writer(out, parse_schema(schema, named_schemas={}), {n: datum[n] for n in names})
    return 10 + len(out.getvalue())


def result_payload(result: ReviewerResult, **changes: Any) -> bytes:
    return raw_payload(RESULT_CURRENT, {**to_dict(result), **changes})


def draft_payload(draft: DraftSubmitted, **changes: Any) -> bytes:
    return raw_payload(DRAFT_V1, {**to_dict(draft), **changes})


# --- framing ----------------------------------------------------------------------------------


def test_unknown_fingerprint(result: ReviewerResult) -> None:
    data = bytearray(encode(result))
    data[2:10] = bytes.fromhex("0123456789abcdef")
    with pytest.raises(UnknownSchemaError) as caught:
        decode(bytes(data))
    assert caught.value.offset == 2
    assert "0123456789abcdef" in caught.value.reason


@pytest.mark.parametrize(
    ("payload", "offset"),
    [
        (b'{"draft_id": "d"}', 0),  # JSON where Avro was expected
        (b"\x7f\x01" + bytes(20), 0),
        (b"\xc3\x02" + bytes(20), 1),  # right first byte, wrong second
    ],
)
def test_wrong_magic(payload: bytes, offset: int) -> None:
    with pytest.raises(BadMagicError) as caught:
        decode(payload)
    assert caught.value.offset == offset
    assert "0x" in caught.value.reason


def test_confluent_framing_without_a_registry_names_the_schema_id(result: ReviewerResult) -> None:
    payload = b"\x00\x00\x00\x00\x07" + encode(result)[10:]
    with pytest.raises(UnknownSchemaError) as caught:
        decode(payload)
    assert caught.value.offset == 1
    assert "schema id 7" in caught.value.reason


def test_every_truncation_is_truncated_error(result: ReviewerResult) -> None:
    data = encode(result)
    for cut in range(len(data)):
        with pytest.raises(TruncatedError) as caught:
            decode(data[:cut])
        assert caught.value.offset == cut  # where more bytes were needed


def test_truncated_body_names_the_field(result: ReviewerResult) -> None:
    data = encode(result)
    start = data.index(result.feedback.encode())
    with pytest.raises(TruncatedError) as caught:
        decode(data[: start + 5])
    assert caught.value.field == "feedback"
    assert caught.value.offset == start + 5
    assert "feedback" in str(caught.value)


def test_trailing_garbage(result: ReviewerResult) -> None:
    data = encode(result)
    with pytest.raises(TrailingBytesError) as caught:
        decode(data + b"\x00garbage")
    assert caught.value.offset == len(data)
    assert "8 bytes left" in caught.value.reason


def test_empty_payload() -> None:
    with pytest.raises(TruncatedError) as caught:
        decode(b"")
    assert caught.value.offset == 0


def test_a_draft_where_a_reviewer_result_was_expected(draft: DraftSubmitted) -> None:
    with pytest.raises(WrongRecordTypeError) as caught:
        decode(encode(draft), ReviewerResult)
    assert "expected ReviewerResult, got DraftSubmitted" in caught.value.reason
    assert caught.value.offset == 2


# --- schema-valid, semantically invalid -------------------------------------------------------


@pytest.mark.parametrize("score", [150.0, -0.5, 100.000001, float("nan"), float("inf")])
def test_score_outside_0_100(result: ReviewerResult, score: float) -> None:
    data = result_payload(result, score=score)
    with pytest.raises(InvalidRecordError) as caught:
        decode(data)
    err = caught.value
    assert type(err) is InvalidRecordError
    assert err.field == "score"
    assert "0-100" in err.reason
    # The offset points at the offending double itself.
    assert err.offset is not None
    (at_offset,) = struct.unpack("<d", data[err.offset : err.offset + 8])
    assert at_offset == score or (score != score and at_offset != at_offset)


def test_empty_draft_id(draft: DraftSubmitted) -> None:
    with pytest.raises(InvalidRecordError) as caught:
        decode(draft_payload(draft, draft_id=""))
    assert caught.value.field == "draft_id"
    assert caught.value.offset == 10  # the first field, right after the header
    assert "empty" in caught.value.reason


def test_blank_draft_id_and_version_below_1(draft: DraftSubmitted) -> None:
    with pytest.raises(InvalidRecordError, match="draft_id"):
        decode(draft_payload(draft, draft_id="   "))
    with pytest.raises(InvalidRecordError) as caught:
        decode(draft_payload(draft, version=0))
    assert caught.value.field == "version"
    assert caught.value.offset == 10 + 1 + len(draft.draft_id)  # after the draft_id string


@pytest.mark.parametrize("draft_id", ["__offsets__:qa.drafts:0", "__settings__:0", "__"])
def test_a_draft_id_that_would_name_the_aggregators_own_keys(
    draft: DraftSubmitted, draft_id: str
) -> None:
    # `<draft_id>:<version>` is the aggregator's table key: such an id would collide with its
    # input offsets or stored settings. Refused on encode (the writer) and on decode (a producer
    # without the check), so it is dead-lettered, never applied.
    with pytest.raises(InvalidRecordError) as on_encode:
        encode(dataclasses.replace(draft, draft_id=draft_id))
    assert on_encode.value.field == "draft_id" and "reserved" in on_encode.value.reason
    with pytest.raises(InvalidRecordError, match="reserved"):
        decode(draft_payload(draft, draft_id=draft_id))
    encode(dataclasses.replace(draft, draft_id="_one_underscore__is_fine"))


def test_a_50_mb_content_field(draft: DraftSubmitted) -> None:
    huge = dataclasses.replace(draft, content="x" * (50 * 1024 * 1024))
    with pytest.raises(OversizeError) as on_encode:
        encode(huge)
    assert on_encode.value.field == "content"
    assert str(Limits().max_content_bytes) in on_encode.value.reason
    # A producer without the check: refused by size before a byte of it is parsed.
    data = draft_payload(draft, content=huge.content)
    with pytest.raises(OversizeError) as on_decode:
        decode(data)
    assert on_decode.value.offset == Limits().max_payload_bytes
    assert str(len(data)) in on_decode.value.reason


def test_content_over_a_configured_maximum(draft: DraftSubmitted) -> None:
    strict = Codec(limits=Limits(max_content_bytes=1000, max_payload_bytes=64 * 1024))
    long = dataclasses.replace(draft, content="é" * 600)  # 600 characters, 1200 UTF-8 bytes
    with pytest.raises(OversizeError, match="1200 bytes"):
        strict.encode(long)
    data = encode(long)  # fine under the default limits
    with pytest.raises(OversizeError) as caught:
        strict.decode(data)
    assert caught.value.field == "content"
    assert data[caught.value.offset :].startswith(b"\xe0\x12")  # the zigzag varint of 1200
    assert isinstance(caught.value, InvalidRecordError)


def test_a_reader_result_that_breaks_a_nested_rule(result: ReviewerResult) -> None:
    datum = to_dict(result)
    datum["findings"][0]["span"] = {"start": 50, "end": 10, "text": "x"}
    with pytest.raises(InvalidRecordError) as caught:
        decode(raw_payload(RESULT_CURRENT, datum))
    assert caught.value.field == "findings[0].span"
    assert caught.value.offset is not None


# --- corrupt bodies ---------------------------------------------------------------------------


def test_invalid_utf8(result: ReviewerResult) -> None:
    data = bytearray(encode(result))
    at = data.index(b"Solid")
    data[at] = 0xFF
    with pytest.raises(CorruptBodyError) as caught:
        decode(bytes(data))
    assert caught.value.field == "feedback"
    assert "UTF-8" in caught.value.reason
    assert caught.value.offset == at - 1  # the string's length varint (one byte: 46 chars)


def test_union_branch_out_of_range(result: ReviewerResult) -> None:
    data = bytearray(encode(result))
    veto_at = field_start(RESULT_CURRENT, result, "veto")
    assert data[veto_at] == 0x00  # null: union branch 0
    data[veto_at] = 0x0A  # branch 5 of a 2-branch union
    with pytest.raises(CorruptBodyError) as caught:
        decode(bytes(data))
    assert caught.value.field == "veto"
    assert caught.value.offset == veto_at
    assert "out of range" in caught.value.reason


def test_version_over_32_bits(result: ReviewerResult) -> None:
    # fastavro reads an Avro int with its long reader; a 33-bit value must not pass.
    data = encode(result)
    version_at = field_start(RESULT_CURRENT, result, "version")
    assert data[version_at] == 0x06  # zigzag 3
    bad = data[:version_at] + b"\x80\x80\x80\x80\x20" + data[version_at + 1 :]
    with pytest.raises(CorruptBodyError) as caught:
        decode(bad)
    assert caught.value.field == "version"
    assert caught.value.offset == version_at
    assert "int range" in caught.value.reason


def test_timestamp_out_of_range(result: ReviewerResult) -> None:
    data = encode(result)
    start = field_start(RESULT_CURRENT, result, "produced_at")
    end = field_start(RESULT_CURRENT, result, "settings_version")
    year_12_million = _zigzag_varint(400 * 10**15)
    bad = data[:start] + year_12_million + data[end:]
    with pytest.raises(CorruptBodyError) as caught:
        decode(bad)
    assert caught.value.field == "produced_at"
    assert caught.value.offset == start


def _zigzag_varint(value: int) -> bytes:
    value = (value << 1) ^ (value >> 63)
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


# --- encoding refuses invalid records ---------------------------------------------------------


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"score": 101.0}, "score"),
        ({"score": float("nan")}, "score"),
        ({"score": "90"}, "score"),
        ({"draft_id": ""}, "draft_id"),
        ({"version": 0}, "version"),
        ({"version": 2**31}, "version"),
        ({"version": True}, "version"),
        ({"provider": "gemini"}, "provider"),
        ({"produced_at": datetime(2026, 1, 1)}, "produced_at"),
        ({"produced_at": datetime(2026, 1, 1, 0, 0, 0, 1, tzinfo=UTC)}, "produced_at"),
        ({"feedback": "lone \ud800 surrogate"}, "feedback"),
        ({"findings": [Finding("x", Severity.INFO, "m")]}, "findings"),
        (
            {"findings": (Finding("x", Severity.INFO, "m", Span(-1, 3, "abc")),)},
            "findings[0].span",
        ),
        ({"findings": (Finding("x", "fatal", "m"),)}, "findings[0].severity"),  # type: ignore[arg-type]
    ],
)
def test_encode_refuses(result: ReviewerResult, changes: dict[str, Any], field: str) -> None:
    bad = dataclasses.replace(result, **changes)
    with pytest.raises(InvalidRecordError) as caught:
        encode(bad)
    assert caught.value.field == field
    assert caught.value.offset is None  # nothing was written


def test_errors_survive_pickling_for_multiprocess_workers() -> None:
    err = TruncatedError("payload ends inside field 'x'", offset=12, field="x")
    copy = pickle.loads(pickle.dumps(err))
    assert type(copy) is TruncatedError
    assert (copy.reason, copy.offset, copy.field, str(copy)) == (
        err.reason,
        12,
        "x",
        str(err),
    )
    assert isinstance(copy, CodecError) and isinstance(copy, ValueError)


def test_rules_of_the_other_records(draft: DraftSubmitted, result: ReviewerResult) -> None:
    from schemas import Cost, DeadLetter, QADecision, ReviewSummary

    decision = QADecision("id", "draft-42", 3, True, 80.0, "s", "f", decided_at=result.produced_at)
    letter = DeadLetter("qa.reviews", 0, 5, "BadMagicError", "x", b"raw", failed_at=AT)
    cases: list[tuple[Any, str]] = [
        (dataclasses.replace(decision, decision_id=""), "decision_id"),
        (dataclasses.replace(decision, final_score=-1.0), "final_score"),
        (
            dataclasses.replace(
                decision, reviews=(ReviewSummary("critic", "ollama", "ok", True, 101.0, ""),)
            ),
            "reviews[0].score",
        ),
        (dataclasses.replace(letter, source_partition=-2), "source_partition"),
        (dataclasses.replace(letter, source_offset=-5), "source_offset"),
        (dataclasses.replace(letter, error_type=" "), "error_type"),
        (dataclasses.replace(result, cost=Cost(usd=-0.01)), "cost.usd"),
        (dataclasses.replace(result, cost=Cost(kwh=float("inf"))), "cost.kwh"),
        (dataclasses.replace(result, reviewer=""), "reviewer"),
        (dataclasses.replace(draft, version=-3), "version"),
    ]
    for record, field in cases:
        with pytest.raises(InvalidRecordError) as caught:
            encode(record)
        assert caught.value.field == field, record
    assert decode(encode(letter)) == letter  # and the valid ones pass
    not_from_kafka = dataclasses.replace(letter, source_partition=-1, source_offset=-1)
    assert decode(encode(not_from_kafka), DeadLetter) == not_from_kafka
