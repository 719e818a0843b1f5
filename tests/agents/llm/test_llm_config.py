"""Where the model servers are: the ecosystem's environment variables as defaults, the setting
winning when set, and URLs that cannot work refused with a reason."""

from __future__ import annotations

import pytest

from agents.base import Deps
from agents.llm import (
    LLMRouter,
    base_url_problem,
    is_local_server,
    model_ref,
    ollama_url,
    openai_url,
)
from agents.llm._config import normalise_ollama_host
from agents.reviewers import critic
from agents.settings import Settings
from schemas.records import ReviewStatus
from tests.agents.fakes import FakeOllama, FakeOpenAI, ollama_chat, ollama_error
from tests.helpers.drafts import make_draft
from tests.helpers.http import Reply


@pytest.mark.parametrize(
    ("raw", "url"),
    [
        ("127.0.0.1", "http://127.0.0.1:11434"),
        (":8080", "http://127.0.0.1:8080"),
        ("gpu-box:11500", "http://gpu-box:11500"),
        ("http://gpu-box", "http://gpu-box:80"),
        ("https://ollama.example.com", "https://ollama.example.com:443"),
        ("0.0.0.0", "http://0.0.0.0:11434"),
        ("[::1]:9000", "http://[::1]:9000"),
        ("gpu-box:11500/", "http://gpu-box:11500"),
    ],
)
def test_ollama_host_short_forms(raw: str, url: str) -> None:
    assert normalise_ollama_host(raw) == url


def test_ollama_host_is_the_default_and_the_setting_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OLLAMA_HOST", raising=False)
    assert ollama_url(Settings()) == "http://127.0.0.1:11434"
    monkeypatch.setenv("OLLAMA_HOST", "gpu-box:11500")
    assert ollama_url(Settings()) == "http://gpu-box:11500"
    assert ollama_url(Settings(ollama_base_url="http://other:1234")) == "http://other:1234"


