"""The decisions pages as aiohttp routes, served by `multiqa ui` or, with MULTIQA_UI=true, by a
worker's operations endpoint (streams.runtime.observe).

    GET /             recent decisions, filtered by the query string (streams.ui._queries)
    GET /draft?id=ID&version=N   one draft version (404 page when nothing is recorded)
    GET /ui.css       the stylesheet (the pages carry no inline style and no script)

Every response forbids scripts, frames, plugins and foreign resources (Content-Security-Policy),
MIME sniffing and referrers. A database that does not answer is a 503 page, never a traceback.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import asyncpg
from aiohttp import web

from agents.reviewers import REVIEWER_NAMES
from streams.ui import _html
from streams.ui._queries import FilterError, Filters, draft_version, list_decisions, versions_of

log = logging.getLogger(__name__)

SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
        "base-uri 'none'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-store",
}
_DATABASE_DOWN = (OSError, TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError)


def _html_response(body: str, status: int = 200) -> web.Response:
    return web.Response(
        text=body, status=status, content_type="text/html", charset="utf-8",
        headers=SECURITY_HEADERS,
    )  # fmt: skip


class DecisionsUI:
    """`pool` returns the asyncpg pool to read (or None: then one is opened from `dsn`)."""

    def __init__(
        self, *, pool: Callable[[], Any] | None = None, dsn: str = "", trace_url: str = ""
    ) -> None:
        self._pool_of = pool or (lambda: None)
        self.dsn = dsn
        self.trace_url = trace_url
        self._own_pool: Any = None

    def add_routes(self, app: web.Application) -> None:
        app.router.add_get("/", self.list_page)
        app.router.add_get("/draft", self.draft_page)
        app.router.add_get("/ui.css", self.stylesheet)

    def application(self) -> web.Application:
        app = web.Application()
        self.add_routes(app)

        async def close(_app: web.Application) -> None:
            await self.close()

        app.on_cleanup.append(close)
        return app

    async def close(self) -> None:
        if self._own_pool is not None:
            await self._own_pool.close()
            self._own_pool = None

    async def pool(self) -> Any:
        given = self._pool_of()
        if given is not None:
            return given
        if self._own_pool is None:
            if not self.dsn:
                raise OSError("no database configured (MULTIQA_DATABASE_URL)")
            from streams.runtime.db import create_pool

            self._own_pool = await create_pool(self.dsn, max_size=4)
        return self._own_pool

    async def stylesheet(self, request: web.Request) -> web.Response:
        return web.Response(text=_html.CSS, content_type="text/css", headers=SECURITY_HEADERS)

    async def list_page(self, request: web.Request) -> web.Response:
        try:
            filters = Filters.parse(request.query)
        except FilterError as exc:
            return _html_response(_html.error_page("Bad filter", str(exc)), 400)
        try:
            rows, more = await list_decisions(await self.pool(), filters)
        except _DATABASE_DOWN as exc:
            return self._unavailable(exc)
        return _html_response(_html.list_page(filters, rows, more, REVIEWER_NAMES))

    async def draft_page(self, request: web.Request) -> web.Response:
        draft_id = request.query.get("id", "")
        version_text = request.query.get("version", "1")
        if not draft_id or not version_text.isdigit() or not 1 <= int(version_text) < 2**31:
            return _html_response(
                _html.error_page("Bad request", "give a draft id and a version number"), 400
            )
        version = int(version_text)
        try:
            pool = await self.pool()
            view = await draft_version(pool, draft_id, version)
            versions = await versions_of(pool, draft_id) if view is not None else []
        except _DATABASE_DOWN as exc:
            return self._unavailable(exc)
        if view is None:
            return _html_response(
                _html.error_page(
                    "Not found", f"nothing is recorded for draft {draft_id[:300]} v{version}"
                ),
                404,
            )
        return _html_response(
            _html.detail_page(view, draft_id, version, versions, trace_url=self.trace_url)
        )

    def _unavailable(self, exc: BaseException) -> web.Response:
        log.warning("decisions page: database unavailable (%s: %s)", type(exc).__name__, exc)
        return _html_response(
            _html.error_page("Database unavailable", "PostgreSQL does not answer; try again."),
            503,
        )
