"""The `sinks` role's Faust agents on the real broker and database: what reaches the topics reaches
the tables exactly once, bad events are dead-lettered, and an event is acknowledged (its offset
committed) only after its row is written: a sink stopped while the database is down loses
nothing, its successor writes what it could not."""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from aiokafka import AIOKafkaProducer
from aiokafka.admin import AIOKafkaAdminClient

from schemas import DeadLetter, encode
from streams.runtime.app import Runtime, create_app
from streams.runtime.config import StreamConfig
from streams.runtime.sinks import SinkAgents, persist_dead_letter
from streams.runtime.topics import ensure_topics

pytestmark = [pytest.mark.kafka, pytest.mark.postgres]


def sink_config(bootstrap: str, database_url: str, datadir: str) -> StreamConfig:
    prefix = f"tsink{uuid.uuid4().hex[:10]}"
    return StreamConfig(
        bootstrap_servers=bootstrap,
        app_prefix=prefix,
        drafts_topic=f"{prefix}.drafts",
        reviews_topic=f"{prefix}.reviews",
        decisions_topic=f"{prefix}.decisions",
        dead_letters_topic=f"{prefix}.dead-letters",
        partitions=2,
        database_url=database_url,
        # Short group timings (NOTES.md: Faust's defaults make a group join take ~30 s).
        broker_session_timeout=10.0,
        broker_heartbeat_interval=1.0,
        broker_rebalance_timeout=10.0,
        broker_commit_interval=0.2,
        datadir=datadir,
    )


class SinksProcess:
    """The sinks role alone, as `multiqa worker --reviewers none --no-aggregator` runs it."""

    def __init__(self, config: StreamConfig, pool: Any) -> None:
        async def audit(dead: DeadLetter) -> Any:
            return await persist_dead_letter(pool, dead)

        self.runtime = Runtime(config, pool=pool, dead_letter_audit=audit)
        self.stream = create_app(config, reviewers=[], with_aggregator=False, runtime=self.runtime)
        self.agents: SinkAgents = self.stream.sinks

    async def __aenter__(self) -> SinksProcess:
        await self.stream.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stream.stop()


@pytest.fixture
async def topics_of(kafka_bootstrap: str) -> AsyncIterator[Callable[..., Any]]:
    """`config = await topics_of(dsn, tmp_path)`: a config on new topics, deleted afterwards."""
    made: list[StreamConfig] = []

    async def make(database_url: str, datadir: Any) -> StreamConfig:
        config = sink_config(kafka_bootstrap, database_url, str(datadir))
        await ensure_topics(config)
        made.append(config)
        return config

    yield make
    admin = AIOKafkaAdminClient(bootstrap_servers=kafka_bootstrap)
    await admin.start()
    try:
        names = [t for t in await admin.list_topics() for c in made if t.startswith(c.app_prefix)]
        if names:
            await admin.delete_topics(names)
    finally:
        await admin.close()


async def produce(config: StreamConfig, items: list[tuple[str, bytes, bytes]]) -> None:
    producer = AIOKafkaProducer(bootstrap_servers=config.bootstrap_servers)
    await producer.start()
    try:
        for topic, key, value in items:
            await producer.send_and_wait(topic, value, key=key)
    finally:
        await producer.stop()


async def wait_for_rows(pool: Any, sql: str, expected: int, limit: float = 90.0) -> None:
    """Poll until the query counts `expected` (a liveness bound, not a speed assertion)."""
    async with asyncio.timeout(limit):
        while (n := await pool.fetchval(sql)) != expected:
            assert n < expected, f"{sql}: {n} rows, more than the {expected} expected"
            await asyncio.sleep(0.1)


