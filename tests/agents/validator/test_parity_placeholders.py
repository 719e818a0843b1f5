"""Placeholders, ported from the seed's upstream tests (Glad-Labs/poindexter content_validator
tests: TestImagePlaceholders, TestPlaceholderCitation, TestUnresolvedPlaceholders, TestEdgeCases),
in multiqa's words. Upstream has three categories (image_placeholder, placeholder_citation,
unresolved_placeholder); multiqa has one critical rule, `placeholder`."""

from __future__ import annotations

import pytest

from agents.reviewers.validator import validate
from schemas.records import Severity


def placeholders(content: str, title: str = "") -> list[str]:
    return [
        f.span.text if f.span else f.message
        for f in validate(content, title=title).findings
        if f.code == "placeholder"
    ]


@pytest.mark.parametrize(
    "content",
    [
        "Here is some text.\n[IMAGE-1: A futuristic cityscape with robots]\nMore text follows.",
        "The architecture is shown below.\n[FIGURE: System architecture diagram]\nAs you see.",
        "[DIAGRAM: Flow chart showing the data pipeline]",
        "[SCREENSHOT: Dashboard showing metrics]",
        "<p>[IMAGE-1: a photo]</p>",
        "[Featured image: solar panels at sunset]\n\n# Solar",
    ],
)
def test_image_placeholders_are_critical(content: str) -> None:
    """follows upstream test_catches_image_placeholder, test_catches_figure_placeholder,
    test_catches_diagram_placeholder, test_catches_screenshot_placeholder,
    test_image_placeholder_is_critical, test_html_stripped_before_pattern_matching"""
    report = validate(content)
    found = [f for f in report.findings if f.code == "placeholder"]
    assert found and all(f.severity == Severity.CRITICAL for f in found)
    assert not report.approved


@pytest.mark.parametrize(
    "token",
    [
        "[INTERNAL SNIPPET]",
        "[INTERNAL SNIPPETS]",
        "[INTERNAL SNIPPET 2]",
        "[INTERNAL SOURCE]",
        "[internal source 2]",
        "[citation needed]",
        "[the original analysis](url)",
        "[our screenshot guidelines](link-to-screenshot-guide)",
        "[the docs](url_for_docs)",
        "[our earlier post](internal_context_link)",
        "[the guide](link)",
        "[the spec](insert url here)",
        "[the docs](your link here)",
        "(source)",
        "(citation)",
        "(Citation Needed)",
        "(add source)",
        "(cite)",
        "(insert a link)",
        "(reference)",
        "[posts/{slug}]",
        "[posts/a1b2c3d4-e5f6-7890-abcd-1234567890ef]",
        "[posts/llm-workforce-thesis]",
        "[POST_ID: 12345]",
        "[POST_ID]",
    ],
)
def test_placeholder_citations_and_unresolved_links_are_critical(token: str) -> None:
    """follows upstream test_catches_internal_snippet_label,
    test_catches_internal_snippets_plural_and_indexed,
    test_catches_internal_source_label, test_catches_citation_needed,
    test_catches_placeholder_link_href_url, test_catches_internal_context_link_href,
    test_placeholder_citation_is_critical, test_catches_bare_source_parenthetical,
    test_catches_bare_citation_parentheticals, test_bare_parenthetical_placeholder_is_critical,
    test_catches_curly_brace_template, test_catches_bare_uuid_reference,
    test_catches_bare_slug_reference, test_catches_post_id_variant,
    test_unresolved_placeholder_is_critical"""
    report = validate(f"Latency rises sharply under sustained load {token}.")
    assert [f.severity for f in report.findings if f.code == "placeholder"] == [Severity.CRITICAL]
    assert not report.approved


@pytest.mark.parametrize(
    "content",
    [
        "Check out [this article](https://developer.mozilla.org/) for more details.",
        "Read [the paper](https://arxiv.org/abs/2401.00001) for details.",
        "Here's a handy [snippet](https://gist.github.com/x) to copy.",
        "See [our related guide](/posts/related-guide) for more.",
        "The driver is open (source code is on GitHub).",
        "Check the numbers (see the benchmark chart below).",
        "Read the [spec](https://www.rfc-editor.org/source) for full details.",
        "Wire the callback (a reference to the handler) before mounting.",
        "Read [posts/llm-workforce-thesis](/posts/llm-workforce-thesis) for more.",
        "The system [logs everything] for audit purposes.",
        "Markdown links use this syntax:\n\n```\n[text](url)\n```\n\nInline: `[text](url)` "
        "links out.",
        "[Figure 1: the latency curve](latency.png) shows the knee.",
        "An editor's note stays hidden. <!-- TODO: add the photo credit -->",
    ],
)
def test_real_links_and_prose_parentheses_are_not_placeholders(content: str) -> None:
    """follows upstream test_no_false_positive_on_markdown_links,
    test_no_false_positive_on_real_link,
    test_no_false_positive_snippet_as_link_text, test_no_false_positive_on_relative_post_link,
    test_no_false_positive_on_real_parenthetical, test_does_not_fire_on_resolved_markdown_link,
    test_does_not_fire_on_prose_brackets, test_no_false_positive_markdown_tutorial_in_code_block;
    the last two are multiqa's (a linked figure caption; an editor's HTML comment is not shown)"""
    assert placeholders(content) == []


def test_a_long_placeholder_is_reported_whole_and_in_the_title_too() -> None:
    """follows upstream test_matched_text_truncated_to_100_chars,
    test_line_numbers_recorded_in_issues
    (multiqa reports offsets instead of line numbers, and looks at the title as well)"""
    content = "First line.\nSecond line.\n[IMAGE-1: " + "x" * 150 + "]"
    (finding,) = [f for f in validate(content).findings if f.code == "placeholder"]
    assert finding.span is not None
    assert content[finding.span.start : finding.span.end] == finding.span.text
    assert finding.span.start == content.index("[IMAGE-1")
    assert placeholders("Fine text.", title="Ten tips for [INSERT TOPIC]") != []


def test_example_dot_com_links_are_placeholders_in_multiqa() -> None:
    """differs on purpose from upstream (whose tests use example.com as a real link): example.com is
    reserved for documentation (RFC 2606), so a published link to it was never filled in"""
    assert placeholders("See [the docs](https://example.com/guide) for setup.") != []
