"""The README's example of each event is a valid event, of the size the README says."""

from __future__ import annotations

import json
import re
from pathlib import Path

import schemas
from schemas import decode, encode, from_dict

README = Path(__file__).resolve().parents[2] / "README.md"


def test_each_readme_example_is_a_valid_event_of_the_stated_size() -> None:
    text = README.read_text("utf-8")
    events = text.split("\n## Events\n", 1)[1].split("\n## ", 1)[0]
    examples = re.findall(r"`(\w+)` \((\d+) bytes on the wire\):\s*```json\n(.*?)```", events, re.S)
    assert [name for name, _, _ in examples] == [
        "DraftSubmitted",
        "ReviewerResult",
        "QADecision",
        "DeadLetter",
    ]
    for name, size, body in examples:
        record = from_dict(getattr(schemas, name), json.loads(body))
        data = encode(record)
        assert len(data) == int(size), name
        assert decode(data) == record
