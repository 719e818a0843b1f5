"""Fixtures of the operations tests: a migrated database of our own per module, the fake model
servers of tests/agents/fakes, and a scraper for /metrics. (A PostgreSQL server a test may stop
is `throwaway_pg`, tests/streams/conftest.py.)"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from urllib.parse import urlsplit, urlunsplit

import pytest_asyncio


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def module_dsn(postgres_dsn: str) -> AsyncIterator[str]:
    """A fresh, migrated database shared by one test module (dropped afterwards)."""
    import asyncpg

    from streams.runtime.db import create_pool, migrate

    name = f"t_observe_{uuid.uuid4().hex[:12]}"
    admin = await asyncpg.connect(postgres_dsn, timeout=30)
    try:
        await admin.execute(f'CREATE DATABASE "{name}" TEMPLATE template0')
    finally:
        await admin.close()
    dsn = urlunsplit(urlsplit(postgres_dsn)._replace(path=f"/{name}"))
    pool = await create_pool(dsn)
    await migrate(pool)
    await pool.close()
    try:
        yield dsn
    finally:
        admin = await asyncpg.connect(postgres_dsn, timeout=30)
        try:
            await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            await admin.close()
