"""What a phrase found in a draft is, by where it sits (`_injection_placement`) and what the draft
is about (`_injection_topic`): an attempt (critical), ambiguous (a warning that asks for a person)
or an example (nothing). The rules of the decision are drawn in `_injection`'s docstring.
"""

from __future__ import annotations

from dataclasses import dataclass

from agents.reviewers.validator._injection_phrases import PROMPT_KINDS, WEAK_KINDS
from agents.reviewers.validator._injection_placement import (
    Layout,
    in_table_row,
    presents,
    quoted,
)

CRITICAL = "critical"
WARNING = "warning"


@dataclass(frozen=True)
class Found:
    start: int  # offsets into the scanned text
    end: int
    kind: str
    language: str
    severity: str
    message: str


def judge(
    text: str,
    start: int,
    end: int,
    kind: str,
    language: str,
    disguise: str,
    about: bool,
    layout: Layout | None,
    prompts: bool = False,
) -> Found | None:
    excerpt = " ".join(text[start : min(end, start + 400)].split())[:80]
    hidden = disguise or (layout.hidden_by(start, end) if layout else "")
    in_code = layout.in_code(start, end) if layout else False
    is_quoted = quoted(text, start, end)
    how = "" if language == "English" else f"in {language}"
    where = ", ".join(part for part in (hidden, how) if part)
    detail = f" ({where})" if where else ""
    attempt = Found(
        start, end, kind, language, CRITICAL,
        f"instruction aimed at the reviewers{detail}: {excerpt!r}",
    )  # fmt: skip
    unsure = Found(
        start, end, kind, language, WARNING,
        f"reads like an instruction to the reviewers{detail}: {excerpt!r}; a person should "
        "decide whether it is an example",
    )  # fmt: skip
    if kind == "fence":
        return attempt  # our own data marker has no business in a draft
    if hidden:
        return unsure if (in_code and about) else attempt
    # A table in an article about injection presents its cells (payload, what it tries).
    shown = in_code or is_quoted or (about and in_table_row(text, start))
    if kind in WEAK_KINDS:
        # An article about prompting shows prompts ("I want you to act as ..."), as one about
        # injection shows attacks.
        example = about or (prompts and kind in PROMPT_KINDS)
        return None if example and (shown or presents(text, start, end)) else unsure
    if shown:
        if about:
            return None
        # A role marker ("SYSTEM: ...") impersonates the prompt itself: quoting it changes
        # nothing for the model, and nobody quotes one in an article about something else; nor
        # an order to a grading role, outside an article about prompts.
        if in_code or kind == "role" or (kind == "addressed" and not prompts):
            return attempt
        return unsure
    if about:
        if presents(text, start, end):
            return None
        # An unquoted, unpresented order to the role judging this draft is aimed at us, in an
        # article about injection too.
        return attempt if kind == "addressed" and _names_this_draft(text, start, end) else unsure
    return attempt


def _names_this_draft(text: str, start: int, end: int) -> bool:
    """The phrase points at the draft itself: "this draft", "this text", "this post"."""
    piece = text[start:end].lower()
    return any(f"this {noun}" in piece for noun in _THIS)


_THIS = ("draft", "text", "post", "article", "submission", "piece", "content", "entry", "essay")


def merge(found: list[Found]) -> list[Found]:
    """Overlapping findings merged, the more severe kept."""
    found.sort(key=lambda f: (f.start, 0 if f.severity == CRITICAL else 1, -f.end))
    kept: list[Found] = []
    for f in found:
        if kept and f.start < kept[-1].end:
            if f.severity == CRITICAL and kept[-1].severity != CRITICAL:
                kept[-1] = f
            continue
        kept.append(f)
    return kept
