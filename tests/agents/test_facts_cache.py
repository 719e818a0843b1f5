"""fact_overrides fails closed (issue 12): against the real PostgreSQL, the table is made
unreadable (renamed: every read fails as it would with the table gone) while the cache holds a
copy; the copy is served, marked stale, and the table is asked again only every retry_seconds;
with no copy the validator reports an error. (A server stopped for real: the stream outage test,
tests/streams/observe/test_facts_outage.py.)"""

from __future__ import annotations

from typing import Any

import pytest

from agents.aggregate import aggregate
from agents.base import Deps, not_applicable, run_reviewer
from agents.facts import FactCache, FactsUnavailable
from agents.reviewers.validator import SPECS
from agents.settings import Settings
from schemas.records import DraftSubmitted, Provider, ReviewerResult, ReviewStatus
from streams.runtime.db import migrate

WRONG = "The Eiffel Tower is in Berlin, as everyone knows.\n\n" + (
    "It was finished in 1889 for the world's fair and is repainted every seven years. " * 4
)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
async def facts_db(pg_pool: Any) -> Any:
    await migrate(pg_pool)
    await pg_pool.execute(
        "INSERT INTO fact_overrides (pattern, correction) VALUES ($1, $2)",
        r"eiffel tower is in berlin",
        "It is in Paris.",
    )
    return pg_pool


async def test_last_known_good_copy_during_an_outage(facts_db: Any) -> None:
    clock = Clock()
    cache = FactCache(ttl_seconds=30, retry_seconds=5, clock=clock)
    fresh = await cache.load(facts_db)
    assert [f.correction for f in fresh.facts] == ["It is in Paris."] and fresh.stale is None

    await facts_db.execute("ALTER TABLE fact_overrides RENAME TO fact_overrides_away")
    clock.now += 31  # the copy has expired: the table is asked, fails, the copy is served
    during = await cache.load(facts_db)
    assert during.facts == fresh.facts
    assert during.stale is not None and "UndefinedTableError" in during.stale
    assert "1 facts read 31s ago" in during.stale

    # Not asked again before retry_seconds: a renamed-back table is not seen yet ...
    await facts_db.execute("ALTER TABLE fact_overrides_away RENAME TO fact_overrides")
    await facts_db.execute("UPDATE fact_overrides SET correction = 'Paris, France.'")
    clock.now += 2
    assert (await cache.load(facts_db)).stale is not None
    # ... and after it, it is read again and the copy refreshed.
    clock.now += 4
    after = await cache.load(facts_db)
    assert after.stale is None and [f.correction for f in after.facts] == ["Paris, France."]


async def test_no_copy_at_all_is_an_error(facts_db: Any) -> None:
    await facts_db.execute("ALTER TABLE fact_overrides RENAME TO fact_overrides_away")
    with pytest.raises(FactsUnavailable, match="no earlier copy: UndefinedTableError"):
        await FactCache().load(facts_db)


async def test_the_validator_never_approves_a_wrong_fact_because_the_facts_were_unreadable(
    facts_db: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Seen before: with the facts unreadable the validator added an info note and went on, and
    29 of 34 drafts stating a listed wrong fact were approved during a one-minute outage."""
    import agents.facts as facts_module

    clock = Clock()
    monkeypatch.setattr(facts_module, "_default_cache", FactCache(clock=clock))
    draft = DraftSubmitted("d-eiffel", 1, "Paris landmarks", WRONG)
    critic = ReviewerResult("critic", True, 95.0, "fine", Provider.OLLAMA)
    urls = not_applicable("urls", Provider.URL_VERIFIER, "no external links")

    async def decide() -> tuple[ReviewerResult, bool]:
        validator = await run_reviewer(SPECS[0], draft, Settings(), Deps(pool=facts_db))
        return validator, aggregate([validator, critic, urls], Settings()).approved

    validator, approved = await decide()
    assert [f.code for f in validator.findings] == ["known_wrong_fact"] and not approved

    await facts_db.execute("ALTER TABLE fact_overrides RENAME TO fact_overrides_away")
    clock.now += 60
    validator, approved = await decide()  # the copy: still flagged, and said to be a copy
    assert [f.code for f in validator.findings] == ["known_wrong_fact", "facts_stale"]
    assert not approved

    monkeypatch.setattr(facts_module, "_default_cache", FactCache(clock=clock))  # a fresh worker
    validator, approved = await decide()
    assert validator.status is ReviewStatus.ERROR and not approved
    outcome = aggregate([validator, critic, urls], Settings())
    assert outcome.needs_human_review
    assert outcome.vetoes[0].startswith("validator errored: fact_overrides unreadable")
