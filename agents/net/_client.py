"""`GuardedClient`: the only HTTP client that fetches URLs taken from drafts.

Every request goes through the same steps: the URL rules (`check_url`), then a connection made by
`PinnedBackend` (resolve, vet every address, connect to a vetted one). Redirects are never
followed by httpx: each hop's Location is checked like a new URL, up to `qa_fetch_max_redirects`.
Each check has one total time budget, and bodies are read only as far as they are needed.
"""

from __future__ import annotations

import asyncio
import logging
import ssl
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass

import httpcore
import httpx
from opentelemetry.trace import Span, SpanKind, StatusCode

from agents._spans import tracer, url_attributes
from agents.net._backend import PinnedBackend, Resolver, system_resolver
from agents.net._errors import ErrorKind, FetchError, URLRefused
from agents.net._policy import Allowlist, check_url
from agents.settings import Settings

log = logging.getLogger(__name__)

# A link check needs the status, not the page: a GET reads at most this much before hanging up.
PROBE_BYTES = 4096
USER_AGENT = "multiqa-linkcheck/0.1 (+https://github.com/multiqa)"
_REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})


@dataclass(frozen=True, slots=True)
class UrlCheck:
    """The outcome of checking one URL."""

    url: str
    status: int | None
    final_url: str | None
    error_kind: ErrorKind
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.error_kind is ErrorKind.OK

    def reason(self) -> str:
        """A short human reason, for findings: `HTTP 404`, `timeout after 8s`, ..."""
        if self.ok:
            return f"HTTP {self.status}"
        return f"{self.error_kind.value}: {self.detail}" if self.detail else self.error_kind.value


class _GuardedTransport(httpx.AsyncHTTPTransport):
    """httpx's own transport, with its connection pool built on the pinned network backend.

    httpx does not take a network backend as a parameter, so the pool it built is replaced by an
    identical one that connects through `PinnedBackend`; request/response mapping and exception
    translation stay httpx's.
    """

    def __init__(self, backend: PinnedBackend, verify: ssl.SSLContext | str | bool) -> None:
        if isinstance(verify, str):  # a CA bundle (httpx deprecates passing its path itself)
            verify = ssl.create_default_context(cafile=verify)
        elif not isinstance(verify, ssl.SSLContext):
            verify = httpx.create_ssl_context(verify=verify, trust_env=False)
        super().__init__(verify=verify, trust_env=False, retries=0)
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=verify,
            max_connections=50,
            max_keepalive_connections=10,
            keepalive_expiry=5.0,
            http1=True,
            http2=False,
            retries=0,
            network_backend=backend,
        )


