"""Ollama backend: the official `ollama` client against a local (or LAN) Ollama server.

A client is made per call rather than kept: multiqa runs reviewers both inside Faust's event loop
and in library callers' loops, and an httpx connection pool must not outlive the loop it was made
in.
Against a local server the cost is a TCP connect.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping, Sequence
from typing import Any

import httpx
import ollama
import pydantic

from agents.llm._base import (
    ChatMessage,
    LLMAnswer,
    LLMBadResponse,
    LLMError,
    LLMMisconfigured,
    LLMResponseTooLarge,
    LLMTimeout,
    LLMUnavailable,
)
from agents.llm._config import base_url_problem
from agents.llm._transport import BodyTooLarge, capped_transport


class OllamaProvider:
    name = "ollama"

    def __init__(self, host: str, *, max_response_bytes: int, health_timeout: float) -> None:
        self.host = host
        self._max_bytes = max_response_bytes
        self._health_timeout = health_timeout
        self._capabilities: dict[str, frozenset[str] | None] = {}
        self._problem = base_url_problem("ollama", host)
        self.last_health_problem: str | None = None

    def unusable(self) -> str | None:
        """A configuration problem no request can get past (a base URL that cannot work)."""
        return self._problem

    def _client(self, timeout: float) -> ollama.AsyncClient:
        return ollama.AsyncClient(
            host=self.host,
            timeout=httpx.Timeout(timeout),
            transport=capped_transport(httpx, self._max_bytes),
            follow_redirects=False,
            # Proxy variables would mount a proxy transport in place of the capped one.
            trust_env=False,
        )

    async def chat(
        self,
        model: str,
        messages: Sequence[ChatMessage],
        *,
        json_schema: Mapping[str, Any] | None,
        max_tokens: int,
        temperature: float,
        timeout: float,  # noqa: ASYNC109 (part of the interface; applied via asyncio.timeout)
        images: Sequence[bytes] | None = None,
    ) -> LLMAnswer:
        wire: list[dict[str, Any]] = [dict(m) for m in messages]
        if images:
            last_user = max(i for i, m in enumerate(wire) if m["role"] == "user")
            wire[last_user]["images"] = list(images)
        started = time.perf_counter()
        where = f"ollama/{model}"
        if self._problem:
            raise LLMUnavailable(self._problem)
        try:
            async with asyncio.timeout(timeout), self._client(timeout) as client:
                response = await client.chat(
                    model=model,
                    messages=wire,
                    format=dict(json_schema) if json_schema else None,
                    options={"num_predict": max_tokens, "temperature": temperature},
                    stream=False,
                )
        except LLMError:
            raise
        except Exception as exc:
            raise _translate(exc, where, timeout, self._max_bytes, self.host) from exc
        wall_ms = int((time.perf_counter() - started) * 1000)
        message = response.message
        return LLMAnswer(
            text=message.content or "",
            tokens_in=response.prompt_eval_count or 0,
            tokens_out=response.eval_count or 0,
            # The server's own measure of generation time, which is what drew power.
            duration_ms=(response.total_duration or 0) // 1_000_000 or wall_ms,
            model=where,
            stop_reason=response.done_reason,
            thinking=message.thinking or "",
        )

    async def healthy(self) -> bool:
        """Whether the server answers GET /api/tags as Ollama does. A server that is down or
        slow leaves `last_health_problem` None (an optional service absent: reviewers skip); one
        that answers, but not as Ollama (an HTML page, an OpenAI-compatible server's 404), sets
        it: the URL is the configuration's mistake, which reviewers report as an error."""
        if self._problem:
            self.last_health_problem = self._problem
            return False
        try:
            await self.installed_models()
        except LLMMisconfigured as exc:
            self.last_health_problem = exc.reason
            return False
        except LLMError:  # down, slow, or failing (HTTP 5xx): not the configuration's fault
            self.last_health_problem = None
            return False
        self.last_health_problem = None
        return True

    async def list_models(self) -> list[str]:
        """Names of the models pulled on the server (GET /api/tags)."""
        return await self.installed_models()

    async def installed_models(self) -> list[str]:
        """Names of the models pulled on the server (GET /api/tags)."""
        if self._problem:
            raise LLMUnavailable(self._problem)
        try:
            async with (
                asyncio.timeout(self._health_timeout),
                self._client(self._health_timeout) as client,
            ):
                listing = await client.list()
        except Exception as exc:
            answer = None
            if isinstance(exc, ollama.ResponseError) and exc.status_code in (404, 405):
                answer = f"HTTP {exc.status_code}"
            elif isinstance(exc, ValueError | pydantic.ValidationError):  # not Ollama's JSON
                answer = "a body that is not its JSON"
            if answer:
                raise LLMMisconfigured(_not_ollama(self.host, answer)) from exc
            raise _translate(
                exc, "ollama", self._health_timeout, self._max_bytes, self.host
            ) from exc
        return [m.model for m in listing.models if m.model]

    async def capabilities(self, model: str) -> frozenset[str] | None:
        if model in self._capabilities:
            return self._capabilities[model]
        found: frozenset[str] | None = None
        try:
            async with (
                asyncio.timeout(self._health_timeout),
                self._client(self._health_timeout) as client,
            ):
                shown = await client.show(model)
            if shown.capabilities is not None:
                found = frozenset(str(c) for c in shown.capabilities)
        except Exception:
            return None  # unknown this time; ask again next time
        self._capabilities[model] = found
        return found


def _not_ollama(host: str, answer: str) -> str:
    """A server answers at the Ollama URL, but not as Ollama: the URL points elsewhere (an
    OpenAI-compatible server, a proxy's login page)."""
    return (
        f"the server at {host} is not Ollama (GET /api/tags answered {answer}); an "
        "OpenAI-compatible server (llama.cpp, vLLM, LM Studio) is named openai/<model> with "
        "openai_base_url"
    )


def _translate(exc: BaseException, where: str, timeout: float, limit: int, host: str) -> LLMError:
    if isinstance(exc, TimeoutError | httpx.TimeoutException):
        return LLMTimeout(f"{where} did not answer within {timeout:g}s")
    if isinstance(exc, BodyTooLarge):
        return LLMResponseTooLarge(f"{where} answered more than {limit} bytes")
    if isinstance(exc, ollama.ResponseError):
        if exc.status_code == 404:  # /api/chat and /api/show answer 404 for a model not pulled
            return LLMMisconfigured(
                f"{where}: the model is not on the Ollama server at {host}: {str(exc.error)[:200]}"
            )
        return LLMBadResponse(f"{where} failed: HTTP {exc.status_code}: {str(exc.error)[:200]}")
    if isinstance(exc, ConnectionError | httpx.TransportError):
        return LLMUnavailable(f"Ollama at {host} is not reachable ({type(exc).__name__})")
    if isinstance(exc, ValueError | pydantic.ValidationError | httpx.HTTPError):
        # json.JSONDecodeError is a ValueError: the body was not Ollama's JSON.
        return LLMBadResponse(f"{where} answered something that is not Ollama's wire format")
    return LLMBadResponse(f"{where} failed: {type(exc).__name__}: {str(exc)[:200]}")
