"""The engines bench_stream.py runs side by side, each in its own processes, and how they are fed
and measured from outside (the same way for every engine):

- drafts go in with one plain producer (pre-encoded, keyed by draft_id);
- a draft is done when its QADecision is read on `<prefix>.decisions` (a tail with no group);
- CPU is read from /proc for the engine's processes and for the broker;
- messages written = growth of every topic of the run's prefix (changelogs included); messages
  read = growth of every committed offset of the run's consumer groups.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient, NewTopic
from stream_roster import REVIEWERS

from schemas import DraftSubmitted, QADecision, decode, encode
from streams.runtime.config import StreamConfig

BENCH = Path(__file__).resolve().parent
TOPICS = ("drafts", "reviews", "decisions", "dead-letters")
# multiqa as another checkout has it (e.g. main before a change), run beside this one's.
BASELINE = "multiqa-base"


def baseline_tree() -> Path:
    """The checkout the multiqa-base engine runs (BENCH_BASE_TREE)."""
    tree = os.environ.get("BENCH_BASE_TREE", "")
    if not tree or not (Path(tree) / "bench" / "bench_stream.py").is_file():
        raise SystemExit(
            "the multiqa-base engine needs BENCH_BASE_TREE=<a checkout of multiqa>, e.g. "
            "git worktree add /tmp/base main"
        )
    return Path(tree)


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (0 when it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# What a run's worker must be given by the bench (its broker, topics, database, state); every
# other MULTIQA_* setting set in the bench's environment is passed on to the worker as it is.
RUN_SETTINGS = frozenset(
    "MULTIQA_" + name.upper()
    for name in (
        "bootstrap_servers", "app_prefix", "drafts_topic", "reviews_topic", "decisions_topic",
        "dead_letters_topic", "database_url", "datadir", "partitions",
    )
)  # fmt: skip


def parse_engine(spec: str) -> tuple[str, dict[str, str]]:
    """`multiqa` or `multiqa/broker_fetch_wait=0.02/...`: the engine and the settings its
    worker gets on top of the bench's (an A/B of one setting in the same run)."""
    name, *pairs = spec.split("/")
    settings: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise SystemExit(f"engine {spec!r}: expected setting=value after '/', got {pair!r}")
        variable = key.strip().upper()
        settings[variable if variable.startswith("MULTIQA_") else "MULTIQA_" + variable] = value
    if settings and name not in ("multiqa", BASELINE):
        raise SystemExit(f"engine {spec!r}: only multiqa engines take settings")
    bad = sorted(RUN_SETTINGS & settings.keys())
    if bad:
        raise SystemExit(f"engine {spec!r}: {bad} are the bench's to set")
    return name, settings


def stream_config(bootstrap: str, prefix: str, dsn: str, **overrides: Any) -> StreamConfig:
    values: dict[str, Any] = {
        "bootstrap_servers": bootstrap,
        "app_prefix": prefix,
        "drafts_topic": f"{prefix}.drafts",
        "reviews_topic": f"{prefix}.reviews",
        "decisions_topic": f"{prefix}.decisions",
        "dead_letters_topic": f"{prefix}.dead-letters",
        "partitions": 6,
        "reviewer_concurrency": 32,
        "database_url": dsn,
        "broker_session_timeout": 10.0,
        "broker_heartbeat_interval": 1.0,
        "broker_rebalance_timeout": 10.0,
        "broker_commit_interval": 1.0,
        "datadir": str(Path(".cache") / "bench" / prefix),
        **overrides,
    }
    return StreamConfig(**values)


@dataclass
class Engine:
    """One engine under test: its processes, and what it was fed and answered."""

    name: str
    prefix: str
    bootstrap: str
    dsn: str
    procs: list[subprocess.Popen[bytes]] = field(default_factory=list)
    log_dir: Path = Path(".cache") / "bench"
    settings: dict[str, str] = field(default_factory=dict)  # MULTIQA_* on top (parse_engine)

    @property
    def label(self) -> str:
        pairs = [f"{k.removeprefix('MULTIQA_').lower()}={v}" for k, v in self.settings.items()]
        return "/".join([self.name, *pairs])

    def commands(self) -> list[list[str]]:
        py = sys.executable
        common = ["--bootstrap", self.bootstrap, "--prefix", self.prefix, "--dsn", self.dsn]
        if self.name == "aiokafka":
            return [[py, str(BENCH / "peer_aiokafka.py"), *common]]
        if self.name == "quix":
            state = str(self.log_dir / f"{self.prefix}-quix-state")
            roles = [f"reviewer:{name}" for name, _, _ in REVIEWERS] + ["aggregator"]
            return [
                [py, str(BENCH / "peer_quix.py"), *common, "--role", r, "--state-dir", state]
                for r in roles
            ]
        if self.name == BASELINE:
            return [[py, str(baseline_tree() / "bench" / "bench_stream.py"), "--serve"]]
        return [[py, str(BENCH / "bench_stream.py"), "--serve"]]

    def env(self) -> dict[str, str]:
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        if self.name in ("multiqa", BASELINE):
            # The bench's settings, except those given in its own environment (e.g.
            # MULTIQA_BROKER_FETCH_WAIT=0.02 python bench/...), then the engine's own.
            given = {k: v for k, v in os.environ.items() if k.startswith("MULTIQA_")}
            for key, value in stream_config(self.bootstrap, self.prefix, self.dsn).to_env().items():
                if key in RUN_SETTINGS or key not in given:
                    env[key] = value
            env.update(self.settings)
        if self.name == BASELINE:
            env["PYTHONPATH"] = str(baseline_tree())  # its own code, not this checkout's
        return env

    async def create_topics(self) -> None:
        admin = AIOKafkaAdminClient(bootstrap_servers=self.bootstrap)
        await admin.start()
        try:
            topics = [NewTopic(f"{self.prefix}.{t}", 6, 1) for t in TOPICS]
            topics.append(
                NewTopic(
                    f"{self.prefix}.changelog", 6, 1, topic_configs={"cleanup.policy": "compact"}
                )
            )
            await admin.create_topics(topics)
        finally:
            await admin.close()
        if self.name in ("multiqa", BASELINE):
            from streams.runtime.topics import ensure_topics

            await ensure_topics(stream_config(self.bootstrap, self.prefix, self.dsn))

    def start(self) -> None:
        self.log_dir.mkdir(parents=True, exist_ok=True)
        for n, command in enumerate(self.commands()):
            with open(self.log_dir / f"{self.prefix}-{n}.log", "wb") as log:
                self.procs.append(
                    subprocess.Popen(command, env=self.env(), stdout=log, stderr=subprocess.STDOUT)
                )

    def alive(self) -> bool:
        return all(p.poll() is None for p in self.procs)

    def cpu(self) -> float:
        return sum(cpu_seconds(p.pid) for p in self.procs)

    async def stop(self) -> None:
        for p in self.procs:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in self.procs:
            try:
                await asyncio.to_thread(p.wait, 60)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()

    async def delete_topics(self) -> None:
        admin = AIOKafkaAdminClient(bootstrap_servers=self.bootstrap)
        await admin.start()
        try:
            names = [t for t in await admin.list_topics() if self.prefix in t]
            if names:
                await admin.delete_topics(names)
        finally:
            await admin.close()


