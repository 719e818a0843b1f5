"""The real PostgreSQL server through asyncpg, and the per-test database of the harness."""

from __future__ import annotations

import asyncpg


async def test_asyncpg_query_on_own_pool(pg_pool):
    async with pg_pool.acquire() as conn:
        await conn.execute("CREATE TABLE notes (id serial PRIMARY KEY, body text NOT NULL)")
        await conn.executemany("INSERT INTO notes (body) VALUES ($1)", [("a",), ("b",)])
        rows = await conn.fetch("SELECT body FROM notes ORDER BY id")
        assert [r["body"] for r in rows] == ["a", "b"]
        assert await conn.fetchval("SELECT 40 + $1::int", 2) == 42
        assert (await conn.fetchval("SELECT current_database()")).startswith("t_test_asyncpg")


async def test_each_test_gets_a_fresh_database(pg_dsn, postgres_dsn):
    own = await asyncpg.connect(pg_dsn)
    shared = await asyncpg.connect(postgres_dsn)
    try:
        assert await own.fetchval("SELECT current_database()") != await shared.fetchval(
            "SELECT current_database()"
        )
        # Empty: nothing from other tests (the previous test's `notes` table is elsewhere).
        tables = await own.fetchval(
            "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'"
        )
        assert tables == 0
        await own.execute("CREATE TABLE only_here (x int)")
        assert await shared.fetchval("SELECT to_regclass('public.only_here')") is None
    finally:
        await own.close()
        await shared.close()
