"""The one write-time settings validator (agents.settings): every kind of value, the provider
registry, cross-key rules. The paths that use it (SettingsService, `multiqa settings`, `rescore
--set`) have their own tests next to them; this file checks the validator itself."""

from __future__ import annotations

import dataclasses

import pytest

from agents import settings as settings_mod
from agents.llm import _base as llm_base
from agents.settings import (
    MODEL_PROVIDERS,
    Settings,
    SettingsError,
    check_combination,
    cross_key_rule,
    is_known_key,
)
from agents.settings_check import apply_overrides, validate_value


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        # the examples: each of these broke a reviewer at use time
        ("qa_url_allowlist", "10.0.0.0/33", "'10.0.0.0/33' is not a valid IP or CIDR"),
        ("qa_url_allowlist", "127.0.0.1,not a host", "'not a host' is not a host name"),
        ("qa_url_allowlist", "http://example.com/", "is not a valid IP or CIDR"),
        ("qa_url_allowlist", "999.1.1.1", "is not a valid IP or CIDR"),
        ("pipeline_critic_model", "", "pipeline_critic_model is empty"),
        ("pipeline_critic_model", "   ", "pipeline_critic_model is empty"),
        ("pipeline_critic_model", "mistral/large", "unknown provider 'mistral'"),
        # bare: Ollama's or an OpenAI-compatible server's? The reviewers refuse to guess.
        ("pipeline_critic_model", "gemma3:27b", "names no provider; write provider/model"),
        ("qa_vision_model", "google/gemini", "unknown provider 'google'"),
        ("qa_gate_model", "ollama/", "no model name after the provider"),
        ("qa_fallback_critic_model", "gemma 3", "a model name has no spaces"),
        ("ollama_base_url", "not a url", "is not an http(s) URL"),
        ("ollama_base_url", "http://127.0.0.1:11434/api", "Ollama serves its API at the root"),
        ("openai_base_url", "http://vllm:8000/v1/chat/completions", "names an endpoint"),
        ("openai_base_url", "https://me:sk-live-1@api.example.com/v1", "carries credentials"),
        ("ollama_base_url", "ftp://127.0.0.1:11434", "is not an http(s) URL"),
        ("ollama_base_url", "http://127.0.0.1:99999", "is not a URL"),
        ("ollama_base_url", "http://:11434", "is not an http(s) URL"),
        ("anthropic_base_url", "api.anthropic.com", "is not an http(s) URL"),
        ("site_url", "https://exa mple.com", "is not an http(s) URL"),
        ("site_domain", "not a domain", "is not a host name"),
        ("qa_required_to_pass", "urls,critik", "unknown reviewer(s) critik"),
        ("content_validator_disabled_rules", "nope", "unknown validator rule(s) nope"),
        ("content_validator_disabled_rules.Bad Niche", "filler_phrase", "niche must be"),
        ("qa_thinking_models", "qwen3,deep seek", "without spaces"),
        ("qa_preview_browser_path", "chromium", "not an absolute path"),
        ("qa_final_score_threshold", "500", "outside [0, 100]"),
        ("qa_critic_weight", "heavy", "not a number"),
        ("qa_critic_enabled", "perhaps", "not a boolean"),
        ("qa_vision_max_images", "2.5", "not an integer"),
        ("no_such_setting", "1", "unknown setting 'no_such_setting'"),
        ("extra", "x", "unknown setting 'extra'"),
    ],
)
def test_bad_values_are_refused_in_one_line_naming_the_key(
    key: str, value: str, message: str
) -> None:
    with pytest.raises(SettingsError) as caught:
        validate_value(key, value)
    text = str(caught.value)
    assert message in text
    assert key.split(".")[0] in text and "\n" not in text


