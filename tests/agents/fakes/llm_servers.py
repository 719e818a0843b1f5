"""Local stand-ins for the model servers, speaking their real wire protocols so that the real
`ollama` client, `openai` SDK and `anthropic` SDK run against them. (A real model server runs in
tests/agents/llm/test_real_model.py; these script the misbehaviour a real one will not show.)

FakeOllama: GET /api/version, GET /api/tags, POST /api/show, POST /api/chat (non-streaming).
FakeOpenAI: GET /v1/models, POST /v1/chat/completions (optional bearer key, OpenAI's error
envelope).
FakeAnthropic: POST /v1/messages, GET /v1/models (API key checked, as x-api-key or bearer token;
errors in Anthropic's error envelope).

Per model, tests queue replies (`script`) consumed in order, then the model's default (`always`).
A reply is a `Reply` or a function of the request (`Seen -> Reply`) for answers that depend on
what was asked.
"""

from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from tests.helpers.http import FakeServer, Reply, Responder, Seen

Script = Reply | Responder


def _pick(queue: deque[Script] | None, default: Script | None, seen: Seen) -> Reply:
    item = queue.popleft() if queue else default
    if item is None:
        return Reply.json({"error": "no reply scripted for this model"}, status=500)
    return item(seen) if callable(item) else item


# --- Ollama -----------------------------------------------------------------------------------


def ollama_chat(
    content: str | dict[str, Any],
    *,
    thinking: str = "",
    prompt_tokens: int = 100,
    output_tokens: int = 50,
    duration_ms: int = 2000,
    done_reason: str = "stop",
    **reply: Any,
) -> Reply:
    """An /api/chat answer as Ollama sends it (durations in nanoseconds)."""
    text = content if isinstance(content, str) else json.dumps(content)
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if thinking:
        message["thinking"] = thinking
    return Reply.json(
        {
            "model": "fake",
            "created_at": "2026-01-01T00:00:00.000000Z",
            "message": message,
            "done": True,
            "done_reason": done_reason,
            "total_duration": duration_ms * 1_000_000,
            "load_duration": 1_000_000,
            "prompt_eval_count": prompt_tokens,
            "prompt_eval_duration": 1_000_000,
            "eval_count": output_tokens,
            "eval_duration": 1_000_000,
        },
        **reply,
    )


def ollama_error(status: int, message: str) -> Reply:
    return Reply.json({"error": message}, status=status)


@dataclass
class FakeOllama(FakeServer):
    models: dict[str, tuple[str, ...]] = field(default_factory=dict)  # name -> capabilities
    scripts: dict[str, deque[Script]] = field(default_factory=dict)
    defaults: dict[str, Script] = field(default_factory=dict)
    tags_reply: Reply | None = None  # overrides /api/tags (the health check)

    def add_model(self, name: str, *capabilities: str, always: Script | None = None) -> None:
        self.models[name] = capabilities or ("completion",)
        if always is not None:
            self.defaults[name] = always

    def script(self, model: str, *replies: Script) -> None:
        self.scripts.setdefault(model, deque()).extend(replies)

    def always(self, model: str, reply: Script) -> None:
        self.defaults[model] = reply

    def chats(self, model: str | None = None) -> list[dict[str, Any]]:
        """Bodies of the /api/chat requests received (for one model, or all)."""
        bodies = [s.json() for s in self.requests_to("/api/chat")]
        return [b for b in bodies if model is None or b.get("model") == model]

    def respond(self, seen: Seen) -> Reply:
        if seen.path == "/api/version":
            return Reply.json({"version": "0.12.6"})
        if seen.path == "/api/tags":
            if self.tags_reply is not None:
                return self.tags_reply
            return Reply.json(
                {
                    "models": [
                        {
                            "name": name,
                            "model": name,
                            "modified_at": "2026-01-01T00:00:00Z",
                            "size": 1,
                            "digest": "0" * 64,
                            "details": {"format": "gguf", "family": name.split(":")[0]},
                        }
                        for name in self.models
                    ]
                }
            )
        body = seen.json() or {}
        model = str(body.get("model", ""))
        if seen.path == "/api/show":
            if model not in self.models:
                return ollama_error(404, f"model '{model}' not found")
            return Reply.json(
                {
                    "modelfile": "",
                    "parameters": "",
                    "template": "",
                    "details": {"format": "gguf"},
                    "model_info": {},
                    "capabilities": list(self.models[model]),
                }
            )
        if seen.path == "/api/chat":
            if model not in self.models:
                return ollama_error(404, f'model "{model}" not found, try pulling it first')
            return _pick(self.scripts.get(model), self.defaults.get(model), seen)
        return ollama_error(404, "404 page not found")


# --- Anthropic --------------------------------------------------------------------------------


def anthropic_message(
    content: list[dict[str, Any]],
    *,
    input_tokens: int = 1000,
    output_tokens: int = 200,
    stop_reason: str = "tool_use",
    **reply: Any,
) -> Reply:
    return Reply.json(
        {
            "id": "msg_fake01",
            "type": "message",
            "role": "assistant",
            "model": "claude-fake",
            "content": content,
            "stop_reason": stop_reason,
            "stop_sequence": None,
            "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens},
        },
        **reply,
    )


