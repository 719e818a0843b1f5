"""`multiqa worker`: run the stream's agents in one process.

    multiqa worker                                   # all-in-one: every reviewer, aggregator, sinks
    multiqa worker --reviewers critic --no-aggregator --no-sinks   # just the critic
    multiqa worker --reviewers none                  # aggregator (and sinks) only

Configuration comes from MULTIQA_* variables (streams.runtime.config), with the dev stack's broker
and database as fallbacks like every multiqa command; review settings from PostgreSQL's app_settings
when a database is configured (else the defaults). Before starting, the worker creates the topics
with the configured partitions (checking existing ones) and applies pending database migrations.
Also runnable as `python -m streams.cli.worker`.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from aiokafka.errors import KafkaError

from agents.base import Deps, ReviewerSpec
from agents.retry import Backoff, RetryPolicy, retry
from agents.settings import Settings
from agents.values import split_list
from streams.cli import worker_cli
from streams.cli._command import discover_config, print_error
from streams.runtime import tracing, worker_log
from streams.runtime.app import Runtime, create_app, select_reviewers
from streams.runtime.config import StreamConfig
from streams.runtime.topics import TopicSetupError, ensure_topics

log = logging.getLogger(__name__)


async def build_runtime(config: StreamConfig) -> Runtime:
    """Settings, reviewer dependencies and audit for this process: from PostgreSQL when
    `config.database_url` is set (waiting for it while it is down), else defaults."""
    if not config.database_url:
        log.warning("MULTIQA_DATABASE_URL is not set: default settings, no audit, no sinks")
        return Runtime(config)
    from agents.audit import audit_writer
    from agents.settings_service import SettingsService
    from streams.runtime.db import create_pool, migrate
    from streams.runtime.sinks import persist_dead_letter, retry_forever

    pool = await retry_forever(
        lambda: create_pool(config.database_url), what="(connecting to PostgreSQL)"
    )
    await retry_forever(lambda: migrate(pool), what="(applying migrations)")
    service = SettingsService(pool)

    async def settings() -> Settings:
        # The service serves its last good read while the database is away; only a worker that
        # never read settings waits here, rather than judge drafts by other settings.
        fresh = service.fresh()
        if fresh is not None:
            return fresh
        return await retry_forever(service.get, what="(reading app_settings)")

    async def audit_dead_letter(dead: Any) -> Any:
        return await persist_dead_letter(pool, dead)

    return Runtime(
        config,
        settings=settings,
        deps=Deps(pool=pool, audit=audit_writer(pool)),
        dead_letter_audit=audit_dead_letter,
        pool=pool,
    )


async def wait_for_topics(config: StreamConfig, *, max_delay: float = 10.0) -> list[str]:
    """`ensure_topics`, waiting (logged, capped backoff) while the broker is unreachable, so a
    worker may start before Kafka. A topic with the wrong partition count is not waited for."""

    def retrying(attempt: int, exc: BaseException, delay: float) -> None:
        log.warning(
            "Kafka at %s unreachable (%s: %s); retrying in %.1f s",
            config.bootstrap_servers,
            type(exc).__name__,
            exc,
            delay,
        )

    return await retry(
        lambda: ensure_topics(config),
        # No cap, no deadline: a worker started before its broker waits for it. No jitter: the
        # pauses stay what they were (0.5 s, doubling up to max_delay).
        policy=RetryPolicy(Backoff(initial=0.5, factor=2.0, cap=max_delay, jitter=0.0)),
        retry_on=lambda exc: isinstance(exc, KafkaError | OSError),
        on_retry=retrying,
    )


def refuse_overlaps(loop: asyncio.AbstractEventLoop, config: StreamConfig, stream: Any) -> None:
    """Stop (exit 2) when a live consumer group of this deployment already runs one of this
    worker's roles under another role set (streams.runtime._layout): the two would both do that
    work."""
    from streams.runtime import _layout as layout

    found = loop.run_until_complete(layout.overlapping_groups(config, stream.group_id))
    if found:
        clash = "; ".join(f"{group} runs {', '.join(shared)}" for group, shared in found.items())
        raise ValueError(
            f"another worker runs some of these roles with other roles ({clash}): a role must "
            f"run in one role set only; start this worker with the same roles as that one, or "
            "stop it first"
        )


def run(
    config: StreamConfig,
    *,
    reviewers: Sequence[str] | None = None,
    with_aggregator: bool = True,
    with_sinks: bool = True,
    roster: Sequence[ReviewerSpec] | None = None,
    runtime: Runtime | None = None,
    loglevel: str = "info",
) -> NoReturn:
    """Create topics, build the runtime, and run the worker until SIGTERM/SIGINT."""
    # Refuse unknown reviewer names (or nothing to run) before touching the broker.
    select_reviewers(
        config,
        reviewers,
        roster=roster,
        with_aggregator=with_aggregator,
        with_sinks=with_sinks,
    )
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        ops = _start_ops(config, loop)
        loop.run_until_complete(wait_for_topics(config))
        if runtime is None:
            runtime = loop.run_until_complete(build_runtime(config))
        tracing.configure("multiqa-worker")
        stream = create_app(
            config,
            reviewers=reviewers,
            with_aggregator=with_aggregator,
            with_sinks=with_sinks,
            roster=roster,
            runtime=runtime,
        )
        refuse_overlaps(loop, config, stream)
    except BaseException:
        loop.close()  # a refusal before the worker runs: the loop is ours to close
        raise
    if ops is not None:
        ops.attach(stream, runtime)
    log.debug("starting consumer group %s", stream.group_id)
    worker_log.announce_ready(
        stream.app, _roles(stream), config.bootstrap_servers, config.database_url
    )
    worker = stream.worker(loop=loop, loglevel=loglevel)
    _log_context_after_setup(worker)
    worker_log.install(worker)  # one line per outage reason, no rebalance noise
    worker.execute_from_commandline()


def _roles(stream: Any) -> list[str]:
    """The roles this process runs, as the ready line names them."""
    roles = [f"reviewer-{name}" for name in stream.reviewers]
    if stream.aggregator is not None:
        roles.append("aggregator")
    if stream.sinks is not None:
        roles.append("sinks")
    return roles


def _start_ops(config: StreamConfig, loop: asyncio.AbstractEventLoop) -> Any:
    """Bind the operations endpoint first (streams.runtime.observe), so probes answer while the
    worker waits for the broker and the database; None when MULTIQA_OPS_PORT is 0."""
    if not config.ops_port:
        return None
    from streams.runtime.observe import OpsServerError, WorkerOps

    ops = WorkerOps(config)
    try:
        loop.run_until_complete(ops.start())
    except OpsServerError as exc:
        raise OpsServerError(
            f"MULTIQA_OPS_PORT: the operations endpoint {exc} (another worker on this machine?); "
            "set MULTIQA_OPS_PORT to a free port, or 0 to run without /metrics and probes"
        ) from exc
    return ops


def _log_context_after_setup(worker: Any) -> None:
    """Once mode has configured logging, every record carries trace_id/span_id/draft_id."""
    from streams.runtime.observe import install_log_context

    setup = worker.on_setup_root_logger

    def on_setup_root_logger(logger: logging.Logger, level: int) -> None:
        setup(logger, level)
        install_log_context(logger)

    worker.on_setup_root_logger = on_setup_root_logger


def _reviewer_names(text: str | None) -> list[str] | None:
    if text is None:
        return None
    names = split_list(text)
    return [] if names == ["none"] else names


# The parser lives in streams.cli.worker_cli (it imports nothing heavy, so `multiqa worker --help`
# and a bad option answer at once); `python -m streams.cli.worker` uses the same one.
add_parser = worker_cli.add_parser


def run_from_args(args: argparse.Namespace) -> int:
    """`multiqa worker` (streams.cli.worker_cli parses the arguments)."""
    # Not `run_command`: a worker runs for good, its own event loop, aiokafka's logs kept. What
    # it refuses up front is a usage error (exit 2), as for argparse.
    from streams.runtime.db import MigrationError
    from streams.runtime.observe import OpsServerError
    from streams.runtime.sinks import SinkError

    try:
        config = discover_config(args)
        run(
            config,
            reviewers=_reviewer_names(args.reviewers),
            with_aggregator=not args.no_aggregator,
            with_sinks=not args.no_sinks,
            loglevel=args.loglevel,
        )
    except ValueError as exc:  # ConfigError, unknown reviewer names, nothing to run
        return print_error("multiqa worker", exc, code=2)
    except OpsServerError as exc:  # the operations endpoint's port is taken
        return print_error("multiqa worker", exc, code=1)
    except (TopicSetupError, MigrationError, SinkError) as exc:
        # Not an outage to wait out: a topic with the wrong partition count, an installation
        # without its migrations, a schema that cannot be applied. One line, exit 1.
        return print_error("multiqa worker", exc, code=1)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m streams.cli.worker")
    subparsers = parser.add_subparsers(dest="command")
    add_parser(subparsers)
    args = parser.parse_args(["worker", *(sys.argv[1:] if argv is None else argv)])
    result: int = args.func(args)
    return result


if __name__ == "__main__":
    sys.exit(main())
