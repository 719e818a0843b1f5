"""multiqa's topics: declared on each Faust app, created on the broker before any worker starts.

Every topic is keyed by draft_id and has `StreamConfig.partitions` partitions, so a draft's events
(draft, reviews, decision) sit on the same partition number of every topic and Faust's assignor
hands them to the same worker of a role (it co-partitions topics with equal partition counts).
That is what lets the aggregator keep one draft's state in one table partition.

Values are decoded by `streams.serde.EventSchema` (the one codec): agents receive typed records,
or an `Undecodable` carrying the CodecError and the raw bytes, which they dead-letter with its
topic/partition/offset instead of crashing inside Faust's deserializer.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Any

import faust
from aiokafka.admin import AIOKafkaAdminClient, NewTopic
from aiokafka.errors import TopicAlreadyExistsError, for_code

from schemas import DeadLetter, DraftSubmitted, InvalidRecordError, QADecision, ReviewerResult
from streams.config import StreamConfig
from streams.serde import EventSchema

log = logging.getLogger(__name__)


DEADLINES_RETENTION_MS = 3_600_000


def misrouted(key: Any, draft_id: str) -> InvalidRecordError | None:
    """The error for an event not keyed by its draft_id (None when it is). Such an event may sit
    on another partition than the rest of its draft's events, where the aggregator's state for
    that draft is not: it is dead-lettered, not processed."""
    if key == draft_id:
        return None
    return InvalidRecordError(f"event key {key!r} is not its draft_id {draft_id!r}", field="key")


class TopicSetupError(RuntimeError):
    """A topic exists with the wrong partition count, or could not be created."""


@dataclass(frozen=True)
class Topics:
    """The four public topics as Faust topics of one app (each app declares its own)."""

    drafts: faust.TopicT
    reviews: faust.TopicT
    decisions: faust.TopicT
    dead_letters: faust.TopicT


def declare(app: faust.App, config: StreamConfig) -> Topics:
    """Declare the public topics on `app`, each decoding to its record type."""

    def topic(name: str, record: type[Any]) -> faust.TopicT:
        return app.topic(
            name,
            schema=EventSchema(record),
            partitions=config.partitions,
            replicas=config.replication_factor,
        )

    return Topics(
        drafts=topic(config.drafts_topic, DraftSubmitted),
        reviews=topic(config.reviews_topic, ReviewerResult),
        decisions=topic(config.decisions_topic, QADecision),
        dead_letters=topic(config.dead_letters_topic, DeadLetter),
    )


async def ensure_topics(config: StreamConfig, *, request_timeout: float = 30.0) -> list[str]:
    """Create the public topics (and the aggregator's deadlines topic) with the configured
    partitions; return the names created.

    Existing topics are kept, but one with another partition count is an error: Faust would stop
    with PartitionsMismatch later (the aggregator's changelog must match its source topics), and
    keys would no longer land on matching partitions across topics.
    """
    names = [*config.topic_names(), config.deadlines_topic]
    admin = AIOKafkaAdminClient(
        bootstrap_servers=config.bootstrap_servers,
        request_timeout_ms=int(request_timeout * 1000),
    )
    try:
        await admin.start()
        new_topics = [
            NewTopic(n, config.partitions, config.replication_factor) for n in config.topic_names()
        ]
        # Deadline nudges are worthless after a few minutes (the timer re-sends while due).
        new_topics.append(
            NewTopic(
                config.deadlines_topic,
                config.partitions,
                config.replication_factor,
                topic_configs={"retention.ms": str(DEADLINES_RETENTION_MS)},
            )
        )
        response = await admin.create_topics(new_topics, timeout_ms=int(request_timeout * 1000))
        created: list[str] = []
        for error in response.topic_errors:
            # (name, error_code[, error_message]) depending on the protocol version.
            name, code = error[0], error[1]
            if code == 0:
                created.append(name)
            elif code != TopicAlreadyExistsError.errno:
                raise TopicSetupError(
                    f"could not create topic {name!r}: {for_code(code).__name__} {error[2:]}"
                )
        counts = await partition_counts(admin, names)
        # Just-created topics show up in metadata with no partitions for a moment.
        loop = asyncio.get_running_loop()
        give_up = loop.time() + request_timeout
        while any(counts.get(n, 0) == 0 for n in names) and loop.time() < give_up:
            await asyncio.sleep(0.1)
            counts = await partition_counts(admin, names)
        wrong = {n: c for n, c in counts.items() if c != config.partitions}
        if wrong:
            raise TopicSetupError(
                f"topics exist with a partition count other than MULTIQA_PARTITIONS="
                f"{config.partitions}: {wrong}; recreate them or set MULTIQA_PARTITIONS to match"
            )
        if created:
            log.info("created topics %s with %d partitions", created, config.partitions)
        return created
    finally:
        await admin.close()


async def partition_counts(admin: AIOKafkaAdminClient, names: list[str]) -> dict[str, int]:
    described: list[Any] = await admin.describe_topics(names)
    counts: dict[str, int] = {}
    for topic in described:
        # aiokafka answers a metadata response as dicts: {"topic", "error_code", "partitions"}.
        counts[str(topic["topic"])] = len(topic["partitions"])
    return counts
