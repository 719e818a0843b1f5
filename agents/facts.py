"""Known-wrong facts the validator flags (`known_wrong_fact`), loaded from `fact_overrides`.

Each row is a regex (matched case-insensitively) and the correction to show. Rows are cached per
pool for a short TTL: every draft needs them, they change rarely. A row whose pattern does not
compile is skipped with a warning rather than failing every review.
"""

from __future__ import annotations

import importlib
import logging
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

log = logging.getLogger("multiqa.facts")

DEFAULT_TTL_SECONDS = 30.0
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


class FactCache:
    """Loads enabled fact_overrides rows from an asyncpg pool, cached for `ttl_seconds`."""

    def __init__(self, ttl_seconds: float = DEFAULT_TTL_SECONDS) -> None:
        self.ttl_seconds = ttl_seconds
        # id(pool) -> (pool, loaded_at, facts). The pool is kept so its id cannot be reused by
        # another pool while the entry lives (asyncpg pools cannot be weakly referenced).
        self._entries: dict[int, tuple[Any, float, tuple[FactOverride, ...]]] = {}

    async def get(self, pool: Any) -> tuple[FactOverride, ...]:
        now = time.monotonic()
        cached = self._entries.get(id(pool))
        if cached is not None and cached[0] is pool and now - cached[1] < self.ttl_seconds:
            return cached[2]
        rows = await pool.fetch(
            "SELECT id, pattern, correction, niche FROM fact_overrides WHERE enabled ORDER BY id"
        )
        facts = facts_from_rows([dict(r) for r in rows])
        self._entries.pop(id(pool), None)
        while len(self._entries) >= _MAX_POOLS:
            self._entries.pop(next(iter(self._entries)))
        self._entries[id(pool)] = (pool, now, facts)
        return facts

    def clear(self) -> None:
        self._entries.clear()


_default_cache = FactCache()


async def load_facts(pool: Any, *, cache: FactCache | None = None) -> tuple[FactOverride, ...]:
    """The enabled known-wrong facts (every niche), through the process-wide cache."""
    return await (cache or _default_cache).get(pool)


def clear_fact_cache() -> None:
    _default_cache.clear()
