"""`multiqa settings ...` against the real PostgreSQL."""

from __future__ import annotations

import asyncio

import asyncpg
import pytest

from agents.settings import Settings
from streams.cli import main
from streams.runtime.db import migrate


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
        (["unset", "no_such_key"], "unknown setting 'no_such_key'"),
        (["set", "qa_url_allowlist", "10.0.0.0/33"], "not a valid IP or CIDR"),
        (["set", "pipeline_critic_model", ""], "pipeline_critic_model is empty"),
        (["set", "pipeline_critic_model", "google/gemini-2"], "unknown provider 'google'"),
        (["set", "ollama_base_url", "not a url"], "ollama_base_url='not a url' is not"),
        (["set", "qa_required_to_pass", "critik"], "unknown reviewer(s) critik"),
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
    if argv[0] in ("set", "unset"):
        assert _rows(pg_dsn) == {}  # nothing written


def _rows(dsn: str) -> dict[str, str]:
    async def run() -> dict[str, str]:
        conn = await asyncpg.connect(dsn)
        try:
            return {r["key"]: r["value"] for r in await conn.fetch("SELECT * FROM app_settings")}
        finally:
            await conn.close()

    return asyncio.run(run())


def test_bad_values_are_refused_before_any_database(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # No database anywhere (an unreachable one, to be sure): the value alone is refused.
    monkeypatch.setenv("MULTIQA_DATABASE_URL", "postgresql://u:p@127.0.0.1:9/none")
    assert main(["settings", "set", "qa_url_allowlist", "10.0.0.0/33"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "qa_url_allowlist" in err and "PostgreSQL" not in err
    assert main(["settings", "unset", "no_such_key"]) == 1
    assert "unknown setting" in capsys.readouterr().err


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
