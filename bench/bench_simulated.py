"""The stream next to the in-process review, with reviewers as slow as real ones.

    python bench/bench_simulated.py [--drafts 300] [--paced-rate 4] [--paced-seconds 20]
                                    [--profile realistic] [--rounds 1]

The same drafts go through:
- in-process: `agents.qa.MultiModelQA.review_draft`, at most `--concurrency` drafts at once (the
  worker's per-reviewer concurrency, so both run at most that many calls of each reviewer);
- stream: the all-in-one `multiqa worker` (every reviewer agent, the aggregator, the sinks, a fresh
  database), fed and timed from outside as bench/bench_stream.py does (bench/stream_engines.py).
Both use the reviewers of bench/stream_roster.py: the real validator, and six that sleep like real
ones (profile `realistic`: critic and consistency 1-3 s, topic delivery 1-2 s, citations and urls
0.2-1 s, web fact-check 0.5-2 s; `simulated`: critic 3 s, gates 1-8 s), seeded per draft and
reviewer, so both wait exactly as long for the same draft.

Per engine: a burst (every draft at once: drafts/s, and latency from submission with the queue),
then a paced run at a rate both can keep (latency of one review). Then the ratio stream /
in-process, and how many decisions agree field for field (all but decided_at and trace_id).
Uses the shared services (KAFKA_BOOTSTRAP_SERVERS, DATABASE_URL). Goal (issue 13): with realistic
latencies the stream matches or beats the in-process review.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import logging
import os
import statistics
import sys
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from stream_engines import Engine, Feeder, stream_config
from stream_roster import REALISTIC, SIMULATED, make_drafts, roster

from agents.qa import MultiModelQA
from schemas import DraftSubmitted, QADecision
from tests.helpers.postgres import drop_database


@dataclass
class Run:
    engine: str
    burst_seconds: float
    burst: list[float]  # per draft, seconds from submission to decision
    paced: list[float]
    decisions: dict[str, QADecision]
    burst_cpu: float  # CPU seconds the engine's processes spent during the burst

    @property
    def rate(self) -> float:
        return len(self.burst) / self.burst_seconds


def pct(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


async def in_process(
    burst: Sequence[DraftSubmitted],
    paced: Sequence[DraftSubmitted],
    args: argparse.Namespace,
) -> Run:
    qa = MultiModelQA(None, reviewers=roster(args.profile))
    slots = asyncio.Semaphore(args.concurrency)
    loop = asyncio.get_running_loop()
    decisions: dict[str, QADecision] = {}

    async def review(draft: DraftSubmitted, at: float) -> float:
        await asyncio.sleep(max(0.0, at - loop.time()))
        submitted = loop.time()
        async with slots:
            result = await qa.review_draft(draft)
        decisions[draft.draft_id] = result.decision
        return loop.time() - submitted

    t0, cpu0 = loop.time(), time.process_time()
    burst_latencies = await asyncio.gather(*(review(d, t0) for d in burst))
    burst_seconds, burst_cpu = loop.time() - t0, time.process_time() - cpu0
    t0 = loop.time()
    paced_latencies = await asyncio.gather(
        *(review(d, t0 + n / args.paced_rate) for n, d in enumerate(paced))
    )
    return Run("in-process", burst_seconds, burst_latencies, paced_latencies, decisions, burst_cpu)


async def stream(
    burst: Sequence[DraftSubmitted],
    paced: Sequence[DraftSubmitted],
    args: argparse.Namespace,
) -> Run:
    import asyncpg

    prefix = f"bsim{uuid.uuid4().hex[:6]}"
    database = f"bench_{prefix}"
    admin = await asyncpg.connect(args.dsn)
    await admin.execute(f'CREATE DATABASE "{database}"')
    os.environ["BENCH_PROFILE"] = args.profile  # the worker's roster (bench_stream.py --serve)
    engine = Engine("multiqa", prefix, args.bootstrap, args.dsn.rsplit("/", 1)[0] + "/" + database)
    try:
        await engine.create_topics()
        engine.start()
        async with Feeder(args.bootstrap, prefix) as feeder:
            await feeder.run(make_drafts(1, f"{prefix}-warm"), None, engine.alive, within=300)
            cpu0 = engine.cpu()
            burst_seconds, burst_latencies = await feeder.run(burst, None, engine.alive, within=900)
            burst_cpu = engine.cpu() - cpu0
            _, paced_latencies = await feeder.run(paced, args.paced_rate, engine.alive, within=300)
            decisions = dict(feeder.decisions)
        return Run("stream", burst_seconds, burst_latencies, paced_latencies, decisions, burst_cpu)
    finally:
        await engine.stop()
        await engine.delete_topics()
        await admin.close()
        await drop_database(args.dsn, database)  # retried over an autovacuum visit (helper)


def agreeing(a: Run, b: Run) -> tuple[int, int]:
    """(decisions equal in every field but decided_at and trace_id, drafts both decided)."""

    def fields(d: QADecision) -> QADecision:
        return dataclasses.replace(d, decided_at=d.decided_at.min, trace_id="")

    both = [k for k in a.decisions if k in b.decisions]
    same = sum(1 for k in both if fields(a.decisions[k]) == fields(b.decisions[k]))
    return same, len(both)


def report(runs: Sequence[Run]) -> None:
    print(
        f"  {'engine':<11} {'burst/s':>8} {'burst p50':>10} {'p99':>8} {'paced p50':>10} "
        f"{'p99':>8} {'CPU ms/draft':>13} {'cores':>6}"
    )
    for r in runs:
        print(
            f"  {r.engine:<11} {r.rate:>8.2f} {pct(r.burst, 0.5):>8.0f}ms "
            f"{pct(r.burst, 0.99):>6.0f}ms {pct(r.paced, 0.5):>8.0f}ms {pct(r.paced, 0.99):>6.0f}ms"
            f" {r.burst_cpu * 1000 / len(r.burst):>13.1f} {r.burst_cpu / r.burst_seconds:>6.2f}"
        )


async def bench(args: argparse.Namespace) -> None:
    print(
        f"{args.drafts} drafts per burst, paced {args.paced_rate:g}/s for "
        f"{args.paced_seconds:g} s, profile {args.profile}, concurrency {args.concurrency}; "
        f"{os.cpu_count()} CPUs, load "
        f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}"
    )
    runs: list[Run] = []
    for rnd in range(args.rounds):
        run = uuid.uuid4().hex[:6]
        burst = make_drafts(args.drafts, f"{run}b")
        paced = make_drafts(int(args.paced_rate * args.paced_seconds), f"{run}p")
        order = [in_process, stream] if rnd % 2 == 0 else [stream, in_process]
        pair = {}
        for engine in order:
            result = await engine(burst, paced, args)
            pair[result.engine] = result
            report([result])
        same, both = agreeing(pair["in-process"], pair["stream"])
        print(f"  round {rnd + 1}: {same} of {both} decisions agree field for field")
        runs.extend(pair.values())

    def median(engine: str, value: str) -> float:
        rows = [r for r in runs if r.engine == engine]
        if value == "rate":
            return statistics.median(r.rate for r in rows)
        kind, q = value.split(":")
        return statistics.median(pct(getattr(r, kind), float(q)) for r in rows)

    print(f"\nmedians over {args.rounds} round(s):")
    for engine in ("in-process", "stream"):
        print(
            f"  {engine:<11} burst {median(engine, 'rate'):6.2f} drafts/s, "
            f"p50 {median(engine, 'burst:0.5'):6.0f} ms, "
            f"p99 {median(engine, 'burst:0.99'):6.0f} ms;"
            f" paced p50 {median(engine, 'paced:0.5'):5.0f} ms, "
            f"p99 {median(engine, 'paced:0.99'):5.0f} ms"
        )
    ratio = median("stream", "rate") / median("in-process", "rate")
    p99 = median("stream", "paced:0.99") / median("in-process", "paced:0.99")
    print(f"  stream / in-process: burst drafts/s x{ratio:.2f}, paced p99 x{p99:.2f}")
    print(f"  load now: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--drafts", type=int, default=300, help="drafts per burst (300)")
    parser.add_argument("--paced-rate", type=float, default=4.0, help="paced drafts/s (4)")
    parser.add_argument("--paced-seconds", type=float, default=20.0, help="paced run (20 s)")
    parser.add_argument("--profile", choices=(REALISTIC, SIMULATED), default=REALISTIC)
    worker = stream_config("127.0.0.1:9092", "bench", "").reviewer_concurrency  # the worker's
    parser.add_argument(
        "--concurrency", type=int, default=worker, help=f"drafts in flight in-process ({worker})"
    )
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--bootstrap", default=os.environ.get("KAFKA_BOOTSTRAP_SERVERS"))
    parser.add_argument("--dsn", default=os.environ.get("DATABASE_URL"))
    args = parser.parse_args()
    if not args.bootstrap or not args.dsn:
        raise SystemExit("set KAFKA_BOOTSTRAP_SERVERS and DATABASE_URL (or --bootstrap, --dsn)")
    logging.basicConfig(level=logging.ERROR)
    logging.getLogger("aiokafka").setLevel(logging.CRITICAL)
    asyncio.run(bench(args))


if __name__ == "__main__":
    main()
