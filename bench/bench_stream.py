"""The stream against the in-process review: drafts/s end to end and decision latency p50/p99.

    python bench/bench_stream.py [--drafts 400] [--realistic-drafts 64] [--concurrency 32]

Same drafts, same reviewers, same run, one machine. The reviewers are the real validator plus
fakes for the six reviewers that need a model or the network (critic, consistency,
topic_delivery, citations, urls, web_factcheck), in two profiles chosen per draft:

- zero-cost:  the fakes answer at once (what the plumbing itself costs: Kafka, Faust, codec,
              aggregation table, one consumer group per reviewer);
- realistic:  the critic sleeps 3 s, every gate sleeps 1-8 s (uniform, seeded by draft and
              reviewer, so both engines wait exactly the same).

Engines:
- stream:     an all-in-one worker in its own process (`streams.worker.run` with the fake roster:
              every reviewer agent, the aggregator, the sinks into a fresh database), fed by a
              DraftSubmitter; a draft's latency is submit -> its QADecision read on qa.decisions;
- in-process: `MultiModelQA.review_draft` in this process, at most --concurrency drafts at once
              (the stream's per-reviewer concurrency), latency = call queued -> result.

Per profile and engine: a burst (every draft submitted at once: throughput, and latency under
that queue), then a paced run at half the stream's burst throughput (latency without a queue).
The ratio is stream / in-process.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import random
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_validator import make_draft

from agents.base import Deps, ReviewerSpec
from agents.qa import MultiModelQA
from agents.settings import Settings
from agents.validator import SPECS as VALIDATOR_SPECS
from schemas import DraftSubmitted, Provider, QADecision, ReviewerResult
from streams.client import DecisionTail, DraftSubmitter
from streams.config import StreamConfig
from streams.demo import config_env, wait_until_ready

ZERO, REALISTIC = "bench-zero", "bench-realistic"
_FAKES: tuple[tuple[str, Provider, bool], ...] = (
    ("critic", Provider.OLLAMA, True),
    ("consistency", Provider.CONSISTENCY_GATE, True),
    ("topic_delivery", Provider.CONSISTENCY_GATE, True),
    ("citations", Provider.HTTP_HEAD, False),
    ("urls", Provider.URL_VERIFIER, False),
    ("web_factcheck", Provider.WEB_FACTCHECK, False),
)


def simulated_seconds(name: str, draft: DraftSubmitted) -> float:
    if draft.niche != REALISTIC:
        return 0.0
    if name == "critic":
        return 3.0
    return random.Random(f"{draft.draft_id}/{name}").uniform(1.0, 8.0)


def _fake(name: str, provider: Provider, paid: bool) -> ReviewerSpec:
    async def review(draft: DraftSubmitted, settings: Settings, deps: Deps) -> ReviewerResult:
        delay = simulated_seconds(name, draft)
        if delay:
            await asyncio.sleep(delay)
        return ReviewerResult(name, True, 85.0, f"{name}: fine (simulated)", provider)

    return ReviewerSpec(name, provider, review, lambda settings: True, paid=paid)


def roster() -> tuple[ReviewerSpec, ...]:
    return (*VALIDATOR_SPECS, *(_fake(*spec) for spec in _FAKES))


def make_drafts(count: int, profile: str, run: str) -> list[DraftSubmitted]:
    """Clean ~1,200-word drafts (the validator runs every rule, nothing short-circuits)."""
    return [
        DraftSubmitted(
            draft_id=f"bench-{run}-{profile}-{n}",
            version=1,
            title=f"Benchmark draft {n}",
            content=make_draft(words=1200, seed=n),
            topic="laptops",
            niche=profile,
        )
        for n in range(count)
    ]


# --- measuring -------------------------------------------------------------------------------


@dataclass
class Figures:
    engine: str
    mode: str
    drafts: int
    seconds: float
    latencies: list[float]
    cpu: float | None = None  # the worker's CPU seconds during the run (stream only)

    @property
    def rate(self) -> float:
        return self.drafts / self.seconds if self.seconds else float("inf")

    def pct(self, q: float) -> float:
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


Start = Callable[[DraftSubmitted], Awaitable[None]]


async def drive(
    drafts: Sequence[DraftSubmitted],
    start: Start,
    done: dict[str, asyncio.Future[float]],
    rate: float | None,
) -> tuple[float, list[float]]:
    """Start every draft (all at once, or `rate` per second), wait for all; returns the makespan
    and each draft's latency."""
    loop = asyncio.get_running_loop()
    began: dict[str, float] = {}
    t0 = loop.time()
    for n, draft in enumerate(drafts):
        if rate:
            await asyncio.sleep(max(0.0, t0 + n / rate - loop.time()))
        began[draft.draft_id] = loop.time()
        await start(draft)
    finished = {d.draft_id: await done[d.draft_id] for d in drafts}
    makespan = max(finished.values()) - t0
    return makespan, [finished[k] - began[k] for k in began]


