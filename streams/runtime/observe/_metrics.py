"""The worker's Prometheus metrics (prometheus-client, its default registry), and the one
function per event that records them.

Every name starts with `multiqa_`. Labels are bounded sets: reviewer names, statuses, rule codes,
severities, model names from the settings, topics, error classes; never a draft id, a URL or free
text (a skip or error reason is reduced to a short category by `reason_of`).

The record functions are called where the event happens in this process (a reviewer agent after
it published a result, the aggregator when it decides, `DeadLetters.park`, the sinks after a
write), so each worker exports what it did; Prometheus sums over workers.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from prometheus_client import REGISTRY, Counter, Gauge, Histogram
from prometheus_client.core import CounterMetricFamily
from prometheus_client.registry import Collector

from agents.base import is_not_applicable
from schemas.records import QADecision, ReviewerResult

# Reviews take from milliseconds (the validator) to minutes (a thinking model on a CPU).
_REVIEW_BUCKETS = (0.005, 0.025, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600)
_WRITE_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30)

DECISIONS = Counter(
    "multiqa_decisions",
    "Decisions made by this worker's aggregator, by outcome.",
    ["outcome"],
)
DECISION_FLAGS = Counter(
    "multiqa_decision_flags",
    "Decisions carrying a flag (early, short_circuit, timed_out, needs_human_review), by outcome.",
    ["outcome", "flag"],
)
REVIEW_SECONDS = Histogram(
    "multiqa_reviewer_duration_seconds",
    "Time a reviewer took for one draft (its own cost.duration_ms).",
    ["reviewer"],
    buckets=_REVIEW_BUCKETS,
)
REVIEW_RESULTS = Counter(
    "multiqa_reviewer_results",
    "Results published by this worker's reviewer agents, by reviewer, status and reason "
    "(reason is 'ok' for status ok, else a short category of the skip or error).",
    ["reviewer", "status", "reason"],
)
VALIDATOR_FINDINGS = Counter(
    "multiqa_validator_findings",
    "Validator findings, by rule code and severity.",
    ["rule", "severity"],
)
MODEL_TOKENS = Counter(
    "multiqa_model_tokens",
    "Model tokens spent by reviewers, by reviewer, model and direction (in/out).",
    ["reviewer", "model", "direction"],
)
MODEL_USD = Counter(
    "multiqa_model_usd",
    "US dollars spent on model calls (list prices), by reviewer and model.",
    ["reviewer", "model"],
)
MODEL_KWH = Counter(
    "multiqa_model_kwh",
    "Energy of local model calls in kWh, by reviewer and model.",
    ["reviewer", "model"],
)
DEAD_LETTERS = Counter(
    "multiqa_dead_letters",
    "Events parked on the dead-letter topic by this worker, by source topic, reason (the "
    "error class) and consumer.",
    ["source_topic", "reason", "consumer"],
)
AGGREGATOR_IN_FLIGHT = Gauge(
    "multiqa_aggregator_drafts_in_flight",
    "Draft versions this worker's aggregator holds undecided (its partitions).",
)
DEADLINE_MISSES = Counter(
    "multiqa_aggregator_deadline_misses",
    "Draft versions decided at their deadline with reviewers still missing.",
)
SINK_WRITE_SECONDS = Histogram(
    "multiqa_sink_write_seconds",
    "Time of one sink write (a batch in one transaction, retries included), by kind.",
    ["kind"],
    buckets=_WRITE_BUCKETS,
)
SINK_RETRIES = Counter(
    "multiqa_sink_retries",
    "Sink write attempts that failed transiently and were retried, by kind.",
    ["kind"],
)
SINK_ROWS = Counter(
    "multiqa_sink_rows",
    "Events the sinks wrote, by kind and result (new, duplicate).",
    ["kind", "result"],
)
PARSER_FALLBACKS = Counter(
    "multiqa_model_parser_fallbacks",
    "Model answers the defensive parser had to read because the server ignored the structured-"
    "output request (Cost.parser_fallbacks), by reviewer and model.",
    ["reviewer", "model"],
)


class _AnswerCollector(Collector):
    """agents.llm's process totals of answers read, structured or by the parser fallback."""

    def collect(self) -> Iterator[CounterMetricFamily]:
        from agents.llm import answer_counts

        family = CounterMetricFamily(
            "multiqa_llm_answers",
            "Model answers read, by provider and how (structured output, or the parser fallback).",
            labels=["provider", "how"],
        )
        for (provider, how), count in sorted(answer_counts().items()):
            family.add_metric([provider, how], count)
        yield family


