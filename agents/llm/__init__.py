"""Model providers the LLM reviewers share: one small interface (`LLMProvider`), two backends
(Ollama through the `ollama` client, Anthropic through the `anthropic` SDK), a router from
"provider/model" names to backends (what `Deps.llm` holds), the cost of each call, and the one
defensive parser of JSON answers."""

from agents.llm._anthropic import AnthropicProvider
from agents.llm._ask import (
    FencedData,
    Judgement,
    Prompt,
    ask,
    fence_data,
    is_thinking_model,
    router_for,
    token_budget,
    unavailable_reason,
    window,
)
from agents.llm._base import (
    ChatMessage,
    LLMAnswer,
    LLMBadResponse,
    LLMError,
    LLMProvider,
    LLMResponseTooLarge,
    LLMTimeout,
    LLMUnavailable,
    ModelRef,
    model_ref,
    same_model,
)
from agents.llm._cost import ANTHROPIC_PRICES, answer_cost, call_cost, token_price, total_cost
from agents.llm._ollama import OllamaProvider
from agents.llm._parse import (
    AnswerError,
    parse_json_answer,
    preview,
    read_bool,
    read_list,
    read_score,
    read_scores,
    read_text,
)
from agents.llm._router import LLMRouter, default_router

__all__ = [
    "ANTHROPIC_PRICES",
    "AnswerError",
    "AnthropicProvider",
    "ChatMessage",
    "FencedData",
    "Judgement",
    "LLMAnswer",
    "LLMBadResponse",
    "LLMError",
    "LLMProvider",
    "LLMResponseTooLarge",
    "LLMRouter",
    "LLMTimeout",
    "LLMUnavailable",
    "ModelRef",
    "OllamaProvider",
    "Prompt",
    "answer_cost",
    "ask",
    "call_cost",
    "default_router",
    "fence_data",
    "is_thinking_model",
    "model_ref",
    "parse_json_answer",
    "preview",
    "read_bool",
    "read_list",
    "read_score",
    "read_scores",
    "read_text",
    "router_for",
    "same_model",
    "token_budget",
    "token_price",
    "total_cost",
    "unavailable_reason",
    "window",
]
