"""agents.retry, the one retry policy, on a fake clock: growth and cap, jitter bounds, the
attempt cap, the deadline, what is not retried."""

from __future__ import annotations

import asyncio

import pytest

from agents.retry import Attempts, Backoff, RetryPolicy, retry
from tests.helpers.clock import FakeClock


def failing(times: int, exc: BaseException, result: str = "done"):
    calls: list[int] = []

    async def operation() -> str:
        calls.append(1)
        if len(calls) <= times:
            raise exc
        return result

    return operation, calls


def test_backoff_grows_is_capped_and_fixed_is_constant():
    backoff = Backoff(initial=0.5, factor=2.0, cap=3.0, jitter=0.0)
    assert [backoff.delay(n) for n in range(1, 6)] == [0.5, 1.0, 2.0, 3.0, 3.0]
    assert [Backoff.fixed(0.25).delay(n) for n in (1, 2, 9)] == [0.25, 0.25, 0.25]


def test_jitter_stays_within_its_fraction_both_ways():
    backoff = Backoff(initial=2.0, cap=2.0, jitter=0.25)
    assert backoff.delay(1, uniform=lambda lo, hi: lo) == pytest.approx(1.5)
    assert backoff.delay(1, uniform=lambda lo, hi: hi) == pytest.approx(2.5)
    delays = {backoff.delay(1) for _ in range(200)}
    assert all(1.5 <= d <= 2.5 for d in delays) and len(delays) > 1


async def test_retries_until_success_pausing_the_backoff_between():
    clock = FakeClock()
    operation, calls = failing(3, OSError("down"))
    seen: list[tuple[int, str, float]] = []
    result = await retry(
        operation,
        policy=RetryPolicy(Backoff(initial=1.0, factor=2.0, cap=10.0, jitter=0.0)),
        retry_on=lambda exc: isinstance(exc, OSError),
        on_retry=lambda n, exc, delay: seen.append((n, str(exc), delay)),
        sleep=clock.sleep,
        clock=clock.monotonic,
    )
    assert result == "done" and len(calls) == 4
    assert clock.slept == [1.0, 2.0, 4.0]
    assert seen == [(1, "down", 1.0), (2, "down", 2.0), (3, "down", 4.0)]


async def test_the_attempt_cap_raises_the_last_failure():
    clock = FakeClock()
    operation, calls = failing(10, OSError("still down"))
    with pytest.raises(OSError, match="still down"):
        await retry(
            operation,
            policy=RetryPolicy(Backoff.fixed(1.0), max_attempts=3),
            retry_on=lambda exc: True,
            sleep=clock.sleep,
            clock=clock.monotonic,
        )
    assert len(calls) == 3 and clock.slept == [1.0, 1.0]


async def test_no_pause_ends_past_the_deadline():
    clock = FakeClock()
    operation, calls = failing(10, TimeoutError())
    with pytest.raises(TimeoutError):
        await retry(
            operation,
            policy=RetryPolicy(Backoff(initial=1.0, factor=2.0, cap=60.0, jitter=0.0), deadline=5),
            retry_on=lambda exc: True,
            sleep=clock.sleep,
            clock=clock.monotonic,
        )
    # 1 + 2 = 3 s; the next pause (4 s) would end at 7 s, past the 5 s deadline.
    assert clock.slept == [1.0, 2.0] and len(calls) == 3
    assert clock.now - clock.start <= 5


async def test_an_error_retrying_cannot_fix_is_raised_at_once():
    clock = FakeClock()
    operation, calls = failing(1, ValueError("bad record"))
    with pytest.raises(ValueError, match="bad record"):
        await retry(
            operation,
            policy=RetryPolicy(),
            retry_on=lambda exc: isinstance(exc, OSError),
            sleep=clock.sleep,
            clock=clock.monotonic,
        )
    assert len(calls) == 1 and clock.slept == []


async def test_a_hung_attempt_times_out_and_is_retried():
    clock = FakeClock()
    calls: list[int] = []

    async def hangs_once() -> str:
        calls.append(1)
        if len(calls) == 1:
            await asyncio.Event().wait()
        return "done"

    result = await retry(
        hangs_once,
        policy=RetryPolicy(Backoff.fixed(0.5)),
        retry_on=lambda exc: isinstance(exc, TimeoutError),
        attempt_timeout=0.05,
        sleep=clock.sleep,
        clock=clock.monotonic,
    )
    assert result == "done" and len(calls) == 2 and clock.slept == [0.5]


async def test_cancelling_the_caller_is_not_retried():
    started = asyncio.Event()

    async def hangs() -> None:
        started.set()
        await asyncio.Event().wait()

    task = asyncio.ensure_future(retry(hangs, policy=RetryPolicy(), retry_on=lambda exc: True))
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_attempts_numbers_from_one_and_honours_the_cap():
    clock = FakeClock()
    numbers = [
        n
        async for n in Attempts(
            RetryPolicy(Backoff.fixed(2.0), max_attempts=3),
            sleep=clock.sleep,
            clock=clock.monotonic,
        )
    ]
    assert numbers == [1, 2, 3] and clock.slept == [2.0, 2.0]


def test_a_policy_that_allows_no_attempt_is_refused():
    with pytest.raises(ValueError, match="max_attempts"):
        RetryPolicy(max_attempts=0)
    with pytest.raises(ValueError, match="deadline"):
        RetryPolicy(deadline=float("nan"))
