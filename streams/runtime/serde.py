"""Faust glue for the one codec (schemas): agents receive typed records, headers pass untouched.

    drafts = app.topic("qa.drafts", schema=EventSchema(DraftSubmitted))

    @app.agent(drafts)
    async def review(stream):
        async for event in stream.events():
            if isinstance(event.value, Undecodable):
                await dead_letters.send(value=event.value.dead_letter(event.message, "critic"))
                continue
            draft = event.value          # a DraftSubmitted; event.headers as the producer sent them

A bad message never raises inside Faust (where it would crash the agent or be logged and
dropped): `EventSchema` hands it to the agent as an `Undecodable` value carrying the `CodecError`
and the raw bytes, so the agent dead-letters it with its topic, partition and offset and carries
on. Keys are draft ids, UTF-8 text (undecodable bytes survive via surrogateescape).

`register_codec()` also registers the codec under the name "multiqa-avro" for code that prefers
`value_serializer="multiqa-avro"`; that path has no Undecodable (Faust raises ValueDecodeError).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

import faust
from faust.serializers import codecs
from faust.types import AppT
from faust.types.codecs import CodecArg
from faust.types.core import K, OpenHeadersArg, V
from faust.types.tuples import Message

from schemas import (
    Codec,
    CodecError,
    DeadLetter,
    Event,
    TruncatedError,
    decode,
    encode,
    utc_now,
)
from streams.runtime._batch import BatchMessage

__all__ = [
    "CODEC_NAME",
    "EventSchema",
    "Undecodable",
    "dead_letter",
    "register_codec",
]

CODEC_NAME = "multiqa-avro"
# The raw bytes kept in a dead letter; enough to diagnose, small enough to always be publishable.
MAX_DEAD_LETTER_RAW = 256 * 1024


@dataclass(frozen=True, slots=True)
class Undecodable:
    """A message whose value could not be decoded: what went wrong, and the bytes as received."""

    error: CodecError
    raw: bytes | None

    def dead_letter(self, message: Message, consumer: str) -> DeadLetter:
        return dead_letter(message, self.error, consumer=consumer)


def dead_letter(
    message: Message, error: BaseException, *, consumer: str, failed_at: datetime | None = None
) -> DeadLetter:
    """The DeadLetter for `message` that `consumer` gave up on because of `error` (at
    `failed_at`: now when not given)."""
    raw = bytes(message.value or b"")
    reason = str(error)
    if len(raw) > MAX_DEAD_LETTER_RAW:
        reason += f" [raw value truncated to {MAX_DEAD_LETTER_RAW} of {len(raw)} bytes]"
        raw = raw[:MAX_DEAD_LETTER_RAW]
    key = message.key
    return DeadLetter(
        source_topic=message.topic,
        source_partition=message.partition,
        source_offset=message.offset,
        error_type=type(error).__name__,
        error=reason,
        raw=raw,
        consumer=consumer,
        key=bytes(key[:MAX_DEAD_LETTER_RAW]) if key is not None else None,
        failed_at=failed_at or utc_now(),
    )


class _Screened:
    """The value the bad-event screen (streams._screen) just decoded, so the agents' schemas do
    not decode the same message again: one slot, matched by the message object itself."""

    __slots__ = ("message", "value")

    def __init__(self) -> None:
        self.message: Message | None = None
        self.value: Any = None


_SCREENED = _Screened()


def remember_decoded(message: Message, value: Any) -> None:
    """`value` is what `message` decodes to (called by the screen before the agents decode)."""
    _SCREENED.message, _SCREENED.value = message, value


class EventSchema(faust.Schema[Any, Any]):
    """A Faust schema that decodes values with the multiqa codec (to `expected`, when given) and
    encodes records with it. Headers are returned exactly as given, in both directions."""

    def __init__(self, expected: type[Any] | None = None, *, codec: Codec | None = None) -> None:
        super().__init__(key_serializer="raw", value_serializer=CODEC_NAME)
        self.expected = expected
        self.codec = codec if codec is not None else Codec()

    def loads_key(
        self,
        app: AppT,
        message: Message,
        *,
        loads: Any = None,
        serializer: CodecArg | None = None,
    ) -> Any:
        key = message.key
        if key is None:
            return None
        return bytes(key).decode("utf-8", "surrogateescape")

    def loads_value(
        self,
        app: AppT,
        message: Message,
        *,
        loads: Any = None,
        serializer: CodecArg | None = None,
    ) -> Any:
        if type(message) is BatchMessage:
            return message.batch  # decoded item by item by the screen (streams.runtime._batch)
        if _SCREENED.message is message and type(_SCREENED.value) is self.expected:
            return _SCREENED.value
        return self.decode_bytes(message.value)

    def decode_bytes(self, value: bytes | None) -> Any:
        """The record `value` encodes, or an Undecodable saying why it is none."""
        try:
            if value is None:
                raise TruncatedError("no value (a tombstone)", offset=0)
            return self.codec.decode(value, self.expected)
        except CodecError as exc:
            return Undecodable(exc, None if value is None else bytes(value))

    def dumps_key(
        self,
        app: AppT,
        key: K,
        *,
        serializer: CodecArg | None = None,
        headers: OpenHeadersArg,
    ) -> tuple[Any, OpenHeadersArg]:
        if isinstance(key, str):
            return key.encode("utf-8", "surrogateescape"), headers
        return key, headers

    def dumps_value(
        self,
        app: AppT,
        value: V,
        *,
        serializer: CodecArg | None = None,
        headers: OpenHeadersArg,
    ) -> tuple[Any, OpenHeadersArg]:
        # InvalidRecordError propagates to the sender: an invalid record is never published.
        return self.codec.encode(cast(Event, value)), headers


class _FaustCodec(codecs.Codec):
    """The codec as a Faust serializer (`value_serializer="multiqa-avro"`)."""

    def _dumps(self, obj: Any) -> bytes:
        return encode(obj)

    def _loads(self, s: bytes) -> Any:
        # Faust wraps the CodecError in a ValueDecodeError (the cause is kept).
        return decode(s)


def register_codec() -> None:
    """Make "multiqa-avro" a Faust serializer name (idempotent)."""
    codecs.register(CODEC_NAME, _FaustCodec())


# EventSchema names the codec as its value serializer, so the name must always resolve.
register_codec()