def test_openai_base_url_convention(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    assert openai_url(Settings()) == "https://api.openai.com/v1"
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:8000/v1/")
    assert openai_url(Settings()) == "http://127.0.0.1:8000/v1"
    # No path means /v1, where every OpenAI-compatible server serves the API.
    assert openai_url(Settings(openai_base_url="http://vllm:8000")) == "http://vllm:8000/v1"
    proxied = Settings(openai_base_url="https://api.groq.com/openai/v1")
    assert openai_url(proxied) == "https://api.groq.com/openai/v1"


async def test_a_library_user_environment_reaches_ollama(
    fake_ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The issue's symptom: OLLAMA_HOST did nothing. Now a review with default settings asks the
    server OLLAMA_HOST names."""
    fake_ollama.add_model(
        "gemma3:27b",
        always=ollama_chat({"approved": True, "quality_score": 77, "feedback": "fine"}),
    )
    monkeypatch.setenv("OLLAMA_HOST", fake_ollama.url.removeprefix("http://"))
    settings = Settings(qa_fallback_critic_model="", ollama_health_timeout_seconds=0.5)
    result = await critic.review(
        make_draft(), settings, Deps(llm=LLMRouter.from_settings(settings))
    )
    assert result.status is ReviewStatus.OK and result.score == 77.0
    assert len(fake_ollama.chats()) == 1


@pytest.mark.parametrize(
    ("provider", "url", "needle"),
    [
        ("ollama", "http://h:11434/api", "has a path (/api)"),
        ("ollama", "http://h:11434/v1", "has a path (/v1)"),
        ("openai", "http://h:8000/v1/chat/completions", "names an endpoint"),
        ("openai", "http://h:8000/v1/models", "names an endpoint"),
        ("openai", "https://u:sk-live-xyz@h/v1", "carries credentials"),
        ("openai", "ftp://h/v1", "must be http(s)://host[:port]"),
        ("openai", "http://h:port/v1", "not a URL"),
        ("anthropic", "https://api.anthropic.com/?key=1", "query or fragment"),
    ],
)
def test_base_urls_that_cannot_work(provider: str, url: str, needle: str) -> None:
    problem = base_url_problem(provider, url)
    assert problem is not None and needle in problem
    assert "sk-live-xyz" not in problem


@pytest.mark.parametrize(
    ("provider", "url"),
    [
        ("ollama", "http://127.0.0.1:11434"),
        ("ollama", "https://ollama.example.com:443/"),
        ("openai", "http://127.0.0.1:8000/v1"),
        ("openai", "https://api.groq.com/openai/v1"),
        ("anthropic", "https://api.anthropic.com"),
    ],
)
def test_base_urls_that_work(provider: str, url: str) -> None:
    assert base_url_problem(provider, url) is None


def test_local_servers_are_recognised() -> None:
    local = [
        "http://127.0.0.1:8000/v1",
        "http://localhost:1234",
        "http://10.1.2.3:8000",
        "http://192.168.1.5/v1",
        "http://gpu.local:8000",
        "http://[::1]:8000",
    ]
    hosted = ["https://api.openai.com/v1", "https://api.groq.com/openai/v1", "http://8.8.8.8/v1"]
    assert all(is_local_server(u) for u in local)
    assert not any(is_local_server(u) for u in hosted)


def test_settings_need_a_provider_drafts_do_not() -> None:
    with pytest.raises(ValueError, match="names no provider"):
        model_ref("qwen2.5:7b", require_provider=True)
    assert str(model_ref("openai/qwen2.5:7b", require_provider=True)) == "openai/qwen2.5:7b"
    # A writer names its own model as it likes (the seed's bare Ollama names).
    assert str(model_ref("gemma3:27b")) == "ollama/gemma3:27b"


def test_default_fallback_critic_is_not_the_primary() -> None:
    defaults = Settings()
    assert model_ref(defaults.pipeline_critic_model) != model_ref(defaults.qa_fallback_critic_model)
    assert critic.critic_chain(defaults) == ["ollama/gemma3:27b", "ollama/llama3.1:8b"]


@pytest.mark.parametrize("key", ["openai_api_key", "OPENAI_API_KEY", "anthropic_api_key"])
def test_keys_are_not_settings(key: str) -> None:
    """A key never reaches app_settings: there is no such setting to write it to."""
    from agents.settings import SettingsError
    from agents.settings_check import validate_value

    with pytest.raises(SettingsError, match="unknown setting") as caught:
        validate_value(key, "sk-live-should-not-be-stored")
    assert "sk-live-should-not-be-stored" not in str(caught.value)


def test_a_base_url_with_a_key_in_it_is_refused_without_repeating_it() -> None:
    from agents.settings import SettingsError
    from agents.settings_check import validate_value

    with pytest.raises(SettingsError, match="carries credentials") as caught:
        validate_value("openai_base_url", "https://me:sk-live-9876@api.example.com/v1")
    assert "sk-live-9876" not in str(caught.value)
    assert "OPENAI_API_KEY" in str(caught.value)


@pytest.mark.parametrize(
    "url",
    [
        "http://me:sk-live-5150@api.example.com:port/v1",  # a port that is not a number
        "http://me:sk-live-5150@[::1/v1",  # a broken IPv6 literal
        "me:sk-live-5150@api.example.com/v1",  # no scheme
    ],
)
def test_a_key_in_a_base_url_that_does_not_parse_is_never_repeated(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found in the audit: such a URL made urlsplit raise inside the message builder, so the
    settings validator quoted the whole URL (key included) and every reviewer and `multiqa
    models` died with a traceback."""
    from agents.settings import SettingsError
    from agents.settings_check import validate_value

    problem = base_url_problem("openai", url)
    assert problem is not None and "carries credentials" in problem
    assert "sk-live-5150" not in problem
    with pytest.raises(SettingsError, match="carries credentials") as caught:
        validate_value("openai_base_url", url)
    assert "sk-live-5150" not in str(caught.value)
    # From the environment (no write-time check there): the router builds, the critic errors.
    monkeypatch.setenv("OPENAI_BASE_URL", url)
    settings = Settings(pipeline_critic_model="openai/gpt-4o", qa_fallback_critic_model="")
    router = LLMRouter.from_settings(settings)
    assert "carries credentials" in (router.providers["openai"].unusable() or "")


async def test_a_key_in_the_environment_s_base_url_is_an_error_result_not_a_crash(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://me:sk-live-5150@api.example.com:port/v1")
    settings = Settings(pipeline_critic_model="openai/gpt-4o", qa_fallback_critic_model="")
    result = await critic.review(make_draft(), settings, Deps())
    assert result.status is ReviewStatus.ERROR
    assert "carries credentials" in result.feedback and "sk-live-5150" not in result.feedback


@pytest.mark.parametrize(
    ("tags", "answer"),
    [
        pytest.param(None, "HTTP 404", id="an-openai-compatible-server"),
        pytest.param(
            Reply(200, b"<!doctype html><p>proxy login</p>", "text/html"),
            "a body that is not its JSON",
            id="html-200",
        ),
    ],
)
async def test_a_server_at_the_ollama_url_that_is_not_ollama_is_an_error_naming_it(
    tags: Reply | None, answer: str, fake_ollama: FakeOllama
) -> None:
    """Found in the audit: OLLAMA_HOST pointed at llama.cpp's server (an easy mistake: it is
    "the local model server") or at a proxy's login page gave "Ollama not available or health
    check timed out" (a skip, as if the optional service were absent) and `multiqa models` said
    "not reachable" about a server that answers. It is the configuration's mistake: an error
    naming it."""
    from streams.cli.models import check_models

    with FakeOpenAI() as openai_server:
        if tags is None:
            url = openai_server.url  # GET /api/tags: 404 there
        else:
            fake_ollama.tags_reply = tags
            url = fake_ollama.url
        settings = Settings(
            ollama_base_url=url,
            pipeline_critic_model="ollama/gemma3:27b",
            qa_fallback_critic_model="",
            ollama_health_timeout_seconds=0.5,
        )
        router = LLMRouter.from_settings(settings)
        result = await critic.review(make_draft(), settings, Deps(llm=router))
        statuses = await check_models(settings, LLMRouter.from_settings(settings))
    assert result.status is ReviewStatus.ERROR
    assert f"the server at {url} is not Ollama (GET /api/tags answered {answer})" in (
        result.feedback
    )
    assert "openai/<model>" in result.feedback
    (status,) = [s for s in statuses if s.role == "critic"]
    assert not status.usable and "is not Ollama" in status.detail
    assert "not reachable" not in status.detail


async def test_an_ollama_that_is_down_or_failing_is_still_a_skip(fake_ollama: FakeOllama) -> None:
    """The other side of the line above: an absent or failing Ollama is an optional service
    down (skipped), not a configuration error."""
    fake_ollama.tags_reply = ollama_error(503, "shutting down")
    settings = Settings(
        ollama_base_url=fake_ollama.url,
        pipeline_critic_model="ollama/gemma3:27b",
        qa_fallback_critic_model="",
        ollama_health_timeout_seconds=0.5,
    )
    result = await critic.review(
        make_draft(), settings, Deps(llm=LLMRouter.from_settings(settings))
    )
    assert result.status is ReviewStatus.SKIPPED
    assert "Ollama not available" in result.feedback
