from __future__ import annotations

import json

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
