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
   entry; the agent waits until the changelog has it;
2. only then is it published to qa.decisions (and the agent waits for the broker);
3. the entry is marked published.
A crash before 1 completes leaves no trace: the unacked input is replayed and decides again. A
crash between 1 and 3 leaves a decided, unpublished entry in the changelog; after recovery the
timer finds it and publishes the stored decision again, byte for byte the same. So qa.decisions
may carry a decision twice (at least once), never two different decisions for one version;
consumers de-duplicate on decision_id (the qa_decisions upsert does).
Duplicate results are ignored; results after the decision are recorded in the entry as late and
change nothing; a new version of a draft is a new key, a new review.

Input offsets: the table also holds, per input partition, the next offset to apply, and the agent
applies only that event (streams.runtime._offsets explains the Faust recovery race this guards
against). Every event's changelog writes are delivered before the event is acknowledged.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

import faust
from faust.types import EventT
from faust.types.tuples import Message
from opentelemetry.trace import SpanKind

from agents.aggregate import build_decision, early_evidence
from agents.base import ReviewerSpec
from agents.settings import Settings
from schemas import (
    DraftSubmitted,
    ReviewerResult,
    WrongRecordTypeError,
    utc_now,
)
from streams.runtime import tracing
from streams.runtime._acks import OrderedAcks
from streams.runtime._entry import (
    TABLE_NAME,
    Entry,
    table_key,
)
from streams.runtime._offsets import InputOffsets, is_offset_key
from streams.runtime.config import StreamConfig
from streams.runtime.deadletter import DeadLetters
from streams.runtime.observe._logs import draft_context
from streams.runtime.observe._metrics import record_decision
from streams.runtime.serde import EventSchema, Undecodable
from streams.runtime.topics import Topics, misrouted

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Nudge:
    """A deadlines-topic message: "look at this entry now" (its deadline passed, or its decision
    is stored but not yet published)."""

    key: str


class _AggregatorSchema(EventSchema):
    """Decodes the aggregator's merged stream: each topic to its own record type, and the
    deadlines topic to Nudges."""

    def __init__(self, config: StreamConfig) -> None:
        super().__init__(None)
        self._deadlines = config.deadlines_topic
        self._by_topic = {
            config.drafts_topic: EventSchema(DraftSubmitted, codec=self.codec),
            config.reviews_topic: EventSchema(ReviewerResult, codec=self.codec),
        }

    def loads_value(self, app: Any, message: Message, **kwargs: Any) -> Any:
        if message.topic == self._deadlines:
            return Nudge(bytes(message.value or b"").decode("utf-8", "replace"))
        schema = self._by_topic.get(message.topic)
        if schema is None:
            return Undecodable(
                WrongRecordTypeError(f"the aggregator does not read {message.topic!r}"),
                bytes(message.value or b""),
            )
        return schema.loads_value(app, message, **kwargs)


class _DurableTable(faust.Table[str, dict[str, Any]]):
    """A Table whose changelog writes can be awaited: the aggregator must know a decision is in
    the changelog before it publishes it (`await table.last_write`), and an event's writes are
    delivered before the event is acknowledged (`take_writes`). Its changelog topic is named
    after the deployment (`changelog_name`), not the app id, which names the worker's role set:
    a worker started with other roles keeps the same table."""

    _writes: list[Any] | None = None
    changelog_name: str = ""

    def _changelog_topic_name(self) -> str:
        return self.changelog_name or super()._changelog_topic_name()

    def add_write(self, fut: Any) -> None:
        """Another delivery the current event's acknowledgement waits for (a dead letter)."""
        if self._writes is None:
            self._writes = []
        self._writes.append(fut)

    def send_changelog(self, *args: Any, **kwargs: Any) -> Any:
        fut = super().send_changelog(*args, **kwargs)
        if self._writes is None:
            self._writes = []
        self._writes.append(fut)
        return fut

    @property
    def last_write(self) -> Any:
        """The latest changelog write not yet taken (None when there is none)."""
        return self._writes[-1] if self._writes else None

    def take_writes(self) -> list[Any]:
        """The changelog writes made since the last call (futures, in the order sent)."""
        writes, self._writes = self._writes or [], None
        return writes


