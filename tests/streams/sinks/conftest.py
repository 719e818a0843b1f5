"""Fixtures for the sink tests: a migrated database from the shared harness, record factories,
and a throwaway PostgreSQL server of our own that a test may stop and restart (the shared test
server must never be stopped)."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from schemas.records import (
    Cost,
    Finding,
    Provider,
    QADecision,
    ReviewerResult,
    ReviewStatus,
    ReviewSummary,
    Severity,
    Span,
)
from streams.runtime.db import create_pool, migrate

_DECISION_NS = uuid.UUID("5f1a4d6e-0d0c-4a57-9b59-4c1f8f0e2a11")


@pytest.fixture
async def sink_pool(pg_dsn: str) -> AsyncIterator[Any]:
    """A production pool (streams.runtime.db.create_pool: jsonb as Python objects) on the harness's
    fresh per-test database, with every migration applied."""
    pool = await create_pool(pg_dsn)
    try:
        await migrate(pool)
        yield pool
    finally:
        await pool.close()


@pytest.fixture
def make_decision() -> Callable[..., QADecision]:
    def make(draft_id: str = "d-1", version: int = 1, **changes: Any) -> QADecision:
        fields: dict[str, Any] = {
            "decision_id": str(uuid.uuid5(_DECISION_NS, f"{draft_id}\x1f{version}")),
            "draft_id": draft_id,
            "version": version,
            "approved": True,
            "final_score": 82.5,
            "summary": "approved 82.5/100",
            "feedback_text": f"APPROVED {draft_id} v{version}: score 82.5",
            "task_id": "task-1",
            "reviews": (
                ReviewSummary("validator", "programmatic", "ok", True, 94.0, "2 warnings"),
                ReviewSummary("critic", "ollama", "skipped", False, 0.0, "ollama unreachable"),
            ),
            "settings_version": "abc123",
            "decided_at": datetime(2026, 1, 2, 3, 4, 5, 678000, tzinfo=UTC),
        }
        fields.update(changes)
        return QADecision(**fields)

    return make


@pytest.fixture
def make_review() -> Callable[..., ReviewerResult]:
    def make(
        draft_id: str = "d-1", version: int = 1, reviewer: str = "validator", **changes: Any
    ) -> ReviewerResult:
        fields: dict[str, Any] = {
            "approved": False,
            "score": 61.0,
            "feedback": "needs sources",
            "provider": Provider.PROGRAMMATIC,
            "status": ReviewStatus.OK,
            "findings": (
                Finding(
                    "fabricated_statistic",
                    Severity.CRITICAL,
                    "unsourced statistic",
                    Span(10, 28, "a 47% increase"),
                ),
                Finding("filler_intro", Severity.WARNING, "filler intro"),
            ),
            "cost": Cost(
                tokens_in=120,
                tokens_out=40,
                usd=0.0012,
                kwh=0.0001,
                duration_ms=850,
                model="gemma3:27b",
            ),
            "draft_id": draft_id,
            "version": version,
            "produced_at": datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC),
        }
        fields.update(changes)
        return ReviewerResult(reviewer=reviewer, **fields)

    return make


# --- a PostgreSQL server of our own -----------------------------------------------------------

_PG_BIN_DIRS = ("/usr/lib/postgresql/15/bin", "/usr/lib/postgresql/16/bin")


def _pg_bin() -> Path | None:
    for candidate in _PG_BIN_DIRS:
        if (Path(candidate) / "initdb").exists():
            return Path(candidate)
    found = shutil.which("initdb")
    return Path(found).parent if found else None


class ThrowawayPostgres:
    """initdb + pg_ctl on a free port in a temporary folder; as root, run as `postgres`
    (initdb refuses root). start/stop as often as a test likes; destroy removes it all."""

    def __init__(self, bin_dir: Path) -> None:
        self._bin = bin_dir
        self.root = Path(tempfile.mkdtemp(prefix=_PREFIX))
        self.root.chmod(0o755)  # mkdtemp makes it 0700; the postgres user must get in
        self.data = self.root / "data"
        self.log = self.root / "server.log"
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = int(s.getsockname()[1])
        self.dsn = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"
        if os.geteuid() == 0:
            shutil.chown(self.root, "postgres", "postgres")
        self._run(
            "initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8",
            "--locale=C.UTF-8", "-N",
        )  # fmt: skip

    def _run(self, tool: str, *args: str) -> None:
        cmd = [str(self._bin / tool), *args]
        if os.geteuid() == 0:
            cmd = ["runuser", "-u", "postgres", "--", *cmd]
        subprocess.run(cmd, check=True, capture_output=True, timeout=60)

    def start(self) -> None:
        options = (
            f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.root}"
            " -c fsync=off -c full_page_writes=off"
        )
        self._run(
            "pg_ctl", "-D", str(self.data), "-l", str(self.log), "-w", "-t", "30",
            "-o", options, "start",
        )  # fmt: skip

    def stop(self) -> None:
        # "fast" aborts open transactions and drops clients: what an outage looks like to them.
        self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "-t", "30", "stop")

    def destroy(self) -> None:
        with contextlib.suppress(subprocess.CalledProcessError):  # already stopped
            self.stop()
        shutil.rmtree(self.root, ignore_errors=True)


_PREFIX = "multiqa-throwaway-pg-"
# No test runs this long (pytest timeout 300 s): an older server folder was left by a killed run.
_STALE_SECONDS = 1800


def _sweep_stale(bin_dir: Path) -> None:
    """Stop and remove servers that a killed test run left behind."""
    now = time.time()
    for root in Path(tempfile.gettempdir()).glob(_PREFIX + "*"):
        try:
            if now - root.stat().st_mtime < _STALE_SECONDS:
                continue
            if (root / "data" / "postmaster.pid").exists():
                cmd = [str(bin_dir / "pg_ctl"), "-D", str(root / "data"), "-m", "immediate", "stop"]
                if os.geteuid() == 0:
                    cmd = ["runuser", "-u", "postgres", "--", *cmd]
                subprocess.run(cmd, capture_output=True, timeout=60, check=False)
            shutil.rmtree(root, ignore_errors=True)
        except OSError:
            continue  # another run is sweeping the same folder


@pytest.fixture
def throwaway_pg() -> Iterator[ThrowawayPostgres]:
    bin_dir = _pg_bin()
    if bin_dir is None or (os.geteuid() == 0 and shutil.which("runuser") is None):
        pytest.skip("PostgreSQL server binaries (initdb, pg_ctl) are not installed")
    _sweep_stale(bin_dir)
    server = ThrowawayPostgres(bin_dir)
    server.start()
    try:
        yield server
    finally:
        server.destroy()


@pytest.fixture
async def throwaway_pool(throwaway_pg: ThrowawayPostgres) -> AsyncIterator[Any]:
    pool = await create_pool(throwaway_pg.dsn, min_size=1, max_size=4)
    await migrate(pool)
    try:
        yield pool
    finally:
        pool.terminate()
