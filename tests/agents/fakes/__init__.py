"""Fake model servers and fixtures for the LLM reviewer tests (tests/agents/test_critic.py,
test_consistency.py, test_vision.py, tests/agents/llm/, and the stream tests that run them).

The servers are built on the shared fake-HTTP kit (tests.helpers.http); drafts come from
tests.helpers.drafts. tests/agents/conftest.py makes the fixtures below available to every test
under tests/agents/; others import the ones they use: `from tests.agents.fakes import fake_ollama`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import pytest

from agents.base import Deps
from agents.llm import LLMRouter
from agents.settings import Settings
from tests.agents.fakes.llm_servers import (
    FakeAnthropic,
    FakeOllama,
    FakeOpenAI,
    anthropic_error,
    anthropic_message,
    anthropic_text,
    anthropic_tool,
    ollama_chat,
    ollama_error,
    openai_chat,
    openai_error,
)

__all__ = [
    "AuditRecorder",
    "FakeAnthropic",
    "FakeOllama",
    "FakeOpenAI",
    "anthropic_error",
    "anthropic_message",
    "anthropic_text",
    "anthropic_tool",
    "fake_anthropic",
    "fake_ollama",
    "llm_deps",
    "llm_settings",
    "ollama_chat",
    "ollama_error",
    "openai_chat",
    "openai_error",
]

# Short limits keep the bad-input tests (hung servers, slow answers) to a second or two each.
FAST: dict[str, Any] = {
    "ollama_health_timeout_seconds": 0.5,
    "qa_critic_timeout_seconds": 1.0,
    "qa_gate_timeout_seconds": 1.0,
    "qa_gate_retry_backoff_seconds": 0.01,
    "llm_health_cache_seconds": 30.0,
}


@dataclass
class AuditRecorder:
    events: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    async def __call__(self, event_type: str, payload: Mapping[str, Any]) -> None:
        self.events.append((event_type, dict(payload)))


@pytest.fixture
def fake_ollama() -> Iterator[FakeOllama]:
    with FakeOllama() as server:
        yield server


@pytest.fixture
def fake_anthropic() -> Iterator[FakeAnthropic]:
    with FakeAnthropic() as server:
        yield server


@pytest.fixture
def llm_settings(fake_ollama: FakeOllama, fake_anthropic: FakeAnthropic) -> Settings:
    return Settings(
        ollama_base_url=fake_ollama.url,
        anthropic_base_url=fake_anthropic.url,
        pipeline_critic_model="ollama/gemma3:27b",
        qa_fallback_critic_model="anthropic/claude-haiku-4-5",
        **FAST,
    )


@pytest.fixture
def llm_deps(llm_settings: Settings, fake_anthropic: FakeAnthropic) -> Deps:
    """Deps whose router points at the fake servers and whose audit sink records events."""
    router = LLMRouter.from_settings(llm_settings, anthropic_api_key=fake_anthropic.api_key)
    return Deps(llm=router, audit=AuditRecorder())
