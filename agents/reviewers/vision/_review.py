"""The vision reviewer (provider `vision_gate`, off by default): are the draft's images (featured
first, up to `qa_vision_max_images`) relevant to it? Pass at an average score >=
`qa_vision_pass_threshold`. Its prompt, answer schema and reader are here; what it shares with
the preview reviewer (the model check, the budget, no-verdict results, image preparation) is
agents/reviewers/_vision.py.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable
from typing import Any

from agents.base import Deps, not_applicable
from agents.llm import (
    AnswerError,
    Prompt,
    fence_data,
    read_list,
    read_score,
    read_scores,
    read_text,
)
from agents.llm import answer_schema as S
from agents.net import FetchError, URLRefused, client_for
from agents.reviewers._vision import (
    PROVIDER,
    Fetcher,
    ImageProblem,
    PreparedImage,
    judge,
    model_problem,
    no_verdict,
    prepare_image,
)
from agents.reviewers.vision._images import ImageRef, decode_data_uri, find_images
from agents.settings import Settings
from schemas.records import DraftSubmitted, Finding, ReviewerResult, Severity

# The answer's schema beside its reader: one score and one short reason per image.
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
        return not_applicable(name, PROVIDER, "the draft has no images")
    if not refs:
        # Images there are, but none this gate can fetch: not "nothing to check".
        return no_verdict(name, draft, f"no images to judge in the draft ({'; '.join(problems)})")
    problem = await model_problem(model, settings, deps)
    if problem:
        return no_verdict(name, draft, problem.reason, misconfigured=problem.misconfigured)

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
        return no_verdict(name, draft, "no readable images: " + "; ".join(problems))

    prompt = dataclasses.replace(
        images_prompt(draft, [ref for ref, _ in usable]),
        images=tuple(image.data for _, image in usable),
    )
    judged = await judge(name, model, prompt, images_reader(len(usable)), draft, settings, deps)
    if isinstance(judged, ReviewerResult):
        return judged
    verdict, cost = judged
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
        PROVIDER,
        findings=tuple(findings),
        cost=cost,
    )
