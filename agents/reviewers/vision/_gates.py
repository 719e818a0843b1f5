"""The two vision reviewers (provider `vision_gate`), both off by default.

- vision: are the draft's images (featured first, up to `qa_vision_max_images`) relevant to it?
  Pass at an average score >= `qa_vision_pass_threshold`.
- preview: does the rendered preview page look right? Pass at `qa_preview_pass_threshold`.

Thinking vision models (qwen3-vl) share their output budget between the reasoning trace and the
answer; at the standard budget the trace can use it all and no scores come out, so they get
`qa_vision_thinking_num_predict`. Every path that ends without a verdict logs a `[VISION_QA]`
warning naming its cause and adds a `vision_scorer_unavailable` finding, so "passed open" is
always explained.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Callable
from typing import Any

from agents.base import Deps, errored, not_applicable, skipped
from agents.llm import (
    AnswerError,
    Prompt,
    Unusable,
    ask,
    fence_data,
    model_unusable,
    read_list,
    read_score,
    read_scores,
    read_text,
    router_for,
    token_budget,
)
from agents.llm import answer_schema as S
from agents.net import FetchError, URLRefused, client_for
from agents.reviewers.vision._images import (
    ImageProblem,
    ImageRef,
    PreparedImage,
    decode_data_uri,
    find_images,
    prepare_image,
)
from agents.reviewers.vision._screenshot import Fetcher, PlaywrightScreenshotter, PreviewError
from agents.settings import Settings
from schemas.records import Cost, DraftSubmitted, Finding, Provider, ReviewerResult, Severity

log = logging.getLogger(__name__)

_PROVIDER = Provider.VISION_GATE
# A full-page screenshot is tall; this keeps it legible without costing tens of thousands of
# image tokens.
PREVIEW_MAX_SIDE = 4096


def _no_verdict(
    name: str,
    draft: DraftSubmitted,
    cause: str,
    *,
    cost: Cost | None = None,
    misconfigured: bool = False,
) -> ReviewerResult:
    """Skipped with the cause; an error when the model cannot work as configured (fail closed:
    a vision model that is not pulled, has no vision capability or has no key is a mistake)."""
    log.warning("[VISION_QA] %s %s v%s: no verdict: %s", name, draft.draft_id, draft.version, cause)
    if misconfigured:
        result = errored(name, _PROVIDER, f"{name} error: {cause}"[:2000], cost=cost)
    else:
        result = skipped(name, _PROVIDER, f"{name} skipped: {cause}"[:2000], cost=cost)
    finding = Finding("vision_scorer_unavailable", Severity.INFO, cause[:500])
    return dataclasses.replace(result, findings=(finding,))


async def _model_problem(model: str, settings: Settings, deps: Deps) -> Unusable | None:
    router = router_for(deps, settings)
    unusable = await model_unusable(router, model, settings)
    if unusable is not None:
        what = "misconfigured" if unusable.misconfigured else "unreachable"
        return Unusable(f"vision model {what}: {unusable.reason}", unusable.misconfigured)
    capabilities = await router.capabilities(model)
    if capabilities is not None and "vision" not in capabilities:
        return Unusable(f"model {model} has no vision capability (it cannot see images)", True)
    return None


async def _budget(model: str, settings: Settings, deps: Deps) -> int:
    return await token_budget(
        router_for(deps, settings),
        model,
        settings,
        standard=settings.qa_vision_num_predict,
        thinking=settings.qa_vision_thinking_num_predict,
    )


# --- image relevance --------------------------------------------------------------------------

IMAGE_REASON_CHARS = 200


def images_schema(count: int) -> dict[str, Any]:
    """One score and one short reason per image, exactly `count` of each."""
    return S.answer_object(
        scores=S.items(S.score(), count, min_items=count),
        reasons=S.items(S.text(IMAGE_REASON_CHARS), count),
        overall=S.score(),
    )


@dataclasses.dataclass(frozen=True, slots=True)
class ImagesVerdict:
    scores: tuple[float, ...]
    reasons: tuple[str, ...]

    @property
    def average(self) -> float:
        return sum(self.scores) / len(self.scores)


def images_reader(count: int) -> Callable[[dict[str, Any]], ImagesVerdict]:
    def read(answer: dict[str, Any]) -> ImagesVerdict:
        scores = read_scores(answer, "scores", limit=count)
        if len(scores) < count:
            raise AnswerError(f"scores for {len(scores)} of {count} images")
        reasons = [
            read_text({"r": r}, "r", limit=IMAGE_REASON_CHARS)
            for r in read_list(answer, "reasons", limit=count)
        ]
        if "overall" in answer:
            read_score(answer, "overall")  # validated: a nonsense overall means a confused model
        return ImagesVerdict(tuple(scores), tuple(reasons[:count]))

    return read


def _base_url(draft: DraftSubmitted, settings: Settings) -> str | None:
    if settings.site_url:
        return settings.site_url
    domain = draft.site_domain or settings.site_domain
    return f"https://{domain}/" if domain else None


async def _load_image(ref: ImageRef, http: Fetcher, settings: Settings) -> PreparedImage:
    limit = settings.qa_vision_max_image_bytes
    if ref.url.startswith("data:"):
        data = decode_data_uri(ref.url, limit)
    else:
        try:
            data = await http.fetch_bytes(ref.url, limit)
        except URLRefused as exc:
            raise ImageProblem(f"refused by the URL guard: {exc.reason}") from None
        except FetchError as exc:
            raise ImageProblem(f"download failed ({exc.kind}): {exc.detail}") from None
    if len(data) > limit:
        raise ImageProblem(f"image larger than {limit} bytes")
    return await asyncio.to_thread(prepare_image, data)


def images_prompt(draft: DraftSubmitted, refs: list[ImageRef]) -> Prompt:
    listing = "\n".join(
        f"{i}. {'featured image' if r.featured else 'inline image'}; alt text: {r.alt or '(none)'}"
        for i, r in enumerate(refs, 1)
    )
    fenced = fence_data(
        [("TITLE", draft.title), ("TOPIC", draft.topic or "(none given)"), ("IMAGES", listing)]
    )
    system = (
        "You judge whether the images of an article fit it: does each image show something "
        "relevant to the article's title and topic, and is it a usable picture (not broken, "
        "blank, a placeholder or unrelated stock art)? "
        f"{fenced.rules} Answer with one JSON object only: "
        '{"scores": [one 0-100 score per image, in order], "reasons": [one short reason per '
        'image], "overall": 0-100}'
    )
    user = (
        f"The article's details are below; its {len(refs)} image(s) are attached in the listed "
        f"order.\n\n{fenced.block}"
    )
    return Prompt(system=system, user=user, schema=images_schema(len(refs)))


async def review_images(draft: DraftSubmitted, settings: Settings, deps: Deps) -> ReviewerResult:
    name, model = "vision", settings.qa_vision_model
    refs, problems = find_images(
        draft.content, base_url=_base_url(draft, settings), limit=settings.qa_vision_max_images
    )
    if not refs and not problems:
        return not_applicable(name, _PROVIDER, "the draft has no images")
    if not refs:
        # Images there are, but none this gate can fetch: not "nothing to check".
        return _no_verdict(name, draft, f"no images to judge in the draft ({'; '.join(problems)})")
    problem = await _model_problem(model, settings, deps)
    if problem:
        return _no_verdict(name, draft, problem.reason, misconfigured=problem.misconfigured)

    async with client_for(deps.http, settings) as http:
        loaded = await asyncio.gather(
            *(_load_image(ref, http, settings) for ref in refs), return_exceptions=True
        )
    usable: list[tuple[ImageRef, PreparedImage]] = []
    findings: list[Finding] = []
    for ref, outcome in zip(refs, loaded, strict=True):
        if isinstance(outcome, ImageProblem):
            problems.append(f"{ref.url[:200]}: {outcome}")
            findings.append(Finding("unreadable_image", Severity.WARNING, problems[-1]))
        elif isinstance(outcome, BaseException):
            raise outcome
        else:
            usable.append((ref, outcome))
    if not usable:
        return _no_verdict(name, draft, "no readable images: " + "; ".join(problems))

    prompt = dataclasses.replace(
        images_prompt(draft, [ref for ref, _ in usable]),
        images=tuple(image.data for _, image in usable),
    )
    judgement = await ask(
        router_for(deps, settings),
        model,
        prompt,
        images_reader(len(usable)),
        settings=settings,
        max_tokens=await _budget(model, settings, deps),
        timeout=settings.qa_gate_timeout_seconds,
        attempts=2,
        backoff=settings.qa_gate_retry_backoff_seconds,
        label="VISION_QA",
    )
    verdict = judgement.value
    if verdict is None:
        return _no_verdict(
            name,
            draft,
            judgement.reason,
            cost=judgement.cost,
            misconfigured=judgement.failure == "misconfigured",
        )
    threshold = settings.qa_vision_pass_threshold
    lines = []
    for i, ((ref, _), score) in enumerate(zip(usable, verdict.scores, strict=True)):
        reason = verdict.reasons[i] if i < len(verdict.reasons) else ""
        lines.append(f"{ref.url[:120]}: {score:g}{' - ' + reason if reason else ''}")
        if score < threshold:
            findings.append(Finding("irrelevant_image", Severity.WARNING, lines[-1]))
    average = verdict.average
    feedback = (
        f"{len(usable)} image(s) judged, average {average:.0f} (pass at {threshold:g}). "
        + "; ".join(lines)
    )
    if problems:
        feedback += f". Not judged: {'; '.join(problems)}"
    return ReviewerResult(
        name,
        average >= threshold,
        average,
        feedback[:4000],
        _PROVIDER,
        findings=tuple(findings),
        cost=judgement.cost,
    )


# --- rendered preview -------------------------------------------------------------------------

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
        return not_applicable(name, _PROVIDER, "the draft has no preview_url")
    problem = await _model_problem(model, settings, deps)
    if problem:
        return _no_verdict(name, draft, problem.reason, misconfigured=problem.misconfigured)
    screenshotter = deps.screenshotter or PlaywrightScreenshotter()
    try:
        async with client_for(deps.http, settings) as http:
            png = await screenshotter.capture(draft.preview_url, settings, http)
        prepared = await asyncio.to_thread(prepare_image, png, max_side=PREVIEW_MAX_SIDE)
    except PreviewError as exc:
        return _no_verdict(name, draft, f"preview not rendered: {exc.reason}")
    except ImageProblem as exc:
        return _no_verdict(name, draft, f"unreadable screenshot: {exc}")
    judgement = await ask(
        router_for(deps, settings),
        model,
        preview_prompt(draft, prepared.data),
        read_preview,
        settings=settings,
        max_tokens=await _budget(model, settings, deps),
        timeout=settings.qa_gate_timeout_seconds,
        attempts=2,
        backoff=settings.qa_gate_retry_backoff_seconds,
        label="VISION_QA",
    )
    verdict = judgement.value
    if verdict is None:
        return _no_verdict(
            name,
            draft,
            judgement.reason,
            cost=judgement.cost,
            misconfigured=judgement.failure == "misconfigured",
        )
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
        _PROVIDER,
        findings=findings,
        cost=judgement.cost,
    )
