"""Bad events on the aggregator's inputs (qa.drafts, qa.reviews) taken out of each fetched batch,
below Faust's per-message delivery, so a flood of them is parked at the pace of the codec and the
broker, and the valid events queued behind it are not held up.

`streams.runtime._fetch.ScreeningConsumer` hands every fetched batch to `Screen.sift` before Faust
turns records into messages. Each record of a screened topic is decoded once (the agents reuse the
value: `streams.runtime.serde.remember_decoded`). A bad one (undecodable, another record type, or
keyed by something other than its draft_id) never becomes a Faust message and reaches no agent:

- in a process that runs the aggregator (the role that owns these topics' bad events), the
  `Parker` publishes the dead letters of the whole batch together (consumer "aggregator"), waits
  until the broker has every one, and only then acknowledges their offsets and lets the batch's
  valid events through. So a committed offset is always past delivered dead letters only;
- in any other process it is acknowledged at once and counted (`Screen.skipped`): another
  group's aggregator parks it. A bad event is one dead letter, whatever the role layout.

Exactly once, crash or not (the nearest real thing, stated in docs/design.md): an offset below the
group's committed offset, below the offset the aggregator's table expects, or parked already by
this process is never parked again. What remains is a crash after a batch's dead letters are
delivered and before the commit that covers them: the next owner reads that batch again. For
that window each dead letter carries a `multiqa-source` header (consumer, topic, partition,
offset) and the dead letters of one input partition all go to one dead-letter partition; the
first time a process parks on an input partition it reads that dead-letter partition back from
shortly before the oldest record it is about to park (`DeadLetterLedger`), and skips what is
there already.

The aggregator applies each input partition's events strictly in offset order from the offset its
table expects (streams.runtime._offsets). The parked offsets are a run it never sees: after
applying an event it jumps over the run that follows (`run_end`), a valid event after a run it
has not jumped yet is admitted when the run is parked (`covers`), and a run with nothing valid
after it is recorded in the table directly (`InputOffsets.cover`, written at the next flush) when
the table has reached it.
"""

from __future__ import annotations

import asyncio
import bisect
import logging
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Protocol

from faust.types import TP

from agents.retry import Backoff
from schemas import DraftSubmitted, ReviewerResult, WrongRecordTypeError
from streams.runtime._heap import release_after_burst
from streams.runtime.deadletter import DeadLetterLedger, DeadLetters
from streams.runtime.serde import Undecodable
from streams.runtime.topics import misrouted

log = logging.getLogger(__name__)

# Old markers (a parked run at the end of a partition) may still be on the deadlines topic of a
# deployment that ran the earlier parker: the aggregator still reads them (`read_marker`).
PARKED_HEADER = "multiqa-parked"
# Dead letters sent before waiting for the broker's answer (what a flood holds in memory at once).
CHUNK = 2000
# Backoff while the broker refuses dead letters (the one policy, agents.retry).
_BACKOFF = Backoff(initial=0.5, factor=2.0, cap=5.0)


def bad_event_error(topic: str, key: bytes | None, value: Any) -> BaseException | None:
    """Why `value` (decoded from a record of an aggregator input) is a bad event, or None."""
    if isinstance(value, Undecodable):
        return value.error
    if isinstance(value, DraftSubmitted | ReviewerResult):
        text = None if key is None else bytes(key).decode("utf-8", "surrogateescape")
        return misrouted(text, value.draft_id)
    return WrongRecordTypeError(f"{type(value).__name__} on {topic!r} is not expected")


def is_marker(message: Any) -> bool:
    """True for the earlier parker's markers on the deadlines topic (nudges have no headers)."""
    headers = message.headers or ()
    names = headers.keys() if isinstance(headers, Mapping) else (h[0] for h in headers)
    return PARKED_HEADER in names


def read_marker(value: bytes) -> tuple[TP, int]:
    topic, partition, offset = value.decode().rsplit("\n", 2)
    return TP(topic, int(partition)), int(offset)


class _Runs:
    """Disjoint sorted [start, end) runs of offsets, merged as they are added."""

    __slots__ = ("ends", "starts")

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.ends: list[int] = []

    def add(self, offset: int) -> None:
        i = bisect.bisect_right(self.starts, offset) - 1
        if i >= 0 and self.starts[i] <= offset < self.ends[i]:
            return
        if i >= 0 and self.ends[i] == offset:
            self.ends[i] = offset + 1
        else:
            i += 1
            self.starts.insert(i, offset)
            self.ends.insert(i, offset + 1)
        if i + 1 < len(self.starts) and self.starts[i + 1] == self.ends[i]:
            self.ends[i] = self.ends.pop(i + 1)
            self.starts.pop(i + 1)

    def __contains__(self, offset: int) -> bool:
        i = bisect.bisect_right(self.starts, offset) - 1
        return i >= 0 and offset < self.ends[i]

    def end_from(self, offset: int) -> int:
        """The end of the run holding `offset`, or `offset` when none does."""
        i = bisect.bisect_right(self.starts, offset) - 1
        return self.ends[i] if i >= 0 and offset < self.ends[i] else offset

    def covers(self, start: int, end: int) -> bool:
        return start >= end or self.end_from(start) >= end

    def trim(self, below: int) -> None:
        while self.starts and self.ends[0] <= below:
            self.starts.pop(0)
            self.ends.pop(0)

    def __len__(self) -> int:
        return len(self.starts)


