"""Citation verifier against real local servers, through the real URL guard."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import pytest

from agents.base import Deps, is_not_applicable, run_reviewer
from agents.links import MAX_CHECKED_LINKS
from agents.net import ErrorKind, FetchError, GuardedClient
from agents.reviewers.citations import SPECS, cited_urls
from agents.settings import Settings
from schemas.records import DraftSubmitted, ReviewStatus, Severity
from tests.helpers.drafts import make_draft

SPEC = SPECS[0]
LOCAL = Settings(qa_url_allowlist="127.0.0.1", qa_citation_timeout_seconds=0.5)


async def review(d: DraftSubmitted, settings: Settings = LOCAL, http: GuardedClient | None = None):
    if http is None:
        async with GuardedClient(settings) as client:
            return await run_reviewer(SPEC, d, settings, Deps(http=client))
    return await run_reviewer(SPEC, d, settings, Deps(http=http))


async def test_all_alive(local_web):
    web = local_web()
    content = (
        f"[a]({web.url_for('/ok')}) [b]({web.url_for('/moved')}) [c]({web.url_for('/no-head')})"
    )
    result = await review(make_draft(content, research_sources=()))
    assert (result.status, result.approved, result.score) == (ReviewStatus.OK, True, 100.0)
    assert result.provider == "http_head" and result.findings == ()
    # Checked concurrently, so only the multiset of requests is fixed.
    assert sorted((s.method, s.path) for s in web.seen) == [
        ("GET", "/no-head"),
        ("HEAD", "/moved"),
        ("HEAD", "/no-head"),
        ("HEAD", "/ok"),
        ("HEAD", "/ok"),
    ]


async def test_dead_share_within_the_limit_passes(local_web):
    web = local_web()
    urls = [web.url_for(p) for p in ("/ok", "/moved", "/head-501", "/missing")]
    result = await review(make_draft(" ".join(f"[x]({u})" for u in urls), research_sources=()))
    assert (result.approved, result.score) == (True, 75.0)
    (finding,) = result.findings
    assert finding.code == "dead_citation" and finding.severity is Severity.WARNING
    assert urls[3] in finding.message and "HTTP 404" in finding.message
    assert finding.span is not None and finding.span.text == urls[3]


async def test_dead_share_over_the_limit_fails_naming_each_url_and_why(local_web):
    web = local_web()
    urls = [
        web.url_for("/ok"),
        web.url_for("/error"),
        web.url_for("/slow"),
        "http://169.254.169.254/latest/meta-data/",
    ]
    result = await review(make_draft("\n".join(f"* [src]({u})" for u in urls), research_sources=()))
    assert (result.approved, result.score) == (False, 25.0)
    messages = {f.message.split(" is dead ")[0]: f.message for f in result.findings}
    assert set(messages) == set(urls[1:])
    assert "HTTP 500" in messages[urls[1]]
    assert "timeout" in messages[urls[2]]
    assert "refused_by_guard" in messages[urls[3]] and "metadata" in messages[urls[3]]
    assert "3 of 4" in result.feedback


async def test_no_urls_is_not_applicable():
    result = await review(
        make_draft("No links at all. [relative](/about) [mail](mailto:a@b.c)", research_sources=())
    )
    assert is_not_applicable(result)
    assert result.feedback == "not applicable: no cited URLs to verify"


async def test_the_sites_own_links_are_not_citations(local_web):
    """The rule the URL verifier uses (links.own_site): the citation verifier used to HEAD-check
    the site's own links, which urls rightly leaves out."""
    own = local_web(host="127.0.0.2")
    other = local_web(host="127.0.0.3")
    settings = LOCAL.with_overrides(
        qa_url_allowlist="127.0.0.2,127.0.0.3", site_url=f"http://127.0.0.2:{own.port}/"
    )
    content = f"[home]({own.url_for('/missing')}) [src]({other.url_for('/ok')})"
    sources = [own.url_for("/also-missing")]
    result = await review(make_draft(content, research_sources=tuple(sources)), settings)
    assert (result.approved, result.score, result.findings) == (True, 100.0, ())
    assert own.seen == [] and [s.path for s in other.seen] == ["/ok"]
    only_own = await review(
        make_draft(f"[home]({own.url_for('/missing')})", research_sources=tuple(sources)), settings
    )
    assert is_not_applicable(only_own) and own.seen == []
    # The draft's own site_domain counts too, as for urls.
    by_domain = replace(
        make_draft(f"[x]({other.url_for('/missing')})", research_sources=()),
        site_domain="127.0.0.3",
    )
    assert is_not_applicable(await review(by_domain, settings))
    from agents.reviewers.urls import external_links

    assert external_links(by_domain, settings) == []


