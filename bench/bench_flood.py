"""A flood of bad drafts with valid ones queued behind it, next to a bare-aiokafka floor.

    python bench/bench_flood.py [--bad 10000] [--valid 50] [--rounds 1] [--engines multiqa,...]
                                [--profile DIR]

multiqa: the all-in-one worker (`bench_stream.py --serve`: every reviewer zero-cost, the
aggregator, the sinks on a fresh database). N bad drafts (a mix: non-Avro bytes, truncated Avro,
another record type, empty values, null keys, drafts keyed by another id) are produced at once,
then M valid drafts. Printed: the parking rate (bad events / s from the flood's first message to
its last dead letter), the worker's CPU per bad event (and the kernel's share of it), dead
letters counted (exactly N is right: one per bad event); from the flood's last message: when the
last dead letter was published, when audit_log had every one, when the valid drafts' reviews
came, their first and last decision; and the worker's RSS: baseline (after one warm-up draft),
peak, and after (10 s after the last decision).

Floor (same run, same broker, same events): a bare aiokafka loop that reads the drafts topic,
decodes each value with the codec and publishes a DeadLetter for each bad one (batched sends,
manual commits): what consuming, decoding and producing the dead letters cost without Faust.

`--engines multiqa,multiqa/SETTING=VALUE` runs the worker once more per round with
MULTIQA_SETTING=VALUE (an A/B in the same run); MULTIQA_* variables in the environment reach every
worker (bench/stream_engines.py). `--profile DIR` records the worker with py-spy (`pip install
py-spy`) from the flood's first message until its last dead letter and valid decision, in
py-spy's raw (collapsed) format: DIR/<engine>-<round>-cpu.txt (`--gil`: what holds the
interpreter) and -wall.txt (`--idle`: where the time goes, waits included). `--heap DIR` records
the worker's heap at the baseline and at "after" (bench/flood_heap.py) and prints what grew: the
allocators' live and kept-free bytes (pymalloc's arenas, glibc's heap) and the live objects by
type; with `--tracemalloc` also by allocating line (tracing slows the worker several times and
multiplies its RSS: its rates and RSS are then not comparable with an untraced run).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
from flood_heap import SIGNAL, hook_env, report
from stream_engines import Engine, Feeder, _partitions, parse_engine
from stream_roster import make_drafts

from schemas import CodecError, DeadLetter, DraftSubmitted, Provider, ReviewerResult, decode, encode
from tests.helpers.postgres import drop_database

PARTITIONS = 6


class FloodEngine(Engine):
    """The bench's multiqa worker, without an operations port (others may hold the default)."""

    sinks = True
    heap_dir: Path | None = None  # --heap
    traced = False  # --tracemalloc

    def env(self) -> dict[str, str]:
        env = {**super().env(), "MULTIQA_OPS_PORT": "0"}
        if not self.sinks:
            env["MULTIQA_DATABASE_URL"] = ""
        if self.heap_dir is not None:
            env.update(hook_env(self.heap_dir, env.get("PYTHONPATH", ""), traced=self.traced))
        return env


async def heap_snapshot(directory: Path, pid: int, n: int) -> Path:
    """Have the worker snapshot its heap (bench/flood_heap.py); the snapshot's path."""
    os.kill(pid, SIGNAL)
    path = directory / f"{pid}-{n}"
    for _ in range(600):
        if path.with_suffix(".json").exists():
            return path
        await asyncio.sleep(0.2)
    raise RuntimeError(f"the worker wrote no heap record {path}.json in 120 s")


