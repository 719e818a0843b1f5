"""SSRF: every way a draft could point multiqa at an internal address is refused.

A real server listens on 127.0.0.1 for every attempt that could reach it, and each test asserts
both the refusal and that the server saw nothing: a guard that only *reported* a refusal after
connecting would fail here.
"""

from __future__ import annotations

import pytest

from agents.net import ErrorKind, GuardedClient, URLRefused
from tests.agents.net.net_fakes import FakeDNS, settings

# (name, url template; {p} is the port of the real server on 127.0.0.1)
BYPASS_ATTEMPTS = [
    ("loopback", "http://127.0.0.1:{p}/ok"),
    ("loopback other", "http://127.0.0.2:{p}/ok"),
    ("localhost", "http://localhost:{p}/ok"),
    ("localhost upper, trailing dot", "http://LOCALHOST.:{p}/ok"),
    ("subdomain of localhost", "http://api.localhost:{p}/ok"),
    ("unspecified 0.0.0.0", "http://0.0.0.0:{p}/ok"),
    ("unspecified, short", "http://0:{p}/ok"),
    ("ipv6 loopback", "http://[::1]:{p}/ok"),
    ("ipv6 unspecified", "http://[::]:{p}/ok"),
    ("ipv4-mapped ipv6", "http://[::ffff:127.0.0.1]:{p}/ok"),
    ("ipv4-mapped ipv6, hex", "http://[::ffff:7f00:1]:{p}/ok"),
    ("nat64 of loopback", "http://[64:ff9b::7f00:1]:{p}/ok"),
    ("6to4 of loopback", "http://[2002:7f00:1::1]:{p}/ok"),
    ("decimal", "http://2130706433:{p}/ok"),
    ("hex", "http://0x7f.0.0.1:{p}/ok"),
    ("hex, whole", "http://0x7f000001:{p}/ok"),
    ("octal", "http://0177.0.0.1:{p}/ok"),
    ("short form", "http://127.1:{p}/ok"),
    ("enclosed digits", "http://①②⑦.0.0.1:{p}/ok"),
    ("fullwidth digits", "http://１２７.０.０.１:{p}/ok"),  # noqa: RUF001 (on purpose)
    ("ideographic full stops", "http://127。0。0。1:{p}/ok"),
    ("private 10/8", "http://10.0.0.1/"),
    ("private 172.16/12", "http://172.16.0.1/"),
    ("private 192.168/16", "http://192.168.1.1/"),
    ("cgnat 100.64/10", "http://100.64.0.1/"),
    ("alibaba metadata", "http://100.100.100.200/latest/meta-data/"),
    ("aws metadata", "http://169.254.169.254/latest/meta-data/"),
    ("gcp metadata name", "http://metadata.google.internal/computeMetadata/v1/"),
    ("metadata.goog", "http://metadata.goog/computeMetadata/v1/"),
    ("oracle metadata", "http://192.0.0.192/opc/v1/instance/"),
    ("aws ipv6 metadata", "http://[fd00:ec2::254]/latest/meta-data/"),
    ("ipv6 link-local", "http://[fe80::1]/"),
    ("ipv6 zone id", "http://[fe80::1%25eth0]/"),
    ("ipv6 ula fc00", "http://[fc00::1]/"),
    ("ipv6 ula fd00", "http://[fd00::1]/"),
    ("multicast", "http://224.0.0.1/"),
    ("multicast global-looking", "http://224.0.1.1/"),
    ("ipv6 multicast", "http://[ff02::1]/"),
    ("broadcast", "http://255.255.255.255/"),
    ("userinfo", "http://good.com@127.0.0.1:{p}/ok"),
    ("userinfo with password", "http://user:pass@example.com/"),
    ("userinfo that looks like a host", "http://127.0.0.1:{p}@example.com/"),
    ("file scheme", "file:///etc/passwd"),
    ("gopher scheme", "gopher://127.0.0.1:{p}/_GET%20/ok"),
    ("ftp scheme", "ftp://127.0.0.1:{p}/"),
    ("dict scheme", "dict://127.0.0.1:{p}/info"),
    ("single-label name", "http://intranet/"),
    ("dot-local name", "http://printer.local/"),
]


@pytest.mark.parametrize(("name", "template"), BYPASS_ATTEMPTS, ids=[n for n, _ in BYPASS_ATTEMPTS])
async def test_bypass_attempt_is_refused(local_web, name, template):
    web = local_web("127.0.0.1")
    url = template.format(p=web.port)
    async with GuardedClient(settings()) as http:
        check = await http.head_or_get(url)
        with pytest.raises(URLRefused):
            await http.fetch_bytes(url, 1000)
    assert check.error_kind is ErrorKind.REFUSED_BY_GUARD, (name, check)
    assert check.status is None
    assert web.seen == []


async def test_refused_urls_reach_the_server_once_allowlisted(local_web):
    """The refusals above are the guard's doing: allowlisting 127.0.0.1 lets the same URL in."""
    web = local_web("127.0.0.1")
    url = web.url_for("/ok")
    async with GuardedClient(settings()) as http:
        assert (await http.head_or_get(url)).error_kind is ErrorKind.REFUSED_BY_GUARD
    assert web.seen == []
    async with GuardedClient(settings("127.0.0.1")) as http:
        check = await http.head_or_get(url)
    assert check.ok and check.status == 200
    assert [s.method for s in web.seen] == ["HEAD"]


