"""Python helpers for multiqa's two neighbours: the writer service that submits drafts, and the
publisher that acts on decisions. They speak the same codec and topics as the stream.

    # writer
    submission = await submit_draft("127.0.0.1:9092", draft)

    # publisher (a consumer group: several publishers share the work, offsets survive restarts)
    async with contextlib.aclosing(decisions("127.0.0.1:9092", group_id="publisher")) as stream:
        async for decision in stream:
            if decision.approved:
                await publish(decision.draft_id, decision.version)

Delivery to the publisher is at least once: an offset is committed after the loop body has
handled the decision, so a crash mid-body sees it again. Re-deliveries seen by one process are
dropped by `decision_id`; make the publishing itself idempotent on `decision_id` as well.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections import OrderedDict
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, ConsumerRecord, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient
from aiokafka.errors import KafkaConnectionError, KafkaError, MessageSizeTooLargeError
from aiokafka.partitioner import DefaultPartitioner

from schemas import (
    Codec,
    CodecError,
    DraftSubmitted,
    OperatorError,
    OversizeError,
    QADecision,
    decode,
)
from streams.runtime import tracing
from streams.runtime.config import StreamConfig

log = logging.getLogger(__name__)

MIB = 1024 * 1024
DEFAULT_DRAFTS_TOPIC = StreamConfig.drafts_topic
DEFAULT_DECISIONS_TOPIC = StreamConfig.decisions_topic


class DraftTooLargeError(OperatorError, ValueError):
    """A draft over the size limit (the codec's, or a topic's max.message.bytes); str() is one
    line naming the limit and the setting that raises it. Nothing was published."""


class TopicMissingError(OperatorError, LookupError):
    """The topic to publish to does not exist (and the broker must not auto-create it with its
    default partition count); str() is one line saying how to create it."""


class BrokerUnavailableError(OperatorError, ConnectionError):
    """Kafka could not be reached (wrong address, broker down)."""

    @classmethod
    def at(cls, bootstrap: str, exc: BaseException) -> BrokerUnavailableError:
        """The error for `bootstrap` failing with `exc`, worded the same everywhere."""
        return cls(f"cannot reach Kafka at {bootstrap}: {exc}")


@dataclass(frozen=True)
class Submission:
    """Where a submitted draft landed, and the trace it starts."""

    draft: DraftSubmitted
    topic: str
    partition: int
    offset: int
    traceparent: str


def new_traceparent() -> str:
    """A fresh W3C traceparent (version 00, sampled)."""
    return f"00-{secrets.token_hex(16)}-{secrets.token_hex(8)}-01"


class DraftSubmitter:
    """A long-lived producer of DraftSubmitted events, for services that submit many drafts.

    Idempotent producer, acks from all in-sync replicas: `submit` returns once the broker has
    the event. Events are keyed by draft_id, so every version of a draft keeps its order.
    """

    def __init__(
        self,
        bootstrap: str,
        *,
        topic: str = DEFAULT_DRAFTS_TOPIC,
        request_timeout: float = 30.0,
        max_draft_bytes: int = StreamConfig.max_draft_bytes,
        **producer_options: Any,
    ) -> None:
        self.bootstrap = bootstrap
        self.topic = topic
        # The size limits of a stream whose drafts may be this large (ConfigError if absurd).
        sizes = StreamConfig(max_draft_bytes=max_draft_bytes)
        self.max_draft_bytes = max_draft_bytes
        self._codec = Codec(limits=sizes.limits())
        producer_options.setdefault("max_request_size", sizes.max_message_bytes)
        self._producer_options: dict[str, Any] = {
            "bootstrap_servers": bootstrap,
            "acks": "all",
            "enable_idempotence": True,
            "request_timeout_ms": int(request_timeout * 1000),
            **producer_options,
        }
        # Made in `start`: a producer made and never started is reported unclosed when it is
        # collected (e.g. `submit --wait` of a decided version, which never submits).
        self._producer_or_none: AIOKafkaProducer | None = None

    @property
    def _producer(self) -> AIOKafkaProducer:
        if self._producer_or_none is None:
            raise RuntimeError("DraftSubmitter.start() was not called")
        return self._producer_or_none

    async def start(self) -> None:
        """Connect, and check that the topic exists (TopicMissingError, one line, if not): a
        producer's metadata request for a missing topic would make a broker with
        auto.create.topics.enable create it with its default partition count, which the
        stream's workers then refuse."""
        if self._producer_or_none is None:
            self._producer_or_none = AIOKafkaProducer(**self._producer_options)
        try:
            await self._producer.start()
            metadata = await self._producer.client.fetch_all_metadata()
            if self.topic not in metadata.topics():
                raise TopicMissingError(
                    f"topic {self.topic!r} does not exist on {self.bootstrap}: start a worker "
                    "(`multiqa worker` creates the topics) or run `multiqa topics create`"
                )
        except KafkaConnectionError as exc:
            await self._producer.stop()
            raise BrokerUnavailableError.at(self.bootstrap, exc) from exc
        except BaseException:
            await self._producer.stop()
            raise

    async def stop(self) -> None:
        if self._producer_or_none is not None:
            await self._producer_or_none.stop()

    async def __aenter__(self) -> DraftSubmitter:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()

    async def submit(self, draft: DraftSubmitted, *, traceparent: str | None = None) -> Submission:
        """Publish one draft; returns once the broker has it. The codec validates the draft first
        (`schemas.CodecError` if invalid).

        The draft carries a W3C `traceparent` header: the given one, else the submission span's
        (a child of the caller's current span when tracing is configured), else a new trace id,
        so every review can be followed across the fan-out even without an SDK installed.
        """
        try:
            payload = self._codec.encode(draft)
        except OversizeError as exc:
            raise DraftTooLargeError(
                f"draft {draft.draft_id} v{draft.version}: {exc}; the limit is "
                f"MULTIQA_MAX_DRAFT_BYTES={self.max_draft_bytes} ({self.max_draft_bytes / MIB:g} "
                "MiB): raise it on the writer and on every worker, or shorten the draft"
            ) from None
        if traceparent is not None:
            return await self._send(draft, payload, [(tracing.TRACEPARENT, traceparent.encode())])
        with tracing.submission_span(draft) as headers:
            if not any(name == tracing.TRACEPARENT for name, _ in headers):
                headers = [(tracing.TRACEPARENT, new_traceparent().encode()), *headers]
            return await self._send(draft, payload, headers)

    async def _send(
        self, draft: DraftSubmitted, payload: bytes, headers: list[tuple[str, bytes]]
    ) -> Submission:
        try:
            meta = await self._producer.send_and_wait(
                self.topic, payload, key=draft.draft_id.encode("utf-8"), headers=headers
            )
        except KafkaConnectionError as exc:
            raise BrokerUnavailableError.at(self.bootstrap, exc) from exc
        except MessageSizeTooLargeError:
            raise DraftTooLargeError(
                f"the broker refused draft {draft.draft_id} v{draft.version} ({len(payload)} "
                f"bytes encoded) on topic {self.topic}: over the topic's max.message.bytes; "
                f"raise it to at least {len(payload) + 64 * 1024} (topics `multiqa topics "
                "create` makes get MULTIQA_MAX_DRAFT_BYTES' size; for an older topic: "
                f"kafka-configs.sh --alter --entity-type topics --entity-name {self.topic} "
                "--add-config max.message.bytes=<bytes>)"
            ) from None
        return Submission(
            draft=draft,
            topic=meta.topic,
            partition=meta.partition,
            offset=meta.offset,
            traceparent=dict(headers)[tracing.TRACEPARENT].decode(),
        )