async def test_events_land_in_their_tables_once_and_bad_ones_are_dead_lettered(
    sink_pool, pg_dsn, topics_of, tmp_path, make_decision, make_review
):
    config = await topics_of(pg_dsn, tmp_path)
    decisions = [make_decision(f"d-{n}", 1, timed_out=n == 0) for n in range(6)]
    reviews = [make_review(f"d-{n}", 1, r) for n in range(6) for r in ("validator", "critic")]
    items = [(config.decisions_topic, d.draft_id.encode(), encode(d)) for d in decisions]
    items += [(config.reviews_topic, r.draft_id.encode(), encode(r)) for r in reviews]
    # Re-deliveries (a producer retry, a replayed topic) and garbage on both topics.
    items += [(config.decisions_topic, b"d-1", encode(decisions[1]))]
    items += [(config.reviews_topic, b"d-2", encode(reviews[4]))]
    items += [(config.decisions_topic, b"junk", b"\xc3\x01not a decision")]
    items += [(config.reviews_topic, b"junk", b"garbage")]
    # A valid result keyed by another draft (a forged critic 100 costing $1): stored nowhere.
    forged = make_review("d-victim", 1, "critic")
    items += [(config.reviews_topic, b"d-3", encode(forged))]

    async with SinksProcess(config, sink_pool) as process:
        await produce(config, items)
        await wait_for_rows(sink_pool, "SELECT count(*) FROM qa_decisions", 6)
        await wait_for_rows(sink_pool, "SELECT count(*) FROM qa_reviews", 12)
        await wait_for_rows(
            sink_pool, "SELECT count(*) FROM audit_log WHERE event_type = 'dead_letter'", 1
        )
        await wait_for_rows(sink_pool, "SELECT count(*) FROM pipeline_versions", 6)
        # The rows above can all be in before the last two results (garbage, the misrouted one)
        # are read: wait until both were skipped (a liveness bound), then check nothing more.
        screen = process.stream.app.screen
        assert screen is not None
        async with asyncio.timeout(90):
            while screen.skipped[config.reviews_topic] < 2:
                await asyncio.sleep(0.1)

    assert await sink_pool.fetchval("SELECT count(*) FROM cost_logs") == 12
    timeouts = await sink_pool.fetch(
        "SELECT payload FROM audit_log WHERE event_type = 'aggregation_timeout'"
    )
    assert [t["payload"]["draft_id"] for t in timeouts] == ["d-0"]
    dead = await sink_pool.fetch(
        "SELECT payload FROM audit_log WHERE event_type = 'dead_letter' ORDER BY id"
    )
    # The sinks own qa.decisions' bad events; bad results are the aggregator's to park (it runs
    # elsewhere): this process skips them, and the misrouted one too, before any agent sees them
    # (streams.runtime._screen).
    assert [d["payload"]["source_topic"] for d in dead] == [config.decisions_topic]
    assert {d["payload"]["consumer"] for d in dead} == {"sinks"}
    assert process.agents.dead_letters.parked == 1
    assert screen.skipped == {config.reviews_topic: 2}
    assert process.agents.skipped == 0  # the sink agents never saw them
    for table in ("qa_reviews", "cost_logs"):
        sql = f"SELECT count(*) FROM {table} WHERE draft_id = 'd-victim'"
        assert await sink_pool.fetchval(sql) == 0, table


async def test_database_down_then_sink_restarted_loses_nothing(
    throwaway_pg, throwaway_pool, topics_of, tmp_path, make_decision, make_review, caplog
):
    caplog.set_level(logging.WARNING, logger="streams.runtime.sinks")
    config = await topics_of(throwaway_pg.dsn, tmp_path)

    def batch(start: int, stop: int) -> list[tuple[str, bytes, bytes]]:
        out = []
        for n in range(start, stop):
            d, r = make_decision(f"d-{n}", 1), make_review(f"d-{n}", 1, "validator")
            out += [(config.decisions_topic, d.draft_id.encode(), encode(d))]
            out += [(config.reviews_topic, r.draft_id.encode(), encode(r))]
        return out

    pool = throwaway_pool
    async with SinksProcess(config, pool):
        await produce(config, batch(0, 20))
        await wait_for_rows(pool, "SELECT count(*) FROM qa_decisions", 20)
        await wait_for_rows(pool, "SELECT count(*) FROM qa_reviews", 20)

        await asyncio.to_thread(throwaway_pg.stop)
        await produce(config, batch(20, 50))
        async with asyncio.timeout(90):  # the sink is now retrying these writes
            while "PostgreSQL unavailable writing" not in caplog.text:
                await asyncio.sleep(0.1)
    # The first sink stopped (a deploy, a crash) while the database was still down: the events it
    # could not write were never acknowledged, so their offsets were not committed.

    await asyncio.to_thread(throwaway_pg.start)
    async with SinksProcess(config, pool):
        await produce(config, batch(50, 60))
        await wait_for_rows(pool, "SELECT count(*) FROM qa_decisions", 60)
        await wait_for_rows(pool, "SELECT count(*) FROM qa_reviews", 60)

    rows = await pool.fetch("SELECT draft_id FROM qa_decisions")
    assert sorted(r["draft_id"] for r in rows) == sorted(f"d-{n}" for n in range(60))
    assert await pool.fetchval("SELECT count(*) FROM cost_logs") == 60
    assert await pool.fetchval("SELECT count(*) FROM pipeline_versions") == 60
