"""rereview's rate limit for paid models, on a clock the test moves (no timed assertion): the
starts of paid reviews are spaced 1/rate apart across every concurrent task; 0 means no limit;
free reviewers never wait."""

from __future__ import annotations

import asyncio
import itertools
import time

import pytest

from agents.base import Deps, ReviewerSpec
from agents.settings import Settings
from schemas import DraftSubmitted, Provider, ReviewerResult
from streams.history._rereview import RateLimit, Run
from tests.helpers.clock import FakeClock


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    fake = FakeClock()
    # The modules _rereview reads them from (its `time` and `asyncio` are these).
    monkeypatch.setattr(time, "monotonic", fake.monotonic)
    monkeypatch.setattr(asyncio, "sleep", fake.sleep)
    return fake


async def test_starts_are_spaced_by_the_rate_across_tasks(clock: FakeClock) -> None:
    limit = RateLimit(4.0)
    starts: list[float] = []

    async def start() -> None:
        await limit.wait()
        starts.append(clock.now)

    await asyncio.gather(*(start() for _ in range(5)))
    assert [round(b - a, 6) for a, b in itertools.pairwise(starts)] == [0.25] * 4
    assert starts[0] == 100.0  # the first one does not wait


async def test_no_limit_never_waits(clock: FakeClock) -> None:
    limit = RateLimit(0)
    for _ in range(10):
        await limit.wait()
    assert clock.slept == []


async def test_only_paid_reviewers_wait(clock: FakeClock) -> None:
    calls: list[str] = []

    def reviewer(name: str, paid: bool) -> ReviewerSpec:
        async def review(draft: DraftSubmitted, settings: Settings, deps: Deps) -> ReviewerResult:
            calls.append(name)
            return ReviewerResult(name, True, 90.0, "fine", Provider.PROGRAMMATIC)

        return ReviewerSpec(name, Provider.PROGRAMMATIC, review, lambda _s: True, paid=paid)

    run = Run([reviewer("free", False), reviewer("paid", True)], Settings(), Deps(), rate=2.0)
    limit = RateLimit(2.0)
    for n in range(3):
        await run._one(DraftSubmitted(f"d-{n}", 1, "T", "text"), None, [], limit)
    assert calls == ["free", "paid"] * 3
    assert clock.slept == [0.5, 0.5]  # the paid reviewer of drafts 2 and 3, nothing for free
