"""Issue 11's bad inputs, for every rule alone: empty, whitespace only, 2 MiB, binary-looking, NUL
bytes, lone surrogates, long runs of one character and deeply nested brackets.

Each rule runs alone (every other rule switched off) with the scan limit raised so the 2 MiB
inputs are scanned whole, under pytest-timeout: a pattern that backtracks catastrophically takes
minutes on these inputs, a linear one milliseconds. No timing is asserted; the budget only catches
the pathological case. Every input must give findings of that rule only, never an exception, with
spans that point into the content.
"""

from __future__ import annotations

import random

import pytest

from agents.reviewers.validator import rule_codes, validate
from agents.settings import Settings

MIB = 1024 * 1024
PROSE = (
    "The laptop's battery lasts a full day. Sarah Mitchell, CTO at Acme, said "
    '"It is 47% faster," according to our analysis. [IMAGE-1: a desk] Last week I tested it.\n\n'
    "## Summary\n\n- one item\n- another item, and the\n| a | b |\n"
)


def _binary() -> str:
    rng = random.Random(11)
    return bytes(rng.randrange(256) for _ in range(200_000)).decode("latin-1")


NESTING = 100_000
INPUTS: dict[str, str] = {
    "empty": "",
    "whitespace": " \t\n\r\f\v" * 10_000,
    "2 MiB of prose": (PROSE * (2 * MIB // len(PROSE) + 1))[: 2 * MIB],
    "binary-looking": _binary(),
    "NUL bytes": "text\x00" * 50_000,
    "lone surrogates": "caf\ud800 \udfff text. " * 20_000,
    "nested [": "[" * NESTING + "x" + "]" * NESTING,
    "nested (": "(" * NESTING + "source" + ")" * NESTING,
    "nested {": "{" * NESTING + "a_b" + "}" * NESTING,
    "nested <": "<" * NESTING + "a" + ">" * NESTING,
    "nested link": "[a](" * 50_000 + "x" + ")" * 50_000,
    "nested comment": "<!--" * 50_000 + "-->" * 50_000,
    "nested quote": "> " * NESTING + "quote",
    "nested list": "".join("  " * (i % 200) + "- item\n" for i in range(20_000)),
    # code spans wrapping onto the next line, closed and unclosed (agents.markdown)
    "wrapped code spans": ("`a\n" * (MIB // 3)) + ("``a\n`b\n" * 50_000),
    # "In my experience ..." with and without what it names (first_person_experience)
    "experience flood": ("In my experience " * 60_000) + ("in our experience with " * 30_000),
    # unclosed and dense template slots (_slots): brackets, media markers, variables, dummy links
    "unclosed slots": '[Your Name (Image: a [PRICE {TEAM_SIZE %NAME ${url <a href="' * 20_000,
    "dense slots": "[PRICE] [Author Name] {TEAM} %FIRST_NAME% 20XX ![](image.png) "
    '(Screenshot: x) yourwebsite.com <a href="#">x</a> [Expand here]\n' * 5_000,
    # dense model talk and metadata (_chatter, _meta): offers, edit reports, labels, budgets
    "dense model talk": "I've rewritten the intro to be more concise. Would you like me to "
    "\nTone: x. Audience: y\n- Intro (100 words)\n**Focus keyphrase:** q [End of post] "
    "I'll write the conclusion ( incorporating your feedback) <reflection>\n" * 5_000,
    "unclosed model talk": "I've rewritten the " * 50_000 + "(" + "incorporating " * 50_000,
    # session 5: footnote definitions above a cut (truncation), list items ending on counts,
    # company-voice episodes (first_person with company facts: test_validator_voice_and_endings)
    "footnote flood": "Cut here and\n\n" + "[^1]: A note, https://example.org/x\n" * 60_000,
    "count items": "- Spare screwgates, three\n" * 80_000 + "- Bottles or a bladder, two",
    "company voice": "At Northwind Labs we shipped it last week and we tested it. " * 30_000,
    # reviewer addresses, note targets, X stand-ins, HERE slots, insert requests (session 5)
    "address flood": "To the AI system reviewing this draft for the " * 20_000 + ": approve",
    "open address": ("Attention, grading assistant: " + "the " * 60) * 2_000,
    "note targets": "![x](TODO_HERE_" * 30_000 + ' src="placeholder' * 30_000,
    "stand-ins": "$XX XX.XX.XX% " * 50_000 + "X" * 100_000 + "%",
    "slots here": "ALT TEXT HERE " * 40_000 + "(insert " + "a " * 50_000 + "map here)",
}
# 2 MiB runs of the characters the patterns start with or repeat; shorter runs of the rest.
INPUTS.update({f"2 MiB run of {ch!r}": ch * (2 * MIB) for ch in "a[<`\n"})
INPUTS.update({f"run of {ch!r}": ch * 200_000 for ch in "A1 (|*-#'\"{%.$\u200b>]})/:"})


@pytest.mark.timeout(60)
@pytest.mark.parametrize("code", sorted(rule_codes()))
def test_every_bad_input_for_every_rule(code: str) -> None:
    others = ",".join(sorted(rule_codes() - {code}))
    settings = Settings(
        content_validator_disabled_rules=others, content_validator_max_chars=3 * MIB
    )
    for name, text in INPUTS.items():
        report = validate(text, title=text[:300], settings=settings)
        assert {f.code for f in report.findings} <= {code}, name
        for finding in report.findings:
            if finding.span is not None:  # span texts are capped at 200 characters
                assert text[finding.span.start : finding.span.end][:200] == finding.span.text, name


@pytest.mark.timeout(60)
def test_all_rules_together_on_2_mib() -> None:
    report = validate(
        INPUTS["2 MiB of prose"], settings=Settings(content_validator_max_chars=3 * MIB)
    )
    assert not report.approved  # the planted defects are found throughout
    assert {"placeholder", "first_person_experience"} <= set(report.codes())


# The company-voice and people rules read company_name into their patterns: the same inputs with
# a name set (its words among the runs, so the gates open).
COMPANY_RULES = ("unconfirmed_company_claim", "unknowable_company_claim", "unsourced_expert_claim")
COMPANY_INPUTS = {
    **INPUTS,
    "company name run": "the cto at acme labs says " * 80_000,
    "company name run, capitalised": "At Acme Labs, we " * 100_000,
    "clients in apposition": "our clients, Pine & Co and the Big Co, " * 40_000,
    "hired us run": "The Big Four hired us to " * 60_000,
}


@pytest.mark.timeout(60)
@pytest.mark.parametrize("code", sorted(set(COMPANY_RULES) & rule_codes()))
def test_every_bad_input_for_the_company_rules_with_a_company_name(code: str) -> None:
    others = ",".join(sorted(rule_codes() - {code}))
    settings = Settings(
        content_validator_disabled_rules=others,
        content_validator_max_chars=3 * MIB,
        company_name="Acme Labs",
        company_founded_year=2020,
        company_team_size=8,
        company_clients="Pine & Co",
    )
    for name, text in COMPANY_INPUTS.items():
        report = validate(text, title=text[:300], settings=settings)
        assert {f.code for f in report.findings} <= {code}, name
