"""Finding the URLs a markdown draft links to: the one extraction the citation verifier, the URL
verifier and the vision gate share.

What counts as a link is what a reader can click or a page will load: inline links and images
(`[text](url "title")`, `![alt](url)`), reference definitions (`[id]: url`), autolinks
(`<https://...>`), HTML `href`/`src` attributes and bare `https://` URLs. URLs inside fenced code,
inline code and HTML comments are examples, not links (a tutorial's `curl http://localhost:8080`
is not a dead link), so they are masked out first (agents.markdown: the validator's definition
of code too).

Every pattern here is linear in the input (no nested unbounded repetition), because drafts are
untrusted and may be megabytes of adversarial text.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

from agents.markdown import mask_code_and_comments
from schemas.records import Span

MAX_URL_CHARS = 4096
# At most this many distinct URLs are fetched per draft and reviewer: time stays bounded whatever
# the draft contains, and the findings say how many were left out.
MAX_CHECKED_LINKS = 50


class LinkKind(enum.StrEnum):
    INLINE = "inline"
    IMAGE = "image"
    REFERENCE = "reference"
    AUTOLINK = "autolink"
    HTML = "html"
    HTML_IMAGE = "html_image"
    BARE = "bare"


@dataclass(frozen=True, slots=True)
class Link:
    """One link as written in the draft: `url` is the destination text at `start:end`."""

    url: str
    start: int
    end: int
    kind: LinkKind
    alt: str = ""  # a markdown image's alt text

    @property
    def is_image(self) -> bool:
        return self.kind in (LinkKind.IMAGE, LinkKind.HTML_IMAGE)

    @property
    def span(self) -> Span:
        return Span(self.start, self.end, self.url)


# --- extraction --------------------------------------------------------------------------------
_INLINE_OPEN = re.compile(r"(!?)\[(?:[^\[\]\n]|\[[^\[\]\n]{0,300}\]){0,500}\]\(")
_IMAGE_OPEN = re.compile(r"!\[[^\[\]\n]{0,500}\]\(")
# A destination: non-space, non-paren characters, escapes, and one level of balanced parens
# (Wikipedia's `Foo_(bar)`); the alternatives start with different characters, so no backtracking.
_DESTINATION = re.compile(r"(?:[^\s()\\<]|\\.|\([^\s()]{0,300}\))+")
_REFERENCE = re.compile(
    r"^[ ]{0,3}\[[^\]\n]{1,500}\]:[ \t]*(?:<([^<>\n]{1,4096})>|(\S{1,4096}))", re.M
)
_AUTOLINK = re.compile(r"<([A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]{1,4096})>")
_HTML_ATTR = re.compile(
    r"<(a|area|link|img|source|iframe|video|audio|embed)\b[^<>]{0,2000}?\b(href|src)\s*=\s*"
    r"(?:\"([^\"]{0,4096})\"|'([^']{0,4096})'|([^\s>\"']{1,4096}))",
    re.I,
)
_BARE = re.compile(r"https?://[^\s<>\"'`\[\]{}|\\^]{1,4096}", re.I)
_TRAILING = ".,:;!?*_~'\""


def extract_links(markdown: str) -> list[Link]:
    """Every link in `markdown`, images included, in document order (duplicates kept: the same
    URL linked twice is two links)."""
    text = mask_code_and_comments(markdown)
    found: dict[int, Link] = {}

    def add(url: str, start: int, kind: LinkKind, alt: str = "") -> None:
        if url and start not in found:
            found[start] = Link(url, start, start + len(url), kind, alt)

    for match in _IMAGE_OPEN.finditer(text):
        _add_destination(text, match.end(), LinkKind.IMAGE, add, alt=match.group(0)[2:-2])
    for match in _INLINE_OPEN.finditer(text):
        kind = LinkKind.IMAGE if match.group(1) else LinkKind.INLINE
        _add_destination(text, match.end(), kind, add)
    for match in _REFERENCE.finditer(text):
        group = 1 if match.group(1) is not None else 2
        add(match.group(group), match.start(group), LinkKind.REFERENCE)
    for match in _AUTOLINK.finditer(text):
        add(match.group(1), match.start(1), LinkKind.AUTOLINK)
    for match in _HTML_ATTR.finditer(text):
        group = next(g for g in (3, 4, 5) if match.group(g) is not None)
        raw = match.group(group)
        kind = LinkKind.HTML if match.group(2).lower() == "href" else LinkKind.HTML_IMAGE
        add(raw.strip(), match.start(group) + len(raw) - len(raw.lstrip()), kind)
    for match in _BARE.finditer(text):
        if match.start() in found:
            continue
        add(_trim_bare(match.group(0)), match.start(), LinkKind.BARE)
    return [found[start] for start in sorted(found)]


def _add_destination(
    text: str,
    pos: int,
    kind: LinkKind,
    add: Callable[[str, int, LinkKind, str], None],
    *,
    alt: str = "",
) -> None:
    while pos < len(text) and text[pos] in " \t":
        pos += 1
    if pos < len(text) and text[pos] == "<":
        close = text.find(">", pos + 1, pos + 1 + MAX_URL_CHARS)
        if close != -1 and "\n" not in text[pos + 1 : close]:
            add(text[pos + 1 : close], pos + 1, kind, alt)
        return
    match = _DESTINATION.match(text, pos, min(len(text), pos + MAX_URL_CHARS))
    if match:
        add(match.group(0), pos, kind, alt)


def _trim_bare(url: str) -> str:
    """GFM's autolink rule: trailing punctuation is not part of a bare URL, nor is a closing
    parenthesis without an opening one."""
    opened, closed = url.count("("), url.count(")")
    end = len(url)
    while end:
        last = url[end - 1]
        if last == ")" and closed > opened:
            closed -= 1
        elif last not in _TRAILING:
            break
        end -= 1
    return url[:end]


# --- classification ----------------------------------------------------------------------------
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]{0,31}):")
# Not web resources: nothing to fetch, nothing that can be dead.
_NON_WEB_SCHEMES = frozenset({"mailto", "tel", "sms", "callto", "xmpp", "data", "geo", "magnet"})


def is_external_target(url: str) -> bool:
    """True when `url` names another resource by scheme (http, https, and anything the URL guard
    must judge: ftp:, file:, javascript: ...); False for relative links, fragments and
    mailto:/tel:-style targets."""
    target = url.strip()
    if target.startswith("//"):
        return True
    match = _SCHEME.match(target)
    return match is not None and match.group(1).lower() not in _NON_WEB_SCHEMES


def absolute(url: str) -> str:
    """Protocol-relative `//host/x` as `https://host/x`; anything else unchanged."""
    target = url.strip()
    return "https:" + target if target.startswith("//") else target


def normalize(url: str) -> str:
    """The de-duplication key: scheme and host lowercased, host in IDNA (so `bücher.example` and
    `xn--bcher-kva.example` are one URL), fragment dropped."""
    target = absolute(url)
    try:
        parts = urlsplit(target)
        netloc = parts.netloc.lower()
        host = host_of(target)
        if host is not None and parts.hostname and not parts.hostname.isascii():
            netloc = netloc.replace(parts.hostname.lower(), host)
        return urlunsplit((parts.scheme.lower(), netloc, parts.path, parts.query, ""))
    except ValueError:
        return target


def unique(links: Iterable[Link]) -> list[Link]:
    """The first link to each distinct URL (see `normalize`), in order."""
    seen: set[str] = set()
    result: list[Link] = []
    for link in links:
        key = normalize(link.url)
        if key not in seen:
            seen.add(key)
            result.append(link)
    return result


def host_of(url: str) -> str | None:
    try:
        host = urlsplit(absolute(url)).hostname
    except ValueError:
        return None
    if not host:
        return None
    try:
        return host.rstrip(".").encode("idna").decode("ascii").lower()
    except UnicodeError:
        return host.rstrip(".").lower()


def site_hosts(site_url: str, domains: Sequence[str | None]) -> frozenset[str]:
    """The publishing site's host names (from `site_url` and the `site_domain`s given)."""
    hosts: set[str] = set()
    for value in (site_url, *domains):
        if not value:
            continue
        host = host_of(value if "://" in value else "https://" + value.strip())
        if host:
            hosts.add(host.removeprefix("www."))
    return frozenset(hosts)


def own_site(site_url: str, site_domain: str, draft_site_domain: str | None) -> frozenset[str]:
    """The publishing site's hosts for one draft: the settings' `site_url` and `site_domain`
    and the draft's own `site_domain`. The one rule both link reviewers use: links to these (and
    their subdomains, `www.` included) are the site's own, not external links or citations."""
    return site_hosts(site_url, (site_domain, draft_site_domain))


def is_external_link(url: str, own: frozenset[str]) -> bool:
    """A link to another site that could be dead: a web target (`is_external_target`) that is
    not one of the site's own hosts (`own_site`)."""
    return is_external_target(url) and not is_self_link(url, own)


def is_self_link(url: str, hosts: frozenset[str]) -> bool:
    """A link to the site itself or one of its subdomains (`www.` included)."""
    host = host_of(url)
    if host is None or not hosts:
        return False
    bare = host.removeprefix("www.")
    return any(bare == h or bare.endswith("." + h) for h in hosts)
