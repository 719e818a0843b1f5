"""The decisions pages in a real browser: headless Chromium (Debian's /usr/bin/chromium) through
Playwright, against pages served from what a real stream run (real broker, real validator, the
sinks) wrote to PostgreSQL. Screenshots of every page are kept in test-artifacts/ui/.

A hostile draft (script tags, javascript: links, onerror attributes in its title and text) must
render inert: no dialog, no request to anything but the page's own origin."""

from __future__ import annotations

import asyncio
import shutil
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import pytest_asyncio
from aiohttp import web

from agents.registry import get_reviewer
from schemas import DraftSubmitted
from streams.client import DraftSubmitter
from streams.runtime.app import Runtime, create_app
from streams.runtime.db import create_pool
from streams.runtime.topics import ensure_topics
from streams.ui import DecisionsUI
from tests.helpers.drafts import CLEAN
from tests.helpers.http import StaticSite
from tests.streams.stream_helpers import delete_topics, stream_config

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip
ARTIFACTS = Path(__file__).resolve().parents[3] / "test-artifacts" / "ui"

pytestmark = [
    pytest.mark.asyncio(loop_scope="module"),
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Chromium is not installed"),
]

STATISTIC = CLEAN + "\n\nA 2024 study by a lab found a 47% increase in boil speed.\n"


def hostile(beacon: str) -> tuple[str, str]:
    title = f"<script>alert('title')</script><img src=x onerror=\"fetch('{beacon}/t')\">Kettles"
    content = (
        CLEAN
        + "\n\n[click me](javascript:alert('link')) and <a href=\"javascript:alert(1)\">this</a>\n"
        + f'<img src="{beacon}/img" onerror="alert(\'img\')">\n'
        + f"<script>fetch('{beacon}/script'); alert('content')</script>\n"
        + f'<svg onload="alert(\'svg\')"></svg><iframe src="{beacon}/frame"></iframe>\n'
    )
    return title, content


@dataclass
class UIEnv:
    url: str
    run: str
    beacon: StaticSite
    pool: Any
    browser: Any
    trace_ids: dict[str, str]

    async def page(self) -> tuple[Any, list[str], list[str]]:
        """A fresh page recording every dialog it opens and every request it makes."""
        context = await self.browser.new_context()
        page = await context.new_page()
        dialogs: list[str] = []
        requests: list[str] = []

        async def on_dialog(dialog: Any) -> None:
            dialogs.append(dialog.message)
            await dialog.dismiss()

        page.on("dialog", on_dialog)
        page.on("request", lambda request: requests.append(request.url))
        return page, dialogs, requests

    async def shot(self, page: Any, name: str) -> Path:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        path = ARTIFACTS / f"{name}.png"
        await page.screenshot(path=str(path), full_page=True)
        assert path.stat().st_size > 1000
        return path


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def ui(kafka_bootstrap, module_dsn, tmp_path_factory) -> AsyncIterator[UIEnv]:
    from playwright.async_api import async_playwright

    run = uuid.uuid4().hex[:8]
    beacon = StaticSite().start()
    config = stream_config(
        kafka_bootstrap, str(tmp_path_factory.mktemp("faust")), database_url=module_dsn
    )
    await ensure_topics(config)
    pool = await create_pool(module_dsn)
    stream = create_app(
        config,
        roster=[get_reviewer("validator"), get_reviewer("urls")],  # urls: required by default
        runtime=Runtime(config, pool=pool),
    )
    await stream.start()
    title, content = hostile(beacon.url)
    drafts = [
        DraftSubmitted(f"clean-{run}-{i}", 1, f"Kettles part {i}", CLEAN) for i in range(3)
    ] + [
        DraftSubmitted(f"statistic-{run}", 1, "Kettle speed", STATISTIC),
        DraftSubmitted(f"hostile-{run}", 1, title, content),
    ]
    trace_ids: dict[str, str] = {}
    async with DraftSubmitter(kafka_bootstrap, topic=config.drafts_topic) as submitter:
        for draft in drafts:
            submission = await submitter.submit(draft)
            trace_ids[draft.draft_id] = submission.traceparent.split("-")[1]
    counts: tuple[int, int] = (0, 0)
    try:
        async with asyncio.timeout(90):
            while counts != (len(drafts), len(drafts)):
                counts = (
                    await pool.fetchval(
                        "SELECT count(*) FROM qa_decisions WHERE strpos(draft_id, $1) > 0", run
                    ),
                    await pool.fetchval(
                        "SELECT count(*) FROM qa_drafts WHERE strpos(draft_id, $1) > 0", run
                    ),
                )
                await asyncio.sleep(0.2)
    except TimeoutError:
        raise AssertionError(f"(decisions, drafts) stored: {counts} of {len(drafts)}") from None
    await stream.stop()

    pages = DecisionsUI(pool=lambda: pool)
    runner = web.AppRunner(pages.application())
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    if ARTIFACTS.exists():
        shutil.rmtree(ARTIFACTS)
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=ARGS
        )
        try:
            yield UIEnv(f"http://127.0.0.1:{port}", run, beacon, pool, browser, trace_ids)
        finally:
            await browser.close()
            await runner.cleanup()
            await pool.close()
            beacon.close()
            await delete_topics(config)


