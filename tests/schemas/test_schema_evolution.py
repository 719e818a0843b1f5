"""Evolution: released schemas never change, new versions are compatible both ways, and the codec
resolves any known writer schema against the reader's — proven with ReviewerResult v1, v2 and v3."""

from __future__ import annotations

import dataclasses
import io
import itertools
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from fastavro import parse_schema, schemaless_reader

from schemas import (
    Codec,
    Provider,
    QADecision,
    ReviewerResult,
    UnknownSchemaError,
    decode,
    encode,
)
from schemas._schemas import load_dir
from tests.schemas.event_strategies import AVRO_DIR, load_avsc

V1 = Codec(versions={"ReviewerResult": 1})  # a service built before v2 (with v2's file shipped)


def test_released_schema_files_are_pinned_and_unchanged() -> None:
    released = json.loads((AVRO_DIR / "RELEASED.json").read_text("utf-8"))
    released.pop("_doc")
    on_disk = {f"{s.record}.v{s.version}.avsc": s.fingerprint.hex() for s in load_dir()}
    # A new file must be added to RELEASED.json on purpose; a released one may only change docs.
    assert on_disk == released


def _check_added_and_removed(old: dict[str, Any], new: dict[str, Any], where: str) -> None:
    """Fields added or removed between two versions of a record have defaults, in nested records
    too (v3 added one to Cost)."""
    old_fields = {f["name"]: f for f in old["fields"]}
    new_fields = {f["name"]: f for f in new["fields"]}
    for name in new_fields.keys() - old_fields.keys():
        assert "default" in new_fields[name], f"{where}: added {name} needs a default"
    for name in old_fields.keys() - new_fields.keys():
        assert "default" in old_fields[name], f"{where}: removed {name} had none"
    for name in new_fields.keys() & old_fields.keys():
        a, b = old_fields[name]["type"], new_fields[name]["type"]
        if isinstance(a, dict) and isinstance(b, dict) and a.get("type") == "record":
            _check_added_and_removed(a, b, f"{where}.{name}")


def test_every_version_is_fully_compatible_with_the_previous_one() -> None:
    by_record: dict[str, list[Any]] = {}
    for schema in load_dir():
        by_record.setdefault(schema.record, []).append(schema)
    assert [s.version for s in by_record["ReviewerResult"]] == [1, 2, 3]
    for versions in by_record.values():
        for old, new in itertools.pairwise(versions):
            _check_added_and_removed(dict(old.raw), dict(new.raw), new.source)


def test_new_reader_reads_an_old_writers_event(result: ReviewerResult) -> None:
    old_bytes = V1.encode(result)
    v1 = next(s for s in load_dir() if s.record == "ReviewerResult" and s.version == 1)
    assert old_bytes[2:10] == v1.fingerprint  # really written with v1
    decoded = decode(old_bytes, ReviewerResult)
    # The field v1 did not have takes its default; everything else is exact.
    assert decoded.settings_version == ""
    assert decoded == dataclasses.replace(result, settings_version="")


def test_old_reader_reads_a_new_writers_event(result: ReviewerResult) -> None:
    new_bytes = encode(result)
    assert result.settings_version == "s-5f1c"
    decoded = V1.decode(new_bytes, ReviewerResult)
    # The v1 reader does not see the new field; nothing else is lost.
    assert decoded == dataclasses.replace(result, settings_version="")


def test_old_reader_with_only_plain_fastavro_and_the_v1_file(result: ReviewerResult) -> None:
    # A consumer in another service: fastavro, the v1 file it was built with, and the writer
    # schema looked up by the fingerprint in the header.
    new_bytes = encode(result)
    writer = {s.fingerprint: s for s in load_dir()}[new_bytes[2:10]]
    old_reader = parse_schema(load_avsc("ReviewerResult.v1.avsc"), named_schemas={})
    datum: Any = schemaless_reader(io.BytesIO(new_bytes[10:]), writer.parsed, old_reader)
    assert "settings_version" not in datum
    assert datum["score"] == 82.5 and datum["findings"][0]["code"] == "unsourced_statistic"


