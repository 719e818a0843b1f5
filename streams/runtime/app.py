"""The multiqa stream in one process: one Faust app hosting every role the process runs.

A worker runs any set of roles: `reviewer-<name>` per reviewer (streams.runtime.reviewer_agents),
`aggregator` (the table, its agent and timer: streams.runtime.aggregator) and `sinks` (PostgreSQL:
streams.runtime.sinks). They share one `faust.App`, hence one consumer, one producer and one
consumer group (`streams.runtime._layout`: the group id names the roles). An event is fetched and
decoded once and handed to every agent that reads its topic (Faust's conductor reuses the decoded
event across channels with `cython_optimizations`); writes of every role share produce requests.

Production keeps each reviewer independently scalable by running role sets side by side: e.g.
`multiqa worker --reviewers critic --no-aggregator --no-sinks` on GPU boxes (group
`<prefix>-reviewer-critic`) next to workers running the rest, each role in exactly one role set
(see streams.runtime._layout and the README's "Workers").

The sinks are `streams.runtime.sinks.install(app, topics, runtime)` on the same app.
"""

from __future__ import annotations

import importlib.util
import logging
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

import faust
from mode.utils.objects import cached_property
from mode.utils.queues import FlowControlEvent

from agents.base import ReviewerSpec
from agents.registry import all_reviewers
from streams.runtime import _layout as layout
from streams.runtime import topics as topics_module
from streams.runtime._fetch import ScreeningConsumer
from streams.runtime._heap import freeze_when_ready
from streams.runtime._runtime import Runtime as Runtime  # where it is defined
from streams.runtime._runtime import SettingsSource as SettingsSource
from streams.runtime._runtime import default_settings as default_settings
from streams.runtime._screen import Screen
from streams.runtime.aggregator import Aggregator
from streams.runtime.config import StreamConfig
from streams.runtime.deadletter import AuditLane, DeadLetters
from streams.runtime.reviewer_agents import DecisionWatcher, ReviewerAgent
from streams.runtime.topics import Topics

log = logging.getLogger(__name__)


