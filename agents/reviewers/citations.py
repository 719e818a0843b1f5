"""Citation verifier (provider `http_head`): do the sources a draft cites still answer?

Cited URLs are the draft's markdown links (images are not citations) and its research sources,
de-duplicated, without the site's own links (`links.own_site`, shared with the URL verifier).
Each is checked through the URL guard: HEAD, then GET when HEAD answers 405 or 501; 2xx-3xx is
alive, anything else (error status, timeout, DNS failure, refused by the guard,
malformed) is dead. The gate fails when the dead share exceeds `qa_citation_max_dead_ratio` or
fewer than `qa_citation_min_count` URLs are cited (`qa_citation_max_dead_ratio` 0 switches the
ratio check off, as in the seed). Score = 100 x (1 - dead share). Nothing cited and no minimum:
not applicable.

At most `MAX_CHECKED_LINKS` distinct URLs are checked, so a draft with 10,000 links costs the same
bounded time as one with 50; the findings say how many were left unchecked.
"""

from __future__ import annotations

from agents import links
from agents.base import Deps, ReviewerSpec, not_applicable
from agents.net import UrlCheck, client_for
from agents.settings import Settings
from schemas.records import DraftSubmitted, Finding, Provider, ReviewerResult, Severity, Span

NAME = "citations"
PROVIDER = Provider.HTTP_HEAD


def cited_urls(
    draft: DraftSubmitted, settings: Settings | None = None
) -> list[tuple[str, Span | None]]:
    """Distinct cited URLs in order (research sources first), each with where it appears in the
    content (None for a research source the content does not link). The site's own links are
    not citations (`links.own_site`, the rule the URL verifier uses too)."""
    settings = settings or Settings()
    own = links.own_site(settings.site_url, settings.site_domain, draft.site_domain)
    candidates: list[links.Link] = []
    for source in draft.research_sources:
        text = source.strip() if isinstance(source, str) else ""
        if text.lower().startswith("www."):
            text = "https://" + text
        if text and links.is_external_link(text, own):
            candidates.append(links.Link(text, -1, -1, links.LinkKind.REFERENCE))
    candidates += [
        link
        for link in links.extract_links(draft.content)
        if not link.is_image and links.is_external_link(link.url, own)
    ]
    spans: dict[str, Span] = {}
    for link in candidates:
        if link.start >= 0:
            spans.setdefault(links.normalize(link.url), link.span)
    return [(link.url, spans.get(links.normalize(link.url))) for link in links.unique(candidates)]


async def review(draft: DraftSubmitted, settings: Settings, deps: Deps) -> ReviewerResult:
    cited = cited_urls(draft, settings)
    min_count = settings.qa_citation_min_count
    if not cited:
        if min_count > 0:
            message = f"no cited URLs; at least {min_count} required"
            finding = Finding("too_few_citations", Severity.WARNING, message)
            return ReviewerResult(NAME, False, 0.0, message, PROVIDER, findings=(finding,))
        return not_applicable(NAME, PROVIDER, "no cited URLs to verify")

    to_check = cited[: links.MAX_CHECKED_LINKS]
    async with client_for(deps.http, settings) as http:
        checks = await http.check_many(
            [links.absolute(url) for url, _ in to_check],
            concurrency=settings.qa_citation_concurrency,
        )

    findings: list[Finding] = []
    dead: list[UrlCheck] = []
    for (url, span), check in zip(to_check, checks, strict=True):
        if not check.ok:
            dead.append(check)
            findings.append(
                Finding(
                    "dead_citation", Severity.WARNING, f"{url} is dead ({check.reason()})", span
                )
            )
    unchecked = len(cited) - len(to_check)
    if unchecked:
        findings.append(
            Finding(
                "citations_not_checked",
                Severity.INFO,
                f"{unchecked} of {len(cited)} cited URLs were not checked "
                f"(at most {links.MAX_CHECKED_LINKS} per draft)",
            )
        )
    ratio = len(dead) / len(checks)
    too_few = len(cited) < min_count
    if too_few:
        findings.append(
            Finding(
                "too_few_citations",
                Severity.WARNING,
                f"{len(cited)} cited URLs; at least {min_count} required",
            )
        )
    # 0 switches the ratio check off, as in the seed (its doc in agents/settings.py).
    limit = settings.qa_citation_max_dead_ratio
    too_dead = limit > 0 and ratio > limit
    approved = not too_dead and not too_few
    feedback = f"{len(dead)} of {len(checks)} checked citations dead ({ratio:.0%}, " + (
        f"limit {limit:.0%})" if limit > 0 else "ratio check off)"
    )
    if too_few:
        feedback += f"; {len(cited)} cited, {min_count} required"
    if unchecked:
        feedback += f"; {unchecked} not checked"
    return ReviewerResult(
        NAME,
        approved,
        round(100.0 * (1.0 - ratio), 2),
        feedback,
        PROVIDER,
        findings=tuple(findings),
    )


SPECS = (
    ReviewerSpec(
        name=NAME,
        provider=PROVIDER,
        review=review,
        enabled=lambda s: s.qa_citation_verify_enabled,
    ),
)
