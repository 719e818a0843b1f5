"""Anthropic backend: the official `anthropic` SDK (Messages API).

Structured output is a forced tool call whose input schema is the answer's JSON schema; the tool's
input is returned as the answer text (JSON), so every reviewer parses one way whatever the provider.
`temperature` is not sent: the Messages API of SDK 2.x takes no sampling parameters (current
models fix their own). The SDK's own retries are off: the critic's fallback chain and the gates'
single retry are the only retry policy, so a call's worst case stays `timeout`.
"""

from __future__ import annotations

import asyncio
import base64
import json
import time
from collections.abc import Mapping, Sequence
from typing import Any

import anthropic
import httpx2

from agents.llm._base import (
    ChatMessage,
    LLMAnswer,
    LLMBadResponse,
    LLMError,
    LLMMisconfigured,
    LLMResponseTooLarge,
    LLMTimeout,
    LLMUnavailable,
    cause_without_secret,
    without_secret,
)
from agents.llm._config import base_url_problem
from agents.llm._transport import BodyTooLarge, capped_transport, find_cause

_TOOL_NAME = "submit_answer"


class AnthropicProvider:
    name = "anthropic"

    def __init__(self, *, api_key: str | None, base_url: str | None, max_response_bytes: int):
        self._api_key = (api_key or "").strip() or None
        self._base_url = base_url or None
        self._max_bytes = max_response_bytes
        self._problem = base_url_problem("anthropic", base_url) if base_url else None
        self.last_health_problem: str | None = None

    def unusable(self) -> str | None:
        """A configuration problem no request can get past (bad base URL, no key)."""
        if self._problem:
            return self._problem
        if not self._api_key:
            return "no Anthropic API key (set ANTHROPIC_API_KEY; it is empty or unset)"
        return None

    def _http(self, timeout: float) -> httpx2.AsyncClient:
        return httpx2.AsyncClient(
            transport=capped_transport(httpx2, self._max_bytes),
            timeout=httpx2.Timeout(timeout),
            follow_redirects=False,
            trust_env=False,
        )

    def _client(self, http: httpx2.AsyncClient, timeout: float) -> anthropic.AsyncAnthropic:
        return anthropic.AsyncAnthropic(
            api_key=self._api_key,
            base_url=self._base_url,
            http_client=http,
            max_retries=0,
            timeout=timeout,
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
        where = f"anthropic/{model}"
        problem = self.unusable()
        if problem:
            raise LLMUnavailable(problem)
        system = "\n\n".join(m["content"] for m in messages if m["role"] == "system")
        turns: list[dict[str, Any]] = [
            {"role": m["role"], "content": m["content"]} for m in messages if m["role"] != "system"
        ]
        if images:
            last_user = max(i for i, m in enumerate(turns) if m["role"] == "user")
            blocks: list[dict[str, Any]] = [_image_block(data) for data in images]
            blocks.append({"type": "text", "text": turns[last_user]["content"]})
            turns[last_user]["content"] = blocks
        request: dict[str, Any] = {
            "model": model,
            "max_tokens": max_tokens,
            "messages": turns,
        }
        if system:
            request["system"] = system
        if json_schema:
            request["tools"] = [
                {
                    "name": _TOOL_NAME,
                    "description": "Submit the answer in the required structure.",
                    "input_schema": dict(json_schema),
                }
            ]
            request["tool_choice"] = {"type": "tool", "name": _TOOL_NAME}
        started = time.perf_counter()
        try:
            async with asyncio.timeout(timeout), self._http(timeout) as http:
                message = await self._client(http, timeout).messages.create(**request)
        except LLMError:
            raise
        except Exception as exc:
            error = _translate(exc, where, timeout, self._max_bytes)
            raise without_secret(error, self._api_key) from cause_without_secret(exc, self._api_key)
        duration_ms = int((time.perf_counter() - started) * 1000)
        try:
            return _answer(message, where, duration_ms)
        except (AttributeError, TypeError, ValueError):
            # Not the Messages API's shape (the SDK does not validate bodies by default).
            raise LLMBadResponse(f"{where} answered something that is not a Message") from None

    async def healthy(self) -> bool:
        # Not a request per review: a key that the API refuses surfaces on the call itself (and
        # `multiqa models` verifies it with a models-list call).
        self.last_health_problem = self.unusable()
        return self.last_health_problem is None

    async def list_models(self, timeout: float = 10.0) -> list[str]:  # noqa: ASYNC109
        """Model ids the API lists for this key (GET /v1/models). Raises LLMError."""
        problem = self.unusable()
        if problem:
            raise LLMUnavailable(problem)
        try:
            async with asyncio.timeout(timeout), self._http(timeout) as http:
                page = await self._client(http, timeout).models.list(limit=1000)
                return [str(m.id) for m in page.data]
        except Exception as exc:
            error = _translate(exc, "anthropic", timeout, self._max_bytes)
            raise without_secret(error, self._api_key) from cause_without_secret(exc, self._api_key)

    async def capabilities(self, model: str) -> frozenset[str] | None:
        return None


def _answer(message: Any, where: str, duration_ms: int) -> LLMAnswer:
    text = ""
    for block in message.content:
        if block.type == "tool_use":
            text = json.dumps(block.input)
            break
        if block.type == "text":
            text += block.text
    usage = message.usage
    return LLMAnswer(
        text=text,
        tokens_in=int(usage.input_tokens or 0),
        tokens_out=int(usage.output_tokens or 0),
        duration_ms=duration_ms,
        model=where,
        stop_reason=message.stop_reason,
    )


def _image_block(data: bytes) -> dict[str, Any]:
    media_type = "image/png" if data.startswith(b"\x89PNG") else "image/jpeg"
    return {
        "type": "image",
        "source": {
            "type": "base64",
            "media_type": media_type,
            "data": base64.b64encode(data).decode(),
        },
    }


def _translate(exc: BaseException, where: str, timeout: float, limit: int) -> LLMError:
    if find_cause(exc, BodyTooLarge) is not None:
        return LLMResponseTooLarge(f"{where} answered more than {limit} bytes")
    if isinstance(exc, TimeoutError | anthropic.APITimeoutError) or find_cause(
        exc, httpx2.TimeoutException
    ):
        return LLMTimeout(f"{where} did not answer within {timeout:g}s")
    if isinstance(exc, anthropic.AuthenticationError | anthropic.PermissionDeniedError):
        return LLMMisconfigured(
            f"the Anthropic API rejected the key (HTTP {exc.status_code}); check ANTHROPIC_API_KEY"
        )
    if isinstance(exc, anthropic.NotFoundError):  # the model (or the endpoint) is not there
        return LLMMisconfigured(f"{where} failed: HTTP 404: {str(exc.message)[:200]}")
    if isinstance(exc, anthropic.APIStatusError):
        return LLMBadResponse(f"{where} failed: HTTP {exc.status_code}: {str(exc.message)[:200]}")
    if isinstance(exc, anthropic.APIConnectionError):
        return LLMUnavailable(f"Anthropic API is not reachable ({exc.message[:120]})")
    return LLMBadResponse(f"{where} failed: {type(exc).__name__}: {str(exc)[:200]}")