async def submit_draft(
    bootstrap: str,
    draft: DraftSubmitted,
    *,
    topic: str = DEFAULT_DRAFTS_TOPIC,
    traceparent: str | None = None,
    max_draft_bytes: int = StreamConfig.max_draft_bytes,
) -> Submission:
    """Publish one DraftSubmitted event (a one-off producer; use `DraftSubmitter` for many).
    TopicMissingError when the topic does not exist, DraftTooLargeError over the size limit."""
    async with DraftSubmitter(bootstrap, topic=topic, max_draft_bytes=max_draft_bytes) as submitter:
        return await submitter.submit(draft, traceparent=traceparent)


class _RecentIds:
    """The last `capacity` decision ids seen, to drop re-deliveries in one process."""

    def __init__(self, capacity: int) -> None:
        self._ids: OrderedDict[str, None] = OrderedDict()
        self._capacity = capacity

    def __contains__(self, key: str) -> bool:
        return key in self._ids

    def add(self, key: str) -> None:
        self._ids[key] = None
        self._ids.move_to_end(key)
        while len(self._ids) > self._capacity:
            self._ids.popitem(last=False)


def _decode_decision(record: ConsumerRecord[Any, Any]) -> QADecision | None:
    try:
        decision = decode(record.value, QADecision)
    except CodecError as exc:
        # Not ours to dead-letter (the stream does that for its own inputs): report and move on.
        log.error(
            "skipping undecodable decision at %s[%d]@%d: %s",
            record.topic,
            record.partition,
            record.offset,
            exc,
        )
        return None
    return decision


