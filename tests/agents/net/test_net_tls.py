"""HTTPS through the guard: the socket goes to the vetted address, while SNI and certificate
verification still use the URL's host name."""

from __future__ import annotations

import ssl

from agents.net import ErrorKind, GuardedClient
from tests.agents.net.net_fakes import settings


def _recording_sni(context: ssl.SSLContext, names: list[str | None]) -> ssl.SSLContext:
    def remember(sock: ssl.SSLObject, name: str | None, ctx: ssl.SSLContext) -> None:
        names.append(name)

    context.sni_callback = remember
    return context


async def test_https_connects_to_vetted_address_and_verifies_the_host_name(local_web, test_ca, dns):
    sni: list[str | None] = []
    web = local_web("127.0.0.2", tls=_recording_sni(test_ca.server_context("secure.example"), sni))
    dns.add("secure.example", ["127.0.0.2"])
    url = f"https://secure.example:{web.port}/moved"
    async with GuardedClient(settings("127.0.0.2"), resolver=dns, verify=test_ca.ca_path) as http:
        check = await http.head_or_get(url)
    assert check.ok and check.status == 200
    assert check.final_url == f"https://secure.example:{web.port}/ok"
    assert sni and set(sni) == {"secure.example"}
    assert {s.host_header for s in web.seen} == {f"secure.example:{web.port}"}


async def test_certificate_for_another_name_is_rejected(local_web, test_ca, dns):
    web = local_web("127.0.0.2", tls=test_ca.server_context("other.example"))
    dns.add("secure.example", ["127.0.0.2"])
    async with GuardedClient(settings("127.0.0.2"), resolver=dns, verify=test_ca.ca_path) as http:
        check = await http.head_or_get(f"https://secure.example:{web.port}/ok")
    assert check.error_kind is ErrorKind.NETWORK
    assert "certificate" in check.detail.lower() or "hostname" in check.detail.lower()
    assert web.seen == []


async def test_untrusted_certificate_is_rejected(local_web, test_ca, dns):
    """Without the test CA, the system trust store does not know the server's certificate."""
    web = local_web("127.0.0.2", tls=test_ca.server_context("secure.example"))
    dns.add("secure.example", ["127.0.0.2"])
    async with GuardedClient(settings("127.0.0.2"), resolver=dns) as http:
        check = await http.head_or_get(f"https://secure.example:{web.port}/ok")
    assert check.error_kind is ErrorKind.NETWORK
    assert web.seen == []


async def test_https_to_a_non_allowlisted_address_is_refused_before_tls(local_web, test_ca, dns):
    web = local_web("127.0.0.2", tls=test_ca.server_context("secure.example"))
    dns.add("secure.example", ["127.0.0.2"])
    async with GuardedClient(settings(), resolver=dns, verify=test_ca.ca_path) as http:
        check = await http.head_or_get(f"https://secure.example:{web.port}/ok")
    assert check.error_kind is ErrorKind.REFUSED_BY_GUARD
    assert web.seen == []
