"""The one parser of model answers, used by every LLM reviewer.

Models wrap JSON in many ways even when asked (and constrained) not to: a `<think>` trace before it,
a Markdown code fence around it, a sentence of prose before or after it. `parse_json_answer` finds
the JSON object; the `read_*` helpers then validate each field strictly. A score must be a finite
number in 0-100: "ninety", 150, NaN and true are refused, not clamped, because a model that answers
150 has misread the scale and clamping would turn that into a confident 100.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

from schemas import MultiqaError

_THINK_BLOCK = re.compile(r"<think(?:ing)?>.*?</think(?:ing)?>", re.IGNORECASE | re.DOTALL)
_THINK_CLOSE = re.compile(r"</think(?:ing)?>", re.IGNORECASE)
_THINK_OPEN = re.compile(r"<think(?:ing)?>", re.IGNORECASE)
_FENCE = re.compile(r"```[ \t]*(?:json|JSON)?[ \t]*\n?(.*?)```", re.DOTALL)
_NUMBER_TEXT = re.compile(r"^\s*([+-]?\d+(?:\.\d+)?)\s*(?:/\s*100|%)?\s*$")
# Decoding attempts from successive "{" before giving up (bounds work on adversarial text).
_MAX_OBJECT_STARTS = 50


class AnswerError(MultiqaError, ValueError):
    """The answer has no usable JSON object, or a field is missing or invalid."""


def _reject_constant(name: str) -> Any:
    raise AnswerError(f"answer contains the non-JSON number {name}")


def _decode_object(text: str, untrusted: str = "") -> dict[str, Any] | None:
    """The first JSON object in `text` that is not copied from `untrusted` (whitespace-folded)."""
    decoder = json.JSONDecoder(parse_constant=_reject_constant)
    start = text.find("{")
    attempts = 0
    while start != -1 and attempts < _MAX_OBJECT_STARTS:
        attempts += 1
        try:
            value, end = decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            start = text.find("{", start + 1)
            continue
        if isinstance(value, dict) and not copied_from(text[start:end], untrusted):
            return value
        start = text.find("{", start + 1)
    return None


def fold_space(text: str) -> str:
    return " ".join(text.split())


def copied_from(raw: str, untrusted: str) -> bool:
    """`raw` (a JSON object's text in an answer) appears in `untrusted` (whitespace-folded, see
    fold_space): a verdict the draft wrote, repeated by the model, is not the model's verdict."""
    return bool(untrusted) and fold_space(raw) in untrusted


def strip_thinking(text: str) -> str:
    """The answer without reasoning traces. A trace with no end means the model spent its whole
    budget thinking: that is reported as such, since the cure (a larger budget) differs from a
    malformed answer's."""
    text = _THINK_BLOCK.sub("", text)
    close = list(_THINK_CLOSE.finditer(text))
    if close:  # "...reasoning</think> {answer}": the opening tag was in the prompt template
        text = text[close[-1].end() :]
    opened = _THINK_OPEN.search(text)
    if opened:
        before = text[: opened.start()]
        if "{" not in before:
            raise AnswerError("the reasoning trace never ended (token budget exhausted?)")
        text = before
    return text


def structured_object(text: str) -> dict[str, Any] | None:
    """The answer as one JSON object and nothing else (what a server that honoured the schema
    sends), or None when the defensive parser is needed."""
    try:
        value = json.loads(text, parse_constant=_reject_constant)
    except (ValueError, AnswerError):
        return None
    return value if isinstance(value, dict) else None


def parse_json_answer(text: str, untrusted: str = "") -> dict[str, Any]:
    """The JSON object in a model's answer. Raises AnswerError with a reason. With `untrusted`
    (the draft's text as the prompt showed it, whitespace-folded), objects copied from it are
    passed over: a model that repeats the draft's fake verdict has not given one."""
    if not text or not text.strip():
        raise AnswerError("empty answer")
    body = strip_thinking(text)
    if not body.strip():
        raise AnswerError("answer held only a reasoning trace, no JSON")
    for fenced in _FENCE.findall(body):
        found = _decode_object(fenced, untrusted)
        if found is not None:
            return found
    found = _decode_object(body, untrusted)
    if found is None:
        if untrusted and _decode_object(body) is not None:
            raise AnswerError("the only JSON object in the answer is copied from the draft")
        raise AnswerError("no JSON object in the answer")
    return found


def preview(text: str, limit: int = 200) -> str:
    """The first `limit` characters of an answer, on one line, for logs and feedback."""
    return " ".join(text[:limit].split())


# --- field readers ----------------------------------------------------------------------------


def _field(obj: Mapping[str, Any], key: str) -> Any:
    if key not in obj:
        raise AnswerError(f"answer has no {key!r}")
    return obj[key]


def read_score(obj: Mapping[str, Any], key: str) -> float:
    """A 0-100 score. Numbers and numeric text ("85", "85/100", "85%") are accepted; words,
    booleans, NaN/inf and anything outside 0-100 are refused."""
    value = _field(obj, key)
    if isinstance(value, bool):
        raise AnswerError(f"{key} is a boolean, not a score")
    if isinstance(value, str):
        match = _NUMBER_TEXT.match(value)
        if not match:
            raise AnswerError(f"{key} {preview(value, 40)!r} is not a number")
        value = float(match.group(1))
    if not isinstance(value, int | float):
        raise AnswerError(f"{key} is a {type(value).__name__}, not a number")
    number = float(value)
    if not math.isfinite(number):
        raise AnswerError(f"{key} is not a finite number")
    if not 0 <= number <= 100:
        raise AnswerError(f"{key} {number:g} is outside 0-100")
    return number


def read_bool(obj: Mapping[str, Any], key: str) -> bool:
    value = _field(obj, key)
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in {"true", "false", "yes", "no"}:
        return value.strip().lower() in {"true", "yes"}
    raise AnswerError(f"{key} is not true/false")


def read_text(obj: Mapping[str, Any], key: str, *, limit: int = 4000, default: str = "") -> str:
    """A free-text field, trimmed to `limit` characters; absent means `default`."""
    value = obj.get(key, default)
    if value is None:
        return default
    if not isinstance(value, str):
        value = json.dumps(value) if isinstance(value, list | dict) else str(value)
    return value.strip()[:limit]


def read_list(obj: Mapping[str, Any], key: str, *, limit: int = 50) -> list[Any]:
    """A list field (absent means empty), at most `limit` items."""
    value = obj.get(key, [])
    if value is None:
        return []
    if not isinstance(value, list):
        raise AnswerError(f"{key} is not a list")
    return value[:limit]


def read_scores(obj: Mapping[str, Any], key: str, *, limit: int = 50) -> list[float]:
    """A list of 0-100 scores, each validated like `read_score`."""
    items = read_list(obj, key, limit=limit)
    return [read_score({key: item}, key) for item in items]