class Acker(Protocol):
    """What the parker needs of the consumer (streams.runtime._fetch.ScreeningConsumer)."""

    def ack_offsets(self, tp: TP, offsets: Iterable[int]) -> None: ...

    def committed_offset(self, tp: TP) -> int | None: ...


class Table(Protocol):
    """What the parker needs of the aggregator's input offsets (streams.runtime._offsets)."""

    def expected(self, tp: TP) -> int | None: ...

    def cover(self, tp: TP, next_offset: int) -> bool: ...


class Parker:
    """Parks the bad events of one process's fetched batches (module docstring)."""

    def __init__(
        self,
        dead_letters: DeadLetters,
        *,
        table: Table,
        wrote: Callable[[], None] = lambda: None,
        owned: Callable[[TP], bool] = lambda tp: True,
        ledger: DeadLetterLedger | None = None,
    ) -> None:
        self.dead_letters = dead_letters
        self.table = table
        self.wrote = wrote  # the table has a change to flush
        self.owned = owned
        self.ledger = ledger
        self.parked = 0  # dead letters this process delivered
        self.known = 0  # bad events skipped because they were parked before
        self._taken: dict[TP, _Runs] = {}  # per partition, offsets parked and delivered

    async def park(
        self, acker: Acker, bad: Mapping[TP, Sequence[tuple[Any, BaseException]]]
    ) -> None:
        """Publish one dead letter for each bad record not parked before, wait until the broker
        has them all (retrying those refused while the partition is ours), record and acknowledge
        every offset. A partition lost meanwhile is left unacknowledged: its next owner parks
        what it finds (and skips what is in the dead-letter topic already)."""
        to_send: list[tuple[Any, BaseException]] = []
        earlier: dict[TP, set[int]] = {}
        if self.ledger is not None and any(self.ledger.needs(tp) for tp in bad):
            # Once per partition and assignment: what a previous owner parked and did not
            # commit is in the dead-letter topic; taken as parked (it is: delivered).
            earlier = await self.ledger.parked(self.dead_letters.consumer, dict(bad))
        for tp, items in bad.items():
            runs = self._taken.setdefault(tp, _Runs())
            floor = max(self.table.expected(tp) or 0, acker.committed_offset(tp) or 0)
            for offset in earlier.get(tp, ()):
                if offset >= floor:
                    runs.add(offset)
            fresh = [(r, e) for r, e in items if r.offset >= floor and r.offset not in runs]
            self.known += len(items) - len(fresh)
            to_send.extend(fresh)
        # In chunks: a flood fetched as one batch of 10,000 would otherwise hold every dead
        # letter (and the producer's buffers for all of them) at once.
        for start in range(0, len(to_send), CHUNK):
            chunk = to_send[start : start + CHUNK]
            if not await self._deliver(chunk):
                return
            self.parked += len(chunk)
        for tp, items in bad.items():
            runs = self._taken[tp]
            for record, _ in items:
                runs.add(record.offset)
            acker.ack_offsets(tp, (r.offset for r, _ in items))
            self._cover_tail(tp)
        release_after_burst(sum(len(items) for items in bad.values()))  # a flood's memory (_heap)

    async def _deliver(self, items: list[tuple[Any, BaseException]]) -> bool:
        """Send every dead letter and wait for the broker; refused ones are sent again with
        backoff, in this call (nothing in the background that could die unseen). False when a
        partition of them was lost meanwhile (nothing is acknowledged then). They go out in
        produce batches, one dead-letter partition at a time (`DeadLetters.send_batch`)."""
        pending = items
        attempt = 0
        while pending:
            failed: list[tuple[Any, BaseException]] = []
            batches: list[tuple[list[tuple[Any, BaseException]], Any]] = []
            groups: dict[int, list[tuple[Any, BaseException]]] = {}
            for item in pending:
                groups.setdefault(self.dead_letters.partition_for(item[0]), []).append(item)
            try:
                for group in groups.values():
                    start = 0
                    while start < len(group):
                        n, fut = await self.dead_letters.send_batch(group, start)
                        batches.append((group[start : start + n], fut))
                        start += n
            except Exception as exc:  # e.g. the producer restarting: every unsent one again
                log.warning("dead letters could not be sent (%r)", exc)
                handed = {id(item) for sent, _ in batches for item in sent}
                failed = [item for item in pending if id(item) not in handed]
            for sent, fut in batches:
                try:
                    await fut
                except asyncio.CancelledError:
                    raise
                except Exception:
                    failed.extend(sent)
            if not failed:
                return True
            if not all(self.owned(_tp_of(r)) for r, _ in failed):
                log.warning("partition lost while its dead letters were refused; not acked")
                return False
            attempt += 1
            delay = _BACKOFF.delay(attempt)
            log.warning("%d dead letters not delivered; retrying in %.1f s", len(failed), delay)
            await asyncio.sleep(delay)
            pending = failed
        return True

    def _cover_tail(self, tp: TP) -> None:
        """A parked run the table has reached (nothing valid left before it) is recorded there
        now: a run with nothing valid after it would otherwise wait for the next valid event."""
        runs = self._taken.get(tp)
        expected = self.table.expected(tp)
        if not runs or expected is None or not self.owned(tp):
            return
        end = runs.end_from(expected)
        if end > expected and self.table.cover(tp, end):
            self.wrote()
            runs.trim(end)

    # --- what the aggregator's input offsets ask (streams.runtime._offsets.ParkedOffsets) --------
    def covers(self, tp: TP, start: int, end: int) -> bool:
        """True when every offset of `tp` in [start, end) is parked and delivered."""
        runs = self._taken.get(tp)
        return start >= end if runs is None else runs.covers(start, end)

    def run_end(self, tp: TP, offset: int) -> int:
        """Where the parked run starting at `offset` ends (`offset` itself when none does)."""
        runs = self._taken.get(tp)
        return offset if runs is None else runs.end_from(offset)

    def applied(self, tp: TP, next_offset: int) -> None:
        """The table now expects `next_offset` on `tp`: forget what is below it."""
        runs = self._taken.get(tp)
        if runs is not None:
            runs.trim(next_offset)

    def forget(self, assigned: Iterable[TP]) -> None:
        """Drop what is kept for partitions no longer assigned."""
        current = set(assigned)
        for tp in [tp for tp in self._taken if tp not in current]:
            del self._taken[tp]
        if self.ledger is not None:
            self.ledger.forget(current)

    async def close(self) -> None:
        if self.ledger is not None:
            await self.ledger.close()


