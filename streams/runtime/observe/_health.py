"""Liveness and readiness of a worker.

- Liveness (`/healthz`): the process is alive and its event loop answers (the probe is served by
  that loop, so a blocked loop fails it by timing out), and no Faust app of the worker crashed.
- Readiness (`/readyz`): every named check passes: its consumer groups joined (and the aggregator
  recovered its table), the broker answers, the database answers and its migrations are applied.

A check is `async () -> (ok, detail)`; `Readiness` runs them concurrently, each within a time
budget (a check that hangs is a failed check, never a hung probe), and keeps the last answer for a
moment so that a probe storm does not become a query storm.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger(__name__)

CheckResult = tuple[bool, str]
Check = Callable[[], Awaitable[CheckResult]]


@dataclass
class Readiness:
    """Named readiness checks; `await readiness.run()` -> (ready, {name: (ok, detail)})."""

    timeout: float = 2.0
    cache_seconds: float = 1.0
    checks: dict[str, Check] = field(default_factory=dict)
    liveness: dict[str, Callable[[], CheckResult]] = field(default_factory=dict)
    _last: tuple[float, bool, dict[str, CheckResult]] | None = None
    _lock: asyncio.Lock | None = None

    def add(self, name: str, check: Check) -> None:
        self.checks[name] = check
        self._last = None

    def add_liveness(self, name: str, check: Callable[[], CheckResult]) -> None:
        self.liveness[name] = check

    def alive(self) -> tuple[bool, dict[str, CheckResult]]:
        results = {name: check() for name, check in self.liveness.items()}
        return all(ok for ok, _ in results.values()), results

    async def run(self) -> tuple[bool, dict[str, CheckResult]]:
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            now = time.monotonic()
            if self._last is not None and now - self._last[0] < self.cache_seconds:
                return self._last[1], self._last[2]
            names = list(self.checks)
            answers = await asyncio.gather(*(self._one(self.checks[n]) for n in names))
            results = dict(zip(names, answers, strict=True))
            if not results:
                results = {"starting": (False, "the stream is not built yet")}
            ready = all(ok for ok, _ in results.values())
            self._last = (time.monotonic(), ready, results)
            return ready, results

    async def _one(self, check: Check) -> CheckResult:
        try:
            async with asyncio.timeout(self.timeout):
                return await check()
        except TimeoutError:
            return False, f"no answer within {self.timeout:g} s"
        except Exception as exc:
            return False, f"{type(exc).__name__}: {str(exc)[:200]}"


# --- the checks ------------------------------------------------------------------------------


def broker_check(bootstrap: str) -> Check:
    """The broker answers a metadata request (one admin client, rebuilt after a failure)."""
    from aiokafka.admin import AIOKafkaAdminClient

    state: dict[str, Any] = {}

    async def check() -> CheckResult:
        admin = state.get("admin")
        try:
            if admin is None:
                admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=2000)
                state["admin"] = admin
                await admin.start()
            topics = await admin.list_topics()
        except BaseException:
            state.pop("admin", None)
            if admin is not None:
                with contextlib.suppress(Exception):  # closing a broken client
                    await admin.close()
            raise
        return True, f"{bootstrap} answers ({len(topics)} topics)"

    return check


def database_check(pool: Callable[[], Any], *, required: bool = True) -> Check:
    """PostgreSQL answers `SELECT 1` and every migration multiqa ships is applied."""

    async def check() -> CheckResult:
        current = pool()
        if current is None:
            if not required:
                return True, "no database configured"
            return False, "not connected yet"
        from streams.runtime.db import applied_migrations, available_migrations

        async with current.acquire() as conn:
            await conn.fetchval("SELECT 1")
        wanted = {m.version for m in available_migrations()}
        missing = sorted(wanted - set(await applied_migrations(current)))
        if missing:
            return False, f"migrations not applied: {', '.join(f'{v:03d}' for v in missing)}"
        return True, f"answers; {len(wanted)} migrations applied"

    return check


def faust_groups_check(apps: Callable[[], Iterable[Any]]) -> Check:
    """Every Faust app (one consumer group each) joined its group and is not rebalancing; an
    app with tables has also finished recovering them."""

    async def check() -> CheckResult:
        waiting: list[str] = []
        joined = 0
        for app in apps():
            group = app.conf.id
            if app.consumer_generation_id <= 0:
                waiting.append(f"{group}: not joined")
            elif app.rebalancing:
                waiting.append(f"{group}: rebalancing")
            elif app.tables.data and not app.tables.recovery.completed.is_set():
                waiting.append(f"{group}: recovering its table")
            else:
                joined += 1
        if waiting:
            return False, "; ".join(waiting)
        if not joined:
            return False, "no consumer group started"
        return True, f"{joined} consumer groups joined"

    return check


def faust_alive(apps: Callable[[], Iterable[Any]]) -> Callable[[], CheckResult]:
    """No Faust app of the worker has crashed (a crashed app stops consuming for good)."""

    def check() -> CheckResult:
        crashed = [app.conf.id for app in apps() if getattr(app, "crashed", False)]
        if crashed:
            return False, f"crashed: {', '.join(crashed)}"
        return True, "running"

    return check
