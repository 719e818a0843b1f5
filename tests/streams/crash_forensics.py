"""What a crash test prints when decisions are missing, read back from the broker before the
test tears its topics down: which drafts have no decision, where they sit on qa.drafts, which
reviewer results exist for them on qa.reviews, their last entry on the aggregator's changelog,
the input offsets the table holds, the group's committed offsets next to each partition's end,
and the workers' warnings. Then it keeps watching qa.decisions for a while, so the report says
whether the missing decisions were only slow (they came later) or lost (they never came)."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from aiokafka import AIOKafkaConsumer, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient

from schemas import DraftSubmitted, QADecision, ReviewerResult, decode
from streams.runtime._entry import entry_status
from streams.runtime.config import StreamConfig

# How long to keep watching qa.decisions after the wait gave up (slow or lost?).
GRACE_SECONDS = 30.0
# Missing drafts shown one by one, at most.
MAX_SHOWN = 40
# Worker log lines worth showing (Faust and multiqa at warning and above, and the seeks).
_LOG_MARKERS = ("WARNING", "ERROR", "CRITICAL", "Traceback", "seeking", "behind", "past")


async def read_topic(bootstrap: str, topic: str) -> list[Any]:
    """Every record of `topic` now (all partitions, from the beginning to the current end)."""
    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False)
    await consumer.start()
    try:
        partitions = consumer.partitions_for_topic(topic) or set()
        if not partitions:
            await consumer._client.force_metadata_update()
            partitions = consumer.partitions_for_topic(topic) or set()
        tps = [TopicPartition(topic, p) for p in sorted(partitions)]
        if not tps:
            return []
        consumer.assign(tps)
        await consumer.seek_to_beginning(*tps)
        ends = await consumer.end_offsets(tps)
        records: list[Any] = []
        async with asyncio.timeout(60):
            while [tp for tp in tps if await consumer.position(tp) < ends[tp]]:
                for batch in (await consumer.getmany(timeout_ms=500)).values():
                    records.extend(batch)
        return records
    finally:
        await consumer.stop()


async def group_offsets(config: StreamConfig, group: str) -> dict[str, dict[int, int]]:
    """{topic: {partition: committed offset}} of `group`."""
    admin = AIOKafkaAdminClient(bootstrap_servers=config.bootstrap_servers)
    await admin.start()
    try:
        committed = await admin.list_consumer_group_offsets(group)
    finally:
        await admin.close()
    out: dict[str, dict[int, int]] = defaultdict(dict)
    for tp, meta in committed.items():
        out[tp.topic][tp.partition] = meta.offset
    return out


async def end_offsets(config: StreamConfig, topics: Sequence[str]) -> dict[str, dict[int, int]]:
    consumer = AIOKafkaConsumer(bootstrap_servers=config.bootstrap_servers)
    await consumer.start()
    try:
        await consumer._client.force_metadata_update()
        tps = [
            TopicPartition(t, p)
            for t in topics
            for p in sorted(consumer.partitions_for_topic(t) or ())
        ]
        ends = await consumer.end_offsets(tps) if tps else {}
    finally:
        await consumer.stop()
    out: dict[str, dict[int, int]] = defaultdict(dict)
    for tp, end in ends.items():
        out[tp.topic][tp.partition] = end
    return out


def _decided_ids(records: list[Any]) -> Counter[str]:
    ids: Counter[str] = Counter()
    for record in records:
        with contextlib.suppress(Exception):  # a report: show what can be read
            ids[decode(record.value, QADecision).draft_id] += 1
    return ids


def _log_lines(logs: Sequence[Path], limit: int = 60) -> list[str]:
    lines: list[str] = []
    for path in logs:
        if not path.exists():
            continue
        text = path.read_text(errors="replace").splitlines()
        picked = [line for line in text if any(m in line for m in _LOG_MARKERS)]
        lines.append(f"--- {path.name}: {len(text)} lines, {len(picked)} flagged (last {limit}):")
        lines.extend(picked[-limit:])
    return lines


def review_task_stacks(logs: Sequence[Path], limit: int = 150) -> list[str]:
    """The review path's tasks in the last task dump of the logs (mode's `cry`, written on
    SIGUSR1): each task's name and its frames' file:line and code, without the locals, for the
    tasks whose stack passes through streams/runtime/reviewer_agents.py or _acks.py (a reviewer
    that stopped answering: what it waits on)."""
    for path in reversed(logs):
        if not path.exists():
            continue
        text = path.read_text(errors="replace").splitlines()
        starts = [n for n, line in enumerate(text) if line.strip() == "TASKS"]
        if not starts:
            continue
        blocks: list[list[str]] = []
        for line in text[starts[-1] + 1 :]:
            if line.startswith("  TASK "):
                blocks.append([line.strip()])
            elif blocks and line.lstrip().startswith("File "):
                blocks[-1].append("    " + line.strip())
        picked = [b for b in blocks if any(m in " ".join(b) for m in _REVIEW_PATH)]
        lines = [f"--- {path.name}: {len(picked)} of {len(blocks)} tasks on the review path:"]
        for block in picked:
            lines.extend(block)
        return lines[:limit]
    return []


_REVIEW_PATH = ("reviewer_agents.py", "_acks.py")


async def explain_missing(
    config: StreamConfig,
    group: str,
    drafts: Sequence[DraftSubmitted],
    logs: Sequence[Path] = (),
    *,
    grace: float = GRACE_SECONDS,
) -> str:
    """The report (see the module docstring) on every draft of `drafts` with no decision."""
    bootstrap = config.bootstrap_servers
    decided = _decided_ids(await read_topic(bootstrap, config.decisions_topic))
    wanted = {d.draft_id for d in drafts}
    missing = sorted(wanted - set(decided))
    out = [
        f"=== crash forensics: {len(missing)} of {len(wanted)} drafts without a decision; "
        f"{sum(1 for n in decided.values() if n > 1)} decided more than once on qa.decisions"
    ]
    if not missing:
        return "\n".join(out)
    where: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for record in await read_topic(bootstrap, config.drafts_topic):
        key = (record.key or b"").decode("utf-8", "replace")
        if key in missing:
            where[key].append((record.partition, record.offset))
    results: dict[str, list[str]] = defaultdict(list)
    for record in await read_topic(bootstrap, config.reviews_topic):
        key = (record.key or b"").decode("utf-8", "replace")
        if key in missing:
            try:
                result = decode(record.value, ReviewerResult)
                results[key].append(f"{result.reviewer}@{record.partition}:{record.offset}")
            except Exception as exc:
                results[key].append(f"undecodable@{record.offset}: {exc}")
    entries: dict[str, Any] = {}
    meta: dict[str, Any] = {}
    writes: Counter[str] = Counter()
    for record in await read_topic(bootstrap, config.changelog_topic):
        key = json.loads(record.key) if record.key else None
        value = None if record.value is None else json.loads(record.value)
        if not isinstance(key, str):
            continue
        if key.startswith("__offsets__"):
            meta[f"{key}@{record.partition}"] = value
        draft_id = key.rsplit(":", 1)[0]
        if draft_id in missing:
            entries[draft_id] = (record.partition, record.offset, value)
            writes[draft_id] += 1
    committed = await group_offsets(config, group)
    topics = [config.drafts_topic, config.reviews_topic, config.deadlines_topic]
    ends = await end_offsets(config, [*topics, config.decisions_topic, config.changelog_topic])
    out.append(f"group {group} committed (partition: committed/end):")
    for topic in [*topics, config.decisions_topic]:
        row = ", ".join(
            f"{p}: {committed.get(topic, {}).get(p, '-')}/{end}"
            for p, end in sorted(ends.get(topic, {}).items())
        )
        out.append(f"  {topic}: {row}")
    changelog_ends = dict(sorted(ends.get(config.changelog_topic, {}).items()))
    out.append(f"  changelog end offsets: {changelog_ends}")
    out.append(f"table input offsets (last on the changelog): {meta}")
    shown = missing if len(missing) <= MAX_SHOWN else missing[:MAX_SHOWN]
    if len(shown) < len(missing):
        out.append(f"(the first {len(shown)} of the {len(missing)} missing drafts)")
    for draft_id in shown:
        partition_offsets = where.get(draft_id, [])
        stored = entries.get(draft_id)
        if stored is None:
            state = "no changelog entry"
        elif stored[2] is None:
            state = f"deleted (changelog {stored[0]}@{stored[1]})"
        else:
            status = entry_status(stored[2])
            state = (
                f"changelog {stored[0]}@{stored[1]} ({writes[draft_id]} writes): "
                f"draft={'yes' if stored[2].get('draft') else 'NO'} expected={status.expected} "
                f"answered={status.answered} decided_by={status.decided_by} "
                f"published={status.published}"
            )
        out.append(
            f"  {draft_id}: qa.drafts {partition_offsets}; qa.reviews {results.get(draft_id, [])}; "
            f"{state}"
        )
    out.extend(_log_lines(logs))
    out.extend(review_task_stacks(logs))
    # Slow or lost: keep watching the decisions for a while.
    loop = asyncio.get_running_loop()
    started = loop.time()
    remaining = set(missing)
    while remaining and loop.time() - started < grace:
        await asyncio.sleep(5)
        remaining -= set(_decided_ids(await read_topic(bootstrap, config.decisions_topic)))
    came = len(missing) - len(remaining)
    out.append(
        f"after {loop.time() - started:.0f} s more: {came} of the {len(missing)} came "
        f"({'slow' if not remaining else 'lost: ' + ', '.join(sorted(remaining))})"
    )
    return "\n".join(out)
