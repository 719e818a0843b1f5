from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import asyncpg


async def create_pool(dsn: str, *, min_size: int = 1, max_size: int = 5) -> asyncpg.Pool:
    """An asyncpg pool; jsonb columns are encoded/decoded as Python objects."""

    async def _init(conn: asyncpg.Connection) -> None:
        await conn.set_type_codec(
            "jsonb", encoder=json.dumps, decoder=json.loads, schema="pg_catalog"
        )

    pool = await asyncpg.create_pool(dsn, min_size=min_size, max_size=max_size, init=_init)
    assert pool is not None
    return pool


def audit_writer(pool: Any) -> Callable[[str, Mapping[str, Any]], Awaitable[None]]:
    """An `agents.base.AuditSink` writing to audit_log. A payload key `dedupe_key` makes the
    event idempotent (a re-delivered event is written once)."""

    async def write(event_type: str, payload: Mapping[str, Any]) -> None:
        body = dict(payload)
        dedupe_key = body.pop("dedupe_key", None)
        await pool.execute(
            "INSERT INTO audit_log (event_type, payload, dedupe_key)"
            " VALUES ($1, $2::text::jsonb, $3) ON CONFLICT (dedupe_key) DO NOTHING",
            event_type,
            json.dumps(body, default=str),
            dedupe_key,
        )

    return write
