"""Resolve, vet, connect: the one place a socket to a draft-supplied host is opened.

httpcore asks its network backend to `connect_tcp(host, port)` for every new connection. This
backend resolves the host itself (through a replaceable resolver), refuses the connection if any
address fails the address rules, and connects to the vetted address only. The address that was
checked is the address that is connected to, so a DNS answer that changes between a check and a
connect (DNS rebinding) has nothing to exploit: there is one answer per connection.

TLS is unaffected: httpcore wraps the returned stream with the URL's host name as SNI and checks
the certificate against that name, and the connection pool is keyed by host name, so a connection
(and its certificate check) is never reused for a different host that shares an address.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Awaitable, Callable, Iterable, Sequence

import httpcore

from agents.net._errors import ErrorKind, FetchError
from agents.net._policy import Allowlist, IPAddress, check_address

Resolver = Callable[[str, int], Awaitable[Sequence[str]]]
"""`await resolve(host, port)` -> the host's addresses as strings. Raise FetchError(DNS) when the
name does not resolve. Tests replace it to make a name resolve wherever they need."""


async def system_resolver(host: str, port: int) -> Sequence[str]:
    """Resolve with the system resolver (getaddrinfo, in the loop's thread pool)."""
    loop = asyncio.get_running_loop()
    try:
        infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise FetchError(ErrorKind.DNS, f"{host} does not resolve: {exc}") from None
    addresses: list[str] = []
    for _family, _type, _proto, _canon, sockaddr in infos:
        address = str(sockaddr[0])
        if address not in addresses:
            addresses.append(address)
    return addresses


class PinnedBackend(httpcore.AsyncNetworkBackend):
    """A network backend that connects only to addresses the guard has vetted."""

    def __init__(
        self,
        allowlist: Allowlist,
        resolver: Resolver = system_resolver,
        connector: httpcore.AsyncNetworkBackend | None = None,
    ) -> None:
        self._allowlist = allowlist
        self._resolver = resolver
        self._connector = connector or httpcore.AnyIOBackend()

    async def vetted_addresses(self, host: str, port: int) -> list[IPAddress]:
        """Resolve `host` and vet every address; raise URLRefused if any is refused.

        All of them, not just the first: a name that answers with one public and one private
        address would otherwise reach the private one whenever the public one fails to connect.
        """
        literal = _parse_ip(host)
        if literal is not None:
            check_address(literal, self._allowlist)
            return [literal]
        answers = await self._resolver(host, port)
        addresses = [ip for ip in (_parse_ip(a) for a in answers) if ip is not None]
        if not addresses:
            raise FetchError(ErrorKind.DNS, f"{host} has no usable address")
        if not self._allowlist.allows_host(host):
            for ip in addresses:
                check_address(ip, self._allowlist, host=host)
        return addresses

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,  # noqa: ASYNC109 (httpcore's interface)
        local_address: str | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        addresses = await self.vetted_addresses(host, port)
        last_error: Exception | None = None
        for ip in addresses:
            try:
                return await self._connector.connect_tcp(
                    str(ip),
                    port,
                    timeout=timeout,
                    local_address=local_address,
                    socket_options=socket_options,
                )
            except (httpcore.ConnectError, OSError) as exc:
                last_error = exc
        assert last_error is not None
        raise last_error

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,  # noqa: ASYNC109 (httpcore's interface)
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        raise FetchError(ErrorKind.REFUSED_BY_GUARD, "unix sockets are not allowed")

    async def sleep(self, seconds: float) -> None:
        await self._connector.sleep(seconds)


def _parse_ip(text: str) -> IPAddress | None:
    try:
        return ipaddress.ip_address(text.strip("[]"))
    except ValueError:
        return None
