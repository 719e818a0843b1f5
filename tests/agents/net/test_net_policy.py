"""The guard's rules on their own: which addresses pass, what the allowlist accepts."""

from __future__ import annotations

import contextlib
import ipaddress

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agents.net import Allowlist, ErrorKind, FetchError, GuardedClient, URLRefused, check_url
from agents.net import address_refusal as refusal
from agents.settings import Settings

PUBLIC = ["8.8.8.8", "1.1.1.1", "93.184.216.34", "2606:4700::1111", "2a00:1450:4001::200e"]
REFUSED = {
    "127.0.0.1": "loopback",
    "127.255.255.254": "loopback",
    "10.20.30.40": "private",
    "172.31.255.255": "private",
    "192.168.0.1": "private",
    "100.64.0.1": "CGNAT",
    "100.127.255.254": "CGNAT",
    "169.254.169.254": "metadata",
    "169.254.1.1": "link-local",
    "0.0.0.0": "unspecified",
    "224.0.0.251": "multicast",
    "239.255.255.250": "multicast",
    "240.0.0.1": "reserved",
    "198.18.0.1": "private",
    "192.0.2.1": "private",  # TEST-NET-1 (documentation)
    "::1": "loopback",
    "::": "unspecified",
    "fe80::1": "link-local",
    "fc00::1": "private",
    "fdff:ffff::1": "private",
    "ff05::2": "multicast",
    "::ffff:10.0.0.1": "embeds 10.0.0.1",
    "64:ff9b::a9fe:a9fe": "embeds 169.254.169.254",
    "2002:c0a8:0101::1": "embeds 192.168.1.1",
    "2001:db8::1": "private",  # documentation
    "2001::1": "private",  # Teredo
}


@pytest.mark.parametrize("address", PUBLIC)
def test_public_addresses_pass(address):
    assert refusal(ipaddress.ip_address(address)) is None


@pytest.mark.parametrize(("address", "why"), REFUSED.items())
def test_internal_addresses_are_refused_with_a_reason(address, why):
    reason = refusal(ipaddress.ip_address(address))
    assert reason is not None and why in reason


def test_allowlist_entries():
    allow = Allowlist.parse(
        [
            "wiki.corp.example",
            ".intra.example",
            "*.lab.example",
            "10.0.0.0/8",
            "192.168.1.5",
            "[fd00::1]",
            " ",
            "Bücher.Example.",
        ]
    )
    assert allow.allows_host("wiki.corp.example") and allow.allows_host("WIKI.corp.example.")
    assert not allow.allows_host("other.corp.example")
    assert allow.allows_host("intra.example") and allow.allows_host("a.b.intra.example")
    assert not allow.allows_host("notintra.example")
    assert allow.allows_host("x.lab.example")
    assert allow.allows_host("xn--bcher-kva.example")
    assert allow.allows_ip(ipaddress.ip_address("10.9.8.7"))
    assert allow.allows_ip(ipaddress.ip_address("192.168.1.5"))
    assert not allow.allows_ip(ipaddress.ip_address("192.168.1.6"))
    assert allow.allows_ip(ipaddress.ip_address("fd00::1"))
    assert allow.allows_host("10.1.1.1")


@pytest.mark.parametrize("entry", ["10.0.0.0/33", "300.1.2.3", "fd00::/200", "10.0.0.1/x"])
def test_malformed_allowlist_entry_is_an_error_naming_it(entry):
    with pytest.raises(ValueError, match="qa_url_allowlist"):
        Allowlist.parse([entry])
    with pytest.raises(ValueError, match="qa_url_allowlist"):
        GuardedClient(Settings(qa_url_allowlist=entry))


def test_good_urls_parse_to_what_httpx_will_request():
    url = check_url("  https://Example.COM:8443/a/b?c=d#frag ", Allowlist())
    assert (url.scheme, url.host, url.port, url.path) == ("https", "example.com", 8443, "/a/b")
    assert check_url("http://bücher.example/", Allowlist()).raw_host == b"xn--bcher-kva.example"


def test_internal_names_pass_only_when_allowlisted():
    with pytest.raises(URLRefused):
        check_url("http://localhost:8080/", Allowlist())
    assert check_url("http://localhost:8080/", Allowlist.parse(["localhost"])).port == 8080


@given(st.text(max_size=300))
def test_check_url_only_ever_raises_fetch_errors(text):
    """Any text at all: a parsed URL or a FetchError, nothing else."""
    try:
        url = check_url(text, Allowlist())
    except FetchError as exc:
        assert exc.kind in (ErrorKind.INVALID_URL, ErrorKind.REFUSED_BY_GUARD)
    else:
        assert url.scheme in ("http", "https")


@given(st.from_regex(r"https?://[a-z0-9.:@\[\]%-]{1,40}/?", fullmatch=True))
def test_check_url_on_url_shaped_text(text):
    with contextlib.suppress(FetchError):
        check_url(text, Allowlist())
