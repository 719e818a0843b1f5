"""Truncation, ported from the seed's upstream tests (Glad-Labs/poindexter:
test_content_validator_truncation.py, and TestJsonEnvelopeLeakDetection,
TestMarkdownEmphasisTruncationFalsePositive, TestTruncatedAtHeading in test_content_validator.py),
in multiqa's words. Upstream's categories truncated_content, truncated_at_heading and
json_envelope_leak are multiqa's `broken_ending` (critical) and `unclosed_code_fence`; a last list
item that may be cut or may be style is multiqa's `possibly_truncated` (a warning asking for a
person), where upstream rejects."""

from __future__ import annotations

import pytest

from agents.reviewers.validator import validate

BODY = (
    "FastAPI is a modern Python web framework for building APIs. It uses Pydantic for "
    "validation and supports async natively. Type hints make endpoints self-documenting. "
) * 4


def codes(content: str) -> list[str]:
    return [
        c
        for c in validate(content).codes()
        if c in ("broken_ending", "possibly_truncated", "unclosed_code_fence")
    ]


@pytest.mark.parametrize(
    "content",
    [
        "## Read Scaling\n\nReplicas solve read scaling, but not write scaling, and the wrong "
        "shape for th",
        "Intro paragraph ends fine.\n\n### Wha",
        "See [a Unity Discussions thread](https://discussions.unity.com/t/sa",
        "More reading in [the official guide to conte",
        'Body text.\n\n<h3 style="color: #94a3b8; margin-bottom: 1e',
        "we stopped asking... where someone used to just say 'ye",
        BODY + " The team began to investigate when",
        BODY + "\n\n*the migration script will*",
        "## Steps\n- First do this.\n- Then the script will",
        "Test vision and reasoning separately. When we looked at nvidia's LocateA\n\n"
        "## Sources\n- <https://huggingface.co/Qwen/discussions/97>\n",
        "Running a 27B model at Q4 works.\n\n## The VRAM Math\n\nIt needs 14 GB.\n\n## Local "
        "Inference vs",
        "Done here.\n\n## Sources",
    ],
)
def test_cut_endings_reject(content: str) -> None:
    """follows upstream test_mid_word_prose_cutoff, test_dangling_heading,
    test_severed_markdown_link_url,
    test_severed_markdown_link_text, test_unclosed_html_tag, test_mid_quote_cutoff,
    test_real_truncation_still_flagged_separately,
    test_genuine_truncation_inside_emphasis_still_flagged,
    test_ordinary_trailing_list_is_not_peeled,
    test_mid_word_cut_hidden_behind_appended_sources_block,
    test_flags_draft_ending_at_bare_heading, test_sources_heading_with_no_items_is_not_peeled,
    test_truncated_content_flags_critical_and_fails"""
    report = validate(content)
    assert "broken_ending" in report.codes(), report.codes()
    assert not report.approved


@pytest.mark.parametrize("heading", ["## References", "### Further Reading", "## Sources:"])
def test_a_cut_is_seen_behind_any_sources_heading(heading: str) -> None:
    """follows upstream test_references_heading_variants_are_peeled"""
    assert "broken_ending" in codes(f"A sentence cut off at th\n\n{heading}\n1. <https://x.y/z>\n")


def test_an_unclosed_fence_rejects() -> None:
    """follows upstream test_unclosed_code_fence"""
    assert codes("Complete sentence here.\n\n```python\nprint('hi')\n") == ["unclosed_code_fence"]


@pytest.mark.parametrize("tail", ['"\n}', '"\n]', '\n"}'])
def test_a_trailing_json_envelope_terminator_rejects(tail: str) -> None:
    """follows upstream test_lone_brace_terminator_flagged_as_envelope_leak,
    test_lone_bracket_terminator_flagged_as_envelope_leak,
    test_quoted_brace_terminator_flagged_as_envelope_leak"""
    (finding,) = [f for f in validate(BODY + tail).findings if f.code == "broken_ending"]
    assert "JSON envelope" in finding.message


@pytest.mark.parametrize(
    "content",
    [
        "All done. The end.",
        "## Sources\n\n- <https://github.com/Glad-Labs/poindexter>\n- "
        "<https://www.liquibase.com/blog/x>",
        "Ends with a fence:\n\n```python\nx = 1\n```",
        "| model | score |\n| --- | --- |\n| gemma | 82 |",
        "The end, *emphasized*.",
        'She said "done."',
        "Final line.\n\n---",
        "Read more in [the docs](https://docs.python.org/3/)",
        "Ready to start?",
        "Ship it!",
        "## Closing\n\nBuild for that.\n\n## Sources\n- <https://a.org/a>\n- <https://b.org/b>\n",
        "## Steps\n- First do this.\n- Then do that.",
        BODY + " Conclusion: the framework wins.",
        BODY + "\n\n*Read more on AI Health and monitoring.*",
        BODY + "\n\n**That is the entire point.**",
        "Intro.\n\n## A Real Section\n\nThis section has a full paragraph of prose.",
        "## The list\n\n- Insulated jacket\n- Spare gloves\n- Head torch with fresh batteries",
        "Emoji endings are fine 🚀",
    ],
)
def test_finished_endings_pass(content: str) -> None:
    """follows upstream test_terminal_period, test_autolink_source_list, test_closed_code_fence,
    test_table_row_ending, test_emphasis_and_quote_endings, test_horizontal_rule_ending,
    test_markdown_link_ending, test_question_and_exclamation,
    test_complete_body_with_sources_block_is_clean, test_ordinary_trailing_list_is_not_peeled,
    test_clean_prose_passes_both_rules, test_italic_closer_sentence_not_truncated,
    test_bold_closer_sentence_not_truncated, test_midbody_heading_not_flagged,
    test_clean_ending_not_flagged, test_complete_content_not_flagged; the unpunctuated packing list
    is multiqa's (issue 11: posts ending in a list)"""
    assert codes(content) == []


def test_empty_content_is_empty_not_truncated() -> None:
    """follows upstream test_empty_content_returns_no_reasons"""
    assert codes("") == [] and codes("   \n\n  ") == []


def test_a_last_item_missing_its_siblings_full_stop_asks_for_a_person() -> None:
    """differs on purpose from upstream (which rejects any unpunctuated last item): when the last
    item ends on a content word but its siblings end with full stops, it may be cut or may be
    style, so multiqa warns and asks for human review instead of rejecting"""
    content = "## Steps\n\n1. Remove the wheel.\n2. Lever the tyre off.\n3. Refit the wheel"
    report = validate(content)
    assert report.codes() == ["possibly_truncated"]
    assert report.approved and report.human_review_codes() == ["possibly_truncated"]


def test_a_last_table_row_without_the_pipe_every_row_has_is_cut() -> None:
    """issue 11 (a cut inside a table): the rows of one table share a delimiter style, so a last
    row alone without the closing '|' was cut even when it stops on a content word; with only
    most rows closed it may be style, and a person decides; a table without closing pipes is fine"""
    table = "| Drink | Time | Taste |\n|---|---|---|\n| Kefir | 1 day | sour |\n"
    cut = validate(table + "| Kombucha | 7-10 days | tart, with a new")
    assert not cut.approved and cut.codes() == ["broken_ending"]
    assert "closing '|'" in cut.findings[0].message
    mixed = "| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n| 5 | 6\n| 7 | 8 |\n| 9 | ten"
    assert validate(mixed).codes() == ["possibly_truncated"]
    open_rows = "| a | b\n|---|---\n| 1 | 2\n| 3 | four"
    assert validate(open_rows).codes() == []
