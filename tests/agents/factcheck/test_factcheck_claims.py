"""Claim extraction: what is worth a search, where it is, most specific first."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agents.base import Deps
from agents.facts import FactOverride
from agents.reviewers.factcheck import claims_from_findings, extract_claims, gather_claims
from agents.settings import Settings
from schemas.records import DraftSubmitted, Finding, Severity, Span


def by_subject(content: str) -> dict[str | None, list[str]]:
    return {c.subject: [q.text for q in c.quantities] for c in extract_claims(content)}


def test_hardware_with_specs():
    claims = extract_claims("The GeForce RTX 5090 ships with 32GB of GDDR7 and a 575W TDP.")
    (claim,) = claims
    assert (claim.kind, claim.subject) == ("hardware", "rtx 5090")
    assert [(q.dimension, q.value) for q in claim.quantities] == [
        ("memory", 32.0),
        ("power", 575.0),
    ]
    assert claim.text == "RTX 5090 ships with 32GB of GDDR7 and a 575W"
    assert claim.query == "RTX 5090 32GB 575W"


@pytest.mark.parametrize(
    ("sentence", "subject", "values"),
    [
        (
            "The Ryzen 9 9950X3D has 16 cores at up to 5.7 GHz.",
            "ryzen 9950x3d",
            ["16 cores", "5.7 GHz"],
        ),
        ("AMD's Radeon RX 9070 XT has 16 GB of memory.", "rx 9070 xt", ["16 GB"]),
        ("Intel's Core Ultra 9 285K draws 250W.", "core ultra 285k", ["250W"]),
        ("The Arc B580 costs $249.", "arc b580", ["$249"]),
        ("An H200 carries 141GB of HBM3e at 4.8 TB/s.", "h200", ["141GB", "4.8 TB/s"]),
        ("The Apple M4 Max supports 128GB.", "m4 max", ["128GB"]),
        ("We ran Llama 3.1 405B locally.", "llama 3.1", ["405B"]),
        ("We ran gemma3:27b locally.", "gemma 3", ["27b"]),
        ("DeepSeek-R1 has 671 billion parameters.", "deepseek r1", ["671 billion parameters"]),
        ("Gemini 2.5 Pro has a 1000K token window.", "gemini 2.5 pro", ["1000K token"]),
        ("PostgreSQL 18 came out in September 2025.", "postgresql 18", ["September 2025"]),
        ("Python 3.14 was released on October 7, 2025.", "python 3.14", ["October 7, 2025"]),
    ],
)
def test_claim_families(sentence, subject, values):
    assert by_subject(sentence)[subject] == values


def test_software_versions_and_models_without_values_are_claims_too():
    claims = by_subject("We upgraded to PostgreSQL 18 and Python 3.14, then tried Claude Opus 4.")
    assert claims == {"postgresql 18": [], "python 3.14": [], "claude opus 4": []}


def test_dated_event_about_a_named_subject():
    (claim,) = extract_claims("Apple Intelligence was announced in June 2024.")
    assert (claim.kind, claim.subject, claim.text) == (
        "named",
        "apple intelligence",
        "Apple Intelligence was announced in June 2024",
    )
    assert claim.query == "Apple Intelligence announced June 2024"


def test_values_go_to_the_nearest_subject():
    claims = by_subject("The RTX 5090 has 32GB, up from 24GB on the RTX 4090.")
    assert claims == {"rtx 5090": ["32GB"], "rtx 4090": ["24GB"]}


def test_most_specific_first_and_spans_point_into_the_content():
    content = (
        "Intro.\n\nWe use Python 3.14 here. The RTX 5080 has 16GB.\n"
        "The GeForce RTX 5090 has 32GB of GDDR7, 21760 CUDA cores and a 575W TDP."
    )
    claims = extract_claims(content)
    assert [c.subject for c in claims] == ["rtx 5090", "rtx 5080", "python 3.14"]
    for claim in claims:
        assert claim.span is not None
        assert content[claim.span.start : claim.span.end] == claim.text == claim.span.text


def test_code_and_urls_are_not_claims():
    content = (
        "```\nRTX 5090 with 24GB\n```\n`Python 2.7 released in 2000`\n"
        "See [specs](https://example.com/rtx-4090-24gb-review) and https://x.example/h100-80gb."
    )
    assert extract_claims(content) == []


def test_duplicates_are_one_claim():
    content = "The RTX 5090 has 32GB. Really, the RTX 5090 has 32GB!"
    assert len(extract_claims(content)) == 1


KWF = Finding(
    "known_wrong_fact",
    Severity.CRITICAL,
    "known wrong: the RTX 5090 has 32GB",
    Span(4, 22, "RTX 5090 with 24GB"),
)


def test_known_wrong_fact_findings_keep_their_span():
    (claim,) = claims_from_findings(
        [
            KWF,
            Finding("filler", Severity.WARNING, "x", Span(0, 1, "x")),
            Finding("known_wrong_fact", Severity.CRITICAL, "no span"),
        ]
    )
    assert claim.span is KWF.span
    assert (claim.kind, claim.subject, [q.text for q in claim.quantities]) == (
        "known_wrong_fact",
        "rtx 5090",
        ["24GB"],
    )
    assert claim.note == KWF.message


async def test_gather_puts_known_wrong_facts_first_and_caps():
    content = (
        "The RTX 5090 with 24GB is fast. The RX 9070 XT has 16GB. Python 3.14 is out. "
        "The H100 has 80GB."
    )
    draft = DraftSubmitted("d", 1, "T", content)
    facts = [FactOverride.build(r"RTX 5090 with 24GB", "the RTX 5090 has 32GB")]
    claims = await gather_claims(draft, Settings(), Deps(facts=facts))
    assert [c.kind for c in claims] == ["known_wrong_fact", "hardware", "hardware"]
    assert claims[0].span == Span(4, 22, "RTX 5090 with 24GB")
    # the extracted "RTX 5090 with 24GB" overlaps the known-wrong fact and is dropped
    assert [c.subject for c in claims[1:]] == ["rx 9070 xt", "h100"]
    more = await gather_claims(draft, Settings(qa_web_factcheck_max_claims=10), Deps(facts=facts))
    assert len(more) == 4
    none = await gather_claims(draft, Settings(), Deps())
    assert all(c.kind != "known_wrong_fact" for c in none)


@pytest.mark.timeout(30)
@pytest.mark.parametrize(
    "content",
    [
        "",
        "\x00\x01" * 1000,
        "RTX " * 100_000,
        "5090 GB " * 100_000,
        "$" * 200_000,
        "released in " * 50_000,
        ("The RTX 5090 has 32GB. " * 20_000),
        "A" * 500_000,
        "Ｒ Ｔ Ｘ ５０９０ 中文 العربية " * 10_000,  # noqa: RUF001
    ],
)
def test_bad_input_gives_claims_or_nothing(content):
    claims = extract_claims(content)
    assert all(c.span is None or c.text == content[c.span.start : c.span.end] for c in claims)


VOCAB = [
    "RTX",
    "rtx5090",
    "5090",
    "Ti",
    "GeForce",
    "Ryzen",
    "9",
    "9950X3D",
    "Core",
    "Ultra",
    "i9-14900K",
    "Llama",
    "3.1",
    "405B",
    "gemma3:27b",
    "Claude",
    "Opus",
    "4",
    "PostgreSQL",
    "18",
    "Node.js",
    "22",
    "H100",
    "MI300X",
    "Apple",
    "M4",
    "Max",
    "32GB",
    "24 GB",
    "$1,999",
    "575W",
    "5.7",
    "GHz",
    "16",
    "cores",
    "1.8",
    "TB/s",
    "released",
    "in",
    "March",
    "2025",
    "on",
    "January",
    "30,",
    ".",
    "and",
    "the",
    "with",
    "billion",
    "parameters",
    "128K",
    "context",
    "x",
    "\n",
]


@given(st.lists(st.sampled_from(VOCAB), max_size=40).map(" ".join))
def test_fast_paths_find_what_plain_scans_find(text):
    """find_mentions skips rules whose leading word is absent and find_quantities tries rules
    only where a number starts: both must find exactly what running every rule everywhere does."""
    from agents.reviewers.factcheck import _entities as e

    every = []
    for pattern, kind, key in e._MENTION_RULES:
        every += [e.Mention(key(m), kind, m.start(), m.end()) for m in pattern.finditer(text)]
    every.sort(key=lambda m: (m.start, -(m.end - m.start)))
    expected: list[e.Mention] = []
    for m in every:
        if not expected or m.start >= expected[-1].end:
            expected.append(m)
    assert e.find_mentions(text) == expected

    plain = []
    for rule, (pattern, read) in enumerate(e._QUANTITY_RULES):
        plain += [(m.start(), rule, m.end(), *read(m)) for m in pattern.finditer(text)]
    found = [
        (q.start, q.end, q.dimension, q.value) for q in e.find_quantities(text, [], dates=False)
    ]
    kept: list[tuple] = []
    for start, _rule, end, dimension, value in sorted(plain):
        if not kept or start >= kept[-1][1]:
            kept.append((start, end, dimension, value))
    assert found == kept


async def test_known_wrong_facts_come_from_the_validators_one_rule_not_a_second_run(monkeypatch):
    """The fact-check runs only the validator's known_wrong_fact rule, and finds exactly the
    findings a whole validator run reports for it (placeholder and filler stay the validator's)."""
    import dataclasses

    from agents.reviewers import validator
    from agents.reviewers.validator import _core

    content = "The RTX 5090 with 24GB is fast. [INSERT COMPANY NAME] Lorem ipsum dolor sit amet."
    facts = [FactOverride.build(r"RTX 5090 with 24GB", "the RTX 5090 has 32GB")]
    full = validator.validate(content, facts=facts)
    assert {f.code for f in full.findings} > {"known_wrong_fact"}  # other rules fire too
    ran: list[str] = []
    for code, r in list(_core._RULES.items()):

        def spy(ctx, r=r, code=code):
            ran.append(code)
            return r.check(ctx)

        monkeypatch.setitem(_core._RULES, code, dataclasses.replace(r, check=spy))
    claims = await gather_claims(
        DraftSubmitted("d", 1, "T", content), Settings(), Deps(facts=facts)
    )
    assert ran == ["known_wrong_fact"]
    wrong = [f for f in full.findings if f.code == "known_wrong_fact"]
    assert [c.span for c in claims if c.kind == "known_wrong_fact"] == [f.span for f in wrong]