def anthropic_tool(answer: dict[str, Any], **kwargs: Any) -> Reply:
    """A forced tool call answering with `answer` as the tool input."""
    block = {"type": "tool_use", "id": "toolu_fake01", "name": "submit_answer", "input": answer}
    return anthropic_message([block], **kwargs)


def anthropic_text(text: str, **kwargs: Any) -> Reply:
    kwargs.setdefault("stop_reason", "end_turn")
    return anthropic_message([{"type": "text", "text": text}], **kwargs)


def anthropic_error(status: int, kind: str, message: str) -> Reply:
    return Reply.json({"type": "error", "error": {"type": kind, "message": message}}, status=status)


@dataclass
class FakeAnthropic(FakeServer):
    api_key: str = "sk-ant-test-key"
    scripts: dict[str, deque[Script]] = field(default_factory=dict)
    defaults: dict[str, Script] = field(default_factory=dict)

    def script(self, model: str, *replies: Script) -> None:
        self.scripts.setdefault(model, deque()).extend(replies)

    def always(self, model: str, reply: Script) -> None:
        self.defaults[model] = reply

    def messages(self) -> list[dict[str, Any]]:
        return [s.json() for s in self.requests_to("/v1/messages")]

    def respond(self, seen: Seen) -> Reply:
        # Older SDKs send the key as x-api-key, the 2.x SDK as a bearer token; both are accepted.
        keys = {seen.headers.get("x-api-key"), seen.headers.get("authorization", "")[7:]}
        if seen.path == "/v1/models" and seen.method == "GET":
            if self.api_key not in keys:
                return anthropic_error(401, "authentication_error", "invalid x-api-key")
            names = sorted({*self.scripts, *self.defaults})
            data = [
                {"type": "model", "id": n, "display_name": n, "created_at": "2026-01-01T00:00:00Z"}
                for n in names
            ]
            return Reply.json({"data": data, "has_more": False, "first_id": None, "last_id": None})
        if seen.path != "/v1/messages" or seen.method != "POST":
            return anthropic_error(404, "not_found_error", f"no route {seen.path}")
        if self.api_key not in keys:
            return anthropic_error(401, "authentication_error", "invalid x-api-key")
        model = str((seen.json() or {}).get("model", ""))
        if model not in self.scripts and model not in self.defaults:
            return anthropic_error(404, "not_found_error", f"model: {model}")
        return _pick(self.scripts.get(model), self.defaults.get(model), seen)


# --- OpenAI-compatible --------------------------------------------------------------------------


def openai_chat(
    content: str | dict[str, Any],
    *,
    prompt_tokens: int = 120,
    completion_tokens: int = 30,
    finish_reason: str = "stop",
    reasoning: str = "",
    timings: dict[str, float] | None = None,
    **reply: Any,
) -> Reply:
    """A /v1/chat/completions answer as OpenAI-compatible servers send it."""
    text = content if isinstance(content, str) else json.dumps(content)
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if reasoning:
        message["reasoning_content"] = reasoning  # llama.cpp, vLLM, DeepSeek
    body: dict[str, Any] = {
        "id": "chatcmpl-fake01",
        "object": "chat.completion",
        "created": 1767225600,
        "model": "fake",
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }
    if timings is not None:
        body["timings"] = timings
    return Reply.json(body, **reply)


def openai_error(status: int, message: str, kind: str = "invalid_request_error") -> Reply:
    return Reply.json({"error": {"message": message, "type": kind, "code": None}}, status=status)


@dataclass
class FakeOpenAI(FakeServer):
    """GET /v1/models, POST /v1/chat/completions. `api_key` None: no key needed (a local
    server); else a wrong key gets a 401 that echoes it, as OpenAI's does. `rejects_format`: a
    request with response_format gets the 400 a server without structured outputs sends."""

    api_key: str | None = None
    models: list[str] = field(default_factory=list)
    scripts: dict[str, deque[Script]] = field(default_factory=dict)
    defaults: dict[str, Script] = field(default_factory=dict)
    rejects_format: bool = False
    models_reply: Reply | None = None  # overrides GET /v1/models (the health check)

    def add_model(self, name: str, *, always: Script | None = None) -> None:
        self.models.append(name)
        if always is not None:
            self.defaults[name] = always

    def script(self, model: str, *replies: Script) -> None:
        self.scripts.setdefault(model, deque()).extend(replies)

    def chats(self) -> list[dict[str, Any]]:
        return [s.json() for s in self.requests_to("/v1/chat/completions")]

    def respond(self, seen: Seen) -> Reply:
        if self.api_key is not None:
            sent = seen.headers.get("authorization", "")[len("Bearer ") :]
            if sent != self.api_key:
                return openai_error(401, f"Incorrect API key provided: {sent}.", "invalid_api_key")
        if seen.path == "/v1/models":
            if self.models_reply is not None:
                return self.models_reply
            data = [
                {"id": m, "object": "model", "created": 0, "owned_by": "me"} for m in self.models
            ]
            return Reply.json({"object": "list", "data": data})
        if seen.path != "/v1/chat/completions":
            return openai_error(404, f"no route {seen.path}")
        body = seen.json() or {}
        if self.rejects_format and "response_format" in body:
            return openai_error(400, "'response_format' of type 'json_schema' is not supported")
        model = str(body.get("model", ""))
        if model not in self.scripts and model not in self.defaults:
            return openai_error(404, f"The model `{model}` does not exist", "model_not_found")
        return _pick(self.scripts.get(model), self.defaults.get(model), seen)