def test_a_reader_without_the_new_file_refuses_with_unknown_schema(
    tmp_path: Path, result: ReviewerResult
) -> None:
    for schema in load_dir():
        if schema.version == 1:
            shutil.copy(schema.source, tmp_path)
    old_service = Codec(schema_dir=tmp_path, versions={"ReviewerResult": 1, "QADecision": 1})
    with pytest.raises(UnknownSchemaError) as caught:
        old_service.decode(encode(result))
    assert caught.value.offset == 2  # where the fingerprint is
    # (With a schema registry configured, such a reader fetches the writer schema by id:
    # test_schema_registry.py.)


def test_an_unknown_future_enum_symbol_reads_as_the_enum_default(tmp_path: Path) -> None:
    for schema in load_dir():
        shutil.copy(schema.source, tmp_path)
    v4 = load_avsc("ReviewerResult.v3.avsc")
    provider = next(f for f in v4["fields"] if f["name"] == "provider")
    provider["type"]["symbols"].append("google")
    (tmp_path / "ReviewerResult.v4.avsc").write_text(json.dumps(v4))
    datum = {
        "reviewer": "critic",
        "approved": True,
        "score": 90.0,
        "feedback": "ok",
        "provider": "google",
        "status": "ok",
        "findings": [],
        "veto": None,
        "cost": {},
        "draft_id": "d",
        "version": 1,
        "produced_at": 0,
        "settings_version": "",
    }
    v4_schema = {s.version: s for s in load_dir(tmp_path) if s.record == "ReviewerResult"}[4]
    payload = b"\xc3\x01" + v4_schema.fingerprint + _v3_body(v4, datum)
    # A service of today (reading v3) gets an event from a future writer (v4, a new provider).
    today = Codec(schema_dir=tmp_path, versions={"ReviewerResult": 3})
    decoded = today.decode(payload, ReviewerResult)
    assert decoded.provider is Provider.UNKNOWN
    assert decoded.score == 90.0


def test_v3_openai_and_parser_fallbacks_meet_a_v2_service(result: ReviewerResult) -> None:
    """v3 added a Provider symbol and a Cost field; a service still pinned to v2 reads v3 events
    (openai as the enum default, no parser_fallbacks) and writes openai results as v2 can."""
    new = dataclasses.replace(
        result, provider=Provider.OPENAI, cost=dataclasses.replace(result.cost, parser_fallbacks=2)
    )
    assert decode(encode(new)) == new  # today's codec keeps both
    v2_service = Codec(versions={"ReviewerResult": 2})
    seen_by_v2 = v2_service.decode(encode(new), ReviewerResult)
    assert seen_by_v2.provider is Provider.UNKNOWN
    assert seen_by_v2.cost.parser_fallbacks == 0
    assert seen_by_v2.cost.tokens_in == result.cost.tokens_in
    written_by_v2 = decode(v2_service.encode(new), ReviewerResult)
    assert written_by_v2.provider is Provider.UNKNOWN
    assert written_by_v2.score == new.score


def _v3_body(v3: dict[str, Any], datum: dict[str, Any]) -> bytes:
    from fastavro import schemaless_writer

    out = io.BytesIO()
    schemaless_writer(out, parse_schema(v3, named_schemas={}), datum)
    return out.getvalue()


def test_decision_v2_adds_the_trace_id_both_ways() -> None:
    """QADecision v2 adds trace_id (default ""): a v1 event reads as v2 with the default, and a
    reader pinned to v1 reads a v2 event without it, losing nothing else."""
    decision = QADecision(
        "6f1b7c2e-8d4a-5e3f-9a1b-2c3d4e5f6a7b", "draft-42", 3, True, 79.1, "ok", "APPROVED",
        settings_version="5f1c", trace_id="4bf92f3577b34da6a3ce929d0e0e4736",
    )  # fmt: skip
    v1_reader = Codec(versions={"QADecision": 1})
    old_bytes = v1_reader.encode(decision)
    assert old_bytes[2:10] == next(
        s.fingerprint for s in load_dir() if s.record == "QADecision" and s.version == 1
    )
    assert decode(old_bytes, QADecision) == dataclasses.replace(decision, trace_id="")
    assert v1_reader.decode(encode(decision), QADecision) == dataclasses.replace(
        decision, trace_id=""
    )
    assert decode(encode(decision), QADecision) == decision