class GuardedClient:
    """An SSRF-safe HTTP client for draft-supplied URLs.

    `settings` gives the allowlist (`qa_url_allowlist`), the per-URL time budget
    (`qa_citation_timeout_seconds`) and the redirect limit (`qa_fetch_max_redirects`).
    `resolver` and `verify` are seams: tests resolve names to local servers and trust a test CA.
    Use as `async with GuardedClient(settings) as http:` or call `aclose()`.
    """

    def __init__(
        self,
        settings: Settings,
        *,
        resolver: Resolver | None = None,
        verify: ssl.SSLContext | str | bool = True,
        timeout: float | None = None,
    ) -> None:
        self.allowlist = Allowlist.parse(settings.url_allowlist())
        self.timeout = timeout if timeout is not None else settings.qa_citation_timeout_seconds
        self.max_redirects = settings.qa_fetch_max_redirects
        self.probe_bytes = max(0, min(PROBE_BYTES, settings.qa_fetch_max_bytes))
        backend = PinnedBackend(self.allowlist, resolver or system_resolver)
        self._client = httpx.AsyncClient(
            transport=_GuardedTransport(backend, verify),
            follow_redirects=False,
            trust_env=False,
            timeout=httpx.Timeout(self.timeout),
            # Raw bytes are counted against the limits; a compressed body could inflate past them.
            headers={"User-Agent": USER_AGENT, "Accept-Encoding": "identity"},
        )

    async def __aenter__(self) -> GuardedClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._client.aclose()

    # --- public API -----------------------------------------------------------------------------
    async def head_or_get(self, url: str) -> UrlCheck:
        """Is `url` alive? HEAD (following checked redirects); GET when HEAD answers 405 or 501,
        reading at most a few KB. Never raises for anything a URL can do."""
        with tracer().start_as_current_span(
            "multiqa.http check",
            kind=SpanKind.CLIENT,
            attributes=url_attributes(url),
            record_exception=False,
            set_status_on_exception=False,
        ) as span:
            check = await self._head_or_get(url)
            _end_span(span, check.status, check.error_kind)
            return check

    async def _head_or_get(self, url: str) -> UrlCheck:
        try:
            async with asyncio.timeout(self.timeout):
                status, final = await self._probe("HEAD", url)
                if status in (405, 501):
                    status, final = await self._probe("GET", url)
        except Exception as exc:
            kind, detail = _classify(exc, self.timeout)
            last_status = exc.status if isinstance(exc, FetchError) else None
            return UrlCheck(url, last_status, None, kind, detail)
        if status >= 400:
            return UrlCheck(url, status, final, ErrorKind.HTTP_ERROR, f"HTTP {status}")
        return UrlCheck(url, status, final, ErrorKind.OK, "")

    async def fetch_bytes(self, url: str, max_bytes: int) -> bytes:
        """GET `url` and return its body, refusing bodies larger than `max_bytes`.

        Raises URLRefused (guard), FetchError (kind: invalid_url, dns, timeout, http_error,
        too_large, network) — never an httpx exception.
        """
        with tracer().start_as_current_span(
            "multiqa.http fetch",
            kind=SpanKind.CLIENT,
            attributes=url_attributes(url),
            # The error's text names the (redirect) URL whole: the span says the outcome itself
            # (_end_span) and never carries the exception's message or traceback.
            record_exception=False,
            set_status_on_exception=False,
        ) as span:
            try:
                status, body = await self._fetch_bytes(url, max_bytes)
            except FetchError as exc:
                _end_span(span, exc.status, exc.kind)
                raise
            _end_span(span, status, ErrorKind.OK)
            span.set_attribute("http.response.body.size", len(body))
            return body

    async def _fetch_bytes(self, url: str, max_bytes: int) -> tuple[int, bytes]:
        try:
            async with asyncio.timeout(self.timeout):
                response = await self._send_following("GET", url)
                try:
                    if response.status_code >= 400:
                        raise FetchError(
                            ErrorKind.HTTP_ERROR,
                            f"HTTP {response.status_code}",
                            status=response.status_code,
                        )
                    declared = response.headers.get("content-length", "")
                    if declared.isdigit() and int(declared) > max_bytes:
                        raise FetchError(
                            ErrorKind.TOO_LARGE,
                            f"body is {declared} bytes, limit {max_bytes}",
                            status=response.status_code,
                        )
                    body = await _read_at_most(response, max_bytes + 1)
                    if len(body) > max_bytes:
                        raise FetchError(
                            ErrorKind.TOO_LARGE,
                            f"body exceeds {max_bytes} bytes",
                            status=response.status_code,
                        )
                    return response.status_code, body
                finally:
                    await response.aclose()
        except FetchError:
            raise
        except Exception as exc:
            kind, detail = _classify(exc, self.timeout)
            raise FetchError(kind, detail) from exc

    async def check_many(self, urls: Sequence[str], *, concurrency: int) -> list[UrlCheck]:
        """`head_or_get` each URL, at most `concurrency` at a time, results in input order."""
        semaphore = asyncio.Semaphore(max(1, concurrency))

        async def one(url: str) -> UrlCheck:
            async with semaphore:
                return await self.head_or_get(url)

        return list(await asyncio.gather(*(one(u) for u in urls)))

    # --- internals ------------------------------------------------------------------------------
    async def _probe(self, method: str, url: str) -> tuple[int, str]:
        response = await self._send_following(method, url)
        try:
            # Reading the (empty, for HEAD) end of the message lets the connection be reused.
            await _read_at_most(response, self.probe_bytes)
            return response.status_code, str(response.url)
        finally:
            await response.aclose()

    async def _send_following(self, method: str, url: str) -> httpx.Response:
        """Send, following redirects by hand: every hop is checked like a new URL. Returns the
        final response, open (streaming); the caller closes it."""
        current = check_url(url, self.allowlist)
        for hop in range(self.max_redirects + 1):
            request = self._client.build_request(method, current)
            response = await self._client.send(request, stream=True)
            location = response.headers.get("location")
            if response.status_code not in _REDIRECT_STATUSES or not location:
                return response
            await _read_at_most(response, self.probe_bytes)
            await response.aclose()
            if hop == self.max_redirects:
                raise FetchError(
                    ErrorKind.HTTP_ERROR,
                    f"more than {self.max_redirects} redirects",
                    status=response.status_code,
                )
            try:
                target = str(current.join(location))
            except (httpx.InvalidURL, ValueError, UnicodeError) as exc:
                raise FetchError(
                    ErrorKind.INVALID_URL, f"redirect to malformed URL: {exc}"
                ) from None
            try:
                current = check_url(target, self.allowlist)
            except URLRefused as exc:
                raise URLRefused(f"redirect to {target[:200]}: {exc.reason}") from None
            except FetchError as exc:
                raise FetchError(exc.kind, f"redirect to {target[:200]}: {exc.detail}") from None
            if response.status_code == 303 and method != "HEAD":
                method = "GET"
        raise AssertionError("unreachable")  # pragma: no cover


