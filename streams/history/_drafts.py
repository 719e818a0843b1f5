"""qa_drafts: every draft version as it arrived, so history outlives Kafka's retention.

Written by the sinks (qa.drafts -> qa_drafts, the first copy of a version stands), read by
`multiqa rereview` and the decisions UI. Text is stored as the sinks store all draft text: NUL
and lone surrogates replaced (PostgreSQL cannot hold them), everything else as is.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from agents.audit import storable_text as _text
from schemas.records import DraftSubmitted
from streams.runtime.sinks._persist import _opt_text

_INSERT_DRAFTS = """
INSERT INTO qa_drafts (
    draft_id, version, title, content, topic, task_id, research_sources, preview_url,
    writer_model, site_domain, niche, submitted_at)
SELECT d, v, ti, c, tp, tk, COALESCE(string_to_array(rs, E'\\x1f'), '{}'), pu, wm, sd, n, sa
FROM unnest($1::text[], $2::int[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
            $8::text[], $9::text[], $10::text[], $11::text[], $12::timestamptz[])
     AS t(d, v, ti, c, tp, tk, rs, pu, wm, sd, n, sa)
ON CONFLICT (draft_id, version) DO NOTHING
RETURNING draft_id
"""

_SEPARATOR = "\x1f"  # research sources travel joined by the unit separator (no arrays of arrays)


async def persist_drafts(pool: Any, drafts: Sequence[DraftSubmitted]) -> int:
    """Record draft versions (one transaction); returns how many were new. Idempotent."""
    if not drafts:
        return 0
    rows = [
        (
            _text(d.draft_id),
            d.version,
            _text(d.title),
            _text(d.content),
            _text(d.topic),
            _opt_text(d.task_id),
            _SEPARATOR.join(_text(s).replace(_SEPARATOR, " ") for s in d.research_sources)
            if d.research_sources
            else None,
            _opt_text(d.preview_url),
            _opt_text(d.writer_model),
            _opt_text(d.site_domain),
            _opt_text(d.niche),
            d.submitted_at,
        )
        for d in drafts
    ]
    async with pool.acquire() as conn, conn.transaction():
        inserted = await conn.fetch(_INSERT_DRAFTS, *map(list, zip(*rows, strict=True)))
    return len(inserted)


def draft_from_row(row: Any) -> DraftSubmitted:
    return DraftSubmitted(
        draft_id=row["draft_id"],
        version=row["version"],
        title=row["title"],
        content=row["content"],
        task_id=row["task_id"],
        topic=row["topic"],
        research_sources=tuple(row["research_sources"] or ()),
        preview_url=row["preview_url"],
        writer_model=row["writer_model"],
        site_domain=row["site_domain"],
        niche=row["niche"],
        submitted_at=row["submitted_at"],
    )


async def load_drafts(
    pool: Any, since: datetime, until: datetime | None = None
) -> list[tuple[DraftSubmitted, datetime]]:
    """Draft versions first seen in [since, until), oldest first, with when they were seen."""
    rows = await pool.fetch(
        "SELECT * FROM qa_drafts WHERE first_seen_at >= $1"
        " AND ($2::timestamptz IS NULL OR first_seen_at < $2)"
        " ORDER BY first_seen_at, draft_id, version",
        since,
        until,
    )
    return [(draft_from_row(r), r["first_seen_at"]) for r in rows]


async def load_draft(pool: Any, draft_id: str, version: int) -> DraftSubmitted | None:
    row = await pool.fetchrow(
        "SELECT * FROM qa_drafts WHERE draft_id = $1 AND version = $2", draft_id, version
    )
    return None if row is None else draft_from_row(row)
