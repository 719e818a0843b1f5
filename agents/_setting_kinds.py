"""What each kind of text setting accepts (the `kind` of a field in agents.settings), checked
when a value is written. Each check returns the canonical text, or raises SettingsError in one line
naming the key, the value and what would be accepted.

Kinds: "model" / "model_or_empty" (provider/model with a provider of MODEL_PROVIDERS: a bare
name could be served by Ollama or an OpenAI-compatible server, and the reviewers refuse to guess),
"url" / "url_or_empty" (http(s) with a host), "ollama_url" / "openai_url" / "anthropic_url" (empty,
or a base URL agents.llm can use: no credentials, no endpoint path), "host_or_empty", "hosts"
(the URL guard's allowlist: host names, .domains, IPs, CIDRs), "reviewers", "rule_codes", "names" (a
comma-separated list of non-empty words) and "path" (absolute). "" is free text.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from urllib.parse import urlsplit

from agents.settings import MODEL_PROVIDERS, SettingsError
from agents.values import split_list

_NICHE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
_LABEL = r"[a-z0-9_][a-z0-9_-]{0,62}"
_HOST = re.compile(rf"^(?=.{{1,253}}$){_LABEL}(?:\.{_LABEL})*\.?$")
_UNPRINTABLE = re.compile(r"[\s\x00-\x1f\x7f]")


def check(kind: str, key: str, value: str) -> str:
    """The canonical text of `value` for a setting of `kind` (SettingsError when refused)."""
    checker = _CHECKS.get(kind)
    if checker is None:  # free text
        return value
    return checker(key, value)


def check_niche(niche: str, key: str) -> None:
    if not _NICHE.match(niche):
        raise SettingsError(
            f"setting {key!r}: niche must be 1-64 lowercase letters, digits, '_' or '-'"
        )


def _model(key: str, value: str, *, optional: bool = False) -> str:
    text = value.strip()
    providers = ", ".join(MODEL_PROVIDERS)
    if not text:
        if optional:
            return ""
        raise SettingsError(f"setting {key} is empty: name a model as provider/model ({providers})")
    if _UNPRINTABLE.search(text):
        raise SettingsError(f"setting {key}={value!r}: a model name has no spaces")
    provider, sep, name = text.partition("/")
    if not sep:
        raise SettingsError(
            f"setting {key}={value!r} names no provider; write provider/model "
            f"({providers}), e.g. ollama/{text}"
        )
    if sep:
        if provider.lower() not in MODEL_PROVIDERS:
            raise SettingsError(
                f"setting {key}={value!r}: unknown provider {provider!r}; known: {providers} "
                "(write provider/model, e.g. ollama/gemma3:27b)"
            )
        if not name.strip("/"):
            raise SettingsError(f"setting {key}={value!r}: no model name after the provider")
    return text


def _url(key: str, value: str, *, optional: bool = False) -> str:
    text = value.strip()
    if not text and optional:
        return ""
    try:
        parts = urlsplit(text)
        port = parts.port  # ValueError for a port that is not a number in 0-65535
    except ValueError as exc:
        raise SettingsError(f"setting {key}={value!r} is not a URL ({exc})") from None
    if (
        parts.scheme not in ("http", "https")
        or not parts.hostname
        or _UNPRINTABLE.search(text)
        or not _is_host(parts.hostname)
        or port == 0
    ):
        raise SettingsError(
            f"setting {key}={value!r} is not an http(s) URL with a host "
            "(e.g. http://127.0.0.1:11434)"
        )
    return text


def _base_url(key: str, value: str, *, provider: str) -> str:
    """Empty (the environment's convention, see agents.llm._config), or a base URL the provider
    can use. A URL carrying credentials is refused before it reaches app_settings."""
    from agents.llm import base_url_problem

    if "@" in value:  # maybe credentials: refused before _url could quote the value
        problem = base_url_problem(provider, value.strip())
        if problem:
            raise SettingsError(f"setting {key}: {problem}")
    text = _url(key, value, optional=True)
    problem = base_url_problem(provider, text) if text else None
    if problem:
        raise SettingsError(f"setting {key}: {problem}")
    return text


def _is_host(name: str) -> bool:
    name = name.strip("[]")
    if ":" in name:  # an IPv6 literal
        import ipaddress

        try:
            ipaddress.IPv6Address(name)
        except ValueError:
            return False
        return True
    try:
        ascii_name = name.encode("idna").decode("ascii").lower()
    except UnicodeError:
        return False
    return bool(_HOST.match(ascii_name))


def _host(key: str, value: str) -> str:
    text = value.strip()
    if text and not _is_host(text):
        raise SettingsError(f"setting {key}={value!r} is not a host name (e.g. example.com)")
    return text


def _hosts(key: str, value: str) -> str:
    # The URL guard's own parser: what it refuses here it would refuse on every draft.
    from agents.net import Allowlist

    entries = split_list(value)
    try:
        Allowlist.parse(entries)
    except ValueError as exc:
        raise SettingsError(f"setting {key}: {exc}") from None
    return ",".join(entries)


def _reviewers(key: str, value: str) -> str:
    from agents.reviewers import REVIEWER_NAMES

    names = split_list(value)
    unknown = [name for name in names if name not in REVIEWER_NAMES]
    if unknown:
        raise SettingsError(
            f"setting {key}: unknown reviewer(s) {', '.join(unknown)}; "
            f"known: {', '.join(REVIEWER_NAMES)}"
        )
    return ",".join(names)


def _rule_codes(key: str, value: str) -> str:
    from agents.reviewers.validator import rule_codes

    codes = split_list(value)
    known = rule_codes()
    unknown = [code for code in codes if code not in known]
    if unknown:
        raise SettingsError(
            f"setting {key}: unknown validator rule(s) {', '.join(unknown)}; "
            f"known: {', '.join(sorted(known))}"
        )
    return ",".join(codes)


def _names(key: str, value: str) -> str:
    names = split_list(value)
    if any(_UNPRINTABLE.search(name) for name in names):
        raise SettingsError(f"setting {key}={value!r}: comma-separated names without spaces")
    return ",".join(names)


def _path(key: str, value: str) -> str:
    text = value.strip()
    if not text.startswith("/") or "\x00" in text:
        raise SettingsError(f"setting {key}={value!r} is not an absolute path")
    return text


_CHECKS: dict[str, Callable[[str, str], str]] = {
    "model": _model,
    "model_or_empty": lambda key, value: _model(key, value, optional=True),
    "url": _url,
    "url_or_empty": lambda key, value: _url(key, value, optional=True),
    "ollama_url": lambda key, value: _base_url(key, value, provider="ollama"),
    "openai_url": lambda key, value: _base_url(key, value, provider="openai"),
    "anthropic_url": lambda key, value: _base_url(key, value, provider="anthropic"),
    "host_or_empty": _host,
    "hosts": _hosts,
    "reviewers": _reviewers,
    "rule_codes": _rule_codes,
    "names": _names,
    "path": _path,
}
