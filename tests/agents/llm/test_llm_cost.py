"""Model names, the price table and the energy arithmetic, pinned on worked figures."""

from __future__ import annotations

import pytest

from agents.llm import LLMAnswer, answer_cost, model_ref, same_model, token_price, total_cost
from agents.settings import Settings
from schemas.records import Cost


@pytest.mark.parametrize(
    ("spec", "provider", "name"),
    [
        ("ollama/gemma3:27b", "ollama", "gemma3:27b"),
        ("gemma3:27b", "ollama", "gemma3:27b"),
        ("Ollama/Gemma3:27B", "ollama", "gemma3:27b"),
        ("gemma3", "ollama", "gemma3:latest"),
        ("library/gemma3", "ollama", "library/gemma3:latest"),
        ("anthropic/claude-haiku-4-5", "anthropic", "claude-haiku-4-5"),
        ("claude-haiku-4-5", "anthropic", "claude-haiku-4-5"),
        (" anthropic/claude-haiku-4-5 ", "anthropic", "claude-haiku-4-5"),
    ],
)
def test_model_names_normalise(spec: str, provider: str, name: str) -> None:
    ref = model_ref(spec)
    assert (ref.provider, ref.name) == (provider, name)


def test_same_model_compares_normalised_names() -> None:
    assert same_model("gemma3:27b", "ollama/gemma3:27b")
    assert same_model("ollama/gemma3", "gemma3:latest")
    assert not same_model("ollama/gemma3:27b", "ollama/gemma3:12b")
    assert not same_model("ollama/gemma3:27b", None)
    assert not same_model("", "")


@pytest.mark.parametrize("spec", ["", "   ", "anthropic/"])
def test_empty_model_names_are_refused(spec: str) -> None:
    with pytest.raises(ValueError):
        model_ref(spec)


def test_local_model_cost_is_energy_only() -> None:
    settings = Settings(local_model_watts=350.0, electricity_rate_kwh=0.15)
    answer = LLMAnswer("{}", 1200, 300, 7200, "ollama/gemma3:27b")
    cost = answer_cost(answer, settings)
    # 7.2 s at 350 W = 0.002 h x 0.35 kW = 0.0007 kWh; at 0.15 USD/kWh = 0.000105 USD.
    assert cost.kwh == pytest.approx(0.0007)
    assert cost.usd == pytest.approx(0.000105)
    assert (cost.tokens_in, cost.tokens_out, cost.duration_ms) == (1200, 300, 7200)
    assert cost.model == "ollama/gemma3:27b"


def test_anthropic_cost_comes_from_the_price_table() -> None:
    settings = Settings()
    answer = LLMAnswer("{}", 10_000, 2_000, 3000, "anthropic/claude-haiku-4-5-20251001")
    cost = answer_cost(answer, settings)
    # haiku 4.5: 1 USD/Mtok in, 5 USD/Mtok out -> 0.01 + 0.01.
    assert cost.usd == pytest.approx(0.02)
    assert cost.kwh == 0.0


def test_price_table_longest_prefix_and_unknown_models() -> None:
    assert token_price("anthropic/claude-opus-4-5") == (5.0, 25.0)
    assert token_price("anthropic/claude-opus-4-1-20250805") == (15.0, 75.0)
    assert token_price("ollama/qwen3:30b") == (0.0, 0.0)
    # Not in the table: priced like the dearest model, so a cost guard never under-counts.
    assert token_price("anthropic/claude-future-9") == (15.0, 75.0)


def test_total_cost_sums_attempts_and_names_the_deciding_model() -> None:
    a = Cost(10, 5, 0.5, 0.1, 100, "ollama/a:latest")
    b = Cost(20, 7, 0.25, 0.0, 50, "anthropic/claude-haiku-4-5")
    total = total_cost([a, b])
    assert total == Cost(30, 12, 0.75, 0.1, 150, "anthropic/claude-haiku-4-5")
    assert total_cost([], model="x").model == "x"
