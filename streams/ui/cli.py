"""`multiqa ui`: serve the decisions pages from PostgreSQL.

    multiqa ui                         # http://127.0.0.1:8077/
    multiqa ui --host 0.0.0.0 --port 8080 --dsn postgresql://...

Bound to 127.0.0.1 unless told otherwise: the pages show drafts and feedback, and have no login.
"""

from __future__ import annotations

import argparse
from typing import Any

from streams.cli._command import (
    CommandError,
    connect_database,
    discover_config,
    dsn_option,
    require_database,
    run_command,
)


async def _ui(args: argparse.Namespace) -> int:
    import asyncio

    from aiohttp import web

    from streams.ui import DecisionsUI

    config = discover_config(args)
    dsn = require_database(config)
    async with connect_database(dsn):  # fails now, in one line, if the database does not answer
        pass
    ui = DecisionsUI(dsn=dsn, trace_url=args.trace_url or config.trace_url)
    runner = web.AppRunner(ui.application(), access_log=None)
    await runner.setup()
    try:
        site = web.TCPSite(runner, args.host, args.port)
        try:
            await site.start()
        except OSError as exc:
            raise CommandError(
                f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}"
            ) from exc
        print(f"decisions pages on http://{args.host}:{args.port}/ (Ctrl-C stops)", flush=True)
        await asyncio.Event().wait()
    finally:
        await runner.cleanup()
    return 0


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "ui",
        parents=[dsn_option()],
        help="serve the decisions pages (list, filters, one page per draft version)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (127.0.0.1)")
    parser.add_argument("--port", type=int, default=8077, help="port (8077)")
    parser.add_argument(
        "--trace-url", help="trace viewer link with {trace_id} (default MULTIQA_TRACE_URL)"
    )
    parser.set_defaults(func=run_command("multiqa ui", _ui))
