"""Which claims in a draft are worth a web search.

Claims come from sources, each `async (draft, settings, deps) -> claims`, tried in order:
1. every `known_wrong_fact` the validator raises on this draft (its exact span, so a verdict can
   clear it: see agents.aggregate);
2. claims extracted from the prose: hardware with specs ("RTX 5090 with 32GB"), model names and
   sizes ("Llama 3.1 405B"), software versions ("PostgreSQL 18"), dated events ("launched in
   January 2025"), most specific first.
Adding a source is one entry in `CLAIM_SOURCES`.
"""

from __future__ import annotations

import asyncio
import bisect
import dataclasses
import logging
import re
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from agents import links
from agents.base import Deps
from agents.markdown import mask_code_and_comments
from agents.reviewers.factcheck._entities import (
    EVENT_WORDS,
    MODEL,
    NAMED,
    SOFTWARE,
    Mention,
    Quantity,
    associate,
    find_mentions,
    find_quantities,
    sentences,
)
from agents.settings import Settings
from schemas.records import DraftSubmitted, Finding, Span

log = logging.getLogger(__name__)

KNOWN_WRONG_FACT = "known_wrong_fact"
# Claims are looked for in the first this-many characters; only a handful are checked anyway.
_SCAN_CHARS = 200_000
_MAX_SENTENCE_CHARS = 1000
# Above this size the CPU work runs in a worker thread, so it cannot stall the event loop.
_THREAD_ABOVE_CHARS = 50_000
_MAX_QUERY_CHARS = 200
_NAMED_SUBJECT = re.compile(r"\b[A-Z][\w.+-]*[A-Za-z0-9+](?:\s+[A-Z0-9][\w.+-]*){0,3}")
_NOT_SUBJECTS = frozenset(
    {
        "the",
        "a",
        "an",
        "in",
        "on",
        "it",
        "this",
        "that",
        "our",
        "we",
        "they",
        "its",
        "their",
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
        "when",
        "after",
        "before",
        "since",
        "then",
        "finally",
    }
)


@dataclass(frozen=True, slots=True)
class Claim:
    """A checkable statement. `subject` is the product/entity key it is about (None when the
    text names none), `quantities` the values it states about it."""

    text: str
    span: Span | None
    kind: str
    subject: str | None
    quantities: tuple[Quantity, ...]
    query: str
    specificity: int
    note: str = ""  # for known_wrong_fact: the validator's message (with the correction)


def extract_claims(content: str) -> list[Claim]:
    """Claims in `content`, most specific first (then in document order)."""
    text = _prose(content[:_SCAN_CHARS])
    # Every pattern runs once over the whole text (not once per sentence), then the matches are
    # grouped by sentence: the cost stays a few regex passes however many sentences there are.
    bounds = [b for b in sentences(text) if b[1] - b[0] <= _MAX_SENTENCE_CHARS]
    starts = [b[0] for b in bounds]
    all_mentions = find_mentions(text)
    mentions_in = _group(all_mentions, bounds, starts)
    quantities_in = _group(find_quantities(text, all_mentions, dates=True), bounds, starts)
    found: list[Claim] = []
    seen: set[tuple[str | None, tuple[tuple[str, float], ...]]] = set()
    for index, (s_start, s_end) in enumerate(bounds):
        mentions = mentions_in.get(index, [])
        quantities = quantities_in.get(index, [])
        if not mentions and not quantities:
            continue
        sentence = text[s_start:s_end]
        if not EVENT_WORDS.search(sentence):
            quantities = [q for q in quantities if q.dimension != "date"]
        local_mentions = [_shift(m, -s_start) for m in mentions]
        if not local_mentions and quantities:
            local_mentions = _named_event_subject(sentence)
        local_quantities = [_shift(q, -s_start) for q in quantities]
        owned = associate(local_mentions, local_quantities)
        for mention in _first_per_key(local_mentions):
            values = tuple(owned.get(mention.key, ()))
            if mention.kind == NAMED and not values:
                continue
            identity = (mention.key, tuple(sorted((q.dimension, q.value) for q in values)))
            if identity in seen:
                continue
            seen.add(identity)
            found.append(_claim(content, s_start, sentence, mention, values))
    return sorted(found, key=lambda c: (-c.specificity, c.span.start if c.span else 0))


_Located = TypeVar("_Located", Mention, Quantity)


def _group(
    items: list[_Located], bounds: list[tuple[int, int]], starts: list[int]
) -> dict[int, list[_Located]]:
    """Items by the index of the sentence that wholly contains them."""
    grouped: dict[int, list[_Located]] = {}
    for item in items:
        index = bisect.bisect_right(starts, item.start) - 1
        if index >= 0 and item.end <= bounds[index][1]:
            grouped.setdefault(index, []).append(item)
    return grouped


def _shift(item: _Located, by: int) -> _Located:
    return dataclasses.replace(item, start=item.start + by, end=item.end + by)


