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
- the deadline passed: the timer (`aggregator_tick_seconds`, streams.runtime._aggregator_timer)
  nudges each overdue entry through the deadlines topic, and the agent decides with `timed_out`
  and the missing reviewers named.

Exactly one decision per version, crash or not:
1. the decision is built (deterministic id: uuid5 of draft id and version) and written into the
   entry; the entry reaches the changelog at the next flush (streams.runtime._aggregator_flush);
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

The agent applies events through a write-behind cache; the flusher writes, acknowledges and
publishes (streams.runtime._aggregator_flush); the table's other keys are the input offsets and
the settings by version (streams.runtime._aggregator_table).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import faust
from faust.types import TP, EventT
from faust.types.tuples import Message

from agents.aggregate import build_decision, early_evidence
from agents.base import ReviewerSpec
from agents.settings import Settings
from schemas import DraftSubmitted, ReviewerResult, WrongRecordTypeError, utc_now
from streams.runtime import _batch as batches
from streams.runtime import tracing
from streams.runtime._acks import OrderedAcks
from streams.runtime._aggregator_flush import MAX_BATCH, Batch, Flushing
from streams.runtime._aggregator_input import AggregatorSchema, Nudge, Parked
from streams.runtime._aggregator_table import DurableTable, OffsetsView, SettingsVersions
from streams.runtime._aggregator_timer import DeadlineTimer
from streams.runtime._cache import TableCache
from streams.runtime._due import DueTimes
from streams.runtime._entry import TABLE_NAME, Entry, table_key
from streams.runtime._guard import HandleGuard
from streams.runtime._offsets import InputOffsets, committed_offset, seek_back
from streams.runtime._screen import Parker
from streams.runtime.config import StreamConfig
from streams.runtime.deadletter import DeadLetterLedger, DeadLetters
from streams.runtime.observe._logs import draft_context
from streams.runtime.observe._metrics import record_decision
from streams.runtime.serde import Undecodable
from streams.runtime.topics import BATCH_QUEUE, Topics, misrouted

log = logging.getLogger(__name__)


class Aggregator(Flushing, DeadlineTimer):
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
        self._inputs = {config.drafts_topic, config.reviews_topic}
        self.table = DurableTable(
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
        self.settings_versions = SettingsVersions(self.cache)
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
            schema=AggregatorSchema(config),
            partitions=config.partitions,
            maxsize=BATCH_QUEUE,
        )
        self.offsets = InputOffsets(
            OffsetsView(self.cache),
            lambda tp, offset: seek_back(app.consumer, tp, offset),
            time.monotonic,
            position=lambda tp: app.consumer.position(tp),
            committed=lambda tp: committed_offset(app.consumer, tp),
        )
        self._batch = Batch()
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
            self.settings_versions.forget_unflushed()
            self.due.invalidate()  # it holds due times of the dropped changes
            self._batch = Batch()
            self._publishing.clear()
            self._room.set()

    _busy = False
    _acks: OrderedAcks | None = None

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
        entry.settings_version = self.settings_versions.store(settings, partition)
        self._advance(entry)

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
        results, paid = entry.results, self.paid
        # early_evidence waits for every free reviewer first: while one has not answered, it
        # would say so, after decoding the results so far (most events of a draft).
        free_pending = any(name not in results and name not in paid for name in entry.expected)
        if entry.draft is not None and not free_pending:
            evidence = early_evidence(
                entry.counted_results(), entry.expected, self.paid, self.settings_versions.of(entry)
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
            self.settings_versions.of(entry),
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

    # --- for status and tests --------------------------------------------------------------------
    def entry(self, draft_id: str, version: int) -> Entry | None:
        return self._load(table_key(draft_id, version))
