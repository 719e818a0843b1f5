"""The rendered-preview gate with the machine's Chromium: a real page served locally, every request
of the browser answered through the real URL guard, the screenshot checked where it lands (the
fake vision server)."""

from __future__ import annotations

import base64
import io
import logging
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from PIL import Image, ImageStat

from agents.base import Deps, is_not_applicable
from agents.net import GuardedClient
from agents.reviewers.preview import review_preview
from agents.reviewers.preview._screenshot import _content_type, _page_height
from agents.settings import Settings
from schemas.records import ReviewStatus
from tests.agents.fakes import FakeOllama, ollama_chat
from tests.helpers.drafts import make_draft
from tests.helpers.http import Reply, StaticSite

VISION = "qwen3-vl:30b"
VERDICT = {"score": 85, "issues": ["hero image is small"], "summary": "Renders cleanly."}


def png(color: str, size: tuple[int, int] = (200, 120)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, color).save(out, format="PNG")
    return out.getvalue()


def page(site: StaticSite, elsewhere: StaticSite) -> bytes:
    return f"""<!doctype html>
<html><head><title>Coffee</title><link rel="stylesheet" href="/style.css"></head>
<body>
  <h1>How to brew pour-over coffee</h1>
  <img id="hero" src="{site.url}/hero.png" width="200" height="120">
  <div class="tall">Grind, bloom, pour.</div>
  <img src="{elsewhere.url}/tracker.png">
  <iframe src="{elsewhere.url}/frame.html"></iframe>
  <script>fetch("{elsewhere.url}/beacon", {{method: "POST", body: "x"}}).catch(() => 0);
          fetch("/api/post", {{method: "POST", body: "x"}}).catch(() => 0);</script>
</body></html>""".encode()


CSS = b"body { background: #ffffff; margin: 0; } .tall { height: 1600px; background: #204080; }"


@pytest.fixture
def sites() -> Any:
    with StaticSite() as site, StaticSite(host="127.0.0.2") as elsewhere:
        site.pages.update(
            {
                "/post": Reply(200, page(site, elsewhere), "text/html"),
                "/style.css": Reply(200, CSS, "text/css"),
                "/hero.png": Reply(200, png("red"), "image/png"),
            }
        )
        elsewhere.pages["/tracker.png"] = Reply(200, png("black"), "image/png")
        yield site, elsewhere


@pytest.fixture
def preview_settings(llm_settings: Settings) -> Settings:
    return llm_settings.with_overrides(
        qa_preview_screenshot_enabled=True,
        qa_preview_vision_model=f"ollama/{VISION}",
        qa_preview_viewport_width=800,
        qa_preview_viewport_height=600,
        qa_preview_timeout_seconds=30.0,
        qa_url_allowlist="127.0.0.1",  # the page's own server; 127.0.0.2 stays refused
        qa_citation_timeout_seconds=5.0,
    )


@pytest_asyncio.fixture
async def preview_deps(
    llm_deps: Deps, preview_settings: Settings, fake_ollama: FakeOllama
) -> AsyncIterator[Deps]:
    fake_ollama.add_model(VISION, "completion", "vision", "thinking")
    async with GuardedClient(preview_settings) as http:
        llm_deps.http = http
        yield llm_deps


@pytest.mark.browser
async def test_preview_renders_and_the_screenshot_reaches_the_model(
    sites: tuple[StaticSite, StaticSite],
    fake_ollama: FakeOllama,
    preview_settings: Settings,
    preview_deps: Deps,
) -> None:
    site, elsewhere = sites
    fake_ollama.always(VISION, ollama_chat(VERDICT))
    draft = make_draft(preview_url=f"{site.url}/post")
    result = await review_preview(draft, preview_settings, preview_deps)
    assert (result.status, result.approved, result.score) == (ReviewStatus.OK, True, 85.0)
    assert [f.code for f in result.findings] == ["preview_issue"]
    assert "Renders cleanly." in result.feedback

    (body,) = fake_ollama.chats(VISION)
    assert body["options"]["num_predict"] == preview_settings.qa_vision_thinking_num_predict
    (encoded,) = body["messages"][-1]["images"]
    shot = Image.open(io.BytesIO(base64.b64decode(encoded)))
    assert shot.format == "PNG"
    assert shot.width == 800
    assert shot.height >= 1600  # the full page, not just the 600-pixel viewport
    rgb = shot.convert("RGB")
    assert max(hi - lo for lo, hi in ImageStat.Stat(rgb).extrema) > 100  # not blank
    assert rgb.getpixel((400, 1000)) == (32, 64, 128)  # the stylesheet applied
    red, green, _ = rgb.getpixel((50, 100))  # type: ignore[misc]  # the red hero image
    assert red > 200 and green < 60

    # The browser got everything from the page's own server, through the guard ...
    assert {s.path for s in site.seen} == {"/post", "/style.css", "/hero.png"}
    assert all(s.method == "GET" for s in site.seen)  # the page's POST was never sent
    # ... and nothing at all from the address that is not allowlisted.
    assert elsewhere.seen == []


@pytest.mark.browser
async def test_preview_url_refused_by_the_guard(
    sites: tuple[StaticSite, StaticSite],
    fake_ollama: FakeOllama,
    preview_settings: Settings,
    preview_deps: Deps,
    caplog: pytest.LogCaptureFixture,
) -> None:
    _, elsewhere = sites
    caplog.set_level(logging.WARNING)
    draft = make_draft(preview_url=f"{elsewhere.url}/tracker.png")
    result = await review_preview(draft, preview_settings, preview_deps)
    assert result.status is ReviewStatus.SKIPPED
    assert "preview not rendered" in result.feedback
    assert elsewhere.seen == []
    assert fake_ollama.chats() == []
    assert any("[VISION_QA] preview" in r.getMessage() for r in caplog.records)


