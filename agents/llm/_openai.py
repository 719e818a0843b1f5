"""OpenAI-compatible backend: the official `openai` SDK (Chat Completions) against any base URL.

vLLM, llama.cpp's server, LM Studio, a LiteLLM proxy, Ollama's /v1 and hosted APIs all speak this
protocol, so `openai/<model>` reaches any of them. Contract as for the other backends: one total
deadline (SDK retries off), bodies cut at `max_response_bytes` while they stream in, tokens from
the answer's `usage`, the server's own generation time when it reports one (llama.cpp `timings`).

Structured output is `response_format` `json_schema` with `strict: true`. Servers differ in how
much JSON Schema they accept; one that rejects the request (HTTP 400/422/501 naming the response
format or schema) is asked again in prose, once, and the model is remembered as prose-only for
this server, so later calls do not pay the rejected request again. Its answers then go through
the defensive parser, which the answer counter records.

Model listing (`GET /models`) is the health check. llama.cpp's single-model server answers any
model name with the one model it has loaded; asking for "qwen2.5:7b" and silently getting another
model would be a quiet lie in the cost and audit rows, so a model the server does not list is
refused before it is asked (`model_problem`). A server without a listing (404) is not held to it.
"""

from __future__ import annotations

import asyncio
import base64
import logging
import time
from collections.abc import Mapping, Sequence
from typing import Any

import httpx2
import openai
from openai.types.chat import ChatCompletion

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
from agents.llm._config import base_url_problem, is_hosted_openai
from agents.llm._transport import BodyTooLarge, capped_transport, find_cause

log = logging.getLogger(__name__)

# Words in a 400/422 that say the server did not accept the structured-output request.
_FORMAT_WORDS = ("response_format", "json_schema", "schema", "structured", "grammar")
# OpenAI's reasoning families take `max_completion_tokens` and no temperature.
_REASONING_PREFIXES = ("o1", "o3", "o4", "gpt-5")
# Sent when no key is configured: local servers usually need none, and the SDK requires one.
_NO_KEY = "no-key"