async def decisions(
    bootstrap: str,
    *,
    group_id: str,
    topic: str = DEFAULT_DECISIONS_TOPIC,
    start: Literal["earliest", "latest"] = "earliest",
    dedupe_window: int = 100_000,
    **consumer_options: Any,
) -> AsyncGenerator[QADecision, None]:
    """Decisions as they are made, for a publisher, in a consumer group.

    A group that has never committed starts at `start` ("earliest": every decision the topic
    still holds). Each decision's offset is committed once the caller asks for the next one,
    i.e. after the loop body handled it; decision ids seen in the last `dedupe_window`
    decisions are skipped. Close it with `contextlib.aclosing` (or let the loop end).
    """
    consumer = AIOKafkaConsumer(
        topic,
        bootstrap_servers=bootstrap,
        group_id=group_id,
        enable_auto_commit=False,
        auto_offset_reset=start,
        **consumer_options,
    )
    try:
        await consumer.start()
    except KafkaConnectionError as exc:
        await consumer.stop()
        raise BrokerUnavailableError.at(bootstrap, exc) from exc
    seen = _RecentIds(dedupe_window)
    try:
        async for record in consumer:
            decision = _decode_decision(record)
            if decision is not None and decision.decision_id not in seen:
                yield decision
                seen.add(decision.decision_id)
            await consumer.commit(
                {TopicPartition(record.topic, record.partition): record.offset + 1}
            )
    finally:
        await consumer.stop()


async def find_decision(
    bootstrap: str,
    draft_id: str,
    version: int,
    *,
    topic: str = DEFAULT_DECISIONS_TOPIC,
    within: float = 30.0,
) -> QADecision | None:
    """The decision already made on (draft_id, version), if the decisions topic still holds
    one; None otherwise (also when the topic does not exist). Decisions are keyed by draft_id,
    so only the partition that key maps to is read, from its beginning to its end as of now,
    without joining a consumer group."""
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    try:
        await admin.start()
        if topic not in await admin.list_topics():
            return None
        described: list[Any] = await admin.describe_topics([topic])
    except KafkaConnectionError as exc:
        raise BrokerUnavailableError.at(bootstrap, exc) from exc
    finally:
        await admin.close()
    partitions = sorted(int(p["partition"]) for p in described[0]["partitions"])
    if not partitions:
        return None
    tp = TopicPartition(topic, DefaultPartitioner()(draft_id.encode(), partitions, partitions))
    consumer = AIOKafkaConsumer(
        bootstrap_servers=bootstrap, group_id=None, enable_auto_commit=False
    )
    try:
        await consumer.start()
    except KafkaConnectionError as exc:
        await consumer.stop()
        raise BrokerUnavailableError.at(bootstrap, exc) from exc
    found: QADecision | None = None
    try:
        consumer.assign([tp])
        end = (await consumer.end_offsets([tp]))[tp]
        # An explicit seek: seek_to_beginning() races the reset to "latest" an assignment starts.
        consumer.seek(tp, (await consumer.beginning_offsets([tp]))[tp])
        async with asyncio.timeout(within):
            while await consumer.position(tp) < end:
                batch = await consumer.getmany(tp, timeout_ms=500)
                for record in batch.get(tp, ()):
                    if record.offset >= end or record.key != draft_id.encode():
                        continue
                    decision = _decode_decision(record)
                    if decision and (decision.draft_id, decision.version) == (draft_id, version):
                        found = decision
    finally:
        await consumer.stop()
    return found


