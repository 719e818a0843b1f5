"""The `sinks` role's agents: decisions, reviewer results and dead letters into PostgreSQL.

    qa.decisions     -> qa_decisions, pipeline_versions / pipeline_tasks feedback, timeout audit
    qa.reviews       -> qa_reviews, cost_logs
    qa.dead-letters  -> audit_log (`dead_letter` events)
    qa.drafts        -> qa_drafts (the drafts as they arrived, for rereview and the decisions UI)

Offsets are committed only after the write. Faust acks an event when its stream moves on, even
when the agent is cancelled mid-write (it acks in a `finally`), so these agents read with manual
acks (`stream.noack()`) and ack an event only once its row is committed. Reading and writing are
decoupled by a bounded queue: whatever arrived while the previous write ran is written next as
one batch in one transaction, so the sink keeps up with bursts without waiting to fill batches
when traffic is light. Batches are written in arrival order and acked in that order, so each
partition's acks are contiguous. While PostgreSQL is down the writer retries
(streams.runtime.sinks.Sink) and the queue fills, which pauses consumption: the backlog waits in
Kafka, not in memory.

A rebalance or a shutdown does not wait for writes in flight (`stream_wait_empty` off): it commits
what was acked, and the rest is redelivered to whoever owns the partition next (idempotent writes).

What is stored is only what the aggregator would count: an event that does not decode, is not of
the topic's record type, or whose Kafka key is not its draft_id (it may sit on another partition
than its draft, where the aggregator parks it) is written nowhere. The sinks dead-letter such
decisions (they own qa.decisions' bad events) and skip such results (the aggregator owns those),
counting them in `skipped`. A record the database refuses for good (`SinkError`) is
dead-lettered, and the agent moves on.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any

import faust
from faust.types import EventT

from schemas import DeadLetter, DraftSubmitted, QADecision, ReviewerResult, WrongRecordTypeError
from streams.runtime import _batch as batches
from streams.runtime import tracing
from streams.runtime.deadletter import DeadLetters
from streams.runtime.serde import Undecodable
from streams.runtime.sinks._retry import SinkError
from streams.runtime.sinks._sink import Sink
from streams.runtime.topics import Topics, misrouted

if TYPE_CHECKING:
    from streams.runtime._runtime import Runtime

log = logging.getLogger(__name__)

Write = Callable[[Sink, Sequence[Any]], Awaitable[int]]


def install(app: faust.App, topics: Topics, runtime: Runtime, **options: Any) -> SinkAgents:
    """Add the sink agents to `app` (the `sinks` role's app, with its own consumer group)."""
    return SinkAgents(app, topics, runtime, **options)


class SinkAgents:
    """Three agents sharing one `Sink`; see the module docstring."""

    def __init__(
        self,
        app: faust.App,
        topics: Topics,
        runtime: Runtime,
        *,
        max_batch: int = 500,
        linger: float = 0.05,
    ) -> None:
        self.runtime = runtime
        self.max_batch = max_batch
        self.linger = linger
        # A rebalance or shutdown does not wait for writes in flight
        # (streams.runtime.app.WorkerApp): an event whose write waits for the database would hold
        # the whole group up; our writes are idempotent, so what is unacked is simply redelivered.
        self.skipped = 0
        self.dead_letters = DeadLetters(
            topics.dead_letters, "sinks", audit=runtime.dead_letter_audit
        )
        self._sink: Sink | None = None
        self._connecting: asyncio.Lock | None = None
        app.agent(topics.decisions, name="sink-decisions")(self._consume_decisions)
        app.agent(topics.reviews, name="sink-reviews")(self._consume_reviews)
        app.agent(topics.dead_letters, name="sink-dead-letters")(self._consume_dead_letters)
        # Drafts as they arrived (qa_drafts). A bad or misrouted draft is the aggregator's to
        # park; here it is skipped.
        app.agent(topics.drafts, name="sink-drafts")(self._consume_drafts)

    async def sink(self) -> Sink:
        """The process's pool when the runtime has one, else a pool of our own (waiting for the
        database if it is down)."""
        if self._connecting is None:
            self._connecting = asyncio.Lock()
        async with self._connecting:
            if self._sink is None:
                if self.runtime.pool is not None:
                    self._sink = Sink(self.runtime.pool)
                else:
                    self._sink = await Sink.connect(self.runtime.config.database_url)
            return self._sink

    async def _consume_decisions(self, stream: faust.StreamT[Any]) -> None:
        await self._consume(
            stream, "decisions", QADecision, lambda sink, batch: sink.write_decisions(batch)
        )

    async def _consume_reviews(self, stream: faust.StreamT[Any]) -> None:
        await self._consume(
            stream,
            "reviews",
            ReviewerResult,
            lambda sink, batch: sink.write_reviews(batch),
            owns_bad=False,
        )

    async def _consume_drafts(self, stream: faust.StreamT[Any]) -> None:
        await self._consume(
            stream,
            "drafts",
            DraftSubmitted,
            lambda sink, batch: sink.write_drafts(batch),
            owns_bad=False,
        )

    async def _consume_dead_letters(self, stream: faust.StreamT[Any]) -> None:
        await self._consume(
            stream,
            "dead letters",
            DeadLetter,
            lambda sink, batch: sink.write_dead_letters(batch),
            owns_bad=False,
        )

    def _bad(self, event: EventT[Any], record: type[Any]) -> BaseException | None:
        """Why `event` must not be stored (None: it may)."""
        value = event.value
        if isinstance(value, Undecodable):
            return value.error
        if type(value) is not record:
            return WrongRecordTypeError(f"expected a {record.__name__}, got {type(value).__name__}")
        if record is not DeadLetter:
            return misrouted(event.key, str(getattr(value, "draft_id", "")))
        return None

    async def _consume(
        self,
        stream: faust.StreamT[Any],
        kind: str,
        record: type[Any],
        write: Write,
        *,
        owns_bad: bool = True,
    ) -> None:
        manual: faust.StreamT[Any] = stream.noack()  # type: ignore[attr-defined]
        queue: asyncio.Queue[EventT[Any]] = asyncio.Queue(maxsize=2 * self.max_batch)
        writer = asyncio.ensure_future(
            self._write_loop(manual, queue, kind, record, write, owns_bad)
        )
        try:
            async for delivered in manual.events():
                if writer.done():
                    break
                for event in batches.items(delivered):  # a batch event: its items, in order
                    await queue.put(event)
            if writer.done() and not writer.cancelled():
                writer.result()  # a writer that died re-raises here, stopping the agent loudly
        finally:
            # Whatever is still queued or being written stays unacked: redelivered after restart.
            writer.cancel()
            await asyncio.gather(writer, return_exceptions=True)

    async def _write_loop(
        self,
        stream: faust.StreamT[Any],
        queue: asyncio.Queue[EventT[Any]],
        kind: str,
        record: type[Any],
        write: Write,
        owns_bad: bool,
    ) -> None:
        sink = await self.sink()
        loop = asyncio.get_running_loop()
        while True:
            batch = [await queue.get()]
            # Gather for a moment: a transaction per handful of rows costs the worker and the
            # database several round trips each (measured: the sinks were a third of the
            # worker's CPU in a burst); a row waits at most `linger` seconds longer.
            until = loop.time() + self.linger
            while len(batch) < self.max_batch:
                if queue.empty():
                    left = until - loop.time()
                    if left <= 0:
                        break
                    try:
                        async with asyncio.timeout(left):
                            batch.append(await queue.get())
                    except TimeoutError:
                        break
                else:
                    batch.append(queue.get_nowait())
            await self._write_batch(sink, batch, kind, record, write, owns_bad)
            for event in batch:
                await batches.ack(stream, event)

    async def _write_batch(
        self,
        sink: Sink,
        events: list[EventT[Any]],
        kind: str,
        record: type[Any],
        write: Write,
        owns_bad: bool,
    ) -> None:
        good: list[EventT[Any]] = []
        for event in events:
            error = self._bad(event, record)
            if error is None:
                good.append(event)
            elif owns_bad:
                await self._reject(event, error, True)
            else:
                self.skipped += 1  # its owner dead-letters it (streams.runtime.deadletter)
        if not good:
            return
        try:
            with tracing.child_spans(
                f"multiqa.sink {kind}",
                [event.headers for event in good],
                {"multiqa.sink.batch": len(good), "db.system": "postgresql"},
            ):
                await write(sink, [event.value for event in good])
            return
        except SinkError:
            log.warning("a batch of %d %s was refused; writing them one by one", len(good), kind)
        # Find the record(s) the database refuses; write every other one.
        for event in good:
            try:
                await write(sink, [event.value])
            except SinkError as exc:
                # The database refusing a record is the sinks' to report, whatever the topic;
                # a dead letter refused is only logged (parking it again would loop).
                await self._reject(event, exc, record is not DeadLetter)

    async def _reject(self, event: EventT[Any], error: BaseException, dead_letter: bool) -> None:
        message = event.message
        if dead_letter:
            await self.dead_letters.park(message, error)
        else:
            # A bad event on the dead-letter topic itself: parking it there again would loop.
            log.error(
                "sinks skipped %s[%d]@%d: %s",
                message.topic,
                message.partition,
                message.offset,
                error,
            )
