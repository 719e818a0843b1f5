"""Rendering a draft's preview page in headless Chromium (Playwright), every byte through the guard.

The preview URL comes from the draft, so the page and everything it loads are untrusted. What is
enforced:
- Chromium never touches the network itself. Every request of every frame is intercepted
  (`context.route`) and answered with bytes the URL guard fetched (`fetch_bytes`: scheme, host and
  every resolved address vetted, every redirect hop re-checked, size capped); a refused URL is
  aborted. Belt and braces: Chromium is started with a proxy that does not exist, so a request
  that escaped interception could not connect anywhere.
- Only GET/HEAD are fetched (a page cannot make multiqa POST); WebSockets are closed; service
  workers are blocked; downloads are refused.
- Per resource at most `qa_vision_max_image_bytes`, per page at most `_PAGE_BYTES` and
  `_PAGE_REQUESTS`; the whole capture is bounded by `qa_preview_timeout_seconds`; the screenshot
  is at most `_MAX_HEIGHT` pixels tall.
The guard follows redirects itself and hands Chromium the final body under the original URL.
"""

from __future__ import annotations

import asyncio
import logging
import mimetypes
import time
from typing import Any, Protocol

from agents.reviewers._vision import Fetcher
from agents.settings import Settings
from schemas import MultiqaError

log = logging.getLogger(__name__)

CHROMIUM_ARGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    # Nothing listens on port 9 (discard): a request that escaped `route` fails to connect.
    "--proxy-server=http://127.0.0.1:9",
    "--proxy-bypass-list=<-loopback>",
)
_PAGE_BYTES = 32 * 1024 * 1024
_PAGE_REQUESTS = 300
_MAX_HEIGHT = 10_000

_CONTENT_TYPES = {
    "document": "text/html",
    "stylesheet": "text/css",
    "script": "text/javascript",
}


class PreviewError(MultiqaError):
    """The preview page could not be rendered; `reason` says why."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Screenshotter(Protocol):
    """What `Deps.screenshotter` holds: PNG bytes of a full-page render of `url`."""

    async def capture(self, url: str, settings: Settings, http: Fetcher) -> bytes: ...


def _content_type(resource_type: str, url: str, body: bytes) -> str:
    if resource_type in _CONTENT_TYPES:
        return _CONTENT_TYPES[resource_type]
    head = body[:16]
    for magic, kind in (
        (b"\x89PNG", "image/png"),
        (b"\xff\xd8\xff", "image/jpeg"),
        (b"GIF8", "image/gif"),
    ):
        if head.startswith(magic):
            return kind
    if head.startswith(b"RIFF") and body[8:12] == b"WEBP":
        return "image/webp"
    guessed, _ = mimetypes.guess_type(url.split("?", 1)[0])
    return guessed or "application/octet-stream"


class _GuardedRoutes:
    """The `route` handler: answer each browser request with what the guard fetched."""

    def __init__(self, http: Fetcher, settings: Settings) -> None:
        self._http = http
        self._per_resource = settings.qa_vision_max_image_bytes
        self._budget = _PAGE_BYTES
        self._requests = 0
        self.main_error: str | None = None
        self.blocked: list[str] = []
        self._fetches: set[asyncio.Future[bytes]] = set()

    def cancel_pending(self) -> None:
        """Stop fetches still running for a page that is gone (a hung image must not keep a
        connection open after the screenshot)."""
        for fetch in list(self._fetches):
            fetch.cancel()

    async def handle(self, route: Any) -> None:
        request = route.request
        url: str = request.url
        main = request.is_navigation_request() and request.frame.parent_frame is None
        try:
            if url.startswith(("data:", "blob:", "about:")):
                await route.continue_()
                return
            self._requests += 1
            refusal = None
            if request.method not in ("GET", "HEAD"):
                refusal = f"{request.method} is not fetched for a preview"
            elif self._requests > _PAGE_REQUESTS:
                refusal = f"more than {_PAGE_REQUESTS} requests"
            elif self._budget <= 0:
                refusal = f"page budget of {_PAGE_BYTES} bytes spent"
            if refusal is None:
                fetch = asyncio.ensure_future(
                    self._http.fetch_bytes(url, min(self._per_resource, self._budget))
                )
                self._fetches.add(fetch)
                fetch.add_done_callback(self._fetches.discard)
                await asyncio.wait({fetch})
                if fetch.cancelled():
                    return  # the capture is over (see `cancel_pending`)
                try:
                    body = fetch.result()
                except Exception as exc:  # FetchError / URLRefused from the guard
                    refusal = str(getattr(exc, "detail", "") or exc)[:300] or type(exc).__name__
            if refusal is not None:
                self.blocked.append(f"{url[:200]}: {refusal}")
                if main and self.main_error is None:
                    self.main_error = refusal
                await route.abort("blockedbyclient")
                return
            self._budget -= len(body)
            await route.fulfill(
                status=200,
                body=body,
                content_type=_content_type(request.resource_type, url, body),
            )
        except Exception as exc:
            # The page may close while a request is pending; never let a handler error escape
            # into Playwright's dispatcher.
            log.debug("preview route for %s ended: %s", url[:200], exc)


def _page_height(reported: object, viewport_height: int) -> int:
    """The height to capture. The page's script computed `reported`, so it may be anything."""
    if isinstance(reported, bool) or not isinstance(reported, int | float):
        return viewport_height
    if reported != reported or reported < 1:  # NaN, zero, negative
        return viewport_height
    return int(min(reported, _MAX_HEIGHT))


