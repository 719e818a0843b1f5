"""Every valid record round-trips exactly; the wire format is Avro single-object encoding."""

from __future__ import annotations

import io
import json
from typing import Any

from fastavro import schemaless_reader
from hypothesis import given, settings

from schemas import (
    DeadLetter,
    DraftSubmitted,
    QADecision,
    ReviewerResult,
    decode,
    encode,
    from_dict,
    to_dict,
)
from schemas._schemas import load_dir
from tests.schemas.event_strategies import AT, dead_letters, decisions, drafts, records, results

# --- property tests: one per record type, so a failure names the type -------------------------


@settings(max_examples=150, deadline=None)
@given(drafts)
def test_every_draft_round_trips(record: DraftSubmitted) -> None:
    assert decode(encode(record), DraftSubmitted) == record


@settings(max_examples=150, deadline=None)
@given(results)
def test_every_reviewer_result_round_trips(record: ReviewerResult) -> None:
    assert decode(encode(record), ReviewerResult) == record


@settings(max_examples=150, deadline=None)
@given(decisions)
def test_every_decision_round_trips(record: QADecision) -> None:
    assert decode(encode(record), QADecision) == record


@settings(max_examples=150, deadline=None)
@given(dead_letters)
def test_every_dead_letter_round_trips(record: DeadLetter) -> None:
    assert decode(encode(record), DeadLetter) == record


@settings(max_examples=100, deadline=None)
@given(records)
def test_decode_without_expected_type_returns_the_written_type(record: Any) -> None:
    decoded = decode(encode(record))
    assert type(decoded) is type(record)
    assert decoded == record


@settings(max_examples=100, deadline=None)
@given(records)
def test_dict_and_json_forms_round_trip(record: Any) -> None:
    assert from_dict(type(record), to_dict(record)) == record
    as_json = json.loads(json.dumps(to_dict(record, json=True)))
    assert from_dict(type(record), as_json) == record


def test_decoded_values_have_the_record_types(result: ReviewerResult) -> None:
    decoded = decode(encode(result), ReviewerResult)
    assert type(decoded.provider).__name__ == "Provider"
    assert type(decoded.findings) is tuple
    assert type(decoded.findings[0].severity).__name__ == "Severity"
    assert decoded.produced_at == AT
    assert decoded.produced_at.utcoffset() is not None
    assert decoded.produced_at.utcoffset().total_seconds() == 0  # type: ignore[union-attr]


# --- the wire format --------------------------------------------------------------------------


def _crc64_avro(data: bytes) -> int:
    """CRC-64-AVRO exactly as the Avro specification writes it (the reference, not fastavro)."""
    empty = 0xC15D213AA4D7A795
    table = []
    for i in range(256):
        fp = i
        for _ in range(8):
            fp = (fp >> 1) ^ (empty & -(fp & 1))
        table.append(fp)
    fp = empty
    for byte in data:
        fp = (fp >> 8) ^ table[(fp ^ byte) & 0xFF]
    return fp


def test_header_is_c3_01_and_the_little_endian_fingerprint_of_the_canonical_form(
    result: ReviewerResult,
) -> None:
    data = encode(result)
    current = [s for s in load_dir() if s.record == "ReviewerResult"][-1]
    assert data[:2] == b"\xc3\x01"
    expected = _crc64_avro(current.canonical.encode("utf-8")).to_bytes(8, "little")
    assert data[2:10] == expected


def test_known_vector_from_the_spec() -> None:
    # The spec's primitive "int" has the fingerprint 0x7275d51a3f395c8f (Java's
    # SchemaNormalization.parsingFingerprint64), which guards the reference above.
    assert _crc64_avro(b'"int"') == 0x7275D51A3F395C8F


def test_body_is_plain_avro_a_third_party_reader_can_read(result: ReviewerResult) -> None:
    data = encode(result)
    current = [s for s in load_dir() if s.record == "ReviewerResult"][-1]
    body = io.BytesIO(data[10:])
    datum: Any = schemaless_reader(body, current.parsed, None)
    assert body.tell() == len(data) - 10
    assert datum["draft_id"] == "draft-42"
    assert datum["findings"][0]["span"] == {"start": 120, "end": 138, "text": "73% of developers"}
    assert datum["produced_at"] == AT


def test_json_form_is_what_the_readme_shows(result: ReviewerResult) -> None:
    as_json = to_dict(result, json=True)
    assert as_json["produced_at"] == "2026-05-17T09:30:12.345Z"
    assert as_json["provider"] == "ollama"
    assert as_json["findings"][0]["severity"] == "warning"
    assert as_json["cost"]["model"] == "gemma3"