class Aggregator:
    """The aggregator's table, agent and timer on the process's Faust app.

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
        # The settings last in force, as stored in entries (mapping, version): reused for every
        # draft while the settings do not change.
        self._stored_settings: tuple[Settings, dict[str, Any], str] | None = None
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
        )
        self.offsets = InputOffsets(
            self.table,
            lambda tp, offset: app.consumer.seek(tp, offset),
            time.monotonic,
            position=lambda tp: app.consumer.position(tp),
        )
        self.agent = app.agent(source, name="aggregate")(self._consume)
        app.timer(config.aggregator_tick_seconds, name="aggregator-deadlines")(self._tick)

    # --- the agent -------------------------------------------------------------------------------
    async def _consume(self, stream: faust.StreamT[Any]) -> None:
        # Manual acks: Faust would ack an event when the agent asks for the next one, and commit
        # acked offsets after a producer flush that gives up after 0.1 s with messages still
        # buffered (ProducerBuffer.flush_atmost). An event is acked only once its changelog
        # writes are delivered, in the order the events were handled (OrderedAcks, one lane: so
        # per partition in offset order).
        manual: faust.StreamT[Any] = stream.noack()  # type: ignore[attr-defined]
        acks = self._acks = OrderedAcks(manual.ack, name="aggregator")
        try:
            async for event in manual.events():
                self._busy = True
                try:
                    await self.handle(event)
                finally:
                    self._busy = False
                await acks.add(event, self.table.take_writes())
                if acks.failure is not None:
                    raise acks.failure
        finally:
            await acks.close()

    _busy = False
    _acks: OrderedAcks | None = None

    async def quiesce(self) -> None:
        """Return once no event is being applied and every applied one is acknowledged: called
        before the process gives up partitions (streams.runtime.app.WorkerApp), so the table is
        never written for a partition another worker may already own."""
        limit = max(1.0, self.config.broker_rebalance_timeout / 2)
        try:
            async with asyncio.timeout(limit):
                while self._busy:  # noqa: ASYNC110 (rare: a rebalance)
                    await asyncio.sleep(0.005)
                if self._acks is not None:
                    await self._acks.drained()
        except TimeoutError:
            log.warning("aggregator: still busy after %.0f s; giving up its partitions", limit)

    async def handle(self, event: EventT[Any]) -> None:
        """Apply one event to the table (its changelog writes are sent, not awaited: the caller
        acks the event once they are delivered)."""
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
            await self._on_nudge(value.key)
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
            await self._on_result(value, event.headers, message.partition, raw)
        else:  # a valid record of another type on one of our topics
            error = WrongRecordTypeError(
                f"{type(value).__name__} on {message.topic!r} is not what the aggregator expects"
            )
            await self._park(message, error)

    async def _park(self, message: Message, error: BaseException) -> None:
        # Not awaited here: the event is acknowledged once the dead letter is delivered, and a
        # flood of bad events shares produce requests instead of a round trip each.
        self.table.add_write(await self.dead_letters.send(message, error))

    def _load(self, key: str) -> Entry | None:
        data = self.table.get(key)
        return None if data is None else Entry.from_json(data)

    def _store(self, entry: Entry) -> None:
        self.table[entry.key] = entry.to_json()

    async def _on_draft(self, draft: DraftSubmitted, headers: Any, partition: int) -> None:
        key = table_key(draft.draft_id, draft.version)
        now = self.clock()
        entry = self._load(key) or Entry(key=key, partition=partition, created_at=now)
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
        entry.settings, entry.settings_version = self._stored(settings)
        await self._advance(entry)

    def _stored(self, settings: Settings) -> tuple[dict[str, Any], str]:
        last = self._stored_settings
        if last is None or last[0] != settings:
            last = self._stored_settings = (
                settings,
                settings.to_mapping(),
                settings.version(),
            )
        return last[1], last[2]

    async def _on_result(
        self, result: ReviewerResult, headers: Any, partition: int, encoded: bytes | None = None
    ) -> None:
        key = table_key(result.draft_id, result.version)
        entry = self._load(key) or Entry(key=key, partition=partition, created_at=self.clock())
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
        await self._advance(entry)

    async def _advance(self, entry: Entry) -> None:
        """Decide if the entry is complete or settled, else store it."""
        if entry.draft is not None:
            evidence = early_evidence(
                entry.counted_results(), entry.expected, self.paid, entry.effective_settings()
            )
            if evidence is not None:
                complete = len(evidence) == len(entry.expected)
                await self._decide(entry, "complete" if complete else "settled", evidence)
                return
        self._store(entry)

    async def _on_nudge(self, key: str) -> None:
        entry = self._load(key)
        if entry is None:
            return
        now = self.clock()
        if entry.decision is None:
            if entry.deadline is not None and now >= entry.deadline:
                await self._decide(entry, "timeout")
            elif (
                entry.draft is None
                and now >= entry.created_at + self.config.decided_retention_seconds
            ):
                self._forget(key)  # results whose draft never came: forget them eventually
        elif not entry.published:
            await self._publish(entry)
        elif now >= (entry.decided_at or 0) + self.config.decided_retention_seconds:
            self._forget(key)

    def _forget(self, key: str) -> None:
        del self.table[key]
        self._nudged.pop(key, None)

    async def _decide(
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
            entry.effective_settings(),
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
        # The decision must be in the changelog before anyone can see it (module docstring).
        await self.table.last_write
        self.counts["decided"] += 1
        record_decision(decision)
        if decided_by == "timeout":
            self.counts["timeouts"] += 1
        await self._publish(entry)

    async def _publish(self, entry: Entry) -> None:
        decision = entry.decision_record()
        assert decision is not None
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
        fut = await self.topics.decisions.send(
            key=decision.draft_id, value=decision, headers=headers
        )
        await fut
        entry.published = True
        self.counts["published"] += 1
        self._store(entry)
        self._nudged.pop(entry.key, None)

    # --- the timer -------------------------------------------------------------------------------
    def _due(self, entry: dict[str, Any], now: float) -> bool:
        retention = self.config.decided_retention_seconds
        if entry.get("decision") is None:
            deadline = entry.get("deadline")
            if deadline is not None:
                return bool(now >= deadline)
            return bool(now >= entry["created_at"] + retention)
        if not entry.get("published"):
            # Published in the same step as decided, normally; give that step time to finish.
            return bool(now >= entry["decided_at"] + 2 * self.config.aggregator_tick_seconds)
        return bool(now >= entry["decided_at"] + retention)

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
        await self.offsets.resync(inputs, app.consumer_generation_id)
        await self.offsets.reseek_stalled(inputs)
        assigned = {tp.partition for tp in assignment if tp.topic == self.config.drafts_topic}
        now = self.clock()
        # Re-send a nudge that had no effect after a while (e.g. lost in a rebalance).
        resend_after = max(5.0, 5 * self.config.aggregator_tick_seconds)
        sent = 0
        for key, data in list(self.table.items()):
            if is_offset_key(key) or data["partition"] not in assigned:
                continue
            if not self._due(data, now):
                continue
            if now - self._nudged.get(key, -resend_after) < resend_after:
                continue
            self._nudged[key] = now
            await self.nudges.send(
                key=key.encode(), value=key.encode(), partition=data["partition"]
            )
            sent += 1
        return sent

    # --- for status and tests --------------------------------------------------------------------
    def entry(self, draft_id: str, version: int) -> Entry | None:
        return self._load(table_key(draft_id, version))