class OpenAIProvider:
    name = "openai"

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None,
        max_response_bytes: int,
        health_timeout: float,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self._api_key = (api_key or "").strip() or None
        self._max_bytes = max_response_bytes
        self._health_timeout = health_timeout
        self._hosted = is_hosted_openai(self.base_url)
        self._problem = base_url_problem("openai", self.base_url)
        self._prose_only: set[str] = set()
        # The last listing: model ids (and aliases) the server serves; None when it has none.
        self._served: frozenset[str] | None = None
        self.last_health_problem: str | None = None
        self.last_health_misconfigured = False  # the last health problem was the configuration's

    # --- configuration ------------------------------------------------------------------------

    def unusable(self) -> str | None:
        """A configuration problem that no request can get past (bad URL, no key where one is
        required), or None."""
        if self._problem:
            return self._problem
        if self._hosted and not self._api_key:
            return "no OpenAI API key (set OPENAI_API_KEY; it is empty or unset)"
        return None

    def prose_only(self, model: str) -> bool:
        return model in self._prose_only

    def _client(self, http: httpx2.AsyncClient, timeout: float) -> openai.AsyncOpenAI:
        return openai.AsyncOpenAI(
            api_key=self._api_key or _NO_KEY,
            base_url=self.base_url,
            http_client=http,
            max_retries=0,
            timeout=timeout,
        )

    def _http(self, timeout: float) -> httpx2.AsyncClient:
        return httpx2.AsyncClient(
            transport=capped_transport(httpx2, self._max_bytes),
            timeout=httpx2.Timeout(timeout),
            follow_redirects=False,
            trust_env=False,  # a proxy transport would replace the capped one
        )

    # --- chat ---------------------------------------------------------------------------------

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
        where = f"openai/{model}"
        problem = self.unusable()
        if problem:
            raise LLMUnavailable(problem)
        request = self._request(model, messages, max_tokens, temperature, images)
        structured = bool(json_schema) and model not in self._prose_only
        if structured and json_schema:
            request["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "answer", "strict": True, "schema": dict(json_schema)},
            }
        started = time.perf_counter()
        try:
            async with asyncio.timeout(timeout), self._http(timeout) as http:
                client = self._client(http, timeout)
                try:
                    completion = await client.chat.completions.create(**request)
                except openai.APIStatusError as exc:
                    if not (structured and _rejects_format(exc)):
                        raise
                    # Asked again in prose within the same deadline; remembered for this model.
                    self._prose_only.add(model)
                    log.warning(
                        "%s at %s rejected response_format (HTTP %s); asking in prose from now on",
                        where,
                        self.base_url,
                        exc.status_code,
                    )
                    request.pop("response_format")
                    completion = await client.chat.completions.create(**request)
        except LLMError:
            raise
        except Exception as exc:
            raise self._translate(exc, where, timeout) from cause_without_secret(exc, self._api_key)
        wall_ms = int((time.perf_counter() - started) * 1000)
        try:
            return _answer(completion, where, wall_ms)
        except (AttributeError, IndexError, TypeError, ValueError):
            raise LLMBadResponse(
                f"{where} answered something that is not a chat completion ({_kind(completion)})"
            ) from None

    def _request(
        self,
        model: str,
        messages: Sequence[ChatMessage],
        max_tokens: int,
        temperature: float,
        images: Sequence[bytes] | None,
    ) -> dict[str, Any]:
        wire: list[dict[str, Any]] = [dict(m) for m in messages]
        if images:
            last_user = max(i for i, m in enumerate(wire) if m["role"] == "user")
            parts: list[dict[str, Any]] = [{"type": "text", "text": wire[last_user]["content"]}]
            parts += [{"type": "image_url", "image_url": {"url": _data_url(d)}} for d in images]
            wire[last_user]["content"] = parts
        request: dict[str, Any] = {"model": model, "messages": wire}
        reasoning = self._hosted and model.lower().startswith(_REASONING_PREFIXES)
        if reasoning:
            # OpenAI's reasoning models refuse max_tokens and any temperature but the default.
            request["max_completion_tokens"] = max_tokens
        else:
            # max_tokens: what every compatible server understands (max_completion_tokens is
            # newer and not everywhere).
            request["max_tokens"] = max_tokens
            request["temperature"] = temperature
        return request

    # --- listing and health -------------------------------------------------------------------

    async def list_models(self) -> list[str] | None:
        """Model ids (and aliases) the server serves (GET /models); None when it has no listing.
        Raises LLMError when the server cannot be asked."""
        problem = self.unusable()
        if problem:
            raise LLMUnavailable(problem)
        try:
            async with (
                asyncio.timeout(self._health_timeout),
                self._http(self._health_timeout) as http,
            ):
                page = await self._client(http, self._health_timeout).models.list()
                names: list[str] = []
                for item in page.data:
                    names.append(str(item.id))
                    aliases = getattr(item, "aliases", None)
                    if isinstance(aliases, list):
                        names += [str(a) for a in aliases]
        except LLMError:
            raise
        except openai.NotFoundError:
            return None  # a server without a listing; it is not held to one
        except Exception as exc:
            raise self._translate(exc, "openai", self._health_timeout) from cause_without_secret(
                exc, self._api_key
            )
        return list(dict.fromkeys(names))

    async def healthy(self) -> bool:
        try:
            listed = await self.list_models()
        except LLMError as exc:
            self.last_health_problem = exc.reason
            self.last_health_misconfigured = isinstance(exc, LLMMisconfigured)
            return False
        except Exception as exc:  # listing pages the SDK could not read
            self.last_health_problem = f"listing failed: {type(exc).__name__}"
            return False
        self._served = frozenset(listed) if listed is not None else None
        self.last_health_problem = None
        return True

    def model_problem(self, model: str) -> str | None:
        """Why `model` is not served, from the last listing (None: listed, or no listing)."""
        if self._served is None or model in self._served:
            return None
        shown = ", ".join(sorted(self._served)[:5]) or "nothing"
        return f"{self.base_url} does not serve {model} (GET /models lists: {shown})"

    async def capabilities(self, model: str) -> frozenset[str] | None:
        return None  # the protocol has no capability listing

    # --- errors -------------------------------------------------------------------------------

    def _translate(self, exc: BaseException, where: str, timeout: float) -> LLMError:
        error = _translate(exc, where, timeout, self._max_bytes, self.base_url)
        return without_secret(error, self._api_key)


