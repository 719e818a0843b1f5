"""The crash tests' forensics read a worker's task dump (mode's `cry`, what a worker prints on
SIGUSR1): the review path's stuck tasks are picked out of it, frames only."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path

from mode.utils.logging import cry

from streams.runtime._acks import OrderedAcks
from tests.streams.crash_forensics import review_task_stacks


async def test_a_task_dump_yields_the_review_path_tasks_and_their_frames(tmp_path: Path):
    acked: list[str] = []

    async def ack(event: str) -> None:
        acked.append(event)

    never = asyncio.get_running_loop().create_future()  # work that never finishes: stuck
    acks = OrderedAcks(ack, name="reviewer critic")
    await acks.add("draft-1", [never])
    await asyncio.sleep(0)  # the lane task now waits on `never`
    unrelated = asyncio.ensure_future(asyncio.sleep(60))
    try:
        dump = io.StringIO()
        cry(file=dump)
        log = tmp_path / "worker.log"
        log.write_text("[INFO] worker ready\n" + dump.getvalue())
        lines = review_task_stacks([tmp_path / "missing.log", log])
    finally:
        unrelated.cancel()
        await acks.close()
    assert acked == []
    assert lines[0].startswith("--- worker.log: 1 of ")
    assert any(line.startswith("TASK _run") for line in lines)  # OrderedAcks' lane task
    assert any("_acks.py" in line for line in lines[1:])
    assert not any("LOCAL VARIABLES" in line or "sleep" in line for line in lines)


def test_no_dump_in_the_logs_gives_nothing(tmp_path: Path):
    log = tmp_path / "worker.log"
    log.write_text("[INFO] worker ready\n")
    assert review_task_stacks([log]) == []