async def run_in_process(
    drafts: Sequence[DraftSubmitted], concurrency: int, rate: float | None, mode: str
) -> Figures:
    class Defaults:
        async def get(self) -> Settings:
            return Settings()

    qa = MultiModelQA(None, settings_service=Defaults(), reviewers=roster())
    slots = asyncio.Semaphore(concurrency)
    loop = asyncio.get_running_loop()
    done = {d.draft_id: loop.create_future() for d in drafts}
    tasks: list[asyncio.Task[None]] = []

    async def review(draft: DraftSubmitted) -> None:
        async with slots:
            result = await qa.review_draft(draft)
        assert result.approved, result.summary
        done[draft.draft_id].set_result(loop.time())

    async def start(draft: DraftSubmitted) -> None:
        tasks.append(asyncio.ensure_future(review(draft)))

    seconds, latencies = await drive(drafts, start, done, rate)
    await asyncio.gather(*tasks)
    return Figures("in-process", mode, len(drafts), seconds, latencies)


def _spawn_worker(config: StreamConfig, log_path: Path) -> subprocess.Popen[bytes]:
    with open(log_path, "wb") as log_file:
        return subprocess.Popen(
            [sys.executable, __file__, "--serve"],
            env=config_env(config),
            stdout=log_file,
            stderr=subprocess.STDOUT,
        )


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class StreamUnderTest:
    """A worker subprocess with the fake roster, and the client side that feeds and watches it."""

    def __init__(self, config: StreamConfig, log_path: Path) -> None:
        self.config = config
        self.log_path = log_path
        self.worker: subprocess.Popen[bytes] | None = None
        self.done: dict[str, asyncio.Future[float]] = {}
        self.decisions: dict[str, QADecision] = {}

    async def __aenter__(self) -> StreamUnderTest:
        self.worker = _spawn_worker(self.config, self.log_path)
        self.tail = DecisionTail(self.config.bootstrap_servers, topic=self.config.decisions_topic)
        self.submitter = DraftSubmitter(
            self.config.bootstrap_servers, topic=self.config.drafts_topic
        )
        await self.tail.__aenter__()
        await self.submitter.start()
        worker = self.worker
        ready = await wait_until_ready(
            self.config,
            self.tail,
            self.submitter,
            [spec.name for spec in roster()],
            within=180,
            alive=lambda: worker.poll() is None,
        )
        if not ready:
            raise SystemExit(f"the bench worker did not get ready; see {self.log_path}")
        self._collector = asyncio.ensure_future(self._collect())
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._collector.cancel()
        await self.submitter.stop()
        await self.tail.__aexit__(None, None, None)
        if self.worker is not None and self.worker.poll() is None:
            self.worker.send_signal(signal.SIGTERM)
            try:
                await asyncio.to_thread(self.worker.wait, 60)
            except subprocess.TimeoutExpired:
                self.worker.kill()

    async def _collect(self) -> None:
        loop = asyncio.get_running_loop()
        async for decision in self.tail.follow():
            future = self.done.get(decision.draft_id)
            if future is not None and not future.done():
                self.decisions[decision.draft_id] = decision
                future.set_result(loop.time())

    async def run(self, drafts: Sequence[DraftSubmitted], rate: float | None, mode: str) -> Figures:
        loop = asyncio.get_running_loop()
        for draft in drafts:
            self.done[draft.draft_id] = loop.create_future()

        async def start(draft: DraftSubmitted) -> None:
            await self.submitter.submit(draft)

        assert self.worker is not None
        cpu_before = cpu_seconds(self.worker.pid)
        seconds, latencies = await drive(drafts, start, self.done, rate)
        cpu = cpu_seconds(self.worker.pid) - cpu_before
        rejected = [d for d in drafts if not self.decisions[d.draft_id].approved]
        assert not rejected, self.decisions[rejected[0].draft_id].summary
        return Figures("stream", mode, len(drafts), seconds, latencies, cpu)


