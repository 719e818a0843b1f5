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

Below Faust (streams.runtime._screen, streams.runtime._fetch): the aggregator's dead letters carry
a `multiqa-source` header naming the consumer and the source record, and those of one source
partition all go to one dead-letter partition, so `DeadLetterLedger` can tell, after a crash,
which of a batch read again were parked already. In a process running the sinks, the dead-letter
topic's records are taken out of each fetched batch too and written to audit_log by `AuditLane`,
many per statement, without a Faust message or agent per dead letter.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, cast

import faust
from aiokafka import AIOKafkaConsumer, TopicPartition
from faust.types import TP
from faust.types.tuples import Message

from agents.retry import Backoff
from schemas import DeadLetter, utc_now
from streams.runtime import tracing
from streams.runtime._heap import release_after_burst
from streams.runtime.observe._metrics import record_dead_letter
from streams.runtime.serde import dead_letter
from streams.runtime.topics import send_record

if TYPE_CHECKING:
    from schemas import Codec

log = logging.getLogger(__name__)

DeadLetterAudit = Callable[[DeadLetter], Awaitable[Any]]

SOURCE_HEADER = "multiqa-source"
# The ledger reads dead letters back from this long before the oldest record it checks (producer
# clocks differ; a record is always read, hence parked, after it was produced).
LEDGER_MARGIN_SECONDS = 300.0
_BACKOFF = Backoff(initial=0.5, factor=2.0, cap=5.0)


def _traced(headers: Any) -> bool:
    if not headers:
        return False
    names = headers.keys() if hasattr(headers, "keys") else (h[0] for h in headers)
    return any(str(name).lower() == tracing.TRACEPARENT for name in names)


def source_header(consumer: str, topic: str, partition: int, offset: int) -> bytes:
    return f"{consumer}\n{topic}\n{partition}\n{offset}".encode()


class DeadLetters:
    """Publishes DeadLetter records for one consumer (an agent)."""

    def __init__(
        self, topic: faust.TopicT, consumer: str, *, audit: DeadLetterAudit | None = None
    ) -> None:
        self.topic = topic
        self.consumer = consumer
        self.audit = audit
        self.parked = 0

    async def send(self, message: Any, error: BaseException) -> Any:
        """Publish `message` (a Faust message or a fetched record) as a dead letter; returns the
        delivery future (not awaited: the caller acknowledges the bad event once it is
        delivered). Handed to the app's producer directly (`send_record`), with the source in a
        header and on the dead-letter partition of its source partition (`DeadLetterLedger`).
        Its `multiqa.dead_letter` span is made when the bad event carries a trace context."""
        dead = dead_letter(cast(Message, message), error, consumer=self.consumer)
        partitions = self.topic.partitions
        header = source_header(self.consumer, dead.source_topic, dead.source_partition,
                               dead.source_offset)  # fmt: skip
        send = send_record(
            self.topic, dead.key, dead, [(SOURCE_HEADER, header)],
            partition=dead.source_partition % partitions if partitions else None,
        )  # fmt: skip
        if _traced(message.headers):
            with tracing.dead_letter_span(message.headers, dead):
                fut = await send
        else:  # no trace to join: a root span per bad event of a flood would only be noise
            fut = await send
        self._count(dead)
        return fut

    def partition_for(self, record: Any) -> int:
        """The dead-letter partition of a bad record: the one of its source partition
        (`DeadLetterLedger` reads that one back)."""
        partitions = self.topic.partitions or 1
        return int(record.partition) % partitions

    async def send_batch(self, items: Sequence[tuple[Any, BaseException]], start: int) -> Any:
        """Publish the dead letters of `items[start:]` (fetched records and why each is bad, all
        of one dead-letter partition: `partition_for`) in one produce batch, as many as it
        holds (at least one); returns (how many, the batch's delivery future). What `send`
        does for one, less per dead letter: one batch builder (aiokafka's C record builder),
        one future and one count per batch, one timestamp per batch."""
        producer = await self.topic.app.maybe_start_producer()
        kafka = producer._ensure_producer()  # Faust's aiokafka producer: the app's one
        codec: Codec = cast(Any, self.topic.schema).codec
        batch = kafka.create_batch()
        failed_at = utc_now()
        sent: list[DeadLetter] = []
        end = start
        for record, error in items[start:]:
            dead = dead_letter(record, error, consumer=self.consumer, failed_at=failed_at)
            source = source_header(
                self.consumer, dead.source_topic, dead.source_partition, dead.source_offset
            )
            headers = [(SOURCE_HEADER, source)]
            value = codec.encode(dead)
            if _traced(record.headers):
                with tracing.dead_letter_span(record.headers, dead):
                    added = batch.append(timestamp=None, key=dead.key, value=value, headers=headers)
            else:
                added = batch.append(timestamp=None, key=dead.key, value=value, headers=headers)
            if added is None:
                break  # the batch is full (an empty one takes any record)
            sent.append(dead)
            end += 1
        if not sent:
            raise ValueError("a dead letter did not fit an empty produce batch")
        partition = self.partition_for(items[start][0])
        fut = await kafka.send_batch(batch, self.topic.get_topic_name(), partition=partition)
        self._counted(sent)
        return end - start, fut

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

    def _counted(self, deads: Sequence[DeadLetter]) -> None:
        """`_count` for many: one metric increment per kind, the same log lines."""
        kinds = Counter((d.source_topic, d.error_type) for d in deads)
        for (topic, error_type), n in kinds.items():
            record_dead_letter(topic, error_type, self.consumer, n)
        for dead in deads:
            self.parked += 1
            if self.parked <= 10 or str(self.parked).rstrip("0") == "1":
                self._log(dead)

    def _count(self, dead: DeadLetter) -> None:
        self.parked += 1
        record_dead_letter(dead.source_topic, dead.error_type, dead.consumer)
        # A flood of bad events must not become a flood of log lines: the first ten, then one
        # line per power of ten.
        n = self.parked
        if n > 10 and str(n).rstrip("0") != "1":
            return
        self._log(dead)

    def _log(self, dead: DeadLetter) -> None:
        n = self.parked
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


