"""Floods of bad events and failures inside the aggregator, on the real broker.

- A bad event on qa.drafts becomes exactly one dead letter (consumer "aggregator"), however many
  there are and whatever the role layout: all-in-one, or the aggregator and the reviewers in
  processes of their own (other consumer groups, which skip and count). Valid drafts queued
  behind a flood are still decided (correctness only: how fast is bench/bench_flood.py's).
- Killed (SIGKILL) in mid-flood and restarted, the worker loses no bad event and parks none twice.
- An exception while the aggregator applies an event loses nothing: raised once, the draft is
  still decided exactly once (even as the first event of its partition); raised every time, the
  draft is dead-lettered with the reason and the stream moves on.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import pytest
import pytest_asyncio
from aiokafka import AIOKafkaProducer
from aiokafka.errors import KafkaConnectionError

from agents.aggregate import decision_id
from agents.registry import get_reviewer
from schemas import DeadLetter, DraftSubmitted, Provider, QADecision, ReviewerResult, encode
from streams.runtime.app import MultiQA, create_app
from streams.runtime.config import StreamConfig
from streams.runtime.db import create_pool
from streams.runtime.topics import ensure_topics
from tests.streams.stream_helpers import TopicReader, delete_topics, stream_config

pytestmark = pytest.mark.asyncio(loop_scope="module")

CLEAN = (
    "Electric kettles heat water with a coiled element under the base. Most models switch off "
    "when a bimetallic strip senses steam. Descale them every few months where water is hard. "
) * 8
MAX_DRAFT_BYTES = 4096  # small, so the oversize drafts of a flood stay small too


def draft(draft_id: str, content: str = CLEAN) -> DraftSubmitted:
    return DraftSubmitted(draft_id, 1, "Kettles", content)


def bad_drafts(n: int) -> list[tuple[bytes | None, bytes, str]]:
    """`n` bad qa.drafts messages (key, value, the error type parking must name), every kind
    in turn: non-Avro bytes, truncated Avro, valid Avro of another record type, an empty value,
    a null key, a value over the draft size limit, a draft keyed by another draft's id."""
    valid = encode(draft("flood-x"))
    result = encode(
        ReviewerResult("critic", True, 50.0, "x", Provider.OLLAMA, draft_id="flood-x", version=1)
    )
    huge = encode(draft("flood-huge", "x" * (MAX_DRAFT_BYTES + 1)))
    kinds: list[tuple[bytes | None, bytes, str]] = [
        (b"k", b"not avro at all", "BadMagicError"),
        (b"k", valid[:-25], "TruncatedError"),
        (b"flood-x", result, "WrongRecordTypeError"),
        (b"k", b"", "TruncatedError"),
        (None, valid, "InvalidRecordError"),
        (b"flood-huge", huge, "OversizeError"),
        (b"another-draft", valid, "InvalidRecordError"),
    ]
    out = []
    for i in range(n):
        key, value, error = kinds[i % len(kinds)]
        out.append((None if key is None else key + b"-%d" % i, value, error))
    return out


async def produce(config: StreamConfig, messages: list[tuple[bytes | None, bytes]]) -> None:
    producer = AIOKafkaProducer(
        bootstrap_servers=config.bootstrap_servers,
        linger_ms=5,
        max_request_size=config.max_message_bytes,
    )
    await producer.start()
    try:
        sends = [await producer.send(config.drafts_topic, v, key=k) for k, v in messages]
        await asyncio.gather(*sends)
    finally:
        await producer.stop()


