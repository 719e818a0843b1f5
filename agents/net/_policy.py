"""The guard's rules: which URLs may be requested and which addresses may be connected to.

Two separate questions, asked at two separate moments:
- `check_url` runs on the URL itself before every request, including each redirect hop: scheme,
  credentials, host spelling, names that only mean something inside a network.
- `check_address` runs on every address a host name resolves to, right before connecting (see
  `_backend`); the address that passes is the one the socket connects to.

Everything an operator allowlists (`qa_url_allowlist`: host names, `.suffix` for a domain and its
subdomains, IPs and CIDRs) skips the name and address rules; nothing skips the URL shape rules.
"""

from __future__ import annotations

import ipaddress
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

import httpx

from agents.net._errors import ErrorKind, FetchError, URLRefused

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

MAX_URL_LENGTH = 2048

# Metadata services that sit on otherwise routable-looking addresses (the link-local and ULA ones,
# 169.254.169.254 and fd00:ec2::254, are refused by the address class already).
_METADATA_ADDRESSES = frozenset(
    ipaddress.ip_address(a)
    for a in (
        "169.254.169.254",  # AWS, GCP, Azure, OpenStack, DigitalOcean
        "169.254.170.2",  # AWS ECS task metadata
        "100.100.100.200",  # Alibaba Cloud
        "192.0.0.192",  # Oracle Cloud (classic)
        "fd00:ec2::254",  # AWS IPv6
    )
)

# Names that only resolve inside a network (RFC 6761/6762/8375, ICANN's `.internal`, cloud
# metadata names). Matched as the whole name or as its last labels.
_INTERNAL_SUFFIXES = (
    "localhost",
    "local",
    "internal",
    "home.arpa",
    "localdomain",
    "lan",
    "intranet",
)
_INTERNAL_NAMES = frozenset({"metadata.google.internal", "metadata.goog", "instance-data"})

# Prefixes whose addresses carry an IPv4 address that the packet ends up at.
_NAT64 = (ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("64:ff9b:1::/48"))

_HOST_CHARS = re.compile(r"^[a-z0-9_-]+(?:\.[a-z0-9_-]+)*\.?$")
_NUMERIC_LABEL = re.compile(r"^(?:0x[0-9a-f]*|\d+)$")


@dataclass(frozen=True)
class Allowlist:
    """Hosts and networks an operator lets the guard reach even though they are internal."""

    hosts: frozenset[str] = frozenset()
    suffixes: tuple[str, ...] = ()
    networks: tuple[IPNetwork, ...] = ()

    @classmethod
    def parse(cls, entries: Iterable[str]) -> Allowlist:
        """Parse `qa_url_allowlist` entries: `host.name`, `.domain` (and its subdomains), an IP
        or a CIDR. A malformed CIDR or host name raises ValueError naming it: a typo must not
        silently widen or narrow what the guard lets through."""
        hosts: set[str] = set()
        suffixes: list[str] = []
        networks: list[IPNetwork] = []
        for raw in entries:
            entry = raw.strip().lower().rstrip(".")
            if not entry:
                continue
            if entry.startswith("[") and entry.endswith("]"):
                entry = entry[1:-1]
            try:
                networks.append(ipaddress.ip_network(entry, strict=False))
                continue
            except ValueError:
                if "/" in entry or _looks_numeric(entry):
                    raise ValueError(
                        f"qa_url_allowlist entry {raw!r} is not a valid IP or CIDR"
                    ) from None
            if entry.startswith("*."):
                entry = entry[1:]
            name = _idna(entry.removeprefix("."))
            if not _HOST_CHARS.match(name):
                raise ValueError(
                    f"qa_url_allowlist entry {raw!r} is not a host name, .domain, IP or CIDR"
                )
            if entry.startswith("."):
                suffixes.append(name)
            else:
                hosts.add(name)
        return cls(frozenset(hosts), tuple(suffixes), tuple(networks))

    def allows_host(self, host: str) -> bool:
        name = host.lower().rstrip(".")
        if name in self.hosts:
            return True
        if any(name == s or name.endswith("." + s) for s in self.suffixes):
            return True
        ip = _parse_ip(name)
        return ip is not None and self.allows_ip(ip)

    def allows_ip(self, ip: IPAddress) -> bool:
        return any(ip.version == net.version and ip in net for net in self.networks)


def address_refusal(ip: IPAddress) -> str | None:
    """Why the guard will not connect to `ip`, or None when it is a public unicast address."""
    if isinstance(ip, ipaddress.IPv6Address):
        embedded = _embedded_ipv4(ip)
        if embedded is not None:
            reason = address_refusal(embedded)
            return f"embeds {embedded}, {reason}" if reason else None
    if ip in _METADATA_ADDRESSES:
        return "cloud metadata address"
    if ip.is_unspecified:
        return "unspecified address"
    if ip.is_loopback:
        return "loopback address"
    if ip.is_link_local:
        return "link-local address"
    if ip.is_multicast:
        return "multicast address"
    if isinstance(ip, ipaddress.IPv4Address) and ip in _SHARED_SPACE:
        return "shared address space (CGNAT)"
    if ip.is_reserved:
        return "reserved address"
    if ip.is_private:
        return "private address"
    if not ip.is_global:
        return "non-global address"
    return None


_SHARED_SPACE = ipaddress.ip_network("100.64.0.0/10")


