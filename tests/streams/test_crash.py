"""SIGKILL the all-in-one worker process (reviewers, aggregator, sinks) twice while it decides 500
drafts (200 with the aggregator's table in RocksDB); after restarts, every draft version has
exactly one decision, identical in every copy on qa.decisions, exactly one qa_decisions row, and
the decisions are the ones a run without crashes makes (the in-process review of the same drafts,
same reviewers). Then scale-out and fail-over: a second worker joins mid-run and the first one is
killed; the second finishes with the same guarantees."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import signal
import subprocess
import sys
from collections import Counter
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from aiokafka import AIOKafkaProducer
from aiokafka.admin import AIOKafkaAdminClient

from agents.aggregate import decision_id
from agents.qa import MultiModelQA
from agents.settings import Settings
from schemas import DraftSubmitted, QADecision, encode
from streams.runtime import _layout as layout
from streams.runtime.db import create_pool
from streams.runtime.topics import ensure_topics
from tests.helpers.drafts import CLEAN, CRITICAL, make_draft
from tests.streams.crash_forensics import explain_missing
from tests.streams.crash_worker import roster
from tests.streams.stream_helpers import TopicReader, delete_topics, stream_config

WORKER = Path(__file__).with_name("crash_worker.py")


def drafts(count: int) -> list[DraftSubmitted]:
    return [
        make_draft(CRITICAL if i % 10 == 3 else CLEAN, draft_id=f"crash-{i:04d}", title="Kettles")
        for i in range(count)
    ]


def start_worker(config, log: Path, **extra_env: str) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        **{f"MULTIQA_{k.upper()}": str(v) for k, v in vars(config).items()},
        "PYTHONUNBUFFERED": "1",
        **extra_env,
    }
    with open(log, "ab") as out:
        return subprocess.Popen(
            [sys.executable, str(WORKER)], env=env, stdout=out, stderr=subprocess.STDOUT
        )


def distinct(values) -> int:
    return len({v.decision_id for v in values if isinstance(v, QADecision)})


async def assert_mid_run(reader: TopicReader, count: int) -> None:
    """After a kill: fewer than `count` decisions exist (read what the dead worker published)."""
    for _ in range(5):
        await reader.poll()
    assert distinct(reader.values()) < count, "the worker had finished before it was killed"


# No new decision for this long while some are missing: the run is stuck (a worker that is
# still starting counts: a cold start took 80 s beside other suites at load 10). Progress, not a
# total: a run that is only slow is never failed for it (pytest-timeout is the backstop).
STALL_SECONDS = 180.0


async def wait_distinct(
    reader: TopicReader,
    count: int,
    worker: subprocess.Popen[bytes],
    explain: Callable[[], Awaitable[str]] | None = None,
    stall: float = STALL_SECONDS,
) -> None:
    """Wait until `count` distinct decisions are on qa.decisions. Fails at once when one was
    decided by its deadline (every reviewer here answers: a result was lost on the way), when the
    worker exits, or when none came for `stall` seconds; then, before the topics go, `explain`
    says what the missing drafts' state is (tests/streams/crash_forensics.py: slow or lost)."""
    loop = asyncio.get_running_loop()
    last, since = -1, loop.time()
    while (got := distinct(reader.values())) < count:
        assert worker.poll() is None, f"worker exited with {worker.returncode}"
        timed_out = sorted(
            v.draft_id for v in reader.values() if isinstance(v, QADecision) and v.timed_out
        )
        if got != last:
            last, since = got, loop.time()
        if timed_out or loop.time() - since >= stall:
            why = (
                f"decided by their deadline: {timed_out}"
                if timed_out
                else f"none new for {stall:.0f} s"
            )
            await dump_tasks(worker)  # where a stuck agent waits, into its log (mode's SIGUSR1)
            report = "" if explain is None else "\n" + await explain()
            raise AssertionError(f"{got} of {count} decisions; {why}{report}")
        await reader.poll()


async def dump_tasks(worker: subprocess.Popen[bytes]) -> None:
    """Ask a live worker for every asyncio task's stack: mode's Worker prints them to its stderr
    (the worker's log) on SIGUSR1; crash_forensics picks out the review path's tasks."""
    if worker.poll() is None:
        worker.send_signal(signal.SIGUSR1)
        await asyncio.sleep(2.0)


