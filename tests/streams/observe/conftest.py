"""Fixtures of the operations tests: a migrated database of our own per module, the fake model
servers of tests/agents/fakes, and a scraper for /metrics. (A PostgreSQL server a test may stop
is `throwaway_pg`, tests/streams/conftest.py.)"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import pytest_asyncio

from tests.helpers.postgres import create_database, drop_database


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def module_dsn(postgres_dsn: str) -> AsyncIterator[str]:
    """A fresh, migrated database shared by one test module (dropped afterwards)."""
    from streams.runtime.db import create_pool, migrate

    name = f"t_observe_{uuid.uuid4().hex[:12]}"
    dsn = await create_database(postgres_dsn, name)
    pool = await create_pool(dsn)
    await migrate(pool)
    await pool.close()
    try:
        yield dsn
    finally:
        await drop_database(postgres_dsn, name)
