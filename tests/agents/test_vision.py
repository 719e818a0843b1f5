"""The image-relevance gate: images found in the draft, downloaded through the real URL guard from
local servers, normalised with Pillow, and judged by a fake vision model; every no-verdict path."""

from __future__ import annotations

import base64
import io
import logging
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from PIL import Image

from agents.base import Deps, is_not_applicable
from agents.llm import LLMRouter
from agents.net import GuardedClient
from agents.reviewers.preview import SPECS as PREVIEW_SPECS
from agents.reviewers.vision import SPECS as VISION_SPECS
from agents.reviewers.vision import ImageProblem, find_images, prepare_image, review_images
from agents.reviewers.vision._images import decode_data_uri
from agents.settings import Settings
from schemas.records import Provider, ReviewStatus
from tests.agents.fakes import FakeOllama, ollama_chat
from tests.helpers.drafts import make_draft
from tests.helpers.http import Reply, StaticSite
from tests.helpers.ports import closed_port_url

VISION = "qwen3-vl:30b"


def picture(fmt: str, size: tuple[int, int] = (64, 48), color: str = "red") -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, color).save(out, format=fmt)
    return out.getvalue()


PNG, JPEG, WEBP = picture("PNG"), picture("JPEG", color="blue"), picture("WEBP", color="green")


@pytest.fixture
def site() -> Any:
    with StaticSite() as server:
        server.pages.update(
            {
                "/a.png": Reply(200, PNG, "image/png"),
                "/b.jpg": Reply(200, JPEG, "image/jpeg"),
                "/c.webp": Reply(200, WEBP, "image/webp"),
                "/notes.txt": Reply(200, b"not an image", "text/plain"),
                "/big.png": Reply(200, picture("PNG", (1200, 900)), "image/png"),
            }
        )
        yield server


@pytest.fixture
def vision_settings(llm_settings: Settings, site: StaticSite) -> Settings:
    return llm_settings.with_overrides(
        qa_vision_check_enabled=True,
        qa_vision_model=f"ollama/{VISION}",
        qa_url_allowlist="127.0.0.1",
        qa_citation_timeout_seconds=2.0,
    )


@pytest_asyncio.fixture
async def vision_deps(
    llm_deps: Deps, vision_settings: Settings, fake_ollama: FakeOllama
) -> AsyncIterator[Deps]:
    fake_ollama.add_model(VISION, "completion", "vision", "thinking")
    async with GuardedClient(vision_settings) as http:
        llm_deps.http = http
        yield llm_deps


def sent_images(fake: FakeOllama) -> list[Image.Image]:
    (body,) = fake.chats(VISION)
    return [Image.open(io.BytesIO(base64.b64decode(i))) for i in body["messages"][-1]["images"]]


def answer(*scores: Any, **extra: Any) -> Reply:
    return ollama_chat(
        {"scores": list(scores), "reasons": [f"r{i}" for i in range(len(scores))], "overall": 70}
        | extra
    )


async def test_images_judged_featured_first_webp_as_jpeg(
    site: StaticSite, fake_ollama: FakeOllama, vision_settings: Settings, vision_deps: Deps
) -> None:
    content = (
        f"---\ntitle: Coffee\nfeatured_image: {site.url}/c.webp\n---\n"
        f'Intro.\n\n![a red mug]({site.url}/a.png "Mug")\n\n'
        f'<p><img class="x" src="{site.url}/b.jpg"></p>\n\n![again]({site.url}/a.png)'
    )
    fake_ollama.always(VISION, answer(80, 70, 90))
    result = await review_images(make_draft(content=content), vision_settings, vision_deps)
    assert (result.status, result.approved, result.score) == (ReviewStatus.OK, True, 80.0)
    assert result.provider is Provider.VISION_GATE
    images = sent_images(fake_ollama)
    assert [i.format for i in images] == ["JPEG", "PNG", "JPEG"]  # WebP converted
    red, green, _ = images[0].convert("RGB").getpixel((5, 5))  # type: ignore[misc]
    assert green > 100 > red  # the featured (green WebP) image came first
    (body,) = fake_ollama.chats(VISION)
    assert body["options"]["num_predict"] == vision_settings.qa_vision_thinking_num_predict
    assert "a red mug" in body["messages"][-1]["content"]
    assert sorted(s.path for s in site.seen) == ["/a.png", "/b.jpg", "/c.webp"]  # a.png once


