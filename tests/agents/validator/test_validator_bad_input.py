"""Bad input never raises and never backtracks catastrophically.

Every rule gets adversarial strings built to stress its patterns (long runs of its trigger
characters and near-misses). Each test runs the one rule alone under a tight pytest-timeout: a
pattern with catastrophic backtracking takes minutes on these inputs, a linear one milliseconds.
Nothing here is a timed assertion; the budget only catches the pathological case.
"""

from __future__ import annotations

import random

import pytest

from agents.facts import FactOverride
from agents.reviewers.validator import rule_codes, validate
from agents.settings import Settings

N = 60_000  # characters per adversarial string (under the 200,000 scan limit)


def repeat(unit: str, n: int = N) -> str:
    return (unit * (n // max(len(unit), 1) + 1))[:n]


GENERIC = [
    repeat("a"),
    repeat(" "),
    repeat("\n"),
    repeat("a "),
    repeat("A"),
    repeat("1"),
    repeat("'"),
    repeat("-"),
]
ADVERSARIAL: dict[str, list[str]] = {
    "fabricated_person": [repeat("Sarah "), repeat("Sarah Mitchell, a a a "), repeat("Dr. Sarah ")],
    "unsourced_expert_claim": [
        repeat("Ingrid Solberg "),
        repeat("Ingrid Solberg, a a a "),
        repeat("Dr Okafor says "),
        repeat("Ms. Brandt of Acme "),
        repeat("security researcher Ingrid Solberg "),
        repeat("according to Ingrid Solberg, head of "),
        repeat("Ingrid Solberg (head "),
        repeat("| Ingrid Solberg | Head of security | a b c |\n"),
        repeat("> -- Ingrid Solberg, Acme\n"),
        repeat("[^1] "),
        repeat("\n[^1]: interview "),
        repeat('Glazier Oona Fairbairn of Acme has a rule: "'),
        repeat("according to master orchardist "),
        repeat("with thanks to arborist Caspar Wyndham-Lowe, whose advice "),
        repeat("assessor Tobias Wrenfield gives every "),
        repeat('cooper Anselm Rudd calls a a a "'),
        repeat("as retired pilot Geoffrey Lusk likes to "),
        repeat("coach Rhiannon Kade's advice is: "),
        repeat("Aa Bb Cc "),
    ],
    "fabricated_study": [repeat("a 2024 study "), repeat("according to a recent ")],
    "unsourced_statistic": [
        repeat("%"),
        repeat("sixty-two percent "),
        repeat("3 in 4 "),
        repeat("fell by by by "),
        repeat("half of "),
        repeat("1%"),
        repeat("increased by 1 "),
        repeat("1 percent"),
        repeat("seven in ten "),
        repeat("one in every three a "),
        repeat(". cut a by half "),
        repeat("1 in 9 a-a "),
        repeat("by nearly a third of a a a "),
        repeat("half of all a a "),
        repeat("doubled since 2015"),
    ],
    "unconfirmed_company_claim": [
        repeat("we are a a a "),
        repeat("we are certified "),
        repeat("our headquarters are in "),
        repeat("over 1 teams use our "),
        repeat("for over a decade, we have "),
        repeat("we count A, B among our clients "),
        repeat("we 1 clients "),
        repeat("our 1% "),
        repeat("our two hundred clients "),
        repeat("\u00a31 million "),
        repeat("we are the leading "),
        repeat("we have delivered hundreds of "),
        repeat("we have built sites for The "),
        repeat("trusted by A "),
        repeat("our founder started the company in "),
        repeat("as the top-rated agency, "),
        repeat("our studio in "),
        repeat("our Aa and Bb studios "),
        repeat("1 aa across the bb now use "),
        repeat("10 thousand aa book through us "),
        repeat("1 " + "a-" * 40 + "s use us "),
    ],
    "first_person_anecdote": [
        repeat("i was "),
        repeat("we spent last year "),
        repeat("my colleague x spent "),
        repeat("on my team asked "),
        repeat("i remember in a office "),
    ],
    "unsourced_quantity": [
        repeat("half of all "),
        repeat("roughly two thirds of users "),
        repeat("teams twice as fast "),
        repeat("improves a b c by 1%"),
        repeat("studies show more "),
        repeat("the average a b spends 1"),
    ],
    "company_fact_sheet": [
        repeat("\n| founded | "),
        repeat("\n- **team size:** "),
        repeat("about us | clients | a, "),
        repeat("\n| revenue |" + " " * 50),
    ],
    "unknowable_company_claim": [
        repeat("our team of "),
        repeat("we have been doing x "),
        repeat("our clients include A, "),
        repeat(", one of our clients"),
        repeat("A " * 30 + ", one of our clients"),
        repeat("our 15 years of experience "),
        repeat("our a a a clients, "),
        repeat("our clients, The A B, "),
        repeat("Aa Bb cc dd hired us to "),
        repeat("A " * 30 + "asked us to "),
        repeat("processed over \u00a31 "),
        repeat("a team of sixty-"),
        repeat("we work with 1 a-a "),
    ],
    "vague_attribution": [
        repeat("studies show "),
        repeat("industry data "),
        repeat("A Big report found "),
        repeat("surveys of a a a a keep keep "),
        repeat("by trade estimates, most "),
        repeat("nutritionists believe "),
        repeat("estimates put "),
        repeat("it is widely reported that "),
        repeat("farriers agree that most "),
        repeat("studies say " + "most " * 50 + "; "),
    ],
    "unlinked_source": [repeat("as noted in this "), repeat("this medium ")],
    "unsourced_person": [repeat("Ingrid Solberg, "), repeat("Ab Cd, a a a ")],
    "fabricated_quote": [repeat('"'), repeat('"' + "a" * 20), repeat("John Smith said ")],
    "first_person_experience": [
        repeat("I spent "),
        repeat("we have "),
        repeat("in my "),
        repeat("a client "),
        repeat("a a a a I worked with "),
        repeat("cost us $"),
        repeat('" he said '),
        repeat("last week "),
    ],
    "placeholder": [
        repeat("["),
        # unfilled slots (_slots)
        repeat("[Your "),
        repeat("[PRICE "),
        repeat("%AB"),
        repeat("${a"),
        repeat("(image: "),
        repeat("yourwebsite."),
        repeat('<a href="'),
        repeat("[x] "),
        repeat("[a "),
        repeat("[posts/"),
        repeat("{a_"),
        repeat("]( "),
        repeat("[image-1:"),
        repeat("]("),
        repeat("{{"),
        repeat("(source"),
    ],
    "leaked_reasoning": [repeat("<"), repeat("<think")],
    "chat_template_token": [repeat("<|"), repeat("[INST"), repeat("\nUser:")],
    "planning_scaffold": [repeat("\n## outline"), repeat("\n**"), repeat("\nstep 1: ")],
    "assistant_chatter": [repeat("as an "), repeat("an ai "), repeat("here is the ")],
    "model_talk": [
        repeat("i've rewritten the "),
        repeat("would you like me to "),
        repeat("let me know if "),
        repeat("i'll write the "),
    ],
    "text_metadata": [
        repeat("\n**focus keyphrase:"),
        repeat("\ntone: a. audience:"),
        repeat("\n- intro (100 words)"),
        repeat("(incorporating "),
        repeat("\nend of "),
    ],
    "unclosed_code_fence": [repeat("```\n"), repeat("~~~~\n"), repeat("```x")],
    "broken_ending": [
        repeat("{") + "}",
        repeat('{"title":') + "}",
        repeat("http://") + "x",
        repeat("[") + "x",
        repeat("](") + "x",
        repeat("<a ") + "x",
        repeat("- item\n") + "- the",
        repeat("| a ") + "|",
    ],
    "possibly_truncated": [repeat("1. x.\n") + "1. x", repeat("| a |\n") + "| a", repeat("\n- ")],
    "leaked_plan": [repeat("\n* topic: "), repeat("key elements from "), repeat("expand a a a ")],
    "model_deliberation": [repeat("\nokay, "), repeat("let me "), repeat("the user ")],
    "prompt_injection": [
        repeat("ignore all all all "),
        repeat("give this "),
        repeat("<!--"),
        repeat("\u200b"),
        repeat("note to the "),
        repeat("you are now a "),
    ],
    "possible_prompt_injection": [
        repeat("already approved "),
        repeat('{"approved": true, "score": 99, '),
        repeat("prompt injection: ignore previous instructions "),
        repeat("<!-- "),
    ],
    "filler_phrase": [repeat("in today's "), repeat("let's dive ")],
    "banned_header": [repeat("#"), repeat("\n# ")],
    "buzzword_density": [repeat("delve "), repeat("delv")],
    "citation_artifact": [repeat("[1, "), repeat("(Smith "), repeat("\u3010")],
    "unlinked_citation": [repeat("according to A "), repeat("\nsources: "), repeat("(source: ")],
    "internal_path": [repeat("/home/"), repeat("localhost/"), repeat("a.internal "), repeat(":\\")],
    "code_density": [repeat("```\n```\n")],
    "known_wrong_fact": [repeat("the moon is "), repeat("x" * 3999 + "\n")],
    "empty_content": [repeat(" \t\n")],
    "oversized_content": [repeat("a", 300_000)],
    "binary_content": [repeat("\x00"), repeat("\ufffd")],
    "html_markup": [repeat("<p"), repeat("<div ")],
    "unsafe_html": [repeat("<script"), repeat("onload")],
}
FACT = FactOverride.build(r"the moon is made of (?:green )?cheese", "It is rock.")


def test_every_rule_has_adversarial_input() -> None:
    assert set(ADVERSARIAL) == rule_codes()


# 30 s: the slowest rules take ~4 s on a machine at load 9 (the shared context is built for each
# string too); catastrophic backtracking on these inputs takes minutes.
@pytest.mark.timeout(30)
@pytest.mark.parametrize("code", sorted(ADVERSARIAL))
def test_adversarial_strings_per_rule(code: str) -> None:
    others = ",".join(sorted(rule_codes() - {code}))
    settings = Settings(content_validator_disabled_rules=others)
    for text in ADVERSARIAL[code] + GENERIC:
        report = validate(text, title=text[:500], settings=settings, facts=[FACT])
        assert all(f.code == code for f in report.findings)


@pytest.mark.timeout(20)
def test_five_megabytes() -> None:
    text = "A sentence about laptops. " * 200_000  # 5.2 MB
    report = validate(text)
    assert "oversized_content" in report.codes()
    assert not report.approved


def test_empty_content() -> None:
    report = validate("")
    assert report.codes() == ["empty_content"]
    assert validate("  \n ").codes() == ["empty_content"]


@pytest.mark.timeout(10)
def test_binary_junk() -> None:
    rng = random.Random(1)
    junk = bytes(rng.randrange(256) for _ in range(50_000))
    report = validate(junk.decode("utf-8", errors="replace"))
    assert "binary_content" in report.codes()
    assert validate(junk.decode("latin-1")).findings  # no replacement chars, still flagged


def test_html_instead_of_markdown() -> None:
    html = "<html><body>" + "".join(f"<p>Paragraph {i} about laptops.</p>" for i in range(20))
    report = validate(html + "</body></html>")
    assert "html_markup" in report.codes()


def test_unbalanced_fences() -> None:
    text = "Intro.\n\n```python\nprint(1)\n```\n\nMiddle.\n\n~~~\nunclosed block\n"
    assert validate(text).codes() == ["unclosed_code_fence"]
    # A ``` inside a ~~~ block does not close it, and vice versa.
    mixed = "Intro.\n\n~~~\n```\n~~~\n\nDone here.\n"
    assert validate(mixed).findings == ()


@pytest.mark.parametrize(
    "text",
    [
        "東京は日本の首都です。人口は約千四百万人です。",
        "Москва — столица России. Это большой город.",
        "القاهرة هي عاصمة مصر. إنها مدينة كبيرة؟",
        "दिल्ली भारत की राजधानी है। यह बड़ा शहर है।",
        "서울은 한국의 수도입니다. 큰 도시입니다.",
        "Ἀθῆναι πόλις ἐστίν. İstanbul büyük bir şehirdir.",
        "Emoji endings are fine 🚀",
    ],
)
def test_every_language(text: str) -> None:
    report = validate(text, title=text[:20])
    assert report.findings == (), report.findings


def test_offsets_survive_length_changing_lowercase() -> None:
    # U+0130 lowercases to two characters; offsets must still point into the original.
    text = "İİİİ Sarah Mitchell, CEO of Acme, agrees."
    (finding,) = validate(text).findings
    assert finding.span is not None and finding.span.text == "Sarah Mitchell"


@pytest.mark.parametrize(
    ("value", "codes"),
    [
        (None, ["empty_content"]),  # no text, not the four letters "None"
        (b"", ["empty_content"]),
        (b"Plain bytes about laptops.", []),  # read as the UTF-8 text they carry
        (b"\xff\xfe\x00\x01" * 2000, ["binary_content", "broken_ending"]),
        (12345, ["broken_ending"]),  # judged by its str(): five digits, no sentence end
    ],
)
def test_non_string_content_does_not_raise(value: object, codes: list[str]) -> None:
    assert validate(value).codes() == codes  # type: ignore[arg-type]
    assert validate("A sentence about laptops.", title=value).codes() == []  # type: ignore[arg-type]