@dataclass
class Env:
    config: StreamConfig
    streams: list[MultiQA]
    decisions: TopicReader
    dead_letters: TopicReader

    @property
    def aggregator(self) -> Any:
        (found,) = [s.aggregator for s in self.streams if s.aggregator is not None]
        return found

    async def decided(self, ids: list[str], *, timeout: float = 240.0) -> dict[str, QADecision]:
        wanted = {decision_id(i, 1): i for i in ids}

        def done(values: list[Any]) -> bool:
            return set(wanted) <= {getattr(v, "decision_id", None) for v in values}

        values = await self.decisions.wait_for(done, timeout=timeout)
        return {wanted[v.decision_id]: v for v in values if getattr(v, "decision_id", "") in wanted}

    def letters(self) -> list[DeadLetter]:
        return [v for v in self.dead_letters.values() if isinstance(v, DeadLetter)]

    async def letters_settled(self, count: int, *, timeout: float = 240.0) -> list[DeadLetter]:
        """The dead letters once `count` are in, and a few polls more (any extra would show)."""
        await self.dead_letters.wait_for(
            lambda vs: sum(isinstance(v, DeadLetter) for v in vs) >= count, timeout=timeout
        )
        for _ in range(10):
            await self.dead_letters.poll()
        return self.letters()


async def _env(
    kafka_bootstrap: str, tmp_dir: str, layouts: list[dict[str, Any]]
) -> AsyncIterator[Env]:
    config = stream_config(kafka_bootstrap, tmp_dir, partitions=2, max_draft_bytes=MAX_DRAFT_BYTES)
    await ensure_topics(config)
    roster = [get_reviewer("validator"), get_reviewer("urls")]
    streams = [create_app(config, roster=roster, with_sinks=False, **layout) for layout in layouts]
    readers = [
        TopicReader(kafka_bootstrap, config.decisions_topic, QADecision),
        TopicReader(kafka_bootstrap, config.dead_letters_topic, DeadLetter),
    ]
    for stream in streams:
        await stream.start()
    for reader in readers:
        await reader.start()
    try:
        yield Env(config, streams, *readers)
    finally:
        for reader in readers:
            await reader.stop()
        for stream in streams:
            await stream.stop()
        await delete_topics(config)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def all_in_one(kafka_bootstrap, tmp_path_factory) -> AsyncIterator[Env]:
    async for env in _env(kafka_bootstrap, str(tmp_path_factory.mktemp("faust")), [{}]):
        yield env


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def split(kafka_bootstrap, tmp_path_factory) -> AsyncIterator[Env]:
    layouts: list[dict[str, Any]] = [
        {"reviewers": []},  # the aggregator alone
        {"reviewers": ["validator"], "with_aggregator": False},
        {"reviewers": ["urls"], "with_aggregator": False},
    ]
    async for env in _env(kafka_bootstrap, str(tmp_path_factory.mktemp("faust")), layouts):
        yield env


def _raising(
    env: Env, monkeypatch: pytest.MonkeyPatch, fail: Callable[[str, int], BaseException | None]
) -> dict[str, int]:
    """Make the aggregator raise `fail(draft_id, attempt)` (when not None) on that draft."""
    aggregator = env.aggregator
    original = aggregator._on_draft
    attempts: dict[str, int] = {}

    async def on_draft(value: DraftSubmitted, *args: Any) -> None:
        attempts[value.draft_id] = attempts.get(value.draft_id, 0) + 1
        error = fail(value.draft_id, attempts[value.draft_id])
        if error is not None:
            raise error
        await original(value, *args)

    monkeypatch.setattr(aggregator, "_on_draft", on_draft)
    return attempts


# First in the module: "once-0" is the first event of its partition, the case where an exception
# used to lose it for good (nothing earlier in the table to seek back to).
async def test_a_handle_that_raises_once_still_decides_the_draft_exactly_once(
    all_in_one, monkeypatch
):
    env = all_in_one
    ids = ["once-0", "once-1", "env-0"]

    def fail(draft_id: str, attempt: int) -> BaseException | None:
        if draft_id.startswith("once-") and attempt == 1:
            return RuntimeError("a bug that bites once")
        if draft_id == "env-0" and attempt <= 2:
            return KafkaConnectionError("the broker went away")
        return None

    attempts = _raising(env, monkeypatch, fail)
    await produce(env.config, [(i.encode(), encode(draft(i))) for i in ids])
    decided = await env.decided(ids)
    assert all(d.approved for d in decided.values())
    await _submit(env, "after-once")
    await env.decided(["after-once"])  # anything published twice would be in by now
    for i in ids:
        copies = {v.decision_id for v in env.decisions.values() if v.draft_id == i}
        assert len(copies) == 1, i
    assert attempts["once-0"] == 2 and attempts["env-0"] == 3
    assert not [d for d in env.letters() if d.key in {i.encode() for i in ids}]