# --- the run -----------------------------------------------------------------------------------


def print_table(title: str, rows: list[Figures]) -> None:
    print(f"\n{title}")
    print(
        f"  {'engine':<11} {'mode':<7} {'drafts':>6} {'drafts/s':>9} {'p50 ms':>9} {'p99 ms':>9}"
        f" {'worker CPU ms/draft':>20}"
    )
    for f in rows:
        cpu = "" if f.cpu is None else f"{f.cpu * 1000 / f.drafts:>20.1f}"
        print(
            f"  {f.engine:<11} {f.mode:<7} {f.drafts:>6} {f.rate:>9.1f} "
            f"{f.pct(0.50) * 1000:>9.0f} {f.pct(0.99) * 1000:>9.0f} {cpu}"
        )
    by = {(f.engine, f.mode): f for f in rows}
    burst_s, burst_i = by[("stream", "burst")], by[("in-process", "burst")]
    paced_s, paced_i = by[("stream", "paced")], by[("in-process", "paced")]
    print(
        f"  stream / in-process: throughput x{burst_s.rate / burst_i.rate:.2f}, "
        f"paced p50 latency x{paced_s.pct(0.5) / paced_i.pct(0.5):.2f}, "
        f"p99 x{paced_s.pct(0.99) / paced_i.pct(0.99):.2f}"
    )


