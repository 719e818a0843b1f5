"""Scripted reviewers for stream tests: used only where the real reviewer would need a model or
the internet (the validator is always the real one). What a scripted reviewer answers depends on
the draft id's prefix, so one running stream can exercise every decision path."""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import Mapping

from agents.base import ReviewerSpec
from schemas import DraftSubmitted, Provider, ReviewerResult

APPROVE = "approve"  # score `score`, approved
HOLD = "hold"  # wait until released (or cancelled)
NEVER = "never"  # wait forever (until cancelled)
INVALID = "invalid"  # answer with a result the codec refuses (score 150)


class Scripted:
    """A reviewer answering per draft-id prefix; records what it started and what was cancelled."""

    def __init__(
        self,
        name: str,
        provider: Provider,
        *,
        paid: bool = False,
        score: float = 90.0,
        script: Mapping[str, str] | None = None,
    ) -> None:
        self.name = name
        self.provider = provider
        self.paid = paid
        self.score = score
        self.script = dict(script or {})
        self.started: dict[str, int] = defaultdict(int)
        self.cancelled: list[str] = []
        self._gates: dict[str, asyncio.Event] = {}
        self._started_events: dict[str, asyncio.Event] = {}

    @property
    def spec(self) -> ReviewerSpec:
        return ReviewerSpec(self.name, self.provider, self.review, lambda _s: True, self.paid)

    def action(self, draft_id: str) -> str:
        for prefix, action in self.script.items():
            if draft_id.startswith(prefix):
                return action
        return APPROVE

    def release(self, draft_id: str) -> None:
        self._gate(draft_id).set()

    def _gate(self, draft_id: str) -> asyncio.Event:
        return self._gates.setdefault(draft_id, asyncio.Event())

    async def wait_started(self, draft_id: str) -> None:
        await self._started_events.setdefault(draft_id, asyncio.Event()).wait()

    async def review(self, draft: DraftSubmitted, settings: object, deps: object) -> ReviewerResult:
        self.started[draft.draft_id] += 1
        self._started_events.setdefault(draft.draft_id, asyncio.Event()).set()
        action = self.action(draft.draft_id)
        try:
            if action == HOLD:
                await self._gate(draft.draft_id).wait()
            elif action == NEVER:
                await asyncio.Event().wait()
        except asyncio.CancelledError:
            self.cancelled.append(draft.draft_id)
            raise
        if action == INVALID:
            return ReviewerResult(self.name, True, 150.0, "out of range", self.provider)
        return ReviewerResult(self.name, True, self.score, "scripted approval", self.provider)
