"""`multiqa models`: each LLM role's model checked against real (local, fake) Ollama and
Anthropic servers, and the command's table, JSON and exit code."""

from __future__ import annotations

import asyncio
import json

import pytest
from fakes import Reply

from agents.llm import LLMRouter
from agents.settings_service import SettingsService
from streams.cli import main
from streams.db import create_pool, migrate
from streams.models_cli import check_models


async def test_every_role_reports_what_stands_in_its_way(llm_settings, fake_ollama, fake_anthropic):
    fake_ollama.add_model("gemma3:27b")
    fake_ollama.add_model("qwen3-vl:30b", "completion", "vision", "thinking")
    settings = llm_settings.with_overrides(
        qa_gate_model="ollama/llama3",  # not pulled
        qa_vision_check_enabled=True,
    )
    router = LLMRouter.from_settings(settings, anthropic_api_key=fake_anthropic.api_key)
    by_role = {s.role: s for s in await check_models(settings, router)}

    assert by_role["critic"].usable and by_role["critic"].detail == "pulled"
    assert by_role["critic fallback"].model == "anthropic/claude-haiku-4-5"
    assert by_role["critic fallback"].usable  # an API key is set
    assert not by_role["gates"].usable
    assert "ollama pull llama3:latest" in by_role["gates"].detail
    assert by_role["vision"].usable and by_role["vision"].thinking
    assert by_role["preview"].enabled is False


async def test_no_key_and_no_server(llm_settings, fake_ollama):
    fake_ollama.tags_reply = Reply(500, b"down")
    router = LLMRouter.from_settings(llm_settings, anthropic_api_key="")
    statuses = await check_models(llm_settings, router)
    critic, fallback = statuses[0], statuses[1]
    assert not critic.usable and "ollama not reachable at http://127.0.0.1" in critic.detail
    assert not fallback.usable and "ANTHROPIC_API_KEY" in fallback.detail


@pytest.mark.parametrize("pulled", [True, False])
async def test_command_reads_the_database_settings(
    pulled, llm_settings, fake_ollama, fake_anthropic, pg_dsn, monkeypatch, capsys
):
    if pulled:
        fake_ollama.add_model("gemma3:27b")
    monkeypatch.setenv("ANTHROPIC_API_KEY", fake_anthropic.api_key)
    pool = await create_pool(pg_dsn)
    try:
        await migrate(pool)
        service = SettingsService(pool)
        for key in ("ollama_base_url", "anthropic_base_url", "qa_fallback_critic_model"):
            await service.set(key, str(getattr(llm_settings, key)))
    finally:
        await pool.close()

    code = await asyncio.to_thread(main, ["models", "--dsn", pg_dsn, "--json"])
    rows = {r["role"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["critic"]["usable"] is pulled
    assert rows["critic fallback"]["model"] == "anthropic/claude-haiku-4-5"  # from the database
    assert code == (0 if pulled else 3)

    code = await asyncio.to_thread(main, ["models", "--dsn", pg_dsn])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["ROLE", "MODEL", "ENABLED", "STATUS"]
    assert ("NOT USABLE" in lines[1]) is not pulled


def test_unreachable_database_is_one_line(capsys):
    code = main(["models", "--dsn", "postgresql://u:secret@127.0.0.1:1/x"])
    err = capsys.readouterr().err
    assert code == 1 and err.startswith("multiqa models: error: cannot reach PostgreSQL")
    assert "secret" not in err and len(err.strip().splitlines()) == 1
