"""The router reviewers call: "provider/model" in, the right backend out, with health checks
shared by every reviewer of a draft.

Four LLM reviewers start together on each draft; when Ollama is down they must not each wait out
the health timeout. Health results are cached for `llm_health_cache_seconds`, and concurrent checks
of the same backend share one request.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping, Sequence
from typing import Any

from opentelemetry.trace import SpanKind, StatusCode

from agents._spans import tracer
from agents.llm._anthropic import AnthropicProvider
from agents.llm._base import (
    ChatMessage,
    LLMAnswer,
    LLMError,
    LLMProvider,
    LLMUnavailable,
    ModelRef,
    model_ref,
)
from agents.llm._config import anthropic_key, ollama_url, openai_key, openai_url
from agents.llm._ollama import OllamaProvider
from agents.llm._openai import OpenAIProvider
from agents.settings import Settings


class LLMRouter:
    def __init__(
        self, providers: Mapping[str, LLMProvider], *, health_cache_seconds: float = 10.0
    ) -> None:
        self.providers = dict(providers)
        self._ttl = health_cache_seconds
        self._health: dict[str, tuple[float, bool]] = {}
        self._checks: dict[str, asyncio.Task[bool]] = {}

    @classmethod
    def from_settings(
        cls,
        settings: Settings,
        *,
        anthropic_api_key: str | None = None,
        openai_api_key: str | None = None,
    ) -> LLMRouter:
        """Backends as settings (and the environment's conventions, `agents.llm._config`)
        describe them. Keys come from the arguments, else ANTHROPIC_API_KEY / OPENAI_API_KEY:
        secrets stay out of app_settings."""
        limit = settings.llm_max_response_bytes
        return cls(
            {
                "ollama": OllamaProvider(
                    ollama_url(settings),
                    max_response_bytes=limit,
                    health_timeout=settings.ollama_health_timeout_seconds,
                ),
                "openai": OpenAIProvider(
                    openai_url(settings),
                    api_key=openai_api_key or openai_key(),
                    max_response_bytes=limit,
                    health_timeout=settings.openai_health_timeout_seconds,
                ),
                "anthropic": AnthropicProvider(
                    api_key=anthropic_api_key or anthropic_key(),
                    base_url=settings.anthropic_base_url or None,
                    max_response_bytes=limit,
                ),
            },
            health_cache_seconds=settings.llm_health_cache_seconds,
        )

    def resolve(self, model: str | ModelRef) -> tuple[LLMProvider, ModelRef]:
        ref = model if isinstance(model, ModelRef) else model_ref(model)
        provider = self.providers.get(ref.provider)
        if provider is None:
            raise LLMUnavailable(f"no {ref.provider} provider is configured for {ref}")
        return provider, ref

    async def chat(
        self,
        model: str | ModelRef,
        messages: Sequence[ChatMessage],
        *,
        json_schema: Mapping[str, Any] | None,
        max_tokens: int,
        temperature: float,
        timeout: float,  # noqa: ASYNC109 (part of the interface; applied via asyncio.timeout)
        images: Sequence[bytes] | None = None,
    ) -> LLMAnswer:
        provider, ref = self.resolve(model)
        with tracer().start_as_current_span(
            "multiqa.llm chat",
            kind=SpanKind.CLIENT,
            attributes={
                "gen_ai.system": ref.provider,
                "gen_ai.request.model": ref.name[:200],
                "gen_ai.request.max_tokens": max_tokens,
                "multiqa.llm.structured": json_schema is not None,
            },
        ) as span:
            try:
                answer = await provider.chat(
                    ref.name,
                    messages,
                    json_schema=json_schema,
                    max_tokens=max_tokens,
                    temperature=temperature,
                    timeout=timeout,
                    images=images,
                )
            except LLMError as exc:
                span.set_attribute("multiqa.llm.status", type(exc).__name__)
                span.set_status(StatusCode.ERROR, exc.reason[:200])
                raise
            span.set_attribute("multiqa.llm.status", "ok")
            span.set_attribute("gen_ai.usage.input_tokens", answer.tokens_in)
            span.set_attribute("gen_ai.usage.output_tokens", answer.tokens_out)
            if answer.stop_reason:
                span.set_attribute("gen_ai.response.finish_reasons", [answer.stop_reason[:50]])
            return answer

    async def healthy(self, model: str | ModelRef) -> bool:
        """Whether the backend serving `model` answers (cached briefly, checks shared)."""
        try:
            provider, ref = self.resolve(model)
        except (LLMUnavailable, ValueError):
            return False
        key = ref.provider
        cached = self._health.get(key)
        now = time.monotonic()
        if cached is not None and cached[0] > now:
            return cached[1]
        task = self._checks.get(key)
        if task is None or task.done() or task.get_loop() is not asyncio.get_running_loop():
            task = asyncio.ensure_future(provider.healthy())
            self._checks[key] = task
        # Shielded: one caller being cancelled must not cancel the check the others wait on.
        ok = await asyncio.shield(task)
        self._health[key] = (time.monotonic() + self._ttl, ok)
        return ok

    async def capabilities(self, model: str | ModelRef) -> frozenset[str] | None:
        try:
            provider, ref = self.resolve(model)
        except (LLMUnavailable, ValueError):
            return None
        return await provider.capabilities(ref.name)


_DEFAULT_ROUTERS: dict[tuple[Any, ...], LLMRouter] = {}


def default_router(settings: Settings) -> LLMRouter:
    """The router for `Deps.llm is None`, shared per configuration so health caching works across
    reviewers that each build their deps."""
    key = (
        ollama_url(settings),
        openai_url(settings),
        settings.anthropic_base_url,
        settings.llm_max_response_bytes,
        settings.ollama_health_timeout_seconds,
        settings.openai_health_timeout_seconds,
        settings.llm_health_cache_seconds,
        # Keys are part of the identity (a changed key is a new router) but not kept in it.
        hash((anthropic_key(), openai_key())),
    )
    router = _DEFAULT_ROUTERS.get(key)
    if router is None:
        router = _DEFAULT_ROUTERS[key] = LLMRouter.from_settings(settings)
    return router
