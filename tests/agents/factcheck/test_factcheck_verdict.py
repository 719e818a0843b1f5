"""Verdicts on fixed snippets: verified, contradicted, unverified, and the near misses."""

from __future__ import annotations

import pytest

from agents.reviewers.factcheck import SearchResult, Verdict, extract_claims, judge, key_terms
from agents.settings import Settings

S = Settings()


def claim(text: str):
    (only,) = extract_claims(text)
    return only


def hit(snippet: str, title: str = "Search result", url: str = "https://example.com/r"):
    return SearchResult(title, url, snippet)


def test_key_terms():
    assert key_terms("The RTX 5090 with 24 GB of GDDR7 costs $1,999", 2) == [
        "rtx",
        "5090",
        "24gb",
        "gddr7",
        "costs",
        "1999",
    ]
    # numbers count whatever their length; short words do not
    assert key_terms("PostgreSQL 18 is on PG", 2) == ["postgresql", "18"]


def test_contradicted_when_snippets_give_another_value_for_the_same_product():
    j = judge(
        claim("The RTX 5090 comes with 24GB of GDDR7."),
        [hit("NVIDIA's GeForce RTX 5090 features 32GB of GDDR7 memory.", url="https://n.example")],
        S,
    )
    assert j.verdict is Verdict.CONTRADICTED
    assert j.detail == "search results give 32GB for rtx 5090, not 24GB"
    assert j.evidence_url == "https://n.example"


def test_a_value_of_another_product_is_not_a_contradiction():
    """24GB is right for the 4090; the snippet's 32GB belongs to the 5090 next to it."""
    j = judge(
        claim("The RTX 4090 has 24GB of GDDR6X."),
        [hit("The RTX 5090 has 32GB, up from 24GB on the RTX 4090 with GDDR6X.")],
        S,
    )
    assert j.verdict is Verdict.VERIFIED


def test_verified_when_terms_and_values_are_found():
    j = judge(
        claim("The RTX 5090 comes with 32GB of GDDR7."),
        [hit("The GeForce RTX 5090 ships with 32 GB of GDDR7 memory.", url="https://n.example")],
        S,
    )
    assert (j.verdict, j.evidence_url) == (Verdict.VERIFIED, "https://n.example")


def test_snippet_under_a_title_naming_only_the_subject_is_about_it():
    j = judge(
        claim("The RTX 5090 comes with 24GB of GDDR7."),
        [hit("Blackwell, and comes with 32GB of GDDR7 memory.", title="GeForce RTX 5090 | NVIDIA")],
        S,
    )
    assert j.verdict is Verdict.CONTRADICTED


def test_unverified_when_the_value_is_nowhere():
    """ "rtx" and "5090" alone would make 2 of 3 terms (>= 0.6): the stated value must be seen."""
    j = judge(claim("The RTX 5090 comes with 48GB."), [hit("The RTX 5090 is fast and loud.")], S)
    assert j.verdict is Verdict.UNVERIFIED
    assert "values were not" in j.detail


def test_unverified_when_too_few_terms_match():
    j = judge(claim("We upgraded to PostgreSQL 18."), [hit("MySQL 9 is out.")], S)
    assert (j.verdict, j.matched_terms, j.total_terms) == (Verdict.UNVERIFIED, 0, 2)


def test_no_results_is_unverified():
    assert judge(claim("The H100 has 80GB."), [], S).verdict is Verdict.UNVERIFIED


def test_mixed_evidence_is_not_a_contradiction():
    j = judge(
        claim("The RTX 5090 comes with 32GB."),
        [hit("Early rumours gave the RTX 5090 28GB."), hit("The RTX 5090 has 32GB of GDDR7.")],
        S,
    )
    assert j.verdict is Verdict.VERIFIED


def test_different_product_variant_is_not_the_same_subject():
    j = judge(claim("The RTX 5080 has 16GB."), [hit("The RTX 5080 Super may get 24GB.")], S)
    assert j.verdict is not Verdict.CONTRADICTED


@pytest.mark.parametrize(
    ("text", "snippet", "verdict"),
    [
        (
            "Python 3.14 was released in October 2025.",
            "Python 3.14.0 final was released on October 7, 2025.",
            Verdict.VERIFIED,
        ),
        (
            "Python 3.14 was released in October 2024.",
            "Python 3.14 was released on October 7, 2025.",
            Verdict.CONTRADICTED,
        ),
        (
            "Apple Intelligence was announced in June 2023.",
            "Apple Intelligence was announced at WWDC in June 2024.",
            Verdict.CONTRADICTED,
        ),
        (
            "The Arc B580 costs $249.",
            "Intel Arc B580 launched at $249 in December 2024.",
            Verdict.VERIFIED,
        ),
        (
            "DeepSeek-R1 has 671 billion parameters.",
            "DeepSeek-R1 is a 671B parameter mixture-of-experts model.",
            Verdict.UNVERIFIED,  # "671b" vs "671 billion": the words differ, no value stated
        ),
        (
            "We ran Llama 3.1 405B.",
            "Meta released Llama 3.1 in 8B, 70B and 405B sizes.",
            Verdict.VERIFIED,
        ),
        (
            "We ran Llama 3.1 450B.",
            "Llama 3.1 405B is the largest openly available model.",
            Verdict.CONTRADICTED,
        ),
    ],
)
def test_dates_prices_and_sizes(text, snippet, verdict):
    assert judge(claim(text), [hit(snippet)], S).verdict is verdict


def test_snippet_publication_date_is_not_a_release_date():
    j = judge(
        claim("PostgreSQL 18 was released in September 2025."),
        [hit("Jan 3, 2026 — PostgreSQL 18 was released in September 2025 with async I/O.")],
        S,
    )
    assert j.verdict is Verdict.VERIFIED


def test_match_ratio_setting_changes_the_verdict():
    c = claim("Apple Intelligence was announced in June 2024.")
    results = [hit("Apple Intelligence arrived in June 2024 on iPhone 15 Pro.")]
    # apple, intelligence, june, 2024 found; announced not: 4 of 5
    assert judge(c, results, S).verdict is Verdict.VERIFIED
    assert judge(c, results, Settings(qa_web_factcheck_match_ratio=1.0)).verdict is (
        Verdict.UNVERIFIED
    )


def test_min_term_len_setting_drops_short_words_but_not_numbers():
    assert key_terms("Apple Intelligence in June 2024", 5) == ["intelligence", "2024"]


def test_snippet_chars_limit_what_is_read():
    c = claim("The RTX 5090 comes with 24GB.")
    long = hit("x" * 600 + " The RTX 5090 has 32GB.")
    assert judge(c, [long], S).verdict is Verdict.UNVERIFIED
    wide = Settings(qa_web_factcheck_snippet_chars=1000)
    assert judge(c, [long], wide).verdict is Verdict.CONTRADICTED
