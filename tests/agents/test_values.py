"""agents.values: the one reading of text values, and that its users agree on it."""

from __future__ import annotations

import pytest

from agents.settings import Settings, SettingsError
from agents.values import parse_value, split_list
from streams.runtime.config import ConfigError, StreamConfig


@pytest.mark.parametrize(
    ("text", "items"),
    [("", []), (" , ,", []), ("a", ["a"]), (" a, b,,c ", ["a", "b", "c"]), ("a b,c", ["a b", "c"])],
)
def test_split_list(text, items):
    assert split_list(text) == items


@pytest.mark.parametrize(
    ("raw", "like", "value"),
    [
        (" Yes ", False, True),
        ("off", True, False),
        ("1", False, True),
        (True, False, True),
        (" 42 ", 0, 42),
        ("-3", 0, -3),
        ("2.5", 0.0, 2.5),
        ("1e3", 0.0, 1000.0),
        (7, 0.0, 7.0),
        (" free text ", "", " free text "),
    ],
)
def test_parse_value(raw, like, value):
    parsed = parse_value(raw, like)
    assert parsed == value and type(parsed) is type(value)


@pytest.mark.parametrize(
    ("raw", "like", "why"),
    [
        ("maybe", True, "is not a boolean"),
        ("", True, "is not a boolean"),
        ("2.5", 0, "is not an integer"),
        ("True", 0, "is not an integer"),
        ("ten", 0.0, "is not a number"),
        ("nan", 0.0, "is not a finite number"),
        ("-inf", 0.0, "is not a finite number"),
    ],
)
def test_parse_value_refuses_with_a_phrase(raw, like, why):
    with pytest.raises(ValueError, match=why):
        parse_value(raw, like)


@pytest.mark.parametrize("raw", ["yes", "maybe", "12", "nan", " 3 "])
def test_settings_and_stream_config_read_text_alike(raw):
    """The same text read by the settings and by the stream's configuration: both accept it
    with the same value, or both refuse it with the same reason."""

    def read(make, error):
        try:
            return "ok", make()
        except error as exc:
            return "refused", str(exc).split("' ", 1)[1]

    setting = read(
        lambda: Settings.from_mapping({"qa_critic_enabled": raw}).qa_critic_enabled, SettingsError
    )
    config = read(
        lambda: StreamConfig.from_env({"MULTIQA_UI": raw}).ui,
        ConfigError,
    )
    assert setting == config
