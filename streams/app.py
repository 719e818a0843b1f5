"""The multiqa stream in one process: one Faust app per role, each its own consumer group.

Faust has one consumer group per `faust.App` (the app id is the group id). multiqa wants a group
per reviewer, so that each reviewer is scaled and deployed on its own and a worker running only
the critic shares the critic's partitions with an all-in-one worker instead of reviewing every
draft a second time. So `create_app` builds one Faust app per role:

    <prefix>-reviewer-<name>   one per reviewer run here (streams.reviewer_agents)
    <prefix>-aggregator        the table, its agent and timer (streams.aggregator)
    <prefix>-sinks             PostgreSQL persistence (streams.sinks), when a database is set

and `MultiQA` starts and stops them together in one event loop (Faust's Worker takes extra
services, apps included). Each app has its own consumer, producer and consumer group.

The sinks are `streams.sinks.install(app, topics, runtime)` on the `sinks` app.
"""

from __future__ import annotations

import asyncio
import importlib.util
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import faust
import mode

from agents.base import Deps, ReviewerSpec
from agents.registry import all_reviewers
from agents.settings import Settings
from streams import topics as topics_module
from streams.aggregator import Aggregator
from streams.config import StreamConfig
from streams.deadletter import DeadLetterAudit, DeadLetters
from streams.reviewer_agents import ReviewerAgent
from streams.topics import Topics

log = logging.getLogger("multiqa.streams")

SettingsSource = Callable[[], Awaitable[Settings]]


async def default_settings() -> Settings:
    return Settings()


@dataclass
class Runtime:
    """What every agent in the process shares: configuration, the settings in force, the
    reviewers' clients, and where dead letters are audited."""

    config: StreamConfig
    settings: SettingsSource = default_settings
    deps: Deps = field(default_factory=Deps)
    dead_letter_audit: DeadLetterAudit | None = None
    pool: Any = None  # asyncpg.Pool when config.database_url is set
    clock: Callable[[], float] = time.time


def make_faust_app(
    config: StreamConfig, role: str, *, web: bool = False, wait_empty: bool = True
) -> faust.App:
    """A Faust app for one role, with multiqa's broker, timing and topic settings.

    `wait_empty=False` lets the app give up partitions (rebalance, shutdown) without waiting for
    the events in flight to finish: right for reviewers, whose events may take minutes (an LLM
    call) and are simply redelivered when unacked; wrong for the aggregator, which must not
    write to a table partition it no longer owns."""
    app_id = config.group_id(role)
    return faust.App(
        app_id,
        broker=config.broker_url(),
        autodiscover=False,
        store=config.table_store,
        datadir=str(Path(config.datadir) / app_id),
        topic_partitions=config.partitions,
        topic_replication_factor=config.replication_factor,
        # No per-app leader topic: multiqa runs no leader-only tasks.
        topic_disable_leader=True,
        # A new consumer group starts at the beginning: no draft submitted before the first
        # worker started is skipped (and "latest" can wedge table recovery, faust-streaming#651).
        consumer_auto_offset_reset="earliest",
        broker_session_timeout=config.broker_session_timeout,
        broker_heartbeat_interval=config.broker_heartbeat_interval,
        broker_rebalance_timeout=config.broker_rebalance_timeout,
        broker_request_timeout=config.broker_request_timeout,
        broker_commit_interval=config.broker_commit_interval,
        processing_guarantee="at_least_once",
        stream_wait_empty=wait_empty,
        web_enabled=web and config.web_port > 0,
        web_port=config.web_port or 6066,
        web_host=config.web_host,
    )


def resolve_reviewers(
    config: StreamConfig, roster: Sequence[ReviewerSpec] | None = None
) -> tuple[ReviewerSpec, ...]:
    """The reviewers deployed in the system: `roster`, else the registry, limited to
    `config.reviewers` when that is set."""
    specs = tuple(roster) if roster is not None else all_reviewers()
    wanted = config.deployed_reviewers()
    if wanted is None:
        return specs
    by_name = {spec.name: spec for spec in specs}
    unknown = [name for name in wanted if name not in by_name]
    if unknown:
        raise ValueError(
            f"MULTIQA_REVIEWERS names unknown reviewers {unknown}; available: {sorted(by_name)}"
        )
    return tuple(by_name[name] for name in wanted)


def select_reviewers(
    config: StreamConfig,
    reviewers: Sequence[str] | None,
    *,
    roster: Sequence[ReviewerSpec] | None = None,
    with_aggregator: bool = True,
    with_sinks: bool = True,
) -> tuple[tuple[ReviewerSpec, ...], list[ReviewerSpec]]:
    """(deployed, to run here); ValueError for unknown names or nothing to run at all."""
    deployed = resolve_reviewers(config, roster)
    by_name = {spec.name: spec for spec in deployed}
    if reviewers is None:
        selected = list(deployed)
    else:
        unknown = [name for name in reviewers if name not in by_name]
        if unknown:
            raise ValueError(f"unknown reviewers {unknown}; deployed: {sorted(by_name)}")
        selected = [by_name[name] for name in dict.fromkeys(reviewers)]
    sinks = with_sinks and bool(config.database_url)
    if not selected and not with_aggregator and not sinks:
        raise ValueError("nothing to run: no reviewers, no aggregator, no sinks")
    on_disk = config.table_store.startswith("rocksdb")
    if with_aggregator and on_disk and importlib.util.find_spec("rocksdict") is None:
        raise ValueError(
            f"MULTIQA_TABLE_STORE={config.table_store} needs the RocksDB binding: "
            "pip install 'multiqa[rocksdb]' (or use memory://)"
        )
    return deployed, selected


