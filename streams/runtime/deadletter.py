"""Parking events that cannot be decoded or validated on `qa.dead-letters`, so the agent moves on.

One role owns the bad events of each topic and parks them under its name (`DeadLetter.consumer`),
so a bad event becomes one dead letter however many consumer groups read it; every other role
skips it and counts it:

    qa.drafts, qa.reviews   the aggregator (reviewers and sinks skip)
    qa.decisions            the sinks (paid reviewers' cancellation watcher skips)
    qa.dead-letters         nobody (the sinks skip and count a bad one)

A dead letter is published before the bad event is acknowledged (at least once: a crash may park
it again, with the same source topic, partition and offset). The sinks write each dead letter as a
`dead_letter` audit event, once per (consumer, topic, partition, offset)
(`streams.runtime.sinks.persist_dead_letters`); `park` can also audit at once (best effort, logged
when the database is unavailable): the dead-letter topic is the record.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

import faust
from faust.types.tuples import Message

from schemas import DeadLetter
from streams.runtime import tracing
from streams.runtime.observe._metrics import record_dead_letter
from streams.runtime.serde import dead_letter
from streams.runtime.topics import send_record

log = logging.getLogger(__name__)

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

    async def send(self, message: Message, error: BaseException) -> Any:
        """Publish `message` as a dead letter; returns the delivery future (not awaited: the
        caller acknowledges the bad event once it is delivered). Handed to the app's producer
        directly (`send_record`): a flood of bad events is parked at the pace of this call."""
        dead = dead_letter(message, error, consumer=self.consumer)
        with tracing.dead_letter_span(message.headers, dead):
            fut = await send_record(self.topic, dead.key, dead, [])
        self._count(dead)
        return fut

    async def park(self, message: Message, error: BaseException) -> DeadLetter:
        """Publish `message` as a dead letter (waiting for the broker), then audit it."""
        dead = dead_letter(message, error, consumer=self.consumer)
        with tracing.dead_letter_span(message.headers, dead):
            fut = await self.topic.send(key=dead.key, value=dead)
            await fut
        self._count(dead)
        if self.audit is not None:
            try:
                await self.audit(dead)
            except Exception:
                log.warning("dead_letter audit event could not be written", exc_info=True)
        return dead

    def _count(self, dead: DeadLetter) -> None:
        self.parked += 1
        record_dead_letter(dead)
        # A flood of bad events must not become a flood of log lines: the first ten, then one
        # line per power of ten.
        n = self.parked
        if n > 10 and str(n).rstrip("0") != "1":
            return
        log.warning(
            "%s dead-lettered %s[%d]@%d: %s: %s%s",
            self.consumer,
            dead.source_topic,
            dead.source_partition,
            dead.source_offset,
            dead.error_type,
            dead.error[:300],
            f" ({n} dead letters so far)" if n > 10 else "",
        )
