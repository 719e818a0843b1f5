"""Model providers the LLM reviewers share: one small interface (`LLMProvider`), three backends
(Ollama through the `ollama` client, any OpenAI-compatible server through the `openai` SDK,
Anthropic through the `anthropic` SDK), a router from "provider/model" names to backends (what
`Deps.llm` holds), where the servers are (`_config`: OLLAMA_HOST, OPENAI_BASE_URL, keys from the
environment only), the cost of each call, the building blocks of the answer schemas
(`answer_schema`), the one defensive parser of JSON answers and the count of how often it was
needed (`answer_counts`, `on_answer`).

Errors: every provider raises only `LLMError` subclasses:

    LLMError (reason: short, safe to show; never contains a key)
    +-- LLMUnavailable      no server, no key, a key refused, a base URL that cannot work
    |   +-- LLMMisconfigured  of those, the configuration's fault (key, URL, model not there)
    +-- LLMTimeout          the call did not finish within its deadline
    +-- LLMResponseTooLarge the answer was larger than llm_max_response_bytes
    +-- LLMBadResponse      HTTP error, or a body that is not the provider's wire format
"""

from agents.llm._anthropic import AnthropicProvider
from agents.llm._ask import (
    FencedData,
    Judgement,
    Prompt,
    Unusable,
    ask,
    fence_data,
    is_thinking_model,
    model_unusable,
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
    LLMMisconfigured,
    LLMProvider,
    LLMResponseTooLarge,
    LLMTimeout,
    LLMUnavailable,
    ModelRef,
    model_ref,
    same_model,
)
from agents.llm._config import (
    base_url_problem,
    is_local_server,
    ollama_url,
    openai_url,
)
from agents.llm._cost import (
    ANTHROPIC_PRICES,
    OPENAI_PRICES,
    answer_cost,
    call_cost,
    is_local_model,
    token_price,
    total_cost,
)
from agents.llm._ollama import OllamaProvider
from agents.llm._openai import OpenAIProvider
from agents.llm._parse import (
    AnswerError,
    parse_json_answer,
    preview,
    read_bool,
    read_list,
    read_score,
    read_scores,
    read_text,
    structured_object,
)
from agents.llm._router import LLMRouter, default_router
from agents.llm._stats import answer_counts, on_answer

__all__ = [
    "ANTHROPIC_PRICES",
    "OPENAI_PRICES",
    "AnswerError",
    "AnthropicProvider",
    "ChatMessage",
    "FencedData",
    "Judgement",
    "LLMAnswer",
    "LLMBadResponse",
    "LLMError",
    "LLMMisconfigured",
    "LLMProvider",
    "LLMResponseTooLarge",
    "LLMRouter",
    "LLMTimeout",
    "LLMUnavailable",
    "ModelRef",
    "OllamaProvider",
    "OpenAIProvider",
    "Prompt",
    "Unusable",
    "answer_cost",
    "answer_counts",
    "ask",
    "base_url_problem",
    "call_cost",
    "default_router",
    "fence_data",
    "is_local_model",
    "is_local_server",
    "is_thinking_model",
    "model_ref",
    "model_unusable",
    "ollama_url",
    "on_answer",
    "openai_url",
    "parse_json_answer",
    "preview",
    "read_bool",
    "read_list",
    "read_score",
    "read_scores",
    "read_text",
    "router_for",
    "same_model",
    "structured_object",
    "token_budget",
    "token_price",
    "total_cost",
    "unavailable_reason",
    "window",
]