async def test_pass_threshold_and_low_scores(
    site: StaticSite, fake_ollama: FakeOllama, vision_settings: Settings, vision_deps: Deps
) -> None:
    fake_ollama.always(VISION, answer(90, 20))
    content = f"![a]({site.url}/a.png) ![b]({site.url}/b.jpg)"
    result = await review_images(make_draft(content=content), vision_settings, vision_deps)
    assert (result.status, result.approved, result.score) == (ReviewStatus.OK, False, 55.0)
    assert [f.code for f in result.findings] == ["irrelevant_image"]


async def test_at_most_max_images_and_large_ones_scaled(
    site: StaticSite, fake_ollama: FakeOllama, vision_settings: Settings, vision_deps: Deps
) -> None:
    fake_ollama.always(VISION, answer(75, 75))
    content = " ".join(f"![x]({site.url}/{p})" for p in ("big.png", "b.jpg", "a.png", "c.webp"))
    settings = vision_settings.with_overrides(qa_vision_max_images=2)
    result = await review_images(make_draft(content=content), settings, vision_deps)
    assert result.status is ReviewStatus.OK
    images = sent_images(fake_ollama)
    assert len(images) == 2
    assert images[0].size == (1200, 900)  # within the size limit: sent as it is


async def test_unreadable_oversized_and_refused_images_are_findings(
    site: StaticSite, fake_ollama: FakeOllama, vision_settings: Settings, vision_deps: Deps
) -> None:
    with StaticSite(host="127.0.0.2") as elsewhere:
        elsewhere.pages["/d.png"] = Reply(200, PNG, "image/png")
        fake_ollama.always(VISION, answer(66))
        content = (
            f"![ok]({site.url}/a.png) ![txt]({site.url}/notes.txt) ![big]({site.url}/big.png) "
            f"![internal]({elsewhere.url}/d.png) ![gone]({site.url}/missing.png)"
        )
        settings = vision_settings.with_overrides(
            qa_vision_max_images=5, qa_vision_max_image_bytes=2048
        )
        result = await review_images(make_draft(content=content), settings, vision_deps)
        assert elsewhere.seen == []  # the guard refused 127.0.0.2 before connecting
    assert (result.status, result.score) == (ReviewStatus.OK, 66.0)
    assert len(sent_images(fake_ollama)) == 1
    problems = " | ".join(f.message for f in result.findings if f.code == "unreadable_image")
    assert "notes.txt: unreadable image" in problems
    assert "big.png: download failed (too_large)" in problems
    assert "d.png: refused by the URL guard" in problems
    assert "missing.png: download failed (http_error)" in problems


async def test_without_a_guard_client_the_default_guard_is_used(
    site: StaticSite, fake_ollama: FakeOllama, llm_deps: Deps, vision_settings: Settings
) -> None:
    fake_ollama.add_model(VISION, "completion", "vision")
    fake_ollama.always(VISION, answer(70))
    assert llm_deps.http is None
    content = f"![x]({site.url}/a.png)"
    result = await review_images(make_draft(content=content), vision_settings, llm_deps)
    assert result.status is ReviewStatus.OK
    # ... and it still refuses what is not allowlisted.
    settings = vision_settings.with_overrides(qa_url_allowlist="")
    result = await review_images(make_draft(content=content), settings, llm_deps)
    assert result.status is ReviewStatus.SKIPPED
    assert "refused by the URL guard" in result.feedback


def no_verdict_warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.levelno == logging.WARNING and "[VISION_QA]" in r.getMessage()
    ]