@pytest.mark.parametrize(
    ("key", "value", "stored"),
    [
        ("qa_url_allowlist", " 127.0.0.1 , .example.com,10.0.0.0/8,[::1], ", None),
        ("qa_url_allowlist", "", ""),
        ("pipeline_critic_model", " ollama/gemma3:27b ", "ollama/gemma3:27b"),
        ("pipeline_critic_model", "openai/qwen2.5:7b", "openai/qwen2.5:7b"),
        ("pipeline_critic_model", "Anthropic/claude-sonnet-4", "Anthropic/claude-sonnet-4"),
        ("qa_gate_model", "", ""),  # empty: the critic's model
        ("qa_fallback_critic_model", "", ""),  # empty: no fallback
        ("ollama_base_url", "https://gpu-box.lan:11434/", "https://gpu-box.lan:11434/"),
        ("ollama_base_url", "http://[::1]:11434", "http://[::1]:11434"),
        ("ollama_base_url", "", ""),  # empty: $OLLAMA_HOST, else 127.0.0.1:11434
        ("openai_base_url", "http://127.0.0.1:8000/v1", "http://127.0.0.1:8000/v1"),
        ("anthropic_base_url", "", ""),
        ("site_domain", "blog.example.com", "blog.example.com"),
        ("qa_required_to_pass", "urls, critic", "urls,critic"),
        ("qa_required_to_pass", "", ""),
        ("qa_critic_enabled", "YES", "true"),
        ("qa_critic_weight", " 0.5 ", "0.5"),
    ],
)
def test_good_values_are_stored_in_canonical_form(key: str, value: str, stored: str | None) -> None:
    expected = stored if stored is not None else "127.0.0.1,.example.com,10.0.0.0/8,[::1]"
    assert validate_value(key, value) == expected


def test_every_text_setting_declares_what_it_accepts() -> None:
    """A new text setting must say its kind (or be listed here as free text on purpose), or the
    write-time validator would accept anything for it."""
    free_text = {"company_name", "company_clients"}  # names as the company writes them
    for f in dataclasses.fields(Settings):
        if f.name == "extra" or not isinstance(f.default, str):
            continue
        kind = f.metadata.get("kind", "")
        assert kind or f.name in free_text, f"{f.name} has no kind"
        # ...and every default passes its own check.
        assert validate_value(f.name, f.default) == f.default


def test_provider_registry_is_the_one_agents_llm_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    assert llm_base.KNOWN_PROVIDERS is MODEL_PROVIDERS
    assert {"ollama", "anthropic"} <= set(MODEL_PROVIDERS)
    # Adding a provider is one entry in the registry: the validator then accepts it.
    from agents import _setting_kinds

    monkeypatch.setattr(_setting_kinds, "MODEL_PROVIDERS", (*MODEL_PROVIDERS, "mistral"))
    assert validate_value("pipeline_critic_model", "mistral/large") == "mistral/large"


def test_known_keys() -> None:
    assert is_known_key("qa_gate_weight") and is_known_key("content_validator_disabled_rules.x")
    assert not is_known_key("no_such_setting") and not is_known_key("extra")


@pytest.fixture
def veto_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    """A cross-key rule as issue 12 adds them (registered for this test only)."""
    monkeypatch.setattr(settings_mod, "_CROSS_KEY_RULES", list(settings_mod._CROSS_KEY_RULES))

    @cross_key_rule
    def veto_below_approval(s: Settings) -> str | None:
        if s.qa_consistency_veto_threshold > s.qa_final_score_threshold:
            return (
                f"qa_consistency_veto_threshold={s.qa_consistency_veto_threshold} is above "
                f"qa_final_score_threshold={s.qa_final_score_threshold}"
            )
        return None


def test_cross_key_rules_check_the_settings_a_change_makes(veto_rule: None) -> None:
    base = Settings()
    assert apply_overrides(base, {"qa_final_score_threshold": "60"}).qa_final_score_threshold == 60
    with pytest.raises(SettingsError, match=r"qa_consistency_veto_threshold=50\.0 is above"):
        apply_overrides(base, {"qa_final_score_threshold": "40"})
    # Both keys changed together are judged together.
    both = {
        "qa_final_score_threshold": "40",
        "qa_consistency_veto_threshold": "30",
        "qa_critic_veto_threshold": "30",  # issue 12's real rule: critic veto <= approval
    }
    assert apply_overrides(base, both).qa_consistency_veto_threshold == 30
    check_combination(Settings())
    with pytest.raises(SettingsError):
        check_combination(Settings(qa_final_score_threshold=10))


def test_apply_overrides_validates_every_key_and_keeps_extra_keys() -> None:
    base = Settings.from_mapping({"someone_elses_key": "x"})
    changed = apply_overrides(base, {"qa_url_allowlist": "127.0.0.1"})
    assert changed.url_allowlist() == ("127.0.0.1",) and changed.extra == {"someone_elses_key": "x"}
    with pytest.raises(SettingsError, match="qa_url_allowlist"):
        apply_overrides(base, {"qa_url_allowlist": "10.0.0.0/33"})
    assert apply_overrides(base, {}) == base
