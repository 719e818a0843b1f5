"""The floor: multiqa's topology on bare aiokafka, batched, in one process (bench only).

    python bench/peer_aiokafka.py --bootstrap HOST:PORT --prefix P --dsn DSN

One consumer (group `<P>-peer`) reads `<P>.drafts`, `<P>.reviews` and `<P>.decisions` in batches
(`getmany`); one producer writes. Per batch:
- every draft is decoded once and reviewed by every reviewer of the roster (`run_reviewer`); the
  results go to `<P>.reviews`;
- every result is decoded once, joins its draft's state (a dict: expected reviewers, results so
  far) and is kept for the sink; a draft with every expected result is decided with
  `agents.aggregate.build_decision` and the decision goes to `<P>.decisions`;
- every state touched in the batch is written once to `<P>.changelog` (compacted), the last value
  of the batch: a record cache, as Kafka Streams has;
- the results and the decisions read in the batch are persisted with multiqa's own sink SQL
  (`persist_reviews`, `persist_decisions`), one transaction each;
- then every send is awaited and the consumed offsets are committed: at least once.
Not here (it is a peer for measuring, not a product): recovery from the changelog at start,
deadlines, early decisions, dead letters.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from stream_roster import roster

from agents.aggregate import build_decision
from agents.base import Deps, run_reviewer
from agents.settings import Settings
from schemas import DraftSubmitted, QADecision, ReviewerResult, decode, encode, utc_now


async def serve(args: argparse.Namespace) -> None:
    from aiokafka import AIOKafkaConsumer, AIOKafkaProducer

    from streams.runtime.db import create_pool, migrate
    from streams.runtime.sinks import persist_decisions, persist_reviews

    specs = roster(args.profile)
    settings = Settings()
    deps = Deps()
    expected = [spec.name for spec in specs]
    drafts_t, reviews_t, decisions_t = (
        f"{args.prefix}.{n}" for n in ("drafts", "reviews", "decisions")
    )
    changelog_t = f"{args.prefix}.changelog"
    pool = await create_pool(args.dsn)
    await migrate(pool)
    consumer = AIOKafkaConsumer(
        drafts_t,
        reviews_t,
        decisions_t,
        bootstrap_servers=args.bootstrap,
        group_id=f"{args.prefix}-peer",
        enable_auto_commit=False,
        auto_offset_reset="earliest",
        max_partition_fetch_bytes=4 * 1024 * 1024,
    )
    producer = AIOKafkaProducer(bootstrap_servers=args.bootstrap, linger_ms=2)
    await producer.start()
    await consumer.start()
    state: dict[str, dict[str, Any]] = {}
    try:
        while True:
            batch = await consumer.getmany(timeout_ms=100, max_records=2000)
            if not batch:
                continue
            sends: list[Any] = []
            to_sink: list[ReviewerResult] = []
            decided: list[QADecision] = []
            dirty: set[str] = set()
            for tp, messages in batch.items():
                for message in messages:
                    key = message.key or b""
                    if tp.topic == drafts_t:
                        draft = decode(message.value, DraftSubmitted)
                        for spec in specs:
                            result = await run_reviewer(spec, draft, settings, deps)
                            sends.append(await producer.send(reviews_t, encode(result), key=key))
                        entry = state.setdefault(
                            f"{draft.draft_id}:{draft.version}", {"results": {}}
                        )
                        entry["draft"] = draft
                        dirty.add(f"{draft.draft_id}:{draft.version}")
                    elif tp.topic == reviews_t:
                        result = decode(message.value, ReviewerResult)
                        to_sink.append(result)
                        name = f"{result.draft_id}:{result.version}"
                        entry = state.setdefault(name, {"results": {}})
                        entry["results"].setdefault(result.reviewer, result)
                        dirty.add(name)
                    else:
                        decided.append(decode(message.value, QADecision))
            for name in dirty:
                entry = state[name]
                draft = entry.get("draft")
                if (
                    draft is not None
                    and not entry.get("decided")
                    and all(n in entry["results"] for n in expected)
                ):
                    decision = build_decision(
                        draft,
                        list(entry["results"].values()),
                        settings,
                        expected=expected,
                        decided_at=utc_now(),
                    )
                    entry["decided"] = True
                    sends.append(
                        await producer.send(
                            decisions_t, encode(decision), key=draft.draft_id.encode()
                        )
                    )
                value = {
                    "decided": bool(entry.get("decided")),
                    "results": sorted(entry["results"]),
                    "settings_version": settings.version(),
                }
                sends.append(
                    await producer.send(changelog_t, json.dumps(value).encode(), key=name.encode())
                )
                if entry.get("decided"):
                    del state[name]  # (a product would keep it for late results)
            if to_sink:
                await persist_reviews(pool, to_sink)
            if decided:
                await persist_decisions(pool, decided)
            await asyncio.gather(*sends)
            await consumer.commit()
    finally:
        await consumer.stop()
        await producer.stop()
        await pool.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bootstrap", required=True)
    parser.add_argument("--prefix", required=True)
    parser.add_argument("--dsn", required=True)
    parser.add_argument("--profile", default="zero-cost")
    args = parser.parse_args()
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve(args))


if __name__ == "__main__":
    main()
