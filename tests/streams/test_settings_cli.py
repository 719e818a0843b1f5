"""`multiqa settings ...` against the real PostgreSQL."""

from __future__ import annotations

import asyncio

import asyncpg
import pytest

from agents.settings import Settings
from streams.cli import main
from streams.db import migrate


def _migrate(dsn: str) -> None:
    async def run() -> None:
        pool = await asyncpg.create_pool(dsn, min_size=1, max_size=1)
        try:
            await migrate(pool)
        finally:
            await pool.close()

    asyncio.run(run())


def test_set_get_unset_list(pg_dsn: str, capsys: pytest.CaptureFixture[str]) -> None:
    _migrate(pg_dsn)
    assert main(["settings", "set", "qa_final_score_threshold", "65", "--dsn", pg_dsn]) == 0
    assert capsys.readouterr().out.strip() == "qa_final_score_threshold = 65.0"
    assert main(["settings", "get", "qa_final_score_threshold", "--dsn", pg_dsn]) == 0
    assert capsys.readouterr().out.strip() == "65.0"
    assert main(["settings", "list", "--dsn", pg_dsn]) == 0
    listed = capsys.readouterr().out
    assert "* qa_final_score_threshold" in listed and "  qa_critic_weight" in listed
    assert main(["settings", "unset", "qa_final_score_threshold", "--dsn", pg_dsn]) == 0
    assert "back to its default" in capsys.readouterr().out
    assert main(["settings", "get", "qa_final_score_threshold", "--dsn", pg_dsn]) == 0
    assert capsys.readouterr().out.strip() == "70.0"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["set", "qa_validator_weight", "-1"], "outside"),
        (["set", "qa_final_score_threshold", "500"], "outside"),
        (["set", "no_such_key", "1"], "unknown setting"),
        (["get", "no_such_key"], "unknown setting"),
    ],
)
def test_refusals_are_one_line_errors(
    pg_dsn: str, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    _migrate(pg_dsn)
    assert main(["settings", *argv, "--dsn", pg_dsn]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"multiqa settings {argv[0]}: error:") and message in err
    assert "\n" not in err


def test_unreachable_database(capsys: pytest.CaptureFixture[str]) -> None:
    dsn = "postgresql://user:secret@127.0.0.1:9/db"
    assert main(["settings", "get", "qa_gate_weight", "--dsn", dsn]) == 1
    err = capsys.readouterr().err
    assert "cannot reach PostgreSQL" in err and "secret" not in err


def test_defaults_markdown_needs_no_database(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["settings", "list", "--defaults", "--markdown"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "| setting | default | meaning |"
    assert len(out) == 2 + len(Settings.describe())
    assert "| `qa_final_score_threshold` | `70.0` | Approval cut-off (0-100). |" in out