async def test_the_list_shows_the_runs_decisions(ui: UIEnv) -> None:
    page, dialogs, _ = await ui.page()
    await page.goto(f"{ui.url}/?q={ui.run}")
    rows = page.locator("#decisions tbody tr")
    assert await rows.count() == 5
    text = await page.locator("#decisions").inner_text()
    for name in ("clean-", "statistic-", "hostile-"):
        assert f"{name}" in text
    assert await page.locator("#decisions .approved").count() == 3
    assert await page.locator("#decisions .rejected").count() == 2
    await ui.shot(page, "list")
    assert dialogs == []


async def test_a_filter_narrows_the_list(ui: UIEnv) -> None:
    page, _, _ = await ui.page()
    await page.goto(f"{ui.url}/")
    await page.fill("input[name=q]", ui.run)
    await page.select_option("select[name=outcome]", "rejected")
    await page.click("button[type=submit]")
    await page.wait_for_url("**/?*outcome=rejected*")
    ids = await page.locator("#decisions tbody tr td:nth-child(2) a").all_inner_texts()
    assert sorted(ids) == sorted([f"hostile-{ui.run}", f"statistic-{ui.run}"])
    await ui.shot(page, "list-filtered")

    await page.goto(
        f"{ui.url}/?q=statistic-{ui.run}&reviewer=validator&reviewer_result=disapproved"
    )
    assert await page.locator("#decisions tbody tr").count() == 1
    await page.goto(f"{ui.url}/?q={ui.run}&outcome=approved&since=2999-01-01T00:00")
    assert await page.locator("#empty").count() == 1
    # The filters the audit found untested: needs human review (both ways) and until.
    rows = await ui.pool.fetch(
        "SELECT draft_id, needs_human_review FROM qa_decisions WHERE strpos(draft_id, $1) > 0",
        ui.run,
    )
    for choice, wanted in (("yes", True), ("no", False)):
        await page.goto(f"{ui.url}/?q={ui.run}&human={choice}")
        shown = await page.locator("#decisions tbody tr td:nth-child(2) a").all_inner_texts()
        assert sorted(shown) == sorted(
            r["draft_id"] for r in rows if r["needs_human_review"] is wanted
        )
    await page.goto(f"{ui.url}/?q={ui.run}&until=2000-01-01T00:00")
    assert await page.locator("#empty").count() == 1
    await page.goto(f"{ui.url}/?q={ui.run}&until=2999-01-01T00:00")
    assert await page.locator("#decisions tbody tr").count() == len(rows)


