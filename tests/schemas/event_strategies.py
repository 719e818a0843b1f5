"""Hypothesis strategies of valid records of every event type, and a way to write raw Avro that
bypasses the codec's checks (to build the bad payloads it must reject). Imported by the tests in
this folder as `event_strategies` (a unique name: test folders are not packages)."""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from fastavro import parse_schema, schemaless_writer
from hypothesis import strategies as st

from schemas import (
    Cost,
    DeadLetter,
    DraftSubmitted,
    Finding,
    Provider,
    QADecision,
    ReviewerResult,
    ReviewStatus,
    ReviewSummary,
    Severity,
    Span,
)

AVRO_DIR = Path(__file__).resolve().parents[2] / "schemas" / "avro"
INT32 = 2**31 - 1
INT64 = 2**63 - 1


def load_avsc(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((AVRO_DIR / name).read_text("utf-8"))
    return loaded


def raw_payload(avsc: str, datum: dict[str, Any], *, header: bytes | None = None) -> bytes:
    """A single-object payload written straight with fastavro, no validation: how a buggy or
    hostile producer would write. `header` overrides the real C3 01 + fingerprint."""
    from schemas._schemas import schema_from_json

    schema = schema_from_json(load_avsc(avsc), source=avsc, version=None)
    out = io.BytesIO()
    out.write(header if header is not None else b"\xc3\x01" + schema.fingerprint)
    schemaless_writer(out, parse_schema(load_avsc(avsc), named_schemas={}), datum)
    return out.getvalue()


# --- strategies of valid records --------------------------------------------------------------

# Any Unicode scalar value (no lone surrogates: those cannot be UTF-8, so are not valid text).
text = st.text(alphabet=st.characters(exclude_categories=["Cs"]), max_size=40)
nonblank = text.filter(lambda s: s.strip() != "")
# "__..." is reserved for the aggregator's own table keys (schemas._validate).
draft_ids = nonblank.filter(lambda s: not s.startswith("__"))
optional_text = st.none() | text
timestamps = st.datetimes(
    min_value=datetime(1, 1, 1),
    max_value=datetime(9999, 12, 31, 23, 59, 59),
    timezones=st.just(UTC),
).map(lambda d: d.replace(microsecond=d.microsecond - d.microsecond % 1000))
versions = st.integers(1, INT32)
scores = st.floats(0.0, 100.0, allow_nan=False)
amounts = st.floats(0.0, allow_nan=False, allow_infinity=False)


def tuples(elements: st.SearchStrategy[Any], max_size: int = 4) -> st.SearchStrategy[Any]:
    return st.lists(elements, max_size=max_size).map(tuple)


spans = st.builds(Span, start=st.integers(0, 1000), end=st.integers(1000, INT32), text=text)
findings = st.builds(
    Finding,
    code=nonblank,
    severity=st.sampled_from(Severity),
    message=text,
    span=st.none() | spans,
)
costs = st.builds(
    Cost,
    tokens_in=st.integers(0, INT32),
    tokens_out=st.integers(0, INT32),
    usd=amounts,
    kwh=amounts,
    duration_ms=st.integers(0, INT64),
    model=optional_text,
    parser_fallbacks=st.integers(0, INT32),
)
drafts = st.builds(
    DraftSubmitted,
    draft_id=draft_ids,
    version=versions,
    title=text,
    content=st.text(alphabet=st.characters(exclude_categories=["Cs"]), max_size=2000),
    task_id=optional_text,
    topic=text,
    research_sources=tuples(text),
    preview_url=optional_text,
    writer_model=optional_text,
    site_domain=optional_text,
    niche=optional_text,
    submitted_at=timestamps,
)
results = st.builds(
    ReviewerResult,
    reviewer=nonblank,
    approved=st.booleans(),
    score=scores,
    feedback=text,
    provider=st.sampled_from(Provider),
    status=st.sampled_from(ReviewStatus),
    findings=tuples(findings),
    veto=optional_text,
    cost=costs,
    draft_id=draft_ids,
    version=versions,
    produced_at=timestamps,
    settings_version=text,
)
summaries = st.builds(
    ReviewSummary,
    reviewer=nonblank,
    provider=text,
    status=text,
    approved=st.booleans(),
    score=scores,
    feedback=text,
    veto=optional_text,
)
decisions = st.builds(
    QADecision,
    decision_id=nonblank,
    draft_id=draft_ids,
    version=versions,
    approved=st.booleans(),
    final_score=scores,
    summary=text,
    feedback_text=text,
    task_id=optional_text,
    reviews=tuples(summaries),
    missing_reviewers=tuples(text),
    vetoes=tuples(text),
    timed_out=st.booleans(),
    short_circuited=st.booleans(),
    early_decided=st.booleans(),
    needs_human_review=st.booleans(),
    settings_version=text,
    decided_at=timestamps,
)
dead_letters = st.builds(
    DeadLetter,
    source_topic=nonblank,
    source_partition=st.integers(-1, INT32),
    source_offset=st.integers(-1, INT64),
    error_type=nonblank,
    error=text,
    raw=st.binary(max_size=200),
    consumer=text,
    key=st.none() | st.binary(max_size=40),
    failed_at=timestamps,
)
records = st.one_of(drafts, results, decisions, dead_letters)


AT = datetime(2026, 5, 17, 9, 30, 12, 345000, tzinfo=UTC)
