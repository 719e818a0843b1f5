"""Finding a draft's images: the featured image of its front matter first, then its markdown and
HTML images in document order, resolved against the site's URL; inline data: URIs decoded with a
size cap. (Turning the bytes into what a vision model accepts is agents/reviewers/_vision.py.)"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

from agents.links import extract_links
from agents.reviewers._vision import ImageProblem

# Front-matter keys that name the post's featured image (judged first: it is what readers see).
_FEATURED_KEYS = (
    "featured_image",
    "featured_image_url",
    "cover_image",
    "cover",
    "image",
    "thumbnail",
)
_FRONT_MATTER = re.compile(r"\A\ufeff?---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)", re.DOTALL)
_FRONT_MATTER_LINE = re.compile(r"^([A-Za-z_][\w-]*)\s*:\s*[\"']?([^\"'\n]*?)[\"']?\s*$", re.M)
_DATA_URI = re.compile(r"^data:(image/[a-z0-9.+-]+);base64,(.*)$", re.I | re.S)


@dataclass(frozen=True, slots=True)
class ImageRef:
    url: str  # absolute http(s) URL, or a data: URI
    alt: str
    featured: bool = False


def find_images(
    content: str, *, base_url: str | None, limit: int
) -> tuple[list[ImageRef], list[str]]:
    """The first `limit` distinct images of a markdown draft, the featured image first, and the
    problems met on the way (relative URLs with no base, unsupported schemes)."""
    found: list[ImageRef] = []
    problems: list[str] = []
    seen: set[str] = set()

    def add(raw: str, alt: str, featured: bool) -> None:
        if len(found) >= limit:
            return
        url = raw.strip()
        if not url:
            return
        if _DATA_URI.match(url[:200]):
            absolute = url
        else:
            scheme = urlsplit(url).scheme.lower() if ":" in url[:12] else ""
            if not scheme:
                if not base_url:
                    problems.append(
                        f"relative image URL {url[:200]!r} and no site URL to resolve it"
                    )
                    return
                absolute = urljoin(base_url, url)
            elif scheme in ("http", "https"):
                absolute = url
            else:
                problems.append(f"image URL scheme {scheme!r} is not fetched: {url[:200]!r}")
                return
        if absolute in seen:
            return
        seen.add(absolute)
        found.append(ImageRef(absolute, alt.strip()[:300], featured))

    front = _FRONT_MATTER.match(content)
    if front:
        fields = {k.lower(): v for k, v in _FRONT_MATTER_LINE.findall(front.group(1))}
        for key in _FEATURED_KEYS:
            if fields.get(key):
                add(fields[key], "featured image", True)
                break
    body = content[front.end() :] if front else content
    # The one markdown link extraction (code blocks masked), images only, in document order.
    for link in extract_links(body):
        if len(found) >= limit:
            break
        if link.is_image:
            add(link.url, link.alt, False)
    return found, problems


def decode_data_uri(uri: str, max_bytes: int) -> bytes:
    match = _DATA_URI.match(uri)
    if not match:
        raise ImageProblem("not a base64 image data URI")
    payload = match.group(2)
    if len(payload) > (max_bytes * 4) // 3 + 4:
        raise ImageProblem(f"inline image larger than {max_bytes} bytes")
    try:
        return base64.b64decode(payload, validate=False)
    except (binascii.Error, ValueError) as exc:
        raise ImageProblem(f"inline image is not valid base64: {exc}") from None