async def _submit(env: Env, draft_id: str) -> None:
    await produce(env.config, [(draft_id.encode(), encode(draft(draft_id)))])


async def test_a_handle_that_always_raises_dead_letters_the_draft_with_the_reason(
    all_in_one, monkeypatch
):
    env = all_in_one

    def fail(draft_id: str, attempt: int) -> BaseException | None:
        return ValueError("cannot apply this draft") if draft_id == "always-0" else None

    attempts = _raising(env, monkeypatch, fail)
    payload = encode(draft("always-0"))
    await produce(env.config, [(b"always-0", payload)])
    await _submit(env, "after-always")
    await env.decided(["after-always"])
    letters = await env.letters_settled(1)
    (letter,) = [d for d in letters if d.key == b"always-0"]
    assert letter.consumer == "aggregator" and letter.error_type == "HandleFailedError"
    assert "ValueError: cannot apply this draft" in letter.error
    assert letter.raw == payload
    assert attempts["always-0"] == 3
    assert not [v for v in env.decisions.values() if v.draft_id == "always-0"]  # fail closed


# Liveness bounds only, wide: on a loaded machine a 10,000-event flood took 30-250 s here.
@pytest.mark.timeout(900)
async def test_a_flood_of_ten_thousand_bad_drafts_is_ten_thousand_dead_letters(all_in_one):
    env = all_in_one
    before = len(env.letters())
    flood = bad_drafts(10_000)
    valid = [f"behind-{n}" for n in range(20)]
    await produce(env.config, [(k, v) for k, v, _ in flood])
    await produce(env.config, [(i.encode(), encode(draft(i))) for i in valid])
    decided = await env.decided(valid, timeout=600)
    assert all(d.approved for d in decided.values())
    letters = (await env.letters_settled(before + len(flood), timeout=600))[before:]
    assert len(letters) == len(flood)  # one each, not a multiple
    assert len({(d.source_partition, d.source_offset) for d in letters}) == len(flood)
    assert {d.consumer for d in letters} == {"aggregator"}
    assert {d.source_topic for d in letters} == {env.config.drafts_topic}
    by_key = {d.key: d.error_type for d in letters}
    for key, _, error in flood:
        if key is not None:
            assert by_key[key] == error, key
    assert sum(d.key is None for d in letters) == sum(k is None for k, _, _ in flood)
    assert env.aggregator.parker.parked >= len(flood)
    # Nothing of the flood got into the table, no reviewer saw it.
    assert env.aggregator.entry("flood-x", 1) is None
    assert env.aggregator.entry("flood-huge", 1) is None
    assert all(r.skipped == 0 for s in env.streams for r in s.reviewers.values())


