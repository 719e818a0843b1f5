"""The web fact-check reviewer with fixed snippets, and its contract with the validator and the
aggregation (a verified known_wrong_fact is cleared, a contradicted or unverified one is not)."""

from __future__ import annotations

import asyncio

import pytest

from agents.aggregate import aggregate
from agents.base import Deps, is_not_applicable, run_reviewer
from agents.facts import FactOverride
from agents.reviewers.factcheck import SPECS, SearchResult, StaticSearch
from agents.reviewers.validator import SPECS as VALIDATOR_SPECS
from agents.settings import Settings
from schemas.records import DraftSubmitted, ReviewStatus, Severity
from tests.helpers.drafts import make_draft

SPEC = SPECS[0]
NVIDIA = SearchResult(
    "GeForce RTX 5090 Graphics Cards | NVIDIA",
    "https://www.nvidia.com/rtx-5090/",
    "The GeForce RTX 5090 is powered by Blackwell and comes with 32GB of GDDR7 memory.",
)
PYTHON = SearchResult(
    "What's new in Python 3.14",
    "https://docs.python.org/3/whatsnew/3.14.html",
    "Python 3.14 was released on October 7, 2025.",
)
NOISE = SearchResult("Cooking pasta", "https://food.example/", "Boil water, add salt.")
SNIPPETS = {"rtx 5090": [NVIDIA], "python 3.14": [PYTHON], "h100": [NOISE]}
CONTENT = (
    "# GPUs in 2026\n\nThe GeForce RTX 5090 comes with 24GB of GDDR7.\n\n"
    "Python 3.14 was released in October 2025. The H100 has 80GB of HBM3.\n"
)


async def review(d: DraftSubmitted, search, settings: Settings = Settings(), **deps):
    return await run_reviewer(SPEC, d, settings, Deps(search=search, **deps))


async def test_verified_contradicted_and_unverified():
    search = StaticSearch(SNIPPETS)
    result = await review(make_draft(CONTENT, title="GPUs"), search)
    assert result.status is ReviewStatus.OK and result.provider == "web_factcheck"
    assert not result.approved  # a contradicted claim fails the reviewer
    assert result.score == 50.0  # (0 + 1 + 0.5) / 3
    by_code = {f.code: f for f in result.findings}
    assert set(by_code) == {"fact_contradicted", "fact_verified", "fact_unverified"}
    assert by_code["fact_contradicted"].severity is Severity.WARNING
    assert by_code["fact_verified"].severity is Severity.INFO
    contradicted = by_code["fact_contradicted"]
    assert contradicted.span.text == "RTX 5090 comes with 24GB"
    assert CONTENT[contradicted.span.start : contradicted.span.end] == contradicted.span.text
    assert "32GB" in contradicted.message and NVIDIA.url in contradicted.message
    assert by_code["fact_verified"].span.text == "Python 3.14 was released in October 2025"
    assert "1 verified, 1 contradicted, 1 unverified" in result.feedback
    assert search.queries == ["RTX 5090 24GB", "H100 80GB", "Python 3.14 October 2025"]


async def test_all_verified_passes():
    content = "The GeForce RTX 5090 comes with 32GB.\n\nPython 3.14 was released in October 2025."
    result = await review(make_draft(content, title="GPUs"), StaticSearch(SNIPPETS))
    assert (result.approved, result.score) == (True, 100.0)


async def test_claims_are_capped():
    search = StaticSearch(SNIPPETS)
    result = await review(
        make_draft(CONTENT, title="GPUs"), search, Settings(qa_web_factcheck_max_claims=1)
    )
    assert len(search.queries) == 1 and len(result.findings) == 1


async def test_num_results_is_passed_to_the_backend():
    class Recording(StaticSearch):
        async def search(self, query, max_results):
            self.queries.append(f"{max_results}")
            return [NVIDIA] * 10

    search = Recording()
    await review(
        make_draft(CONTENT, title="GPUs"), search, Settings(qa_web_factcheck_num_results=7)
    )
    assert set(search.queries) == {"7"}


