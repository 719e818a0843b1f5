"""Finding a draft's images, and turning downloaded bytes into something a vision model accepts.

Image bytes are untrusted: Pillow reads only the header before the pixel count is checked (a small
file can declare a gigapixel canvas), decoding runs in a worker thread, and anything Pillow cannot
read is reported as unreadable rather than raised.
"""

from __future__ import annotations

import base64
import binascii
import io
import re
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

from PIL import Image, UnidentifiedImageError

from agents.links import extract_links
from schemas import MultiqaError

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

# Beyond this many pixels an image is refused before decoding (about a 8000 x 6000 photo).
MAX_PIXELS = 50_000_000
# Longest side sent to a vision model; larger images are scaled down (models downscale anyway, and
# tokens grow with pixels).
MAX_SIDE = 2048


@dataclass(frozen=True, slots=True)
class ImageRef:
    url: str  # absolute http(s) URL, or a data: URI
    alt: str
    featured: bool = False


class ImageProblem(MultiqaError, ValueError):
    """An image that cannot be judged (undecodable, too large, unsupported)."""


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
