"""What a model call cost: tokens from the API's own counts, dollars from a price table, and for
local models the energy drawn (duration x configured watts) priced at the electricity rate.

Local means a server on hardware we power: Ollama, and an OpenAI-compatible server whose base URL
is loopback, private or link-local (llama.cpp, vLLM, LM Studio on the LAN). A hosted
OpenAI-compatible API is priced per token: OpenAI's list prices for its own models, and a model
missing from the table like the dearest one in it (a cost guard must not under-count)."""

from __future__ import annotations

import logging
from collections.abc import Iterable

from agents.llm._base import LLMAnswer, model_ref
from agents.llm._config import is_local_server, openai_url
from agents.settings import Settings
from schemas.records import Cost

log = logging.getLogger(__name__)

# USD per million tokens (input, output), Anthropic's list prices. Matched by the longest prefix,
# so dated names ("claude-haiku-4-5-20251001") find their family.
ANTHROPIC_PRICES: dict[str, tuple[float, float]] = {
    "claude-opus-4-5": (5.0, 25.0),
    "claude-opus-4-1": (15.0, 75.0),
    "claude-opus-4": (15.0, 75.0),
    "claude-sonnet-4-5": (3.0, 15.0),
    "claude-sonnet-4": (3.0, 15.0),
    "claude-haiku-4-5": (1.0, 5.0),
    "claude-3-7-sonnet": (3.0, 15.0),
    "claude-3-5-sonnet": (3.0, 15.0),
    "claude-3-5-haiku": (0.8, 4.0),
    "claude-3-opus": (15.0, 75.0),
    "claude-3-haiku": (0.25, 1.25),
}
# USD per million tokens (input, output), OpenAI's list prices (standard tier), longest prefix.
OPENAI_PRICES: dict[str, tuple[float, float]] = {
    "gpt-5-nano": (0.05, 0.4),
    "gpt-5-mini": (0.25, 2.0),
    "gpt-5": (1.25, 10.0),
    "gpt-4.1-nano": (0.1, 0.4),
    "gpt-4.1-mini": (0.4, 1.6),
    "gpt-4.1": (2.0, 8.0),
    "gpt-4o-mini": (0.15, 0.6),
    "gpt-4o": (2.5, 10.0),
    "o4-mini": (1.1, 4.4),
    "o3-mini": (1.1, 4.4),
    "o3": (2.0, 8.0),
    "o1": (15.0, 60.0),
}
# A hosted model missing from its table is priced like the most expensive one of that table: a
# cost guard that under-counts is worse than one that over-counts.
_TABLES = {"anthropic": ANTHROPIC_PRICES, "openai": OPENAI_PRICES}


def token_price(model: str, *, local: bool | None = None) -> tuple[float, float]:
    """(input, output) USD per million tokens; local models are free per token. `local` says
    whether an openai/ model runs on a local server (default: Ollama only)."""
    ref = model_ref(model)
    if ref.provider == "ollama" or (local and ref.provider == "openai"):
        return (0.0, 0.0)
    table = _TABLES.get(ref.provider, ANTHROPIC_PRICES)
    for prefix in sorted(table, key=len, reverse=True):
        if ref.name.startswith(prefix):
            return table[prefix]
    dearest = max(table.values())
    log.warning("no price for %s; costing it at %s USD/Mtok in/out", ref, dearest)
    return dearest


def is_local_model(model: str, settings: Settings) -> bool:
    """Whether `model` runs on hardware we power (costed in energy, not tokens)."""
    provider = model_ref(model).provider
    if provider == "ollama":
        return True
    return provider == "openai" and is_local_server(openai_url(settings))


def answer_cost(answer: LLMAnswer, settings: Settings) -> Cost:
    """The cost of one answered call."""
    return call_cost(
        answer.model, answer.tokens_in, answer.tokens_out, answer.duration_ms, settings
    )


def call_cost(
    model: str, tokens_in: int, tokens_out: int, duration_ms: int, settings: Settings
) -> Cost:
    local = is_local_model(model, settings)
    price_in, price_out = token_price(model, local=local)
    usd = (tokens_in * price_in + tokens_out * price_out) / 1_000_000
    kwh = 0.0
    if local:
        # kWh = hours x kW. Only local models draw power we pay for; an API's energy is priced in.
        kwh = (duration_ms / 3_600_000) * (settings.local_model_watts / 1000)
        usd += kwh * settings.electricity_rate_kwh
    return Cost(
        tokens_in=tokens_in,
        tokens_out=tokens_out,
        usd=usd,
        kwh=kwh,
        duration_ms=duration_ms,
        model=str(model_ref(model)),
    )


def total_cost(costs: Iterable[Cost], *, model: str | None = None) -> Cost:
    """Several calls (a failed primary and its fallback, a retry) as one cost; `model` names the
    model that gave the verdict (default: the last one called)."""
    parts = list(costs)
    if not parts:
        return Cost(model=model)
    return Cost(
        tokens_in=sum(c.tokens_in for c in parts),
        tokens_out=sum(c.tokens_out for c in parts),
        usd=sum(c.usd for c in parts),
        kwh=sum(c.kwh for c in parts),
        duration_ms=sum(c.duration_ms for c in parts),
        model=model or parts[-1].model,
        parser_fallbacks=sum(c.parser_fallbacks for c in parts),
    )
