"""A fake clock for code that waits: `monotonic` and `sleep` in one, sleeping moves the clock at
once (no test waits, no timed assertion). Pass them to the code (agents.retry takes `sleep` and
`clock`) or patch `time.monotonic` / `asyncio.sleep` with them."""

from __future__ import annotations

import asyncio

_real_sleep = asyncio.sleep  # taken before any test patches asyncio.sleep


class FakeClock:
    def __init__(self, now: float = 100.0) -> None:
        self.start = self.now = now
        self.slept: list[float] = []  # every pause asked for, rounded to the microsecond

    def monotonic(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.slept.append(round(seconds, 6))
        self.now += seconds
        await _real_sleep(0)  # let the other tasks run, as a real sleep would
