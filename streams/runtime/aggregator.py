"""The aggregator: joins each draft version's reviewer results in a changelog-backed table and
publishes exactly one decision per draft version. Scoring is `agents.aggregate`'s, never here.

One agent reads qa.drafts, qa.reviews and the aggregator's own deadlines topic as one stream, so a
table entry is only ever changed by one event at a time. The entry (key "<draft_id>:<version>",
a JSON dict) holds the reviewers expected (enabled and deployed, under the settings in force when
the draft arrived, which are kept in the entry too), the results so far, the deadline, and, once
decided, the decision itself.

When to decide:
- every expected reviewer has answered;
- `agents.aggregate.early_evidence` says no pending answer can change the outcome (a validator
  short-circuit, a certain veto, the threshold out of reach: early reject). Never before every
  free reviewer has answered, and when the free results alone settle it the paid results that
  happened to arrive are not counted: the decision, field for field, is the in-process review's
  whatever the order the results arrive in;
- the deadline passed. A wall-clock timer (`aggregator_tick_seconds`) scans the table and sends a
  nudge for each overdue entry to the deadlines topic, on the entry's partition; the agent then
  decides with `timed_out` and the missing reviewers named. Faust allows table writes only while
  processing an event of the right partition, which is why the timer does not decide itself.

Exactly one decision per version, crash or not:
1. the decision is built (deterministic id: uuid5 of draft id and version) and written into the
   entry; the entry reaches the changelog at the next flush (below);
2. only once that flush is delivered is the decision published to qa.decisions;
3. once the broker has it, the entry is marked published (in a later flush).
A crash before 1 completes leaves no trace: the unacked input is replayed and decides again. A
crash between 1 and 3 leaves a decided, unpublished entry in the changelog; after recovery the
timer finds it and publishes the stored decision again, byte for byte the same. So qa.decisions
may carry a decision twice (at least once), never two different decisions for one version;
consumers de-duplicate on decision_id (the qa_decisions upsert does).
Duplicate results are ignored; results after the decision are recorded in the entry as late and
change nothing; a new version of a draft is a new key, a new review.

Input offsets: the table also holds, per input partition, the next offset to apply, and the agent
applies only that event (streams.runtime._offsets explains the Faust recovery race this guards
against).

Flushes (Kafka Streams' record cache, streams.runtime._cache): the agent applies events to the
table through a write-behind cache, without waiting for the broker; a flusher task writes what
changed, each key once, every `FLUSH_SECONDS` while there is something to write (in a burst,
whatever accumulated while the previous flush was delivered), acknowledges the flushed events once
every write of the flush is delivered, then publishes the decisions the flush holds. An event is
never acknowledged (so its offset never committed) before the changelog has its effect; a crash
between two flushes loses the changes since the last delivered one, and their events, unacked,
are read again from the committed offsets and applied again. The changelog carries each entry
once per flush instead of once per change, and the input offsets once per partition per flush.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from collections.abc import Awaitable, Callable, Iterator, MutableMapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import faust
from faust.types import TP, EventT
from faust.types.tuples import Message
from opentelemetry.trace import SpanKind

from agents.aggregate import build_decision, early_evidence
from agents.base import ReviewerSpec
from agents.settings import Settings
from schemas import (
    Codec,
    DraftSubmitted,
    InvalidRecordError,
    ReviewerResult,
    WrongRecordTypeError,
    utc_now,
)
from streams.runtime import _batch as batches
from streams.runtime import tracing
from streams.runtime._acks import OrderedAcks
from streams.runtime._cache import TableCache
from streams.runtime._due import DueTimes
from streams.runtime._entry import (
    TABLE_NAME,
    Entry,
    due_at,
    is_meta_key,
    settings_key,
    stored_partition,
    table_key,
)
from streams.runtime._guard import HandleGuard
from streams.runtime._offsets import InputOffsets, committed_offset, seek_back
from streams.runtime._screen import Parker, is_marker, read_marker
from streams.runtime.config import StreamConfig
from streams.runtime.deadletter import DeadLetterLedger, DeadLetters
from streams.runtime.observe._logs import draft_context
from streams.runtime.observe._metrics import record_decision
from streams.runtime.serde import EventSchema, Undecodable
from streams.runtime.topics import BATCH_QUEUE, Topics, misrouted, send_encoded

log = logging.getLogger(__name__)

# How long the flusher lets changes gather before writing them (while it writes and waits for the
# broker, more gather anyway). A decision waits at most this long longer; in return a draft's
# entry is written about once instead of once per result.
FLUSH_SECONDS = 0.01
# Events applied but not yet taken by a flush, at most (the agent waits for the flusher beyond).
MAX_BATCH = 2000


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


class _AggregatorSchema(EventSchema):
    """Decodes the aggregator's merged stream: each topic to its own record type, and the
    deadlines topic to Nudges."""

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


class _DurableTable(faust.Table[str, dict[str, Any]]):
    """The aggregator's table. Written through `streams.runtime._cache.TableCache` (never by
    assignment: each changed key once per flush, to the changelog partition of its table
    partition). Its
    changelog topic is named after the deployment (`changelog_name`), not the app id, which names
    the worker's role set: a worker started with other roles keeps the same table."""

    changelog_name: str = ""

    def _changelog_topic_name(self) -> str:
        return self.changelog_name or super()._changelog_topic_name()