def _rejects_format(exc: openai.APIStatusError) -> bool:
    if exc.status_code not in (400, 422, 501):
        return False
    text = f"{exc.message} {exc.body!r}".lower()
    return any(word in text for word in _FORMAT_WORDS)


def _answer(completion: Any, where: str, wall_ms: int) -> LLMAnswer:
    if not isinstance(completion, ChatCompletion):
        raise TypeError("not a ChatCompletion")
    choice = completion.choices[0]
    message = choice.message
    if getattr(message, "refusal", None):
        raise LLMBadResponse(f"{where} refused to answer: {str(message.refusal)[:200]}")
    usage = completion.usage
    thinking = getattr(message, "reasoning_content", None) or getattr(message, "reasoning", None)
    return LLMAnswer(
        text=message.content or "",
        tokens_in=int(usage.prompt_tokens or 0) if usage else 0,
        tokens_out=int(usage.completion_tokens or 0) if usage else 0,
        duration_ms=_server_ms(completion) or wall_ms,
        model=where,
        stop_reason=choice.finish_reason,
        thinking=thinking if isinstance(thinking, str) else "",
    )


def _server_ms(completion: ChatCompletion) -> int:
    """The server's own prompt + generation time (llama.cpp `timings`), which is what drew
    power; 0 when the server does not report it."""
    timings = getattr(completion, "timings", None)
    if not isinstance(timings, dict):
        return 0
    try:
        return int(float(timings.get("prompt_ms", 0)) + float(timings.get("predicted_ms", 0)))
    except (TypeError, ValueError):
        return 0


def _kind(value: Any) -> str:
    if isinstance(value, str):
        start = value.lstrip()[:15].lower()
        return "HTML" if start.startswith(("<!doctype", "<html")) else "text, not JSON"
    return type(value).__name__


def _data_url(data: bytes) -> str:
    media_type = "image/png" if data.startswith(b"\x89PNG") else "image/jpeg"
    return f"data:{media_type};base64,{base64.b64encode(data).decode()}"


def _translate(exc: BaseException, where: str, timeout: float, limit: int, url: str) -> LLMError:
    if find_cause(exc, BodyTooLarge) is not None:
        return LLMResponseTooLarge(f"{where} answered more than {limit} bytes")
    if isinstance(exc, TimeoutError | openai.APITimeoutError) or find_cause(
        exc, httpx2.TimeoutException
    ):
        return LLMTimeout(f"{where} did not answer within {timeout:g}s")
    if isinstance(exc, openai.AuthenticationError | openai.PermissionDeniedError):
        return LLMMisconfigured(
            f"{url} rejected the API key (HTTP {exc.status_code}); check OPENAI_API_KEY"
        )
    if isinstance(exc, openai.NotFoundError):  # the model (or the endpoint) is not there
        return LLMMisconfigured(f"{where} failed: HTTP 404: {str(exc.message)[:200]}")
    if isinstance(exc, openai.APIStatusError):
        return LLMBadResponse(f"{where} failed: HTTP {exc.status_code}: {str(exc.message)[:200]}")
    if isinstance(exc, openai.APIConnectionError):
        return LLMUnavailable(f"OpenAI-compatible server at {url} is not reachable")
    if isinstance(exc, openai.APIResponseValidationError | ValueError | AttributeError | TypeError):
        # Also the SDK tripping over a page that is not JSON (an HTML login or error page).
        return LLMBadResponse(f"{where} answered something that is not the OpenAI API's JSON")
    return LLMBadResponse(f"{where} failed: {type(exc).__name__}: {str(exc)[:200]}")
