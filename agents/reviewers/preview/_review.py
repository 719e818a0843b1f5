"""The preview reviewer (provider `vision_gate`, off by default): does the rendered preview page
(`preview_url`, screenshotted through the URL guard: _screenshot.py) look right? Pass at
`qa_preview_pass_threshold`. Its prompt, answer schema and reader are here; what it shares with
the vision reviewer is agents/reviewers/_vision.py.
"""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

from agents.base import Deps, not_applicable
from agents.llm import Prompt, fence_data, read_list, read_score, read_text
from agents.llm import answer_schema as S
from agents.net import client_for
from agents.reviewers._vision import (
    PROVIDER,
    ImageProblem,
    judge,
    model_problem,
    no_verdict,
    prepare_image,
)
from agents.reviewers.preview._screenshot import PlaywrightScreenshotter, PreviewError
from agents.settings import Settings
from schemas.records import DraftSubmitted, Finding, ReviewerResult, Severity

# A full-page screenshot is tall; this keeps it legible without costing tens of thousands of
# image tokens.
PREVIEW_MAX_SIDE = 4096

# The answer's schema beside its reader.
MAX_PREVIEW_ISSUES = 10
PREVIEW_ISSUE_CHARS = 200
PREVIEW_SUMMARY_CHARS = 500
PREVIEW_SCHEMA: dict[str, Any] = S.answer_object(
    score=S.score(),
    issues=S.items(S.text(PREVIEW_ISSUE_CHARS), MAX_PREVIEW_ISSUES),
    summary=S.text(PREVIEW_SUMMARY_CHARS),
)


@dataclasses.dataclass(frozen=True, slots=True)
class PreviewVerdict:
    score: float
    issues: tuple[str, ...]
    summary: str


def read_preview(answer: dict[str, Any]) -> PreviewVerdict:
    issues = tuple(
        read_text({"i": i}, "i", limit=PREVIEW_ISSUE_CHARS)
        for i in read_list(answer, "issues", limit=MAX_PREVIEW_ISSUES)
    )
    summary = read_text(answer, "summary", limit=PREVIEW_SUMMARY_CHARS)
    return PreviewVerdict(read_score(answer, "score"), issues, summary)


def preview_prompt(draft: DraftSubmitted, screenshot: bytes) -> Prompt:
    fenced = fence_data([("TITLE", draft.title), ("TOPIC", draft.topic or "(none given)")])
    system = (
        "You look at a full-page screenshot of an article as it will be published and judge "
        "whether it renders correctly: broken layout, overlapping or cut-off text, raw Markdown "
        "or HTML showing, broken or missing images, empty sections, unreadable contrast. Do not "
        f"judge the writing. {fenced.rules} Answer with one JSON object only: "
        '{"score": 0-100 (100 = renders perfectly), "issues": ["..."], "summary": "..."}'
    )
    user = f"The screenshot is attached. The article's details:\n\n{fenced.block}"
    return Prompt(system=system, user=user, schema=PREVIEW_SCHEMA, images=(screenshot,))


async def review_preview(draft: DraftSubmitted, settings: Settings, deps: Deps) -> ReviewerResult:
    name, model = "preview", settings.qa_preview_vision_model
    if not draft.preview_url:
        return not_applicable(name, PROVIDER, "the draft has no preview_url")
    problem = await model_problem(model, settings, deps)
    if problem:
        return no_verdict(name, draft, problem.reason, misconfigured=problem.misconfigured)
    screenshotter = deps.screenshotter or PlaywrightScreenshotter()
    try:
        async with client_for(deps.http, settings) as http:
            png = await screenshotter.capture(draft.preview_url, settings, http)
        prepared = await asyncio.to_thread(prepare_image, png, max_side=PREVIEW_MAX_SIDE)
    except PreviewError as exc:
        return no_verdict(name, draft, f"preview not rendered: {exc.reason}")
    except ImageProblem as exc:
        return no_verdict(name, draft, f"unreadable screenshot: {exc}")
    outcome = await judge(
        name, model, preview_prompt(draft, prepared.data), read_preview, draft, settings, deps
    )
    if isinstance(outcome, ReviewerResult):
        return outcome
    verdict, cost = outcome
    threshold = settings.qa_preview_pass_threshold
    findings = tuple(Finding("preview_issue", Severity.WARNING, issue) for issue in verdict.issues)
    feedback = f"Rendered preview scored {verdict.score:g} (pass at {threshold:g})."
    if verdict.summary:
        feedback += f" {verdict.summary}"
    if verdict.issues:
        feedback += " Issues: " + "; ".join(verdict.issues)
    return ReviewerResult(
        name,
        verdict.score >= threshold,
        verdict.score,
        feedback[:4000],
        PROVIDER,
        findings=findings,
        cost=cost,
    )
