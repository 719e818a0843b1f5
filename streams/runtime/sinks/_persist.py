"""One idempotent write per event kind: decisions, reviewer results (+ their cost), dead letters,
audit events.

Every function here can be re-run with the same event any number of times and leaves exactly the
rows one run leaves: Kafka delivers at least once, so a sink that is not idempotent duplicates.
The keys that make that so are the tables' own: qa_decisions (decision_id) and (draft_id, version),
qa_reviews and cost_logs (draft_id, version, reviewer), audit_log dedupe_key.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Sequence
from typing import Any

from agents.audit import INSERT_AUDIT as _INSERT_AUDIT
from agents.audit import storable_text as _text
from schemas.records import DeadLetter, Finding, QADecision, ReviewerResult

# How much of a dead letter's raw payload the audit row keeps (the full bytes stay on the topic).
_DEAD_LETTER_PREVIEW_BYTES = 1024


def _opt_text(value: str | None) -> str | None:
    return None if value is None else _text(value)


def _json(value: Any) -> str:
    # ensure_ascii escapes every non-ASCII character, so jsonb gets \uXXXX; but jsonb refuses
    # \u0000, hence the _text pass on every string that goes in.
    return json.dumps(value, default=str)


def _finding(f: Finding) -> dict[str, Any]:
    span = (
        None
        if f.span is None
        else {"start": f.span.start, "end": f.span.end, "text": _text(f.span.text)}
    )
    return {
        "code": _text(f.code),
        "severity": str(f.severity),
        "message": _text(f.message),
        "span": span,
    }


_INSERT_DECISION = """
INSERT INTO qa_decisions (
    decision_id, draft_id, version, task_id, approved, final_score, summary, feedback_text,
    missing_reviewers, vetoes, timed_out, short_circuited, early_decided, needs_human_review,
    settings_version, decided_at, reviews, trace_id)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17::text::jsonb,
        $18)
ON CONFLICT DO NOTHING
RETURNING true
"""

_UPSERT_VERSION_FEEDBACK = """
INSERT INTO pipeline_versions
    (draft_id, version, task_id, qa_feedback, qa_score, qa_approved, decision_id)
VALUES ($1, $2, $3, $4, $5, $6, $7)
ON CONFLICT (draft_id, version) DO UPDATE SET
    task_id = COALESCE(EXCLUDED.task_id, pipeline_versions.task_id),
    qa_feedback = EXCLUDED.qa_feedback,
    qa_score = EXCLUDED.qa_score,
    qa_approved = EXCLUDED.qa_approved,
    decision_id = EXCLUDED.decision_id,
    updated_at = now()
"""

# A task's row shows its latest draft's feedback: a decision for an older version of the same
# draft (a late re-delivery) must not overwrite a newer one's.
_UPSERT_TASK_FEEDBACK = """
INSERT INTO pipeline_tasks
    (task_id, latest_draft_id, latest_version, qa_feedback, qa_score, qa_approved)
VALUES ($1, $2, $3, $4, $5, $6)
ON CONFLICT (task_id) DO UPDATE SET
    latest_draft_id = EXCLUDED.latest_draft_id,
    latest_version = EXCLUDED.latest_version,
    qa_feedback = EXCLUDED.qa_feedback,
    qa_score = EXCLUDED.qa_score,
    qa_approved = EXCLUDED.qa_approved,
    updated_at = now()
WHERE pipeline_tasks.latest_draft_id IS DISTINCT FROM EXCLUDED.latest_draft_id
   OR pipeline_tasks.latest_version IS NULL
   OR pipeline_tasks.latest_version <= EXCLUDED.latest_version
