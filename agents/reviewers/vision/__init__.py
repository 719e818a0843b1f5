"""The vision reviewer (provider `vision_gate`): are the draft's images relevant to it, judged by a
vision model; off by default. Every image is fetched through the URL guard (agents.net)."""

from agents.base import ReviewerSpec
from agents.reviewers._vision import PROVIDER, ImageProblem, prepare_image
from agents.reviewers.vision._images import ImageRef, find_images
from agents.reviewers.vision._review import images_prompt, images_reader, review_images

SPECS: tuple[ReviewerSpec, ...] = (
    ReviewerSpec(
        "vision",
        PROVIDER,
        review_images,
        lambda s: s.qa_vision_check_enabled,
        paid=True,
    ),
)

__all__ = [
    "SPECS",
    "ImageProblem",
    "ImageRef",
    "find_images",
    "images_prompt",
    "images_reader",
    "prepare_image",
    "review_images",
]