class DeadLetterLedger:
    """Which records of its input partitions a consumer has parked already, read back from the
    dead-letter topic: once per partition and assignment, from shortly before the oldest record
    asked about (streams.runtime._screen: the crash window between a dead letter and the commit
    past its event). One reader (no group) for the process, started when first needed."""

    def __init__(self, bootstrap_servers: str, topic: str, partitions: int) -> None:
        self.bootstrap_servers = bootstrap_servers
        self.topic = topic
        self.partitions = partitions
        self._read: set[TP] = set()
        self._reader: AIOKafkaConsumer | None = None
        self.scanned = 0  # dead letters read back

    def needs(self, tp: TP) -> bool:
        return tp not in self._read

    async def parked(
        self, consumer: str, records: dict[TP, Sequence[tuple[Any, Any]]]
    ) -> dict[TP, set[int]]:
        """Per partition of `records` (record, error pairs) not read yet since it was assigned:
        the source offsets `consumer` dead-lettered from shortly before its oldest record on."""
        todo = {tp: items for tp, items in records.items() if tp not in self._read and items}
        if not todo:
            return {}
        margin = int(LEDGER_MARGIN_SECONDS * 1000)
        since: dict[TopicPartition, int] = {}
        for tp, items in todo.items():
            where = TopicPartition(self.topic, tp.partition % self.partitions)
            oldest = max(0, min(r.timestamp for r, _ in items) - margin)
            since[where] = min(since.get(where, oldest), oldest)
        found = await self._read_back(consumer, set(todo), since)
        self._read.update(todo)
        for tp, items in todo.items():
            first = min(r.offset for r, _ in items)
            later = [o for o in found.get(tp, ()) if o >= first]
            if later:
                log.warning(
                    "%s[%d]: %d bad events from offset %d on were dead-lettered already (before "
                    "a crash or a rebalance); they are not parked again",
                    tp.topic, tp.partition, len(later), min(later),
                )  # fmt: skip
        return found

    async def _read_back(
        self, consumer: str, sources: set[TP], since: dict[TopicPartition, int]
    ) -> dict[TP, set[int]]:
        reader = self._reader
        if reader is None:
            reader = AIOKafkaConsumer(
                bootstrap_servers=self.bootstrap_servers,
                enable_auto_commit=False,
                group_id=None,
                fetch_max_bytes=64 << 20,
            )
            await reader.start()
            self._reader = reader
        wanted = {source_header(consumer, tp.topic, tp.partition, 0)[:-1]: tp for tp in sources}
        found: dict[TP, set[int]] = {}
        parts = list(since)
        reader.assign(parts)
        ends = await reader.end_offsets(parts)
        starts = await reader.offsets_for_times(since)
        left = set()
        for part in parts:
            at = starts.get(part)
            if at is not None and at.offset < ends[part]:
                reader.seek(part, at.offset)
                left.add(part)
        while left:
            batches = await reader.getmany(*left, timeout_ms=1000)
            for batch in batches.values():
                for record in batch:
                    self.scanned += 1
                    for name, value in record.headers or ():
                        if name == SOURCE_HEADER:
                            prefix, _, offset = value.rpartition(b"\n")
                            tp = wanted.get(prefix + b"\n")
                            if tp is not None:
                                found.setdefault(tp, set()).add(int(offset))
            for part in list(left):
                if await reader.position(part) >= ends[part]:
                    left.discard(part)
        return found

    def forget(self, assigned: Iterable[TP]) -> None:
        """A partition given up is read again when it comes back."""
        self._read &= set(assigned)

    async def close(self) -> None:
        reader, self._reader = self._reader, None
        if reader is not None:
            await reader.stop()


Write = Callable[[list[DeadLetter]], Awaitable[Any]]