async def test_zero_max_dead_ratio_switches_the_ratio_check_off_as_in_the_seed(local_web):
    web = local_web()
    content = f"[a]({web.url_for('/missing')}) [b]({web.url_for('/ok')})"
    result = await review(
        make_draft(content, research_sources=()),
        LOCAL.with_overrides(qa_citation_max_dead_ratio=0.0),
    )
    assert (result.approved, result.score) == (True, 50.0)
    assert "ratio check off" in result.feedback
    strict = await review(
        make_draft(content, research_sources=()),
        LOCAL.with_overrides(qa_citation_max_dead_ratio=0.001),
    )
    assert not strict.approved


async def test_fewer_than_min_count_fails(local_web):
    web = local_web()
    settings = LOCAL.with_overrides(qa_citation_min_count=3)
    result = await review(
        make_draft(f"[a]({web.url_for('/ok')}) [b]({web.url_for('/moved')})", research_sources=()),
        settings,
    )
    assert (result.approved, result.score) == (False, 100.0)
    assert [f.code for f in result.findings] == ["too_few_citations"]
    empty = await review(make_draft("nothing cited", research_sources=()), settings)
    assert (empty.status, empty.approved, empty.score) == (ReviewStatus.OK, False, 0.0)


async def test_research_sources_count_and_duplicates_are_checked_once(local_web):
    web = local_web()
    ok = web.url_for("/ok")
    content = f"[a]({ok}) again [b]({ok}#section) and {ok}"
    sources = [ok, web.url_for("/missing"), "Smith, Some Book (2020)", "   "]
    cited = cited_urls(make_draft(content, research_sources=tuple(sources)))
    assert [url for url, _ in cited] == [ok, web.url_for("/missing")]
    assert cited[0][1] is not None and cited[0][1].start == content.index(ok)
    assert cited[1][1] is None  # a research source the content never links
    result = await review(make_draft(content, research_sources=tuple(sources)))
    assert (result.approved, result.score) == (False, 50.0)
    assert [s.path for s in web.seen].count("/ok") == 1


async def test_at_most_five_checks_at_once(local_web):
    web = local_web()
    content = " ".join(f"[{i}]({web.url_for(f'/hold?i={i}')})" for i in range(15))
    result = await review(make_draft(content, research_sources=()))
    assert result.score == 100.0
    assert 1 <= web.max_in_flight <= 5


async def test_ten_thousand_links_are_capped(local_web):
    web = local_web()
    content = "\n".join(f"- [{i}]({web.url_for(f'/ok?i={i}')})" for i in range(10_000))
    result = await review(make_draft(content, research_sources=()))
    assert result.status is ReviewStatus.OK and result.score == 100.0
    assert len(web.seen) == MAX_CHECKED_LINKS
    (note,) = result.findings
    assert note.code == "citations_not_checked"
    assert f"{10_000 - MAX_CHECKED_LINKS} of 10000" in note.message


