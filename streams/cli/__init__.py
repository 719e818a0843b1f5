"""The `multiqa` command line.

Each area of the project contributes its own sub-commands through a small `add_parser(subparsers)`
function in its own module; this file only wires them together so that areas stay independent.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

# (module, description). Each module defines `add_parser(subparsers) -> None`, and the parsers it
# adds set `func=<callable(args) -> int>` as their default.
_COMMAND_MODULES: tuple[str, ...] = (
    "streams.devstack.cli",
    "streams.cli.settings",
    "streams.cli.ops",
    "streams.cli.topics",
    "streams.cli.worker_cli",
    "streams.cli.replay_cli",
    "streams.cli.models",
    "streams.cli.evaluate",
    "streams.ui.cli",
    "streams.history.cli",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="multiqa",
        description="Multi-reviewer QA for LLM-written drafts (Kafka stream processor + library).",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module_name in _COMMAND_MODULES:
        module = importlib.import_module(module_name)
        module.add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help()
        return 2
    try:
        result: int = func(args)
    except KeyboardInterrupt:  # Ctrl-C while a command is still loading: no traceback
        return 130
    return result


if __name__ == "__main__":
    sys.exit(main())
