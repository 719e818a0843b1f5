"""Retry a database write until it succeeds, with the one backoff policy (agents.retry).

The stream's sinks must never drop an event because PostgreSQL is briefly away (restarting,
failing over, out of connections): the write is retried for as long as it takes, each retry
logged, and the caller's await only returns once the row is in. Errors that retrying cannot fix
(a value the column refuses) are raised at once as `SinkError`, so the caller can dead-letter.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import TypeVar

import asyncpg

from agents.retry import Backoff, RetryPolicy, retry
from schemas import MultiqaError

log = logging.getLogger(__name__)

T = TypeVar("T")
_DEFAULT_BACKOFF = Backoff()  # 0.1 s doubling up to 5 s, +/- 10%


class SinkError(MultiqaError, RuntimeError):
    """A write failed for a reason retrying cannot fix (the record, not the database, is at
    fault). The message names the record; `__cause__` is the database error."""


# The server is away, restarting, refusing connections, or shed our transaction: all of these
# heal on their own (or after an operator acts), so the write waits for them.
_TRANSIENT: tuple[type[BaseException], ...] = (
    OSError,  # ConnectionRefusedError, ConnectionResetError, socket timeouts, DNS failures
    TimeoutError,
    asyncpg.PostgresConnectionError,
    asyncpg.CannotConnectNowError,  # "the database system is starting up / shutting down"
    asyncpg.exceptions.OperatorInterventionError,  # admin/crash shutdown, cancelled statement
    asyncpg.exceptions.InsufficientResourcesError,  # too many connections, disk full
    asyncpg.exceptions.TransactionRollbackError,  # serialization failure, deadlock
)
# The schema is not there yet (worker started before `multiqa db migrate`): wait for the operator.
_MISSING_SCHEMA: tuple[type[BaseException], ...] = (
    asyncpg.exceptions.UndefinedTableError,
    asyncpg.exceptions.UndefinedColumnError,
)


def is_transient(exc: BaseException) -> bool:
    """True when retrying the same write later can succeed."""
    if isinstance(exc, _TRANSIENT + _MISSING_SCHEMA):
        return True
    # asyncpg reports a connection that died under us as InterfaceError("connection is closed");
    # other InterfaceErrors are programming errors and must not loop forever.
    return isinstance(exc, asyncpg.InterfaceError) and "closed" in str(exc)


async def retry_forever(
    operation: Callable[[], Awaitable[T]],
    *,
    what: str,
    backoff: Backoff = _DEFAULT_BACKOFF,
    attempt_timeout: float | None = 30.0,
    on_retry: Callable[[int, BaseException], None] | None = None,
) -> T:
    """Await `operation()` until it succeeds.

    Transient failures (see `is_transient`) are logged and retried after `backoff.delay(n)`,
    forever: a sink that gives up would lose the event, and the stream must not commit an offset
    for a write that did not happen. Each attempt is bounded by `attempt_timeout` so a half-open
    connection cannot hang the caller. Any other exception becomes `SinkError`. Cancelling the
    caller (worker shutdown) interrupts the wait; the event is then simply not acknowledged.
    """
    attempts = 0

    def retrying(attempt: int, exc: BaseException, delay: float) -> None:
        nonlocal attempts
        attempts = attempt
        hint = " (run `multiqa db migrate`)" if isinstance(exc, _MISSING_SCHEMA) else ""
        log.warning(
            "PostgreSQL unavailable writing %s (attempt %d: %s: %s)%s; retrying in %.2f s",
            what,
            attempt,
            type(exc).__name__,
            str(exc)[:200] or "-",
            hint,
            delay,
        )
        if on_retry is not None:
            on_retry(attempt, exc)

    try:
        result = await retry(
            operation,
            policy=RetryPolicy(backoff),  # no attempt cap, no deadline: see above
            retry_on=is_transient,
            attempt_timeout=attempt_timeout,
            on_retry=retrying,
        )
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        raise SinkError(f"writing {what} failed: {type(exc).__name__}: {exc}") from exc
    if attempts:
        log.info("wrote %s after %d attempts", what, attempts + 1)
    return result
