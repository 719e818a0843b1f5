"""What a worker logs: one ready line naming roles, broker and database; a second worker joining
(a normal rebalance) logs no error or warning; an outage is one line per reason every few
seconds, with a count and no traceback; the Faust web view listens on web_host only."""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agents.settings_service import SettingsService
from agents.settings_service import log as settings_log
from streams.runtime.worker_log import OutageFilter
from tests.helpers.ports import free_port

REPO = Path(__file__).resolve().parents[2]


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _record(name: str, msg: str, level: int = logging.WARNING, exc: BaseException | None = None):
    exc_info = (type(exc), exc, None) if exc else None
    return logging.LogRecord(name, level, __file__, 1, msg, (), exc_info)


def test_an_outage_is_one_line_per_reason_per_window_with_a_count() -> None:
    clock = Clock()
    outage = OutageFilter(5.0, clock=clock)
    passed = []
    for i in range(300):  # 300 failing reads within 3 s
        clock.now = 100.0 + i * 0.01
        record = _record(
            "agents.settings_service", "app_settings unreadable", exc=ConnectionError("x")
        )
        if outage.filter(record):
            passed.append(record)
    assert len(passed) == 1 and passed[0].exc_info is None  # no traceback
    assert "ConnectionError: x" in passed[0].getMessage()
    # Another reason is not held back by the first.
    assert outage.filter(
        _record("streams.runtime.sinks._sink", "PostgreSQL unavailable writing %s")
    )
    clock.now = 106.0
    again = _record("agents.settings_service", "app_settings unreadable", exc=ConnectionError("x"))
    assert outage.filter(again)
    assert "[299 more like this in the last 6 s]" in again.getMessage()


def test_other_records_pass_untouched_and_a_rebalance_is_not_a_warning() -> None:
    outage = OutageFilter(5.0, clock=Clock())
    bug = _record(
        "streams.runtime.reviewer_agents", "agent crashed", logging.ERROR, exc=KeyError("k")
    )
    assert outage.filter(bug) and outage.filter(bug) and bug.exc_info is not None
    heartbeat = "Heartbeat failed for group mq-reviewer-critic because it is rebalancing"
    assert not outage.filter(_record("aiokafka.consumer.group_coordinator", heartbeat))
    logging.getLogger().setLevel(logging.INFO)
    assert not outage.filter(_record("faust.tables.recovery", "Worker ready", logging.INFO))
    assert outage.filter(_record("streams.runtime.worker_log", "worker ready: ...", logging.INFO))


async def test_a_database_outage_under_load_logs_a_line_not_thousands(pg_pool) -> None:
    from streams.runtime.db import migrate

    await migrate(pg_pool)
    service = SettingsService(pg_pool, ttl_seconds=0)
    await service.get()  # a good read first: the outage serves it

    class Down:
        async def fetch(self, *args: object) -> list[object]:
            raise ConnectionRefusedError("connection refused")

    service.pool = Down()
    lines: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            lines.append(self.format(record))

    handler = Collect()
    handler.addFilter(OutageFilter(5.0))
    logger = settings_log  # the logger SettingsService really uses
    logger.addHandler(handler)
    try:
        for _ in range(2000):
            await service.get()
    finally:
        logger.removeHandler(handler)
    assert len(lines) == 1, lines[:3]
    assert "ConnectionRefusedError" in lines[0] and "Traceback" not in lines[0]


def _listening_addresses(port: int) -> set[str]:
    """Local addresses with a socket in LISTEN on `port` (from /proc/net/tcp, IPv4)."""
    found = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        local, state = line.split()[1], line.split()[3]
        address, hex_port = local.split(":")
        if state == "0A" and int(hex_port, 16) == port:
            found.add(socket.inet_ntoa(bytes.fromhex(address)[::-1]))
    return found


def _start(env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    with open(log, "wb") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "streams.cli", "worker", "--reviewers", "validator",
             "--no-sinks"],
            env=env, cwd=REPO, stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip


def _wait_for(log: Path, text: str, worker: subprocess.Popen[bytes], within: float) -> None:
    deadline = time.monotonic() + within
    while text not in log.read_text(errors="replace"):
        assert worker.poll() is None, log.read_text(errors="replace")[-3000:]
        assert time.monotonic() < deadline, log.read_text(errors="replace")[-3000:]
        time.sleep(0.5)


def _stop(worker: subprocess.Popen[bytes]) -> None:
    worker.terminate()
    try:
        worker.wait(timeout=60)
    except subprocess.TimeoutExpired:
        worker.kill()
        worker.wait()


@pytest.mark.timeout(600)
async def test_a_worker_logs_one_ready_line_and_a_rebalance_quietly(
    kafka_bootstrap, unique_topics, tmp_path
) -> None:
    prefix = unique_topics("mq").replace(".", "-")
    web_port = free_port()
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "MULTIQA_BOOTSTRAP_SERVERS": kafka_bootstrap,
        "MULTIQA_DATABASE_URL": "",
        "DATABASE_URL": "",
        "MULTIQA_CACHE_DIR": str(tmp_path / "cache"),  # no dev stack's database either
        "MULTIQA_APP_PREFIX": prefix,
        "MULTIQA_DRAFTS_TOPIC": unique_topics("qa.drafts"),
        "MULTIQA_REVIEWS_TOPIC": unique_topics("qa.reviews"),
        "MULTIQA_DECISIONS_TOPIC": unique_topics("qa.decisions"),
        "MULTIQA_DEAD_LETTERS_TOPIC": unique_topics("qa.dl"),
        "MULTIQA_PARTITIONS": "2",
        "MULTIQA_OPS_PORT": "0",
        "MULTIQA_WEB_PORT": str(web_port),
        "MULTIQA_BROKER_SESSION_TIMEOUT": "10",
        "MULTIQA_BROKER_HEARTBEAT_INTERVAL": "1",
        "MULTIQA_BROKER_REBALANCE_TIMEOUT": "10",
    }
    first_log, second_log = tmp_path / "w1.log", tmp_path / "w2.log"
    first = _start({**env, "MULTIQA_DATADIR": str(tmp_path / "d1")}, first_log)
    second = None
    try:
        await asyncio.to_thread(_wait_for, first_log, "worker ready: ", first, 240)
        # The table view listens on web_host (127.0.0.1), not on every interface.
        assert _listening_addresses(web_port) == {"127.0.0.1"}
        ready_at = len(first_log.read_text().splitlines())
        second = _start(
            {**env, "MULTIQA_DATADIR": str(tmp_path / "d2"), "MULTIQA_WEB_PORT": "0"}, second_log
        )
        await asyncio.to_thread(_wait_for, second_log, "worker ready: ", second, 240)
        await asyncio.sleep(5)  # the first worker's side of the rebalance
    finally:
        for worker in (second, first):
            if worker is not None:
                await asyncio.to_thread(_stop, worker)
    text = first_log.read_text()
    ready = [line for line in text.splitlines() if "worker ready: " in line]
    assert len(ready) == 1
    assert "roles reviewer-validator, aggregator" in ready[0]
    assert f"broker {kafka_bootstrap}" in ready[0] and "database none" in ready[0]
    after = text.splitlines()[ready_at:]
    noisy = [line for line in after if "[ERROR]" in line or "[WARNING]" in line]
    assert noisy == [], noisy[:5]
    assert "Traceback" not in text
    assert len(text.splitlines()) < 60, len(text.splitlines())  # was hundreds