async def test_without_the_allowlist_local_citations_are_refused(local_web):
    """The same draft that passes with 127.0.0.1 allowlisted; the default client built from
    settings (deps.http None) refuses it, and the server never hears from it."""
    web = local_web()
    content = f"[a]({web.url_for('/ok')}) [b]({web.url_for('/moved')})"
    passing = await run_reviewer(SPEC, make_draft(content, research_sources=()), LOCAL, Deps())
    assert passing.approved and passing.score == 100.0
    seen_before = len(web.seen)
    refused = await run_reviewer(SPEC, make_draft(content, research_sources=()), Settings(), Deps())
    assert (refused.approved, refused.score) == (False, 0.0)
    assert all("refused_by_guard" in f.message for f in refused.findings)
    assert len(web.seen) == seen_before


async def _idn_resolver(host: str, port: int) -> Sequence[str]:
    if host == "xn--bcher-kva.example":
        return ["127.0.0.1"]
    raise FetchError(ErrorKind.DNS, f"{host} does not resolve")


async def test_bad_urls_become_findings(local_web):
    web = local_web()
    content = "\n".join(
        [
            "[spaces](<https://exa mple.com/a b>)",
            "[ctrl](https://example.com/\x07bell)",
            "[broken](http://)",
            "[port](http://example.com:99999/)",
            "[js](javascript:alert(1))",
            "[gopher](gopher://127.0.0.1:70/_x)",
            f"[idn](http://bücher.example:{web.port}/ok)",
            f"[puny](http://xn--bcher-kva.example:{web.port}/moved)",
        ]
    )
    sources = ["https://example.com/\x00nul", "ht!tp://nope", "https://" + "a" * 5000 + ".example"]
    async with GuardedClient(LOCAL, resolver=_idn_resolver) as http:
        result = await review(make_draft(content, research_sources=tuple(sources)), http=http)
    assert result.status is ReviewStatus.OK
    dead = [f.message for f in result.findings if f.code == "dead_citation"]
    # Everything but the two IDN links (which reach the server) and "ht!tp://nope" (not a URL).
    assert len(dead) == 8
    assert sum("invalid_url" in m for m in dead) == 6
    assert sum("refused_by_guard" in m for m in dead) == 2
    assert not any("nope" in m for m in dead)
    assert {s.host_header for s in web.seen} == {f"xn--bcher-kva.example:{web.port}"}


@pytest.mark.parametrize("content", ["", "\x00\x01\x02", "[](", "](https://x", "<a href=>"])
async def test_degenerate_content_never_raises(content):
    result = await review(make_draft(content, research_sources=()))
    assert result.status in (ReviewStatus.OK, ReviewStatus.SKIPPED)


@pytest.mark.timeout(30)
async def test_ten_thousand_bad_citations_are_findings_in_bounded_time(local_web):
    web = local_web()
    kinds = [
        lambda i: f"[slow]({web.url_for(f'/slow?i={i}')})",  # never answers within the timeout
        lambda i: f"[spaces](<https://exa mple.com/{i} x>)",
        lambda i: f"[ctrl](https://example.com/\x07{i})",
        lambda i: f"[malformed](http://[::1{i}/)",
        lambda i: f"[ok]({web.url_for(f'/ok?i={i}')})",
    ]
    content = "\n".join(f"- {kinds[i % len(kinds)](i)}" for i in range(10_000))
    result = await review(make_draft(content, research_sources=()))
    assert result.status is ReviewStatus.OK
    notes = [f for f in result.findings if f.code == "citations_not_checked"]
    assert len(notes) == 1 and f"{10_000 - MAX_CHECKED_LINKS} of 10000" in notes[0].message
    dead = [f.message for f in result.findings if f.code == "dead_citation"]
    assert len(dead) == MAX_CHECKED_LINKS * 4 // 5  # every checked one but the /ok links
    assert sum("timeout" in m for m in dead) == MAX_CHECKED_LINKS // 5
    assert sum("invalid_url" in m for m in dead) == 3 * MAX_CHECKED_LINKS // 5
    assert (result.approved, result.score) == (False, 20.0)  # 100 x (1 - 40/50)