@pytest.mark.parametrize(
    ("content", "reply", "cause"),
    [
        pytest.param("![x](/rel.png)", None, "no site URL to resolve it", id="relative"),
        pytest.param("![x](ftp://a/b.png)", None, "scheme 'ftp' is not fetched", id="ftp"),
        pytest.param("![x]({url}/notes.txt)", None, "no readable images", id="unreadable-only"),
        pytest.param(
            "![x]({url}/a.png)",
            ollama_chat("<think>the image shows " + "a mug " * 50, done_reason="length"),
            "reasoning trace never ended",
            id="budget-exhausted",
        ),
        pytest.param("![x]({url}/a.png)", ollama_chat(""), "empty answer", id="empty"),
        pytest.param("![x]({url}/a.png)", answer(150), "outside 0-100", id="score-150"),
        pytest.param("![x]({url}/a.png)", answer("ninety"), "not a number", id="ninety"),
        pytest.param(
            "![x]({url}/a.png) ![y]({url}/b.jpg)", answer(80), "scores for 1 of 2", id="count"
        ),
        pytest.param("![x]({url}/a.png)", Reply(hang=True), "did not answer", id="hang"),
        pytest.param(
            "![x]({url}/a.png)", ollama_chat("x" * (10 * 1024 * 1024)), "bytes", id="10MB"
        ),
    ],
)
async def test_no_verdict_paths_skip_and_log_their_cause(
    site: StaticSite,
    fake_ollama: FakeOllama,
    vision_settings: Settings,
    vision_deps: Deps,
    caplog: pytest.LogCaptureFixture,
    content: str,
    reply: Reply | None,
    cause: str,
) -> None:
    if reply is not None:
        fake_ollama.always(VISION, reply)
    caplog.set_level(logging.WARNING)
    draft = make_draft(content=content.replace("{url}", site.url))
    result = await review_images(draft, vision_settings, vision_deps)
    assert result.status is ReviewStatus.SKIPPED
    assert cause in result.feedback
    assert [f.code for f in result.findings] == ["vision_scorer_unavailable"]
    assert any(cause in w for w in no_verdict_warnings(caplog))


async def test_no_images_is_not_applicable(
    fake_ollama: FakeOllama, vision_settings: Settings, vision_deps: Deps
) -> None:
    result = await review_images(
        make_draft(content="No pictures here."), vision_settings, vision_deps
    )
    assert (
        is_not_applicable(result) and result.feedback == "not applicable: the draft has no images"
    )
    assert fake_ollama.chats() == []  # the model is not asked


async def test_thinking_trace_with_the_bumped_budget_still_answers(
    site: StaticSite, fake_ollama: FakeOllama, vision_settings: Settings, vision_deps: Deps
) -> None:
    trace = "<think>" + "The mug is red. " * 200 + "</think>"
    fake_ollama.always(
        VISION, ollama_chat(trace + '{"scores": [72], "reasons": ["mug"], "overall": 72}')
    )
    result = await review_images(
        make_draft(content=f"![x]({site.url}/a.png)"), vision_settings, vision_deps
    )
    assert (result.status, result.score) == (ReviewStatus.OK, 72.0)


async def test_unreachable_model_and_missing_vision_capability(
    site: StaticSite,
    fake_ollama: FakeOllama,
    vision_settings: Settings,
    vision_deps: Deps,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING)
    content = f"![x]({site.url}/a.png)"
    fake_ollama.add_model("gemma3:1b", "completion")
    settings = vision_settings.with_overrides(qa_vision_model="ollama/gemma3:1b")
    result = await review_images(make_draft(content=content), settings, vision_deps)
    assert "has no vision capability" in result.feedback
    down = vision_settings.with_overrides(ollama_base_url=closed_port_url())
    deps = Deps(llm=LLMRouter.from_settings(down), http=vision_deps.http)
    result = await review_images(make_draft(content=content), down, deps)
    assert result.status is ReviewStatus.SKIPPED
    assert "vision model unreachable: Ollama not available" in result.feedback
    assert len(no_verdict_warnings(caplog)) == 2
    assert site.seen == []  # no image downloaded for a model that cannot judge it


async def test_relative_images_resolve_against_the_site(
    site: StaticSite, fake_ollama: FakeOllama, vision_settings: Settings, vision_deps: Deps
) -> None:
    fake_ollama.always(VISION, answer(64))
    settings = vision_settings.with_overrides(site_url=f"{site.url}/blog/")
    result = await review_images(make_draft(content="![x](/a.png)"), settings, vision_deps)
    assert result.status is ReviewStatus.OK
    assert [s.path for s in site.seen] == ["/a.png"]


