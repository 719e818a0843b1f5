"""Fixtures for the operator CLI tests: a stream configuration of the test's own (unique topic
names on the real broker, a fresh migrated database), and ways to run `multiqa`."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from aiokafka import AIOKafkaProducer
from aiokafka.admin import AIOKafkaAdminClient

from schemas import Provider, QADecision, ReviewerResult, ReviewStatus, ReviewSummary, encode
from streams.cli import main
from streams.runtime.config import StreamConfig
from streams.runtime.db import create_pool, migrate
from streams.runtime.topics import ensure_topics

REPO = Path(__file__).resolve().parents[3]


@dataclass
class CliEnv:
    config: StreamConfig
    env: dict[str, str]  # the MULTIQA_* variables that select this test's topics and database

    async def produce(self, topic: str, value: bytes, key: bytes) -> None:
        producer = AIOKafkaProducer(bootstrap_servers=self.config.bootstrap_servers)
        await producer.start()
        try:
            await producer.send_and_wait(topic, value, key=key)
        finally:
            await producer.stop()

    async def worker_config(self, datadir: Path, **changes: Any) -> StreamConfig:
        """This test's stream config for a worker of its own (quick broker timeouts, Faust's data
        in `datadir`), with every topic created first, as `multiqa worker` does."""
        config = self.config.with_overrides(
            datadir=str(datadir),
            broker_session_timeout=10.0,
            broker_heartbeat_interval=1.0,
            broker_rebalance_timeout=10.0,
            **changes,
        )
        await ensure_topics(config)
        return config

    async def publish_decision(self, decision: QADecision) -> None:
        """Put a decision on this test's decisions topic, as the aggregator would."""
        await self.produce(
            self.config.decisions_topic, encode(decision), decision.draft_id.encode()
        )


@pytest.fixture
async def cli_env(
    kafka_bootstrap: str,
    pg_dsn: str,
    unique_topics: Callable[[str], str],
    create_topics: Callable[..., Any],
    monkeypatch: Any,
) -> AsyncIterator[CliEnv]:
    env = {
        "MULTIQA_BOOTSTRAP_SERVERS": kafka_bootstrap,
        "MULTIQA_DATABASE_URL": pg_dsn,
        "MULTIQA_DRAFTS_TOPIC": unique_topics("qa.drafts"),
        "MULTIQA_REVIEWS_TOPIC": unique_topics("qa.reviews"),
        "MULTIQA_DECISIONS_TOPIC": unique_topics("qa.decisions"),
        "MULTIQA_DEAD_LETTERS_TOPIC": unique_topics("qa.dead-letters"),
        "MULTIQA_PARTITIONS": "2",
        # Consumer groups and the aggregator's internal topics are named after the app prefix.
        "MULTIQA_APP_PREFIX": unique_topics("multiqa").replace(".", "-"),
    }
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    config = StreamConfig.from_env(env)
    # Created up front: a test's reader must never auto-create one with the broker's default
    # partition count (the CLI would then rightly refuse the mismatch).
    await create_topics(*config.topic_names(), partitions=config.partitions)
    pool = await create_pool(pg_dsn)
    try:
        await migrate(pool)
    finally:
        await pool.close()
    try:
        yield CliEnv(config, env)
    finally:
        admin = AIOKafkaAdminClient(bootstrap_servers=kafka_bootstrap)
        await admin.start()
        try:
            prefix = config.app_prefix
            ours = {
                t
                for t in await admin.list_topics()
                if t in config.topic_names() or t.startswith(prefix)
            }
            if ours:
                await admin.delete_topics(list(ours))
        finally:
            await admin.close()


@pytest.fixture
def run_cli(capsys: Any) -> Callable[..., Any]:
    """`code, out, err = await run_cli("status", "d-1")`: streams.cli.main in a thread (it runs
    its own event loop), with stdout/stderr captured."""

    async def run(*argv: str) -> tuple[int, str, str]:
        capsys.readouterr()
        code = await asyncio.to_thread(main, list(argv))
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return run


def _cli_subprocess(
    *argv: str, env: dict[str, str] | None = None, stdin: bytes | None = None
) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, **(env or {}), "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [sys.executable, "-m", "streams.cli", *argv],
        env=full_env,
        cwd=REPO,
        input=stdin.decode() if stdin is not None else None,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture
def cli_subprocess() -> Callable[..., subprocess.CompletedProcess[str]]:
    """`cli_subprocess("status", "d-1", env={...})`: `multiqa ...` as its own process (the
    console script's entry point), for exit codes and stderr exactly as an operator sees them."""
    return _cli_subprocess


@pytest.fixture
def cli_command() -> list[str]:
    """argv prefix that runs `multiqa` in a subprocess (cwd must be the repository)."""
    return [sys.executable, "-m", "streams.cli"]


@pytest.fixture
def repo_root() -> Path:
    return REPO


@pytest.fixture
def make_decision() -> Callable[..., QADecision]:
    def make(draft_id: str, version: int = 1, **changes: Any) -> QADecision:
        fields: dict[str, Any] = {
            "decision_id": str(uuid.uuid5(uuid.NAMESPACE_URL, f"{draft_id}/{version}")),
            "draft_id": draft_id,
            "version": version,
            "approved": False,
            "final_score": 48.0,
            "summary": "rejected: 48.0/100, validator critical fabricated_statistic",
            "feedback_text": "REJECTED (48.0/100)\n- validator: unsourced statistic '47%'",
            "reviews": (
                ReviewSummary("validator", "programmatic", "ok", False, 48.0, "1 critical"),
                ReviewSummary("critic", "ollama", "skipped", False, 0.0, "Ollama not reachable"),
            ),
            "short_circuited": True,
            "decided_at": datetime.now(UTC).replace(microsecond=0),
        }
        fields.update(changes)
        return QADecision(**fields)

    return make


@pytest.fixture
def make_review_result() -> Callable[..., ReviewerResult]:
    def make(
        draft_id: str,
        reviewer: str,
        score: float,
        *,
        version: int = 1,
        status: str = "ok",
        produced_at: datetime | None = None,
    ) -> ReviewerResult:
        return ReviewerResult(
            reviewer, score >= 70, score, f"{reviewer} says {score:g}", Provider.PROGRAMMATIC,
            status=ReviewStatus(status), draft_id=draft_id, version=version,
            produced_at=produced_at or datetime.now(UTC),
        )  # fmt: skip

    return make
