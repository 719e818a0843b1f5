"""What the aggregator's agent reads: qa.drafts, qa.reviews and its own deadlines topic as one
stream (streams.runtime.aggregator), each topic decoded to its own record type.

The deadlines topic carries two kinds of message, both written by this worker's aggregator role:
a `Nudge` from its timer ("look at this entry now") and a `Parked` marker from the bad-event
parker (streams.runtime._screen: "these offsets were bad events, dead-lettered").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from faust.types import TP
from faust.types.tuples import Message

from schemas import (
    Codec,
    DraftSubmitted,
    InvalidRecordError,
    ReviewerResult,
    WrongRecordTypeError,
)
from streams.runtime._screen import is_marker, read_marker
from streams.runtime.config import StreamConfig
from streams.runtime.serde import EventSchema, Undecodable


@dataclass(frozen=True, slots=True)
class Parked:
    """A deadlines-topic message from the bad-event parker (streams.runtime._screen): every
    offset of `tp` below `next_offset` that the table does not cover yet is a parked bad event."""

    tp: TP
    next_offset: int


@dataclass(frozen=True, slots=True)
class Nudge:
    """A deadlines-topic message: "look at this entry now" (its deadline passed, or its decision
    is stored but not yet published)."""

    key: str


class AggregatorSchema(EventSchema):
    """Decodes the aggregator's merged stream: each topic to its own record type, and the
    deadlines topic to Nudges and Parked markers."""

    def __init__(self, config: StreamConfig) -> None:
        # The codec's limits are the topics' (MULTIQA_MAX_DRAFT_BYTES), as every agent's: a draft
        # one role took for valid and another for oversize would be reviewed and never decided.
        super().__init__(None, codec=Codec(limits=config.limits()))
        self._deadlines = config.deadlines_topic
        self._by_topic = {
            config.drafts_topic: EventSchema(DraftSubmitted, codec=self.codec),
            config.reviews_topic: EventSchema(ReviewerResult, codec=self.codec),
        }

    def loads_value(self, app: Any, message: Message, **kwargs: Any) -> Any:
        if message.topic == self._deadlines:
            value = bytes(message.value or b"")
            if is_marker(message):
                try:
                    return Parked(*read_marker(value))
                except ValueError as exc:
                    return Undecodable(InvalidRecordError(f"bad parked marker: {exc}"), value)
            return Nudge(value.decode("utf-8", "replace"))
        schema = self._by_topic.get(message.topic)
        if schema is None:
            return Undecodable(
                WrongRecordTypeError(f"the aggregator does not read {message.topic!r}"),
                bytes(message.value or b""),
            )
        return schema.loads_value(app, message, **kwargs)
