"""Re-score history: replay qa.reviews against qa.decisions with other settings.

Operators change weights or thresholds and want to know what that would have done to the drafts
already decided. `multiqa rescore` reads both topics from their beginning to their current end,
and for every decision re-runs the one aggregation (`agents.aggregate.build_decision`) on exactly
the evidence the live aggregator used: the results named in the decision's `reviews` (the first
of each reviewer, as live), the same expected reviewers (those plus `missing_reviewers`), and the
same timed_out / early flags and decided_at. With the settings the live system used, the re-scored
decision is therefore equal to the live one, field for field; with other settings, only what the
settings change differs. Reviews are not re-run (no model is called): re-reviewing with a new
model is a replay of qa.drafts by a worker with another `MULTIQA_APP_PREFIX` and output topics.

Re-scored decisions are reported, and can be published to a topic of their own (`--publish`),
never to the live decisions topic: downstream publishes what it reads there.
"""

from __future__ import annotations

import argparse
import gc
import sys
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TypeVar

from agents.settings import Settings
from agents.settings_check import apply_overrides
from schemas import QADecision, ReviewerResult, encode
from streams.cli._command import (
    CommandError,
    connect_database,
    discover_config,
    parse_overrides,
)
from streams.cli.progress import Progress
from streams.cli.replay_jobs import Outcome, default_jobs, rescore_here, rescore_in_processes
from streams.cli.replay_read import read_topics
from streams.cli.replay_score import Rescored, rescore_one
from streams.history._report import Item, Report
from streams.runtime.config import StreamConfig

R = TypeVar("R", QADecision, ReviewerResult)


@dataclass
class RescoreReport:
    items: list[Rescored] = field(default_factory=list)
    undecodable: int = 0

    @property
    def rescored(self) -> list[Rescored]:
        return [i for i in self.items if i.rescored is not None]

    @property
    def incomplete(self) -> list[Rescored]:
        return [i for i in self.items if i.rescored is None]

    @property
    def flipped(self) -> list[Rescored]:
        return [i for i in self.items if i.flipped]


def rescore(
    decisions: Iterable[QADecision],
    reviews: Iterable[ReviewerResult],
    settings: Settings,
    *,
    on_progress: Callable[[], None] | None = None,
) -> RescoreReport:
    """Re-decide every decision (first copy per decision_id) from the reviews it was made from.

    `reviews` must be in the order the aggregator received them (per draft: offset order of the
    draft's partition), since the first result of each reviewer is the one that counts.
    """
    by_version: dict[tuple[str, int], list[ReviewerResult]] = defaultdict(list)
    for review in reviews:
        by_version[(review.draft_id, review.version)].append(review)
    report = RescoreReport()
    seen: set[str] = set()
    for original in decisions:
        if original.decision_id in seen:
            continue  # the stream delivers decisions at least once
        seen.add(original.decision_id)
        report.items.append(rescore_one(original, by_version, settings))
        if on_progress is not None:
            on_progress()
    return report


# --- reading the topics ------------------------------------------------------------------------


async def read_topic(
    bootstrap: str,
    topic: str,
    record_type: type[R],
    *,
    on_undecodable: Callable[[str], None] | None = None,
) -> list[R]:
    """Every event of `topic` from its beginning to its end as of now, in offset order per
    partition (partitions one after another); [] when it does not exist. No consumer group:
    nothing is committed."""
    events = await read_topics(bootstrap, {topic: record_type}, on_undecodable=on_undecodable)
    return events[topic]


async def rescore_topics(
    config: StreamConfig, settings: Settings, *, progress: Callable[[str], None] | None = None
) -> RescoreReport:
    with _collector_paused():
        return await _rescore_topics(config, settings, progress)


