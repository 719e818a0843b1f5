"""An exception while the aggregator applies an event loses nothing: `HandleGuard` retries it,
and parks it with the reason when it keeps failing.

Without it, an exception inside `Aggregator.handle` ended the agent; Faust restarted it without
delivering that event again, and when it was the first event of its partition in the table the
offsets check (streams._offsets) had nothing to seek back to: the event was lost (it happened:
the changelog's `PartitionsMismatch` race, issue-13 notes). Now, per event:

- an error of the environment (the broker, the network, a timeout: `is_environment`) is retried
  with backoff for as long as it lasts, while this worker still owns the event's partition;
- any other error is retried a few times (a transient failure we did not foresee), then taken as
  the event's own fault: the event is dead-lettered with the error as its reason (consumer
  "aggregator"), its offset is recorded as done, and the agent moves on. Fail closed: that draft
  is not decided; the dead letter says why;
- when the partition goes to another worker meanwhile (a rebalance), the event is left
  unacknowledged, to be applied by the new owner.

Every attempt applies the whole event again: the aggregator's handling is idempotent (a result
or draft already in the entry is a duplicate, a stored decision is published by the timer).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from aiokafka.errors import KafkaError
from faust.exceptions import FaustError
from faust.types import TP, EventT
from faust.types.tuples import Message

from agents.retry import Backoff
from schemas import MultiqaError

log = logging.getLogger(__name__)

# Attempts before an error that is not the environment's is taken as the event's fault.
ATTEMPTS = 3
_BACKOFF = Backoff(initial=0.2, factor=2.0, cap=5.0)  # the one policy (agents.retry)


class HandleFailedError(MultiqaError, RuntimeError):
    """The reason in the dead letter of an event the aggregator could not apply."""


def is_environment(exc: BaseException) -> bool:
    """True for failures of what the aggregator depends on (retried while they last)."""
    return isinstance(exc, KafkaError | FaustError | OSError | TimeoutError)


class HandleGuard:
    """Runs `handle(event)` so that a failure never loses the event (module docstring)."""

    def __init__(
        self,
        handle: Callable[[EventT[Any]], Awaitable[None]],
        *,
        owned: Callable[[TP], bool],
        park: Callable[[Message, BaseException], Awaitable[None]],
        attempts: int = ATTEMPTS,
        sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
    ) -> None:
        self._handle = handle
        self._owned = owned
        self._park = park
        self.attempts = attempts
        self._sleep = sleep
        self.retries = 0
        self.parked = 0

    async def handle(self, event: EventT[Any]) -> bool:
        """Apply `event`; False when it was left unapplied (its partition is gone)."""
        message = event.message
        failures = 0
        while True:
            try:
                await self._handle(event)
                return True
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                failures += 1
                where = f"{message.topic}[{message.partition}]@{message.offset}"
                if not self._owned(message.tp):
                    log.warning("aggregator: %s failed (%r); its partition is gone", where, exc)
                    return False
                environment = is_environment(exc)
                if environment or failures < self.attempts:
                    delay = _BACKOFF.delay(failures)
                    self.retries += 1
                    log.warning(
                        "aggregator: applying %s failed (%s: %s); retrying in %.1f s",
                        where,
                        type(exc).__name__,
                        exc,
                        delay,
                        exc_info=not environment,
                    )
                    await self._sleep(delay)
                    continue
                log.error(
                    "aggregator: applying %s failed %d times; dead-lettering it",
                    where,
                    failures,
                    exc_info=True,
                )
                reason = HandleFailedError(
                    f"the aggregator could not apply it ({failures} attempts): "
                    f"{type(exc).__name__}: {exc}"
                )
                await self._park(message, reason)
                self.parked += 1
                return True
