"""agents.markdown: the one definition of code and HTML comments, and that the validator, the
link extraction and the fact-check all see code where it is."""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agents.links import extract_links
from agents.markdown import _fence_marks, hidden_ranges, mask_code_and_comments
from agents.reviewers.factcheck._claims import _prose as factcheck_prose
from agents.reviewers.validator import validate
from agents.reviewers.validator._injection_placement import Layout


def pieces(content: str) -> tuple[list[str], list[str]]:
    hidden = hidden_ranges(content)
    return (
        [content[start:end] for start, end in hidden.code],
        [content[start:end] for start, end in hidden.comments],
    )


@pytest.mark.parametrize(
    ("content", "code", "comments"),
    [
        # Whichever starts first wins: a comment opener shown in code is code...
        ("use `<!--` to open one; the rest is prose", ["`<!--`"], []),
        # ...and a backtick inside a comment opens no code span.
        ("<!-- it's `x --> prose` here", [], ["<!-- it's `x -->"]),
        # Backtick runs of another length inside a span are code too (CommonMark).
        ("run ``a ` b`` now", ["``a ` b``"], []),
        # Mid-line, a run of four or more opens nothing; an unclosed run is a literal backtick.
        ("a ````x```` and ` alone", [], []),
        # A span may wrap onto the next line of its paragraph (an editor's line wrap)...
        ("a `b\nc` d", ["`b\nc`"], []),
        ("see `[SCREENSHOT: the\n  page]` below", ["`[SCREENSHOT: the\n  page]`"], []),
        # ...but not past a blank line or a line opening another block.
        ("a `b\n\nc` d", [], []),
        ("a `b\n  \nc` d", [], []),
        ("- a `b\n- c` d", [], []),
        ("a `b\n# c` d", [], []),
        ("a `b\n> c` d", [], []),
        ("a `b\n| c` d |", [], []),
        ("1. a `b\n2. c` d", [], []),
        # A span longer than MAX_INLINE_CODE is two stray backticks, not code.
        ("`" + "x" * 501 + "`", [], []),
        ("`" + "x" * 500 + "`", ["`" + "x" * 500 + "`"], []),
        # A `-->` inside a fenced block closes no comment; the fence stays code.
        (
            "<!-- a\n```\n-->\n```\nstill comment --> prose",
            ["```\n-->\n```"],
            ["<!-- a\n```\n-->\n```\nstill comment -->"],
        ),
        # An unclosed comment or fence runs to the end.
        ("prose <!-- hidden\nto the end", [], ["<!-- hidden\nto the end"]),
        ("prose\n~~~\ncode\n```\nstill code", ["~~~\ncode\n```\nstill code"], []),
        # A fence closes only with the same character, as many or more, nothing after.
        ("```\na\n``` x\n~~~\n````\nprose", ["```\na\n``` x\n~~~\n````"], []),
    ],
)
def test_what_is_code_or_a_comment(content, code, comments):
    assert pieces(content) == (code, comments)


@given(st.text(alphabet="`~<!->\n x", max_size=300))
def test_masking_keeps_offsets_and_only_blanks(content):
    masked = mask_code_and_comments(content)
    assert len(masked) == len(content)
    for before, after in zip(content, masked, strict=True):
        assert after == before or (after == " " and before != "\n")
    hidden = hidden_ranges(content)
    assert hidden.code == sorted(hidden.code)
    assert hidden.comments == sorted(hidden.comments)


# One draft with the same placeholder and URL in prose and in every kind of code or comment.
CASES = [
    "`[INSERT COMPANY NAME] https://inline.example/`",
    "``[INSERT COMPANY NAME] ` https://double.example/``",
    "<!-- [INSERT COMPANY NAME] https://comment.example/ -->",
    "```\n[INSERT COMPANY NAME] https://fence.example/\n```",
    "`<!--` then [INSERT COMPANY NAME] https://prose.example/",
]
DRAFT = "# Title\n\n" + "\n\n".join(CASES) + "\n"


def test_the_validator_the_links_and_the_fact_check_agree_about_what_is_code():
    prose_at = DRAFT.index("[INSERT COMPANY NAME] https://prose.example/")
    # The links: only the URL in prose.
    assert [link.url for link in extract_links(DRAFT)] == ["https://prose.example/"]
    # The validator: the placeholder only where a reader sees it.
    placeholders = [f for f in validate(DRAFT).findings if f.code == "placeholder"]
    assert [f.span.start for f in placeholders if f.span] == [prose_at]
    # The fact-check's prose: the code copies blanked, the prose copy kept.
    prose = factcheck_prose(DRAFT)
    assert prose.count("[INSERT COMPANY NAME]") == 1
    assert prose.index("[INSERT COMPANY NAME]") == prose_at
    # The validator's injection rule uses the very same ranges.
    hidden = hidden_ranges(DRAFT)
    layout = Layout.of(DRAFT)
    assert (layout.code, layout.comments) == (hidden.code, hidden.comments)


@pytest.mark.timeout(20)
@pytest.mark.parametrize(
    "content",
    [
        "` " + "``x" * 200_000,  # one run that never closes, many that do
        "<!--" + "```\n-->\n```\n" * 50_000,  # every close inside a fence
        "`x" * 300_000,
        ("`" + "y" * 499 + "``") * 2_000,
    ],
)
def test_adversarial_input_is_linear(content):
    assert len(mask_code_and_comments(content)) == len(content)


def test_fence_marks_are_what_the_multiline_pattern_finds() -> None:
    """find_fences looks for fence lines with substring searches: the same marks, in the same
    order, as `^ {0,3}(`{3,}|~{3,})` in MULTILINE mode, on random texts made of fence parts."""
    pattern = re.compile(r"^ {0,3}(`{3,}|~{3,})", re.MULTILINE)
    parts = ["`", "~", " ", "\n", "a", "```", "~~~", "\n   ```", "\n    ~~~~", "\n ``", "x```"]
    rng = random.Random(11)
    for _ in range(3000):
        text = "".join(rng.choice(parts) for _ in range(rng.randint(0, 30)))
        expected = [(m.start(), m.end(), m.group(1)) for m in pattern.finditer(text)]
        assert _fence_marks(text) == expected, text