class AuditLane:
    """The sinks' `dead_letter` audit events, written from the fetched batches of the dead-letter
    topic (streams.runtime._screen.Screen): decoded once, up to `max_batch` per statement, and
    acknowledged once written. A batch the database refuses is written one by one and a refused
    dead letter is logged (parking it again would loop); any other failure is retried with
    backoff, in the writer's loop, which never ends on an error.

    `put` never waits: the consumer that calls it also fetches the drafts and reviews, which
    must not queue behind the database (a flood's audit rows are written at ~1,000-3,500/s on
    this machine, its dead letters parked faster: waiting here held valid drafts until the last
    audit row). Instead, once `max_backlog` records wait, the dead-letter partitions that
    brought them are paused (Faust's `pause_partitions`: the consumer stops asking for them, the
    others flow on) and resumed when the backlog is down to one statement. What waits in memory
    is bounded by `max_backlog` plus one fetch."""

    def __init__(
        self,
        topic: str,
        schema: Any,
        write: Write,
        *,
        refused: tuple[type[BaseException], ...] = (),
        owned: Callable[[TP], bool] = lambda tp: True,
        max_batch: int = 2000,
        max_backlog: int = 4000,
        linger: float = 0.05,
    ) -> None:
        self.topic = topic
        self.schema = schema
        self.write = write
        self.refused = refused
        self.owned = owned
        self.max_batch = max_batch
        self.max_backlog = max_backlog
        self.linger = linger
        self.written = 0
        self.skipped = 0  # bad records on the dead-letter topic (logged, never parked)
        self.backlog = 0  # records put and not yet written
        self.paused: dict[TP, Any] = {}  # partitions paused for the backlog, and their consumer
        self._queue: asyncio.Queue[tuple[Any, TP, list[Any]]] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None

    async def put(self, acker: Any, tp: TP, records: list[Any]) -> None:
        if self._task is None or self._task.done():
            if self._task is not None and not self._task.cancelled():
                log.error("the dead-letter audit writer had stopped: %r", self._task.exception())
            self._task = asyncio.ensure_future(self._run())
        self._queue.put_nowait((acker, tp, records))
        self.backlog += len(records)
        # Faust's own TP: the fetched batch is keyed by aiokafka's TopicPartition, which Faust's
        # resume_partitions would put in its active set as it is (and then fail an assertion).
        tp = TP(tp.topic, tp.partition)
        if self.backlog >= self.max_backlog and tp not in self.paused:
            self.paused[tp] = acker
            acker.pause_partitions({tp})

    def _resume(self) -> None:
        if self.paused and self.backlog <= self.max_batch:
            for tp, acker in self.paused.items():
                if tp in acker.assignment():  # one revoked meanwhile is not ours to resume
                    acker.resume_partitions({tp})
            self.paused.clear()

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            items = [await self._queue.get()]
            until = loop.time() + self.linger
            while sum(len(r) for _, _, r in items) < self.max_batch:
                left = until - loop.time()
                if left <= 0:
                    break
                try:
                    async with asyncio.timeout(left):
                        items.append(await self._queue.get())
                except TimeoutError:
                    break
            await self._write_and_ack(items)
            del items  # nothing of a flood stays referenced while the lane waits (_heap)

    async def _write_and_ack(self, items: list[tuple[Any, TP, list[Any]]]) -> None:
        await self._write(items)
        for acker, tp, records in items:
            self.backlog -= len(records)
            if self.owned(tp):
                acker.ack_offsets(tp, (r.offset for r in records))
        self._resume()
        release_after_burst(sum(len(records) for _, _, records in items))

    async def _write(self, items: list[tuple[Any, TP, list[Any]]]) -> None:
        batch: list[DeadLetter] = []
        for _, _, records in items:
            for record in records:
                value = self.schema.decode_bytes(record.value)
                if isinstance(value, DeadLetter):
                    batch.append(value)
                else:
                    self.skipped += 1
                    log.error(
                        "sinks skipped %s[%d]@%d: not a dead letter (%s)",
                        record.topic, record.partition, record.offset,
                        getattr(value, "error", type(value).__name__),
                    )  # fmt: skip
        attempt = 0
        while True:
            try:
                await self._write_all(batch)
                self.written += len(batch)
                return
            except asyncio.CancelledError:
                raise
            except Exception:
                attempt += 1
                delay = _BACKOFF.delay(attempt)
                log.warning("dead letters not audited; retrying in %.1f s", delay, exc_info=True)
                await asyncio.sleep(delay)

    async def _write_all(self, batch: list[DeadLetter]) -> None:
        if not batch:
            return
        try:
            await self.write(batch)
            return
        except self.refused:
            log.warning("a batch of %d dead letters was refused; writing them one by one",
                        len(batch))  # fmt: skip
        for dead in batch:
            try:
                await self.write([dead])
            except self.refused as exc:
                log.error(
                    "dead letter %s[%d]@%d refused by the database: %s",
                    dead.source_topic, dead.source_partition, dead.source_offset, exc,
                )  # fmt: skip

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None
