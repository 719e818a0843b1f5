"""Retrying: one backoff policy for everything that waits out a failure.

The sinks (PostgreSQL away), the worker (Kafka not up yet), the reviewers (the broker refusing a
result) and the model calls (a model answering badly) all retry the same way: capped exponential
backoff with a little jitter (so many workers that lost the same server do not come back at the
same instant), optionally bounded by a number of attempts and a deadline. This module imports
nothing of ours, so agents/ and streams/ share it without a layer crossing.

- `Backoff`: the delay before each retry (`Backoff.fixed` for a constant pause).
- `RetryPolicy`: a backoff plus the attempt cap and the deadline (None: no bound).
- `Attempts`: `async for attempt in Attempts(policy)` numbers the attempts from 1, sleeping the
  backoff between them; it ends when the cap is reached or the next pause would pass the deadline.
  For loops that decide themselves what a failed attempt is (agents.llm's `ask`).
- `retry(operation, policy=..., retry_on=...)`: awaits `operation()` until it succeeds; an
  exception `retry_on` refuses is raised at once, and when the attempts run out the last one is.

The clock and the sleep are parameters, so tests run a policy on a fake clock.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

__all__ = ["Attempts", "Backoff", "RetryPolicy", "retry"]

T = TypeVar("T")
Sleep = Callable[[float], Awaitable[object]]
Clock = Callable[[], float]


@dataclass(frozen=True)
class Backoff:
    """Delay before retry n (1-based): initial * factor**(n-1), capped, +/- jitter (a fraction)."""

    initial: float = 0.1
    factor: float = 2.0
    cap: float = 5.0
    jitter: float = 0.1

    @classmethod
    def fixed(cls, seconds: float) -> Backoff:
        """The same pause before every retry, no jitter."""
        return cls(initial=seconds, factor=1.0, cap=seconds, jitter=0.0)

    def delay(
        self, attempt: int, *, uniform: Callable[[float, float], float] = random.uniform
    ) -> float:
        base = min(self.cap, self.initial * self.factor ** max(0, attempt - 1))
        if self.jitter:
            base *= 1 + uniform(-self.jitter, self.jitter)
        return max(0.0, base)


@dataclass(frozen=True)
class RetryPolicy:
    """How long to keep trying: `backoff` between attempts, at most `max_attempts` attempts and
    no pause that would end more than `deadline` seconds after the first attempt began."""

    backoff: Backoff = Backoff()
    max_attempts: int | None = None
    deadline: float | None = None

    def __post_init__(self) -> None:
        if self.max_attempts is not None and self.max_attempts < 1:
            raise ValueError(f"max_attempts must be at least 1, got {self.max_attempts}")
        if self.deadline is not None and not self.deadline >= 0:
            raise ValueError(f"deadline must be 0 or more seconds, got {self.deadline}")


class Attempts:
    """Attempt numbers 1, 2, ... with the policy's pause before each but the first."""

    def __init__(
        self,
        policy: RetryPolicy,
        *,
        sleep: Sleep | None = None,
        clock: Clock | None = None,
        on_pause: Callable[[int, float], None] | None = None,
    ) -> None:
        self._policy = policy
        # Looked up when used, not bound at import: tests patch asyncio.sleep/time.monotonic.
        self._sleep = sleep or (lambda seconds: asyncio.sleep(seconds))
        self._clock = clock or (lambda: time.monotonic())
        self._on_pause = on_pause
        self._started: float | None = None
        self.attempt = 0

    def __aiter__(self) -> Attempts:
        return self

    async def __anext__(self) -> int:
        policy = self._policy
        if self._started is None:
            self._started = self._clock()
        elif policy.max_attempts is not None and self.attempt >= policy.max_attempts:
            raise StopAsyncIteration
        else:
            delay = policy.backoff.delay(self.attempt)
            if policy.deadline is not None and (
                self._clock() + delay > self._started + policy.deadline
            ):
                raise StopAsyncIteration
            if self._on_pause is not None:
                self._on_pause(self.attempt, delay)  # e.g. log "retrying in ..." before waiting
            await self._sleep(delay)
        self.attempt += 1
        return self.attempt


async def retry(
    operation: Callable[[], Awaitable[T]],
    *,
    policy: RetryPolicy,
    retry_on: Callable[[BaseException], bool],
    attempt_timeout: float | None = None,
    on_retry: Callable[[int, BaseException, float], None] | None = None,
    sleep: Sleep | None = None,
    clock: Clock | None = None,
) -> T:
    """Await `operation()` until it succeeds and return its result.

    An exception for which `retry_on` is false is raised at once; after one it accepts,
    `on_retry(attempt, exception, delay)` is called and the operation tried again after the
    policy's pause. When the policy allows no more attempts, the last exception is raised. Each
    attempt is bounded by `attempt_timeout` (its TimeoutError goes to `retry_on` like any
    other), so a half-open connection cannot hang the caller. Cancellation is never retried."""
    failure: BaseException | None = None

    def paused(attempt: int, delay: float) -> None:
        if on_retry is not None and failure is not None:
            on_retry(attempt, failure, delay)

    async for _ in Attempts(policy, sleep=sleep, clock=clock, on_pause=paused):
        try:
            if attempt_timeout is None:
                return await operation()
            async with asyncio.timeout(attempt_timeout):
                return await operation()
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            if not retry_on(exc):
                raise
            failure = exc
    assert failure is not None  # Attempts yields at least once
    raise failure
