"""The worker's operations endpoint: `/metrics`, `/healthz`, `/readyz`, and the decisions pages
when asked (streams.ui), on one small aiohttp server in the worker's event loop.

It is bound before anything else starts, so a probe answers (not ready) while the worker waits
for the broker, the database or its consumer groups. `/metrics` only formats what is in memory:
it answers during a database or broker outage.
"""

from __future__ import annotations

import errno
import logging
from collections.abc import Callable
from typing import Any

from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, generate_latest

from schemas import OperatorError
from streams.runtime.observe._health import CheckResult, Readiness

log = logging.getLogger(__name__)


class OpsServerError(OperatorError, RuntimeError):
    """The endpoint could not be bound (port in use, address not available)."""


def _report(ready: bool, results: dict[str, CheckResult], word: str) -> dict[str, Any]:
    return {
        "status": word if ready else f"not {word}",
        "checks": {name: {"ok": ok, "detail": detail} for name, (ok, detail) in results.items()},
    }


def _respond(request: web.Request, ok: bool, body: dict[str, Any]) -> web.Response:
    status = 200 if ok else 503
    if "json" in request.query.get("format", "") or "json" in request.headers.get("Accept", ""):
        return web.json_response(body, status=status)
    lines = [body["status"]]
    for name, check in body["checks"].items():
        lines.append(f"{name}: {'ok' if check['ok'] else 'FAIL'} - {check['detail']}")
    return web.Response(text="\n".join(lines) + "\n", status=status)


class OpsServer:
    """`await server.start()` binds host:port (port 0: any free port, see `.port`)."""

    def __init__(
        self,
        readiness: Readiness,
        *,
        host: str = "127.0.0.1",
        port: int = 9464,
        extra_routes: Callable[[web.Application], None] | None = None,
        on_start: list[Any] | None = None,
    ) -> None:
        self.readiness = readiness
        self.host = host
        self.port = port
        self.extra_routes = extra_routes
        self.services = list(on_start or [])
        self._runner: web.AppRunner | None = None

    def application(self) -> web.Application:
        app = web.Application()
        app.router.add_get("/metrics", self._metrics)
        app.router.add_get("/healthz", self._healthz)
        app.router.add_get("/readyz", self._readyz)
        if self.extra_routes is not None:
            self.extra_routes(app)
        return app

    async def start(self) -> None:
        runner = web.AppRunner(self.application(), access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, self.host, self.port)
        try:
            await site.start()
        except OSError as exc:
            await runner.cleanup()
            why = "is in use" if exc.errno == errno.EADDRINUSE else f"cannot be bound ({exc})"
            raise OpsServerError(f"{self.host}:{self.port} {why}") from exc
        self._runner = runner
        server = getattr(site, "_server", None)
        sockets = getattr(server, "sockets", None) or []
        if sockets:
            self.port = sockets[0].getsockname()[1]
        for service in self.services:
            service.start()
        log.info("operations endpoint on http://%s:%d (/metrics, /healthz, /readyz)",
                 self.host, self.port)  # fmt: skip

    async def stop(self) -> None:
        for service in self.services:
            await service.stop()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    async def _metrics(self, request: web.Request) -> web.Response:
        body = generate_latest(REGISTRY)
        return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE_LATEST})

    async def _healthz(self, request: web.Request) -> web.Response:
        alive, results = self.readiness.alive()
        results = {"event_loop": (True, "answers"), **results}
        return _respond(request, alive, _report(alive, results, "alive"))

    async def _readyz(self, request: web.Request) -> web.Response:
        ready, results = await self.readiness.run()
        return _respond(request, ready, _report(ready, results, "ready"))
