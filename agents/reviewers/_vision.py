"""What the two vision reviewers (vision: image relevance; preview: the rendered page; provider
`vision_gate`) share: the check that their model can see (`model_problem`), the model call with
their output budget (`judge`), the result of a call without a verdict (`no_verdict`), the URL
guard's interface they fetch through, and turning image bytes into something a vision model
accepts (`prepare_image`).

Thinking vision models (qwen3-vl) share their output budget between the reasoning trace and the
answer; at the standard budget the trace can use it all and no scores come out, so they get
`qa_vision_thinking_num_predict`. Every path that ends without a verdict logs a `[VISION_QA]`
warning naming its cause and adds a `vision_scorer_unavailable` finding, so "passed open" is
always explained.

Image bytes are untrusted: Pillow reads only the header before the pixel count is checked (a small
file can declare a gigapixel canvas), decoding runs in a worker thread, and anything Pillow cannot
read is reported as unreadable rather than raised.
"""

from __future__ import annotations

import dataclasses
import io
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from PIL import Image, UnidentifiedImageError

from agents.base import Deps, errored, skipped
from agents.llm import Prompt, Unusable, ask, model_unusable, router_for, token_budget
from agents.settings import Settings
from schemas import MultiqaError
from schemas.records import Cost, DraftSubmitted, Finding, Provider, ReviewerResult, Severity

log = logging.getLogger(__name__)
T = TypeVar("T")

PROVIDER = Provider.VISION_GATE

# Beyond this many pixels an image is refused before decoding (about a 8000 x 6000 photo).
MAX_PIXELS = 50_000_000
# Longest side sent to a vision model; larger images are scaled down (models downscale anyway, and
# tokens grow with pixels).
MAX_SIDE = 2048


class Fetcher(Protocol):
    """The URL guard's interface as these reviewers fetch through it (agents.net.GuardedClient)."""

    async def fetch_bytes(self, url: str, max_bytes: int) -> bytes: ...


class ImageProblem(MultiqaError, ValueError):
    """An image that cannot be judged (undecodable, too large, unsupported)."""


def no_verdict(
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
        result = errored(name, PROVIDER, f"{name} error: {cause}"[:2000], cost=cost)
    else:
        result = skipped(name, PROVIDER, f"{name} skipped: {cause}"[:2000], cost=cost)
    finding = Finding("vision_scorer_unavailable", Severity.INFO, cause[:500])
    return dataclasses.replace(result, findings=(finding,))


async def model_problem(model: str, settings: Settings, deps: Deps) -> Unusable | None:
    router = router_for(deps, settings)
    unusable = await model_unusable(router, model, settings)
    if unusable is not None:
        what = "misconfigured" if unusable.misconfigured else "unreachable"
        return Unusable(f"vision model {what}: {unusable.reason}", unusable.misconfigured)
    capabilities = await router.capabilities(model)
    if capabilities is not None and "vision" not in capabilities:
        return Unusable(f"model {model} has no vision capability (it cannot see images)", True)
    return None


async def judge(
    name: str,
    model: str,
    prompt: Prompt,
    read: Callable[[dict[str, Any]], T],
    draft: DraftSubmitted,
    settings: Settings,
    deps: Deps,
) -> tuple[T, Cost] | ReviewerResult:
    """Ask the vision model once (one retry), with the vision output budget: the verdict and its
    cost, or the no-verdict result saying why there is none."""
    judgement = await ask(
        router_for(deps, settings),
        model,
        prompt,
        read,
        settings=settings,
        max_tokens=await token_budget(
            router_for(deps, settings),
            model,
            settings,
            standard=settings.qa_vision_num_predict,
            thinking=settings.qa_vision_thinking_num_predict,
        ),
        timeout=settings.qa_gate_timeout_seconds,
        attempts=2,
        backoff=settings.qa_gate_retry_backoff_seconds,
        label="VISION_QA",
    )
    if judgement.value is None:
        return no_verdict(
            name,
            draft,
            judgement.reason,
            cost=judgement.cost,
            misconfigured=judgement.failure == "misconfigured",
        )
    return judgement.value, judgement.cost


@dataclass(frozen=True, slots=True)
class PreparedImage:
    data: bytes  # PNG or JPEG
    width: int
    height: int
    source_format: str


def prepare_image(data: bytes, *, max_side: int = MAX_SIDE) -> PreparedImage:
    """JPEG or PNG bytes no larger than `max_side` on either side. WebP, GIF and other formats are
    converted to JPEG (Ollama's vision models take JPEG and PNG). Raises ImageProblem."""
    try:
        with Image.open(io.BytesIO(data)) as image:
            fmt = (image.format or "").upper()
            width, height = image.size
            if width <= 0 or height <= 0:
                raise ImageProblem("image has no pixels")
            if width * height > MAX_PIXELS:
                raise ImageProblem(f"image is {width}x{height}, more than {MAX_PIXELS} pixels")
            if fmt in ("JPEG", "PNG") and max(width, height) <= max_side:
                image.load()  # decode once, so a truncated file is caught here, not by the model
                return PreparedImage(data, width, height, fmt)
            image.seek(0)  # first frame of an animation
            converted = image.copy()
    except ImageProblem:
        raise
    except (UnidentifiedImageError, OSError, ValueError, Image.DecompressionBombError) as exc:
        raise ImageProblem(f"unreadable image ({type(exc).__name__}: {str(exc)[:120]})") from None
    converted.thumbnail((max_side, max_side))
    out = io.BytesIO()
    if fmt == "PNG":
        # Screenshots and diagrams stay lossless so text in them stays legible.
        converted.save(out, format="PNG", optimize=True)
    else:
        if converted.mode not in ("RGB", "L"):
            background = Image.new("RGB", converted.size, "white")
            rgba = converted.convert("RGBA")
            background.paste(rgba, mask=rgba.getchannel("A"))
            converted = background
        converted.save(out, format="JPEG", quality=85)
    return PreparedImage(out.getvalue(), converted.width, converted.height, fmt or "unknown")
