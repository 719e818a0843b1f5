"""The preview reviewer (provider `vision_gate`): does the rendered preview page look right, judged
by a vision model on a full-page screenshot; off by default. Every byte of the page is fetched
through the URL guard (agents.net)."""

from agents.base import ReviewerSpec
from agents.reviewers._vision import PROVIDER, Fetcher
from agents.reviewers.preview._review import preview_prompt, read_preview, review_preview
from agents.reviewers.preview._screenshot import (
    CHROMIUM_ARGS,
    PlaywrightScreenshotter,
    PreviewError,
    Screenshotter,
)

SPECS: tuple[ReviewerSpec, ...] = (
    ReviewerSpec(
        "preview",
        PROVIDER,
        review_preview,
        lambda s: s.qa_preview_screenshot_enabled,
        paid=True,
    ),
)

__all__ = [
    "CHROMIUM_ARGS",
    "SPECS",
    "Fetcher",
    "PlaywrightScreenshotter",
    "PreviewError",
    "Screenshotter",
    "preview_prompt",
    "read_preview",
    "review_preview",
]
