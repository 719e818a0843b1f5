"""`multiqa rescore` end to end, next to a bare read-and-decode loop of the same topics.

    python bench/bench_rescore.py [--results 100000] [--rounds 3] [--partitions 6] [--peer-ref REF]

Writes a fresh pair of topics on the broker of KAFKA_BOOTSTRAP_SERVERS (a varied history from
bench/rescore_history.py: about 7 reviewer results per decision), then runs, in alternating order,
each in its own process with start-up counted (wall time from spawn to exit):

- baseline: a bare aiokafka loop (no group, getmany) reading both topics to their end and decoding
  every event with `schemas.decode`, nothing else: what any consumer of these topics pays;
- rescore: `multiqa rescore --defaults` on the same topics, its report on stdout (checked: every
  decision re-scored, none changed, since the history was decided under the defaults), once with
  `--jobs 1` (one process) and once with the default (one process per usable core, by partition);
- with `--peer-ref REF` (e.g. the main branch before a change): the same two runs of that commit's
  `multiqa rescore` (its tree from `git archive`, run by the same Python), the before of a change
  measured in the same minutes as the after.

Then the steps in-process, CPU time per reviewer result (min of 5, no Kafka, no start-up): decoding
the results, decoding the decisions, re-scoring (`build_decision` and its bookkeeping).

Prints reviewer results per second for both (results on qa.reviews / wall seconds), the ratio, and
the machine's load (the figures are noisy on a shared machine; the ratio is the steadier number).
Goal (issue 13): rescore >= 50,000 results/s.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient, NewTopic
from rescore_history import make_history

from schemas import QADecision, ReviewerResult, decode, decoder, encode

ROOT = Path(__file__).resolve().parents[1]


async def _create(bootstrap: str, topics: list[str], partitions: int) -> None:
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        await admin.create_topics([NewTopic(t, partitions, 1) for t in topics])
    finally:
        await admin.close()


async def _delete(bootstrap: str, topics: list[str]) -> None:
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        await admin.delete_topics(topics)
    finally:
        await admin.close()


async def _produce(bootstrap: str, reviews_topic: str, decisions_topic: str, drafts: int) -> int:
    history = await make_history(drafts)
    producer = AIOKafkaProducer(
        bootstrap_servers=bootstrap, linger_ms=20, max_batch_size=512 * 1024, acks="all"
    )
    await producer.start()
    try:
        sent = []
        for review in history.reviews:
            key = review.draft_id.encode()
            sent.append(await producer.send(reviews_topic, encode(review), key=key))
        for decision in history.decisions:
            key = decision.draft_id.encode()
            sent.append(await producer.send(decisions_topic, encode(decision), key=key))
        await asyncio.gather(*sent)
    finally:
        await producer.stop()
    return len(history.reviews)


# --- the baseline (child process) ---------------------------------------------------------------


async def _bare_read(bootstrap: str, topics: list[str], partitions: int) -> dict[str, int]:
    consumer = AIOKafkaConsumer(
        bootstrap_servers=bootstrap, group_id=None, enable_auto_commit=False
    )
    await consumer.start()
    counts: dict[str, int] = {}
    try:
        for topic, record_type in zip(topics, (ReviewerResult, QADecision), strict=True):
            tps = [TopicPartition(topic, p) for p in range(partitions)]
            consumer.assign(tps)
            for tp in tps:
                consumer.seek(tp, 0)
            ends = await consumer.end_offsets(tps)
            left = {tp for tp in tps if ends[tp] > 0}
            n = 0
            while left:
                batch = await consumer.getmany(*left, timeout_ms=1000)
                for tp, records in batch.items():
                    for record in records:
                        decode(record.value, record_type)
                        n += 1
                    if records and records[-1].offset + 1 >= ends[tp]:
                        left.discard(tp)
            counts[topic] = n
    finally:
        await consumer.stop()
    return counts


def _child(bootstrap: str, topics: list[str], partitions: int) -> None:
    print(json.dumps(asyncio.run(_bare_read(bootstrap, topics, partitions))))


# --- the runs ---------------------------------------------------------------------------------


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _timed(
    command: list[str], env: dict[str, str], cwd: str | None = None
) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds, stdout) of one process, start-up included."""
    cpu = _children_cpu()
    started = time.perf_counter()
    done = subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{command[0]} failed ({done.returncode}):\n{done.stderr[-2000:]}")
    return elapsed, _children_cpu() - cpu, done.stdout


