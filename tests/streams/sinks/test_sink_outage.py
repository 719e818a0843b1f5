"""The database stopped mid-run and restarted: the sink's writes wait, retry, and land; nothing is
lost or duplicated. Runs against a real PostgreSQL server of the test's own (see conftest)."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

from streams.runtime.sinks import Backoff, Sink, retry_forever

pytestmark = pytest.mark.postgres

FAST = Backoff(initial=0.02, factor=2.0, cap=0.2)


async def wait_until(predicate: Any, what: str, limit: float = 60.0) -> None:
    """Poll until predicate() holds (a liveness bound, not a speed assertion)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + limit
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        await asyncio.sleep(0.02)


async def test_database_down_mid_run_delays_writes_and_loses_nothing(
    throwaway_pg, throwaway_pool, make_decision, make_review, caplog
):
    caplog.set_level(logging.INFO, logger="streams.runtime.sinks")
    retried_before = _sink_retries_metric()
    sink = Sink(throwaway_pool, backoff=FAST, attempt_timeout=5.0)

    # Before the outage: written at once.
    for n in range(5):
        assert await sink.write_decision(make_decision(f"d-{n}", 1))
        assert await sink.write_review(make_review(f"d-{n}", 1, "validator"))

    await asyncio.to_thread(throwaway_pg.stop)

    # During the outage: what the agents would await, plus re-deliveries of what was written.
    pending = [
        asyncio.create_task(sink.write_decision(make_decision(f"d-{n}", 1))) for n in range(3, 12)
    ] + [
        asyncio.create_task(sink.write_review(make_review(f"d-{n}", 1, "critic")))
        for n in range(0, 12)
    ]
    await wait_until(lambda: sink.retries >= 3 * len(pending), "every write to retry")
    assert not any(task.done() for task in pending), "a write returned while the database was down"
    assert "PostgreSQL unavailable writing decision d-3 v1" in caplog.text

    await asyncio.to_thread(throwaway_pg.start)
    results = await asyncio.wait_for(asyncio.gather(*pending), timeout=120)

    # 3 and 4 were already recorded before the outage; every other write is new.
    assert results[:9] == [False, False] + [True] * 7
    assert results[9:] == [True] * 12
    pool = throwaway_pool
    decided = await pool.fetch("SELECT draft_id FROM qa_decisions ORDER BY draft_id")
    assert sorted(r["draft_id"] for r in decided) == sorted(f"d-{n}" for n in range(12))
    assert await pool.fetchval("SELECT count(*) FROM pipeline_versions") == 12
    reviews = await pool.fetch("SELECT reviewer, count(*) AS n FROM qa_reviews GROUP BY reviewer")
    assert {r["reviewer"]: r["n"] for r in reviews} == {"validator": 5, "critic": 12}
    assert await pool.fetchval("SELECT count(*) FROM cost_logs") == 17
    assert "wrote decision" in caplog.text and "after" in caplog.text
    # /metrics counts the same retries (issue 15's multiqa_sink_retries_total; audit).
    assert _sink_retries_metric() - retried_before == sink.retries


def _sink_retries_metric() -> float:
    from prometheus_client import REGISTRY

    return sum(
        sample.value
        for family in REGISTRY.collect()
        if family.name == "multiqa_sink_retries"
        for sample in family.samples
        if sample.name == "multiqa_sink_retries_total"
    )


async def test_sink_connect_waits_for_a_database_that_is_not_up_yet(
    throwaway_pg, make_decision, caplog
):
    caplog.set_level(logging.INFO, logger="streams.runtime.sinks")
    await asyncio.to_thread(throwaway_pg.stop)
    connecting = asyncio.create_task(Sink.connect(throwaway_pg.dsn, backoff=FAST))
    await wait_until(lambda: caplog.text.count("connecting the sink's pool") >= 2, "retries")
    assert not connecting.done()

    await asyncio.to_thread(throwaway_pg.start)
    sink = await asyncio.wait_for(connecting, timeout=60)
    async with sink:
        assert await sink.pool.fetchval("SELECT 1") == 1


async def test_cancelling_a_waiting_write_propagates(throwaway_pg, throwaway_pool, make_decision):
    """Worker shutdown during an outage: the write is abandoned (its event stays unacknowledged),
    not swallowed."""
    sink = Sink(throwaway_pool, backoff=FAST)
    await asyncio.to_thread(throwaway_pg.stop)
    write = asyncio.create_task(sink.write_decision(make_decision("d-1", 1)))
    await wait_until(lambda: sink.retries >= 1, "a retry")
    write.cancel()
    with pytest.raises(asyncio.CancelledError):
        await write


async def test_retry_forever_gives_up_only_on_errors_retrying_cannot_fix():
    from streams.runtime.sinks import SinkError

    calls = 0

    async def refused() -> bool:
        nonlocal calls
        calls += 1
        if calls < 4:
            raise ConnectionRefusedError(111, "Connection refused")
        return True

    assert await retry_forever(refused, what="x", backoff=Backoff(initial=0.001, cap=0.001))
    assert calls == 4

    async def bug() -> bool:
        raise ValueError("not a uuid")

    with pytest.raises(SinkError, match="writing thing failed: ValueError: not a uuid"):
        await retry_forever(bug, what="thing", backoff=Backoff(initial=0.001))


def test_backoff_grows_and_is_capped():
    backoff = Backoff(initial=0.1, factor=2.0, cap=1.0, jitter=0.0)
    assert [backoff.delay(n) for n in range(1, 7)] == [0.1, 0.2, 0.4, 0.8, 1.0, 1.0]
    jittered = Backoff(initial=1.0, cap=1.0, jitter=0.2)
    assert all(0.8 <= jittered.delay(5) <= 1.2 for _ in range(100))
