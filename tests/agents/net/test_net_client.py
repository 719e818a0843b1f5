"""GuardedClient against real local servers: statuses, redirects, limits, bad input."""

from __future__ import annotations

import pytest

from agents.net import PROBE_BYTES, ErrorKind, FetchError, GuardedClient, URLRefused
from tests.agents.net.net_fakes import FakeDNS, settings


@pytest.fixture
async def http():
    async with GuardedClient(settings("127.0.0.1", qa_citation_timeout_seconds=1.0)) as client:
        yield client


async def test_alive_url_is_checked_with_head_only(http, local_web):
    web = local_web()
    check = await http.head_or_get(web.url_for("/ok"))
    assert (check.error_kind, check.status, check.final_url) == (
        ErrorKind.OK,
        200,
        web.url_for("/ok"),
    )
    assert [s.method for s in web.seen] == ["HEAD"]


@pytest.mark.parametrize(("path", "status"), [("/missing", 404), ("/error", 500)])
async def test_error_status_is_an_http_error(http, local_web, path, status):
    web = local_web()
    check = await http.head_or_get(web.url_for(path))
    assert (check.error_kind, check.status, check.detail) == (
        ErrorKind.HTTP_ERROR,
        status,
        f"HTTP {status}",
    )


@pytest.mark.parametrize("path", ["/no-head", "/head-501"])
async def test_head_refused_falls_back_to_get(http, local_web, path):
    web = local_web()
    check = await http.head_or_get(web.url_for(path))
    assert check.ok and check.status == 200
    assert [s.method for s in web.seen] == ["HEAD", "GET"]


async def test_redirect_is_followed_and_reported(http, local_web):
    web = local_web()
    check = await http.head_or_get(web.url_for("/moved"))
    assert check.ok and check.status == 200
    assert check.final_url == web.url_for("/ok")
    assert [s.path for s in web.seen] == ["/moved", "/ok"]


async def test_redirect_loop_stops_at_the_hop_limit(local_web):
    web = local_web()
    async with GuardedClient(settings("127.0.0.1", qa_fetch_max_redirects=3)) as http:
        check = await http.head_or_get(web.url_for("/loop"))
    assert check.error_kind is ErrorKind.HTTP_ERROR
    assert "more than 3 redirects" in check.detail
    assert len(web.seen) == 4  # the first request and three followed hops


async def test_slow_server_times_out(local_web):
    web = local_web()
    async with GuardedClient(settings("127.0.0.1", qa_citation_timeout_seconds=0.3)) as http:
        check = await http.head_or_get(web.url_for("/slow"))
        with pytest.raises(FetchError) as raised:
            await http.fetch_bytes(web.url_for("/slow"), 100)
    assert check.error_kind is ErrorKind.TIMEOUT
    assert raised.value.kind is ErrorKind.TIMEOUT


async def test_endless_body_is_not_read_to_the_end(http, local_web):
    """/huge streams forever: the check can only finish if it stops reading after a few KB
    (otherwise it would run into the time budget and report a timeout)."""
    web = local_web()
    check = await http.head_or_get(web.url_for("/huge"))
    assert check.ok and check.status == 200
    assert [s.method for s in web.seen] == ["HEAD", "GET"]


async def test_probe_reads_at_most_a_few_kb():
    assert 0 < PROBE_BYTES <= 8192
    async with GuardedClient(settings(qa_fetch_max_bytes=100)) as http:
        assert http.probe_bytes == 100


async def test_fetch_bytes_returns_the_body(http, local_web):
    web = local_web()
    assert await http.fetch_bytes(web.url_for("/bytes?n=1000"), 5000) == b"b" * 1000
    assert await http.fetch_bytes(web.url_for("/moved"), 5000) == b"hello"


@pytest.mark.parametrize("path", ["/bytes?n=10000", "/stream?n=10000", "/huge"])
async def test_fetch_bytes_refuses_bodies_over_the_limit(http, local_web, path):
    web = local_web()
    with pytest.raises(FetchError) as raised:
        await http.fetch_bytes(web.url_for(path), 5000)
    assert raised.value.kind is ErrorKind.TOO_LARGE


async def test_fetch_bytes_reports_http_errors(http, local_web):
    web = local_web()
    with pytest.raises(FetchError) as raised:
        await http.fetch_bytes(web.url_for("/missing"), 5000)
    assert (raised.value.kind, raised.value.status) == (ErrorKind.HTTP_ERROR, 404)


async def test_unresolvable_name_is_a_dns_error(local_web):
    async with GuardedClient(settings(), resolver=FakeDNS()) as http:
        check = await http.head_or_get("https://no-such-host.example/")
    assert check.error_kind is ErrorKind.DNS


async def test_real_system_resolver_reports_dns_errors():
    async with GuardedClient(settings()) as http:
        check = await http.head_or_get("http://no-such-host.invalid/")
    assert check.error_kind is ErrorKind.DNS


async def test_connection_refused_is_a_network_error(local_web):
    web = local_web("127.0.0.2")
    port = web.port
    async with GuardedClient(settings("127.0.0.3")) as http:
        check = await http.head_or_get(f"http://127.0.0.3:{port}/ok")
    assert check.error_kind is ErrorKind.NETWORK


