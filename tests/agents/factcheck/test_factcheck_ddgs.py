"""The real `ddgs` library (request, HTTP client, TLS, HTML parsing) against a local DuckDuckGo."""

from __future__ import annotations

from agents.base import Deps, run_reviewer
from agents.reviewers.factcheck import SPECS, DdgsSearch, SearchResult, SearchUnavailable
from agents.settings import Settings
from schemas.records import DraftSubmitted, ReviewStatus

SPEC = SPECS[0]
NVIDIA = (
    "GeForce RTX 5090 Graphics Cards | NVIDIA",
    "https://www.nvidia.com/en-us/geforce/graphics-cards/50-series/rtx-5090/",
    "The NVIDIA® GeForce <b>RTX</b>™ <b>5090</b> is the most powerful GeForce GPU ever made, "
    "with <b>32GB</b> of GDDR7 memory.",
)
PYTHON = (
    "What's new in Python 3.14 — Python documentation",
    "https://docs.python.org/3/whatsnew/3.14.html",
    "<b>Python 3.14</b> was released on 7 October 2025. Free-threaded Python is officially "
    "supported.",
)


def search(fake) -> DdgsSearch:
    return DdgsSearch(proxy=fake.proxy_url, verify=fake.ca_path, timeout=5)


async def test_ddgs_parses_results_from_the_duckduckgo_html_endpoint(fake_ddg):
    fake_ddg.pages["rtx 5090"] = [NVIDIA]
    results = await search(fake_ddg).search("RTX 5090 32GB", 3)
    assert results == [
        SearchResult(
            "GeForce RTX 5090 Graphics Cards | NVIDIA",
            NVIDIA[1],
            "The NVIDIA® GeForce RTX™ 5090 is the most powerful GeForce GPU ever made, "
            "with 32GB of GDDR7 memory.",
        )
    ]
    assert fake_ddg.tunnels == ["CONNECT html.duckduckgo.com:443 HTTP/1.1"]
    assert fake_ddg.queries == ["RTX 5090 32GB"]


async def test_no_results_is_an_empty_list(fake_ddg):
    assert await search(fake_ddg).search("nothing matches this", 3) == []


async def test_rate_limit_page_reads_as_no_results_and_the_reviewer_skips(fake_ddg):
    fake_ddg.mode = "ratelimit"
    draft = DraftSubmitted("d", 1, "T", "The RTX 5090 has 32GB of GDDR7.")
    result = await run_reviewer(SPEC, draft, Settings(), Deps(search=search(fake_ddg)))
    assert result.status is ReviewStatus.SKIPPED
    assert "no results" in result.feedback


async def test_network_error_makes_the_reviewer_skip_with_the_reason(fake_ddg):
    fake_ddg.mode = "refuse"
    try:
        await search(fake_ddg).search("RTX 5090", 3)
    except SearchUnavailable as exc:
        assert "web search failed" in str(exc)
    else:
        raise AssertionError("expected SearchUnavailable")
    draft = DraftSubmitted("d", 1, "T", "The RTX 5090 has 32GB of GDDR7.")
    result = await run_reviewer(SPEC, draft, Settings(), Deps(search=search(fake_ddg)))
    assert result.status is ReviewStatus.SKIPPED
    assert result.feedback.startswith("web search unavailable: web search failed")


async def test_full_review_through_ddgs(fake_ddg):
    fake_ddg.pages["rtx 5090"] = [NVIDIA]
    fake_ddg.pages["python 3.14"] = [PYTHON]
    content = (
        "The GeForce RTX 5090 comes with 24GB of GDDR7.\n\n"
        "Python 3.14 was released in October 2025."
    )
    draft = DraftSubmitted("d", 1, "T", content)
    result = await run_reviewer(SPEC, draft, Settings(), Deps(search=search(fake_ddg)))
    assert result.status is ReviewStatus.OK and not result.approved
    codes = {f.code: f for f in result.findings}
    assert set(codes) == {"fact_contradicted", "fact_verified"}
    assert "32GB" in codes["fact_contradicted"].message
    verified = codes["fact_verified"].span
    assert verified is not None
    assert verified.text == "Python 3.14 was released in October 2025"
    assert result.score == 50.0