class PlaywrightScreenshotter:
    """Full-page PNG screenshots with the machine's Chromium (`qa_preview_browser_path`)."""

    async def capture(self, url: str, settings: Settings, http: Fetcher) -> bytes:
        deadline = time.monotonic() + settings.qa_preview_timeout_seconds
        try:
            async with asyncio.timeout(settings.qa_preview_timeout_seconds):
                return await self._capture(url, settings, http, deadline)
        except TimeoutError:
            raise PreviewError(
                f"preview did not render within {settings.qa_preview_timeout_seconds:g}s"
            ) from None

    async def _capture(self, url: str, settings: Settings, http: Fetcher, deadline: float) -> bytes:
        from playwright.async_api import Error as PlaywrightError
        from playwright.async_api import async_playwright

        routes = _GuardedRoutes(http, settings)
        timeout_ms = settings.qa_preview_timeout_seconds * 1000
        try:
            async with async_playwright() as playwright:
                browser = await playwright.chromium.launch(
                    executable_path=settings.qa_preview_browser_path,
                    headless=True,
                    args=list(CHROMIUM_ARGS),
                    timeout=timeout_ms,
                )
                try:
                    context = await browser.new_context(
                        viewport={
                            "width": settings.qa_preview_viewport_width,
                            "height": settings.qa_preview_viewport_height,
                        },
                        service_workers="block",
                        accept_downloads=False,
                    )
                    await context.route("**/*", routes.handle)
                    await context.route_web_socket("**/*", lambda ws: ws.close())
                    page = await context.new_page()
                    try:
                        await page.goto(url, wait_until="domcontentloaded", timeout=timeout_ms)
                    except PlaywrightError as exc:
                        raise PreviewError(
                            routes.main_error or f"page did not load: {str(exc)[:200]}"
                        ) from None
                    if routes.main_error:
                        raise PreviewError(routes.main_error)
                    # A sub-resource that never finishes must not cost the whole preview: wait
                    # for "load" with half the time left, then take the page as it is.
                    left_ms = (deadline - time.monotonic()) * 1000
                    try:
                        await page.wait_for_load_state("load", timeout=max(100.0, left_ms / 2))
                    except PlaywrightError:
                        log.info("preview %s: screenshot before every resource loaded", url[:200])
                    height = await page.evaluate(
                        "() => Math.max(document.documentElement.scrollHeight,"
                        " document.body ? document.body.scrollHeight : 0)"
                    )
                    height = _page_height(height, settings.qa_preview_viewport_height)
                    png: bytes = await page.screenshot(
                        full_page=True,
                        type="png",
                        timeout=timeout_ms,
                        clip={
                            "x": 0,
                            "y": 0,
                            "width": settings.qa_preview_viewport_width,
                            "height": height,
                        },
                    )
                finally:
                    routes.cancel_pending()
                    await browser.close()
        except PlaywrightError as exc:
            raise PreviewError(f"browser failed: {str(exc)[:300]}") from None
        if routes.blocked:
            log.info("preview %s: %d request(s) blocked", url[:200], len(routes.blocked))
        return png