class DecisionTail:
    """Reads the decisions topic without joining a consumer group: an observer that never moves
    a publisher's offsets. Used by `multiqa decisions` and `multiqa submit --wait`.

    Entering it fixes the starting point: the topic's current end, its beginning, or the `last`
    n decisions of each partition. A decision made after entering is never missed:

        async with DecisionTail(bootstrap) as tail:
            await submit_draft(bootstrap, draft)
            decision = await tail.wait_for(draft.draft_id, draft.version, within=60)
    """

    def __init__(
        self,
        bootstrap: str,
        *,
        topic: str = DEFAULT_DECISIONS_TOPIC,
        from_beginning: bool = False,
        last: int | None = None,
        poll_seconds: float = 0.5,
    ) -> None:
        self.bootstrap = bootstrap
        self.topic = topic
        self.from_beginning = from_beginning
        self.last = last
        self._poll_ms = int(poll_seconds * 1000)
        self._consumer = AIOKafkaConsumer(
            bootstrap_servers=bootstrap, group_id=None, enable_auto_commit=False
        )
        self._partitions: list[TopicPartition] = []
        self._topic_was_missing = False

    async def __aenter__(self) -> DecisionTail:
        try:
            await self._consumer.start()
        except KafkaConnectionError as exc:
            await self._consumer.stop()
            raise BrokerUnavailableError.at(self.bootstrap, exc) from exc
        await self._assign()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self._consumer.stop()

    async def _assign(self) -> bool:
        """Assign every partition of the topic, once it exists. A topic created after we started
        watching holds only newer decisions, so it is then read from its beginning. (Asking the
        consumer about a missing topic would auto-create it with the broker's default partition
        count, so existence is checked with the admin client's describe first.)"""
        if self._partitions:
            return True
        admin = AIOKafkaAdminClient(bootstrap_servers=self.bootstrap)
        try:
            await admin.start()
            if self.topic not in await admin.list_topics():
                self._topic_was_missing = True
                return False
            described: list[Any] = await admin.describe_topics([self.topic])
        except KafkaConnectionError as exc:
            raise BrokerUnavailableError.at(self.bootstrap, exc) from exc
        finally:
            await admin.close()
        parts = sorted(int(p["partition"]) for p in described[0]["partitions"])
        if not parts:
            return False
        self._partitions = [TopicPartition(self.topic, p) for p in parts]
        self._consumer.assign(self._partitions)
        if self.from_beginning or self._topic_was_missing:
            # Explicit seeks: seek_to_beginning() races the reset an assignment starts.
            firsts = await self._consumer.beginning_offsets(self._partitions)
            for tp in self._partitions:
                self._consumer.seek(tp, firsts[tp])
        elif self.last is not None:
            firsts = await self._consumer.beginning_offsets(self._partitions)
            ends = await self._consumer.end_offsets(self._partitions)
            for tp in self._partitions:
                self._consumer.seek(tp, max(firsts[tp], ends[tp] - self.last))
        else:
            await self._consumer.seek_to_end(*self._partitions)
        return True

    async def _batches(self) -> AsyncIterator[Sequence[ConsumerRecord[Any, Any]]]:
        while True:
            if not await self._assign():
                await asyncio.sleep(self._poll_ms / 1000)
                continue
            try:
                batch = await self._consumer.getmany(timeout_ms=self._poll_ms)
            except KafkaError as exc:
                raise BrokerUnavailableError.at(self.bootstrap, exc) from exc
            yield [record for records in batch.values() for record in records]

    async def follow(self) -> AsyncIterator[QADecision]:
        """Every decision from the starting point on, forever, in arrival order per partition."""
        async for records in self._batches():
            for record in records:
                decision = _decode_decision(record)
                if decision is not None:
                    yield decision

    async def existing(self) -> list[QADecision]:
        """The decisions between the starting point and the topic's end as of this call."""
        if not await self._assign():
            return []
        ends = await self._consumer.end_offsets(self._partitions)
        found: list[QADecision] = []
        async for records in self._batches():
            for record in records:
                if record.offset < ends[TopicPartition(record.topic, record.partition)]:
                    decision = _decode_decision(record)
                    if decision is not None:
                        found.append(decision)
            positions = {tp: await self._consumer.position(tp) for tp in self._partitions}
            if all(positions[tp] >= ends[tp] for tp in self._partitions):
                return found
        return found

    async def wait_for(self, draft_id: str, version: int, *, within: float) -> QADecision | None:
        """The decision on (draft_id, version), or None when none arrives `within` seconds."""

        async def first() -> QADecision | None:
            async for decision in self.follow():
                if decision.draft_id == draft_id and decision.version == version:
                    return decision
            return None

        try:
            return await asyncio.wait_for(first(), within)
        except TimeoutError:
            return None
