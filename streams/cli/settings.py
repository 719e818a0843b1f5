"""`multiqa settings get|set|unset|list`: read and change the app_settings overrides.

Values are validated by the one write-time validator (agents.settings) before they are written: an
unknown key, a weight of -1, a threshold of 500, a CIDR /33, an unknown model provider or a URL
that is not one is refused in one line naming the key, before the database is even reached.
`list --defaults --markdown` needs no database: it prints the table of every setting and its
default that the README carries.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from agents.settings import Settings, SettingsError, is_known_key, to_text
from agents.settings_check import validate_value

if TYPE_CHECKING:
    from agents.settings_service import SettingInfo, SettingsService
from streams.cli._command import (
    connect_database,
    discover_config,
    dsn_option,
    require_database,
    run_command,
)


@asynccontextmanager
async def _service(args: argparse.Namespace) -> AsyncIterator[SettingsService]:
    from agents.settings_service import SettingsService

    async with connect_database(require_database(discover_config(args))) as pool:
        yield SettingsService(pool, ttl_seconds=0)


async def _get(args: argparse.Namespace) -> int:
    async with _service(args) as service:
        print(await service.get_value(args.key))
    return 0


async def _set(args: argparse.Namespace) -> int:
    validate_value(args.key, args.value)  # a bad value needs no database to be refused
    async with _service(args) as service:
        stored = await service.set(args.key, args.value)
    print(f"{args.key} = {stored}")
    return 0


async def _unset(args: argparse.Namespace) -> int:
    if not is_known_key(args.key):
        raise SettingsError(f"unknown setting {args.key!r} (see `multiqa settings list`)")
    async with _service(args) as service:
        removed = await service.unset(args.key)
    print(f"{args.key}: {'back to its default' if removed else 'had no override'}")
    return 0


async def _list(args: argparse.Namespace) -> int:
    from agents.settings_service import SettingInfo

    if args.defaults:
        infos = [
            SettingInfo(key, to_text(default), to_text(default), False, doc)
            for key, default, doc in Settings.describe()
        ]
    else:
        async with _service(args) as service:
            infos = await service.list()
    if args.json:
        print(json.dumps([info.__dict__ for info in infos], indent=2))
    elif args.markdown:
        print(markdown_table(infos, with_values=not args.defaults))
    else:
        width = max(len(info.key) for info in infos)
        for info in infos:
            mark = "*" if info.overridden else " "
            print(f"{mark} {info.key:{width}s}  {info.value}")
    return 0


def markdown_table(infos: list[SettingInfo], *, with_values: bool = False) -> str:
    """A markdown table of settings (key, default, [value,] meaning)."""
    head = ["setting", "default", *(["value"] if with_values else []), "meaning"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for info in infos:
        default = f"`{info.default}`" if info.default != "" else '`""`'
        cells = [f"`{info.key}`", default]
        if with_values:
            cells.append(f"`{info.value}`" + (" (set)" if info.overridden else ""))
        cells.append(info.doc.replace("|", "\\|"))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def add_parser(subparsers: Any) -> None:
    dsn = dsn_option()
    parser = subparsers.add_parser(
        "settings", help="read and change settings (app_settings overrides)"
    )
    commands = parser.add_subparsers(dest="settings_command", metavar="ACTION", required=True)

    get = commands.add_parser("get", parents=[dsn], help="print one effective value")
    get.add_argument("key")
    get.set_defaults(func=run_command("multiqa settings get", _get))

    set_ = commands.add_parser("set", parents=[dsn], help="validate and store an override")
    set_.add_argument("key")
    set_.add_argument("value")
    set_.set_defaults(func=run_command("multiqa settings set", _set))

    unset = commands.add_parser("unset", parents=[dsn], help="remove an override")
    unset.add_argument("key")
    unset.set_defaults(func=run_command("multiqa settings unset", _unset))

    list_ = commands.add_parser("list", parents=[dsn], help="every setting and its value")
    list_.add_argument("--defaults", action="store_true", help="defaults only (no database)")
    output = list_.add_mutually_exclusive_group()
    output.add_argument("--markdown", action="store_true", help="a markdown table")
    output.add_argument("--json", action="store_true", help="JSON")
    list_.set_defaults(func=run_command("multiqa settings list", _list))