async def test_inline_data_uri_image(
    fake_ollama: FakeOllama, vision_settings: Settings, vision_deps: Deps
) -> None:
    fake_ollama.always(VISION, answer(61))
    uri = "data:image/png;base64," + base64.b64encode(PNG).decode()
    result = await review_images(make_draft(content=f"![x]({uri})"), vision_settings, vision_deps)
    assert (result.status, result.score) == (ReviewStatus.OK, 61.0)


# --- the helpers, directly ---------------------------------------------------------------------


def test_find_images_order_dedupe_and_limit() -> None:
    content = (
        "---\ncover_image: 'https://cdn.example/cover.jpg'\n---\n"
        "![one](https://a.example/1.png) <img src='https://a.example/2.png'> "
        "![dup](https://a.example/1.png) ![three](<https://a.example/3.png>)"
    )
    refs, problems = find_images(content, base_url=None, limit=3)
    assert [r.url for r in refs] == [
        "https://cdn.example/cover.jpg",
        "https://a.example/1.png",
        "https://a.example/2.png",
    ]
    assert refs[0].featured and not refs[1].featured
    assert problems == []


def test_find_images_in_a_huge_draft_is_bounded() -> None:
    content = "![x](https://a.example/img.png?n={}) ".replace("{}", "1") * 10_000
    content += "".join(f"![x](https://a.example/{i}.png)" for i in range(10_000))
    refs, _ = find_images(content, base_url=None, limit=3)
    assert len(refs) == 3


@pytest.mark.filterwarnings("ignore::PIL.Image.DecompressionBombWarning")
def test_prepare_image_refuses_bombs_and_garbage() -> None:
    # A 12000 x 12000 single-colour PNG is small on disk but 144 million pixels.
    bomb = io.BytesIO()
    Image.new("1", (12000, 12000)).save(bomb, format="PNG")
    with pytest.raises(ImageProblem, match="pixels"):
        prepare_image(bomb.getvalue())
    with pytest.raises(ImageProblem, match="unreadable"):
        prepare_image(b"\x89PNG\r\n\x1a\n truncated")
    with pytest.raises(ImageProblem, match="unreadable"):
        prepare_image(PNG[: len(PNG) // 2])
    with pytest.raises(ImageProblem, match="larger than"):
        decode_data_uri("data:image/png;base64," + "A" * 10_000, 1000)


def test_prepare_image_converts_and_scales() -> None:
    transparent = io.BytesIO()
    Image.new("RGBA", (3000, 1000), (255, 0, 0, 0)).save(transparent, format="WEBP")
    prepared = prepare_image(transparent.getvalue())
    image = Image.open(io.BytesIO(prepared.data))
    assert (image.format, image.size) == ("JPEG", (2048, 683))
    gif = io.BytesIO()
    Image.new("P", (10, 10)).save(gif, format="GIF")
    assert Image.open(io.BytesIO(prepare_image(gif.getvalue()).data)).format == "JPEG"
    assert prepare_image(PNG).data == PNG  # already fine: untouched


def test_specs_default_off() -> None:
    specs = (*VISION_SPECS, *PREVIEW_SPECS)
    assert [s.name for s in specs] == ["vision", "preview"]
    for spec in specs:
        assert spec.provider is Provider.VISION_GATE
        assert not spec.enabled(Settings())
    on = Settings(qa_vision_check_enabled=True, qa_preview_screenshot_enabled=True)
    assert all(spec.enabled(on) for spec in specs)


def test_find_images_skips_code_and_keeps_alt_text() -> None:
    content = (
        "```md\n![in code](https://a.example/code.png)\n```\n"
        "Inline `![also code](https://a.example/inline.png)` and "
        "![A kettle on a stove](https://a.example/kettle.png)"
    )
    refs, _ = find_images(content, base_url=None, limit=5)
    assert [(r.url, r.alt) for r in refs] == [
        ("https://a.example/kettle.png", "A kettle on a stove")
    ]
