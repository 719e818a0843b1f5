"""Consumer lag per group and partition, polled in the background (never at scrape time, so
`/metrics` answers at once whatever the broker does).

Each worker reports the partitions assigned to it in each of its groups: lag = the partition's
log end offset minus the group's committed offset (minus the log start when the group committed
nothing there yet). Summed over workers that is the group's lag, with no partition counted twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Mapping
from typing import Any

from streams.runtime.observe._metrics import CONSUMER_LAG

log = logging.getLogger(__name__)

# {group id: {(topic, partition), ...}}: what this worker consumes right now.
Assignments = Callable[[], Mapping[str, set[tuple[str, int]]]]


class LagPoller:
    def __init__(self, bootstrap: str, assignments: Assignments, *, interval: float = 5.0) -> None:
        self.bootstrap = bootstrap
        self.assignments = assignments
        self.interval = interval
        self._task: asyncio.Task[None] | None = None
        self._reported: set[tuple[str, str, str]] = set()
        self.polls = 0

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.ensure_future(self._run())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None

    async def _run(self) -> None:
        from aiokafka import AIOKafkaConsumer
        from aiokafka.admin import AIOKafkaAdminClient

        admin: Any = None
        consumer: Any = None
        failures = 0
        try:
            while True:
                try:
                    if admin is None:
                        admin = AIOKafkaAdminClient(bootstrap_servers=self.bootstrap)
                        await admin.start()
                        consumer = AIOKafkaConsumer(
                            bootstrap_servers=self.bootstrap, enable_auto_commit=False
                        )
                        await consumer.start()
                    await self.poll(admin, consumer)
                    failures = 0
                except asyncio.CancelledError:
                    raise
                except Exception as exc:
                    failures += 1
                    if failures == 1 or failures % 60 == 0:
                        log.warning("consumer lag unavailable (%s: %s)", type(exc).__name__, exc)
                    admin, consumer = await _close(admin, consumer)
                await asyncio.sleep(self.interval)
        finally:
            await _close(admin, consumer)

    async def poll(self, admin: Any, consumer: Any) -> None:
        from aiokafka import TopicPartition

        seen: set[tuple[str, str, str]] = set()
        for group, owned in self.assignments().items():
            tps = [TopicPartition(t, p) for t, p in sorted(owned)]
            if not tps:
                continue
            committed = await admin.list_consumer_group_offsets(group, partitions=tps)
            ends = await consumer.end_offsets(tps)
            starts = await consumer.beginning_offsets(tps)
            for tp in tps:
                meta = committed.get(tp)
                done = meta.offset if meta is not None and meta.offset >= 0 else starts[tp]
                labels = (group, tp.topic, str(tp.partition))
                CONSUMER_LAG.labels(*labels).set(max(0, ends[tp] - done))
                seen.add(labels)
        for labels in self._reported - seen:  # partitions this worker no longer owns
            CONSUMER_LAG.remove(*labels)
        self._reported = seen
        self.polls += 1


async def _close(admin: Any, consumer: Any) -> tuple[None, None]:
    for client, method in ((consumer, "stop"), (admin, "close")):
        if client is not None:
            with contextlib.suppress(Exception):  # a broken client is dropped either way
                await getattr(client, method)()
    return None, None
