"""A reviewer's verdict written into a draft: a JSON object shaped like a reviewer's answer
("approved": true with a high score, or one of multiqa's answer schemas). An attempt when it uses
a reviewer's schema or is addressed to the QA pipeline; an API's response shown to the reader
(the words around it say so) is none; ambiguous otherwise.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from agents.reviewers.validator._injection_judge import Found, judge
from agents.reviewers.validator._injection_placement import Layout
from agents.reviewers.validator._injection_text import View

_JSON_OBJECT = re.compile(r"\{(?:[^{}]|\{[^{}]{0,300}\}){0,600}\}")
_JSON_PAIR = re.compile(r"\"(\w{1,40})\"\s*:\s*(\"[^\"]{0,200}\"|[-\w.]{1,20})")
_SCHEMA_KEYS = ({"quality_score"}, {"consistent", "contradictions"}, {"delivers", "reason"})
# Words that present a JSON object as an API's request or response (to the reader).
_API_WORDS = re.compile(
    r"\bapi\b|endpoint|response|request|returns?\b|webhook|curl|\bhttp|status code"
)
_QA_WORDS = re.compile(
    r"review result|qa\b|verdict|grader|reviewer|evaluation result|final answer|your answer|"
    r"\boutput\b|assessment|scoring"
)


def verdicts(text: str, view: View, about: bool, layout: Layout | None) -> Iterator[Found]:
    """JSON objects shaped like a reviewer's answer ("approved": true with a high score, or one
    of our answer schemas)."""
    if '"' not in view.text or "{" not in view.text:
        return
    for match in _JSON_OBJECT.finditer(view.text):
        body = match.group(0)
        pairs = {key: value.strip('"') for key, value in _JSON_PAIR.findall(body)}
        if not pairs:
            continue
        keys = set(pairs)
        schema = any(group <= keys for group in _SCHEMA_KEYS)
        approves = (
            pairs.get("approved") == "true"
            or pairs.get("passed") == "true"
            or pairs.get("verdict", "") in ("approve", "approved", "pass", "passed")
        )
        high = any(
            _number(pairs.get(key)) >= 90
            for key in ("score", "quality_score", "rating", "final_score")
        )
        if not (schema or (approves and high)):
            continue
        start, end = view.original(match.start()), view.original_end(match.end())
        line_start = view.text.rfind("\n", 0, match.start()) + 1
        context = view.text[max(0, line_start - 200) : match.start()]
        qa = schema or _QA_WORDS.search(context)
        if not qa and _API_WORDS.search(context):
            continue  # an API's response shown to the reader, in prose or code
        kind = "score" if qa else "claim"
        found = judge(text, start, end, kind, "English", "", about, layout)
        if found is not None:
            yield Found(
                found.start,
                found.end,
                found.kind,
                found.language,
                found.severity,
                found.message.replace(
                    "instruction aimed at the reviewers", "a reviewer's verdict in the draft"
                ).replace("reads like an instruction to", "reads like a verdict for"),
            )


def _number(value: str | None) -> float:
    try:
        return float(value) if value is not None else -1.0
    except ValueError:
        return -1.0
