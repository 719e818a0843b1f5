"""The stream end to end, next to two peers in the same run: drafts/s, latency, CPU, messages.

    python bench/bench_stream.py [--drafts 2500] [--rounds 2] [--paced-rate 100]

Engines, each in its own processes, fed and measured the same way (bench/stream_engines.py),
every reviewer zero-cost (bench/stream_roster.py: what the plumbing costs), sinks on (a fresh
PostgreSQL database per engine and round):
- multiqa:   the all-in-one `multiqa worker` (every reviewer agent, the aggregator, the sinks);
- aiokafka:  the same topology on bare aiokafka, batched, one process (bench/peer_aiokafka.py):
             the floor;
- quix:      the same topology on Quix Streams, one process per reviewer plus one for the
             aggregator and sinks (bench/peer_quix.py);
- multiqa-base (only when asked for, with BENCH_BASE_TREE=<another checkout>): that checkout's
             multiqa worker, e.g. main before a change, for a before/after in the same run.
- multiqa/SETTING=VALUE (e.g. `--engines aiokafka,multiqa,multiqa/broker_fetch_wait=0.02`): the
             worker with MULTIQA_SETTING=VALUE, an A/B of one setting in the same run. MULTIQA_*
             variables in the bench's environment reach every multiqa worker too (all but the
             run's broker, topics, database and state directory, which the bench sets).
Per engine: a burst (every draft submitted at once: drafts/s), then a paced run at the same rate
for every engine (latency without a queue). CPU per draft is the engine's processes' plus the
broker's, during the burst. Messages written/read per draft count every topic and consumer group
of the run. The engines run interleaved, `--rounds` times, in rotating order (the machine is
shared: a round that differs much from the others is noise); the summary is each engine's median
and multiqa's ratio to the better peer.

Use a broker nobody else loads when you can (the broker's CPU is read from its process): the
dev stack's variables choose it (MULTIQA_CACHE_DIR, MULTIQA_KAFKA_PORT, MULTIQA_PG_PORT).
"""

from __future__ import annotations

import argparse
import asyncio
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

from stream_engines import BASELINE, Engine, Feeder, cpu_seconds, message_counts, parse_engine
from stream_roster import SIMULATED, ZERO, make_drafts, roster

from agents.values import split_list
from schemas import DraftSubmitted
from tests.helpers.postgres import drop_database


@dataclass
class Row:
    engine: str
    round: int
    drafts: int
    seconds: float
    cpu: float
    broker_cpu: float
    written: int
    read: int
    paced: list[float]
    persisted: int
    expected_rows: int

    @property
    def rate(self) -> float:
        return self.drafts / self.seconds

    def pct(self, q: float) -> float:
        ordered = sorted(self.paced)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


async def run_engine(spec: str, rnd: int, args: argparse.Namespace, kafka: object) -> Row:
    import asyncpg

    name, settings = parse_engine(spec)
    bootstrap = kafka.bootstrap  # type: ignore[attr-defined]
    run = uuid.uuid4().hex[:6]
    prefix = f"b{run}{name[:3]}"
    admin = await asyncpg.connect(args.pg_dsn)
    database = f"bench_{prefix}"
    await admin.execute(f'CREATE DATABASE "{database}"')
    dsn = args.pg_dsn.rsplit("/", 1)[0] + "/" + database
    engine = Engine(name, prefix, bootstrap, dsn, settings=settings)
    broker_pid = kafka.pid  # type: ignore[attr-defined]
    try:
        await engine.create_topics()
        engine.start()
        async with Feeder(bootstrap, prefix) as feeder:
            await feeder.run(make_drafts(1, f"{run}w"), None, engine.alive, within=300)
            await _settle(bootstrap, prefix)
            written0, read0 = await message_counts(bootstrap, prefix)
            cpu0, broker0 = engine.cpu(), cpu_seconds(broker_pid)
            drafts = make_drafts(args.drafts, f"{run}b")
            seconds, _ = await feeder.run(drafts, None, engine.alive, within=600)
            cpu, broker = engine.cpu() - cpu0, cpu_seconds(broker_pid) - broker0
            written1, read1 = await _settle(bootstrap, prefix)
            paced = make_drafts(int(args.paced_rate * args.paced_seconds), f"{run}p")
            _, latencies = await feeder.run(paced, args.paced_rate, engine.alive, within=300)
        expected_rows = 1 + len(drafts) + len(paced)
        persisted = await _persisted(dsn, expected_rows)
        return Row(
            engine.label, rnd, len(drafts), seconds, cpu, broker, written1 - written0,
            read1 - read0, latencies, persisted, expected_rows,
        )  # fmt: skip
    finally:
        await engine.stop()
        await engine.delete_topics()
        await admin.close()
        await drop_database(args.pg_dsn, database)  # retried over an autovacuum visit (helper)


async def _settle(bootstrap: str, prefix: str) -> tuple[int, int]:
    """Wait until every group has committed what it read (commit intervals differ)."""
    last = await message_counts(bootstrap, prefix)
    for _ in range(30):
        await asyncio.sleep(1.0)
        now = await message_counts(bootstrap, prefix)
        if now == last:
            return now
        last = now
    return last


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


