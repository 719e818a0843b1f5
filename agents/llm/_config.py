"""Where each model server is, following the conventions of the tools users already run.

- Ollama: the `ollama_base_url` setting when set, else `OLLAMA_HOST` (the variable the ollama CLI,
  its clients and every Ollama tool read, in their short forms: `host`, `host:port`, `:port`,
  `http(s)://host[:port]`), else http://127.0.0.1:11434.
- OpenAI-compatible servers: the `openai_base_url` setting when set, else `OPENAI_BASE_URL`, else
  https://api.openai.com/v1; the key only from `OPENAI_API_KEY` (never a setting).
- Anthropic: the `anthropic_base_url` setting (empty: the SDK's default); the key only from
  `ANTHROPIC_API_KEY`.

Keys are secrets: they live in the environment of the process that calls the model, never in
`app_settings` (which every reader of the database sees) and never in a log line. A base URL is not
allowed to carry one either (`https://user:key@host`), nor a query string.

A URL that cannot work is not guessed at: `base_url_problem` says why in one sentence, and the
provider turns that into an `unavailable` answer, so the reviewer skips with the reason.
"""

from __future__ import annotations

import ipaddress
import os
import re
from urllib.parse import urlsplit

from agents.settings import Settings

OLLAMA_DEFAULT = "http://127.0.0.1:11434"
OPENAI_DEFAULT = "https://api.openai.com/v1"
OPENAI_HOSTED = "api.openai.com"

# Endpoints people paste instead of the base URL: the SDK appends these itself.
_OPENAI_ENDPOINTS = ("/chat/completions", "/completions", "/models", "/responses", "/embeddings")


def ollama_url(settings: Settings) -> str:
    """The Ollama server's URL: setting, else OLLAMA_HOST, else the default (normalised)."""
    raw = settings.ollama_base_url.strip() or os.environ.get("OLLAMA_HOST", "").strip()
    return normalise_ollama_host(raw) if raw else OLLAMA_DEFAULT


def normalise_ollama_host(raw: str) -> str:
    """OLLAMA_HOST's short forms as a URL: "1.2.3.4" -> http://1.2.3.4:11434, ":8080" ->
    http://127.0.0.1:8080, "https://h" -> https://h:443 (what the ollama client does)."""
    text = raw.strip()
    scheme, sep, rest = text.partition("://")
    if not sep:
        scheme, rest = "http", text
    default_port = {"http": 80, "https": 443}.get(scheme.lower(), 11434) if sep else 11434
    host_port, slash, path = rest.partition("/")
    if host_port.startswith(":"):
        host_port = "127.0.0.1" + host_port
    host, port = host_port, ""
    if host_port.startswith("["):  # [ipv6]:port
        close = host_port.find("]")
        host, port = host_port[: close + 1], host_port[close + 2 :]
    elif host_port.count(":") == 1:
        host, port = host_port.split(":")
    host = host or "127.0.0.1"
    url = f"{scheme.lower()}://{host}:{port or default_port}"
    return url + (slash + path if path.strip("/") else "")


def openai_url(settings: Settings) -> str:
    """The OpenAI-compatible base URL: setting, else OPENAI_BASE_URL, else api.openai.com.
    A URL with no path gets "/v1" (every OpenAI-compatible server serves the API there)."""
    raw = settings.openai_base_url.strip() or os.environ.get("OPENAI_BASE_URL", "").strip()
    url = (raw or OPENAI_DEFAULT).rstrip("/")
    if _host_and_path(url)[1] in ("", "/"):
        url += "/v1"
    return url


def openai_key() -> str | None:
    """OPENAI_API_KEY, or None when it is unset or blank."""
    return os.environ.get("OPENAI_API_KEY", "").strip() or None


def anthropic_key() -> str | None:
    return os.environ.get("ANTHROPIC_API_KEY", "").strip() or None


def base_url_problem(provider: str, url: str) -> str | None:
    """Why `url` cannot be the base URL of `provider`'s server, or None when it can."""
    label = {"ollama": "Ollama", "openai": "OpenAI-compatible", "anthropic": "Anthropic"}.get(
        provider, provider
    )
    # Credentials first, before anything that would quote the URL (a key in it, followed by a
    # port that is not a number, must not reach the message).
    if _carries_credentials(url):
        key = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}.get(provider)
        where = f"put the key in {key}" if key else "Ollama takes no credentials in its URL"
        return f"{label} base URL carries credentials (user:password@); {where}"
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 (raises ValueError on a port that is not a number)
    except ValueError as exc:
        return f"{label} base URL {_shown(url)} is not a URL ({exc})"
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return f"{label} base URL {_shown(url)} must be http(s)://host[:port]"
    if parts.query or parts.fragment:
        return f"{label} base URL {_shown(url)} must not have a query or fragment"
    path = parts.path.rstrip("/")
    if provider == "ollama" and path:
        return (
            f"Ollama base URL {_shown(url)} has a path ({path}); Ollama serves its API at the "
            "root (/api/...): give scheme://host:port"
        )
    if provider == "openai" and path.endswith(_OPENAI_ENDPOINTS):
        return (
            f"OpenAI-compatible base URL {_shown(url)} names an endpoint; give the base the "
            "SDK appends /chat/completions to (usually ending in /v1)"
        )
    return None


def is_local_server(url: str) -> bool:
    """Whether a server at `url` runs on hardware we power (loopback, private, link-local or a
    .local name): its calls cost energy, not per-token prices."""
    host = _host_and_path(url)[0]
    if host in ("localhost", "host.docker.internal") or host.endswith((".local", ".localhost")):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_private or address.is_link_local


def is_hosted_openai(url: str) -> bool:
    return _host_and_path(url)[0] == OPENAI_HOSTED


def _host_and_path(url: str) -> tuple[str, str]:
    """(host in lower case, path) of `url`; ("", "") for one that does not parse, which
    `base_url_problem` then explains (the router is built before anyone asks it)."""
    try:
        parts = urlsplit(url)
        return (parts.hostname or "").lower(), parts.path
    except ValueError:
        return "", ""


def _carries_credentials(url: str) -> bool:
    """Whether `url` has a user:password@ part, read from the text itself (urlsplit raises on
    some such URLs, e.g. a bad port or IPv6 literal after the credentials)."""
    _, sep, rest = url.strip().partition("//")
    authority = rest if sep else url.strip()
    return "@" in re.split(r"[/?#]", authority, maxsplit=1)[0]


def _shown(url: str) -> str:
    """A URL for an error message, without any credentials it carries."""
    return repr(_CREDENTIALS.sub(r"\1***@", url)[:120])


_CREDENTIALS = re.compile(r"^([^/?#]*//)?[^/?#]*@")