class MultiQA:
    """The stream's Faust apps in one process (see the module docstring)."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self.config = runtime.config
        self.apps: dict[str, faust.App] = {}
        self.topics: dict[str, Topics] = {}
        self.reviewers: dict[str, ReviewerAgent] = {}
        self.aggregator: Aggregator | None = None
        self.sinks: Any = None  # streams.sinks.SinkAgents when the sinks run here

    def add_app(
        self, role: str, *, web: bool = False, wait_empty: bool = True
    ) -> tuple[faust.App, Topics]:
        app = make_faust_app(self.config, role, web=web, wait_empty=wait_empty)
        declared = topics_module.declare(app, self.config)
        self.apps[role] = app
        self.topics[role] = declared
        return app, declared

    def dead_letters(self, topics: Topics, consumer: str) -> DeadLetters:
        return DeadLetters(topics.dead_letters, consumer, audit=self.runtime.dead_letter_audit)

    def make_datadir(self) -> None:
        # Faust creates its app's folder but not the parents.
        Path(self.config.datadir).mkdir(parents=True, exist_ok=True)

    async def start(self) -> None:
        """Start every app in this event loop (tests, embedding); `worker()` for a process."""
        self.make_datadir()
        # Concurrently: each app's start waits for its consumer group to form (and, after a
        # crash, for the dead member's session to expire); one after the other adds those up.
        await asyncio.gather(*(app.start() for app in self.apps.values()))

    async def stop(self) -> None:
        await asyncio.gather(*(app.stop() for app in self.apps.values()))

    def worker(self, **kwargs: Any) -> faust.Worker:
        """A Faust Worker that runs every app (signals, logging, clean shutdown)."""
        self.make_datadir()
        apps = list(self.apps.values())
        # The Worker starts its services one after the other; _Together starts the apps at once
        # (the Worker then finds its main app already started).
        worker = faust.Worker(apps[0], _Together(apps), **kwargs)
        # At loglevel warning or above, Faust's startup spinner sets the root logger to DEBUG
        # (to spin on every record) for the whole run: every debug call of aiokafka and Faust,
        # several per Kafka message, then builds a LogRecord. Measured with zero-cost reviewers:
        # about 5% of the worker's CPU, for a spinner a worker under a supervisor never shows.
        worker.spinner = None
        return worker


class _Together(mode.Service):
    """Starts and stops Faust apps concurrently (see MultiQA.start for why)."""

    def __init__(self, apps: Sequence[faust.App], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.apps = list(apps)

    async def on_start(self) -> None:
        await asyncio.gather(*(app.maybe_start() for app in self.apps))

    async def on_stop(self) -> None:
        await asyncio.gather(*(app.stop() for app in self.apps))


def create_app(
    config: StreamConfig,
    *,
    reviewers: Sequence[str] | None = None,
    with_aggregator: bool = True,
    with_sinks: bool = True,
    roster: Sequence[ReviewerSpec] | None = None,
    runtime: Runtime | None = None,
) -> MultiQA:
    """Build the stream for one process.

    reviewers:       names of the reviewers to run here (None: every deployed reviewer).
    with_aggregator: run the aggregator here.
    with_sinks:      run the PostgreSQL sinks here (needs `config.database_url`).
    roster:          the reviewers deployed in the whole system (default: agents.registry, limited
                     by MULTIQA_REVIEWERS); the aggregator expects answers from these only.
    runtime:         settings source, reviewer dependencies, audit (default: Settings() and no
                     database).
    """
    runtime = runtime or Runtime(config)
    deployed, selected = select_reviewers(
        config,
        reviewers,
        roster=roster,
        with_aggregator=with_aggregator,
        with_sinks=with_sinks,
    )
    stream = MultiQA(runtime)
    for spec in selected:
        app, declared = stream.add_app(f"reviewer-{spec.name}", wait_empty=False)
        stream.reviewers[spec.name] = ReviewerAgent(
            app,
            declared,
            spec,
            settings=runtime.settings,
            deps=runtime.deps,
            dead_letters=stream.dead_letters(declared, f"reviewer-{spec.name}"),
            concurrency=config.reviewer_concurrency,
        )
    if with_aggregator:
        app, declared = stream.add_app("aggregator", web=True)
        stream.aggregator = Aggregator(
            app,
            declared,
            config,
            roster=deployed,
            settings=runtime.settings,
            dead_letters=stream.dead_letters(declared, "aggregator"),
            clock=runtime.clock,
        )
    if with_sinks and config.database_url:
        from streams.sinks import install  # imports asyncpg; only where a database is used

        app, declared = stream.add_app("sinks")
        stream.sinks = install(app, declared, runtime)
    return stream
