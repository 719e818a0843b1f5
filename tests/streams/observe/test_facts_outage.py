"""fact_overrides through a real PostgreSQL outage (issue 12): a stream (validator, the real
broker) on a PostgreSQL server of the test's own with a known-wrong fact listed; drafts stating
the fact, and clean ones, are submitted before, during and after the server is stopped for a
minute (MULTIQA_FACTS_OUTAGE_SECONDS to change it). Before the fix, 29 of 34 wrong-fact drafts
were approved during such an outage.

Expected: no wrong-fact draft is ever approved (the validator serves the last-known-good copy
while the table cannot be read, marked stale); clean drafts are still approved during the
outage (the copy lets the check run); every draft is decided exactly once."""

from __future__ import annotations

import asyncio
import os
import uuid

import pytest

from agents.base import Deps
from agents.facts import DEFAULT_TTL_SECONDS, clear_fact_cache
from agents.registry import get_reviewer
from agents.settings import Settings
from schemas import DraftSubmitted, QADecision, ReviewerResult
from streams.client import DraftSubmitter
from streams.runtime.app import Runtime, create_app
from streams.runtime.db import create_pool, migrate
from streams.runtime.topics import ensure_topics
from tests.streams.stream_helpers import TopicReader, delete_topics, stream_config

OUTAGE_SECONDS = float(os.environ.get("MULTIQA_FACTS_OUTAGE_SECONDS", "60"))
BODY = (
    "It was finished in 1889 for the world's fair and is repainted every seven years, which "
    "takes about sixty tonnes of paint and more than a year of work by a small team. "
) * 4
WRONG = "The Eiffel Tower is in Berlin, as every visitor soon finds out.\n\n" + BODY
CLEAN = "The Eiffel Tower is in Paris, on the Champ de Mars.\n\n" + BODY


@pytest.mark.timeout(int(OUTAGE_SECONDS) + 240)
async def test_no_wrong_fact_is_approved_before_during_or_after_an_outage(
    kafka_bootstrap, throwaway_pg, tmp_path
) -> None:
    clear_fact_cache()  # the process-wide copy: this test's server, not an earlier test's
    pool = await create_pool(throwaway_pg.dsn)
    await migrate(pool)
    await pool.execute(
        "INSERT INTO fact_overrides (pattern, correction) VALUES ($1, $2)",
        r"eiffel tower is in berlin",
        "It is in Paris.",
    )
    config = stream_config(kafka_bootstrap, str(tmp_path / "faust"))
    await ensure_topics(config)
    settings = Settings(qa_required_to_pass="")  # validator alone: the check under test decides

    async def current() -> Settings:
        return settings

    runtime = Runtime(config, settings=current, deps=Deps(pool=pool), pool=pool)
    stream = create_app(
        config, roster=[get_reviewer("validator")], with_sinks=False, runtime=runtime
    )
    decisions = TopicReader(kafka_bootstrap, config.decisions_topic, QADecision)
    reviews = TopicReader(kafka_bootstrap, config.reviews_topic, ReviewerResult)
    submitter = DraftSubmitter(kafka_bootstrap, topic=config.drafts_topic)
    run = uuid.uuid4().hex[:6]
    sent: dict[str, str] = {}  # draft id -> phase:kind

    async def submit(phase: str, count: int, pause: float = 0.0) -> None:
        for i in range(count):
            for kind, content in (("wrong", WRONG), ("clean", CLEAN)):
                draft_id = f"{run}-{phase}-{kind}-{i}"
                sent[draft_id] = f"{phase}:{kind}"
                await submitter.submit(DraftSubmitted(draft_id, 1, "The Eiffel Tower", content))
            await asyncio.sleep(pause)

    await stream.start()
    await decisions.start()
    await reviews.start()
    await submitter.start()
    try:
        await submit("before", 5)
        await decisions.wait_for(lambda values: len(values) >= 10, timeout=120)

        throwaway_pg.stop()
        await submit("during", 6, pause=OUTAGE_SECONDS / 6)
        await decisions.wait_for(lambda values: len(values) >= 22, timeout=120)
        throwaway_pg.start()

        await asyncio.sleep(2)
        await submit("after", 5)
        values = await decisions.wait_for(lambda values: len(values) >= 32, timeout=180)
        await asyncio.sleep(2)  # a duplicate decision would arrive now
        await decisions.poll()
        values = decisions.values()
        await reviews.wait_for(lambda values: len(values) >= 32, timeout=30)
    finally:
        await submitter.stop()
        await decisions.stop()
        await reviews.stop()
        await stream.stop()
        pool.terminate()
        await delete_topics(config)

    by_draft: dict[str, list[QADecision]] = {}
    for decision in values:
        assert isinstance(decision, QADecision)
        by_draft.setdefault(decision.draft_id, []).append(decision)
    assert by_draft.keys() == sent.keys(), "every draft decided, none lost"
    assert all(len(found) == 1 for found in by_draft.values()), "no duplicate decision"
    outcome: dict[str, list[bool]] = {}
    for draft_id, (decision,) in by_draft.items():
        outcome.setdefault(sent[draft_id], []).append(decision.approved)
    for phase in ("before", "during", "after"):
        assert not any(outcome[f"{phase}:wrong"]), f"a wrong fact approved {phase} the outage"
        assert all(outcome[f"{phase}:clean"]), f"a clean draft not approved {phase} the outage"
    if OUTAGE_SECONDS <= DEFAULT_TTL_SECONDS:
        return  # a copy younger than the cache's TTL is served without asking the server
    # The outage was real: reviews during it checked against the stale copy, and said so.
    stale = [
        r.draft_id
        for r in reviews.values()
        if isinstance(r, ReviewerResult) and any(f.code == "facts_stale" for f in r.findings)
    ]
    assert stale and all(sent[d].startswith("during") for d in stale), stale