class _OffsetsView(MutableMapping[str, Any]):
    """The table as InputOffsets sees it: its offset keys, written through the cache after every
    entry of their flush (the key's last field is its input partition, which is also its table
    partition: the inputs are co-partitioned with the table)."""

    def __init__(self, cache: TableCache) -> None:
        self._cache = cache

    @staticmethod
    def _partition(key: str) -> int:
        return int(key.rsplit(":", 1)[1])

    def __getitem__(self, key: str) -> Any:
        value = self._cache.get(key, self._partition(key))
        if value is None:
            raise KeyError(key)
        return value

    def __setitem__(self, key: str, value: Any) -> None:
        self._cache.set(key, self._partition(key), value, last=True)

    def __delitem__(self, key: str) -> None:
        self._cache.delete(key, self._partition(key))

    def __iter__(self) -> Iterator[str]:
        return (key for key, _ in self._cache.items() if key.startswith("__offsets__:"))

    def __len__(self) -> int:
        return sum(1 for _ in self)


@dataclass
class _Batch:
    """What the agent applied since the last flush: the events to acknowledge after it, other
    deliveries they wait for (dead letters), and the entries whose decision to publish."""

    events: list[Any] = field(default_factory=list)
    writes: list[Any] = field(default_factory=list)
    publish: list[tuple[str, int]] = field(default_factory=list)  # (key, partition)


