"""Vision reviewers (provider `vision_gate`): image relevance and the rendered preview, both judged
by a vision model and both off by default. Every image and every byte of the preview page is
fetched through the URL guard (agents.net)."""

from agents.base import ReviewerSpec
from agents.reviewers.vision._gates import (
    images_prompt,
    images_reader,
    preview_prompt,
    read_preview,
    review_images,
    review_preview,
)
from agents.reviewers.vision._images import ImageProblem, ImageRef, find_images, prepare_image
from agents.reviewers.vision._screenshot import (
    CHROMIUM_ARGS,
    Fetcher,
    PlaywrightScreenshotter,
    PreviewError,
    Screenshotter,
)
from schemas.records import Provider

SPECS: tuple[ReviewerSpec, ...] = (
    ReviewerSpec(
        "vision",
        Provider.VISION_GATE,
        review_images,
        lambda s: s.qa_vision_check_enabled,
        paid=True,
    ),
    ReviewerSpec(
        "preview",
        Provider.VISION_GATE,
        review_preview,
        lambda s: s.qa_preview_screenshot_enabled,
        paid=True,
    ),
)

__all__ = [
    "CHROMIUM_ARGS",
    "SPECS",
    "Fetcher",
    "ImageProblem",
    "ImageRef",
    "PlaywrightScreenshotter",
    "PreviewError",
    "Screenshotter",
    "find_images",
    "images_prompt",
    "images_reader",
    "prepare_image",
    "preview_prompt",
    "read_preview",
    "review_images",
    "review_preview",
]