async def message_counts(bootstrap: str, prefix: str) -> tuple[int, int]:
    """(messages in the run's topics, offsets committed by the run's consumer groups)."""
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap)
    await admin.start()
    await consumer.start()
    try:
        names = [t for t in await admin.list_topics() if prefix in t]
        tps = [
            TopicPartition(name, p)
            for name in names
            for p in (consumer.partitions_for_topic(name) or await _partitions(consumer, name))
        ]
        ends = await consumer.end_offsets(tps)
        written = sum(ends.values())
        groups = [g[0] for g in await admin.list_consumer_groups() if g[0].startswith(prefix)]
        read = 0
        for group in groups:
            offsets = await admin.list_consumer_group_offsets(group)
            read += sum(max(0, o.offset) for o in offsets.values())
        return written, read
    finally:
        await consumer.stop()
        await admin.close()


async def _partitions(consumer: AIOKafkaConsumer, topic: str) -> set[int]:
    for _ in range(50):
        await consumer._client.force_metadata_update()
        found = consumer.partitions_for_topic(topic)
        if found:
            return set(found)
        await asyncio.sleep(0.1)
    return set()


class Feeder:
    """Submits drafts to an engine and timestamps their decisions."""

    def __init__(self, bootstrap: str, prefix: str) -> None:
        self.bootstrap = bootstrap
        self.drafts_topic = f"{prefix}.drafts"
        self.decisions_topic = f"{prefix}.decisions"
        self.decided: dict[str, float] = {}
        self.decisions: dict[str, QADecision] = {}
        self._waiting: dict[str, asyncio.Future[float]] = {}

    async def __aenter__(self) -> Feeder:
        self.producer = AIOKafkaProducer(bootstrap_servers=self.bootstrap, linger_ms=2)
        await self.producer.start()
        self.tail = AIOKafkaConsumer(bootstrap_servers=self.bootstrap, enable_auto_commit=False)
        await self.tail.start()
        parts = await _partitions(self.tail, self.decisions_topic)
        tps = [TopicPartition(self.decisions_topic, p) for p in parts]
        self.tail.assign(tps)
        await self.tail.seek_to_beginning(*tps)
        self._task = asyncio.ensure_future(self._follow())
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._task.cancel()
        await asyncio.gather(self._task, return_exceptions=True)
        await self.tail.stop()
        await self.producer.stop()

    async def _follow(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            batch = await self.tail.getmany(timeout_ms=200)
            now = loop.time()
            for messages in batch.values():
                for m in messages:
                    decision = decode(m.value, QADecision)
                    if decision.draft_id in self.decided:
                        continue
                    self.decided[decision.draft_id] = now
                    self.decisions[decision.draft_id] = decision
                    waiter = self._waiting.pop(decision.draft_id, None)
                    if waiter is not None and not waiter.done():
                        waiter.set_result(now)

    async def run(
        self, drafts: Sequence[DraftSubmitted], rate: float | None, alive: Any, within: float
    ) -> tuple[float, list[float]]:
        """Submit `drafts` (at once, or `rate` per second); returns (makespan, latencies)."""
        loop = asyncio.get_running_loop()
        payloads = [(d.draft_id, encode(d)) for d in drafts]
        for draft_id, _ in payloads:
            self._waiting[draft_id] = loop.create_future()
        began: dict[str, float] = {}
        sends = []
        t0 = loop.time()
        for n, (draft_id, payload) in enumerate(payloads):
            if rate:
                await asyncio.sleep(max(0.0, t0 + n / rate - loop.time()))
            began[draft_id] = loop.time()
            sends.append(
                await self.producer.send(self.drafts_topic, payload, key=draft_id.encode())
            )
        await asyncio.gather(*sends)
        deadline = loop.time() + within
        for draft_id, _ in payloads:
            waiter = self._waiting.get(draft_id)
            while waiter is not None and not waiter.done():
                if not alive() or loop.time() > deadline:
                    raise RuntimeError(f"no decision for {draft_id}")
                await asyncio.wait({waiter}, timeout=0.5)
        finished = {k: self.decided[k] for k in began}
        return max(finished.values()) - t0, [finished[k] - began[k] for k in began]
