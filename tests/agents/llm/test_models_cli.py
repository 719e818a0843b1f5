"""`multiqa models`: each LLM role's model checked against real (local, fake) Ollama and
Anthropic servers, and the command's table, JSON and exit code."""

from __future__ import annotations

import asyncio
import json

import pytest

from agents.llm import LLMRouter
from agents.settings_service import SettingsService
from streams.cli import main
from streams.cli.models import check_models, format_table
from streams.runtime.db import create_pool, migrate
from tests.agents.fakes import FakeOpenAI, anthropic_tool
from tests.helpers.http import Reply
from tests.helpers.ports import closed_port_url


async def test_every_role_reports_what_stands_in_its_way(llm_settings, fake_ollama, fake_anthropic):
    fake_ollama.add_model("gemma3:27b")
    fake_anthropic.always("claude-haiku-4-5", anthropic_tool({}))
    fake_ollama.add_model("qwen3-vl:30b", "completion", "vision", "thinking")
    settings = llm_settings.with_overrides(
        qa_gate_model="ollama/llama3",  # not pulled
        qa_vision_check_enabled=True,
    )
    router = LLMRouter.from_settings(settings, anthropic_api_key=fake_anthropic.api_key)
    by_role = {s.role: s for s in await check_models(settings, router)}

    assert by_role["critic"].usable and by_role["critic"].detail == "pulled"
    assert by_role["critic fallback"].model == "anthropic/claude-haiku-4-5"
    assert by_role["critic fallback"].usable  # the models-list call took the key
    assert by_role["critic fallback"].detail == "listed for this key (key verified)"
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
    fake_anthropic.always("claude-haiku-4-5", anthropic_tool({}))
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
    # JSON lines like every --json of the CLI (the audit: it was one indented array).
    objects = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert {o["type"] for o in objects} == {"model"}
    rows = {r["role"]: r for r in objects}
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


async def test_openai_compatible_server_lists_what_it_serves(llm_settings, fake_anthropic):
    with FakeOpenAI() as server:
        server.add_model("qwen2.5:7b")
        settings = llm_settings.with_overrides(
            openai_base_url=f"{server.url}/v1",
            pipeline_critic_model="openai/qwen2.5:7b",
            qa_gate_model="openai/gpt-4o",
        )
        router = LLMRouter.from_settings(settings, anthropic_api_key=fake_anthropic.api_key)
        by_role = {s.role: s for s in await check_models(settings, router)}
    assert by_role["critic"].usable and by_role["critic"].detail == f"served by {server.url}/v1"
    assert not by_role["gates"].usable
    assert (
        by_role["gates"].detail == f"{server.url}/v1 does not serve gpt-4o (it serves: qwen2.5:7b)"
    )
    # One listing for both roles on that server.
    assert len(server.requests_to("/v1/models")) == 1


async def test_openai_server_down_or_html_is_not_usable(llm_settings):
    with FakeOpenAI() as server:
        server.models_reply = Reply(200, b"<html>captive portal</html>", "text/html")
        settings = llm_settings.with_overrides(
            openai_base_url=f"{server.url}/v1", pipeline_critic_model="openai/m"
        )
        [critic, *_] = await check_models(settings, LLMRouter.from_settings(settings))
    assert not critic.usable and "not the OpenAI API" in critic.detail
    down = llm_settings.with_overrides(
        openai_base_url=f"{closed_port_url()}/v1", pipeline_critic_model="openai/m"
    )
    [critic, *_] = await check_models(down, LLMRouter.from_settings(down))
    assert not critic.usable and "is not reachable" in critic.detail


async def test_anthropic_key_refused_or_unverifiable(llm_settings, fake_anthropic):
    settings = llm_settings.with_overrides(pipeline_critic_model="anthropic/claude-haiku-4-5")
    refused = LLMRouter.from_settings(settings, anthropic_api_key="sk-ant-wrong")
    [critic, *_] = await check_models(settings, refused)
    assert not critic.usable and "rejected the key (HTTP 401)" in critic.detail
    away = settings.with_overrides(anthropic_base_url=closed_port_url())
    unverified = LLMRouter.from_settings(away, anthropic_api_key="sk-ant-any")
    [critic, *_] = await check_models(away, unverified)
    assert critic.usable and critic.detail.startswith("key set, not verified")


async def test_warns_when_the_fallback_critic_is_the_primary(llm_settings, fake_ollama):
    fake_ollama.add_model("gemma3:27b")
    same = llm_settings.with_overrides(qa_fallback_critic_model="gemma3:27b")
    statuses = await check_models(same, LLMRouter.from_settings(same, anthropic_api_key=""))
    fallback = statuses[1]
    assert "nothing to fall back to" in fallback.warning
    assert "WARNING: the fallback critic is the primary" in format_table(statuses)
    assert statuses[0].warning == ""
