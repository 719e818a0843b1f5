"""Known-wrong facts the validator flags (`known_wrong_fact`), loaded from `fact_overrides`.

Each row is a regex (matched case-insensitively) and the correction to show. Rows are cached per
pool for a short TTL: every draft needs them, they change rarely. A row whose pattern does not
compile is skipped with a warning rather than failing every review.

Fail closed, like the settings service: when the table cannot be read (database down, slow,
table missing), the last copy read from that pool is served (`LoadedFacts.stale` says since when
and why) and the database is asked again at most every `retry_seconds`; with no copy at all,
`FactsUnavailable` is raised and the validator reports an error, so a draft is never checked
against "no facts" because the facts could not be read.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from schemas import MultiqaError

log = logging.getLogger(__name__)

DEFAULT_TTL_SECONDS = 30.0
# During an outage: how often the database is asked again, and how long one read may take.
DEFAULT_RETRY_SECONDS = 5.0
DEFAULT_READ_TIMEOUT_SECONDS = 5.0
# Patterns come from operators, not drafts, but a pattern is applied to untrusted text: refuse
# absurdly long ones outright.
MAX_PATTERN_CHARS = 500
_MAX_POOLS = 8


@dataclass(frozen=True)
class FactOverride:
    pattern: re.Pattern[str]
    correction: str
    niche: str | None = None
    id: int | None = None
    # A lowercase literal every match contains (None when the pattern has no such run): the
    # validator skips the pattern when the literal is absent, which is most drafts.
    literal: str | None = None

    @classmethod
    def build(
        cls, pattern: str, correction: str, niche: str | None = None, id: int | None = None
    ) -> FactOverride:
        """Compile a fact; raises ValueError with a clear message for a bad pattern."""
        if not pattern or len(pattern) > MAX_PATTERN_CHARS:
            raise ValueError(f"fact pattern must be 1-{MAX_PATTERN_CHARS} characters")
        try:
            compiled = re.compile(pattern, re.IGNORECASE)
        except re.error as exc:
            raise ValueError(f"fact pattern {pattern!r} is not a valid regex: {exc}") from None
        return cls(compiled, correction, niche or None, id, _required_literal(pattern))

    def applies_to(self, niche: str | None) -> bool:
        return self.niche is None or self.niche == niche


def _required_literal(pattern: str) -> str | None:
    """The longest run of plain characters at the top level of the pattern (3+ characters)."""
    try:
        # The stdlib's own regex parser (private, so reached dynamically; any failure = no gate).
        parser = importlib.import_module("re._parser")
        parsed = parser.parse(pattern, re.IGNORECASE)
        literal_op = importlib.import_module("re._constants").LITERAL
    except Exception:
        return None
    best = run = ""
    for op, arg in parsed:
        if op is literal_op:
            run += chr(arg)
            continue
        best, run = max(best, run, key=len), ""
    best = max(best, run, key=len)
    return best.lower() if len(best) >= 3 else None


def facts_from_rows(rows: Sequence[Mapping[str, Any]]) -> tuple[FactOverride, ...]:
    facts: list[FactOverride] = []
    for row in rows:
        try:
            facts.append(
                FactOverride.build(
                    str(row["pattern"]), str(row["correction"]), row.get("niche"), row.get("id")
                )
            )
        except ValueError as exc:
            log.warning("fact_overrides row %s skipped: %s", row.get("id"), exc)
    return tuple(facts)


class FactsUnavailable(MultiqaError):
    """fact_overrides could not be read and no earlier copy exists."""


@dataclass(frozen=True)
class LoadedFacts:
    facts: tuple[FactOverride, ...]
    # Why these are a last-known-good copy rather than a fresh read (None: fresh).
    stale: str | None = None


@dataclass
class _Entry:
    pool: Any  # kept so its id cannot be reused by another pool while the entry lives
    loaded_at: float
    facts: tuple[FactOverride, ...]
    failed_at: float | None = None
    failure: str = ""


class FactCache:
    """Loads enabled fact_overrides rows from an asyncpg pool, cached for `ttl_seconds`, with the
    last-known-good copy served while the table cannot be read (module docstring)."""

    def __init__(
        self,
        ttl_seconds: float = DEFAULT_TTL_SECONDS,
        *,
        retry_seconds: float = DEFAULT_RETRY_SECONDS,
        read_timeout_seconds: float = DEFAULT_READ_TIMEOUT_SECONDS,
        clock: Any = time.monotonic,
    ) -> None:
        self.ttl_seconds = ttl_seconds
        self.retry_seconds = retry_seconds
        self.read_timeout_seconds = read_timeout_seconds
        self._clock = clock
        # id(pool) -> entry (asyncpg pools cannot be weakly referenced).
        self._entries: dict[int, _Entry] = {}

    async def get(self, pool: Any) -> tuple[FactOverride, ...]:
        return (await self.load(pool)).facts

    async def load(self, pool: Any) -> LoadedFacts:
        """The facts, fresh or a last-known-good copy; FactsUnavailable when neither exists."""
        now = self._clock()
        entry = self._entries.get(id(pool))
        if entry is not None and entry.pool is not pool:
            entry = None
        if entry is not None:
            if entry.failed_at is None and now - entry.loaded_at < self.ttl_seconds:
                return LoadedFacts(entry.facts)
            if entry.failed_at is not None and now - entry.failed_at < self.retry_seconds:
                return LoadedFacts(entry.facts, self._stale(entry, now))
        try:
            async with asyncio.timeout(self.read_timeout_seconds):
                rows = await pool.fetch(
                    "SELECT id, pattern, correction, niche FROM fact_overrides"
                    " WHERE enabled ORDER BY id"
                )
        except Exception as exc:
            failure = _describe(exc, self.read_timeout_seconds)
            if entry is None:
                raise FactsUnavailable(
                    f"fact_overrides unreadable and no earlier copy: {failure}"
                ) from exc
            if entry.failed_at is None:
                log.warning("fact_overrides unreadable, serving the last copy: %s", failure)
            entry.failed_at, entry.failure = now, failure
            return LoadedFacts(entry.facts, self._stale(entry, now))
        facts = facts_from_rows([dict(r) for r in rows])
        if entry is not None and entry.failed_at is not None:
            log.info("fact_overrides readable again (%d facts)", len(facts))
        self._entries.pop(id(pool), None)
        while len(self._entries) >= _MAX_POOLS:
            self._entries.pop(next(iter(self._entries)))
        self._entries[id(pool)] = _Entry(pool, now, facts)
        return LoadedFacts(facts)

    @staticmethod
    def _stale(entry: _Entry, now: float) -> str:
        return (
            f"fact_overrides unreadable ({entry.failure}); checked against the "
            f"{len(entry.facts)} facts read {now - entry.loaded_at:.0f}s ago"
        )

    def clear(self) -> None:
        self._entries.clear()


def _describe(exc: BaseException, timeout: float) -> str:
    if isinstance(exc, TimeoutError):
        return f"no answer within {timeout:g}s"
    return f"{type(exc).__name__}: {exc}"[:300]


_default_cache = FactCache()


async def load_facts(pool: Any, *, cache: FactCache | None = None) -> tuple[FactOverride, ...]:
    """The enabled known-wrong facts (every niche), through the process-wide cache (a
    last-known-good copy during an outage); FactsUnavailable when there is none."""
    return await (cache or _default_cache).get(pool)


async def load_facts_checked(pool: Any, *, cache: FactCache | None = None) -> LoadedFacts:
    """Like `load_facts`, saying whether the facts are a last-known-good copy, and why."""
    return await (cache or _default_cache).load(pool)


def clear_fact_cache() -> None:
    _default_cache.clear()
