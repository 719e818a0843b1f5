"""One Faust agent per reviewer: qa.drafts in, exactly one ReviewerResult per draft out.

Every reviewer run by a process is its own agent on the process's one Faust app
(streams.runtime.app): the drafts topic is read and decoded once, and each agent gets the event. A
reviewer is scaled or deployed on its own by running it in a worker of its own
(streams.runtime._layout).

Bad drafts (undecodable, another record type, or keyed by something other than their draft_id)
are not reviewed: the aggregator role dead-letters them (one dead letter per bad event, whichever
groups read it); reviewer agents skip them and count them (`ReviewerAgent.skipped`).

Concurrency. One agent reviews up to `reviewer_concurrency` drafts at once, so a slow LLM call
does not hold up the drafts behind it on the partition. Not with Faust's `concurrency=N`: Faust
acks each event when its actor finishes, and its committer treats a single unacked offset at the
head of a partition as a skippable gap (faust-streaming#606, fix in the open PR #707), so a slow
draft followed by fast ones gets its offset committed past, and a crash then loses it. Instead the
agent reads with manual acks (`stream.noack()`), runs reviews as tasks under a semaphore, and
`OrderedAcks` (streams.runtime._acks) acknowledges each partition's events strictly in offset
order. The acked offsets are then always contiguous and the committed offset never passes a
draft still under review.
A result is published and delivered before its draft is acked (at least once: a crash re-reviews
the drafts after the last commit; the aggregator ignores the duplicates).

Batches. The drafts one fetch brought for one partition arrive as one batch event
(streams.runtime._batch): the agent reviews them concurrently (at most `reviewer_concurrency`
reviews at once across its events), hands every result to the producer before waiting for the
broker, so they share produce requests, and acks the batch once every result is delivered.

Cancellation. Paid reviewers (LLM calls, money) watch qa.decisions (one watcher agent per
process, `DecisionWatcher`, shared by its paid reviewers): a decided draft version is not reviewed
any more (status skipped, "already decided"), and a review in flight for it is cancelled. The
decisions topic is the cancellation signal (no separate topic, no separate record): it is exactly
the set of versions nothing can change any more. It is co-partitioned with qa.drafts (same key,
same partition count) so a worker sees the decisions of the drafts it reviews.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections import OrderedDict, defaultdict
from collections.abc import Awaitable, Callable
from typing import Any

import faust
from faust.types import EventT
from opentelemetry.trace import SpanKind

from agents.base import ReviewerSpec, errored, run_reviewer, skipped
from agents.retry import Backoff, RetryPolicy, retry
from agents.settings import Settings
from schemas import CodecError, DraftSubmitted, QADecision, ReviewerResult
from streams.runtime import _batch as batches
from streams.runtime import tracing
from streams.runtime._acks import OrderedAcks, by_partition
from streams.runtime.deadletter import DeadLetters
from streams.runtime.observe._logs import draft_context
from streams.runtime.observe._metrics import record_result
from streams.runtime.topics import Topics, misrouted, send_record

log = logging.getLogger(__name__)

ALREADY_DECIDED = "draft version already decided; review cancelled"
# Decided versions a reviewer remembers (most recent first out); older ones are simply reviewed.
_DECIDED_MEMORY = 100_000
# Publishing a result while the broker refuses it: for as long as it takes (the draft stays
# unacked meanwhile, so nothing is lost), 0.5 s doubling up to 10 s between attempts.
_PUBLISH_RETRY = RetryPolicy(Backoff(initial=0.5, factor=2.0, cap=10.0))

Handler = Callable[[EventT[Any]], Awaitable[None]]
# A result, its trace headers, its delivery future (None: the first send failed) and partition.
Sent = tuple[ReviewerResult, tracing.KafkaHeaders, Any, int | None]
DraftKey = tuple[str, int]


class ConcurrentHandlers:
    """Runs handlers for a stream's events concurrently (at most `limit` at once); each event is
    acked once its handler finished, in offset order per partition (`OrderedAcks`; see the
    module docstring for why)."""

    def __init__(self, stream: faust.StreamT[Any], limit: int, *, name: str) -> None:
        self._slots = asyncio.Semaphore(limit)
        # No limit on the events waiting for their acks: the semaphore bounds the handlers,
        # and a slow draft may keep any number of finished ones behind it unacked.
        self._acks = OrderedAcks(stream.ack, lane=by_partition, limit=None, name=name)
        self._tasks: set[asyncio.Task[None]] = set()
        self._name = name

    @property
    def in_flight(self) -> int:
        return len(self._tasks)

    async def submit(self, event: EventT[Any], handler: Handler) -> None:
        """Wait for a free slot, then start `handler(event)`; returns once it has started."""
        await self._slots.acquire()
        task = asyncio.ensure_future(self._run(event, handler))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        await self._acks.add(event, [task])

    async def _run(self, event: EventT[Any], handler: Handler) -> None:
        try:
            await handler(event)
        except asyncio.CancelledError:
            # Shutting down: the event stays unacked, it is redelivered after the restart.
            raise
        except Exception:
            # Handlers publish a result for every failure they expect; reaching here is a bug.
            # Acking keeps the partition moving; the aggregator's deadline covers the lost result.
            log.exception(
                "%s failed on %s[%d]@%d",
                self._name,
                event.message.topic,
                event.message.partition,
                event.message.offset,
            )
        finally:
            self._slots.release()

    async def close(self) -> None:
        """Cancel what is in flight (unacked: redelivered to whoever gets the partition)."""
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await self._acks.close()


class DecidedVersions:
    """The draft versions already decided, as far as this worker has seen on qa.decisions, and
    the reviews in flight to cancel when their version gets decided."""

    def __init__(self, capacity: int = _DECIDED_MEMORY) -> None:
        self._decided: OrderedDict[DraftKey, None] = OrderedDict()
        self._capacity = capacity
        self._in_flight: dict[DraftKey, set[asyncio.Task[Any]]] = defaultdict(set)

    def __contains__(self, key: DraftKey) -> bool:
        return key in self._decided

    def add(self, key: DraftKey) -> int:
        """Mark `key` decided; cancel its reviews in flight; returns how many were cancelled."""
        self._decided[key] = None
        self._decided.move_to_end(key)
        while len(self._decided) > self._capacity:
            self._decided.popitem(last=False)
        cancelled = 0
        for task in self._in_flight.pop(key, ()):
            if not task.done():
                task.cancel()
                cancelled += 1
        return cancelled

    def track(self, key: DraftKey, task: asyncio.Task[Any]) -> None:
        self._in_flight[key].add(task)

    def untrack(self, key: DraftKey, task: asyncio.Task[Any]) -> None:
        tasks = self._in_flight.get(key)
        if tasks is not None:
            tasks.discard(task)
            if not tasks:
                del self._in_flight[key]


class DecisionWatcher:
    """One agent on qa.decisions for every paid reviewer of the process: marks versions decided
    and cancels their reviews in flight (any reviewer's)."""

    def __init__(self, app: faust.App, topics: Topics) -> None:
        self.decided = DecidedVersions()
        self.cancelled = 0
        self.agent = app.agent(topics.decisions, name="decided")(self._consume)

    async def _consume(self, stream: faust.StreamT[Any]) -> None:
        async for value in stream:
            # A bad decision is the sinks' to dead-letter; here it only means no cancellation.
            if isinstance(value, QADecision):
                cancelled = self.decided.add((value.draft_id, value.version))
                self.cancelled += cancelled
                if cancelled:
                    log.info(
                        "cancelled %d review(s) of decided %s v%s",
                        cancelled,
                        value.draft_id,
                        value.version,
                    )


class ReviewerAgent:
    """The agent of one reviewer (and, for a paid reviewer, its qa.decisions watcher)."""

    def __init__(
        self,
        app: faust.App,
        topics: Topics,
        spec: ReviewerSpec,
        *,
        settings: Callable[[], Awaitable[Settings]],
        deps: Any,
        dead_letters: DeadLetters,
        concurrency: int,
        watcher: DecisionWatcher | None = None,
    ) -> None:
        self.app = app
        self.topics = topics
        self.spec = spec
        self.settings = settings
        self.deps = deps
        self.dead_letters = dead_letters  # for results the codec refuses twice (a bug)
        self.concurrency = concurrency
        if spec.paid and watcher is None:
            watcher = DecisionWatcher(app, topics)
        self.watcher = watcher
        self.decided = watcher.decided if watcher is not None else DecidedVersions()
        # Reviews in flight at once, across the batch events being handled.
        self._slots = asyncio.Semaphore(concurrency)
        self.reviewed = 0
        self.skipped = 0  # bad drafts not reviewed (the aggregator dead-letters them)
        self.agent = app.agent(topics.drafts, name=f"review-{spec.name}")(self._consume_drafts)

    @property
    def cancelled(self) -> int:
        return self.watcher.cancelled if self.watcher is not None else 0

    async def _consume_drafts(self, stream: faust.StreamT[Any]) -> None:
        manual: faust.StreamT[Any] = stream.noack()  # type: ignore[attr-defined]
        runner = ConcurrentHandlers(manual, self.concurrency, name=f"reviewer {self.spec.name}")
        try:
            async for event in manual.events():
                await runner.submit(event, self.handle)
        finally:
            await runner.close()

    async def handle(self, event: EventT[Any]) -> None:
        """Review the drafts of one qa.drafts event (a batch event: each of its items, at most
        `concurrency` at once), each result handed to the producer as soon as it is there, then
        wait until the broker has them all (bad drafts are skipped)."""
        drafts = list(batches.items(event))
        if len(drafts) == 1:
            sent = [await self._review_and_send(drafts[0])]
        else:
            sent = await self._review_all(drafts)
        await self._delivered([s for s in sent if s is not None])

    async def _review_all(self, drafts: list[Any]) -> list[Sent | None]:
        """Review `drafts`, each in a review slot (at most `concurrency` at once across the
        agent's events), in at most `concurrency` tasks that each take the next draft when
        done with one: a task per draft was ~2% of the worker's CPU in a bench_stream burst
        (seven reviewers, hundreds of drafts per batch). Returns what each draft gave."""
        sent: list[Sent | None] = [None] * len(drafts)
        queue = iter(enumerate(drafts))

        async def lane() -> None:
            for n, draft in queue:
                async with self._slots:
                    sent[n] = await self._review_and_send(draft)

        await asyncio.gather(*(lane() for _ in range(min(len(drafts), self.concurrency))))
        return sent

    async def _review_and_send(self, event: Any) -> Sent | None:
        """Review one draft and hand its result to the producer (not waiting for the broker:
        the results of a batch share produce requests, and every reviewer's result of a draft
        reaches the aggregator at about the same time). None for a bad draft."""
        value = event.value
        if not isinstance(value, DraftSubmitted) or misrouted(event.key, value.draft_id):
            self.skipped += 1  # the aggregator dead-letters it
            return None
        draft = value
        with draft_context(draft.draft_id, draft.version):
            if not tracing.recording():  # no span to record: its parent's context goes on
                result = await self.review(draft)
                headers = tracing.passed_on(event.headers)
            else:
                with tracing.tracer().start_as_current_span(
                    f"multiqa.review {self.spec.name}",
                    context=tracing.extract(event.headers),
                    kind=SpanKind.CONSUMER,
                    attributes={
                        **tracing.draft_attributes(draft.draft_id, draft.version),
                        "multiqa.reviewer": self.spec.name,
                    },
                ) as span:
                    result = await self.review(draft)
                    span.set_attribute("multiqa.status", str(result.status))
                    span.set_attribute("multiqa.score", result.score)
                    headers = tracing.inject()
        # On the draft's partition (the topics are co-partitioned): where the aggregator keeps the
        # draft's entry whatever partitioner its writer used, and no key hashing per result.
        partition = event.message.partition
        try:
            future = await send_record(
                self.topics.reviews, result.draft_id, result, headers, partition=partition
            )
        except Exception:  # CodecError, a producer restarting: `publish` handles it below
            future = None
        return result, headers, future, partition

    async def _delivered(self, sent: list[Sent]) -> None:
        """Wait until the broker has every result; one the codec or the broker refused goes
        through `publish` (an error result for an invalid one, retries for a refused one)."""
        for result, headers, future, partition in sent:
            published = None
            if future is not None:
                try:
                    await future
                    published = result
                except asyncio.CancelledError:
                    raise
                except Exception:  # refused by the broker: retried by `publish`
                    published = None
            if published is None:
                published = await self.publish(result, headers, partition)
            record_result(published)
            self.reviewed += 1

    async def review(self, draft: DraftSubmitted) -> ReviewerResult:
        """The reviewer's result, or "skipped: already decided" when the decision came first."""
        settings = await self.settings()
        key = (draft.draft_id, draft.version)
        if not self.spec.paid:
            # Nothing cancels a free review: no task of its own to watch.
            return await run_reviewer(self.spec, draft, settings, self.deps)
        if key in self.decided:
            return await self._cancelled(draft, settings)
        task = asyncio.ensure_future(run_reviewer(self.spec, draft, settings, self.deps))
        self.decided.track(key, task)
        try:
            # asyncio.wait: a cancelled review task comes back as done, while cancelling this
            # handler (shutdown) still raises here.
            await asyncio.wait({task})
        finally:
            if not task.done():
                task.cancel()
            self.decided.untrack(key, task)
        if task.cancelled():
            return await self._cancelled(draft, settings)
        return task.result()

    async def _cancelled(self, draft: DraftSubmitted, settings: Settings) -> ReviewerResult:
        async def already_decided(
            draft: DraftSubmitted, settings: Settings, deps: Any
        ) -> ReviewerResult:
            return skipped(self.spec.name, self.spec.provider, ALREADY_DECIDED)

        # run_reviewer stamps the result (draft id, version, time) like any other.
        spec = dataclasses.replace(self.spec, review=already_decided, enabled=lambda _: True)
        return await run_reviewer(spec, draft, settings, self.deps)

    async def publish(
        self, result: ReviewerResult, headers: tracing.KafkaHeaders, partition: int | None = None
    ) -> ReviewerResult:
        """Publish (on `partition`, else by key) and wait for the broker; a result the codec
        refuses becomes an error result (the reviewer still answers); a broker refusing it is
        retried until it takes it. Returns the result published."""
        replaced = False

        async def send() -> None:
            nonlocal result, replaced
            try:
                # The codec validates as it encodes (before anything is queued).
                fut = await send_record(
                    self.topics.reviews, result.draft_id, result, headers, partition=partition
                )
            except CodecError as exc:
                if replaced:
                    raise  # the error result itself is refused: a bug, not the reviewer's
                replaced = True
                log.error("%s produced an invalid result: %s", self.spec.name, exc)
                result = dataclasses.replace(
                    errored(self.spec.name, self.spec.provider, f"invalid result: {exc}"[:500]),
                    draft_id=result.draft_id,
                    version=result.version,
                    produced_at=result.produced_at,
                )
                fut = await send_record(
                    self.topics.reviews, result.draft_id, result, headers, partition=partition
                )
            await fut

        def retrying(attempt: int, exc: BaseException, delay: float) -> None:
            log.warning(
                "%s: publishing the result of %s v%s failed (%r); retrying in %.1fs",
                self.spec.name,
                result.draft_id,
                result.version,
                exc,
                delay,
            )

        await retry(
            send,
            policy=_PUBLISH_RETRY,
            retry_on=lambda exc: not isinstance(exc, CodecError),
            on_retry=retrying,
        )
        return result
