"""`Sink`: what the stream's agents await to persist an event before acknowledging it."""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from agents.audit import persist_audit
from agents.retry import Backoff
from schemas.records import DeadLetter, DraftSubmitted, QADecision, ReviewerResult
from streams.runtime.db import create_pool
from streams.runtime.observe._metrics import record_sink_write
from streams.runtime.sinks._persist import (
    persist_dead_letters,
    persist_decisions,
    persist_reviews,
)
from streams.runtime.sinks._retry import retry_forever

log = logging.getLogger(__name__)


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
        return await self.write_decisions([decision]) == 1

    async def write_decisions(self, decisions: Sequence[QADecision]) -> int:
        """Persist a batch of decisions in one transaction; returns how many were new."""
        if not decisions:
            return 0
        return await self._run(
            _describe("decision", [(d.draft_id, d.version) for d in decisions]),
            lambda: persist_decisions(self.pool, decisions),
            len(decisions),
            kind="decisions",
        )

    async def write_review(self, result: ReviewerResult) -> bool:
        """Persist a reviewer result and its cost; True if new, False if already recorded."""
        return await self.write_reviews([result]) == 1

    async def write_reviews(self, results: Sequence[ReviewerResult]) -> int:
        """Persist a batch of reviewer results (and costs) in one transaction; returns how many
        were new."""
        if not results:
            return 0
        what = (
            f"review {results[0].reviewer} of {results[0].draft_id} v{results[0].version}"
            if len(results) == 1
            else _describe("review", [(r.draft_id, r.version) for r in results])
        )
        return await self._run(
            what, lambda: persist_reviews(self.pool, results), len(results), kind="reviews"
        )

    async def write_drafts(self, drafts: Sequence[DraftSubmitted]) -> int:
        """Persist draft versions in qa_drafts (first copy stands); returns how many were new."""
        if not drafts:
            return 0
        # Here, not at the top: streams.history reads the sinks' text helpers (import cycle).
        from streams.history._drafts import persist_drafts

        return await self._run(
            _describe("draft", [(d.draft_id, d.version) for d in drafts]),
            lambda: persist_drafts(self.pool, drafts),
            len(drafts),
            kind="drafts",
        )

    async def write_dead_letter(self, dead: DeadLetter) -> bool:
        """Record a dead letter in audit_log (once per consumer and source offset)."""
        return await self.write_dead_letters([dead]) == 1

    async def write_dead_letters(self, batch: Sequence[DeadLetter]) -> int:
        """Record dead letters in audit_log in one transaction; returns how many were new."""
        if not batch:
            return 0
        first = batch[0]
        what = f"dead letter {first.source_topic}[{first.source_partition}]@{first.source_offset}"
        if len(batch) > 1:
            what = f"{len(batch)} dead letters from {what}"
        return await self._run(
            what, lambda: persist_dead_letters(self.pool, batch), len(batch), kind="dead_letters"
        )

    async def write_audit(
        self, event_type: str, payload: Mapping[str, Any], *, dedupe_key: str | None = None
    ) -> bool:
        """Write an audit event; with a dedupe_key it is written once however often delivered."""
        return bool(
            await self._run(
                f"audit event {event_type}",
                lambda: persist_audit(self.pool, event_type, payload, dedupe_key=dedupe_key),
                1,
                kind="audit",
            )
        )

    async def _run(
        self,
        what: str,
        op: Callable[[], Awaitable[int | bool]],
        total: int,
        *,
        kind: str = "other",
    ) -> int:
        retries = 0
        started = time.perf_counter()

        def count_retry(_attempt: int, _exc: BaseException) -> None:
            nonlocal retries
            retries += 1
            self.retries += 1

        new = int(
            await retry_forever(
                op,
                what=what,
                backoff=self.backoff,
                attempt_timeout=self.attempt_timeout,
                on_retry=count_retry,
            )
        )
        self.written += new
        self.duplicates += total - new
        record_sink_write(kind, time.perf_counter() - started, new, total, retries)
        if new < total:
            log.debug("%s: %d of %d already recorded", what, total - new, total)
        return new


def _describe(kind: str, keys: Sequence[tuple[str, int]]) -> str:
    draft_id, version = keys[0]
    if len(keys) == 1:
        return f"{kind} {draft_id} v{version}"
    return f"{len(keys)} {kind}s ({draft_id} v{version}, ...)"
