"""Settings: seed defaults, parsing of app_settings text, refusals, derived values, version."""

from __future__ import annotations

import pytest

from agents.settings import Settings, SettingsError


def test_seed_defaults() -> None:
    s = Settings()
    assert (s.qa_validator_weight, s.qa_critic_weight, s.qa_gate_weight) == (0.4, 0.6, 0.3)
    assert (s.qa_final_score_threshold, s.qa_consistency_veto_threshold) == (70.0, 50.0)
    assert s.content_validator_warning_qa_penalty == 3.0
    assert s.content_validator_warning_reject_threshold == 3
    assert (s.qa_thinking_model_max_tokens, s.qa_standard_max_tokens) == (8000, 1500)
    assert (s.qa_gate_max_tokens, s.qa_gate_timeout_seconds) == (600, 60.0)
    assert s.qa_web_factcheck_match_ratio == 0.6 and s.qa_citation_max_dead_ratio == 0.30
    assert s.qa_vision_check_enabled is False and s.qa_preview_screenshot_enabled is False
    assert s.required_to_pass() == {"urls"}


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"qa_validator_weight": "-1"}, "qa_validator_weight=-1.0 is outside"),
        ({"qa_final_score_threshold": "500"}, "qa_final_score_threshold=500.0 is outside"),
        ({"qa_temperature": "inf"}, "not a finite number"),
        ({"qa_critic_enabled": "perhaps"}, "not a boolean"),
        ({"qa_vision_max_images": "three"}, "not an integer"),
        ({"content_validator_max_code_ratio": "1.5"}, "outside"),
    ],
)
def test_invalid_values_are_refused_with_the_key(values: dict[str, str], message: str) -> None:
    with pytest.raises(SettingsError, match=message):
        Settings.from_mapping(values)


def test_from_mapping_parses_text_and_keeps_unknown_keys() -> None:
    s = Settings.from_mapping(
        {
            "qa_critic_weight": "0.5",
            "qa_vision_check_enabled": "on",
            "qa_vision_max_images": " 5 ",
            "content_validator_disabled_rules": "filler_phrase, banned_header",
            "content_validator_disabled_rules.tech": "code_density",
            "someone_elses_key": "x",
        }
    )
    assert s.qa_critic_weight == 0.5 and s.qa_vision_check_enabled and s.qa_vision_max_images == 5
    assert s.disabled_rules() == {"filler_phrase", "banned_header"}
    assert s.disabled_rules("tech") == {"filler_phrase", "banned_header", "code_density"}
    assert s.extra["someone_elses_key"] == "x"


def test_version_identifies_effective_settings() -> None:
    assert Settings().version() == Settings().version()
    assert Settings(qa_critic_weight=0.5).version() != Settings().version()
    assert Settings.from_mapping({"content_validator_disabled_rules.tech": "x"}).version() != (
        Settings().version()
    )


def test_describe_lists_every_setting_with_a_doc() -> None:
    described = Settings.describe()
    assert all(doc for _, _, doc in described)
    keys = [key for key, _, _ in described]
    assert "extra" not in keys and len(keys) == len(set(keys))
    assert {"qa_aggregate_timeout_seconds", "content_validator_max_chars"} <= set(keys)


def test_version_is_memoised_and_cannot_go_stale() -> None:
    extra = {"content_validator_disabled_rules.tech": "filler_phrase"}
    settings = Settings.from_mapping(extra)
    first = settings.version()
    extra["content_validator_disabled_rules.tech"] = "buzzwords"  # the caller's dict, not ours
    assert settings.version() == first
    with pytest.raises(TypeError):
        settings.extra["x"] = "y"  # type: ignore[index]
    changed = settings.with_overrides(qa_gate_weight=0.5)
    assert changed.version() != first
    assert Settings.from_mapping(extra).version() != first
    assert Settings().version() == Settings().version()