async def test_allowlist_does_not_unlock_number_spellings_or_userinfo(local_web):
    web = local_web("127.0.0.1")
    async with GuardedClient(settings("127.0.0.0/8")) as http:
        for url in (
            f"http://2130706433:{web.port}/ok",
            f"http://127.1:{web.port}/ok",
            f"http://good.com@127.0.0.1:{web.port}/ok",
            f"gopher://127.0.0.1:{web.port}/",
        ):
            assert (await http.head_or_get(url)).error_kind is ErrorKind.REFUSED_BY_GUARD, url
    assert web.seen == []


async def test_redirect_from_allowlisted_host_to_loopback_is_refused(local_web):
    """127.0.0.2 is allowlisted; it redirects to 127.0.0.1, which is not."""
    target = local_web("127.0.0.1")
    hop = local_web("127.0.0.2")
    url = hop.url_for(f"/redirect?to={target.url_for('/ok')}")
    async with GuardedClient(settings("127.0.0.2")) as http:
        check = await http.head_or_get(url)
        with pytest.raises(URLRefused, match="redirect to"):
            await http.fetch_bytes(url, 1000)
    assert check.error_kind is ErrorKind.REFUSED_BY_GUARD
    assert "redirect to" in check.detail and "loopback" in check.detail
    assert [s.path.split("?")[0] for s in hop.seen] == ["/redirect", "/redirect"]
    assert target.seen == []


async def test_redirect_chain_of_allowlisted_hosts_ending_on_loopback_is_refused(local_web):
    target = local_web("127.0.0.1")
    second = local_web("127.0.0.3")
    first = local_web("127.0.0.2")
    via = second.url_for(f"/redirect?to={target.url_for('/ok')}")
    url = first.url_for(f"/redirect?to={via}")
    async with GuardedClient(settings("127.0.0.2,127.0.0.3")) as http:
        check = await http.head_or_get(url)
    assert check.error_kind is ErrorKind.REFUSED_BY_GUARD
    assert len(first.seen) == 1 and len(second.seen) == 1
    assert target.seen == []


@pytest.mark.parametrize(
    "location",
    [
        "http://localhost:{p}/ok",
        "http://2130706433:{p}/ok",
        "http://[::ffff:127.0.0.1]:{p}/ok",
        "file:///etc/passwd",
        "http://169.254.169.254/latest/meta-data/",
    ],
)
async def test_redirect_to_any_refused_form_is_refused(local_web, location):
    target = local_web("127.0.0.1")
    hop = local_web("127.0.0.2")
    url = hop.url_for("/redirect?to=" + location.format(p=target.port))
    async with GuardedClient(settings("127.0.0.2")) as http:
        check = await http.head_or_get(url)
    assert check.error_kind is ErrorKind.REFUSED_BY_GUARD
    assert target.seen == []


async def test_hostname_resolving_to_private_address_is_refused(local_web, dns: FakeDNS):
    web = local_web("127.0.0.1")
    dns.add("intranet.example.com", ["10.1.2.3"])
    dns.add("sneaky.example.com", ["127.0.0.1"])
    dns.add("127.0.0.1.nip.io", ["127.0.0.1"])
    dns.add("v6.example.com", ["::1"])
    async with GuardedClient(settings(), resolver=dns) as http:
        for host in (
            "intranet.example.com",
            "sneaky.example.com",
            "127.0.0.1.nip.io",
            "v6.example.com",
        ):
            check = await http.head_or_get(f"http://{host}:{web.port}/ok")
            assert check.error_kind is ErrorKind.REFUSED_BY_GUARD, check
            assert f"{host} resolves to" in check.detail
    assert web.seen == []


async def test_name_with_one_private_address_among_public_ones_is_refused(local_web, dns):
    """Every answer is vetted, not just the first: otherwise a failed connect to the public
    address would fall through to the private one."""
    web = local_web("127.0.0.1")
    dns.add("mixed.example.com", ["93.184.216.34", "127.0.0.1"])
    async with GuardedClient(settings(), resolver=dns) as http:
        check = await http.head_or_get(f"http://mixed.example.com:{web.port}/ok")
    assert check.error_kind is ErrorKind.REFUSED_BY_GUARD
    assert web.seen == []


async def test_dns_rebinding_connects_to_the_checked_address(local_web, dns: FakeDNS):
    """The name first resolves to an allowed address (127.0.0.2 plays "public"), then to a
    forbidden one. One lookup per connection: the address vetted is the address connected to,
    and the next connection's lookup is vetted again."""
    allowed = local_web("127.0.0.2")
    forbidden = local_web("127.0.0.1", port=allowed.port)
    dns.add("rebind.example.com", ["127.0.0.2"], ["127.0.0.1"])
    url = f"http://rebind.example.com:{allowed.port}/no-head"  # HEAD then GET: two requests
    async with GuardedClient(settings("127.0.0.2"), resolver=dns) as http:
        first = await http.head_or_get(url)
    assert first.ok and first.status == 200
    assert dns.calls == ["rebind.example.com"]  # HEAD and GET shared the vetted connection
    assert [(s.method, s.host_header) for s in allowed.seen] == [
        ("HEAD", f"rebind.example.com:{allowed.port}"),
        ("GET", f"rebind.example.com:{allowed.port}"),
    ]
    async with GuardedClient(settings("127.0.0.2"), resolver=dns) as http:
        second = await http.head_or_get(url)
    assert second.error_kind is ErrorKind.REFUSED_BY_GUARD
    assert dns.calls == ["rebind.example.com", "rebind.example.com"]
    assert forbidden.seen == []