REGISTRY.register(_AnswerCollector())

CONSUMER_LAG = Gauge(
    "multiqa_consumer_lag",
    "Messages not yet committed by a consumer group this worker runs, per topic partition "
    "(log end offset minus the group's committed offset).",
    ["group", "topic", "partition"],
)

_REASONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("disabled", ("is disabled in settings",)),
    ("cancelled", ("already decided",)),
    ("invalid_result", ("invalid result",)),
    ("unavailable", ("not available", "unavailable", "not reachable", "not usable", "api key")),
    ("timeout", ("timed out", "timeout", "no answer within")),
    ("too_large", ("too large", "larger than", "exceeds")),
    ("bad_answer", ("answer", "parse", "json", "schema")),
    ("not_applicable", ("no cited", "no checkable", "no results", "no image", "no preview",
                        "not applicable", "nothing to", "is 0")),
)  # fmt: skip


_CHILDREN: dict[tuple[int, tuple[str, ...]], Any] = {}


def _child(metric: Any, *labels: str) -> Any:
    """`metric.labels(*labels)`, remembered: labels() validates and locks on every call, which
    was most of a result's recording time (bench/bench_observe.py)."""
    key = (id(metric), labels)
    child = _CHILDREN.get(key)
    if child is None:
        child = _CHILDREN[key] = metric.labels(*labels)
    return child


def reason_of(result: ReviewerResult) -> str:
    """A short, bounded category for why a result is not ok ('ok' when it is)."""
    status = str(result.status)
    if status == "ok":
        return "ok"
    if is_not_applicable(result):
        return "not_applicable"
    text = result.feedback.lower()
    for reason, needles in _REASONS:
        if any(needle in text for needle in needles):
            return reason
    return "other"


def record_result(result: ReviewerResult) -> None:
    """A reviewer result this worker published: status, latency, findings, model spend."""
    reviewer = result.reviewer
    _child(REVIEW_RESULTS, reviewer, str(result.status), reason_of(result)).inc()
    _child(REVIEW_SECONDS, reviewer).observe(max(0, result.cost.duration_ms) / 1000.0)
    if reviewer == "validator":
        for finding in result.findings:
            _child(VALIDATOR_FINDINGS, finding.code, str(finding.severity)).inc()
    cost = result.cost
    if cost.model or cost.tokens_in or cost.tokens_out or cost.usd or cost.kwh:  # a model ran
        model = cost.model or "unknown"
        if cost.tokens_in:
            _child(MODEL_TOKENS, reviewer, model, "in").inc(cost.tokens_in)
        if cost.tokens_out:
            _child(MODEL_TOKENS, reviewer, model, "out").inc(cost.tokens_out)
        if cost.usd:
            _child(MODEL_USD, reviewer, model).inc(cost.usd)
        if cost.kwh:
            _child(MODEL_KWH, reviewer, model).inc(cost.kwh)
        if cost.parser_fallbacks:
            _child(PARSER_FALLBACKS, reviewer, model).inc(cost.parser_fallbacks)


def record_decision(decision: QADecision) -> None:
    """A decision this worker's aggregator made (once per decision: not on a re-publish)."""
    outcome = "approved" if decision.approved else "rejected"
    _child(DECISIONS, outcome).inc()
    for flag, on in (
        ("early", decision.early_decided),
        ("short_circuit", decision.short_circuited),
        ("timed_out", decision.timed_out),
        ("needs_human_review", decision.needs_human_review),
    ):
        if on:
            _child(DECISION_FLAGS, outcome, flag).inc()
    if decision.timed_out and decision.missing_reviewers:
        DEADLINE_MISSES.inc()


def record_dead_letter(source_topic: str, error_type: str, consumer: str, count: int = 1) -> None:
    _child(DEAD_LETTERS, source_topic, error_type, consumer).inc(count)


def record_sink_write(kind: str, seconds: float, new: int, total: int, retries: int) -> None:
    _child(SINK_WRITE_SECONDS, kind).observe(seconds)
    if retries:
        _child(SINK_RETRIES, kind).inc(retries)
    if new:
        _child(SINK_ROWS, kind, "new").inc(new)
    if total > new:
        _child(SINK_ROWS, kind, "duplicate").inc(total - new)
