"""Readiness and /metrics through a database outage: a worker (stream with sinks) on a
PostgreSQL server of the test's own, which the test stops and starts again; and a database
whose migrations are not applied."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from agents.registry import get_reviewer
from streams.runtime.app import Runtime, create_app
from streams.runtime.db import create_pool, migrate
from streams.runtime.observe import WorkerOps
from streams.runtime.topics import ensure_topics
from tests.streams.observe.observe_helpers import metric, probe, scrape
from tests.streams.stream_helpers import delete_topics, stream_config


async def _wait_status(url: str, wanted: int, timeout: float = 60.0) -> dict[str, Any]:
    async with asyncio.timeout(timeout):
        while True:
            status, body = await probe(url, "/readyz")
            if status == wanted:
                return body
            await asyncio.sleep(0.3)


@pytest.mark.timeout(240)
async def test_readyz_false_while_postgres_is_down_and_metrics_still_answer(
    kafka_bootstrap, throwaway_pg, tmp_path
) -> None:
    dsn = throwaway_pg.dsn
    config = stream_config(kafka_bootstrap, str(tmp_path / "faust"), database_url=dsn)
    await ensure_topics(config)
    pool = await create_pool(dsn)
    await migrate(pool)
    runtime = Runtime(config, pool=pool)
    stream = create_app(config, roster=[get_reviewer("validator")], runtime=runtime)
    ops = WorkerOps(config, port=0)
    await ops.start()
    ops.attach(stream, runtime)
    await stream.start()
    try:
        ready = await _wait_status(ops.server.url, 200)
        assert ready["checks"]["database"]["ok"]

        throwaway_pg.stop()
        down = await _wait_status(ops.server.url, 503, timeout=30)
        assert not down["checks"]["database"]["ok"]
        assert down["checks"]["broker"]["ok"] and down["checks"]["consumer_groups"]["ok"]
        # /metrics only formats what is in memory: it answers at once during the outage.
        async with asyncio.timeout(5):
            samples = await scrape(ops.server.url)
        assert metric(samples, "multiqa_aggregator_drafts_in_flight") == 0
        status, alive = await probe(ops.server.url, "/healthz")
        assert status == 200, alive  # the process is fine: not a reason to restart it

        throwaway_pg.start()
        back = await _wait_status(ops.server.url, 200, timeout=60)
        assert back["checks"]["database"]["ok"]
    finally:
        await stream.stop()
        await ops.stop()
        pool.terminate()
        await delete_topics(config)


async def test_readyz_false_until_the_migrations_are_applied(
    kafka_bootstrap, pg_dsn, tmp_path
) -> None:
    config = stream_config(kafka_bootstrap, str(tmp_path / "faust"), database_url=pg_dsn)
    pool = await create_pool(pg_dsn)
    ops = WorkerOps(config, port=0)
    ops.pool = pool  # connected, nothing migrated yet
    await ops.start()
    try:
        status, body = await probe(ops.server.url, "/readyz")
        assert status == 503
        assert body["checks"]["database"]["detail"].startswith("migrations not applied: 001")
        await migrate(pool)
        ops.readiness.cache_seconds = 0
        status, body = await probe(ops.server.url, "/readyz")
        assert body["checks"]["database"]["ok"], body
        assert not body["checks"]["consumer_groups"]["ok"]  # no stream attached: not ready
        assert status == 503
    finally:
        await ops.stop()
        await pool.close()


async def test_a_worker_serves_the_decisions_pages_when_asked(
    kafka_bootstrap, pg_dsn, tmp_path
) -> None:
    import httpx

    config = stream_config(kafka_bootstrap, str(tmp_path / "faust"), database_url=pg_dsn, ui=True)
    pool = await create_pool(pg_dsn)
    await migrate(pool)
    ops = WorkerOps(config, port=0)
    ops.pool = pool
    await ops.start()
    try:
        async with httpx.AsyncClient(base_url=ops.server.url) as client:
            page = await client.get("/")
            assert page.status_code == 200 and "<h1>Decisions</h1>" in page.text
            assert "default-src 'none'" in page.headers["content-security-policy"]
            assert (await client.get("/draft", params={"id": "x"})).status_code == 404
            assert (await client.get("/metrics")).status_code == 200  # same port
        plain = WorkerOps(config.with_overrides(ui=False), port=0)
        await plain.start()
        try:
            async with httpx.AsyncClient(base_url=plain.server.url) as client:
                assert (await client.get("/")).status_code == 404  # off unless asked
        finally:
            await plain.stop()
    finally:
        await ops.stop()
        await pool.close()
