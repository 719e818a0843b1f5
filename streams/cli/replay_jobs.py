"""`multiqa rescore` in several processes, one share of the partitions each.

Both topics are keyed by draft id, so a draft's decisions and its results lie in the partition of
the same number when the topics have the same number of partitions: process k of n reads the
partitions p with p % n == k of both, decodes them and re-scores their decisions, and sends back
one compact row per decision (and, with --publish, the encoded re-scored decisions). Reading,
decoding and re-scoring are CPU work in Python: one process uses one core at most.

The processes are forked from the command once everything is imported (no second start-up), and
report progress through shared counters the parent draws its bars from. The partitioned run is
only trusted when it provably saw what one process would have: when the topics' partition counts
differ, or when any decision's evidence was not found in its partition (a custom partitioner, or
retention), the caller re-scores in one process instead, which looks at every partition.
"""

from __future__ import annotations

import asyncio
import gc
import os
import pickle
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agents.settings import Settings
from schemas import QADecision, ReviewerResult
from streams.cli._command import CommandError
from streams.cli.progress import Progress
from streams.cli.replay_read import read_partitions
from streams.cli.replay_score import Share, score_partitions
from streams.history._report import Item

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

# Counters each process keeps in shared memory: events to read, events read, decisions to
# re-score, decisions re-scored (-1: not known yet).
_COUNTERS = 4


@dataclass
class Outcome:
    """The whole re-scoring, merged from every share."""

    items: list[Item]
    decisions: int
    reviews: int
    undecodable: list[str]
    published: list[tuple[bytes, bytes]]
    missing: list[str] = field(default_factory=list)  # topics that do not exist


def default_jobs() -> int:
    """One process per CPU core this process may run on (at most 8)."""
    affinity = getattr(os, "sched_getaffinity", None)  # Linux; elsewhere every core counts
    cores = len(affinity(0)) if affinity is not None else (os.cpu_count() or 1)
    return max(1, min(cores, 8))


async def rescore_here(
    bootstrap: str,
    decisions_topic: str,
    reviews_topic: str,
    settings: Settings,
    *,
    publish: bool = False,
    progress: bool = True,
) -> Outcome:
    """Re-score every partition in this process (what --jobs 1 runs, and the fallback of a
    split run that cannot be trusted): a decision whose evidence is incomplete is reported so."""
    shared = [-1, 0, -1, 0]
    bars = _Bars(shared, 1, enabled=progress)
    try:
        share = await _share(
            shared, 0, 1, bootstrap, decisions_topic, reviews_topic, settings, publish,
            tick=bars.update,
        )  # fmt: skip
    finally:
        bars.close()
    outcome = _merge([share], decisions_topic, reviews_topic, split=False)
    assert outcome is not None  # only a split run can be refused
    return outcome


async def rescore_in_processes(
    bootstrap: str,
    decisions_topic: str,
    reviews_topic: str,
    settings: Settings,
    jobs: int,
    *,
    publish: bool = False,
    progress: bool = True,
) -> Outcome | None:
    """Re-score in `jobs` processes; None when one process must do it (see the module doc)."""
    import multiprocessing  # only here: --jobs 1 need not pay its import

    context = multiprocessing.get_context("fork")
    shared = context.Array("q", [-1, 0, -1, 0] * jobs, lock=False)
    sys.stdout.flush()
    sys.stderr.flush()
    children = []
    for k in range(jobs):
        receive, send = context.Pipe(duplex=False)
        process = context.Process(
            target=_child,
            args=(send, shared, k, jobs, bootstrap, decisions_topic, reviews_topic),
            kwargs={"settings": settings, "publish": publish},
            daemon=True,
        )
        process.start()
        send.close()
        children.append((process, receive))
    shares = await _collect(children, shared, jobs, progress)
    return _merge(shares, decisions_topic, reviews_topic, split=True)


def _merge(
    shares: list[Share], decisions_topic: str, reviews_topic: str, *, split: bool
) -> Outcome | None:
    """The shares as one report; None when a split run may not have seen what one process
    would have."""
    counts = {topic: n for share in shares for topic, n in share.counts.items()}
    if split and counts.get(decisions_topic) != counts.get(reviews_topic) and all(counts.values()):
        return None  # partition p of one topic is not partition p of the other
    rows = sorted((row for share in shares for row in share.rows), key=lambda row: row[0])
    if split and any(row[8] for row in rows):
        return None  # evidence missing here may lie in another process's partitions
    items: list[Item] = []
    seen: set[str] = set()
    for _, decision_id, *fields in rows:
        if decision_id not in seen:  # the stream delivers decisions at least once
            seen.add(decision_id)
            items.append(Item(*fields))
    return Outcome(
        items,
        sum(s.decisions for s in shares),
        sum(s.reviews for s in shares),
        [line for s in shares for line in s.undecodable],
        [p for s in shares for p in s.published],
        [topic for topic in (decisions_topic, reviews_topic) if not counts.get(topic)],
    )


