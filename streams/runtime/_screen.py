"""Bad events on the aggregator's inputs (qa.drafts, qa.reviews) taken out before any agent sees
them: a flood of them is parked at the speed the broker takes dead letters, and the valid events
queued behind it are not held up.

Every message of those topics is decoded once, by the screen, before Faust hands it to the
process's agents (`ScreeningConductor`, Faust's conductor with the screen in front of each
partition's handler). A valid one goes on to the agents with its decoded value (the agents'
schemas reuse it: `streams.serde.remember_decoded`). A bad one (undecodable, another record
type, or keyed by something other than its draft_id) reaches no agent:

- in a process that runs the aggregator (the role that owns these topics' bad events), the
  `Parker` publishes one dead letter for it (consumer "aggregator") without waiting for the
  broker, and acknowledges it once the aggregator's table records its offset as done;
- in any other process it is acknowledged at once and counted (`Screen.skipped`): another
  group's aggregator parks it. So a bad event is one dead letter, whatever the role layout.

Why the table must record the offsets (streams._offsets): the aggregator applies each input
partition's events strictly in offset order, from the offset its table expects. The parked
offsets are a run it never sees, so it accepts a jump over them (`Parker.covers`) once their dead
letters are delivered, and the table's next offset then covers them. A run with no valid event
after it is covered by a marker: the parker sends one message per partition and batch to the
aggregator's deadlines topic (header `multiqa-parked`), the aggregator writes the partition's next
offset in its table (one changelog write for the whole run, not one per bad event) and, once that
write is delivered, the parker acknowledges the run. A bad event is therefore acknowledged only
after both its dead letter and the table's record of it are in Kafka: after a crash, the events
the table does not cover are parked again (the same source topic, partition and offset: at least
once, in that window only), those it covers are skipped.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter, deque
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import faust
from faust.transport.conductor import Conductor
from faust.types import TP
from faust.types.tuples import Message

from agents.retry import Backoff
from schemas import DraftSubmitted, ReviewerResult, WrongRecordTypeError
from streams.runtime.deadletter import DeadLetters
from streams.runtime.serde import Undecodable, remember_decoded
from streams.runtime.topics import misrouted

log = logging.getLogger(__name__)

PARKED_HEADER = "multiqa-parked"
# Dead letters delivered before the parker asks the aggregator to cover their offsets (and a
# marker is sent whenever the parker has nothing else in flight).
COVER_EVERY = 2000
# Backoff while the broker refuses a dead letter (the one policy, agents.retry).
_BACKOFF = Backoff(initial=0.5, factor=2.0, cap=5.0)


def bad_event_error(message: Message, value: Any) -> BaseException | None:
    """Why `value` (decoded from `message` of an aggregator input) is a bad event, or None."""
    if isinstance(value, Undecodable):
        return value.error
    if isinstance(value, DraftSubmitted | ReviewerResult):
        key = message.key
        text = None if key is None else bytes(key).decode("utf-8", "surrogateescape")
        return misrouted(text, value.draft_id)
    return WrongRecordTypeError(f"{type(value).__name__} on {message.topic!r} is not expected")


def parked_marker(tp: TP, next_offset: int) -> bytes:
    return f"{tp.topic}\n{tp.partition}\n{next_offset}".encode()


def is_marker(message: Message) -> bool:
    """True for the parker's markers on the deadlines topic (the aggregator's nudges have no
    headers)."""
    headers = message.headers or ()
    names = headers.keys() if isinstance(headers, Mapping) else (h[0] for h in headers)
    return PARKED_HEADER in names


def read_marker(value: bytes) -> tuple[TP, int]:
    topic, partition, offset = value.decode().rsplit("\n", 2)
    return TP(topic, int(partition)), int(offset)


class Parker:
    """Publishes the dead letters of one process's bad input events in the background and
    acknowledges each once the aggregator's table covers its offset (module docstring)."""

    def __init__(
        self,
        app: faust.App,
        dead_letters: DeadLetters,
        *,
        expected: Callable[[TP], int | None],
        markers: faust.TopicT,
    ) -> None:
        self.app = app
        self.dead_letters = dead_letters
        self.expected = expected
        self.markers = markers
        self.parked = 0
        # Per partition, offsets taken and not yet covered by the table: offset -> delivered.
        self._offsets: dict[TP, dict[int, bool]] = {}
        self._in_flight: deque[tuple[Message, BaseException, Any]] = deque()
        self._uncovered: dict[TP, list[Message]] = {}
        self._covering: dict[TP, list[Message]] = {}
        self._since_cover = 0
        self._wake = asyncio.Event()
        self._progress = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    async def park(self, message: Message, error: BaseException) -> None:
        tp = message.tp
        if self.app.in_recovery:
            # The table is incomplete: as the aggregator does, let it go; the aggregator's resync
            # seeks back to the offset the recovered table expects, and it comes again.
            message.ack(self.app.consumer)
            return
        expected = self.expected(tp)
        offsets = self._offsets.setdefault(tp, {})
        if (expected is not None and message.offset < expected) or message.offset in offsets:
            message.ack(self.app.consumer)  # parked already: a re-delivery
            return
        offsets[message.offset] = False
        fut = await self.dead_letters.send(message, error)
        self.parked += 1
        self._in_flight.append((message, error, fut))
        if self._task is None or self._task.done():
            self._task = asyncio.ensure_future(self._deliver())
        self._wake.set()

    async def _deliver(self) -> None:
        in_flight = self._in_flight
        while True:
            while not in_flight:
                await self._cover_all()
                self._wake.clear()
                await self._wake.wait()
            message, error, fut = in_flight[0]
            await self._delivered(message, error, fut)
            in_flight.popleft()
            offsets = self._offsets.get(message.tp)
            if offsets is not None and message.offset in offsets:
                offsets[message.offset] = True
                self._uncovered.setdefault(message.tp, []).append(message)
            self._progress.set()
            self._since_cover += 1
            if self._since_cover >= COVER_EVERY:
                await self._cover_all()

    async def _delivered(self, message: Message, error: BaseException, fut: Any) -> None:
        attempt = 0
        while True:
            try:
                await fut
                return
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                delay = _BACKOFF.delay(attempt + 1)
                attempt += 1
                log.warning("a dead letter was not delivered (%r); retrying in %.1f s", exc, delay)
                await asyncio.sleep(delay)
                fut = await self.dead_letters.send(message, error)

    async def _cover_all(self) -> None:
        """Ask the aggregator to cover every delivered run (one marker per partition)."""
        self._since_cover = 0
        uncovered, self._uncovered = self._uncovered, {}
        for tp, messages in uncovered.items():
            self._covering.setdefault(tp, []).extend(messages)
            next_offset = max(m.offset for m in messages) + 1
            await self.markers.send(
                key=b"", value=parked_marker(tp, next_offset), partition=tp.partition,
                headers={PARKED_HEADER: b"1"},
            )  # fmt: skip

    async def settled(self, tp: TP, offset: int) -> None:
        """Wait until every dead letter of `tp` below `offset` is delivered."""
        offsets = self._offsets.get(tp)
        while offsets and any(not done for o, done in offsets.items() if o < offset):
            self._progress.clear()
            await self._progress.wait()

    def covers(self, tp: TP, start: int, end: int) -> bool:
        """True when every offset of `tp` in [start, end) is parked and delivered."""
        offsets = self._offsets.get(tp)
        if not offsets:
            return start >= end
        return all(offsets.get(o) for o in range(start, end))

    def applied(self, tp: TP, next_offset: int) -> None:
        """The table now expects `next_offset` on `tp`: forget what is below it."""
        offsets = self._offsets.get(tp)
        if offsets:
            for o in [o for o in offsets if o < next_offset and offsets[o]]:
                del offsets[o]

    def release(self, tp: TP, next_offset: int) -> None:
        """The table's record of `tp` up to `next_offset` is delivered: acknowledge the bad
        events it covers."""
        covering = self._covering.get(tp)
        if not covering:
            return
        keep = []
        consumer = self.app.consumer
        for message in covering:
            if message.offset < next_offset:
                message.ack(consumer)
            else:
                keep.append(message)
        self._covering[tp] = keep
        expected = self.expected(tp)
        if expected is not None:
            self.applied(tp, expected)

    def forget(self, assigned: Iterable[TP]) -> None:
        """Drop what is kept for partitions no longer assigned (left unacknowledged)."""
        current = set(assigned)
        for state in (self._offsets, self._uncovered, self._covering):
            for tp in [tp for tp in state if tp not in current]:
                del state[tp]

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)


