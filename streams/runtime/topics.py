"""multiqa's topics: declared on each Faust app, created on the broker before any worker starts.

Every topic is keyed by draft_id and has `StreamConfig.partitions` partitions, so a draft's events
(draft, reviews, decision) sit on the same partition number of every topic and Faust's assignor
hands them to the same worker of a role (it co-partitions topics with equal partition counts).
That is what lets the aggregator keep one draft's state in one table partition.

Values are decoded by `streams.runtime.serde.EventSchema` (the one codec): agents receive typed
records, or an `Undecodable` carrying the CodecError and the raw bytes, which they dead-letter with
its topic/partition/offset instead of crashing inside Faust's deserializer.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Any, cast

import faust
from aiokafka.admin import AIOKafkaAdminClient, NewTopic
from aiokafka.admin.config_resource import ConfigResource, ConfigResourceType
from aiokafka.errors import KafkaError, TopicAlreadyExistsError, for_code

from schemas import (
    Codec,
    DeadLetter,
    DraftSubmitted,
    InvalidRecordError,
    OperatorError,
    QADecision,
    ReviewerResult,
)
from streams.runtime.config import StreamConfig
from streams.runtime.serde import EventSchema

log = logging.getLogger(__name__)


DEADLINES_RETENTION_MS = 3_600_000


def misrouted(key: Any, draft_id: str) -> InvalidRecordError | None:
    """The error for an event not keyed by its draft_id (None when it is). Such an event may sit
    on another partition than the rest of its draft's events, where the aggregator's state for
    that draft is not: it is dead-lettered, not processed."""
    if key == draft_id:
        return None
    return InvalidRecordError(f"event key {key!r} is not its draft_id {draft_id!r}", field="key")


async def send_record(
    topic: faust.TopicT,
    key: str | bytes | None,
    record: Any,
    headers: list[tuple[str, bytes]],
    *,
    partition: int | None = None,
) -> Any:
    """Hand `record` to the producer of `topic`'s app: the bytes, key and headers `topic.send`
    would publish, without Faust's per-message send machinery (FutureMessage, channel
    preparation, sensors: ~0.3 ms of the ~1 ms a reviewer result cost in bench/bench_stream.py's
    profile). The codec validates as it encodes: a CodecError means nothing was sent. Returns
    the delivery future."""
    schema = cast(EventSchema, topic.schema)
    return await send_encoded(topic, key, schema.codec.encode(record), headers, partition=partition)


async def send_encoded(
    topic: faust.TopicT,
    key: str | bytes | None,
    value: bytes | None,
    headers: list[tuple[str, bytes]],
    *,
    partition: int | None = None,
) -> Any:
    """`send_record` for a record already encoded by the codec (e.g. a decision the aggregator
    stored as its wire bytes): published as it is (on `partition`, when given: else by key; None:
    a tombstone). Returns the delivery future."""
    producer = await topic.app.maybe_start_producer()
    return await producer.send(
        topic.get_topic_name(),
        key.encode("utf-8", "surrogateescape") if isinstance(key, str) else key,
        value,
        partition=partition,
        timestamp=None,
        headers=headers,
    )


class TopicSetupError(OperatorError, RuntimeError):
    """A topic exists with the wrong partition count, or could not be created."""


@dataclass(frozen=True)
class Topics:
    """The four public topics as Faust topics of one app (each app declares its own)."""

    drafts: faust.TopicT
    reviews: faust.TopicT
    decisions: faust.TopicT
    dead_letters: faust.TopicT


# Events an agent of a batched topic may have queued (streams.runtime._batch): each is a whole
# fetch of a partition (up to `broker_max_poll_records`), so Faust's default of 4,096 would let a
# slow agent hold millions of drafts in memory; a full queue pauses the fetch loop instead.
BATCH_QUEUE = 8


def declare(app: faust.App, config: StreamConfig) -> Topics:
    """Declare the public topics on `app`, each decoding to its record type."""

    def topic(name: str, record: type[Any], maxsize: int | None = None) -> faust.TopicT:
        return app.topic(
            name,
            # The codec's size limits follow MULTIQA_MAX_DRAFT_BYTES, as the writers' do.
            schema=EventSchema(record, codec=Codec(limits=config.limits())),
            partitions=config.partitions,
            replicas=config.replication_factor,
            maxsize=maxsize,
        )

    return Topics(
        drafts=topic(config.drafts_topic, DraftSubmitted, BATCH_QUEUE),
        reviews=topic(config.reviews_topic, ReviewerResult, BATCH_QUEUE),
        decisions=topic(config.decisions_topic, QADecision),
        dead_letters=topic(config.dead_letters_topic, DeadLetter),
    )


async def ensure_topics(config: StreamConfig, *, request_timeout: float = 30.0) -> list[str]:
    """Create the public topics (and the aggregator's deadlines topic and table changelog) with
    the configured partitions; return the names created.

    Existing topics are kept, but one with another partition count is an error: Faust would stop
    with PartitionsMismatch later (the aggregator's changelog must match its source topics), and
    keys would no longer land on matching partitions across topics.
    """
    names = [*config.topic_names(), config.deadlines_topic, config.changelog_topic]
    admin = AIOKafkaAdminClient(
        bootstrap_servers=config.bootstrap_servers,
        request_timeout_ms=int(request_timeout * 1000),
    )
    try:
        await admin.start()
        new_topics = [
            NewTopic(n, config.partitions, config.replication_factor, topic_configs=configs)
            for n, configs in topic_configs(config).items()
        ]
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
            name, count = sorted(wrong.items())[0]
            more = (
                f" (and {len(wrong) - 1} more: {', '.join(sorted(wrong)[1:])})"
                if len(wrong) > 1
                else ""
            )
            raise TopicSetupError(
                f"topic {name} has {count} partition{'s' if count != 1 else ''}, multiqa is "
                f"configured for {config.partitions} (MULTIQA_PARTITIONS){more}; delete it "
                "(if it holds nothing to keep, e.g. the broker auto-created it) and run "
                f"`multiqa topics create`, or set MULTIQA_PARTITIONS={count} everywhere"
            )
        if created:
            log.info("created topics %s with %d partitions", created, config.partitions)
        await _warn_small_message_limits(admin, config, [n for n in names if n not in created])
        return created
    finally:
        await admin.close()


def topic_configs(config: StreamConfig) -> dict[str, dict[str, str]]:
    """Every topic multiqa creates, with the configs it is created with: messages up to
    `config.max_message_bytes` (a draft of `max_draft_bytes`; a dead letter carries a whole
    undecodable message, so it gets twice that), deadline nudges kept an hour only (they are
    worthless after a few minutes: the timer re-sends while due), and the aggregator table's
    changelog, compacted as Faust makes it. Left to Faust, the changelog was created by the first
    worker as it started, and that worker's consumer group could form while the new topic still
    had no partitions in metadata: every table write then raised PartitionsMismatch (the
    changelog "has 0 partitions") until the group's next rebalance (tests/streams/test_crash.py)."""
    size = {"max.message.bytes": str(config.max_message_bytes)}
    return {
        config.drafts_topic: size,
        config.reviews_topic: size,
        config.decisions_topic: size,
        config.dead_letters_topic: {"max.message.bytes": str(2 * config.max_message_bytes)},
        config.deadlines_topic: {"retention.ms": str(DEADLINES_RETENTION_MS)},
        config.changelog_topic: {"cleanup.policy": "compact"},
    }


async def _warn_small_message_limits(
    admin: AIOKafkaAdminClient, config: StreamConfig, names: list[str]
) -> None:
    """One warning per existing topic whose max.message.bytes is below what multiqa sends to
    it (a topic made before multiqa set it, or by hand): large drafts would be refused there."""
    wanted = {
        n: c["max.message.bytes"]
        for n, c in topic_configs(config).items()
        if c.get("max.message.bytes")
    }
    resources = [
        ConfigResource(ConfigResourceType.TOPIC, n, configs={"max.message.bytes": None})
        for n in names
        if n in wanted
    ]
    if not resources:
        return
    try:
        responses: list[Any] = await admin.describe_configs(resources)
    except KafkaError as exc:  # a broker that will not say: nothing to warn about
        log.debug("describe_configs failed: %s", exc)
        return
    for response in responses:
        for error_code, _msg, _type, name, entries, *_ in response.resources:
            if error_code:
                continue
            for entry in entries:
                if entry[0] == "max.message.bytes" and int(entry[1]) < int(wanted[name]):
                    log.warning(
                        "topic %s accepts messages up to %s bytes (max.message.bytes), below the "
                        "%s that drafts of MULTIQA_MAX_DRAFT_BYTES=%d need: raise it with "
                        "kafka-configs.sh --alter --entity-type topics --entity-name %s "
                        "--add-config max.message.bytes=%s",
                        name,
                        entry[1],
                        wanted[name],
                        config.max_draft_bytes,
                        name,
                        wanted[name],
                    )


async def partition_counts(admin: AIOKafkaAdminClient, names: list[str]) -> dict[str, int]:
    described: list[Any] = await admin.describe_topics(names)
    counts: dict[str, int] = {}
    for topic in described:
        # aiokafka answers a metadata response as dicts: {"topic", "error_code", "partitions"}.
        counts[str(topic["topic"])] = len(topic["partitions"])
    return counts
