"""URL verifier (provider `url_verifier`): every external link in the draft must resolve.

External links are the content's links (not images: the vision gate fetches those) whose host is
not the publishing site (`links.own_site`: `site_url`, `site_domain`, the draft's own
`site_domain`, subdomains and `www.` included; the citation verifier uses the same rule). Each is
checked through the URL guard.

- Dead: the server answers >= 400 (or loops redirects), the guard refuses the address (a reader
  cannot reach an internal address either), or the URL is malformed. Each dead link costs 20
  points, score max(0, 100 - 20 x dead), the reviewer fails and carries a veto ("2 dead links");
  `qa_required_to_pass` lists `urls` by default, so dead links block publishing.
- Unreachable right now (timeout, DNS failure, connection error): a warning, not a death: the
  next run may well reach it.
- No dead links: score min(100, 80 + 5 x external links checked).
- No external links at all: not applicable (no score; it stays out of the mean).

At most `links.MAX_CHECKED_LINKS` distinct URLs are checked; the findings say how many were not.
"""

from __future__ import annotations

from agents import links
from agents.base import Deps, ReviewerSpec, not_applicable
from agents.net import ErrorKind, client_for
from agents.settings import Settings
from schemas.records import DraftSubmitted, Finding, Provider, ReviewerResult, Severity

NAME = "urls"
PROVIDER = Provider.URL_VERIFIER
DEAD_LINK_PENALTY = 20.0

# Outcomes that say nothing about the link itself, only about this attempt to reach it.
_TRANSIENT = frozenset({ErrorKind.TIMEOUT, ErrorKind.DNS, ErrorKind.NETWORK})


def external_links(draft: DraftSubmitted, settings: Settings) -> list[links.Link]:
    """The draft's distinct external links, first occurrence of each, in document order."""
    own = links.own_site(settings.site_url, settings.site_domain, draft.site_domain)
    return links.unique(
        link
        for link in links.extract_links(draft.content)
        if not link.is_image and links.is_external_link(link.url, own)
    )


async def review(draft: DraftSubmitted, settings: Settings, deps: Deps) -> ReviewerResult:
    external = external_links(draft, settings)
    if not external:
        return not_applicable(NAME, PROVIDER, "no external links to verify")
    to_check = external[: links.MAX_CHECKED_LINKS]
    findings: list[Finding] = []
    dead = 0
    async with client_for(deps.http, settings) as http:
        urls = [links.absolute(link.url) for link in to_check]
        checks = await http.check_many(urls, concurrency=settings.qa_citation_concurrency)
    for link, check in zip(to_check, checks, strict=True):
        if check.ok:
            continue
        if check.error_kind in _TRANSIENT:
            message = f"{link.url} could not be reached ({check.reason()})"
            findings.append(Finding("link_unreachable", Severity.WARNING, message, link.span))
        else:
            dead += 1
            message = f"{link.url} is dead ({check.reason()})"
            findings.append(Finding("dead_link", Severity.CRITICAL, message, link.span))
    unchecked = len(external) - len(to_check)
    if unchecked:
        findings.append(
            Finding(
                "links_not_checked",
                Severity.INFO,
                f"{unchecked} of {len(external)} external links were not checked "
                f"(at most {links.MAX_CHECKED_LINKS} per draft)",
            )
        )
    unreachable = sum(1 for f in findings if f.code == "link_unreachable")
    if dead:
        veto = f"{dead} dead link{'s' if dead != 1 else ''}"
        score = max(0.0, 100.0 - DEAD_LINK_PENALTY * dead)
        feedback = f"{veto} among {len(to_check)} external links checked"
    else:
        veto = None
        score = min(100.0, 80.0 + 5.0 * len(to_check))
        feedback = f"all {len(to_check)} external links resolve"
    if unreachable:
        feedback += f"; {unreachable} could not be reached (not counted as dead)"
    if unchecked:
        feedback += f"; {unchecked} not checked"
    return ReviewerResult(
        NAME, dead == 0, score, feedback, PROVIDER, findings=tuple(findings), veto=veto
    )


SPECS = (
    ReviewerSpec(
        name=NAME,
        provider=PROVIDER,
        review=review,
        enabled=lambda s: s.qa_url_verify_enabled,
    ),
)
