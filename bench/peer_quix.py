"""multiqa's topology on Quix Streams (`quixstreams`, the maintained alternative to Faust), for the
bench only. One Application per process (its `run()` installs signal handlers: main thread only):

    python bench/peer_quix.py --role reviewer:critic ...   # one process per reviewer
    python bench/peer_quix.py --role aggregator ...        # the aggregator and the sinks

- reviewer:<name> (group `<P>-reviewer-<name>`): `<P>.drafts` -> `run_reviewer` -> `<P>.reviews`;
- aggregator (group `<P>-aggregator`): `<P>.reviews`, a stateful `apply` (RocksDB, changelog
  topic, both Quix's defaults) joins each draft's results and decides with
  `agents.aggregate.build_decision` once every expected reviewer (the static roster) answered;
  decisions go to `<P>.decisions`. It does not read the drafts (so it has no deadlines, and the
  expected reviewers cannot depend on settings): concatenating `<P>.drafts` with `<P>.reviews`
  makes Quix read the two topics aligned by timestamp, which held every decision ~2.5 s here.
  The same process sinks `<P>.reviews` and `<P>.decisions` into PostgreSQL with multiqa's own
  sink SQL, in Quix's BatchingSink (flushed at every checkpoint, before the commit).
Values are decoded and encoded with multiqa's codec; each message is decoded once per process.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from stream_roster import roster, run_now

from agents.aggregate import build_decision
from agents.base import Deps, run_reviewer
from agents.settings import Settings
from schemas import DraftSubmitted, QADecision, ReviewerResult, decode, encode, utc_now


def serve(args: argparse.Namespace) -> None:
    from quixstreams import Application
    from quixstreams.models.serializers import Deserializer, Serializer
    from quixstreams.sinks import BatchingSink, SinkBatch

    class Record(Deserializer):
        """Bytes -> (record, the bytes): the aggregator stores a result as it arrived."""

        def __init__(self, record: type[Any]) -> None:
            super().__init__()
            self.record = record

        def __call__(self, value: bytes, ctx: Any) -> Any:
            return (decode(value, self.record), value)

    class Avro(Serializer):
        def __call__(self, value: Any, ctx: Any) -> bytes:
            return encode(value)

    prefix = args.prefix
    role = args.role
    group = f"{prefix}-{role.replace(':', '-')}"
    app = Application(
        broker_address=args.bootstrap,
        consumer_group=group,
        auto_offset_reset="earliest",
        commit_interval=args.commit_interval,
        state_dir=args.state_dir,
        loglevel="WARNING",
        auto_create_topics=True,
        consumer_extra_config={"fetch.wait.max.ms": 50},
    )
    drafts = app.topic(f"{prefix}.drafts", value_deserializer=Record(DraftSubmitted))
    reviews_out = app.topic(f"{prefix}.reviews", value_serializer=Avro())
    settings = Settings()
    deps = Deps()
    specs = roster(args.profile)

    if role.startswith("reviewer:"):
        (spec,) = [s for s in specs if s.name == role.split(":", 1)[1]]

        def review(value: Any) -> ReviewerResult:
            return run_now(run_reviewer(spec, value[0], settings, deps))

        app.dataframe(drafts).apply(review).to_topic(reviews_out)
        app.run()
        return

    from streams.runtime.db import create_pool, migrate
    from streams.runtime.sinks import persist_decisions, persist_reviews

    loop = asyncio.new_event_loop()
    pool = loop.run_until_complete(create_pool(args.dsn))
    loop.run_until_complete(migrate(pool))

    class Postgres(BatchingSink):
        def __init__(self, write: Any) -> None:
            super().__init__()
            self._write = write

        def write(self, batch: SinkBatch) -> None:
            records = [item.value[0] for item in batch]
            loop.run_until_complete(self._write(pool, records))

    expected = [spec.name for spec in specs]
    reviews_in = app.topic(f"{prefix}.reviews", value_deserializer=Record(ReviewerResult))
    decisions_out = app.topic(f"{prefix}.decisions", value_serializer=Avro())
    decisions_in = app.topic(f"{prefix}.decisions", value_deserializer=Record(QADecision))

    def aggregate(value: Any, state: Any) -> QADecision | None:
        record, raw = value
        entry = state.get("entry") or {"results": {}}
        if entry.get("decided"):
            return None
        entry["results"].setdefault(record.reviewer, base64.b64encode(raw).decode())
        decision = None
        if all(name in entry["results"] for name in expected):
            draft = DraftSubmitted(record.draft_id, record.version, "", "")
            results = [
                decode(base64.b64decode(text), ReviewerResult) for text in entry["results"].values()
            ]
            decision = build_decision(
                draft, results, settings, expected=expected, decided_at=utc_now()
            )
            entry = {"decided": True, "settings_version": settings.version()}
        state.set("entry", entry)
        return decision

    review_sdf = app.dataframe(reviews_in)
    review_sdf.sink(Postgres(persist_reviews))
    joined = review_sdf.apply(aggregate, stateful=True)
    joined.filter(lambda decision: decision is not None).to_topic(decisions_out)
    app.dataframe(decisions_in).sink(Postgres(persist_decisions))
    app.run()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bootstrap", required=True)
    parser.add_argument("--prefix", required=True)
    parser.add_argument("--role", required=True, help="reviewer:<name> or aggregator")
    parser.add_argument("--dsn", default="")
    parser.add_argument("--state-dir", default=".cache/bench/quix-state")
    parser.add_argument("--commit-interval", type=float, default=1.0)
    parser.add_argument("--profile", default="zero-cost")
    serve(parser.parse_args())


if __name__ == "__main__":
    main()