async def wait_rows(dsn: str, count: int, stall: float = STALL_SECONDS) -> list:
    """Wait until qa_decisions holds `count` rows; fails when none came for `stall` seconds."""
    pool = await create_pool(dsn)
    loop = asyncio.get_running_loop()
    try:
        last, since = -1, loop.time()
        while (rows := await pool.fetchval("SELECT count(*) FROM qa_decisions")) < count:
            if rows != last:
                last, since = rows, loop.time()
            assert loop.time() - since < stall, f"{rows} of {count} rows, none new for {stall} s"
            await asyncio.sleep(0.2)
        return await pool.fetch(
            "SELECT decision_id::text AS id, draft_id, version FROM qa_decisions"
        )
    finally:
        await pool.close()


ROLES = layout.roles(["validator", "critic", "urls"], aggregator=True, sinks=True)


def explainer(config, produced: list[DraftSubmitted], logs: list[Path]):
    """The forensics of a wait that gives up (the drafts produced so far, the workers' logs)."""
    group = layout.group_id(config, ROLES)
    return lambda: explain_missing(config, group, list(produced), logs)


def crash_config(bootstrap: str, dsn: str, datadir: Path, **overrides):
    values = {
        "partitions": 3,
        "reviewers": "validator,critic,urls",
        "aggregate_timeout_seconds": 120.0,
        # A restarted worker waits for the killed one's session to expire before the group
        # rebalances; 6 s is the broker's minimum.
        "broker_session_timeout": 6.0,
        "broker_rebalance_timeout": 6.0,
        "database_url": dsn,
        **overrides,
    }
    return stream_config(bootstrap, str(datadir), **values)


async def produce(config, all_drafts: list[DraftSubmitted]) -> None:
    producer = AIOKafkaProducer(bootstrap_servers=config.bootstrap_servers, linger_ms=5)
    await producer.start()
    try:
        sends = [
            await producer.send(config.drafts_topic, encode(d), key=d.draft_id.encode())
            for d in all_drafts
        ]
        await asyncio.gather(*sends)
    finally:
        await producer.stop()


def stop(worker: subprocess.Popen[bytes]) -> None:
    if worker.poll() is None:
        worker.send_signal(signal.SIGTERM)
        try:
            worker.wait(timeout=60)
        except subprocess.TimeoutExpired:
            worker.kill()


async def wait_members(config, group: str, count: int, joining: subprocess.Popen[bytes]) -> None:
    """Wait until `group` is stable with `count` members, for as long as the `joining` worker
    lives (its start took over 60 s beside other suites at load 10: slow, not stuck)."""
    admin = AIOKafkaAdminClient(bootstrap_servers=config.bootstrap_servers)
    await admin.start()
    try:
        while True:
            assert joining.poll() is None, f"the joining worker exited with {joining.returncode}"
            (response,) = await admin.describe_consumer_groups([group])
            (described,) = response.to_object()["groups"]
            if described["state"] == "Stable" and len(described["members"]) == count:
                return
            await asyncio.sleep(0.2)
    finally:
        await admin.close()


async def check_outcome(decisions: TopicReader, rows: list, all_drafts: list[DraftSubmitted]):
    copies: dict[str, set[bytes]] = {}
    by_id: dict[str, QADecision] = {}
    for message in decisions.messages:
        assert isinstance(message.value, QADecision), message.value
        copies.setdefault(message.value.decision_id, set()).add(message.raw)
        by_id[message.value.decision_id] = message.value
    assert set(by_id) == {decision_id(d.draft_id, 1) for d in all_drafts}
    assert all(len(payloads) == 1 for payloads in copies.values()), "a decision changed"
    # One decision per draft version whichever worker decided it, before or after a kill: a
    # copy on qa.decisions is one a killed worker had published without recording it (the
    # survivor publishes the stored one again: the same bytes, checked above).
    per_version = Counter((d.draft_id, d.version) for d in by_id.values())
    assert per_version == Counter({(d.draft_id, d.version): 1 for d in all_drafts})
    print(f"{len(decisions.messages) - len(by_id)} decision(s) published twice (same bytes)")

    # The no-crash reference: the same reviewers and the same aggregation, in-process.
    qa = MultiModelQA(None, reviewers=roster())
    # The worker's settings: the defaults (its database has no app_settings rows); its deadline
    # comes from MULTIQA_AGGREGATE_TIMEOUT_SECONDS, which is not a setting.
    settings = Settings()
    for draft in all_drafts:
        expected = (await qa.review_draft(draft, settings)).decision
        got = by_id[expected.decision_id]
        # Field for field (only the decision time differs): whatever order the results came in,
        # whichever worker decided, before or after a kill.
        assert dataclasses.replace(got, decided_at=expected.decided_at) == expected, draft.draft_id
    assert sum(d.short_circuited for d in by_id.values()) == len(all_drafts) // 10
    # A short-circuited draft counts the free reviewers only (the validator, and urls: required
    # by default, not applicable here), even where the critic answered first.
    assert all(
        [r.reviewer for r in d.reviews] == ["validator", "urls"]
        and d.missing_reviewers == ("critic",)
        for d in by_id.values()
        if d.short_circuited
    )

    # The sinks ran in the killed processes too: one row per draft version, the decisions' ids.
    assert len(rows) == len(all_drafts)
    assert {r["id"] for r in rows} == set(by_id)
    assert len({(r["draft_id"], r["version"]) for r in rows}) == len(all_drafts)