async def test_a_detail_page_shows_the_findings_in_the_text(ui: UIEnv) -> None:
    page, dialogs, _ = await ui.page()
    await page.goto(f"{ui.url}/?q=statistic-{ui.run}")
    await page.click(f"text=statistic-{ui.run}")
    await page.wait_for_url("**/draft?*")
    assert "Kettle speed" in await page.locator("#title").inner_text()
    assert "rejected" in await page.locator("#decision").inner_text()
    marks = page.locator("#draft-text mark.critical")
    marked = " ".join(await marks.all_inner_texts())
    assert "47% increase" in marked or "2024 study by" in marked
    findings = await page.locator("tr.review[data-reviewer=validator] .findings").inner_text()
    assert "unsourced_statistic" in findings or "fabricated_study" in findings
    trace = await page.locator("#trace-id").inner_text()
    assert trace == ui.trace_ids[f"statistic-{ui.run}"]
    assert await page.locator("tr.review[data-reviewer=validator]").count() == 1
    # A reviewer that skipped gave no verdict (the audit: the page said "rejected" for it).
    urls = page.locator("tr.review[data-reviewer=urls]")
    assert "skipped" in await urls.inner_text()
    assert (await urls.locator("td.verdict").inner_text()).strip() == "-"
    validator = page.locator("tr.review[data-reviewer=validator] td.verdict")
    assert (await validator.inner_text()).strip() == "rejected"
    assert "Costs" in await page.locator("#costs").inner_text()
    await ui.shot(page, "detail")
    assert dialogs == []


async def test_a_hostile_draft_renders_inert(ui: UIEnv) -> None:
    for path, name in (
        (f"/?q=hostile-{ui.run}", "hostile-list"),
        (f"/draft?id=hostile-{ui.run}&version=1", "hostile-detail"),
    ):
        page, dialogs, requests = await ui.page()
        await page.goto(f"{ui.url}{path}")
        await page.wait_for_load_state("networkidle")
        await asyncio.sleep(0.5)  # time for anything that would fire late
        assert dialogs == [], name
        assert all(url.startswith(ui.url) for url in requests), requests
        assert await page.locator("script").count() == 0
        assert await page.locator("[onerror], [onload]").count() == 0
        assert await page.locator("a[href^='javascript:' i]").count() == 0
        assert await page.locator("iframe, img, svg").count() == 0
        shown = await page.locator("body").inner_text()
        assert "<script>alert('title')</script>" in shown  # shown as text, not run
        await ui.shot(page, name)
    assert ui.beacon.seen == []  # nothing ever reached the beacon server


async def test_unknown_drafts_and_hostile_query_strings(ui: UIEnv) -> None:
    page, _, _ = await ui.page()
    response = await page.goto(f"{ui.url}/draft?id=no-such-draft&version=1")
    assert response is not None and response.status == 404
    assert "nothing is recorded for draft no-such-draft v1" in await page.inner_text("body")
    await ui.shot(page, "not-found")

    async with httpx.AsyncClient(base_url=ui.url) as client:
        sql = "' OR 1=1; DROP TABLE qa_decisions; --"
        r = await client.get("/", params={"q": sql})
        assert r.status_code == 200 and "No decisions match." in r.text
        assert await ui.pool.fetchval("SELECT count(*) FROM qa_decisions") >= 5  # still there
        r = await client.get("/", params={"q": "%"})  # a wildcard matches itself only
        assert "No decisions match." in r.text
        r = await client.get("/", params={"q": "<script>alert(1)</script>"})
        assert r.status_code == 200
        assert "<script>alert(1)" not in r.text and "&lt;script&gt;alert(1)" in r.text
        r = await client.get("/", params={"outcome": "<b>bold</b>"})
        assert r.status_code == 400 and "&lt;b&gt;bold" in r.text and "<b>bold" not in r.text
        r = await client.get("/", params={"since": "yesterday'--"})
        assert r.status_code == 400 and "since must be a date" in r.text
        r = await client.get(
            "/draft", params={"id": "<img src=x onerror=alert(1)>", "version": "1"}
        )
        assert r.status_code == 404 and "<img" not in r.text
        r = await client.get("/draft", params={"id": "x", "version": "1; DROP TABLE qa_drafts"})
        assert r.status_code == 400
        assert "script-src" not in r.headers["content-security-policy"]  # default-src 'none'
        assert "default-src 'none'" in r.headers["content-security-policy"]
        assert r.headers["x-content-type-options"] == "nosniff"
