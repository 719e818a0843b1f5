"""Acknowledging events in offset order once the work done for each is finished.

Every role that reads with manual acks (`stream.noack()`) needs the same thing: an event may be
acked only after what it caused is safe (a reviewer's result delivered, the aggregator's changelog
writes delivered), and never before an earlier event of the same partition, because Faust commits
the acked offsets and its committer treats a single unacked offset at the head of a partition as
a skippable gap (faust-streaming#606): a crash would then lose the earlier event. `OrderedAcks` is
the one implementation: events are added with the awaitables that must finish first, and each
lane (a partition, or the whole stream) acks its events strictly in the order they were added.

- Work that fails (raises) stops the acking for good: nothing after it is acked in any lane, and
  `failure` holds the exception for the caller to re-raise; everything unacked is redelivered.
- Work that is cancelled (shutting down) leaves its event and every later one of its lane
  unacked: redelivered to whoever gets the partition next.
- At most `limit` events wait; `add` holds the caller while that many do.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Awaitable, Callable, Hashable, Iterable
from typing import Any

log = logging.getLogger(__name__)

Ack = Callable[[Any], Awaitable[Any]]


def by_partition(event: Any) -> Hashable:
    """The lane of a Faust event: its topic partition (a slow event holds up only its own)."""
    tp: Hashable = event.message.tp
    return tp


def one_lane(event: Any) -> Hashable:
    """One lane for the whole stream: events are acked in the order they were handled."""
    return None


class _Lane:
    def __init__(self) -> None:
        self.pending: deque[tuple[Any, list[Awaitable[Any]]]] = deque()
        self.wake = asyncio.Event()
        self.task: asyncio.Task[None] | None = None


class OrderedAcks:
    """Acks each event once its work is finished, in the order added per lane (see the module
    docstring)."""

    def __init__(
        self,
        ack: Ack,
        *,
        lane: Callable[[Any], Hashable] = one_lane,
        limit: int | None = 1000,
        name: str = "stream",
    ) -> None:
        self._ack = ack
        self._lane_of = lane
        self._limit = limit
        self._name = name
        self._lanes: dict[Hashable, _Lane] = {}
        self._waiting = 0
        self._room = asyncio.Event()
        self._room.set()
        self._failure: BaseException | None = None

    @property
    def waiting(self) -> int:
        """Events added and not acked yet."""
        return self._waiting

    @property
    def failure(self) -> BaseException | None:
        """What the first failed work raised (acking stopped then), or None."""
        return self._failure

    async def add(self, event: Any, work: Iterable[Awaitable[Any]] = ()) -> None:
        """Ack `event` once every awaitable of `work` is finished and every event added before
        it in its lane is acked. Returns at once unless `limit` events are waiting."""
        key = self._lane_of(event)
        lane = self._lanes.get(key)
        if lane is None:
            lane = self._lanes[key] = _Lane()
        if lane.task is None or lane.task.done():
            lane.task = asyncio.ensure_future(self._run(lane))
        lane.pending.append((event, list(work)))
        self._waiting += 1
        lane.wake.set()
        if self._limit is not None and self._waiting >= self._limit:
            self._room.clear()
            await self._room.wait()

    async def _run(self, lane: _Lane) -> None:
        pending = lane.pending
        try:
            while self._failure is None:
                while not pending:
                    lane.wake.clear()
                    await lane.wake.wait()
                event, work = pending[0]
                try:
                    for item in work:
                        await item
                except asyncio.CancelledError:
                    task = asyncio.current_task()
                    if task is not None and task.cancelling():
                        raise  # close(): this lane itself is being stopped
                    return  # the work was cancelled (shutting down): leave the rest unacked
                if self._failure is not None:
                    return  # another lane's work failed meanwhile: ack nothing more
                pending.popleft()
                self._waiting -= 1
                await self._ack(event)
                if self._limit is None or self._waiting < self._limit:
                    self._room.set()
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.exception("%s: an event's work failed; no later event is acknowledged", self._name)
            self._failure = exc
        finally:
            self._room.set()  # never leave the caller waiting for room that will not come

    async def drained(self) -> None:
        """Wait until every event added so far is acked (or acking failed)."""
        while self._waiting and self._failure is None:  # noqa: ASYNC110 (rare: a rebalance)
            await asyncio.sleep(0.005)

    async def close(self) -> None:
        """Stop acking (what is still waiting stays unacked: redelivered)."""
        tasks = [lane.task for lane in self._lanes.values() if lane.task is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