def claims_from_findings(findings: Iterable[Finding]) -> list[Claim]:
    """The validator's `known_wrong_fact` findings as claims, spans kept exactly."""
    claims: list[Claim] = []
    for finding in findings:
        if finding.code != KNOWN_WRONG_FACT or finding.span is None or not finding.span.text:
            continue
        text = finding.span.text
        mentions = find_mentions(text)
        owned = associate(mentions, find_quantities(text, mentions))
        subject = mentions[0].key if mentions else None
        values = tuple(owned.get(subject, ())) if subject else ()
        claims.append(
            Claim(
                text=text,
                span=finding.span,
                kind=KNOWN_WRONG_FACT,
                subject=subject,
                quantities=values,
                query=_query(text),
                specificity=1000,
                note=finding.message,
            )
        )
    return claims


# --- sources -----------------------------------------------------------------------------------
ClaimSource = Callable[[DraftSubmitted, Settings, Deps], Awaitable[Sequence[Claim]]]


async def known_wrong_fact_claims(
    draft: DraftSubmitted, settings: Settings, deps: Deps
) -> Sequence[Claim]:
    """The validator's known-wrong-fact rule, with the facts the validator itself uses: that one
    rule of the validator's (same masking, same windows), not a second run of all its rules."""
    from agents.facts import load_facts
    from agents.reviewers.validator import validate

    if deps.facts is not None:
        facts = tuple(deps.facts)
    elif deps.pool is not None:
        try:
            facts = await load_facts(deps.pool)
        except Exception as exc:  # no facts, no known-wrong claims: the rest still runs
            log.warning("fact_overrides could not be loaded: %s", exc)
            return ()
    else:
        return ()
    if not facts:
        return ()

    def run() -> list[Claim]:
        report = validate(
            draft.content,
            title=draft.title,
            settings=settings,
            facts=facts,
            niche=draft.niche,
            only=(KNOWN_WRONG_FACT,),
        )
        return claims_from_findings(report.findings)

    if len(draft.content) > _THREAD_ABOVE_CHARS:
        return await asyncio.to_thread(run)
    return run()


async def extracted_claims(
    draft: DraftSubmitted, settings: Settings, deps: Deps
) -> Sequence[Claim]:
    if len(draft.content) > _THREAD_ABOVE_CHARS:
        return await asyncio.to_thread(extract_claims, draft.content)
    return extract_claims(draft.content)


CLAIM_SOURCES: tuple[ClaimSource, ...] = (known_wrong_fact_claims, extracted_claims)


async def gather_claims(
    draft: DraftSubmitted,
    settings: Settings,
    deps: Deps,
    sources: Sequence[ClaimSource] = CLAIM_SOURCES,
) -> list[Claim]:
    """Claims from every source in order, a later claim dropped when it overlaps an earlier one,
    at most `qa_web_factcheck_max_claims`."""
    chosen: list[Claim] = []
    for source in sources:
        for claim in await source(draft, settings, deps):
            if len(chosen) >= settings.qa_web_factcheck_max_claims:
                return chosen
            if any(_overlaps(claim, other) for other in chosen):
                continue
            chosen.append(claim)
    return chosen


# --- helpers -----------------------------------------------------------------------------------
def _prose(content: str) -> str:
    """Code and link destinations blanked (same offsets): `rtx-5090-24gb` in a URL is no claim."""
    text = mask_code_and_comments(content)
    chars = list(text)
    for link in links.extract_links(content):
        for i in range(link.start, min(link.end, len(chars))):
            chars[i] = " "
    return "".join(chars)


def _named_event_subject(sentence: str) -> list[Mention]:
    """For "Foo Bar was released in March 2025": the capitalised name as the subject."""
    if not EVENT_WORDS.search(sentence):
        return []
    for match in _NAMED_SUBJECT.finditer(sentence):
        words = match.group(0).split()
        while words and words[0].lower() in _NOT_SUBJECTS:
            words.pop(0)
        if words:
            start = match.start() + match.group(0).index(words[0])
            name = " ".join(words)
            return [Mention(name.lower(), NAMED, start, start + len(name))]
    return []


def _first_per_key(mentions: list[Mention]) -> list[Mention]:
    seen: set[str] = set()
    first: list[Mention] = []
    for mention in mentions:
        if mention.key not in seen:
            seen.add(mention.key)
            first.append(mention)
    return first


def _claim(
    content: str, offset: int, sentence: str, mention: Mention, values: tuple[Quantity, ...]
) -> Claim:
    start = min([mention.start, *(q.start for q in values)])
    end = max([mention.end, *(q.end for q in values)])
    text = content[offset + start : offset + end]
    surface = sentence[mention.start : mention.end]
    parts = [surface, *(q.text for q in values)]
    if mention.kind == NAMED:
        event = EVENT_WORDS.search(sentence)
        parts.insert(1, event.group(0) if event else "")
    specificity = 1 + 2 * len(values) + (0 if mention.kind in (SOFTWARE, NAMED) else 1)
    if mention.kind == MODEL and any(q.dimension == "params" for q in values):
        specificity += 1
    return Claim(
        text=text,
        span=Span(offset + start, offset + end, text),
        kind=mention.kind,
        subject=mention.key,
        quantities=values,
        query=_query(" ".join(p for p in parts if p)),
        specificity=specificity,
    )


def _query(text: str) -> str:
    return " ".join(text.split())[:_MAX_QUERY_CHARS]


def _overlaps(a: Claim, b: Claim) -> bool:
    if a.span is None or b.span is None:
        return False
    return a.span.start < b.span.end and b.span.start < a.span.end
