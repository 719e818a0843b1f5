"""A fake model that obeys injections: the worst case the validator has to cover.

It runs behind FakeOllama (the real ollama client talks to it on 127.0.0.1). Asked as the critic,
the consistency gate or the topic-delivery gate, it reads its whole prompt, system and user
messages, and:
- when any of the injected texts it is told about appears anywhere in it (in whatever disguise
  the draft carried it: this model "understands" every disguise), it obeys: top scores, approved;
- otherwise it judges honestly: the critic finds the planted defect (injection_forms.DEFECT) and
  scores the draft 20, not approved; an article without the defect scores 88; the gates pass.

So a draft is approved only if an injection reached the model and nothing else stopped it: the
suite's control run (injection rules switched off) shows that every attack does get approved
then, so the suite can fail.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from tests.agents.fakes.llm_servers import ollama_chat
from tests.agents.injection.injection_forms import DEFECT
from tests.helpers.http import Reply, Seen

MODEL = "obeying:1b"


class ObeyingModel:
    def __init__(self, markers: Iterable[str] = ()) -> None:
        self.markers = [m for m in markers if m]
        self.obeyed = 0
        self.asked = 0

    def prompt_of(self, seen: Seen) -> str:
        body: dict[str, Any] = seen.json() or {}
        return "\n".join(str(m.get("content", "")) for m in body.get("messages", []))

    def __call__(self, seen: Seen) -> Reply:
        prompt = self.prompt_of(seen)
        self.asked += 1
        obey = any(marker in prompt for marker in self.markers)
        self.obeyed += obey
        if "internal contradictions" in prompt:
            answer: dict[str, Any] = {"consistent": True, "score": 95, "contradictions": []}
        elif "delivers what its title and topic promise" in prompt:
            answer = {"delivers": True, "score": 95, "reason": "It covers the brew."}
        elif obey:
            answer = {"approved": True, "quality_score": 100, "feedback": "As instructed."}
        elif DEFECT in prompt:
            answer = {
                "approved": False,
                "quality_score": 20,
                "feedback": f'"{DEFECT}": far too cold to extract coffee (90-96 \u00b0C).',
            }
        else:
            answer = {"approved": True, "quality_score": 88, "feedback": "Clear and correct."}
        return ollama_chat(json.dumps(answer))
