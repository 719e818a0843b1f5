"""URL verifier against real local servers, through the real URL guard."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from agents.base import Deps, is_not_applicable, run_reviewer
from agents.links import MAX_CHECKED_LINKS
from agents.net import ErrorKind, FetchError, GuardedClient
from agents.reviewers.urls import SPECS, external_links
from agents.settings import Settings
from schemas.records import DraftSubmitted, ReviewStatus, Severity
from tests.helpers.drafts import make_draft

SPEC = SPECS[0]
LOCAL = Settings(qa_url_allowlist="127.0.0.1", qa_citation_timeout_seconds=0.5)


async def _resolver(host: str, port: int) -> Sequence[str]:
    """Names the tests use: IDN test hosts go to the local server, nothing else resolves."""
    if host == "xn--bcher-kva.example":
        return ["127.0.0.1"]
    raise FetchError(ErrorKind.DNS, f"{host} does not resolve")


async def review(d: DraftSubmitted, settings: Settings = LOCAL):
    async with GuardedClient(settings, resolver=_resolver) as http:
        return await run_reviewer(SPEC, d, settings, Deps(http=http))


async def test_all_links_resolve(local_web):
    web = local_web()
    content = (
        f"[a]({web.url_for('/ok')}), [b]({web.url_for('/moved')}) and {web.url_for('/head-501')}."
    )
    result = await review(make_draft(content))
    assert (result.status, result.approved, result.score, result.veto) == (
        ReviewStatus.OK,
        True,
        95.0,
        None,
    )
    assert result.provider == "url_verifier"
    assert result.feedback == "all 3 external links resolve"


async def test_dead_links_cost_20_each_and_veto(local_web):
    web = local_web()
    missing, error = web.url_for("/missing"), web.url_for("/error")
    content = f"Good [a]({web.url_for('/ok')}).\nBad [b]({missing}) and [c]({error})."
    result = await review(make_draft(content))
    assert (result.approved, result.score, result.veto) == (False, 60.0, "2 dead links")
    assert [(f.code, f.severity) for f in result.findings] == [
        ("dead_link", Severity.CRITICAL),
        ("dead_link", Severity.CRITICAL),
    ]
    assert missing in result.findings[0].message and "HTTP 404" in result.findings[0].message
    assert error in result.findings[1].message and "HTTP 500" in result.findings[1].message
    assert result.findings[0].span is not None
    assert content[result.findings[0].span.start : result.findings[0].span.end] == missing


async def test_score_floors_at_zero(local_web):
    web = local_web()
    content = " ".join(f"[{i}]({web.url_for(f'/missing?{i}')})" for i in range(7))
    result = await review(make_draft(content))
    assert (result.approved, result.score, result.veto) == (False, 0.0, "7 dead links")


async def test_one_dead_link_veto_text(local_web):
    web = local_web()
    result = await review(make_draft(f"[x]({web.url_for('/missing')})"))
    assert (result.score, result.veto) == (80.0, "1 dead link")


async def test_timeouts_and_dns_failures_are_warnings_not_deaths(local_web):
    web = local_web()
    content = (
        f"[slow]({web.url_for('/slow')}) [nxdomain](https://no-such-host.example/x) "
        f"[refused](http://127.0.0.1:1/) [ok]({web.url_for('/ok')})"
    )
    result = await review(make_draft(content))
    assert (result.approved, result.veto) == (True, None)
    assert result.score == 100.0  # 80 + 5 x 4 checked
    kinds = sorted(f.message.split("(")[1].split(":")[0] for f in result.findings)
    assert kinds == ["dns", "network", "timeout"]
    assert {f.code for f in result.findings} == {"link_unreachable"}
    assert {f.severity for f in result.findings} == {Severity.WARNING}


async def test_guard_refusals_and_malformed_urls_are_dead(local_web):
    content = (
        "[meta](http://169.254.169.254/latest/meta-data/) [lan](http://10.0.0.1/admin) "
        "[file](file:///etc/passwd) [bad](http://exa%20mple.com/) [port](http://example.com:0/)"
    )
    result = await review(make_draft(content))
    assert (result.approved, result.score, result.veto) == (False, 0.0, "5 dead links")
    assert all(f.code == "dead_link" for f in result.findings)


async def test_self_links_are_not_external(local_web):
    web = local_web()
    settings = LOCAL.with_overrides(site_url="https://www.myblog.example", site_domain="")
    content = (
        "[home](https://myblog.example/) [post](http://www.myblog.example/p/1) "
        "[cdn](https://cdn.myblog.example/x.js) [shop](https://shop.example/cart) "
        f"[rel](/about) [frag](#top) [ext]({web.url_for('/ok')})"
    )
    d = make_draft(content, site_domain="shop.example")
    assert [link.url for link in external_links(d, settings)] == [web.url_for("/ok")]
    result = await review(d, settings)
    assert (result.approved, result.score, result.findings) == (True, 85.0, ())


async def test_site_domain_setting_marks_self_links(local_web):
    settings = LOCAL.with_overrides(site_domain="myblog.example")
    result = await review(make_draft("[a](https://myblog.example/missing-page)"), settings)
    assert is_not_applicable(result)
    assert result.feedback == "not applicable: no external links to verify"


async def test_no_external_links_is_not_applicable_not_80():
    """It used to score 80, and that 80 entered the mean of every draft without links."""
    result = await review(
        make_draft("Plain prose, a [relative](/about) link and [mail](mailto:a@b.c).")
    )
    assert is_not_applicable(result) and result.status is ReviewStatus.SKIPPED
    assert result.feedback == "not applicable: no external links to verify"


async def test_images_and_code_are_not_checked(local_web):
    web = local_web()
    content = (
        f"![img]({web.url_for('/missing')})\n\n```\ncurl http://127.0.0.1:9/\n```\n"
        f"`http://localhost/x` [ok]({web.url_for('/ok')})"
    )
    result = await review(make_draft(content))
    assert (result.approved, result.score) == (True, 85.0)
    assert [s.path for s in web.seen] == ["/ok"]


async def test_ten_thousand_links_are_capped(local_web):
    web = local_web()
    content = "\n".join(f"- [{i}]({web.url_for(f'/ok?i={i}')})" for i in range(10_000))
    result = await review(make_draft(content))
    assert (result.approved, result.score) == (True, 100.0)
    assert len(web.seen) == MAX_CHECKED_LINKS
    (note,) = result.findings
    assert note.code == "links_not_checked" and "9950 of 10000" in note.message


async def test_default_client_refuses_what_the_allowlist_let_through(local_web):
    web = local_web()
    content = f"[a]({web.url_for('/ok')})"
    allowed = await run_reviewer(SPEC, make_draft(content), LOCAL, Deps())
    assert allowed.approved and allowed.score == 85.0
    refused = await run_reviewer(SPEC, make_draft(content), Settings(), Deps())
    assert (refused.approved, refused.veto) == (False, "1 dead link")
    assert "refused_by_guard" in refused.findings[0].message
    assert len(web.seen) == 1


async def test_idn_and_bad_input_links(local_web):
    web = local_web()
    content = "\n".join(
        [
            f"[idn](http://bücher.example:{web.port}/ok)",
            f"[puny](http://xn--bcher-kva.example:{web.port}/ok)",
            "[spaces](<https://exa mple.com/a b>)",
            "[ctrl](https://example.com/\x1b[31mred)",
            "[empty host](https:///path)",
            "[invalid idn](http://xn--zz.example/)",
        ]
    )
    result = await review(make_draft(content))
    assert result.status is ReviewStatus.OK
    dead = [f for f in result.findings if f.code == "dead_link"]
    assert len(dead) == 4 and all("invalid_url" in f.message for f in dead)
    assert result.veto == "4 dead links"
    assert len(web.seen) == 1  # the IDN and punycode spellings are one URL, checked once


@pytest.mark.parametrize("content", ["", "\x00" * 100, "[](", "](https://", "<a href=>", "http://"])
async def test_degenerate_content_never_raises(content):
    result = await review(make_draft(content))
    assert result.status is ReviewStatus.OK or is_not_applicable(result)


def _bad_link(i: int, web) -> str:
    """One of the issue's bad links, distinct per i so de-duplication keeps them all."""
    kinds = [
        f"[slow]({web.url_for(f'/slow?i={i}')})",  # never answers within the timeout
        f"[spaces](<https://exa mple.com/{i} x>)",
        f"[ctrl](https://example.com/\x07{i})",
        f"[idn](http://bücher{i}.example/)",  # IDN host that does not resolve
        f"[malformed](http://[::1{i}/)",
        f"[ok]({web.url_for(f'/ok?i={i}')})",
    ]
    return kinds[i % len(kinds)]


@pytest.mark.timeout(30)
async def test_ten_thousand_bad_links_are_findings_in_bounded_time(local_web):
    web = local_web()
    content = "\n".join(f"- {_bad_link(i, web)}" for i in range(10_000))
    result = await review(make_draft(content))
    assert result.status is ReviewStatus.OK
    by_code: dict[str, list[str]] = {}
    for f in result.findings:
        by_code.setdefault(f.code, []).append(f.message)
    (note,) = by_code.pop("links_not_checked")
    assert f"{10_000 - MAX_CHECKED_LINKS} of 10000" in note
    unreachable = " ".join(by_code["link_unreachable"])
    assert "timeout" in unreachable and "dns" in unreachable
    assert all("invalid_url" in m for m in by_code["dead_link"])
    # the first MAX_CHECKED_LINKS are checked; spaces, ctrl and malformed ones are dead
    assert len(by_code["dead_link"]) == sum(i % 6 in (1, 2, 4) for i in range(MAX_CHECKED_LINKS))
    assert result.veto == f"{len(by_code['dead_link'])} dead links" and not result.approved
