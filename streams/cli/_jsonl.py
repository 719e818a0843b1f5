"""`--json` output of the operator commands: one JSON object per line (JSON Lines), each with
a `type` saying what it is, so a script can `jq` or `json.loads` line by line while a command is
still running (`decisions --follow`, `submit --wait`). Human progress goes to stderr then."""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from schemas import QADecision, to_dict


def emit(kind: str, body: Mapping[str, Any]) -> None:
    """Print one object: {"type": kind, ...body}."""
    line = json.dumps({"type": kind, **body}, ensure_ascii=False, default=_plain)
    print(line, flush=True)


def decision_object(decision: QADecision) -> dict[str, Any]:
    """A decision as the codec's JSON form (the README's example shape)."""
    return to_dict(decision, json=True)


def note(text: str) -> None:
    """A human line that must not mix with the JSON on stdout."""
    print(text, file=sys.stderr, flush=True)


def _plain(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value).decode("utf-8", "replace")
    return str(value)