def sys_seconds(pid: int) -> float:
    """System (kernel) CPU time of a process so far (0 when it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return int(fields[12]) / os.sysconf("SC_CLK_TCK")


def rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def bad_events(n: int, run: str) -> list[tuple[bytes | None, bytes]]:
    """`n` bad qa.drafts messages (key, value), the kinds in turn."""
    draft = encode(DraftSubmitted(f"{run}-x", 1, "T", "Some text. " * 40))
    result = encode(
        ReviewerResult("critic", True, 50.0, "x", Provider.OLLAMA, draft_id=f"{run}-x", version=1)
    )
    kinds: list[tuple[bytes | None, bytes]] = [
        (b"k", b"not avro at all"),
        (b"k", draft[:-25]),
        (f"{run}-x".encode(), result),  # valid Avro, the wrong record type
        (b"k", b""),
        (None, draft),  # null key
        (b"another-id", draft),  # keyed by something other than its draft_id
    ]
    out = []
    for i in range(n):
        key, value = kinds[i % len(kinds)]
        out.append((None if key is None else key + str(i).encode(), value))
    return out


class DeadLetterTail:
    """Counts the dead letters of a topic (every partition, no group)."""

    def __init__(self, bootstrap: str, topic: str) -> None:
        self.bootstrap, self.topic = bootstrap, topic
        self.count = 0
        self.sources: set[tuple[int, int]] = set()
        self.first = self.last = 0.0
        self._grew = asyncio.Event()

    async def reached(self, count: int) -> None:
        while self.count < count:
            self._grew.clear()
            await self._grew.wait()

    async def __aenter__(self) -> DeadLetterTail:
        self.consumer = AIOKafkaConsumer(
            bootstrap_servers=self.bootstrap, enable_auto_commit=False, fetch_max_bytes=64 << 20
        )
        await self.consumer.start()
        tps = [TopicPartition(self.topic, p) for p in await _partitions(self.consumer, self.topic)]
        self.consumer.assign(tps)
        await self.consumer.seek_to_beginning(*tps)
        self._task = asyncio.ensure_future(self._follow())
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._task.cancel()
        await asyncio.gather(self._task, return_exceptions=True)
        await self.consumer.stop()

    async def _follow(self) -> None:
        while True:
            batch = await self.consumer.getmany(timeout_ms=100, max_records=10_000)
            now = time.monotonic()
            for messages in batch.values():
                for m in messages:
                    dead = decode(m.value, DeadLetter)
                    if not self.count:
                        self.first = now
                    self.count += 1
                    self.last = now
                    self.sources.add((dead.source_partition, dead.source_offset))
            self._grew.set()


class ReviewTail(DeadLetterTail):
    """When the reviewer results of the drafts whose ids start with `prefix` appear."""

    def __init__(self, bootstrap: str, topic: str, prefix: str) -> None:
        super().__init__(bootstrap, topic)
        self.prefix = prefix

    async def _follow(self) -> None:
        while True:
            batch = await self.consumer.getmany(timeout_ms=100, max_records=10_000)
            now = time.monotonic()
            for messages in batch.values():
                for m in messages:
                    if decode(m.value, ReviewerResult).draft_id.startswith(self.prefix):
                        self.first = self.first or now
                        self.count += 1
                        self.last = now


async def produce(bootstrap: str, topic: str, events: list[tuple[bytes | None, bytes]]) -> None:
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, linger_ms=5, max_batch_size=512 * 1024)
    await producer.start()
    try:
        sends = [await producer.send(topic, value, key=key) for key, value in events]
        await asyncio.gather(*sends)
    finally:
        await producer.stop()


async def floor(
    bootstrap: str, prefix: str, bad: list[tuple[bytes | None, bytes]]
) -> tuple[float, float]:
    """The bare loop's bad events per second (read, decode, publish a DeadLetter, commit) and
    its CPU ms per bad event (this process's)."""
    engine = Engine("floor", prefix, bootstrap, "")
    await engine.create_topics()
    try:
        await produce(bootstrap, f"{prefix}.drafts", bad)
        consumer = AIOKafkaConsumer(
            f"{prefix}.drafts",
            bootstrap_servers=bootstrap,
            group_id=f"{prefix}-floor",
            enable_auto_commit=False,
            auto_offset_reset="earliest",
            fetch_max_bytes=64 << 20,
        )
        producer = AIOKafkaProducer(
            bootstrap_servers=bootstrap, linger_ms=5, max_batch_size=256 * 1024
        )
        await consumer.start()
        await producer.start()
        try:
            done = 0
            t0 = cpu0 = 0.0
            while done < len(bad):
                batch = await consumer.getmany(timeout_ms=200, max_records=2000)
                if batch and not t0:
                    t0 = time.monotonic()  # from the first event read (not the group's join)
                    cpu0 = time.process_time()
                sends = []
                for messages in batch.values():
                    for m in messages:
                        try:
                            value = decode(m.value, DraftSubmitted)
                            error: Exception | None = (
                                None
                                if m.key is not None and m.key.decode() == value.draft_id
                                else ValueError("wrong key")
                            )
                        except CodecError as exc:
                            error = exc
                        if error is not None:
                            dead = DeadLetter(
                                f"{prefix}.drafts", m.partition, m.offset,
                                type(error).__name__, str(error), m.value or b"", "floor", m.key,
                            )  # fmt: skip
                            sends.append(
                                await producer.send(
                                    f"{prefix}.dead-letters", encode(dead), key=m.key
                                )
                            )
                        done += 1
                await asyncio.gather(*sends)
                if batch:
                    await consumer.commit()
            seconds, cpu = time.monotonic() - t0, time.process_time() - cpu0
            return len(bad) / seconds, cpu * 1000 / len(bad)
        finally:
            await consumer.stop()
            await producer.stop()
    finally:
        await engine.delete_topics()


class Profiler:
    """py-spy attached to the worker while the flood is parked (`--profile`)."""

    def __init__(self, directory: Path | None, name: str, pid: int) -> None:
        self.directory, self.name, self.pid = directory, name, pid
        self.procs: list[subprocess.Popen[bytes]] = []

    def start(self) -> None:
        if self.directory is None:
            return
        self.directory.mkdir(parents=True, exist_ok=True)
        for kind, extra in (("cpu", ["--gil"]), ("wall", ["--idle"])):
            out = self.directory / f"{self.name}-{kind}.txt"
            spy = Path(sys.executable).with_name("py-spy")
            command = [str(spy) if spy.exists() else "py-spy", "record", "--pid", str(self.pid),
                       "--format", "raw", "--rate", "200", "--nonblocking", "-o", str(out),
                       *extra]  # fmt: skip
            self.procs.append(
                subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            )

    def stop(self) -> None:
        for proc in self.procs:
            proc.send_signal(signal.SIGINT)
        for proc in self.procs:
            proc.wait(60)
        self.procs.clear()


async def multiqa(
    args: argparse.Namespace, spec: str, rnd: int, bootstrap: str, pg_dsn: str
) -> dict[str, float]:
    import asyncpg

    run = uuid.uuid4().hex[:6]
    prefix = f"f{run}mqa"
    admin = await asyncpg.connect(pg_dsn)
    database = f"bench_{prefix}"
    await admin.execute(f'CREATE DATABASE "{database}"')
    dsn = pg_dsn.rsplit("/", 1)[0] + "/" + database
    name, settings = parse_engine(spec)
    engine = FloodEngine(name, prefix, bootstrap, dsn, settings=settings)
    profiler: Profiler | None = None
    try:
        await engine.create_topics()
        engine.sinks = not args.no_sinks
        heap = None
        if args.heap is not None:
            heap = engine.heap_dir = args.heap / f"{engine.label.replace('/', '_')}-{rnd}"
            engine.traced = args.tracemalloc
        engine.start()
        pid = engine.procs[0].pid
        async with (
            Feeder(bootstrap, prefix) as feeder,
            DeadLetterTail(bootstrap, f"{prefix}.dead-letters") as tail,
            ReviewTail(bootstrap, f"{prefix}.reviews", f"bench-{run}v-") as reviews,
        ):
            await feeder.run(make_drafts(1, f"{run}w"), None, engine.alive, within=300)
            await asyncio.sleep(3)
            before = None if heap is None else await heap_snapshot(heap, pid, 1)
            baseline = rss_mb(pid)
            peak = baseline
            sampling = True

            async def sample() -> None:
                nonlocal peak
                while sampling:
                    peak = max(peak, rss_mb(pid))
                    await asyncio.sleep(0.1)

            audited_at = 0.0

            async def audited() -> None:  # when the sinks' audit_log has every dead letter
                nonlocal audited_at
                if args.no_sinks:
                    return
                db = await asyncpg.connect(dsn)
                try:
                    query = "SELECT count(*) FROM audit_log WHERE event_type = 'dead_letter'"
                    while not audited_at:
                        if await db.fetchval(query) >= args.bad:
                            audited_at = time.monotonic()
                        else:
                            await asyncio.sleep(0.1)
                finally:
                    await db.close()

            sampler = asyncio.ensure_future(sample())
            auditor = asyncio.ensure_future(audited())
            bad = bad_events(args.bad, run)
            profiler = Profiler(args.profile, f"{engine.label.replace('/', '_')}-{rnd}", pid)
            profiler.start()
            cpu0, sys0 = engine.cpu(), sys_seconds(pid)
            t0 = time.monotonic()
            await produce(bootstrap, f"{prefix}.drafts", bad)
            valid = make_drafts(args.valid, f"{run}v")
            flood_end = time.monotonic()
            try:
                await feeder.run(valid, None, engine.alive, within=900)
            except RuntimeError as exc:
                code = engine.procs[0].poll()
                raise RuntimeError(
                    f"{exc} (worker exit code {code}; log in {engine.log_dir})"
                ) from None
            last_decision = time.monotonic()
            await asyncio.wait_for(tail.reached(args.bad), 300)
            await asyncio.wait_for(auditor, 300)
            cpu, kernel = engine.cpu() - cpu0, sys_seconds(pid) - sys0
            profiler.stop()
            await asyncio.sleep(10)  # any duplicate dead letter shows by now; memory settles
            sampling = False
            await sampler
            after = rss_mb(pid)
            if heap is not None and before is not None:
                print(f"{engine.label} heap, baseline -> after:")
                print(report(before, await heap_snapshot(heap, pid, 2)))
            return {
                "parking": args.bad / max(1e-9, tail.last - t0),
                "cpu": cpu * 1000 / args.bad,
                "cores": cpu / max(1e-9, tail.last - t0),
                "sys": kernel / cpu if cpu else 0.0,
                "letters": tail.count,
                "distinct": len(tail.sources),
                "tail": last_decision - flood_end,
                "produced": flood_end - t0,
                "last_dead": tail.last - flood_end,
                "audited": audited_at - flood_end if audited_at else float("nan"),
                "reviews_first": reviews.first - flood_end,
                "reviews_last": reviews.last - flood_end,
                "first_valid": min(feeder.decided[d.draft_id] for d in valid) - flood_end,
                "rss0": baseline,
                "rss_peak": peak,
                "rss1": after,
            }
    finally:
        if profiler is not None:
            profiler.stop()
        await engine.stop()
        await engine.delete_topics()
        await admin.close()
        await drop_database(pg_dsn, database)  # retried over an autovacuum visit (helper)


async def main_async(args: argparse.Namespace) -> None:
    from streams.devstack import up

    info = await asyncio.to_thread(up)
    assert info.kafka is not None and info.postgres is not None
    bootstrap = info.kafka.bootstrap
    print(
        f"Kafka {bootstrap}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}; "
        f"{args.bad} bad drafts then {args.valid} valid ones; zero-cost reviewers, "
        f"sinks {'off' if args.no_sinks else 'on'}"
    )
    for rnd in range(1, args.rounds + 1):
        run = uuid.uuid4().hex[:6]
        rate, floor_cpu = await floor(bootstrap, f"f{run}flr", bad_events(args.bad, run))
        print(
            f"round {rnd}: floor (bare aiokafka loop): {rate:,.0f} bad events/s, "
            f"{floor_cpu:.3f} CPU ms per bad event"
        )
        for spec in args.engines.split(","):
            f = await multiqa(args, spec, rnd, bootstrap, info.postgres.dsn)
            print(
                f"round {rnd} (load {os.getloadavg()[0]:.1f}): {spec} worker: "
                f"parked {f['parking']:,.0f} bad events/s "
                f"(x{f['parking'] / rate:.2f} the floor), {f['cpu']:.3f} CPU ms per bad event "
                f"(x{f['cpu'] / floor_cpu:.2f}; {f['sys']:.0%} of it in the kernel), "
                f"{f['cores']:.2f} cores busy; "
                f"{f['letters']:.0f} dead letters for {args.bad} bad events "
                f"({f['distinct']:.0f} distinct sources); last valid decision "
                f"{f['tail']:.2f} s after the flood's end (produced in {f['produced']:.2f} s; "
                f"last dead letter {f['last_dead']:.2f} s, all audited {f['audited']:.2f} s, "
                f"their reviews {f['reviews_first']:.2f}-{f['reviews_last']:.2f} s, "
                f"first valid decision "
                f"{f['first_valid']:.2f} s after its end); RSS baseline {f['rss0']:.0f} MB, "
                f"peak {f['rss_peak']:.0f} MB, after {f['rss1']:.0f} MB"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bad", type=int, default=10_000)
    parser.add_argument("--valid", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--no-sinks", action="store_true", help="the worker without its sinks")
    parser.add_argument("--engines", default="multiqa", help="multiqa[/SETTING=VALUE...],...")
    parser.add_argument("--profile", type=Path, help="py-spy profiles of the worker, into DIR")
    parser.add_argument("--heap", type=Path, help="the worker's heap at baseline and after, DIR")
    parser.add_argument("--tracemalloc", action="store_true", help="with --heap: trace it too")
    args = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)
    logging.getLogger("aiokafka").setLevel(logging.CRITICAL)
    asyncio.run(main_async(args))


if __name__ == "__main__":
    main()
