"""The operations endpoint of one worker process, wired to its stream.

    ops = WorkerOps(config)            # readiness checks, lag poller, the server (not bound yet)
    await ops.start()                  # bind: probes answer "not ready" from here on
    ...                                # wait for the broker, connect the database, build apps
    ops.attach(stream, runtime)        # groups joined? table recovered? lag of its partitions
    await ops.stop()

`attach` is the one place that knows the stream's runtime layout (its Faust apps, the
aggregator's table); the checks themselves are generic (streams.runtime.observe._health).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from streams.runtime.config import StreamConfig
from streams.runtime.observe._health import (
    CheckResult,
    Readiness,
    broker_check,
    database_check,
    faust_alive,
    faust_groups_check,
)
from streams.runtime.observe._lag import LagPoller
from streams.runtime.observe._metrics import AGGREGATOR_IN_FLIGHT
from streams.runtime.observe._server import OpsServer

if TYPE_CHECKING:
    from streams.runtime.app import MultiQA, Runtime

log = logging.getLogger(__name__)


class WorkerOps:
    def __init__(self, config: StreamConfig, *, port: int | None = None) -> None:
        self.config = config
        self.stream: MultiQA | None = None
        self.pool: Any = None
        self.readiness = Readiness()
        self.readiness.add("broker", broker_check(config.bootstrap_servers))
        if config.database_url:
            self.readiness.add("database", database_check(lambda: self.pool))
        self.readiness.add("consumer_groups", self._groups)
        self.readiness.add_liveness("apps", faust_alive(self._apps))
        self.lag = LagPoller(config.bootstrap_servers, self._assignments)
        self.server = OpsServer(
            self.readiness,
            host=config.ops_host,
            port=config.ops_port if port is None else port,
            extra_routes=self._ui_routes if config.ui else None,
            on_start=[self.lag],
        )
        self._groups_check = faust_groups_check(self._apps)

    async def start(self) -> None:
        await self.server.start()

    async def stop(self) -> None:
        await self.server.stop()
        if self._ui is not None:
            await self._ui.close()

    def attach(self, stream: MultiQA, runtime: Runtime) -> None:
        self.stream = stream
        self.pool = runtime.pool
        aggregator = stream.aggregator
        if aggregator is not None:
            AGGREGATOR_IN_FLIGHT.set_function(lambda: _undecided(aggregator.cache))

    # --- what the checks and the poller read ---------------------------------------------------
    def _apps(self) -> list[Any]:
        return [] if self.stream is None else list(self.stream.apps.values())

    async def _groups(self) -> CheckResult:
        if self.stream is None:
            return False, "starting: the stream's apps are not built yet"
        return await self._groups_check()

    def _assignments(self) -> dict[str, set[tuple[str, int]]]:
        owned: dict[str, set[tuple[str, int]]] = {}
        for app in self._apps():
            try:
                assignment = app.consumer.assignment()
            except Exception:  # noqa: S112 (not started yet, or stopping: nothing to report)
                continue
            # Left out: the aggregator's own deadlines topic (a timer's, not work waiting) and
            # the tables' changelogs, which the group reads to recover a table but never commits
            # (their "lag" would be the whole changelog, growing for ever).
            skip = {self.config.deadlines_topic, *_changelog_topics(app)}
            owned[app.conf.id] = {
                (tp.topic, tp.partition) for tp in assignment if tp.topic not in skip
            }
        return owned

    # --- the decisions pages on this worker (MULTIQA_UI) ----------------------------------------
    _ui: Any = None

    def _ui_routes(self, app: Any) -> None:
        from streams.ui import DecisionsUI

        self._ui = DecisionsUI(
            pool=lambda: self.pool,
            dsn=self.config.database_url,
            trace_url=self.config.trace_url,
        )
        self._ui.add_routes(app)


def _changelog_topics(app: Any) -> set[str]:
    try:
        return set(app.tables.changelog_topics)
    except Exception:  # no table manager yet: nothing to leave out
        return set()


def _undecided(table: Any) -> int:
    from streams.runtime._entry import is_meta_key, is_undecided

    return sum(
        1
        for key, value in list(table.items())
        if not is_meta_key(key) and isinstance(value, dict) and is_undecided(value)
    )