@pytest.mark.timeout(900)  # a backstop: the waits fail on a stall, not on slowness
@pytest.mark.parametrize(
    ("store", "count"),
    [("memory://", 500), ("rocksdb://", 200)],  # the table in memory, or on disk (RocksDB)
)
async def test_sigkill_mid_run_loses_and_duplicates_no_decision(
    kafka_bootstrap, pg_dsn, tmp_path, store, count
):
    config = crash_config(kafka_bootstrap, pg_dsn, tmp_path / "faust", table_store=store)
    await ensure_topics(config)
    all_drafts = drafts(count)
    await produce(config, all_drafts)
    decisions = await TopicReader(kafka_bootstrap, config.decisions_topic, QADecision).start()
    log = tmp_path / "worker.log"
    worker = start_worker(config, log)
    try:
        for kill_after in (count // 4, count // 2):
            await wait_distinct(decisions, kill_after, worker)
            worker.send_signal(signal.SIGKILL)
            worker.wait()
            await assert_mid_run(decisions, count)
            worker = start_worker(config, log)
        await wait_distinct(decisions, count, worker, explainer(config, all_drafts, [log]))
        rows = await wait_rows(pg_dsn, count)
    finally:
        stop(worker)
        await decisions.stop()
        await delete_topics(config)
    await check_outcome(decisions, rows, all_drafts)


@pytest.mark.timeout(900)  # a backstop: the waits fail on a stall, not on slowness
async def test_a_second_worker_joins_mid_run_and_takes_over_when_the_first_is_killed(
    kafka_bootstrap, pg_dsn, tmp_path
):
    count = 300
    config = crash_config(kafka_bootstrap, pg_dsn, tmp_path / "first", partitions=4)
    await ensure_topics(config)
    all_drafts = drafts(count)
    # The middle third is produced once both workers share the group, so each has reviews in
    # flight when the first dies (produced up front, the first worker had often decided all of it
    # before the second had joined); the last third only after the kill: the run is certainly
    # unfinished when the first worker dies, however fast the two workers are.
    before, middle, after = (
        all_drafts[: count // 3],
        all_drafts[count // 3 : count * 2 // 3],
        all_drafts[count * 2 // 3 :],
    )
    await produce(config, before)
    decisions = await TopicReader(kafka_bootstrap, config.decisions_topic, QADecision).start()
    slow = {"CRASH_WORKER_DELAY_SCALE": "4"}  # reviews stay in flight through the rebalances
    logs = [tmp_path / "first.log", tmp_path / "second.log"]
    first = start_worker(config, logs[0], **slow)
    second = None
    try:
        await wait_distinct(decisions, count // 5, first)
        # Another machine: its own data directory, same consumer groups.
        other = config.with_overrides(datadir=str(tmp_path / "second"))
        second = start_worker(other, logs[1], **slow)
        # Both workers run the same roles: one consumer group, the table is now split.
        await wait_members(config, layout.group_id(config, ROLES), 2, second)
        await produce(config, middle)
        await wait_distinct(
            decisions, count // 3 + 10, second, explainer(config, before + middle, logs)
        )
        first.send_signal(signal.SIGKILL)
        first.wait()
        await assert_mid_run(decisions, count)
        await produce(config, after)  # the survivor now owns every partition
        await wait_distinct(decisions, count, second, explainer(config, all_drafts, logs))
        rows = await wait_rows(pg_dsn, count)
    finally:
        stop(first)
        if second is not None:
            stop(second)
        await decisions.stop()
        await delete_topics(config)
    await check_outcome(decisions, rows, all_drafts)
