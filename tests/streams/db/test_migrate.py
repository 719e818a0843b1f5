"""Migrations on the real PostgreSQL server: applied once each, in order, safe concurrently."""

from __future__ import annotations

import asyncio

import pytest

from streams.runtime.db import (
    _migrate,
    applied_migrations,
    available_migrations,
    create_pool,
    migrate,
)

EXPECTED_TABLES = {
    "app_settings",
    "fact_overrides",
    "pipeline_tasks",
    "pipeline_versions",
    "qa_decisions",
    "qa_reviews",
    "cost_logs",
    "audit_log",
    "schema_migrations",
}


async def _tables(pool) -> set[str]:
    rows = await pool.fetch(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'"
    )
    return {r["table_name"] for r in rows}


async def test_migrate_creates_every_table_once(pg_dsn: str) -> None:
    pool = await create_pool(pg_dsn)
    try:
        versions = [m.version for m in available_migrations()]
        assert versions == sorted(versions) and versions[0] == 1
        assert await migrate(pool) == versions
        assert await _tables(pool) >= EXPECTED_TABLES
        # A second run applies nothing and changes nothing.
        assert await migrate(pool) == []
        assert await applied_migrations(pool) == versions
    finally:
        await pool.close()


async def test_concurrent_workers_migrate_without_racing(pg_dsn: str) -> None:
    pools = [await create_pool(pg_dsn) for _ in range(4)]
    try:
        applied = await asyncio.gather(*(migrate(p) for p in pools))
        # Exactly one caller applied the migrations; the others found them done.
        non_empty = [a for a in applied if a]
        assert len(non_empty) == 1
        assert await applied_migrations(pools[0]) == non_empty[0]
    finally:
        await asyncio.gather(*(p.close() for p in pools))


async def test_failed_migration_rolls_back_and_names_the_file(
    pg_dsn: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    good = available_migrations()
    broken = _migrate.Migration(999, "broken", "CREATE TABLE half_done (x int); SELECT nope;")
    monkeypatch.setattr(_migrate, "available_migrations", lambda: [*good, broken])
    pool = await create_pool(pg_dsn)
    try:
        with pytest.raises(_migrate.MigrationError, match="999_broken"):
            await migrate(pool)
        # The good migrations stay applied; the broken one left nothing behind.
        assert await applied_migrations(pool) == [m.version for m in good]
        assert "half_done" not in await _tables(pool)
    finally:
        await pool.close()


async def test_audit_writer_is_idempotent_on_dedupe_key(pg_dsn: str) -> None:
    from agents.audit import audit_writer

    pool = await create_pool(pg_dsn)
    try:
        await migrate(pool)
        write = audit_writer(pool)
        payload = {"primary": "ollama/a", "fallback": "ollama/b", "dedupe_key": "d1:1:critic"}
        await write("critic_fallback", payload)
        await write("critic_fallback", payload)
        await write("critic_fallback", {"primary": "x"})  # no key: always written
        rows = await pool.fetch("SELECT event_type, payload, dedupe_key FROM audit_log ORDER BY id")
        assert [(r["event_type"], r["dedupe_key"]) for r in rows] == [
            ("critic_fallback", "d1:1:critic"),
            ("critic_fallback", None),
        ]
        assert rows[0]["payload"] == {"primary": "ollama/a", "fallback": "ollama/b"}
    finally:
        await pool.close()
