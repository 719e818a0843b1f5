"""Fixtures of the operations tests: a migrated database of our own per module, a PostgreSQL
server of our own that a test may stop (the shared one is never stopped), the fake model
servers of tests/agents/fakes, and a scraper for /metrics."""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
import pytest_asyncio

from tests.helpers.ports import free_port


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


class OwnPostgres:
    """A PostgreSQL server of this test's own, from the dev-stack launcher (streams.devstack)
    with its own cache folder and a free port: stop() and start() it at will."""

    def __init__(self, cache_dir: Path) -> None:
        from streams.devstack import Settings

        self.settings = dataclasses.replace(
            Settings.from_env(), cache_dir=cache_dir, pg_port=free_port()
        )
        self.dsn = ""

    def start(self) -> str:
        from streams.devstack import postgres

        self.dsn = postgres.start(self.settings).dsn
        return self.dsn

    def stop(self) -> None:
        from streams.devstack import postgres

        postgres.stop(self.settings)


@pytest.fixture
def own_postgres(tmp_path: Path) -> Iterator[OwnPostgres]:
    from streams.devstack import DevStackError

    server = OwnPostgres(tmp_path / "cache")
    try:
        server.start()
    except DevStackError as exc:
        pytest.skip(f"no PostgreSQL server programs here: {exc}")
    try:
        yield server
    finally:
        server.stop()