@pytest.mark.parametrize(
    ("settings", "content", "reason"),
    [
        (Settings(), "No products here, just prose.", "no checkable"),
        (Settings(qa_web_factcheck_max_claims=0), CONTENT, "max_claims is 0"),
    ],
)
async def test_nothing_to_check_is_skipped(settings, content, reason):
    search = StaticSearch(SNIPPETS)
    result = await review(make_draft(content, title="GPUs"), search, settings)
    assert result.status is ReviewStatus.SKIPPED and reason in result.feedback
    assert search.queries == []
    # No claims is nothing to check (not applicable); max_claims 0 is a setting (skipped).
    assert is_not_applicable(result) is (reason == "no checkable")


async def test_search_errors_skip_with_the_reason():
    result = await review(
        make_draft(CONTENT, title="GPUs"), StaticSearch(error="rate limited (HTTP 202)")
    )
    assert result.status is ReviewStatus.SKIPPED
    assert result.feedback == "web search unavailable: rate limited (HTTP 202)"


async def test_no_results_for_any_claim_is_skipped():
    result = await review(make_draft(CONTENT, title="GPUs"), StaticSearch({}))
    assert result.status is ReviewStatus.SKIPPED
    assert "no results for any claim" in result.feedback


async def test_a_hanging_backend_is_cut_off():
    class Hanging:
        async def search(self, query, max_results):
            await asyncio.sleep(60)

    result = await review(
        make_draft(CONTENT, title="GPUs"), Hanging(), Settings(qa_gate_timeout_seconds=0.2)
    )
    assert result.status is ReviewStatus.SKIPPED and "no answer within 0.2s" in result.feedback


@pytest.mark.parametrize(
    "content",
    ["", "\x00" * 1000, "RTX 5090 " * 20_000, "$$$ 5090GB 12W " * 10_000, "```\n" * 1000],
)
async def test_bad_content_never_raises(content):
    result = await review(make_draft(content, title="GPUs"), StaticSearch(SNIPPETS))
    assert result.status in (ReviewStatus.OK, ReviewStatus.SKIPPED)


# --- the second chance for known_wrong_fact ---------------------------------------------------
async def decide(content: str, pattern: str, snippets) -> tuple:
    """Validator and fact-check on the same draft with the same facts, then the aggregation."""
    settings = Settings()
    d = make_draft(content, title="GPUs")
    facts = [FactOverride.build(pattern, "stale correction")]
    deps = Deps(facts=facts, search=StaticSearch(snippets))
    validator = await run_reviewer(VALIDATOR_SPECS[0], d, settings, deps)
    factcheck = await run_reviewer(SPEC, d, settings, deps)
    outcome = aggregate([validator, factcheck], settings)
    return validator, factcheck, outcome


async def test_verified_known_wrong_fact_is_cleared():
    content = "Our test rig used an RTX 5090 with 32GB of GDDR7 for every run."
    validator, factcheck, outcome = await decide(content, r"RTX 5090 with 32GB", SNIPPETS)
    (kwf,) = [f for f in validator.findings if f.code == "known_wrong_fact"]
    (verified,) = [f for f in factcheck.findings if f.code == "fact_verified"]
    assert verified.span == kwf.span
    assert "clears the validator's known_wrong_fact" in verified.message
    assert outcome.cleared_facts == ("RTX 5090 with 32GB",)
    assert not any("known wrong fact" in v for v in outcome.vetoes)


@pytest.mark.parametrize(
    ("snippets", "code"),
    [(SNIPPETS, "fact_contradicted"), ({"rtx 5090": [NOISE]}, "fact_unverified")],
)
async def test_contradicted_or_unverified_known_wrong_fact_stands(snippets, code):
    content = "Our test rig used an RTX 5090 with 24GB of GDDR7 for every run."
    validator, factcheck, outcome = await decide(content, r"RTX 5090 with 24GB", snippets)
    (kwf,) = [f for f in validator.findings if f.code == "known_wrong_fact"]
    (finding,) = [f for f in factcheck.findings if f.span == kwf.span]
    assert finding.code == code
    assert outcome.cleared_facts == ()
    assert any("known wrong fact" in v for v in outcome.vetoes)
    assert not outcome.approved
