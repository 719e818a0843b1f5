"""A varied review history, as the live stream would have left it on qa.reviews and qa.decisions.

Used by bench/bench_rescore.py (how fast `multiqa rescore` replays it) and by the rescore tests
(that the replay reproduces every decision field for field). Deterministic for a seed.

Each draft gets the real validator's result (run once per distinct text: clean texts, texts with
warnings, and texts with a critical that short-circuits) and scripted results from the six other
reviewers of the bench roster, with what a live history holds: failed and not-applicable gates,
findings with spans, an errored gate, a duplicate (re-delivered) critic result, drafts that timed
out with a late result arriving after the decision, second versions, and early decisions counting
exactly what the live aggregator counts (`agents.aggregate.early_evidence`).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta

from agents.aggregate import build_decision, decision_id, early_evidence
from agents.base import Deps, not_applicable, run_reviewer
from agents.registry import get_reviewer
from agents.settings import Settings
from schemas import (
    DraftSubmitted,
    Finding,
    Provider,
    QADecision,
    ReviewerResult,
    ReviewStatus,
    Severity,
    Span,
)

T0 = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
# (reviewer, provider, paid): the bench roster's seven reviewers (bench/stream_roster.py).
GATES: tuple[tuple[str, Provider, bool], ...] = (
    ("critic", Provider.OLLAMA, True),
    ("consistency", Provider.CONSISTENCY_GATE, True),
    ("topic_delivery", Provider.CONSISTENCY_GATE, True),
    ("citations", Provider.HTTP_HEAD, False),
    ("urls", Provider.URL_VERIFIER, False),
    ("web_factcheck", Provider.WEB_FACTCHECK, False),
)
EXPECTED = ("validator", *(name for name, _, _ in GATES))
PAID = frozenset(name for name, _, paid in GATES if paid)

_WORDS = (  # noqa: SIM905
    "kettle water element base steam strip switch descale months hard model heat coil cup "
    "boil litre power cord lid spout filter scale lime mineral plastic steel glass handle"
).split()


@dataclass
class History:
    """What the topics hold: decisions and reviewer results, each in the order they were
    written (per draft, the order the aggregator received them)."""

    decisions: list[QADecision] = field(default_factory=list)
    reviews: list[ReviewerResult] = field(default_factory=list)


def _text(rng: random.Random, sentences: int) -> str:
    out = []
    for _ in range(sentences):
        words = [rng.choice(_WORDS) for _ in range(rng.randint(8, 16))]
        out.append(" ".join(words).capitalize() + ".")
    return " ".join(out)


def _texts(seed: int) -> list[str]:
    rng = random.Random(seed)
    clean = [_text(rng, 40) for _ in range(12)]
    warned = [t + " In conclusion, it is important to note that kettles matter." for t in clean[:4]]
    critical = ["As an AI language model, I cannot write this article. " + clean[0]]
    return clean + warned + critical


async def _validator_results(settings: Settings, seed: int) -> list[ReviewerResult]:
    validator = get_reviewer("validator")
    results = []
    for n, text in enumerate(_texts(seed)):
        draft = DraftSubmitted(f"template-{n}", 1, "Kettles", text)
        results.append(await run_reviewer(validator, draft, settings, Deps(now=lambda: T0)))
    return results


def _gate(
    rng: random.Random, name: str, provider: Provider, draft: DraftSubmitted, at: datetime
) -> ReviewerResult:
    roll = rng.random()
    if name in ("citations", "urls", "web_factcheck") and roll < 0.3:
        result = not_applicable(name, provider, "nothing to check")
    elif roll < 0.02:
        result = ReviewerResult(
            name, False, 0.0, f"{name}: upstream said 503", provider, status=ReviewStatus.ERROR
        )
    else:
        failing = rng.random() < 0.1
        score = round(rng.uniform(35.0, 59.0) if failing else rng.uniform(62.0, 99.0), 1)
        findings: tuple[Finding, ...] = ()
        if rng.random() < 0.4:
            start = rng.randrange(0, 200)
            findings = (
                Finding(
                    f"{name}_note",
                    Severity.WARNING if score < 60 else Severity.INFO,
                    f"{name} noticed something at {start}",
                    Span(start, start + 12, "kettle water"),
                ),
            )
        result = ReviewerResult(
            name, score >= 60, score, f"{name} scored {score}", provider, findings=findings
        )
    return replace(result, draft_id=draft.draft_id, version=draft.version, produced_at=at)


def _one(
    rng: random.Random,
    n: int,
    templates: list[ReviewerResult],
    settings: Settings,
    history: History,
) -> None:
    version = 2 if n % 11 == 5 else 1
    draft = DraftSubmitted(f"hist-{n}", version, "Kettles", "", task_id=f"task-{n}")
    at = T0 + timedelta(seconds=n)
    validator = replace(
        templates[n % len(templates)], draft_id=draft.draft_id, version=version, produced_at=at
    )
    gates = [_gate(rng, name, provider, draft, at) for name, provider, _ in GATES]
    rng.shuffle(gates)
    timed_out = rng.random() < 0.05
    late: list[ReviewerResult] = []
    if timed_out:
        late = [gates.pop()]  # arrives after the decision: on the topic, never counted
    arrived = [validator, *gates]
    if rng.random() < 0.05:  # a re-delivered critic result: the first one counts
        first = next((r for r in arrived if r.reviewer == "critic"), None)
        if first is not None:
            arrived.append(replace(first, score=1.0, feedback="a duplicate"))
    counted = early_evidence(arrived, EXPECTED, PAID, settings)
    early = counted is not None and len({r.reviewer for r in counted}) < len(EXPECTED)
    evidence = arrived if counted is None or timed_out else counted
    history.reviews.extend([*arrived, *late])
    history.decisions.append(
        build_decision(
            draft,
            evidence,
            settings,
            expected=EXPECTED,
            decided_at=at + timedelta(seconds=3),
            timed_out=timed_out,
            early=early and not timed_out,
        )
    )


async def make_history(
    drafts: int, *, seed: int = 13, settings: Settings | None = None, distinct: int = 2000
) -> History:
    """`drafts` decided drafts (about 7 reviewer results each) under `settings`. Past `distinct`
    drafts, the histories repeat under new draft ids (a decision depends on the evidence, not on
    the id, so the copies are what the aggregation would have decided for them)."""
    settings = settings or Settings()
    templates = await _validator_results(settings, seed)
    rng = random.Random(seed)
    history = History()
    for n in range(min(drafts, distinct)):
        _one(rng, n, templates, settings, history)
    per_draft: dict[str, list[ReviewerResult]] = {}
    for review in history.reviews:
        per_draft.setdefault(review.draft_id, []).append(review)
    originals = list(history.decisions)
    for n in range(len(originals), drafts):
        source = originals[n % len(originals)]
        draft_id = f"hist-{n}"
        history.reviews.extend(replace(r, draft_id=draft_id) for r in per_draft[source.draft_id])
        history.decisions.append(
            replace(
                source,
                draft_id=draft_id,
                decision_id=decision_id(draft_id, source.version),
                task_id=f"task-{n}",
            )
        )
    return history