class Screen:
    """Takes bad events of the aggregator's inputs out before the agents (module docstring)."""

    def __init__(self, app: faust.App, schemas: dict[str, Any]) -> None:
        self.app = app
        self.schemas = schemas  # topic name -> the EventSchema its agents decode with
        self.parker: Parker | None = None
        self.skipped: Counter[str] = Counter()  # bad events acked unparked, per topic

    def screens(self, topic: str) -> bool:
        return topic in self.schemas

    async def take(self, message: Message) -> bool:
        """True when `message` is a bad event (parked or skipped: no agent gets it)."""
        value = self.schemas[message.topic].loads_value(self.app, message)
        error = bad_event_error(message, value)
        if error is None:
            remember_decoded(message, value)
            return False
        if self.parker is None:
            self.skipped[message.topic] += 1
            message.ack(self.app.consumer)
        else:
            await self.parker.park(message, error)
        return True


class ScreeningConductor(Conductor):
    """Faust's conductor with the app's `Screen` in front of each screened partition."""

    def _build_handler(self, tp: TP, channels: Any) -> Any:
        deliver = super()._build_handler(tp, channels)
        screen: Screen | None = getattr(self.app, "screen", None)
        if screen is None or not screen.screens(tp.topic):
            return deliver
        take = screen.take

        async def on_message(message: Message) -> None:
            if not await take(message):
                await deliver(message)

        return on_message