"""


async def persist_decision(pool: Any, decision: QADecision) -> bool:
    """Record a decision and its feedback, atomically: the qa_decisions row, pipeline_versions'
    and (when the draft names a task) pipeline_tasks' qa_feedback/qa_score/qa_approved, and an
    `aggregation_timeout` audit event for a timed-out decision.

    Returns True when this call recorded it, False when the draft version already had a decision
    (a re-delivery): then nothing is changed, so the first decision of a draft version stands.
    """
    return await persist_decisions(pool, [decision]) == 1


async def persist_decisions(pool: Any, decisions: Sequence[QADecision]) -> int:
    """`persist_decision` for a batch, in one transaction (all or nothing); returns how many
    were new. The stream's sink writes what one poll delivered this way."""
    if not decisions:
        return 0
    new = 0
    async with pool.acquire() as conn, conn.transaction():
        for decision in decisions:
            new += await _insert_decision(conn, decision)
    return new


async def _insert_decision(conn: Any, decision: QADecision) -> bool:
    reviews = [
        {
            "reviewer": _text(r.reviewer),
            "provider": _text(r.provider),
            "status": _text(r.status),
            "approved": r.approved,
            "score": r.score,
            "feedback": _text(r.feedback),
            "veto": _opt_text(r.veto),
        }
        for r in decision.reviews
    ]
    draft_id = _text(decision.draft_id)
    feedback = _text(decision.feedback_text)
    task_id = _opt_text(decision.task_id)
    inserted = await conn.fetchval(
        _INSERT_DECISION,
        decision.decision_id,
        draft_id,
        decision.version,
        task_id,
        decision.approved,
        decision.final_score,
        _text(decision.summary),
        feedback,
        [_text(r) for r in decision.missing_reviewers],
        [_text(v) for v in decision.vetoes],
        decision.timed_out,
        decision.short_circuited,
        decision.early_decided,
        decision.needs_human_review,
        _text(decision.settings_version),
        decision.decided_at,
        _json(reviews),
        _text(decision.trace_id),
    )
    if not inserted:
        return False
    await conn.execute(
        _UPSERT_VERSION_FEEDBACK,
        draft_id,
        decision.version,
        task_id,
        feedback,
        decision.final_score,
        decision.approved,
        decision.decision_id,
    )
    if task_id:
        await conn.execute(
            _UPSERT_TASK_FEEDBACK,
            task_id,
            draft_id,
            decision.version,
            feedback,
            decision.final_score,
            decision.approved,
        )
    if decision.timed_out:
        await conn.execute(
            _INSERT_AUDIT,
            "aggregation_timeout",
            _json(
                {
                    "decision_id": decision.decision_id,
                    "draft_id": draft_id,
                    "version": decision.version,
                    "missing_reviewers": [_text(r) for r in decision.missing_reviewers],
                }
            ),
            f"aggregation_timeout:{decision.decision_id}",
        )
    return True


# One statement per batch: rows travel as parallel arrays. A key repeated inside the batch, or
# already in the table, is skipped (first wins); RETURNING names the rows that were new.
_INSERT_REVIEWS = """
INSERT INTO qa_reviews (
    draft_id, version, reviewer, provider, status, approved, score, feedback, findings, veto,
    produced_at)
SELECT d, v, r, p, s, a, sc, f, fi::jsonb, ve, pa
FROM unnest($1::text[], $2::int[], $3::text[], $4::text[], $5::text[], $6::bool[],
            $7::float8[], $8::text[], $9::text[], $10::text[], $11::timestamptz[])
     AS t(d, v, r, p, s, a, sc, f, fi, ve, pa)
ON CONFLICT (draft_id, version, reviewer) DO NOTHING
RETURNING draft_id, version, reviewer
"""

_INSERT_COSTS = """
INSERT INTO cost_logs (
    draft_id, version, reviewer, provider, model, tokens_in, tokens_out, usd, kwh, duration_ms,
    parser_fallbacks)
SELECT *
FROM unnest($1::text[], $2::int[], $3::text[], $4::text[], $5::text[], $6::int[], $7::int[],
            $8::float8[], $9::float8[], $10::bigint[], $11::int[])
ON CONFLICT (draft_id, version, reviewer) DO NOTHING
"""


