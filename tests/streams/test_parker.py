"""The bad-event parker (streams.runtime._screen.Parker) and the aggregator's input offsets around
it, without a broker: the dead letters are fakes whose delivery the test controls.

The two weak spots of the parker before issue 13's batch screen, each a test here:
- a partition given up while its dead letters were not delivered left the aggregator waiting
  for ever (`settled()` waited on a dict `forget` had orphaned: a split-roles flood took > 120 s);
- a dead letter whose re-send raised ended the background delivery task, and the bad events
  already taken were acknowledged only when another bad event came.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import pytest
from faust.types import TP

from agents.retry import Backoff
from schemas import BadMagicError
from streams.runtime._offsets import InputOffsets
from streams.runtime._screen import Parker, _Runs

pytestmark = pytest.mark.asyncio

TP0 = TP("qa.drafts", 0)
# A liveness bound, never a speed check: every call below returns at once when correct.
LIVE = 30.0
NO_PAUSE = Backoff(initial=0.0, factor=1.0, cap=0.0)


@dataclass
class Record:
    offset: int
    topic: str = "qa.drafts"
    partition: int = 0
    key: bytes | None = b"k"
    value: bytes | None = b"not avro"
    headers: list[tuple[str, bytes]] = field(default_factory=list)
    timestamp: int = 1_000


@dataclass
class Acker:
    acked: list[int] = field(default_factory=list)
    committed: int | None = None

    def ack_offsets(self, tp: TP, offsets: Iterable[int]) -> None:
        self.acked.extend(offsets)

    def committed_offset(self, tp: TP) -> int | None:
        return self.committed


class DeadLetters:
    """`send_batch` takes one dead letter per batch and returns its future; `outcomes` says per
    call what happens (None: delivered, an exception instance: the future fails with it,
    "raise": send_batch itself raises)."""

    consumer = "aggregator"

    def __init__(self, outcomes: list[Any] | None = None) -> None:
        self.outcomes = list(outcomes or [])
        self.sent: list[int] = []

    def partition_for(self, record: Any) -> int:
        return int(record.partition)

    async def send_batch(self, items: list[tuple[Any, BaseException]], start: int) -> Any:
        outcome = self.outcomes.pop(0) if self.outcomes else None
        if outcome == "raise":
            raise RuntimeError("the producer is restarting")
        self.sent.append(items[start][0].offset)
        fut = asyncio.get_running_loop().create_future()
        if isinstance(outcome, BaseException):
            fut.set_exception(outcome)
        else:
            fut.set_result(None)
        return 1, fut


def bad(*offsets: int) -> dict[TP, list[tuple[Any, BaseException]]]:
    return {TP0: [(Record(o), BadMagicError("bad magic")) for o in offsets]}


def offsets_table() -> tuple[InputOffsets, dict[str, Any]]:
    table: dict[str, Any] = {}

    async def seek(tp: TP, offset: int) -> None:
        return None

    async def position(tp: TP) -> int | None:
        return None

    return InputOffsets(table, seek, lambda: 0.0, position), table


def parker(dead: DeadLetters, **kwargs: Any) -> tuple[Parker, InputOffsets]:
    offsets, _ = offsets_table()
    p = Parker(dead, table=offsets, **kwargs)  # type: ignore[arg-type]
    offsets.parked = p
    return p, offsets


async def test_runs_merge_and_answer_cover_queries() -> None:
    runs = _Runs()
    for o in (5, 3, 4, 9, 10, 7):
        runs.add(o)
    assert (runs.starts, runs.ends) == ([3, 7, 9], [6, 8, 11])
    runs.add(6)
    runs.add(8)
    assert (runs.starts, runs.ends) == ([3], [11])
    assert runs.covers(3, 11) and not runs.covers(2, 5) and runs.covers(7, 7)
    assert runs.end_from(5) == 11 and runs.end_from(11) == 11 and 2 not in runs
    runs.trim(11)
    assert len(runs) == 0


async def test_a_batch_is_parked_once_and_acked_only_after_every_dead_letter_is_delivered():
    dead = DeadLetters()
    p, _ = parker(dead)
    acker = Acker()
    await p.park(acker, bad(0, 1, 2))
    assert dead.sent == [0, 1, 2] and sorted(acker.acked) == [0, 1, 2] and p.parked == 3
    await p.park(acker, bad(1, 2, 3))  # read again (a seek): only 3 is new
    assert dead.sent == [0, 1, 2, 3] and p.known == 2
    assert p.covers(TP0, 0, 4) and not p.covers(TP0, 0, 5)


async def test_offsets_below_the_commit_or_the_table_are_not_parked_again():
    dead = DeadLetters()
    p, offsets = parker(dead)
    offsets.applied(TP0, 4)  # the table expects 5
    await p.park(Acker(committed=2), bad(0, 1, 3, 5, 6))
    assert dead.sent == [5, 6] and p.known == 3


async def test_a_refused_dead_letter_is_sent_again_and_a_raising_resend_does_not_end_parking(
    monkeypatch,
):
    monkeypatch.setattr(
        "streams.runtime._screen._BACKOFF", Backoff(initial=0.0, factor=1.0, cap=0.0)
    )
    # First send: the future fails; its re-send raises; the third attempt is delivered.
    dead = DeadLetters([ConnectionError("broker went away"), None, "raise", None])
    p, _ = parker(dead)
    acker = Acker()
    async with asyncio.timeout(LIVE):
        await p.park(acker, bad(0, 1))
    assert sorted(acker.acked) == [0, 1]  # without any further bad event
    assert dead.sent == [0, 1, 0]
    assert p.parked == 2


async def test_a_partition_lost_while_its_dead_letters_are_refused_is_left_unacked(monkeypatch):
    monkeypatch.setattr(
        "streams.runtime._screen._BACKOFF", Backoff(initial=0.0, factor=1.0, cap=0.0)
    )
    owned = {TP0}
    dead = DeadLetters([ConnectionError("refused")] * 3)

    def owns(tp: TP) -> bool:
        owned.clear()  # revoked during the first retry pause
        return False

    p, offsets = parker(dead, owned=owns)
    acker = Acker()
    async with asyncio.timeout(LIVE):  # before: a wait that never ended
        await p.park(acker, bad(7))
    assert acker.acked == [] and not p.covers(TP0, 7, 8)
    p.forget([])
    # The aggregator is not stuck either: a later event is a gap to seek back over, at once.
    offsets.applied(TP0, 6)
    async with asyncio.timeout(LIVE):
        assert await offsets.admit(TP0, 8) is False


async def test_the_aggregator_jumps_parked_runs_and_the_table_records_a_trailing_one():
    dead = DeadLetters()
    wrote = []
    p, offsets = parker(dead, wrote=lambda: wrote.append(1))
    offsets.applied(TP0, 0)  # expects 1
    await p.park(Acker(), bad(2, 3))  # 1 is valid and still queued for the agent
    assert offsets.expected(TP0) == 1 and not wrote  # not reached yet: no record
    assert await offsets.admit(TP0, 1)
    offsets.applied(TP0, 1)
    assert offsets.expected(TP0) == 4  # over the run
    await p.park(Acker(), bad(4, 5, 6))  # nothing valid after: recorded at once
    assert offsets.expected(TP0) == 7 and wrote == [1]
    await p.park(Acker(), bad(9))
    assert await offsets.admit(TP0, 8) is False  # 7 is missing: a gap, not a parked run
    assert await offsets.admit(TP0, 7)
