"""What a model call cost: tokens from the API's own counts, dollars from a price table, and for
local models the energy drawn (duration x configured watts) priced at the electricity rate."""

from __future__ import annotations

import logging
from collections.abc import Iterable

from agents.llm._base import LLMAnswer, model_ref
from agents.settings import Settings
from schemas.records import Cost

log = logging.getLogger("multiqa.llm")

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
# An Anthropic model missing from the table is priced like the most expensive one: a cost guard
# that under-counts is worse than one that over-counts.
_UNKNOWN_PRICE = max(ANTHROPIC_PRICES.values())


def token_price(model: str) -> tuple[float, float]:
    """(input, output) USD per million tokens; local (Ollama) models are free per token."""
    ref = model_ref(model)
    if ref.provider == "ollama":
        return (0.0, 0.0)
    for prefix in sorted(ANTHROPIC_PRICES, key=len, reverse=True):
        if ref.name.startswith(prefix):
            return ANTHROPIC_PRICES[prefix]
    log.warning("no price for %s; costing it at %s USD/Mtok in/out", ref, _UNKNOWN_PRICE)
    return _UNKNOWN_PRICE


def answer_cost(answer: LLMAnswer, settings: Settings) -> Cost:
    """The cost of one answered call."""
    return call_cost(
        answer.model, answer.tokens_in, answer.tokens_out, answer.duration_ms, settings
    )


def call_cost(
    model: str, tokens_in: int, tokens_out: int, duration_ms: int, settings: Settings
) -> Cost:
    price_in, price_out = token_price(model)
    usd = (tokens_in * price_in + tokens_out * price_out) / 1_000_000
    kwh = 0.0
    if model_ref(model).provider == "ollama":
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
    )
