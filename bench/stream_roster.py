"""What the stream benchmarks feed every engine: the drafts, and the reviewers in two profiles.

- zero-cost: all seven reviewers (validator included) answer at once with a fixed result, so what
  is measured is the plumbing alone: Kafka, the framework, the codec, the aggregation, the sinks.
  The names and paid flags are the registry's (critic, consistency and topic_delivery are paid).
- simulated: the real validator, and the six others sleep like the real ones (critic 3 s, every
  gate 1-8 s, seeded by draft and reviewer, so every engine waits exactly the same).
- realistic: the same with the latencies of a deployment with a local model server (critic and
  consistency 1-3 s, topic delivery 1-2 s, citations and urls 0.2-1 s, web fact-check 0.5-2 s),
  seeded the same way (bench/bench_simulated.py).

Each engine (multiqa's worker, the bare-aiokafka peer, the Quix Streams peer) builds its reviewers
from here, so they all run the same reviewer code through `agents.base.run_reviewer`.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Coroutine
from typing import Any, TypeVar

from bench_validator import make_draft

from agents.base import Deps, ReviewerSpec
from agents.reviewers.validator import SPECS as VALIDATOR_SPECS
from agents.settings import Settings
from schemas import DraftSubmitted, Provider, ReviewerResult

T = TypeVar("T")

ZERO, SIMULATED, REALISTIC = "zero-cost", "simulated", "realistic"
REVIEWERS: tuple[tuple[str, Provider, bool], ...] = (
    ("validator", Provider.PROGRAMMATIC, False),
    ("critic", Provider.OLLAMA, True),
    ("consistency", Provider.CONSISTENCY_GATE, True),
    ("topic_delivery", Provider.CONSISTENCY_GATE, True),
    ("citations", Provider.HTTP_HEAD, False),
    ("urls", Provider.URL_VERIFIER, False),
    ("web_factcheck", Provider.WEB_FACTCHECK, False),
)


_REALISTIC_SECONDS = {
    "critic": (1.0, 3.0),
    "consistency": (1.0, 3.0),
    "topic_delivery": (1.0, 2.0),
    "citations": (0.2, 1.0),
    "urls": (0.2, 1.0),
    "web_factcheck": (0.5, 2.0),
}


def simulated_seconds(name: str, draft: DraftSubmitted, profile: str = SIMULATED) -> float:
    if profile == REALISTIC:
        low, high = _REALISTIC_SECONDS[name]
        return random.Random(f"{draft.draft_id}/{name}").uniform(low, high)
    if name == "critic":
        return 3.0
    return random.Random(f"{draft.draft_id}/{name}").uniform(1.0, 8.0)


def _fake(name: str, provider: Provider, paid: bool, profile: str) -> ReviewerSpec:
    async def review(draft: DraftSubmitted, settings: Settings, deps: Deps) -> ReviewerResult:
        if profile != ZERO:
            await asyncio.sleep(simulated_seconds(name, draft, profile))
        return ReviewerResult(name, True, 85.0, f"{name}: fine ({profile})", provider)

    return ReviewerSpec(name, provider, review, lambda settings: True, paid=paid)


def roster(profile: str = ZERO) -> tuple[ReviewerSpec, ...]:
    specs = [_fake(name, provider, paid, profile) for name, provider, paid in REVIEWERS]
    if profile != ZERO:
        specs[0] = VALIDATOR_SPECS[0]  # the real validator
    return tuple(specs)


def make_drafts(count: int, run: str, *, words: int = 1200) -> list[DraftSubmitted]:
    """Clean drafts of ~`words` words (the validator runs every rule, nothing short-circuits)."""
    text = [make_draft(words=words, seed=n) for n in range(min(count, 50))]
    return [
        DraftSubmitted(
            draft_id=f"bench-{run}-{n}",
            version=1,
            title=f"Benchmark draft {n}",
            content=text[n % len(text)],
            topic="laptops",
        )
        for n in range(count)
    ]


def run_now(coro: Coroutine[Any, Any, T]) -> T:
    """The result of a coroutine that never suspends (a zero-cost review), without an event
    loop: what a synchronous framework (Quix Streams) calls."""
    try:
        coro.send(None)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]
    coro.close()
    raise RuntimeError("the coroutine suspended: not a zero-cost review")