async def bench(args: argparse.Namespace) -> None:
    import asyncpg

    from streams.devstack import up
    from streams.topics import ensure_topics

    info = await asyncio.to_thread(up)
    assert info.kafka is not None and info.postgres is not None
    run = uuid.uuid4().hex[:8]
    database = f"bench_stream_{run}"
    admin = await asyncpg.connect(info.postgres.dsn)
    await admin.execute(f'CREATE DATABASE "{database}"')
    dsn = info.postgres.dsn.rsplit("/", 1)[0] + "/" + database
    prefix = f"bench{run}"
    config = StreamConfig(
        bootstrap_servers=info.kafka.bootstrap,
        app_prefix=prefix,
        drafts_topic=f"{prefix}.drafts",
        reviews_topic=f"{prefix}.reviews",
        decisions_topic=f"{prefix}.decisions",
        dead_letters_topic=f"{prefix}.dead-letters",
        partitions=args.partitions,
        reviewer_concurrency=args.concurrency,
        database_url="" if args.no_sinks else dsn,
        broker_session_timeout=10.0,
        broker_heartbeat_interval=1.0,
        broker_rebalance_timeout=10.0,
        datadir=str(Path(".cache") / "bench" / prefix),
    )
    log_path = Path(".cache") / "bench" / f"{prefix}-worker.log"
    log_path.parent.mkdir(parents=True, exist_ok=True)
    await ensure_topics(config)
    print(
        f"Kafka {config.bootstrap_servers}, {config.partitions} partitions, reviewer concurrency "
        f"{config.reviewer_concurrency}, {os.cpu_count()} CPUs; worker log {log_path}"
    )
    profiles = [
        (ZERO, "zero-cost reviewers (validator real, fakes answer at once)", args.drafts),
        (REALISTIC, "simulated latencies (critic 3 s, gates 1-8 s)", args.realistic_drafts),
    ]
    results: dict[str, list[Figures]] = {profile: [] for profile, _, _ in profiles}
    paced_rate: dict[str, float] = {}
    try:
        # The in-process engine runs while no worker competes for the CPU.
        for profile, _, count in profiles:
            drafts = make_drafts(count, profile, f"{run}i")
            results[profile].append(await run_in_process(drafts, args.concurrency, None, "burst"))
        async with StreamUnderTest(config, log_path) as stream:
            for profile, _, count in profiles:
                burst = await stream.run(make_drafts(count, profile, f"{run}s"), None, "burst")
                # Paced at half the burst throughput: latency without a queue in front.
                paced_rate[profile] = burst.rate / 2
                paced_count = max(8, min(count, int(paced_rate[profile] * 20)))
                drafts = make_drafts(paced_count, profile, f"{run}p")
                paced = await stream.run(drafts, paced_rate[profile], "paced")
                results[profile] += [burst, paced]
        for profile, _, _ in profiles:
            drafts = make_drafts(results[profile][-1].drafts, profile, f"{run}q")
            results[profile].append(
                await run_in_process(drafts, args.concurrency, paced_rate[profile], "paced")
            )
        # Every stream draft, plus the warm-up one, should have reached qa_decisions.
        total = 1 + sum(f.drafts for rows in results.values() for f in rows if f.engine == "stream")
        persisted = 0 if args.no_sinks else await _persisted(dsn, total)
        for profile, title, _ in profiles:
            rows = sorted(results[profile], key=lambda f: (f.mode, f.engine != "stream"))
            print_table(f"{title}:", rows)
        print(f"\nsinks: {persisted} of {total} stream decisions were in qa_decisions at the end")
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
        await admin.close()
        await _delete_topics(config)
        shutil.rmtree(config.datadir, ignore_errors=True)


async def _persisted(dsn: str, expected: int, within: float = 60.0) -> int:
    import asyncpg

    conn = await asyncpg.connect(dsn)
    try:
        deadline = time.monotonic() + within
        while True:
            n = int(await conn.fetchval("SELECT count(*) FROM qa_decisions"))
            if n >= expected or time.monotonic() > deadline:
                return n
            await asyncio.sleep(0.5)
    finally:
        await conn.close()


async def _delete_topics(config: StreamConfig) -> None:
    from aiokafka.admin import AIOKafkaAdminClient

    admin = AIOKafkaAdminClient(bootstrap_servers=config.bootstrap_servers)
    await admin.start()
    try:
        names = [t for t in await admin.list_topics() if t.startswith(config.app_prefix)]
        if names:
            await admin.delete_topics(names)
    finally:
        await admin.close()


def serve() -> None:
    """Child mode: the all-in-one worker with the bench's roster (config from MULTIQA_*)."""
    from streams.worker import run

    run(StreamConfig.from_env(), roster=roster(), loglevel="warning")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--drafts", type=int, default=400, help="zero-cost burst size (400)")
    parser.add_argument(
        "--realistic-drafts", type=int, default=64, help="simulated-latency burst size (64)"
    )
    parser.add_argument("--concurrency", type=int, default=32, help="drafts per reviewer (32)")
    parser.add_argument("--partitions", type=int, default=6, help="partitions per topic (6)")
    parser.add_argument(
        "--no-sinks", action="store_true", help="run the worker without the PostgreSQL sinks"
    )
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve()
        return
    logging.basicConfig(level=logging.ERROR)
    logging.getLogger("aiokafka").setLevel(logging.CRITICAL)
    asyncio.run(bench(args))


if __name__ == "__main__":
    main()