async def test_name_resolves_to_the_server_and_keeps_its_host_header(local_web, dns):
    web = local_web("127.0.0.2")
    dns.add("docs.example.org", ["127.0.0.2"])
    async with GuardedClient(settings("127.0.0.2"), resolver=dns) as http:
        check = await http.head_or_get(f"http://docs.example.org:{web.port}/ok")
    assert check.ok
    assert web.seen[0].host_header == f"docs.example.org:{web.port}"


async def test_allowlisted_name_may_resolve_to_an_internal_address(local_web, dns):
    web = local_web("127.0.0.2")
    dns.add("wiki.corp.example", ["127.0.0.2"])
    url = f"http://wiki.corp.example:{web.port}/ok"
    async with GuardedClient(settings(".corp.example"), resolver=dns) as http:
        assert (await http.head_or_get(url)).ok
    async with GuardedClient(settings(), resolver=dns) as http:
        assert (await http.head_or_get(url)).error_kind is ErrorKind.REFUSED_BY_GUARD


async def test_check_many_keeps_order_and_limits_concurrency(http, local_web):
    web = local_web()
    urls = [web.url_for(f"/hold?i={i}") for i in range(12)] + [web.url_for("/missing")]
    checks = await http.check_many(urls, concurrency=3)
    assert [c.url for c in checks] == urls
    assert [c.ok for c in checks] == [True] * 12 + [False]
    assert 1 <= web.max_in_flight <= 3


IDN_AND_BAD_URLS = [
    ("", ErrorKind.INVALID_URL),
    ("   ", ErrorKind.INVALID_URL),
    ("http://", ErrorKind.INVALID_URL),
    ("http:///path", ErrorKind.INVALID_URL),
    ("//example.com/x", ErrorKind.INVALID_URL),
    ("/relative/path", ErrorKind.INVALID_URL),
    ("example.com", ErrorKind.INVALID_URL),
    ("http://exa mple.com/", ErrorKind.INVALID_URL),
    ("http://example.com/a b", ErrorKind.INVALID_URL),
    ("http://exa\x00mple.com/", ErrorKind.INVALID_URL),
    ("http://example.com/\x1b[31m", ErrorKind.INVALID_URL),
    ("http://example.com/\u200b", ErrorKind.INVALID_URL),
    ("http://example.com\r\nHost: evil/", ErrorKind.INVALID_URL),
    ("http://[::1", ErrorKind.INVALID_URL),
    ("http://example.com:99999/", ErrorKind.INVALID_URL),
    ("http://example.com:0/", ErrorKind.INVALID_URL),
    ("http://ex%41mple.com/", ErrorKind.INVALID_URL),
    ("http://a..b/", ErrorKind.INVALID_URL),
    ("http://" + "a" * 64 + ".com/", ErrorKind.INVALID_URL),
    ("http://example.com/" + "x" * 5000, ErrorKind.INVALID_URL),
    ("http://xn--zz.example/", ErrorKind.INVALID_URL),
    ("http://ｌｏｃａｌｈｏｓｔ/", ErrorKind.INVALID_URL),  # noqa: RUF001 (fullwidth, on purpose)
    ("javascript:alert(1)", ErrorKind.REFUSED_BY_GUARD),
    ("data:text/html,<script>", ErrorKind.REFUSED_BY_GUARD),
    ("mailto:someone@example.com", ErrorKind.REFUSED_BY_GUARD),
]


@pytest.mark.parametrize(
    ("url", "kind"), IDN_AND_BAD_URLS, ids=[repr(u)[:40] for u, _ in IDN_AND_BAD_URLS]
)
async def test_bad_urls_become_checks_never_exceptions(url, kind):
    async with GuardedClient(settings(), resolver=FakeDNS()) as http:
        check = await http.head_or_get(url)
        with pytest.raises(FetchError) as raised:
            await http.fetch_bytes(url, 100)
    assert check.error_kind is kind, check
    assert raised.value.kind is kind
    assert check.detail


async def test_idn_and_punycode_hosts_are_requested_as_punycode(local_web, dns):
    web = local_web("127.0.0.2")
    dns.add("xn--bcher-kva.example", ["127.0.0.2"])
    async with GuardedClient(settings("127.0.0.2"), resolver=dns) as http:
        unicode_check = await http.head_or_get(f"http://bücher.example:{web.port}/ok")
        puny_check = await http.head_or_get(f"http://xn--bcher-kva.example:{web.port}/ok")
    assert unicode_check.ok and puny_check.ok
    assert dns.calls == ["xn--bcher-kva.example", "xn--bcher-kva.example"] or dns.calls == [
        "xn--bcher-kva.example"
    ]
    assert {s.host_header for s in web.seen} == {f"xn--bcher-kva.example:{web.port}"}


async def test_fetch_bytes_raises_urlrefused_with_the_reason():
    async with GuardedClient(settings()) as http:
        with pytest.raises(URLRefused) as raised:
            await http.fetch_bytes("http://169.254.169.254/latest/meta-data/", 100)
    assert "metadata" in raised.value.reason