@contextmanager
def _collector_paused(*, freeze: bool = False) -> Iterator[None]:
    """The cyclic garbage collector off while the history is read and re-scored: the records
    hold no cycles, and its passes over the growing heap of them cost about a third of the
    time (bench/bench_rescore.py). Anything cyclic left is collected when it is back on.

    `freeze`: the objects made meanwhile are moved out of the collector's reach (`gc.freeze`)
    before it is back on, so its first pass does not walk the whole history once more (the
    command, which ends soon after; reference counting still frees them)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if freeze:
            gc.freeze()
        if was_enabled:
            gc.enable()


async def _rescore_topics(
    config: StreamConfig, settings: Settings, progress: Callable[[str], None] | None
) -> RescoreReport:
    say = progress or (lambda _msg: None)
    bad: list[str] = []
    missing: list[str] = []
    reading = _ReadProgress(enabled=progress is not None)
    try:
        events = await read_topics(
            config.bootstrap_servers,
            {config.decisions_topic: QADecision, config.reviews_topic: ReviewerResult},
            on_undecodable=bad.append,
            on_progress=reading.update,
            on_missing=missing.append,
        )
    finally:
        reading.close()
    for topic in missing:
        say(missing_topic(topic, config.bootstrap_servers))
    decisions: list[QADecision] = events[config.decisions_topic]
    reviews: list[ReviewerResult] = events[config.reviews_topic]
    say(f"read {len(decisions)} decisions from {config.decisions_topic}")
    say(f"read {len(reviews)} reviewer results from {config.reviews_topic}")
    for line in bad:
        say(f"skipped undecodable event {line}")
    bar = Progress("rescore", len({d.decision_id for d in decisions}), enabled=progress is not None)
    try:
        report = rescore(decisions, reviews, settings, on_progress=bar.advance)
    finally:
        bar.close()
    report.undecodable = len(bad)
    return report


class _ReadProgress:
    """The reading's progress bar (events read of the topics' events), created on the first
    fetch, when the total is known."""

    def __init__(self, *, enabled: bool) -> None:
        self.enabled = enabled
        self.bar: Progress | None = None

    def update(self, read: int, total: int) -> None:
        if self.bar is None:
            self.bar = Progress("read", total, enabled=self.enabled)
        self.bar.advance(read - self.bar.done)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


async def publish(bootstrap: str, topic: str, decisions: Sequence[QADecision]) -> None:
    await publish_encoded(bootstrap, topic, [(d.draft_id.encode(), encode(d)) for d in decisions])


async def publish_encoded(
    bootstrap: str, topic: str, events: Sequence[tuple[bytes, bytes]]
) -> None:
    """(key, encoded decision) pairs to `topic`, in order."""
    # Imported only here: a re-score that publishes nothing never loads aiokafka.
    from aiokafka import AIOKafkaProducer
    from aiokafka.errors import KafkaConnectionError

    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all", enable_idempotence=True)
    try:
        await producer.start()
        for key, value in events:
            await producer.send(topic, value, key=key)
        await producer.flush()
    except KafkaConnectionError as exc:
        from streams.client import BrokerUnavailableError

        raise BrokerUnavailableError.at(bootstrap, exc) from exc
    finally:
        await producer.stop()


# --- the command -------------------------------------------------------------------------------


async def _base_settings(config: StreamConfig, use_database: bool) -> Settings:
    if not (use_database and config.database_url):
        return Settings()
    from agents.settings_service import SettingsService

    async with connect_database(config.database_url) as pool:
        return await SettingsService(pool).get()


def _with_overrides(settings: Settings, overrides: dict[str, str]) -> Settings:
    # The same write-time validator as `multiqa settings set` (agents.settings).
    return apply_overrides(settings, overrides) if overrides else settings


async def rescore_command(args: argparse.Namespace) -> int:
    """`multiqa rescore` (parsed by streams.cli.replay_cli)."""
    config = discover_config(args)
    if args.publish and args.publish == config.decisions_topic:
        raise CommandError(
            f"refusing to publish re-scored decisions to the live topic {args.publish}: "
            "the publisher acts on what it reads there; pick another topic"
        )
    overrides = parse_overrides(args.set or ())  # each already checked by streams.cli.replay_cli
    settings = _with_overrides(await _base_settings(config, not args.defaults), overrides)
    say = _no_progress if args.quiet else _progress
    jobs = args.jobs or default_jobs()
    topics = (config.bootstrap_servers, config.decisions_topic, config.reviews_topic, settings)
    outcome: Outcome | None = None
    with _collector_paused(freeze=True):
        if jobs > 1:
            outcome = await rescore_in_processes(
                *topics, jobs, publish=bool(args.publish), progress=not args.quiet
            )
            if outcome is None:
                say("the partitions do not hold every decision's evidence apart: re-scoring in "
                    "one process")  # fmt: skip
        if outcome is None:
            outcome = await rescore_here(
                *topics, publish=bool(args.publish), progress=not args.quiet
            )
    for topic in outcome.missing:
        say(missing_topic(topic, config.bootstrap_servers))
    say(f"read {outcome.decisions} decisions from {config.decisions_topic}")
    say(f"read {outcome.reviews} reviewer results from {config.reviews_topic}")
    for line in outcome.undecodable:
        say(f"skipped undecodable event {line}")
    shared = _shared_report(outcome.items, settings, len(outcome.undecodable))
    published = outcome.published
    if args.json:
        shared.emit_json()
    else:
        print(shared.text(args.show))
    if args.publish:
        await publish_encoded(config.bootstrap_servers, args.publish, published)
        print(f"published {len(published)} re-scored decisions to {args.publish}")
    return 0


def missing_topic(topic: str, bootstrap: str) -> str:
    return f"topic {topic} does not exist on {bootstrap}: nothing read from it"


def _progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _no_progress(message: str) -> None:
    pass


def as_report(report: RescoreReport, settings: Settings) -> Report:
    """The re-scoring in the report shape `multiqa rereview` prints too."""
    return _shared_report([
        Item(
            i.original.draft_id,
            i.original.version,
            i.original.approved,
            i.original.final_score,
            i.rescored.approved if i.rescored else None,
            i.rescored.final_score if i.rescored else None,
            problem=i.problem,
        )
        for i in report.items
    ], settings, report.undecodable)  # fmt: skip


def _shared_report(items: list[Item], settings: Settings, undecodable: int) -> Report:
    extra = {"settings_version": settings.version(), "undecodable_events": undecodable}
    return Report("re-scored", items, extra=extra)


def _verdict(decision: QADecision) -> str:
    return "approved" if decision.approved else "rejected"


# The parser of `multiqa rescore` is streams.cli.replay_cli (light to import); it runs
# `rescore_command` above.