def check_address(ip: IPAddress, allowlist: Allowlist, *, host: str | None = None) -> None:
    """Raise URLRefused unless `ip` is public or allowlisted."""
    if allowlist.allows_ip(ip):
        return
    reason = address_refusal(ip)
    if reason is not None:
        where = f"{host} resolves to {ip}" if host and host != str(ip) else str(ip)
        raise URLRefused(f"{where}: {reason}")


def check_url(raw: str, allowlist: Allowlist) -> httpx.URL:
    """Parse `raw` exactly as httpx will request it and apply the URL rules.

    Raises FetchError(INVALID_URL) for text that is not a usable absolute http(s) URL and
    URLRefused for URLs the guard will not request. Returns the parsed URL.
    """
    if not isinstance(raw, str):
        raise FetchError(ErrorKind.INVALID_URL, f"not a string: {type(raw).__name__}")
    text = raw.strip()
    if not text:
        raise FetchError(ErrorKind.INVALID_URL, "empty URL")
    if len(text) > MAX_URL_LENGTH:
        raise FetchError(ErrorKind.INVALID_URL, f"URL longer than {MAX_URL_LENGTH} characters")
    bad = next((c for c in text if _is_space_or_control(c)), None)
    if bad is not None:
        raise FetchError(
            ErrorKind.INVALID_URL, f"URL contains whitespace or control character {bad!r}"
        )
    # Number spellings first, on the standard library's reading of the host: httpx rejects some
    # of them (0177.0.0.1) as malformed, but they are refused for what they mean, not how they
    # parse, and resolvers (inet_aton) happily turn 2130706433 or 127.1 into 127.0.0.1.
    try:
        loose_host = urlsplit(text).hostname or ""
    except ValueError:
        loose_host = ""
    _refuse_numeric_spelling(loose_host)
    try:
        url = httpx.URL(text)
        port = url.port
    except (httpx.InvalidURL, ValueError, UnicodeError) as exc:
        raise FetchError(ErrorKind.INVALID_URL, f"malformed URL: {exc}") from None
    if not url.scheme:
        raise FetchError(ErrorKind.INVALID_URL, "not an absolute URL (no scheme)")
    if url.scheme not in ("http", "https"):
        raise URLRefused(f"scheme {url.scheme!r} is not allowed (only http and https)")
    if url.userinfo:
        raise URLRefused("credentials in the URL (user@host) are not allowed")
    try:
        host = url.raw_host.decode("ascii").lower()
    except UnicodeDecodeError:
        raise FetchError(ErrorKind.INVALID_URL, "host is not ASCII after IDNA encoding") from None
    if not host:
        raise FetchError(ErrorKind.INVALID_URL, "URL has no host")
    if port is not None and not 0 < port < 65536:
        raise FetchError(ErrorKind.INVALID_URL, f"port {port} is out of range")
    check_host(host, allowlist)
    return url


def check_host(host: str, allowlist: Allowlist) -> None:
    """The name rules: spelling, internal-only names, and IP literals (checked right away)."""
    name = host.lower()
    if ":" in name:  # an IPv6 literal (httpx strips the brackets)
        if "%" in name:
            raise URLRefused("IPv6 zone identifiers are not allowed")
        ip = _parse_ip(name)
        if ip is None:
            raise FetchError(ErrorKind.INVALID_URL, f"invalid IPv6 address {host!r}")
        check_address(ip, allowlist)
        return
    _refuse_numeric_spelling(name)
    bare = name.rstrip(".")
    ip = _parse_ip(bare)
    if ip is not None:
        check_address(ip, allowlist)
        return
    if not _HOST_CHARS.match(name) or len(bare) > 253 or any(len(p) > 63 for p in bare.split(".")):
        raise FetchError(ErrorKind.INVALID_URL, f"invalid host name {host!r}")
    if allowlist.allows_host(bare):
        return
    if bare in _INTERNAL_NAMES or any(
        bare == s or bare.endswith("." + s) for s in _INTERNAL_SUFFIXES
    ):
        raise URLRefused(f"host {bare!r} is an internal-only name")
    if "." not in bare:
        raise URLRefused(f"single-label host {bare!r} would resolve through local search domains")


def _refuse_numeric_spelling(host: str) -> None:
    """Refuse hosts that a resolver would read as an IPv4 address but that are not written as
    one canonical dotted quad: 2130706433, 0x7f.0.0.1, 0177.0.0.1, 127.1 (WHATWG: a host whose
    last label is a number is an IPv4 address)."""
    name = host.lower().rstrip(".")
    if not name or ":" in name:
        return
    last = name.rsplit(".", 1)[-1]
    if _NUMERIC_LABEL.match(last) and not isinstance(_parse_ip(name), ipaddress.IPv4Address):
        raise URLRefused(f"non-canonical IP address spelling {host!r}")


def _embedded_ipv4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address delivers to: IPv4-mapped, IPv4-compatible, 6to4, NAT64."""
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip.sixtofour is not None:
        return ip.sixtofour
    if any(ip in net for net in _NAT64) or (int(ip) >> 32 == 0 and int(ip) > 0xFFFF):
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return None


def _parse_ip(text: str) -> IPAddress | None:
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


def _looks_numeric(entry: str) -> bool:
    return all(_NUMERIC_LABEL.match(p) for p in entry.split(".") if p)


def _idna(name: str) -> str:
    try:
        return name.encode("idna").decode("ascii")
    except UnicodeError:
        return name


def _is_space_or_control(char: str) -> bool:
    if char.isspace():
        return True
    return unicodedata.category(char) in ("Cc", "Cf", "Cs", "Zl", "Zp", "Zs")