async def persist_review(pool: Any, result: ReviewerResult) -> bool:
    """Record one reviewer's result in qa_reviews and its cost in cost_logs, atomically.

    A result is recorded whether or not its draft version is already decided (a late result is
    kept for the record; the decision does not change). The first result per (draft, version,
    reviewer) stands, as in the aggregator. Returns True when this call recorded it.
    """
    return await persist_reviews(pool, [result]) == 1


async def persist_reviews(pool: Any, results: Sequence[ReviewerResult]) -> int:
    """`persist_review` for a batch, in one transaction; returns how many were new."""
    if not results:
        return 0
    rows = [
        (
            _text(r.draft_id),
            r.version,
            _text(r.reviewer),
            _text(r.provider),
            _text(r.status),
            r.approved,
            r.score,
            _text(r.feedback),
            _json([_finding(f) for f in r.findings]),
            _opt_text(r.veto),
            r.produced_at,
        )
        for r in results
    ]
    async with pool.acquire() as conn, conn.transaction():
        inserted = await conn.fetch(_INSERT_REVIEWS, *map(list, zip(*rows, strict=True)))
        new_keys = {(row["draft_id"], row["version"], row["reviewer"]) for row in inserted}
        costs = []
        for key, r in zip(((row[0], row[1], row[2]) for row in rows), results, strict=True):
            if key in new_keys:
                new_keys.discard(key)  # a key repeated in the batch: only its first result
                c = r.cost
                costs.append(
                    (*key, _text(r.provider), _opt_text(c.model), c.tokens_in, c.tokens_out,
                     c.usd, c.kwh, c.duration_ms, c.parser_fallbacks)
                )  # fmt: skip
        if costs:
            await conn.execute(_INSERT_COSTS, *map(list, zip(*costs, strict=True)))
    return len(inserted)


async def persist_dead_letter(pool: Any, dead: DeadLetter) -> bool:
    """Record a dead letter as a `dead_letter` audit event, once per (consumer, source topic,
    partition, offset). The raw payload stays on the dead-letter topic; the row keeps its size
    and the first KiB (base64) for a quick look."""
    return await persist_dead_letters(pool, [dead]) == 1


async def persist_dead_letters(pool: Any, batch: Sequence[DeadLetter]) -> int:
    """`persist_dead_letter` for a batch, in one statement (a flood of bad events is written at
    the pace it is parked); returns how many were new."""
    if not batch:
        return 0
    payloads = [_json(_dead_letter_payload(dead)) for dead in batch]
    keys = [
        _text(
            f"dead_letter:{dead.consumer}:{dead.source_topic}:"
            f"{dead.source_partition}:{dead.source_offset}"
        )
        for dead in batch
    ]
    async with pool.acquire() as conn, conn.transaction():
        rows = await conn.fetch(_INSERT_DEAD_LETTERS, payloads, keys)
    return len(rows)


_INSERT_DEAD_LETTERS = """
INSERT INTO audit_log (event_type, payload, dedupe_key)
SELECT 'dead_letter', p::jsonb, k FROM unnest($1::text[], $2::text[]) AS t(p, k)
ON CONFLICT (dedupe_key) DO NOTHING
RETURNING true
"""


def _dead_letter_payload(dead: DeadLetter) -> dict[str, Any]:
    payload = {
        "source_topic": dead.source_topic,
        "source_partition": dead.source_partition,
        "source_offset": dead.source_offset,
        "consumer": dead.consumer,
        "error_type": dead.error_type,
        "error": dead.error[:2000],
        "key": None if dead.key is None else dead.key.decode("utf-8", "replace"),
        "raw_size": len(dead.raw),
        "raw_preview_b64": base64.b64encode(dead.raw[:_DEAD_LETTER_PREVIEW_BYTES]).decode(),
        "failed_at": dead.failed_at.isoformat(),
    }
    return {str(k): (_text(v) if isinstance(v, str) else v) for k, v in payload.items()}
