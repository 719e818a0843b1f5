"""`Sink`: what the stream's agents await to persist an event before acknowledging it."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from schemas.records import DeadLetter, QADecision, ReviewerResult
from streams.db import create_pool
from streams.sinks._persist import (
    persist_audit,
    persist_dead_letter,
    persist_decision,
    persist_review,
)
from streams.sinks._retry import Backoff, retry_forever

log = logging.getLogger("multiqa.sinks")


class Sink:
    """Persists decisions, reviews (with their costs), dead letters and audit events to
    PostgreSQL, idempotently, retrying while the database is unavailable.

    Every `write_*` returns only once the row is committed (or was already there): an agent that
    awaits it before moving to its next event therefore acknowledges, and Faust commits, only
    offsets whose writes succeeded. While the database is down the await simply takes longer;
    nothing is dropped. A record the database refuses for good raises `SinkError`.

        sink = await Sink.connect(dsn)
        async for decision in stream:
            await sink.write_decision(decision)
    """

    def __init__(
        self,
        pool: Any,
        *,
        backoff: Backoff | None = None,
        attempt_timeout: float | None = 30.0,
        owns_pool: bool = False,
    ) -> None:
        self.pool = pool
        self.backoff = backoff or Backoff()
        self.attempt_timeout = attempt_timeout
        self._owns_pool = owns_pool
        # Counters for logs, metrics and tests: rows written, re-deliveries skipped, retries.
        self.written = 0
        self.duplicates = 0
        self.retries = 0

    @classmethod
    async def connect(
        cls,
        dsn: str,
        *,
        backoff: Backoff | None = None,
        attempt_timeout: float | None = 30.0,
        max_size: int = 5,
    ) -> Sink:
        """Open a pool for `dsn`, waiting (with backoff, logged) while the database is down, so a
        worker may start before its database."""
        chosen = backoff or Backoff()
        pool = await retry_forever(
            lambda: create_pool(dsn, max_size=max_size),
            what="(connecting the sink's pool)",
            backoff=chosen,
            attempt_timeout=attempt_timeout,
        )
        return cls(pool, backoff=chosen, attempt_timeout=attempt_timeout, owns_pool=True)

    async def close(self) -> None:
        if self._owns_pool:
            await self.pool.close()

    async def __aenter__(self) -> Sink:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    async def write_decision(self, decision: QADecision) -> bool:
        """Persist a decision and its feedback; True if new, False if already recorded."""
        return await self._run(
            f"decision {decision.draft_id} v{decision.version}",
            lambda: persist_decision(self.pool, decision),
        )

    async def write_review(self, result: ReviewerResult) -> bool:
        """Persist a reviewer result and its cost; True if new, False if already recorded."""
        return await self._run(
            f"review {result.reviewer} of {result.draft_id} v{result.version}",
            lambda: persist_review(self.pool, result),
        )

    async def write_dead_letter(self, dead: DeadLetter) -> bool:
        """Record a dead letter in audit_log (once per consumer and source offset)."""
        return await self._run(
            f"dead letter {dead.source_topic}[{dead.source_partition}]@{dead.source_offset}",
            lambda: persist_dead_letter(self.pool, dead),
        )

    async def write_audit(
        self, event_type: str, payload: Mapping[str, Any], *, dedupe_key: str | None = None
    ) -> bool:
        """Write an audit event; with a dedupe_key it is written once however often delivered."""
        return await self._run(
            f"audit event {event_type}",
            lambda: persist_audit(self.pool, event_type, payload, dedupe_key=dedupe_key),
        )

    async def _run(self, what: str, op: Callable[[], Awaitable[bool]]) -> bool:
        def count_retry(_attempt: int, _exc: BaseException) -> None:
            self.retries += 1

        new = await retry_forever(
            op,
            what=what,
            backoff=self.backoff,
            attempt_timeout=self.attempt_timeout,
            on_retry=count_retry,
        )
        if new:
            self.written += 1
        else:
            self.duplicates += 1
            log.debug("%s was already recorded", what)
        return new