def _multiqa() -> list[str]:
    script = Path(sys.executable).parent / "multiqa"
    return [str(script)] if script.exists() else [sys.executable, "-m", "streams.cli"]


def _peer_tree(ref: str, into: str) -> str:
    """The source tree of commit `ref` of this repository, unpacked under `into`."""
    tree = os.path.join(into, "peer")
    os.mkdir(tree)
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", ref], capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", tree], input=archive, check=True)
    return tree


def _check(stdout: str, decisions: int) -> None:
    """The history was decided under the defaults: every decision re-scores to itself."""
    expected = (
        f"{decisions} draft versions; re-scored {decisions}, not 0",
        "0 newly approved, 0 newly rejected; mean score change +0.00 (largest 0.00)",
    )
    if not all(line in stdout for line in expected):
        raise SystemExit(f"rescore did not reproduce the history:\n{stdout[:2000]}")


def _steps(drafts: int) -> None:
    """Where a re-score's CPU goes, per reviewer result, in-process."""
    import gc

    from agents.settings import Settings
    from streams.cli.replay import rescore
    from streams.cli.replay_score import Share, score_partitions

    history = asyncio.run(make_history(min(drafts, 4000)))
    reviews = [encode(r) for r in history.reviews]
    decisions = [encode(d) for d in history.decisions]
    settings = Settings()
    events = {("d", 0): history.decisions, ("r", 0): history.reviews}
    read_result, read_decision = decoder(ReviewerResult), decoder(QADecision)
    steps = {
        "decode the results": lambda: [read_result(b) for b in reviews],
        "decode the decisions": lambda: [read_decision(b) for b in decisions],
        "re-score (the command)": lambda: score_partitions(Share(), events, "r", settings),
    }
    whole = {
        "re-score, whole decisions": lambda: rescore(history.decisions, history.reviews, settings),
    }
    print(f"\nin-process steps, CPU us per reviewer result (min of 5, {len(reviews)} results):")
    total = 0.0
    gc.disable()
    try:
        for label, step in steps.items():
            per = min(_cpu(step) for _ in range(5)) / len(reviews) * 1e6
            total += per
            print(f"  {label:<28} {per:6.1f} us")
        print(f"  {'sum':<28} {total:6.1f} us = {1e6 / total:,.0f} results per CPU-second")
        for label, step in whole.items():  # what --publish and the library's rescore() build
            per = min(_cpu(step) for _ in range(5)) / len(reviews) * 1e6
            print(f"  ({label}: {per:.1f} us)")
    finally:
        gc.enable()


