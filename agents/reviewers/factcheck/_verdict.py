"""Judging one claim against search snippets: VERIFIED, CONTRADICTED or UNVERIFIED.

- CONTRADICTED: the snippets give the claim's subject a different value in the same dimension
  (the claim says 24GB for the RTX 5090, snippets say 32GB for the RTX 5090) and never the
  claimed one. Values are tied to the nearest subject in each snippet sentence, so "32GB, up from
  24GB on the RTX 4090" supports 32GB for the 5090 and says nothing about it being 24GB.
- VERIFIED: at least `qa_web_factcheck_match_ratio` of the claim's key terms appear in the
  snippets, and every value the claim states is among them. Key terms are words longer than
  `qa_web_factcheck_min_term_len`, and every number whatever its length ("PostgreSQL 18" must
  find "18"): without the value rule, "RTX 5090 with 48GB" would pass on "rtx" and "5090" alone.
- UNVERIFIED: anything else (no evidence either way).
"""

from __future__ import annotations

import enum
import re
from collections.abc import Sequence
from dataclasses import dataclass

from agents.reviewers.factcheck._claims import Claim
from agents.reviewers.factcheck._entities import (
    NAMED,
    Mention,
    Quantity,
    associate,
    find_mentions,
    find_quantities,
    sentences,
)
from agents.reviewers.factcheck._search import SearchResult
from agents.settings import Settings


class Verdict(enum.StrEnum):
    VERIFIED = "VERIFIED"
    CONTRADICTED = "CONTRADICTED"
    UNVERIFIED = "UNVERIFIED"


@dataclass(frozen=True, slots=True)
class Judgement:
    claim: Claim
    verdict: Verdict
    matched_terms: int
    total_terms: int
    detail: str
    evidence_url: str = ""


_STOPWORD_TEXT = """a an and are as at be by for from has have in is it its of on or that the this
to was were will with which who what when new now also just than then over up into out about more
most all any can had not but per via"""
_STOPWORDS = frozenset(_STOPWORD_TEXT.split())
_UNIT_GAP = re.compile(r"(\d)\s+(tb|gb|mb|gib|ghz|mhz|kw|w|b|k|m)\b")
_TOKEN = re.compile(r"[a-z0-9]+(?:\.[0-9]+)*")
# DuckDuckGo snippets often start with their page's date ("Jan 30, 2025 — ..."), which is no
# statement about the subject.
_SNIPPET_DATE = re.compile(
    r"^\s*(?:[A-Z][a-z]{2,8}\.? \d{1,2}, \d{4}|\d+ (?:minutes?|hours?|days?|weeks?) ago)"
    r"\s*[\u2014\u2013\-\u00b7|:]\s*"
)


def key_terms(text: str, min_len: int) -> list[str]:
    """Distinct lowercase terms of `text`: numbers glued to their unit ("24 GB" -> "24gb"),
    stopwords dropped, words longer than `min_len` and every term with a digit kept."""
    normal = _UNIT_GAP.sub(r"\1\2", text.lower().replace(",", "").replace("$", " "))
    terms: list[str] = []
    for token in _TOKEN.findall(normal):
        if token in _STOPWORDS or token in terms:
            continue
        if len(token) > min_len or any(c.isdigit() for c in token):
            terms.append(token)
    return terms


def judge(claim: Claim, results: Sequence[SearchResult], settings: Settings) -> Judgement:
    limit = settings.qa_web_factcheck_snippet_chars
    snippets = [(r, _SNIPPET_DATE.sub("", r.snippet[:limit])) for r in results]
    terms = key_terms(claim.text, settings.qa_web_factcheck_min_term_len)
    haystack = set(key_terms(" ".join(f"{r.title} {body}" for r, body in snippets), 0))
    matched = sum(1 for t in terms if t in haystack)

    supported: set[int] = set()
    if claim.subject:
        for index, wanted in enumerate(claim.quantities):
            support, conflict = _evidence(claim, wanted, snippets)
            if support:
                supported.add(index)
            elif conflict is not None:
                found, url = conflict
                return Judgement(
                    claim,
                    Verdict.CONTRADICTED,
                    matched,
                    len(terms),
                    f"search results give {found.text} for {claim.subject}, not {wanted.text}",
                    url,
                )

    values_seen = all(
        index in supported or set(key_terms(q.text, 0)) <= haystack
        for index, q in enumerate(claim.quantities)
    )
    ratio = matched / len(terms) if terms else 0.0
    if terms and ratio >= settings.qa_web_factcheck_match_ratio and values_seen:
        url = next((r.url for r, _ in snippets if r.url), "")
        detail = f"{matched} of {len(terms)} key terms found in search results"
        return Judgement(claim, Verdict.VERIFIED, matched, len(terms), detail, url)
    detail = f"{matched} of {len(terms)} key terms found in search results"
    if not values_seen:
        detail += "; the stated values were not"
    return Judgement(claim, Verdict.UNVERIFIED, matched, len(terms), detail)


def _evidence(
    claim: Claim, wanted: Quantity, snippets: list[tuple[SearchResult, str]]
) -> tuple[int, tuple[Quantity, str] | None]:
    """(how many snippet values agree with `wanted`, the first disagreeing value and its URL)
    among values the snippets tie to the claim's subject."""
    assert claim.subject is not None
    support = 0
    conflict: tuple[Quantity, str] | None = None
    for result, body in snippets:
        title_mentions = _subject_mentions(claim, result.title)
        title_is_subject = bool(title_mentions) and {m.key for m in title_mentions} == {
            claim.subject
        }
        for start, end in sentences(body):
            sentence = body[start:end]
            mentions = _subject_mentions(claim, sentence)
            if not mentions:
                if not title_is_subject:
                    continue
                # A snippet like "...comes with 32GB of GDDR7" under a title naming only the
                # subject is about the subject.
                mentions = [Mention(claim.subject, title_mentions[0].kind, -(10**6), -(10**6))]
            owned = associate(mentions, find_quantities(sentence, mentions))
            for found in owned.get(claim.subject, ()):
                if found.dimension != wanted.dimension:
                    continue
                if found.agrees(wanted):
                    support += 1
                elif conflict is None:
                    conflict = (found, result.url)
    return support, conflict


def _subject_mentions(claim: Claim, text: str) -> list[Mention]:
    """Product mentions in `text`, plus literal occurrences of a named (non-product) subject."""
    mentions = find_mentions(text)
    if claim.kind == NAMED and claim.subject:
        pattern = r"\b" + re.escape(claim.subject) + r"\b"
        for match in re.finditer(pattern, text, re.IGNORECASE):
            mentions.append(Mention(claim.subject, NAMED, match.start(), match.end()))
    return mentions
