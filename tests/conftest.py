"""Fixtures every test may use: a real Kafka broker, a real PostgreSQL server, and per-test
isolation on both. Per-area fixtures live in tests/<area>/conftest.py.

Services start lazily (session fixtures, only when a test asks for them), found in this order:
KAFKA_BOOTSTRAP_SERVERS / DATABASE_URL, else testcontainers when a Docker engine answers, else the
local launchers (`multiqa dev up`, reused when already running). See streams/devstack/testing.py.

Isolation:
- Kafka: `unique_topics("qa.drafts")` gives a topic name no other test uses (`topic_prefix` + name);
  `create_topics(*names, partitions=1)` creates them up front (tests never rely on auto-creation)
  and deletes them afterwards.
- PostgreSQL: `pg_dsn` is a brand-new database per test (CREATE DATABASE ... TEMPLATE), dropped
  afterwards. Override the session fixture `pg_template` in an area conftest to clone a prepared
  template (e.g. one with the migrations applied) instead of the empty `template0`.
  `pg_pool` is an asyncpg pool on that database.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator

import pytest
import pytest_asyncio

from streams.devstack import DevStackError, testing
from tests.helpers.postgres import create_database, drop_database

KAFKA_FIXTURES = {"kafka_bootstrap", "create_topics"}
POSTGRES_FIXTURES = {"postgres_dsn", "pg_dsn", "pg_pool", "throwaway_pg"}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark tests by the services they use: `pytest -m "not kafka and not postgres"` runs the
    pure unit tests without starting anything."""
    for item in items:
        names = set(getattr(item, "fixturenames", ()))
        if names & KAFKA_FIXTURES:
            item.add_marker(pytest.mark.kafka)
        if names & POSTGRES_FIXTURES:
            item.add_marker(pytest.mark.postgres)


@pytest.fixture(scope="session")
def kafka_bootstrap() -> Iterator[str]:
    """host:port of a real Kafka broker (KRaft)."""
    try:
        with testing.kafka_bootstrap() as bootstrap:
            yield bootstrap
    except DevStackError as exc:
        pytest.fail(f"no Kafka broker for the tests: {exc}", pytrace=False)


@pytest.fixture(scope="session")
def postgres_dsn() -> Iterator[str]:
    """DSN of a real PostgreSQL database whose role may create databases."""
    try:
        with testing.postgres_dsn() as dsn:
            yield dsn
    except DevStackError as exc:
        pytest.fail(f"no PostgreSQL server for the tests: {exc}", pytrace=False)


def _test_slug(request: pytest.FixtureRequest, size: int) -> str:
    name = re.sub(r"[^a-z0-9]+", "-", request.node.name.lower()).strip("-")
    return f"{name[:size].strip('-')}-{uuid.uuid4().hex[:8]}"


@pytest.fixture
def topic_prefix(request: pytest.FixtureRequest) -> str:
    """A prefix no other test (or earlier run) uses, e.g. `t-test-round-trip-1a2b3c4d.`."""
    return f"t-{_test_slug(request, 60)}."


@pytest.fixture
def unique_topics(topic_prefix: str) -> Callable[[str], str]:
    """unique_topics("qa.drafts") -> "<topic_prefix>qa.drafts" (same name for the same input)."""

    def name(base: str) -> str:
        return f"{topic_prefix}{base}"

    return name


@pytest_asyncio.fixture
async def create_topics(kafka_bootstrap: str) -> AsyncIterator[Callable[..., Awaitable[list[str]]]]:
    """`await create_topics(name, ..., partitions=1)` creates topics now and deletes them after."""
    from aiokafka.admin import AIOKafkaAdminClient, NewTopic

    admin = AIOKafkaAdminClient(bootstrap_servers=kafka_bootstrap)
    await admin.start()
    created: list[str] = []

    async def create(*names: str, partitions: int = 1) -> list[str]:
        await admin.create_topics(
            [NewTopic(n, num_partitions=partitions, replication_factor=1) for n in names]
        )
        created.extend(names)
        return list(names)

    try:
        yield create
    finally:
        try:
            if created:
                await admin.delete_topics(created)
        except Exception:  # best effort: the names are unique anyway
            pass
        await admin.close()


@pytest.fixture(scope="session")
def pg_template() -> str | None:
    """Database that `pg_dsn` clones; None means `template0`. Override per area."""
    return None


@pytest_asyncio.fixture
async def pg_dsn(
    postgres_dsn: str, pg_template: str | None, request: pytest.FixtureRequest
) -> AsyncIterator[str]:
    """DSN of a fresh database for this test only (dropped afterwards)."""
    database = "t_" + _test_slug(request, 40).replace("-", "_")
    dsn = await create_database(postgres_dsn, database, pg_template or "template0")
    try:
        yield dsn
    finally:
        await drop_database(postgres_dsn, database)


@pytest_asyncio.fixture
async def pg_pool(pg_dsn: str) -> AsyncIterator[object]:
    """An asyncpg pool on this test's own database, made by multiqa's own pool factory (jsonb
    columns read and written as Python objects), so tests see what production code sees."""
    from streams.runtime.db import create_pool

    pool = await create_pool(pg_dsn, min_size=1, max_size=4)
    try:
        yield pool
    finally:
        await pool.close()
