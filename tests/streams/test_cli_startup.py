"""The CLI starts fast because building its parser imports nothing heavy: no Faust, no Kafka
client, no model SDK, no browser driver. Checked in a fresh interpreter (sys.modules after the
whole parser is built, and after the errors that need no broker or database); the time itself is
measured by bench/bench_cli_startup.py, not here."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("faust", "aiokafka", "anthropic", "ollama", "playwright", "openai", "mode", "aiohttp")

_PROBE = """
import json, sys
import streams.cli as cli
{action}
heavy = sorted(m.split(".")[0] for m in sys.modules if m.split(".")[0] in {heavy!r})
print(json.dumps(sorted(set(heavy))))
"""


def _loaded_after(action: str) -> list[str]:
    code = _PROBE.format(action=action, heavy=HEAVY)
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stderr
    loaded: list[str] = json.loads(proc.stdout.strip().splitlines()[-1])
    return loaded


def test_building_the_whole_parser_imports_nothing_heavy() -> None:
    assert _loaded_after("cli.build_parser()") == []


@pytest.mark.parametrize(
    "argv",
    [
        ["submit", "/nonexistent/draft.md"],
        ["settings", "set", "qa_url_allowlist", "10.0.0.0/33"],
        ["settings", "unset", "no_such_key"],
        ["rescore", "--set", "qa_required_to_pass=critik"],
        ["worker", "--bogus"],
        ["submit", "--version", "x", "a.md"],
    ],
    ids=" ".join,
)
def test_errors_that_need_no_broker_or_database_import_nothing_heavy(argv: list[str]) -> None:
    action = "\n".join(
        [
            "try:",
            f"    code = cli.main({argv!r})",
            "except SystemExit as exit_:",
            "    code = exit_.code",
            "assert code in (1, 2), code",
        ]
    )
    assert _loaded_after(action) == []


def test_running_a_command_still_loads_what_it_needs() -> None:
    """The lazy imports happen: the probe can see a heavy module when one is loaded."""
    assert _loaded_after("import streams.runtime.topics") == [
        "aiohttp",
        "aiokafka",
        "faust",
        "mode",
    ]