def _cpu(step: Callable[[], object]) -> float:
    started = time.process_time()
    step()
    return time.process_time() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", type=int, default=100_000, help="reviewer results (about)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--partitions", type=int, default=6)
    parser.add_argument("--bootstrap", default=os.environ.get("KAFKA_BOOTSTRAP_SERVERS"))
    parser.add_argument("--peer-ref", help="also run this commit's rescore (e.g. main)")
    parser.add_argument("--steps", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument(
        "--child", nargs=2, metavar=("REVIEWS", "DECISIONS"), help=argparse.SUPPRESS
    )
    args = parser.parse_args()
    if not args.bootstrap:
        raise SystemExit("no broker: set KAFKA_BOOTSTRAP_SERVERS or pass --bootstrap")
    if args.child:
        _child(args.bootstrap, list(args.child), args.partitions)
        return

    run = uuid.uuid4().hex[:8]
    reviews_topic, decisions_topic = (
        f"bench-rescore-{run}.reviews",
        f"bench-rescore-{run}.decisions",
    )
    topics = [reviews_topic, decisions_topic]
    drafts = max(1, round(args.results / 7.05))
    scratch = tempfile.TemporaryDirectory(prefix="bench-rescore-")
    peer = _peer_tree(args.peer_ref, scratch.name) if args.peer_ref else None
    asyncio.run(_create(args.bootstrap, topics, args.partitions))
    try:
        t0 = time.perf_counter()
        results = asyncio.run(_produce(args.bootstrap, reviews_topic, decisions_topic, drafts))
        print(
            f"wrote {results} reviewer results and {drafts} decisions to {reviews_topic} "
            f"({args.partitions} partitions) in {time.perf_counter() - t0:.1f} s"
        )
        env = {
            **os.environ,
            "MULTIQA_BOOTSTRAP_SERVERS": args.bootstrap,
            "MULTIQA_REVIEWS_TOPIC": reviews_topic,
            "MULTIQA_DECISIONS_TOPIC": decisions_topic,
        }
        baseline_cmd = [
            *(sys.executable, __file__, "--bootstrap", args.bootstrap),
            *("--partitions", str(args.partitions), "--child", *topics),
        ]
        rescore_cmd = [*_multiqa(), "rescore", "--defaults", "--show", "0"]
        commands = {"rescore-1": [*rescore_cmd, "--jobs", "1"], "rescore": rescore_cmd}
        names = ["baseline", "rescore-1", "rescore"]
        where: dict[str, str | None] = dict.fromkeys(names, str(ROOT))  # its own modules
        envs = dict.fromkeys(names, env)
        if peer is not None:
            # The peer's own modules first: cwd (python -m puts it first) and PYTHONPATH.
            peer_cmd = [sys.executable, "-m", "streams.cli", "rescore", "--defaults", "--show", "0"]
            commands |= {"peer-1": [*peer_cmd, "--jobs", "1"], "peer": peer_cmd}
            names += ["peer-1", "peer"]
            where |= {"peer-1": peer, "peer": peer}
            envs |= {key: {**env, "PYTHONPATH": peer} for key in ("peer-1", "peer")}
        times: dict[str, list[float]] = {name: [] for name in names}
        cpus: dict[str, list[float]] = {name: [] for name in names}
        loads: list[float] = []
        for n in range(args.rounds):
            order = names if n % 2 == 0 else names[::-1]
            for name in order:
                loads.append(os.getloadavg()[0])
                if name == "baseline":
                    elapsed, cpu, out = _timed(baseline_cmd, env)
                    counts = json.loads(out)
                    if counts != {reviews_topic: results, decisions_topic: drafts}:
                        raise SystemExit(f"baseline read {counts}")
                else:
                    elapsed, cpu, out = _timed(commands[name], envs[name], where[name])
                    _check(out, drafts)
                times[name].append(elapsed)
                cpus[name].append(cpu)
                print(
                    f"round {n + 1} {name:9} {elapsed:6.2f} s wall {results / elapsed:9,.0f} "
                    f"results/s; {cpu:5.2f} s CPU {results / cpu:9,.0f} results per CPU-s"
                )
        print(f"\nmedian of {args.rounds} rounds, {results} results, start-up counted:")
        wall = {name: statistics.median(values) for name, values in times.items()}
        cpu_s = {name: statistics.median(values) for name, values in cpus.items()}
        from streams.cli.replay_jobs import default_jobs

        jobs = default_jobs()
        labels = {
            "baseline": "bare aiokafka read + decode",
            "rescore-1": "rescore --jobs 1",
            "rescore": f"rescore (--jobs {jobs})",
        }
        if peer is not None:
            labels |= {
                "peer-1": f"{args.peer_ref} --jobs 1",
                "peer": f"{args.peer_ref} (--jobs {jobs})",
            }
        for name, label in labels.items():
            print(
                f"  {label:<28} {results / wall[name]:9,.0f} results/s wall, "
                f"{results / cpu_s[name]:9,.0f} per CPU-second"
            )
        for name in ("rescore-1", "rescore"):
            print(
                f"  ratio {labels[name]} / baseline: x{wall['baseline'] / wall[name]:.2f} wall, "
                f"x{cpu_s['baseline'] / cpu_s[name]:.2f} CPU"
            )
        if peer is not None:
            for name in ("rescore-1", "rescore"):
                other = name.replace("rescore", "peer")
                print(
                    f"  ratio {labels[name]} / {labels[other]}: x{wall[other] / wall[name]:.2f} "
                    f"wall, x{cpu_s[other] / cpu_s[name]:.2f} CPU"
                )
        print(
            f"  load average (1 min) before each run: {min(loads):.2f}-{max(loads):.2f}; now "
            f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}"
        )
        if args.steps:
            _steps(drafts)
    finally:
        asyncio.run(_delete(args.bootstrap, topics))
        scratch.cleanup()


if __name__ == "__main__":
    main()
