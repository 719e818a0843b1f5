"""The aggregator's deadline timer (streams.runtime.aggregator): a wall-clock task that scans the
entries due (streams.runtime._due) and sends a nudge for each to the deadlines topic, on the
entry's partition; the agent then acts on it (decides with `timed_out`, publishes a stored
decision, forgets an entry past retention). Faust allows table writes only while processing an
event of the right partition, which is why the timer does not act itself.

Each tick also keeps the input offsets honest (streams.runtime._offsets: resync after a new
consumer generation, re-seek a stalled partition) and lets the parker forget partitions no longer
assigned.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import faust

from streams.runtime._cache import TableCache
from streams.runtime._due import DueTimes
from streams.runtime._entry import due_at, is_meta_key, stored_partition
from streams.runtime._offsets import InputOffsets
from streams.runtime._screen import Parker
from streams.runtime.config import StreamConfig

log = logging.getLogger(__name__)


class DeadlineTimer:
    """The timer's scan, as part of `Aggregator` (which declares what is declared here)."""

    app: faust.App
    config: StreamConfig
    cache: TableCache
    due: DueTimes
    offsets: InputOffsets
    parker: Parker
    nudges: faust.TopicT
    clock: Callable[[], float]
    _inputs: set[str]
    _nudged: dict[str, float]
    _publishing: set[str]
    _due_view: tuple[frozenset[int], int] | None

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
            if key in self._publishing:
                # Its decision waits for (or is in) a flush, which publishes it: a nudge would
                # only queue it again (in a burst, one nudge per draft). Looked at again later.
                self.due.set(key, now + resend_after, partition)
                continue
            self._nudged[key] = now
            # Looked at again if the nudge had no effect (its handling stores the entry anew).
            self.due.set(key, now + resend_after, partition)
            await self.nudges.send(key=key.encode(), value=key.encode(), partition=partition)
            sent += 1
        return sent