@pytest.mark.browser
async def test_preview_page_missing(
    sites: tuple[StaticSite, StaticSite], preview_settings: Settings, preview_deps: Deps
) -> None:
    site, _ = sites
    result = await review_preview(
        make_draft(preview_url=f"{site.url}/nope"), preview_settings, preview_deps
    )
    assert result.status is ReviewStatus.SKIPPED
    assert "HTTP 404" in result.feedback


@pytest.mark.browser
async def test_preview_hung_subresource_and_endless_script(
    sites: tuple[StaticSite, StaticSite],
    fake_ollama: FakeOllama,
    preview_settings: Settings,
    preview_deps: Deps,
) -> None:
    site, _ = sites
    site.pages["/stuck"] = Reply(200, b"<h1>Coffee</h1><img src='/never.png'>", "text/html")
    site.pages["/never.png"] = Reply(hang=True)
    site.pages["/spin"] = Reply(200, b"<h1>x</h1><script>while (true) {}</script>", "text/html")
    fake_ollama.always(VISION, ollama_chat(VERDICT))
    # 20 s for the hung image: launching Chromium and loading the page take 2-3 s on a quiet
    # 2-core machine but over 8 s at load 10-13 (failed there with 8 s), and "load" is given up on
    # after half the time left, so the budget covers a slow launch twice over.
    hung = preview_settings.with_overrides(qa_preview_timeout_seconds=20.0)
    # An image that never arrives: the page is judged as it stands.
    result = await review_preview(make_draft(preview_url=f"{site.url}/stuck"), hung, preview_deps)
    assert (result.status, result.score) == (ReviewStatus.OK, 85.0), result.feedback
    # A script that never yields: the whole capture is bounded by the preview timeout (8 s: this
    # case always waits its whole budget, and any budget shows the bound).
    settings = preview_settings.with_overrides(qa_preview_timeout_seconds=8.0)
    result = await review_preview(
        make_draft(preview_url=f"{site.url}/spin"), settings, preview_deps
    )
    assert result.status is ReviewStatus.SKIPPED
    assert "did not render within 8s" in result.feedback


async def test_preview_without_url_or_model(
    fake_ollama: FakeOllama, preview_settings: Settings, preview_deps: Deps
) -> None:
    result = await review_preview(make_draft(), preview_settings, preview_deps)
    assert is_not_applicable(result)
    assert result.feedback == "not applicable: the draft has no preview_url"
    settings = preview_settings.with_overrides(qa_preview_vision_model="ollama/absent:1b")
    fake_ollama.add_model("absent:1b", "completion")
    result = await review_preview(
        make_draft(preview_url="http://127.0.0.1:1/x"), settings, preview_deps
    )
    assert "has no vision capability" in result.feedback


class FixedShot:
    """A stand-in screenshotter (Deps.screenshotter is the seam) for the answer-side tests."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.urls: list[str] = []

    async def capture(self, url: str, settings: Settings, http: Any) -> bytes:
        self.urls.append(url)
        return self.data


@pytest.mark.parametrize(
    ("reply", "cause"),
    [
        pytest.param(ollama_chat({**VERDICT, "score": 150}), "outside 0-100", id="150"),
        pytest.param(ollama_chat({**VERDICT, "score": "ninety"}), "not a number", id="ninety"),
        pytest.param(ollama_chat("x" * (10 * 1024 * 1024)), "bytes", id="10MB"),
        pytest.param(Reply(hang=True), "did not answer", id="hang"),
    ],
)
async def test_preview_bad_answers(
    fake_ollama: FakeOllama,
    preview_settings: Settings,
    preview_deps: Deps,
    reply: Reply,
    cause: str,
) -> None:
    fake_ollama.always(VISION, reply)
    preview_deps.screenshotter = FixedShot(png("white", (800, 2000)))
    result = await review_preview(
        make_draft(preview_url="https://preview.example/p/1"), preview_settings, preview_deps
    )
    assert result.status is ReviewStatus.SKIPPED
    assert cause in result.feedback
    assert [f.code for f in result.findings] == ["vision_scorer_unavailable"]


async def test_preview_threshold_and_unreadable_screenshot(
    fake_ollama: FakeOllama, preview_settings: Settings, preview_deps: Deps
) -> None:
    fake_ollama.always(VISION, ollama_chat({**VERDICT, "score": 69}))
    preview_deps.screenshotter = FixedShot(png("white"))
    draft = make_draft(preview_url="https://preview.example/p/1")
    result = await review_preview(draft, preview_settings, preview_deps)
    assert (result.status, result.approved, result.score) == (ReviewStatus.OK, False, 69.0)
    preview_deps.screenshotter = FixedShot(b"not a png")
    result = await review_preview(draft, preview_settings, preview_deps)
    assert "unreadable screenshot" in result.feedback


def test_page_height_from_an_untrusted_script() -> None:
    assert _page_height(2400, 600) == 2400
    assert _page_height(10**9, 600) == 10_000
    for nonsense in (float("nan"), -5, 0, "9999", None, True, [1]):
        assert _page_height(nonsense, 600) == 600


def test_content_types_for_fulfilled_requests() -> None:
    assert _content_type("document", "http://a/x.png", b"<html>") == "text/html"
    assert _content_type("stylesheet", "http://a/x", b"") == "text/css"
    assert _content_type("image", "http://a/x", png("red")) == "image/png"
    assert _content_type("image", "http://a/x", b"RIFF\0\0\0\0WEBPVP8 ") == "image/webp"
    assert _content_type("font", "http://a/f.woff2?v=1", b"wOF2") == "font/woff2"
    assert _content_type("other", "http://a/x", b"?") == "application/octet-stream"