async def _collect(
    children: list[tuple[Any, Connection]], shared: Any, jobs: int, progress: bool
) -> list[Share]:
    """Each child's share, drawing the read and rescore bars meanwhile."""
    bars = _Bars(shared, jobs, enabled=progress)
    shares: list[Share | None] = [None] * len(children)
    failure: BaseException | None = None
    try:
        while any(s is None for s in shares):
            for k, (process, receive) in enumerate(children):
                if shares[k] is not None or not receive.poll():
                    continue
                try:
                    # Our own forked child over a private pipe: not untrusted data.
                    status, value = pickle.loads(receive.recv_bytes())  # noqa: S301
                except EOFError:
                    process.join()
                    code = process.exitcode
                    why = f"a rescore process ended without an answer (exit code {code})"
                    status, value = "error", CommandError(why)
                if status == "error" and failure is None:
                    failure = value
                shares[k] = value if status == "ok" else Share()
            bars.update()
            if any(s is None for s in shares):
                # Short: an answer is picked up soon after it is sent. An await, not a blocking
                # wait: Ctrl-C reaches the command as the cancellation of its task.
                await asyncio.sleep(0.005)
    finally:
        bars.close()
        for process, receive in children:
            receive.close()
            process.join(timeout=5)
            if process.is_alive():
                process.kill()
                process.join()
    if failure is not None:
        raise failure
    return [s for s in shares if s is not None]


class _Bars:
    """The read and rescore bars over every process's counters. A bar is drawn once every
    process knows its total, but its clock (rate, eta) starts when the work did: the read at
    the start of the run, the re-scoring when the first process began it."""

    def __init__(self, shared: Any, jobs: int, *, enabled: bool) -> None:
        self.shared, self.jobs, self.enabled = shared, jobs, enabled
        self.read: Progress | None = None
        self.rescore: Progress | None = None
        self.began = time.monotonic()
        self.scoring_began: float | None = None

    def _sum(self, index: int) -> int | None:
        values = [self.shared[k * _COUNTERS + index] for k in range(self.jobs)]
        return None if min(values) < 0 else sum(values)

    def update(self) -> None:
        if not self.enabled:
            return
        total, read = self._sum(0), self._sum(1)
        if self.read is None and total is not None:
            self.read = Progress("read", total)
            self.read.started = self.began
        if self.read is not None and read is not None:
            self.read.advance(read - self.read.done)
        if self.scoring_began is None and any(
            self.shared[k * _COUNTERS + 2] >= 0 for k in range(self.jobs)
        ):
            self.scoring_began = time.monotonic()
        decisions, done = self._sum(2), self._sum(3)
        if self.rescore is None and decisions is not None:
            if self.read is not None:
                self.read.close()
            self.rescore = Progress("rescore", decisions)
            self.rescore.started = self.scoring_began or time.monotonic()
        if self.rescore is not None and done is not None:
            self.rescore.advance(done - self.rescore.done)

    def close(self) -> None:
        for bar in (self.read, self.rescore):
            if bar is not None:
                bar.close()


# --- in a child process -------------------------------------------------------------------------


def _child(
    send: Connection,
    shared: Any,
    k: int,
    jobs: int,
    bootstrap: str,
    decisions_topic: str,
    reviews_topic: str,
    *,
    settings: Settings,
    publish: bool,
) -> None:
    gc.disable()  # as in one process: the records hold no cycles (streams.cli.replay)
    kept: list[Any] = []
    try:
        run = _share(
            shared, k, jobs, bootstrap, decisions_topic, reviews_topic, settings, publish,
            keep=kept,
        )  # fmt: skip
        answer: tuple[str, Any] = ("ok", asyncio.run(run))
    except BaseException as exc:
        answer = ("error", exc)
    try:
        data = pickle.dumps(answer)
    except Exception as exc:
        data = pickle.dumps(("error", CommandError(f"{type(exc).__name__}: {exc}")))
    send.send_bytes(data)
    send.close()
    # Not sys.exit: the parent's atexit handlers and buffered output are not this process's.
    os._exit(0)


async def _share(
    shared: Any,
    k: int,
    jobs: int,
    bootstrap: str,
    decisions_topic: str,
    reviews_topic: str,
    settings: Settings,
    publish: bool,
    tick: Callable[[], None] | None = None,
    keep: list[Any] | None = None,
) -> Share:
    """Read and re-score partitions p % jobs == k, with the counters of process k in `shared`
    (`tick` after each update: the in-process run draws its bars there). `keep`: where the
    decoded events go once re-scored, instead of being freed one by one (a child, which
    os._exit ends whole, answers sooner so)."""
    base = k * _COUNTERS

    def on_progress(read: int, total: int) -> None:
        shared[base], shared[base + 1] = total, read
        if tick is not None:
            tick()

    def on_scored(done: int, total: int) -> None:
        shared[base + 2], shared[base + 3] = total, done
        if tick is not None:
            tick()

    share = Share()
    read = await read_partitions(
        bootstrap,
        {decisions_topic: QADecision, reviews_topic: ReviewerResult},
        only=(lambda p: p % jobs == k) if jobs > 1 else None,
        on_undecodable=share.undecodable.append,
        on_progress=on_progress,
    )
    share.counts = read.counts
    shared[base] = max(shared[base], 0)
    events, read.events = read.events, {}
    score_partitions(share, events, reviews_topic, settings, publish=publish, on_scored=on_scored)
    if keep is not None:
        keep.append(events)
    return share
