"""The URL guard: the one way multiqa fetches a URL that came from a draft.

Drafts are untrusted. `GuardedClient` refuses non-http(s) schemes, credentials in URLs, number
spellings of IP addresses, internal-only host names, and connects only to public unicast addresses
(after resolving the host itself, on every redirect hop) unless an operator allowlisted the host
or network in `qa_url_allowlist`. Time, redirects and bytes read are bounded.

    async with GuardedClient(settings) as http:
        check = await http.head_or_get("https://example.com/")   # UrlCheck, never raises
        data = await http.fetch_bytes(image_url, 5_000_000)       # bytes, or FetchError
"""

from agents.net._backend import PinnedBackend, Resolver, system_resolver
from agents.net._client import PROBE_BYTES, GuardedClient, UrlCheck, client_for
from agents.net._errors import ErrorKind, FetchError, URLRefused
from agents.net._policy import Allowlist, address_refusal, check_address, check_url

__all__ = [
    "PROBE_BYTES",
    "Allowlist",
    "ErrorKind",
    "FetchError",
    "GuardedClient",
    "PinnedBackend",
    "Resolver",
    "URLRefused",
    "UrlCheck",
    "address_refusal",
    "check_address",
    "check_url",
    "client_for",
    "system_resolver",
]
