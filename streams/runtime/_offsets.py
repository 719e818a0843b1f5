"""Input offsets kept in the aggregator's own table, so its state never skips an event.

What Faust 0.15.3 did on this machine (tests/streams/test_crash.py, SIGKILL + restart): when a
table app finishes recovery it resumes its input partitions before seeking them to the committed
offsets (`Recovery.on_recovery_completed`), with the flow already running for the changelog
reads. Events fetched in that window are delivered, then a run of later ones is not, while the
events after it are; some of the skipped ones are even acknowledged (and committed), others leave
a gap that blocks every later commit (faust-streaming#596 describes the same race). The aggregator
then misses reviewer results for good: their drafts can only time out.

So the aggregator does not trust the consumer's position. For every input partition it stores the
next offset it expects in its changelog-backed table (key `__offsets__:<topic>:<partition>`,
written on the partition's own changelog partition right after the event's entry, so a recovered
table never holds an offset ahead of the state it covers), and it only applies the event at that
offset: an earlier one is a re-delivery (ignored), a later one means events were skipped, and the
partition is sought back to the expected offset. After every recovery (new consumer generation)
each input partition whose committed offset is past the offset the table expects is also sought
back to it, because Faust may have committed past skipped events and have nothing left to deliver
that would reveal the gap; one whose fetch position only is past it is watched, and sought back
if the expected event has not come within RESEEK_SECONDS. Faust's own commits then only decide
where fetching restarts, never what the table contains.

Seeking, carefully. A position past the table is what prefetching looks like: the fetched events
are in the agents' queues, not lost. Seeking back on that alone (what this module did, at every
worker start and every fail-over) moved the whole process's consumer while Faust's fetch loop
was still handing out a batch fetched before the seek, and Faust's `Consumer.seek` sets the
partition's read offset to the seek target: the next message of that batch then looks like it
follows a gap (`Consumer._drain_messages`: offset - read offset > 1), and Faust records the
offsets in between as a gap, which its committer counts as acknowledged (`_new_offset` adds gap
ranges to the acked offsets). So the group committed past drafts that a slow agent (the critic)
still had queued; the next rebalance emptied that queue (revocation clears every agent's queue)
and the partition's next owner started at the commit: those drafts were never reviewed by the
critic, and waited for their deadline (tests/streams/test_crash.py's fail-over test, about one
run in ten under load: 279 of 300 decisions after 90 s). Hence: no seek on a position alone, and
`seek_back` clears the read offset after the seek, so no message is ever taken for one after a
gap because of a seek of ours (the re-fetched events below what the batch already delivered are
dropped by Faust as re-reads, which is harmless: they were delivered).

Bad events are a run the aggregator never sees: `streams.runtime._screen` parks them (their dead
letters delivered) before the batch holding them reaches any agent, and tells this class
(`parked`) which offsets it parked: applying an event moves the expected offset over the parked
run after it, a valid event after a run not yet jumped is admitted when the run is parked, and a
run with nothing valid after it is recorded by the parker itself once the table reaches it
(`cover`).

Never forward. The consumer is the whole process's (streams.runtime.app: one Faust app per worker),
so a seek moves every agent reading that partition: the reviewers on qa.drafts, the sinks on
qa.reviews. After a fail-over the table (recovered from the dead worker's changelog) is usually
ahead of the group's committed offset, which waits for the slowest role (a critic still working
through its backlog). Seeking forward to the table's offset made the survivor skip those drafts for
every role: the aggregator had them, their critic never answered, and each waited for its timeout
(tests/streams/test_crash.py's fail-over test, 6-30 of 300 drafts). Events the table already holds
are simply delivered again and ignored here (`admit`), while the others get them.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from dataclasses import dataclass
from typing import Any, Protocol

from faust.types import TP

log = logging.getLogger(__name__)

PREFIX = "__offsets__:"
# Seek again if the expected event has not come back after this long; give up (accept the jump,
# loudly) after this many seeks: the events are gone (retention) or the partition moved.
RESEEK_SECONDS = 5.0
MAX_SEEKS = 12


async def seek_back(consumer: Any, tp: TP, offset: int) -> None:
    """Seek `consumer` (the process's Faust consumer) to `offset` on `tp`, leaving no false gap
    behind (module docstring, "Seeking, carefully"): with no read offset recorded, the next
    message delivered on `tp` is not compared with the seek target."""
    await consumer.seek(tp, offset)
    consumer._read_offset[tp] = None  # Faust's own "unknown" value (Consumer.seek for offset 0)
    sought = getattr(consumer, "sought", None)
    if sought is not None:
        # A batch message still being delivered sets the read offset to its last offset once
        # delivered, after this: the consumer clears it again when the records from `offset`
        # come (streams.runtime._fetch), or they would all be dropped as re-reads.
        sought[tp] = offset


def committed_offset(consumer: Any, tp: TP) -> int | None:
    """The group's committed offset of `tp` as the Faust consumer last sought to or committed
    it (None: nothing committed yet)."""
    committed: int | None = consumer._committed_offset.get(tp)
    return committed


def offset_key(tp: TP) -> str:
    return f"{PREFIX}{tp.topic}:{tp.partition}"


def is_offset_key(key: str) -> bool:
    return key.startswith(PREFIX)


class ParkedOffsets(Protocol):
    """What InputOffsets asks the bad-event parker (streams.runtime._screen.Parker)."""

    def covers(self, tp: TP, start: int, end: int) -> bool: ...

    def applied(self, tp: TP, next_offset: int) -> None: ...

    def run_end(self, tp: TP, offset: int) -> int: ...


@dataclass
class _Seek:
    expected: int
    at: float
    attempts: int = 1  # 0: watched only (a fetch position past the table), not sought yet


class InputOffsets:
    """Decides which input events the aggregator applies (see the module docstring)."""

    def __init__(
        self,
        table: MutableMapping[str, Any],
        seek: Callable[[TP, int], Any],
        clock: Callable[[], float],
        position: Callable[[TP], Awaitable[int | None]],
        committed: Callable[[TP], int | None] = lambda tp: None,
    ) -> None:
        self._table = table
        self._seek = seek
        self._position = position
        self._committed = committed
        self._clock = clock
        self._seeking: dict[TP, _Seek] = {}
        self._accept_next: set[TP] = set()
        self._synced_generation: int | None = None
        self.skipped = 0  # events not applied: re-deliveries and events ahead of a gap
        self.seeks = 0
        self.parked: ParkedOffsets | None = None  # the bad events taken out before the agent

    def expected(self, tp: TP) -> int | None:
        stored = self._table.get(offset_key(tp))
        return None if stored is None else int(stored["next"])

    async def admit(self, tp: TP, offset: int) -> bool:
        """True when the event at `offset` is the next one to apply on `tp`."""
        expected = self.expected(tp)
        if expected is None or offset == expected or tp in self._accept_next:
            self._accept_next.discard(tp)
            self._seeking.pop(tp, None)
            return True
        if offset < expected:
            self.skipped += 1
            return False  # applied already: a re-delivery
        parked = self.parked
        # The events in between may be bad ones, parked (their dead letters are delivered before
        # the batch holding them reaches the agent: nothing to wait for).
        if parked is not None and parked.covers(tp, expected, offset):
            parked.applied(tp, offset)
            self._seeking.pop(tp, None)
            return True
        self.skipped += 1
        seeking = self._seeking.get(tp)
        if seeking is None or seeking.expected != expected or not seeking.attempts:
            log.warning(
                "aggregator: %s[%d] delivered offset %d while %d is next; seeking back",
                tp.topic,
                tp.partition,
                offset,
                expected,
            )
            self._seeking[tp] = _Seek(expected, self._clock())
            await self._do_seek(tp, expected)
        return False

    def applied(self, tp: TP, offset: int) -> None:
        """Record that the event at `offset` is in the table (call after its entry is stored),
        and the parked run right after it, if any."""
        nxt = offset + 1
        parked = self.parked
        if parked is not None:
            nxt = parked.run_end(tp, nxt)
            parked.applied(tp, nxt)
        self._table[offset_key(tp)] = {"next": nxt}

    def cover(self, tp: TP, next_offset: int) -> bool:
        """A parked run of `tp` ends below `next_offset`: record it as done when everything
        from the offset the table expects up to there is parked. Returns whether it wrote."""
        expected = self.expected(tp)
        parked = self.parked
        if expected is not None and (
            expected >= next_offset
            or parked is None
            or not parked.covers(tp, expected, next_offset)
        ):
            return False
        self._table[offset_key(tp)] = {"next": next_offset}
        return True

    async def resync(self, assigned: Iterable[TP], generation: int) -> None:
        """Once per consumer generation (after recovery), for every assigned input partition:
        committed past the offset the table expects (Faust committed past events it skipped and
        acknowledged; if no event is delivered after those, only a seek brings them back): seek
        back now. Only the fetch position past it: watch it (the fetched events are normally
        queued for the agent; `reseek_stalled` seeks back if the expected one has not come
        within RESEEK_SECONDS). Behind the table: left alone (never seek forward: the other roles
        of the process need those events)."""
        if generation == self._synced_generation:
            return
        self._synced_generation = generation
        for tp in assigned:
            expected = self.expected(tp)
            if expected is None:
                continue
            committed = self._committed(tp)
            if committed is not None and committed > expected:
                log.warning(
                    "aggregator: %s[%d] is committed at %d, past %d the table expects; "
                    "seeking back",
                    tp.topic,
                    tp.partition,
                    committed,
                    expected,
                )
                self._seeking[tp] = _Seek(expected, self._clock())
                await self._do_seek(tp, expected)
                continue
            try:
                position = await self._position(tp)
            except Exception:  # e.g. revoked meanwhile; admit() still catches a gap
                log.warning("aggregator: no position for %s", tp, exc_info=True)
                continue
            if position is not None and position > expected and tp not in self._seeking:
                self._seeking[tp] = _Seek(expected, self._clock(), attempts=0)
            elif position is not None and position < expected:
                log.info(
                    "aggregator: %s[%d] is at %d, behind %d the table expects; not seeking "
                    "(the events between are applied already: ignored here, the other roles "
                    "need them)",
                    tp.topic,
                    tp.partition,
                    position,
                    expected,
                )

    async def reseek_stalled(self, assigned: Iterable[TP]) -> None:
        """Seek again where the expected event has not come back (called by the timer)."""
        now = self._clock()
        current = set(assigned)
        for tp, seek in list(self._seeking.items()):
            if tp not in current:
                del self._seeking[tp]
            elif self.expected(tp) != seek.expected:
                del self._seeking[tp]  # it moved on: the events came (a watch, or a late one)
            elif now - seek.at >= RESEEK_SECONDS:
                if not seek.attempts:
                    log.warning(
                        "aggregator: %s[%d] offset %d has not come within %.0f s of the "
                        "recovery; seeking back",
                        tp.topic,
                        tp.partition,
                        seek.expected,
                        RESEEK_SECONDS,
                    )
                if seek.attempts >= MAX_SEEKS:
                    log.error(
                        "aggregator: %s[%d] offset %d never came back after %d seeks; "
                        "continuing from the next event delivered",
                        tp.topic,
                        tp.partition,
                        seek.expected,
                        seek.attempts,
                    )
                    del self._seeking[tp]
                    self._accept_next.add(tp)
                    continue
                seek.at = now
                seek.attempts += 1
                await self._do_seek(tp, seek.expected)

    async def _do_seek(self, tp: TP, offset: int) -> None:
        self.seeks += 1
        try:
            await self._seek(tp, offset)
        except Exception:  # e.g. the partition was revoked meanwhile; the timer retries
            log.warning("aggregator: seeking %s to %d failed", tp, offset, exc_info=True)