def _tp_of(record: Any) -> TP:
    return TP(record.topic, record.partition)


class Screen:
    """Takes bad events of the aggregator's inputs out of each fetched batch (module docstring);
    with an `audit` lane (the sinks), takes the dead-letter topic's records to it too."""

    def __init__(self, schemas: dict[str, Any], *, batched: Iterable[str] = ()) -> None:
        self.schemas = schemas  # topic name -> the EventSchema its agents decode with
        # Topics whose valid records reach the agents as one batch per partition and fetch
        # (streams.runtime._batch); only screened ones (their records are decoded here).
        self.batched = frozenset(batched) & frozenset(schemas)
        self.parker: Parker | None = None
        self.audit: Any = None  # streams.runtime.deadletter.AuditLane when the sinks run here
        self.skipped: Counter[str] = Counter()  # bad events acked unparked, per topic

    def screens(self, topic: str) -> bool:
        return topic in self.schemas or (self.audit is not None and topic == self.audit.topic)

    async def sift(
        self, acker: Acker, records: Mapping[TP, list[Any]]
    ) -> tuple[dict[TP, list[Any]], dict[tuple[TP, int], Any], dict[TP, set[int]]]:
        """(the records to deliver, their decoded values, the offsets taken out per partition).
        Bad records are parked (or skipped) and acknowledged before this returns."""
        keep: dict[TP, list[Any]] = {}
        values: dict[tuple[TP, int], Any] = {}
        removed: dict[TP, set[int]] = {}
        bad: dict[TP, list[tuple[Any, BaseException]]] = {}
        audit = self.audit
        for tp, batch in records.items():
            topic = tp.topic
            if audit is not None and topic == audit.topic:
                removed[tp] = {r.offset for r in batch}
                await audit.put(acker, tp, batch)
                continue
            schema = self.schemas.get(topic)
            if schema is None:
                keep[tp] = batch
                continue
            good = []
            for record in batch:
                value = schema.decode_bytes(record.value)
                error = bad_event_error(topic, record.key, value)
                if error is None:
                    good.append(record)
                    values[tp, record.offset] = value
                else:
                    bad.setdefault(tp, []).append((record, error))
            if len(good) < len(batch):
                removed[tp] = {r.offset for r, _ in bad[tp]}
            if good:
                keep[tp] = good
        if bad:
            if self.parker is None:
                for tp, items in bad.items():
                    self.skipped[tp.topic] += len(items)
                    acker.ack_offsets(tp, (r.offset for r, _ in items))
            else:
                await self.parker.park(acker, bad)
        return keep, values, removed

    async def close(self) -> None:
        if self.audit is not None:
            await self.audit.close()
