"""The aggregator's flusher (streams.runtime.aggregator): table changes to the changelog, then
acknowledgements, then decisions to qa.decisions, in that order.

Flushes (Kafka Streams' record cache, streams.runtime._cache): the agent applies events to the
table through a write-behind cache, without waiting for the broker; a flusher task writes what
changed, each key once, every `aggregator_flush_seconds` while there is something to write (in a
burst, whatever accumulated while the previous flush was delivered), acknowledges the flushed
events once every write of the flush is delivered, then publishes the decisions the flush holds.
An event is never acknowledged (so its offset never committed) before the changelog has its
effect; a crash between two flushes loses the changes since the last delivered one, and their
events, unacked, are read again from the committed offsets and applied again. The changelog
carries each entry once per flush instead of once per change, and the input offsets once per
partition per flush.

A decision is published only once the flush holding it is delivered, and marked published (in a
later flush) once the broker has it: the module docstring of streams.runtime.aggregator says why
that gives exactly one decision per draft version.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from opentelemetry.trace import SpanKind

from schemas import QADecision
from streams.runtime import tracing
from streams.runtime._acks import OrderedAcks
from streams.runtime._cache import TableCache
from streams.runtime._entry import Entry
from streams.runtime.config import StreamConfig
from streams.runtime.topics import Topics, send_encoded
from streams.runtime.tracing import KafkaHeaders

log = logging.getLogger(__name__)

# Events applied but not yet taken by a flush, at most (the agent waits for the flusher beyond).
MAX_BATCH = 2000


@dataclass
class Batch:
    """What the agent applied since the last flush: the events to acknowledge after it, other
    deliveries they wait for (dead letters), and the entries whose decision to publish."""

    events: list[Any] = field(default_factory=list)
    writes: list[Any] = field(default_factory=list)
    publish: list[tuple[str, int]] = field(default_factory=list)  # (key, partition)


class Flushing:
    """The flusher and the publishing of decisions, as part of `Aggregator` (whose agent and
    handlers set up and fill what is declared here)."""

    config: StreamConfig
    topics: Topics
    cache: TableCache
    counts: dict[str, int]
    _batch: Batch
    _changed: asyncio.Event
    _room: asyncio.Event
    _flushing: bool
    _busy: bool
    _acks: OrderedAcks | None
    _publishing: set[str]  # keys queued or being published, not yet marked
    _nudged: dict[str, float]
    _load: Callable[[str, int], Entry | None]
    _store: Callable[[Entry], None]

    async def _flush_loop(self, acks: OrderedAcks) -> None:
        while True:
            await self._changed.wait()
            # While a flush is written and delivered more gathers anyway.
            await asyncio.sleep(self.config.aggregator_flush_seconds)
            self._changed.clear()
            self._flushing = True
            try:
                await self._flush(acks)
            finally:
                self._flushing = False

    async def _flush(self, acks: OrderedAcks) -> None:
        """Write what changed, ack the events once it is delivered, then publish the decisions
        it holds (and mark them published: written by a later flush)."""
        batch, self._batch = self._batch, Batch()
        self._room.set()
        writes = await self.cache.flush() + batch.writes
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
            headers = self._decision_headers(entry, decision, entry.decided_by or "")
            # The bytes encoded (and validated) when it was decided: the same decision, byte for
            # byte, whenever it is published, without encoding it again.
            encoded = entry.decision_bytes()
            assert encoded is not None
            # On the draft's partition, as its results (streams.runtime.reviewer_agents).
            fut = await send_encoded(
                self.topics.decisions, decision.draft_id, encoded, headers, partition=partition
            )
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

    @staticmethod
    def _decision_headers(entry: Entry, decision: QADecision, decided_by: str) -> KafkaHeaders:
        """The trace headers of the decision's `multiqa.decide` span, a child of the submission
        linked to every reviewer span it used (with nothing recording spans: the submission's
        context, as that span would inject it)."""
        if not tracing.recording():
            return tracing.passed_on([(tracing.TRACEPARENT, (entry.traceparent or "").encode())])
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
                "multiqa.decided_by": decided_by,
            },
        ):
            return tracing.inject()
