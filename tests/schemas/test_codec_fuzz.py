"""Fuzzing the decoder: 10,000 random and mutated payloads; only CodecError subclasses may
come out, and anything that does decode is a valid record (it re-encodes and round-trips)."""

from __future__ import annotations

import collections
import random
from collections.abc import Callable, Iterator
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schemas import CodecError, Provider, ReviewerResult, decode, encode
from tests.schemas.event_strategies import records

SEED = 20260517


def _seeds() -> list[bytes]:
    """Valid payloads of every record type to mutate (drawn deterministically)."""
    rnd = random.Random(SEED)
    found: list[bytes] = []

    @settings(
        max_examples=40,
        database=None,
        deadline=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
    )
    @given(records)
    def collect(record: Any) -> None:
        found.append(encode(record))

    collect()
    rnd.shuffle(found)
    return found


def _mutations(rnd: random.Random, seeds: list[bytes]) -> Iterator[bytes]:
    def flip(b: bytearray) -> None:
        i = rnd.randrange(len(b))
        b[i] ^= 1 << rnd.randrange(8)

    def replace(b: bytearray) -> None:
        b[rnd.randrange(len(b))] = rnd.randrange(256)

    def insert(b: bytearray) -> None:
        b[rnd.randrange(len(b) + 1) : 0] = rnd.randbytes(rnd.randint(1, 8))

    def delete(b: bytearray) -> None:
        i = rnd.randrange(len(b))
        del b[i : i + rnd.randint(1, 8)]

    def truncate(b: bytearray) -> None:
        del b[rnd.randrange(len(b)) :]

    def huge_varint(b: bytearray) -> None:  # a length or count of 2**62 somewhere in the body
        i = rnd.randrange(10, max(11, len(b)))
        b[i:i] = b"\xfe\xff\xff\xff\xff\xff\xff\xff\x7f"

    def splice(b: bytearray) -> None:  # another record's header on this body
        other = rnd.choice(seeds)
        b[:10] = other[:10]

    ops: list[Callable[[bytearray], None]] = [
        flip,
        replace,
        insert,
        delete,
        truncate,
        huge_varint,
        splice,
    ]
    while True:
        data = bytearray(rnd.choice(seeds))
        for _ in range(rnd.randint(1, 4)):
            if data:
                rnd.choice(ops)(data)
        yield bytes(data)


def _random(rnd: random.Random, seeds: list[bytes]) -> Iterator[bytes]:
    while True:
        size = rnd.randint(0, 200)
        kind = rnd.randrange(4)
        if kind == 0:
            yield rnd.randbytes(size)
        elif kind == 1:  # a real header, a random body
            yield rnd.choice(seeds)[:10] + rnd.randbytes(size)
        elif kind == 2:  # Confluent framing, no registry configured
            yield b"\x00" + rnd.randbytes(size)
        else:
            yield b"\xc3\x01" + rnd.randbytes(size)


def test_only_codec_errors_come_out_of_thousands_of_bad_payloads() -> None:
    rnd = random.Random(SEED)
    seeds = _seeds()
    outcomes: collections.Counter[str] = collections.Counter()
    mutated, random_ = _mutations(rnd, seeds), _random(rnd, seeds)
    for i in range(10_000):
        data = next(mutated) if i % 3 else next(random_)
        expected = ReviewerResult if i % 7 == 0 else None
        try:
            record = decode(data, expected)
        except CodecError as exc:
            assert exc.reason
            assert exc.offset is None or 0 <= exc.offset <= max(len(data), 10)
            outcomes[type(exc).__name__] += 1
        else:
            # Whatever decodes is a valid record: it re-encodes and round-trips.
            assert decode(encode(record)) == record
            outcomes["decoded"] += 1
    # The fuzzer reached every kind of failure (otherwise it would prove little).
    for kind in (
        "BadMagicError",
        "UnknownSchemaError",
        "WrongRecordTypeError",
        "TruncatedError",
        "TrailingBytesError",
        "CorruptBodyError",
        "InvalidRecordError",
    ):
        assert outcomes[kind] > 0, outcomes


@settings(max_examples=300, database=None, deadline=None)
@given(st.binary(max_size=300))
def test_arbitrary_bytes_behind_a_valid_header(body: bytes) -> None:
    header = encode(ReviewerResult("r", True, 1.0, "", Provider.OLLAMA, draft_id="d", version=1))
    try:
        record = decode(header[:10] + body)
    except CodecError:
        return
    assert decode(encode(record)) == record
