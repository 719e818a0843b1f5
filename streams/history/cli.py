"""`multiqa rereview`: re-run reviewers on stored drafts under other settings or models.

    multiqa rereview --since 7d --reviewers critic --set pipeline_critic_model=ollama/qwen3:14b
    multiqa rereview --since 2026-05-01 --until 2026-05-08 --json

Drafts come from PostgreSQL (qa_drafts: every draft the sinks saw), so a run works long after
Kafka's retention dropped them; the results go to the shadow tables (rereview_*), never to the
live decisions or any topic (see streams.history._rereview). Before any draft is reviewed, every
model the chosen reviewers need is checked (as `multiqa models` does): an unreachable one stops
the run in one line with nothing written. Prints a progress bar on stderr and a report of the
flipped decisions and the score deltas against the live ones.
"""

from __future__ import annotations

import argparse
import re
import sys
from datetime import UTC, datetime, timedelta
from typing import Any

from agents.values import split_list
from streams.cli._command import (
    CommandError,
    connect_database,
    discover_config,
    dsn_option,
    require_database,
    run_command,
)

_ROLE_OF = {"critic": "critic", "consistency": "gates", "topic_delivery": "gates",
            "vision": "vision", "preview": "preview"}  # fmt: skip
_RELATIVE = re.compile(r"^(\d+)\s*([mhdw])$")
_UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def parse_time(text: str, option: str, now: datetime | None = None) -> datetime:
    """ISO date/time (UTC unless it says otherwise), or a span back from now: 30m, 24h, 7d, 2w."""
    value = text.strip()
    match = _RELATIVE.match(value)
    if match:
        amount = int(match.group(1))
        try:
            return (now or datetime.now(UTC)) - timedelta(**{_UNITS[match.group(2)]: amount})
        except OverflowError:
            raise CommandError(f"{option} {text!r} reaches back before the year 1") from None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        raise CommandError(
            f"{option} {text!r}: expected a date/time like 2026-05-17T09:30 or a span like 24h"
        ) from None
    return parsed.replace(tzinfo=UTC) if parsed.tzinfo is None else parsed.astimezone(UTC)


def choose_reviewers(text: str | None, settings: Any) -> list[Any]:
    from agents.registry import all_reviewers

    known = {spec.name: spec for spec in all_reviewers()}
    if text is None:
        return [spec for spec in known.values() if spec.enabled(settings)]
    names = split_list(text)
    unknown = [n for n in names if n not in known]
    if unknown or not names:
        raise CommandError(
            f"unknown reviewer(s) {', '.join(unknown) or '(none given)'}; known: {', '.join(known)}"
        )
    return [known[n] for n in dict.fromkeys(names)]


async def preflight(specs: list[Any], settings: Any) -> None:
    """Every model the chosen, enabled reviewers need answers, or CommandError naming it."""
    from streams.cli.models import check_models

    roles = {_ROLE_OF[s.name] for s in specs if s.name in _ROLE_OF and s.enabled(settings)}
    if not roles:
        return
    for status in await check_models(settings):
        if status.role in roles and not status.usable:
            raise CommandError(
                f"the {status.role} model {status.model} is not usable: {status.detail}; "
                "nothing was re-reviewed (check with `multiqa models`)"
            )


async def _rereview(args: argparse.Namespace) -> int:
    from agents.base import Deps
    from streams.cli._command import parse_overrides
    from streams.cli.progress import Progress
    from streams.cli.replay import _base_settings, _with_overrides
    from streams.history._report import Report
    from streams.history._rereview import RereviewError, Run, drafts_in_range, save, spend

    config = discover_config(args)
    dsn = require_database(config)
    since = parse_time(args.since, "--since")
    until = parse_time(args.until, "--until") if args.until else None
    if until is not None and until <= since:
        raise CommandError(f"--until {args.until} is not after --since {args.since}")
    if not args.rate >= 0:  # also NaN
        raise CommandError(f"--rate {args.rate:g}: give calls per second, 0 for no limit")
    if args.concurrency < 1:
        raise CommandError(f"--concurrency {args.concurrency}: give 1 or more drafts at once")
    if args.show < 0:
        raise CommandError(f"--show {args.show}: give 0 or more flipped drafts to list")
    overrides = parse_overrides(args.set or ())
    settings = _with_overrides(await _base_settings(config, not args.defaults), overrides)
    specs = choose_reviewers(args.reviewers, settings)
    async with connect_database(dsn) as pool:
        drafts = await drafts_in_range(pool, since, until)
        if not drafts:
            window = f"between {since:%Y-%m-%d %H:%M} and {until:%Y-%m-%d %H:%M} UTC" if until \
                else f"since {since:%Y-%m-%d %H:%M} UTC"  # fmt: skip
            raise CommandError(f"no stored drafts first seen {window}; nothing to re-review")
        await preflight(specs, settings)
        progress = Progress("rereview", len(drafts), enabled=not args.quiet)
        run = Run(specs, settings, Deps(pool=pool), rate=args.rate,
                  concurrency=args.concurrency, on_progress=progress.advance)  # fmt: skip
        try:
            done = await run.review_all(pool, drafts)
        except RereviewError as exc:
            raise CommandError(f"{exc}; nothing was written") from exc
        finally:
            progress.close()
        cost = spend(done)
        report = Report("re-reviewed", [d.item for d in done], extra={
            "reviewers": ",".join(s.name for s in specs),
            "settings_version": settings.version(),
            "tokens": f"{cost.tokens_in} in, {cost.tokens_out} out",
            "usd": round(cost.usd, 4), "kwh": round(cost.kwh, 6),
        })  # fmt: skip
        run_id = await save(pool, done, since=since, until=until, reviewers=[s.name for s in specs],
                            overrides=overrides, settings=settings, report=report)  # fmt: skip
    report.extra["run_id"] = run_id
    if args.json:
        report.emit_json()
    else:
        print(report.text(args.show))
    print(f"shadow results: rereview_* tables, run_id {run_id}", file=sys.stderr)
    return 0


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "rereview",
        parents=[dsn_option("(stored drafts, live decisions, shadow results)")],
        help="re-run reviewers on stored drafts under other settings/models (shadow results)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--since", required=True, help="first-seen from: ISO time or 24h, 7d")
    parser.add_argument("--until", help="first-seen before (default: now)")
    parser.add_argument(
        "--reviewers", metavar="NAMES", help="comma-separated (default: every enabled reviewer)"
    )
    parser.add_argument(
        "--set", action="append", metavar="KEY=VALUE", help="a setting to try (repeatable)"
    )
    parser.add_argument("--defaults", action="store_true", help="start from default settings")
    parser.add_argument(
        "--rate",
        type=float,
        default=1.0,
        help="paid model calls/s in all (1; 0: none)",
    )
    parser.add_argument("--concurrency", type=int, default=4, help="drafts at once (4)")
    parser.add_argument("--show", type=int, default=20, help="flipped drafts listed (20)")
    parser.add_argument("--json", action="store_true", help="JSON lines: items, then a summary")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.set_defaults(func=run_command("multiqa rereview", _rereview))