def _end_span(span: Span, status: int | None, kind: ErrorKind) -> None:
    span.set_attribute("multiqa.http.outcome", kind.value)
    if status is not None:
        span.set_attribute("http.response.status_code", status)
    if kind is not ErrorKind.OK:
        span.set_status(StatusCode.ERROR, kind.value)


async def _read_at_most(response: httpx.Response, limit: int) -> bytes:
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_raw():
        chunks.append(chunk)
        size += len(chunk)
        if size >= limit:
            break
    return b"".join(chunks)[:limit]


def _classify(exc: BaseException, timeout: float) -> tuple[ErrorKind, str]:
    """Map any exception a fetch can raise to an ErrorKind and a short detail."""
    if isinstance(exc, FetchError):
        return exc.kind, exc.detail
    if isinstance(exc, TimeoutError | httpx.TimeoutException):
        return ErrorKind.TIMEOUT, f"no answer within {timeout:g}s"
    if isinstance(exc, httpx.InvalidURL | httpx.UnsupportedProtocol | UnicodeError):
        return ErrorKind.INVALID_URL, str(exc)[:200]
    if isinstance(exc, httpx.ConnectError) and isinstance(exc.__context__, ssl.SSLError):
        return ErrorKind.NETWORK, f"TLS: {exc}"[:200]
    if not isinstance(exc, httpx.HTTPError | httpx.StreamError | OSError | ssl.SSLError):
        # Not something a URL can do to us: keep the traceback for whoever debugs it.
        log.warning("unexpected error while fetching a URL", exc_info=exc)
    return ErrorKind.NETWORK, f"{type(exc).__name__}: {exc}"[:200]


@asynccontextmanager
async def client_for(
    http: GuardedClient | None, settings: Settings
) -> AsyncIterator[GuardedClient]:
    """`deps.http` when one is given (shared, left open), else a client of our own for the
    duration of the block."""
    if http is not None:
        yield http
        return
    async with GuardedClient(settings) as client:
        yield client