class Aggregator:
    """The aggregator's table, agent, flusher and timer on the process's Faust app.

    It owns dead-lettering for qa.drafts and qa.reviews: a bad event there becomes exactly one
    dead letter (consumer "aggregator"), whatever other groups read it (they skip it)."""

    def __init__(
        self,
        app: faust.App,
        topics: Topics,
        config: StreamConfig,
        *,
        roster: Sequence[ReviewerSpec],
        settings: Callable[[], Awaitable[Settings]],
        dead_letters: DeadLetters,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.app = app
        self.topics = topics
        self.config = config
        self.roster = tuple(roster)
        self.paid = frozenset(spec.name for spec in self.roster if spec.paid)
        self.settings = settings
        self.dead_letters = dead_letters
        self.clock = clock
        self.counts = {"decided": 0, "published": 0, "duplicates": 0, "late": 0, "timeouts": 0}
        self._nudged: dict[str, float] = {}
        # Due times of the entries, so the timer looks only at what is due (streams.runtime._due),
        # and what the last scan saw (assigned partitions, consumer generation).
        self.due = DueTimes()
        self._due_view: tuple[frozenset[int], int] | None = None
        # The settings last in force and their version: reused for every draft while the
        # settings do not change. Settings by version, as stored (settings_key), read back once.
        self._stored_settings: tuple[Settings, str] | None = None
        self._by_version: dict[str, Settings] = {}
        self._settings_stored: set[tuple[int, str]] = set()  # (table partition, version)
        self._inputs = {config.drafts_topic, config.reviews_topic}
        self.table = _DurableTable(
            app,
            name=TABLE_NAME,
            beacon=app.tables.beacon,
            partitions=config.partitions,
            schema=faust.Schema(key_type=str, key_serializer="json", value_serializer="json"),
            help="multiqa: one entry per draft version under review (streams.runtime.aggregator)",
            # faust-streaming[rocksdict]: the maintained RocksDB binding (python-rocksdb is not).
            options={"driver": "rocksdict"} if config.table_store.startswith("rocksdb") else None,
        )
        self.table.changelog_name = config.changelog_topic
        app.tables.add(self.table)
        self.cache = TableCache(self.table)
        self.nudges = app.topic(
            config.deadlines_topic,
            key_type=bytes,
            value_type=bytes,
            key_serializer="raw",
            value_serializer="raw",
            partitions=config.partitions,
        )
        source = app.topic(
            config.drafts_topic,
            config.reviews_topic,
            config.deadlines_topic,
            schema=_AggregatorSchema(config),
            partitions=config.partitions,
            maxsize=BATCH_QUEUE,
        )
        self.offsets = InputOffsets(
            _OffsetsView(self.cache),
            lambda tp, offset: seek_back(app.consumer, tp, offset),
            time.monotonic,
            position=lambda tp: app.consumer.position(tp),
            committed=lambda tp: committed_offset(app.consumer, tp),
        )
        self._batch = _Batch()
        self._publishing: set[str] = set()  # keys queued or being published, not yet marked
        self._changed = asyncio.Event()
        self._room = asyncio.Event()
        self._room.set()
        self._flushing = False
        # Bad input events never reach the agent: the process's screen hands them to this
        # parker (streams.runtime._screen), which the offsets consult to jump over them.
        self.parker = Parker(
            dead_letters,
            table=self.offsets,
            wrote=self._changed.set,
            owned=self._owns,
            ledger=DeadLetterLedger(
                config.bootstrap_servers, config.dead_letters_topic, config.partitions
            ),
        )
        self.offsets.parked = self.parker
        # A failure while applying an event retries it or parks it; it never loses it.
        self.guarded = HandleGuard(self.handle, owned=self._owns, park=self._park_failed)
        self.agent = app.agent(source, name="aggregate")(self._consume)
        app.timer(config.aggregator_tick_seconds, name="aggregator-deadlines")(self._tick)

    # --- the agent -------------------------------------------------------------------------------
    async def _consume(self, stream: faust.StreamT[Any]) -> None:
        # Manual acks: Faust would ack an event when the agent asks for the next one, and commit
        # acked offsets after a producer flush that gives up after 0.1 s with messages still
        # buffered (ProducerBuffer.flush_atmost). An event is acked only once the flush holding
        # its changes is delivered (the flusher, OrderedAcks).
        manual: faust.StreamT[Any] = stream.noack()  # type: ignore[attr-defined]

        # A batch event (streams.runtime._batch) is acked with its last item, once all flushed.
        acks = self._acks = OrderedAcks(lambda event: batches.ack(manual, event), name="aggregator")
        flusher = asyncio.ensure_future(self._flush_loop(acks))
        try:
            async for delivered in manual.events():
                for event in batches.items(delivered):
                    self._busy = True
                    try:
                        applied = await self.guarded.handle(event)
                    finally:
                        self._busy = False
                    if not applied:
                        break  # left unacknowledged: its partition went to another worker
                    self._batch.events.append(event)
                    self._changed.set()
                    if len(self._batch.events) >= MAX_BATCH:
                        self._room.clear()
                        await self._room.wait()
                    if flusher.done():
                        flusher.result()  # a flush that failed stops the agent, loudly
                        raise RuntimeError("the aggregator's flusher stopped")
                    if acks.failure is not None:
                        raise acks.failure
        finally:
            flusher.cancel()
            await asyncio.gather(flusher, return_exceptions=True)
            await acks.close()
            await self.parker.close()
            self._acks = None
            # Changes not flushed are dropped: their events are unacknowledged, and the input
            # offsets (as last flushed) make the agent read them again.
            self.cache.discard()
            self.due.invalidate()  # it holds due times of the dropped changes
            self._batch = _Batch()
            self._publishing.clear()
            self._room.set()

    _busy = False
    _acks: OrderedAcks | None = None

    async def _flush_loop(self, acks: OrderedAcks) -> None:
        while True:
            await self._changed.wait()
            await asyncio.sleep(FLUSH_SECONDS)
            self._changed.clear()
            self._flushing = True
            try:
                await self._flush(acks)
            finally:
                self._flushing = False

    async def _flush(self, acks: OrderedAcks) -> None:
        """Write what changed, ack the events once it is delivered, then publish the decisions
        it holds (and mark them published: written by a later flush)."""
        batch, self._batch = self._batch, _Batch()
        self._room.set()
        writes = self.cache.flush() + batch.writes
        for n, event in enumerate(batch.events):
            await acks.add(event, writes if n == 0 else [])
        for write in writes:
            await write  # a write that failed raises here: the flusher (and the agent) stop
        if batch.publish:
            await self._publish(batch.publish)

    async def quiesce(self) -> None:
        """Return once no event is being applied and every applied one is flushed and
        acknowledged: called before the process gives up partitions
        (streams.runtime.app.WorkerApp), so the table is never written for a partition another
        worker may already own."""
        limit = max(1.0, self.config.broker_rebalance_timeout / 2)
        try:
            async with asyncio.timeout(limit):
                while self._busy:  # noqa: ASYNC110 (rare: a rebalance)
                    await asyncio.sleep(0.005)
                while self._batch.events or self._batch.publish or len(self.cache):
                    if self._acks is None:
                        break  # no agent running: nothing will flush
                    self._changed.set()
                    await asyncio.sleep(0.005)
                while self._flushing:  # noqa: ASYNC110
                    await asyncio.sleep(0.005)
                if self._acks is not None:
                    await self._acks.drained()
        except TimeoutError:
            log.warning("aggregator: still busy after %.0f s; giving up its partitions", limit)

    async def handle(self, event: EventT[Any]) -> None:
        """Apply one event to the table (through the cache: written at the next flush)."""
        message = event.message
        tracked = message.topic in self._inputs
        if tracked:
            if self.app.in_recovery:
                return  # the table is incomplete; the offsets check re-fetches this later
            if not await self.offsets.admit(message.tp, message.offset):
                return
        value = event.value
        if isinstance(value, DraftSubmitted | ReviewerResult):
            with draft_context(value.draft_id, value.version):
                await self._apply(event)
        else:
            await self._apply(event)
        if tracked:
            self.offsets.applied(message.tp, message.offset)

    async def _apply(self, event: EventT[Any]) -> None:
        value = event.value
        message = event.message
        if isinstance(value, Nudge):
            self._on_nudge(value.key, message.partition)
        elif isinstance(value, Parked):
            self.offsets.cover(value.tp, value.next_offset)
        elif isinstance(value, Undecodable):
            await self._park(message, value.error)
        elif (
            isinstance(value, DraftSubmitted | ReviewerResult)
            and (wrong_key := misrouted(event.key, value.draft_id)) is not None
        ):
            await self._park(message, wrong_key)
        elif isinstance(value, DraftSubmitted):
            await self._on_draft(value, event.headers, message.partition)
        elif isinstance(value, ReviewerResult):
            # The bytes it was decoded from are stored as they are (not encoded again).
            raw = None if message.value is None else bytes(message.value)
            self._on_result(value, event.headers, message.partition, raw)
        else:  # a valid record of another type on one of our topics
            error = WrongRecordTypeError(
                f"{type(value).__name__} on {message.topic!r} is not what the aggregator expects"
            )
            await self._park(message, error)

    def _owns(self, tp: TP) -> bool:
        return not self.app.rebalancing and tp in self.app.consumer.assignment()

    async def _park_failed(self, message: Message, error: BaseException) -> None:
        await self._park(message, error)
        if message.topic in self._inputs:
            self.offsets.applied(message.tp, message.offset)  # done with: never applied again

    async def _park(self, message: Message, error: BaseException) -> None:
        # Not awaited here: the event is acknowledged once the dead letter is delivered, and a
        # flood of bad events shares produce requests instead of a round trip each.
        self._batch.writes.append(await self.dead_letters.send(message, error))

    def _load(self, key: str, partition: int | None = None) -> Entry | None:
        data = self.cache.get(key, partition)
        return None if data is None else Entry.from_json(data)

    def _store(self, entry: Entry) -> None:
        data = entry.to_json()
        self.cache.set(entry.key, entry.partition, data)
        self.due.set(entry.key, self._due_at(data), entry.partition)

    async def _on_draft(self, draft: DraftSubmitted, headers: Any, partition: int) -> None:
        key = table_key(draft.draft_id, draft.version)
        now = self.clock()
        entry = self._load(key, partition) or Entry(key=key, partition=partition, created_at=now)
        if entry.draft is not None:
            self.counts["duplicates"] += 1
            return  # a re-delivered draft: the first registration (and its deadline) stands
        settings = await self.settings()
        timeout = self.config.aggregate_timeout_seconds or settings.qa_aggregate_timeout_seconds
        entry.draft = {
            "draft_id": draft.draft_id,
            "version": draft.version,
            "task_id": draft.task_id,
            "title": draft.title,
        }
        entry.traceparent = tracing.traceparent_of(headers)
        entry.arrived_at = now
        entry.deadline = now + timeout
        entry.expected = [spec.name for spec in self.roster if spec.enabled(settings)]
        entry.settings = None
        entry.settings_version = self._store_settings(settings, partition)
        self._advance(entry)

    def _store_settings(self, settings: Settings, partition: int) -> str:
        """The version of `settings`, their values stored under settings_key on the table
        partition (once: flushed with, and before, the first entry naming them)."""
        last = self._stored_settings
        if last is None or last[0] != settings:
            last = self._stored_settings = (settings, settings.version())
            self._by_version[last[1]] = settings
        version = last[1]
        if (partition, version) not in self._settings_stored:
            key = settings_key(version, partition)
            if self.cache.get(key, partition) is None:
                self.cache.set(key, partition, {"settings": settings.to_mapping()})
            self._settings_stored.add((partition, version))
        return version

    def _settings_of(self, entry: Entry) -> Settings:
        """The settings `entry` was opened under."""
        if entry.settings is not None:  # an entry written before settings_key
            return entry.effective_settings()
        settings = self._by_version.get(entry.settings_version)
        if settings is None:
            stored = self.cache.get(
                settings_key(entry.settings_version, entry.partition), entry.partition
            )
            settings = entry.effective_settings(None if stored is None else stored["settings"])
            self._by_version[entry.settings_version] = settings
        return settings

    def _on_result(
        self, result: ReviewerResult, headers: Any, partition: int, encoded: bytes | None = None
    ) -> None:
        key = table_key(result.draft_id, result.version)
        entry = self._load(key, partition) or Entry(
            key=key, partition=partition, created_at=self.clock()
        )
        name = result.reviewer
        if name in entry.results or name in entry.late:
            self.counts["duplicates"] += 1
            return  # a re-delivered result changes nothing (and is not worth a changelog write)
        if entry.decision is not None:
            entry.add_result(result, late=True, encoded=encoded)
            self.counts["late"] += 1
            log.info("late result from %s for decided %s", name, key)
            self._store(entry)
            return
        entry.add_result(result, encoded=encoded)
        span = tracing.traceparent_of(headers)
        if span is not None:
            entry.result_spans[name] = span
        self._advance(entry)

    def _advance(self, entry: Entry) -> None:
        """Decide if the entry is complete or settled; store it."""
        if entry.draft is not None:
            evidence = early_evidence(
                entry.counted_results(), entry.expected, self.paid, self._settings_of(entry)
            )
            if evidence is not None:
                complete = len(evidence) == len(entry.expected)
                self._decide(entry, "complete" if complete else "settled", evidence)
                return
        self._store(entry)

    def _on_nudge(self, key: str, partition: int) -> None:
        entry = self._load(key, partition)
        if entry is None:
            return
        now = self.clock()
        if entry.decision is None:
            if entry.deadline is not None and now >= entry.deadline:
                self._decide(entry, "timeout")
            elif (
                entry.draft is None
                and now >= entry.created_at + self.config.decided_retention_seconds
            ):
                self._forget(entry)  # results whose draft never came: forget them eventually
        elif not entry.published:
            self._queue_publish(entry)  # decided, stored, not (known to be) published yet
        elif now >= (entry.decided_at or 0) + self.config.decided_retention_seconds:
            self._forget(entry)

    def _forget(self, entry: Entry) -> None:
        self.cache.delete(entry.key, entry.partition)
        self._nudged.pop(entry.key, None)
        self.due.discard(entry.key)

    def _decide(
        self, entry: Entry, decided_by: str, evidence: list[ReviewerResult] | None = None
    ) -> None:
        assert entry.draft is not None
        counted = entry.counted_results() if evidence is None else evidence
        draft = DraftSubmitted(
            draft_id=entry.draft["draft_id"],
            version=entry.draft["version"],
            title=entry.draft["title"],
            content="",
            task_id=entry.draft["task_id"],
        )
        decision = build_decision(
            draft,
            counted,
            self._settings_of(entry),
            expected=entry.expected,
            decided_at=utc_now(),
            timed_out=decided_by == "timeout",
            early=decided_by == "settled" and len(counted) < len(entry.expected),
        )
        # The review's trace (the submission's), so a decision leads to its whole trace.
        decision = dataclasses.replace(decision, trace_id=tracing.trace_id_of(entry.traceparent))
        entry.set_decision(decision)
        entry.decided_by = decided_by
        entry.decided_at = self.clock()
        self._store(entry)
        self.counts["decided"] += 1
        record_decision(decision)
        if decided_by == "timeout":
            self.counts["timeouts"] += 1
        # Published once this flush is delivered: the decision is in the changelog before
        # anyone can see it (module docstring).
        self._queue_publish(entry)

    def _queue_publish(self, entry: Entry) -> None:
        if entry.key not in self._publishing:
            self._publishing.add(entry.key)
            self._batch.publish.append((entry.key, entry.partition))

    async def _publish(self, queued: list[tuple[str, int]]) -> None:
        """Publish the stored decisions of `queued`, wait for the broker, mark them published."""
        sent = []
        for key, partition in queued:
            entry = self._load(key, partition)
            decision = None if entry is None else entry.decision_record()
            if entry is None or decision is None or entry.published:
                self._publishing.discard(key)
                continue
            links = [
                link
                for name in entry.expected
                if (link := tracing.link_from_traceparent(entry.result_spans.get(name))) is not None
            ]
            with tracing.tracer().start_as_current_span(
                "multiqa.decide",
                context=tracing.context_from_traceparent(entry.traceparent),
                kind=SpanKind.PRODUCER,
                links=links,
                attributes={
                    **tracing.draft_attributes(decision.draft_id, decision.version),
                    "multiqa.decision_id": decision.decision_id,
                    "multiqa.approved": decision.approved,
                    "multiqa.final_score": decision.final_score,
                    "multiqa.decided_by": entry.decided_by or "",
                },
            ):
                headers = tracing.inject()
            # The bytes encoded (and validated) when it was decided: the same decision, byte for
            # byte, whenever it is published, without encoding it again.
            encoded = entry.decision_bytes()
            assert encoded is not None
            fut = await send_encoded(self.topics.decisions, decision.draft_id, encoded, headers)
            sent.append((key, partition, fut))
        for _, _, fut in sent:
            await fut
        for key, partition, _ in sent:
            entry = self._load(key, partition)  # as it is now (a late result may have come)
            if entry is not None and not entry.published:
                entry.published = True
                self._store(entry)
            self.counts["published"] += 1
            self._publishing.discard(key)
            self._nudged.pop(key, None)
        if sent:
            self._changed.set()

    # --- the timer -------------------------------------------------------------------------------
    def _due_at(self, data: dict[str, Any]) -> float:
        # Published in the same step as decided, normally; give that step time to finish.
        grace = 2 * self.config.aggregator_tick_seconds
        retention = self.config.decided_retention_seconds
        return due_at(data, retention=retention, publish_grace=grace)

    async def _tick(self) -> None:
        # An exception would end Faust's timer task, and with it every later deadline.
        try:
            await self.scan()
        except Exception:
            log.exception("aggregator: deadline scan failed; retrying at the next tick")

    async def scan(self) -> int:
        """Nudge every overdue entry of this worker's partitions; returns how many were sent."""
        app = self.app
        recovered = app.tables.recovery.completed.is_set()  # type: ignore[attr-defined]
        if app.rebalancing or app.in_recovery or not recovered:
            return 0
        assignment = app.consumer.assignment()
        inputs = [tp for tp in assignment if tp.topic in self._inputs]
        self.parker.forget(inputs)
        await self.offsets.resync(inputs, app.consumer_generation_id)
        await self.offsets.reseek_stalled(inputs)
        assigned = {tp.partition for tp in assignment if tp.topic == self.config.drafts_topic}
        now = self.clock()
        # Re-send a nudge that had no effect after a while (e.g. lost in a rebalance).
        resend_after = max(5.0, 5 * self.config.aggregator_tick_seconds)
        view = (frozenset(assigned), app.consumer_generation_id)
        if view != self._due_view or self.due.needs_rebuild(now):
            # Entries read back from the changelog, or changes dropped: walk the table once.
            self._due_view = view
            self.due.rebuild(
                (
                    (key, self._due_at(data), stored_partition(data))
                    for key, data in list(self.cache.items())
                    if not is_meta_key(key)
                ),
                now,
            )
        sent = 0
        for key, partition in self.due.take_due(now):
            data = self.cache.get(key, partition)
            if data is None or stored_partition(data) not in assigned:
                continue  # gone (forgotten, or its partition: the next owner rebuilds)
            due = self._due_at(data)
            last = self._nudged.get(key)
            if due > now:  # changed since it was indexed
                self.due.set(key, due, partition)
                continue
            if last is not None and now - last < resend_after:
                self.due.set(key, last + resend_after, partition)
                continue
            self._nudged[key] = now
            # Looked at again if the nudge had no effect (its handling stores the entry anew).
            self.due.set(key, now + resend_after, partition)
            await self.nudges.send(key=key.encode(), value=key.encode(), partition=partition)
            sent += 1
        return sent

    # --- for status and tests --------------------------------------------------------------------
    def entry(self, draft_id: str, version: int) -> Entry | None:
        return self._load(table_key(draft_id, version))
