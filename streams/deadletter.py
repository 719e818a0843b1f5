"""Parking events that cannot be decoded or validated on `qa.dead-letters`, so the agent moves on.

Each consumer group that gives up on an event parks it under its own name (`DeadLetter.consumer`):
a garbage draft is dead-lettered once by every reviewer and by the aggregator, because each of them
skipped it. The `dead_letter` audit event is written once per (consumer, topic, partition, offset)
(`streams.sinks.persist_dead_letter`), so a re-delivered bad event is not counted twice.

A dead letter is published before the bad event is acknowledged (at least once); the audit row is
best effort (logged when the database is unavailable): the dead-letter topic is the record.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

import faust
from faust.types.tuples import Message

from schemas import DeadLetter
from streams import tracing
from streams.observe._metrics import record_dead_letter
from streams.serde import dead_letter

log = logging.getLogger("multiqa.streams")

DeadLetterAudit = Callable[[DeadLetter], Awaitable[Any]]


class DeadLetters:
    """Publishes DeadLetter records for one consumer (an agent)."""

    def __init__(
        self, topic: faust.TopicT, consumer: str, *, audit: DeadLetterAudit | None = None
    ) -> None:
        self.topic = topic
        self.consumer = consumer
        self.audit = audit
        self.parked = 0

    async def park(self, message: Message, error: BaseException) -> DeadLetter:
        """Publish `message` as a dead letter (waiting for the broker), then audit it."""
        dead = dead_letter(message, error, consumer=self.consumer)
        with tracing.dead_letter_span(message.headers, dead):
            fut = await self.topic.send(key=dead.key, value=dead)
            await fut
        self.parked += 1
        record_dead_letter(dead)
        log.warning(
            "%s dead-lettered %s[%d]@%d: %s: %s",
            self.consumer,
            dead.source_topic,
            dead.source_partition,
            dead.source_offset,
            dead.error_type,
            dead.error[:300],
        )
        if self.audit is not None:
            try:
                await self.audit(dead)
            except Exception:
                log.warning("dead_letter audit event could not be written", exc_info=True)
        return dead