def print_rows(rows: Sequence[Row]) -> None:
    print(
        f"  {'engine':<9} {'round':>5} {'burst/s':>8} {'p50 ms':>7} {'p99 ms':>7} "
        f"{'CPU ms/draft':>13} {'+broker':>8} {'written':>8} {'read':>6} {'in PG':>11}"
    )
    for r in rows:
        print(
            f"  {r.engine:<9} {r.round:>5} {r.rate:>8.1f} {r.pct(0.5):>7.1f} {r.pct(0.99):>7.1f} "
            f"{r.cpu * 1000 / r.drafts:>13.2f} {r.broker_cpu * 1000 / r.drafts:>8.2f} "
            f"{r.written / r.drafts:>8.1f} {r.read / r.drafts:>6.1f} "
            f"{r.persisted:>5}/{r.expected_rows:<5}"
        )


def summarise(rows: Sequence[Row]) -> None:
    def median(engine: str, value: object) -> float:
        return statistics.median(v(r) for r in rows if r.engine == engine for v in [value])  # type: ignore[operator]

    figures = {
        e: {
            "rate": median(e, lambda r: r.rate),
            "p50": median(e, lambda r: r.pct(0.5)),
            "p99": median(e, lambda r: r.pct(0.99)),
            "cpu": median(e, lambda r: r.cpu * 1000 / r.drafts),
            "broker": median(e, lambda r: r.broker_cpu * 1000 / r.drafts),
        }
        for e in dict.fromkeys(r.engine for r in rows)
    }
    print("\nmedians over rounds:")
    for e, f in figures.items():
        print(
            f"  {e:<9} burst {f['rate']:7.1f} drafts/s  paced p50 {f['p50']:6.1f} ms  "
            f"p99 {f['p99']:6.1f} ms  CPU {f['cpu']:.2f} ms/draft (+{f['broker']:.2f} broker)"
        )
    ours = [e for e in figures if e.startswith("multiqa") and e != BASELINE]
    if BASELINE in figures:
        b = figures[BASELINE]
        for e in ours:
            m = figures[e]
            print(
                f"  {e} / {BASELINE} (BENCH_BASE_TREE): burst x{m['rate'] / b['rate']:.2f}, "
                f"paced p99 x{m['p99'] / b['p99']:.2f}, CPU per draft incl. broker "
                f"x{(m['cpu'] + m['broker']) / (b['cpu'] + b['broker']):.2f}"
            )
    peers = [e for e in figures if not e.startswith("multiqa")]
    for e in ours if peers else ():
        m = figures[e]
        fastest = max(peers, key=lambda e: figures[e]["rate"])
        leanest = min(peers, key=lambda e: figures[e]["cpu"] + figures[e]["broker"])
        print(
            f"  {e} / {fastest} (faster peer): "
            f"burst x{m['rate'] / figures[fastest]['rate']:.2f}"
            f", paced p99 x{m['p99'] / figures[fastest]['p99']:.2f}"
        )
        total = m["cpu"] + m["broker"]
        lean = figures[leanest]["cpu"] + figures[leanest]["broker"]
        print(f"  {e} / {leanest} (leaner peer): CPU per draft incl. broker x{total / lean:.2f}")


async def bench_peers(args: argparse.Namespace) -> None:
    from streams.devstack import up

    info = await asyncio.to_thread(up)
    assert info.kafka is not None and info.postgres is not None
    args.pg_dsn = info.postgres.dsn
    engines = split_list(args.engines)
    print(
        f"Kafka {info.kafka.bootstrap} (pid {info.kafka.pid}), {os.cpu_count()} CPUs, load "
        f"{os.getloadavg()[0]:.1f}; {args.drafts} drafts per burst, paced {args.paced_rate:g}/s "
        f"for {args.paced_seconds:g} s; zero-cost reviewers, sinks on"
    )
    rows: list[Row] = []
    for rnd in range(1, args.rounds + 1):
        shift = (rnd - 1) % len(engines)
        for name in engines[shift:] + engines[:shift]:
            row = await run_engine(name, rnd, args, info.kafka)
            rows.append(row)
            print_rows([row])
    print("\nall rounds:")
    print_rows(sorted(rows, key=lambda r: (r.engine, r.round)))
    summarise(rows)


def serve() -> None:
    """Child mode: the all-in-one worker with the bench's roster (config from MULTIQA_*)."""
    from streams.cli.worker import run
    from streams.runtime.config import StreamConfig

    profile = os.environ.get("BENCH_PROFILE", ZERO)
    run(StreamConfig.from_env(), roster=roster(profile), loglevel="warning")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--drafts", type=int, default=2500, help="drafts per burst (2500)")
    parser.add_argument("--rounds", type=int, default=2, help="rounds of every engine (2)")
    parser.add_argument(
        "--engines",
        default="aiokafka,quix,multiqa",
        help="comma-separated; multiqa/SETTING=VALUE[/...] runs a variant with MULTIQA_SETTING "
        "(an A/B in the same run); MULTIQA_* in the environment apply to every multiqa engine",
    )
    parser.add_argument("--paced-rate", type=float, default=100.0, help="paced drafts/s (100)")
    parser.add_argument("--paced-seconds", type=float, default=10.0, help="paced run (10 s)")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve()
        return
    logging.basicConfig(level=logging.ERROR)
    logging.getLogger("aiokafka").setLevel(logging.CRITICAL)
    asyncio.run(bench_peers(args))


if __name__ == "__main__":
    main()


__all__ = ["SIMULATED", "DraftSubmitted"]