# Liveness bounds, not speed: 20 s alone; once, in a whole-suite run beside other suites, the ten
# valid drafts were not decided within the old 120 s (issue 13 notes it).
@pytest.mark.timeout(600)
async def test_split_roles_park_each_bad_draft_once_and_the_others_skip_and_count(split):
    env = split
    flood = bad_drafts(700)
    valid = [f"split-{n}" for n in range(10)]
    await produce(env.config, [(k, v) for k, v, _ in flood[:350]])
    await produce(env.config, [(i.encode(), encode(draft(i))) for i in valid[:5]])
    await produce(env.config, [(k, v) for k, v, _ in flood[350:]])
    await produce(env.config, [(i.encode(), encode(draft(i))) for i in valid[5:]])
    decided = await env.decided(valid)
    assert all(d.approved for d in decided.values())
    letters = await env.letters_settled(len(flood))
    assert len(letters) == len(flood)
    assert len({(d.source_partition, d.source_offset) for d in letters}) == len(flood)
    assert {d.consumer for d in letters} == {"aggregator"}
    aggregator_app, *reviewer_apps = [s.app for s in env.streams]
    for app in reviewer_apps:  # other groups: skipped and counted, never parked
        assert app.screen is not None and app.screen.parker is None
        assert app.screen.skipped[env.config.drafts_topic] == len(flood)
    assert aggregator_app.screen is not None
    assert aggregator_app.screen.skipped[env.config.drafts_topic] == 0


# Liveness bounds only, wide (a loaded machine); the worker is a real `multiqa worker` process.
@pytest.mark.timeout(900)
async def test_a_sigkill_mid_flood_loses_no_bad_event_and_parks_none_twice(
    kafka_bootstrap, pg_dsn, tmp_path
):
    """Killed while it parks, restarted: every bad draft is one dead letter and one audit_log
    row, and the drafts behind the flood are decided. The commit interval is long, so nothing
    the first worker parked is committed: the second reads it all again and must recognise
    what it finds in the dead-letter topic (streams.runtime.deadletter.DeadLetterLedger)."""
    from tests.streams.test_crash import crash_config, start_worker, stop

    config = crash_config(
        kafka_bootstrap,
        pg_dsn,
        tmp_path / "faust",
        partitions=2,
        max_draft_bytes=MAX_DRAFT_BYTES,
        broker_commit_interval=30.0,
    )
    await ensure_topics(config)
    flood = bad_drafts(10_000)
    valid = [f"killed-{n}" for n in range(20)]
    letters = await TopicReader(kafka_bootstrap, config.dead_letters_topic, DeadLetter).start()
    decisions = await TopicReader(kafka_bootstrap, config.decisions_topic, QADecision).start()
    log = tmp_path / "worker.log"
    await produce(config, [(k, v) for k, v, _ in flood[:5000]])
    worker = start_worker(config, log)
    try:
        await letters.wait_for(lambda vs: len(vs) >= 500, timeout=600)
        worker.send_signal(signal.SIGKILL)
        worker.wait()
        for _ in range(5):
            await letters.poll()
        assert len(letters.values()) < 5000, "the worker had parked the first half already"
        await produce(config, [(k, v) for k, v, _ in flood[5000:]])
        await produce(config, [(i.encode(), encode(draft(i))) for i in valid])
        worker = start_worker(config, log)
        wanted = {decision_id(i, 1) for i in valid}
        await decisions.wait_for(
            lambda vs: wanted <= {getattr(v, "decision_id", None) for v in vs}, timeout=600
        )
        await letters.wait_for(lambda vs: len(vs) >= len(flood), timeout=600)
        for _ in range(10):
            await letters.poll()
        rows = await _audit_rows(pg_dsn, len(flood))
    finally:
        stop(worker)
        await letters.stop()
        await decisions.stop()
        await delete_topics(config)
    dead = [v for v in letters.values() if isinstance(v, DeadLetter)]
    assert len(dead) == len(flood)  # none lost, none twice
    assert len({(d.source_partition, d.source_offset) for d in dead}) == len(flood)
    assert {d.consumer for d in dead} == {"aggregator"}
    assert rows == len(flood)


async def _audit_rows(dsn: str, count: int) -> int:
    pool = await create_pool(dsn)
    query = "SELECT count(*) FROM audit_log WHERE event_type = 'dead_letter'"
    try:
        async with asyncio.timeout(300):
            while await pool.fetchval(query) < count:
                await asyncio.sleep(0.5)
        await asyncio.sleep(2)  # any extra would be in by now
        return int(await pool.fetchval(query))
    finally:
        await pool.close()
