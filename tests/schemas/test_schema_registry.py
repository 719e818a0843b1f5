"""Optional Confluent framing against a schema registry (a local server speaking the registry's
REST protocol): register once, frame with the id, readers fetch writer schemas they lack by id."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from schemas import (
    Codec,
    CodecError,
    ReviewerResult,
    SchemaRegistry,
    SchemaRegistryError,
    UnknownSchemaError,
    encode,
)
from schemas._schemas import load_dir
from tests.helpers.ports import closed_port_url


def test_encode_registers_once_and_frames_with_the_id(
    registry: Any, result: ReviewerResult
) -> None:
    with SchemaRegistry(registry.url) as client:
        codec = Codec(registry=client)
        first = codec.encode(result)
        second = codec.encode(dataclasses.replace(result, score=10.0))
    assert first[0] == 0
    schema_id = int.from_bytes(first[1:5], "big")
    assert second[:5] == first[:5]
    # One registration, under the record's full name (RecordNameStrategy).
    assert registry.requests == [("POST", "/subjects/multiqa.events.ReviewerResult/versions")]
    assert registry.subjects == {"multiqa.events.ReviewerResult": [schema_id]}
    registered = json.loads(registry.schemas[schema_id])
    assert [f["name"] for f in registered["fields"]][-1] == "settings_version"
    # The body is the same Avro as in single-object encoding.
    assert first[5:] == encode(result)[10:]


def test_another_service_fetches_the_writer_schema_by_id_once(
    registry: Any, result: ReviewerResult
) -> None:
    with SchemaRegistry(registry.url) as producer_client:
        data = Codec(registry=producer_client).encode(result)
    with SchemaRegistry(registry.url) as consumer_client:
        consumer = Codec(registry=consumer_client)
        assert consumer.decode(data, ReviewerResult) == result
        assert consumer.decode(data, ReviewerResult) == result
        # Single-object payloads still decode when a registry is configured.
        assert consumer.decode(encode(result), ReviewerResult) == result
    gets = [r for r in registry.requests if r[0] == "GET"]
    assert gets == [("GET", f"/schemas/ids/{int.from_bytes(data[1:5], 'big')}")]


def test_old_reader_without_the_new_file_reads_new_events_through_the_registry(
    registry: Any, tmp_path: Path, result: ReviewerResult
) -> None:
    for schema in load_dir():
        if schema.version == 1:
            shutil.copy(schema.source, tmp_path)
    with SchemaRegistry(registry.url) as client, SchemaRegistry(registry.url) as old_client:
        new_bytes = Codec(registry=client).encode(result)
        old_service = Codec(
            schema_dir=tmp_path,
            versions={"ReviewerResult": 1, "QADecision": 1},
            registry=old_client,
        )
        decoded = old_service.decode(new_bytes, ReviewerResult)
    assert decoded == dataclasses.replace(result, settings_version="")


def test_an_id_the_registry_does_not_have(registry: Any, result: ReviewerResult) -> None:
    payload = b"\x00" + (4242).to_bytes(4, "big") + encode(result)[10:]
    with SchemaRegistry(registry.url) as client, pytest.raises(UnknownSchemaError) as caught:
        Codec(registry=client).decode(payload)
    assert caught.value.offset == 1
    assert "4242" in caught.value.reason


def test_an_id_of_some_other_teams_schema(registry: Any, result: ReviewerResult) -> None:
    other = {"type": "record", "name": "Invoice", "fields": [{"name": "n", "type": "int"}]}
    other_id = registry.register("billing.Invoice", json.dumps(other))
    not_avro_id = registry.register("x", json.dumps({"type": "protobuf?"}))
    with SchemaRegistry(registry.url) as client:
        codec = Codec(registry=client)
        for schema_id in (other_id, not_avro_id):
            payload = b"\x00" + schema_id.to_bytes(4, "big") + b"\x02"
            with pytest.raises(UnknownSchemaError) as caught:
                codec.decode(payload)
            assert caught.value.offset == 1


def test_registry_failures_are_not_codec_errors(registry: Any, result: ReviewerResult) -> None:
    """A registry outage says nothing about the message: retry it, do not dead-letter it."""
    payload = b"\x00" + (1).to_bytes(4, "big") + encode(result)[10:]
    registry.fail_with = 500
    with SchemaRegistry(registry.url) as client:
        codec = Codec(registry=client)
        with pytest.raises(SchemaRegistryError, match="500") as on_decode:
            codec.decode(payload)
        with pytest.raises(SchemaRegistryError, match="500"):
            codec.encode(result)
    assert not isinstance(on_decode.value, CodecError)

    down = SchemaRegistry(closed_port_url(), timeout=2)
    with down, pytest.raises(SchemaRegistryError, match="unreachable"):
        Codec(registry=down).decode(payload)