class KeepEventsOnResume(FlowControlEvent):
    """Faust's flow control, except that resuming the flow after a rebalance keeps the events
    already queued for the agents.

    Faust 0.15.3 resumes the stream partitions and seeks them to the committed offsets, then
    resumes the flow, which empties every agent's queue (`FlowControlEvent.resume`). Events
    fetched from the committed offset in between are by then in every queue: an agent that keeps
    up has taken them, a busy one (the critic with all its review slots taken) loses them, and
    the consumer is already past them, so they never come again. On this machine that left the
    survivor of tests/streams/test_crash.py's fail-over test with 6-30 drafts the validator and
    urls had reviewed twice and the critic never, each waiting for its timeout, and the group's
    commit stuck at the first lost draft (faust-streaming#596 is this race). The queues are
    already emptied when the partitions are revoked (`flow_control.clear()`, followed by the seek
    to the committed offsets), so what is queued at resume was fetched from there: it is kept.
    The table manager's changelog queue is still emptied as Faust does (recovery reads it)."""

    def __init__(self, app: faust.App, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._app = app

    def resume(self) -> None:
        self._suspend.clear()
        self._resume.set()
        changelog = getattr(self._app.tables, "_changelog_queue", None)
        if changelog is not None:
            changelog.clear()


class WorkerApp(faust.App):
    """A Faust app hosting several roles.

    `stream_wait_empty` is off: on a rebalance or at shutdown Faust does not wait for the events
    in flight to be acknowledged, which suits reviewers (a review may take minutes; an unacked
    draft is simply redelivered) and sinks (idempotent writes). The aggregator, however, must not
    write to a table partition it no longer owns: it registers a `quiesce` hook, awaited where
    Faust would otherwise wait for every stream, which returns once the event it is applying and
    its changelog writes are done."""

    quiesce_hooks: list[Callable[[], Awaitable[None]]]

    # Takes bad events of the aggregator's inputs (and, with the sinks, the dead letters they
    # audit) out of each fetched batch, below Faust's per-message delivery: the consumer is
    # streams.runtime._fetch.ScreeningConsumer, the screen streams.runtime._screen.
    screen: Screen | None = None

    @cached_property
    def flow_control(self) -> FlowControlEvent:
        return KeepEventsOnResume(self, loop=self.loop)

    # How long the broker holds a fetch with nothing new (streams.runtime._fetch); None: Faust's.
    fetch_wait_seconds: float | None = None

    def _new_consumer(self) -> Any:
        return ScreeningConsumer(
            self.transport,
            callback=self.topics.on_message,
            on_partitions_revoked=self._on_partitions_revoked,
            on_partitions_assigned=self._on_partitions_assigned,
            beacon=self.beacon,
            loop=self.loop,
        )

    async def on_stop(self) -> None:
        if self.screen is not None:
            await self.screen.close()
        await super().on_stop()

    async def _consumer_wait_empty(self, consumer: Any, logger: Any) -> None:
        for hook in getattr(self, "quiesce_hooks", ()):
            await hook()
        try:
            await consumer.commit()  # what was acknowledged, before the partitions go
        except Exception:  # a commit refused during a rebalance: the next owner redoes it
            log.warning("commit before giving up partitions failed", exc_info=True)


def make_faust_app(config: StreamConfig, group: str, *, web: bool = False) -> WorkerApp:
    """The process's Faust app (app id == consumer group), with multiqa's broker, timing and
    topic settings."""
    app = WorkerApp(
        group,
        broker=config.broker_url(),
        autodiscover=False,
        store=config.table_store,
        datadir=str(Path(config.datadir) / group),
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
        # At most this many records per fetch call (Faust's default has no limit): a flood of
        # 10,000 bad events is screened and parked 2,000 at a time instead of all held at once.
        broker_max_poll_records=2000,
        # One producer carries every role's writes: let them gather for a few milliseconds, so
        # a burst travels in a few large produce requests instead of one per message (each
        # request costs the worker and the broker; measured in bench/bench_stream.py).
        producer_linger=config.broker_linger,
        producer_max_batch_size=256 * 1024,
        stream_wait_empty=False,  # see WorkerApp
        # Decode an event once for all the channels of its topic, and take events already
        # queued without awaiting (faust-streaming#765: the repaired Cython fast paths).
        cython_optimizations=True,
        # Drafts up to MULTIQA_MAX_DRAFT_BYTES: aiokafka's 1 MB defaults would refuse them.
        producer_max_request_size=config.max_message_bytes,
        consumer_max_fetch_size=config.max_message_bytes,
        web_enabled=web and config.web_port > 0,
        web_port=config.web_port or 6066,
        # web_host is only the name Faust advertises; web_bind is the address it listens on
        # (Faust's default 0.0.0.0 would expose the table view on every interface).
        web_host=config.web_host,
        web_bind=config.web_host,
    )
    app.quiesce_hooks = []
    app.fetch_wait_seconds = config.broker_fetch_wait
    freeze_when_ready(app)  # the start-up heap out of the collector's full passes (_heap)
    return app


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
    """The process's roles on one Faust app (see the module docstring)."""

    def __init__(self, runtime: Runtime, app: WorkerApp, topics: Topics) -> None:
        self.runtime = runtime
        self.config = runtime.config
        self.app = app
        self.topics = topics
        self.reviewers: dict[str, ReviewerAgent] = {}
        self.aggregator: Aggregator | None = None
        self.sinks: Any = None  # streams.runtime.sinks.SinkAgents when the sinks run here

    @property
    def group_id(self) -> str:
        return str(self.app.conf.id)

    @property
    def apps(self) -> dict[str, faust.App]:
        """{group id: app}: the one app (for code written when each role had its own)."""
        return {self.group_id: self.app}

    def dead_letters(self, consumer: str) -> DeadLetters:
        return DeadLetters(self.topics.dead_letters, consumer, audit=self.runtime.dead_letter_audit)

    def make_datadir(self) -> None:
        # Faust creates its app's folder but not the parents.
        Path(self.config.datadir).mkdir(parents=True, exist_ok=True)

    async def start(self) -> None:
        """Start the app in this event loop (tests, embedding); `worker()` for a process."""
        self.make_datadir()
        await self.app.start()

    async def stop(self) -> None:
        await self.app.stop()

    def worker(self, **kwargs: Any) -> faust.Worker:
        """A Faust Worker that runs the app (signals, logging, clean shutdown)."""
        self.make_datadir()
        worker = faust.Worker(self.app, **kwargs)
        # At loglevel warning or above, Faust's startup spinner sets the root logger to DEBUG
        # (to spin on every record) for the whole run: every debug call of aiokafka and Faust,
        # several per Kafka message, then builds a LogRecord. Measured with zero-cost reviewers:
        # about 5% of the worker's CPU, for a spinner a worker under a supervisor never shows.
        worker.spinner = None
        return worker


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
    sinks = with_sinks and bool(config.database_url)
    process_roles = layout.roles(
        [spec.name for spec in selected], aggregator=with_aggregator, sinks=sinks
    )
    app = make_faust_app(config, layout.group_id(config, process_roles), web=True)
    stream = MultiQA(runtime, app, topics_module.declare(app, config))
    app.screen = Screen(
        {
            config.drafts_topic: stream.topics.drafts.schema,
            config.reviews_topic: stream.topics.reviews.schema,
        },
        # Each fetched partition's valid drafts and results reach every agent as one batch
        # event (streams.runtime._batch): one delivery per agent and fetch, not per event.
        batched=(config.drafts_topic, config.reviews_topic),
    )
    # One watcher of qa.decisions for every paid reviewer here (their cancellation signal).
    watcher = DecisionWatcher(app, stream.topics) if any(s.paid for s in selected) else None
    for spec in selected:
        role = layout.reviewer_role(spec.name)
        stream.reviewers[spec.name] = ReviewerAgent(
            app,
            stream.topics,
            spec,
            settings=runtime.settings,
            deps=runtime.deps,
            dead_letters=stream.dead_letters(role),
            concurrency=config.reviewer_concurrency,
            watcher=watcher,
        )
    if with_aggregator:
        stream.aggregator = Aggregator(
            app,
            stream.topics,
            config,
            roster=deployed,
            settings=runtime.settings,
            dead_letters=stream.dead_letters("aggregator"),
            clock=runtime.clock,
        )
        app.quiesce_hooks.append(stream.aggregator.quiesce)
        app.screen.parker = stream.aggregator.parker
    if sinks:
        from streams.runtime.sinks import install  # imports asyncpg; only where a database is used

        stream.sinks = install(app, stream.topics, runtime)
        app.screen.audit = _audit_lane(app, stream)
    return stream


def _audit_lane(app: WorkerApp, stream: MultiQA) -> AuditLane:
    """The sinks' audit of dead letters, fed by the screen from each fetched batch of the
    dead-letter topic (streams.runtime.deadletter.AuditLane). The sinks' own dead-letter agent
    keeps the topic subscribed; the screen takes its records before Faust would deliver them."""
    from streams.runtime.sinks import SinkError

    sinks = stream.sinks

    async def write(batch: list[Any]) -> None:
        sink = await sinks.sink()
        await sink.write_dead_letters(batch)

    return AuditLane(
        stream.config.dead_letters_topic,
        stream.topics.dead_letters.schema,
        write,
        refused=(SinkError,),
        owned=lambda tp: tp in app.consumer.assignment(),
    )
