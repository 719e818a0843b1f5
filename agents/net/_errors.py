"""What can go wrong when the guard fetches a URL, as data (`ErrorKind`) and as exceptions."""

from __future__ import annotations

import enum

from schemas import MultiqaError


class ErrorKind(enum.StrEnum):
    """Outcome of one URL check. Everything but `OK` means the URL did not answer usefully."""

    OK = "ok"
    HTTP_ERROR = "http_error"  # the server answered with status >= 400, or redirected too often
    TIMEOUT = "timeout"  # the total time budget ran out
    DNS = "dns"  # the host name does not resolve
    REFUSED_BY_GUARD = "refused_by_guard"  # the guard would not let multiqa go there
    INVALID_URL = "invalid_url"  # not a URL the guard can even parse
    TOO_LARGE = "too_large"  # fetch_bytes: the body is bigger than the caller's limit
    NETWORK = "network"  # connection refused or reset, TLS failure, protocol error


class FetchError(MultiqaError):
    """A fetch did not produce a usable response; `kind` says why, `detail` says what happened."""

    def __init__(self, kind: ErrorKind, detail: str, *, status: int | None = None) -> None:
        super().__init__(detail)
        self.kind = kind
        self.detail = detail
        self.status = status


class URLRefused(FetchError):
    """The guard refused the URL (or a redirect hop, or an address its host resolved to).
    `reason` says which rule refused it."""

    def __init__(self, reason: str) -> None:
        super().__init__(ErrorKind.REFUSED_BY_GUARD, reason)
        self.reason = reason
