"""The settings' write-time validator: every path that writes or applies settings (`multiqa
settings set|unset`, `rescore --set`, `multiqa eval --set`, SettingsService, the demo) goes through
`validate_value` per key and `apply_overrides` / `check_combination` for the result, so a value
that would break a reviewer at use time is refused when it is written, in one line naming the key.

Apart from agents.settings because it asks the layers above the settings (agents._setting_kinds:
model names, the URL guard's allowlist, the reviewers' names, the validator's rule codes), and
each of those imports Settings: here the import graph stays a tree. It imports the aggregation's
cross-key rules itself (agents._decision_settings), so they are registered whoever calls.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agents import _decision_settings  # noqa: F401  (registers the cross-key rules)
from agents import _setting_kinds as kinds
from agents.settings import (
    NICHE_RULES_PREFIX,
    SETTING_FIELDS,
    Settings,
    SettingsError,
    check_combination,
    parse_setting,
    to_text,
)

__all__ = ["apply_overrides", "validate_value"]


def validate_value(key: str, value: Any) -> str:
    """The canonical text to store for `key`, or SettingsError (one line naming the key): an
    unknown key, a value of the wrong type, out of range, or not of the setting's kind."""
    key = key.strip()
    f = SETTING_FIELDS.get(key)
    if f is not None:
        parsed = parse_setting(key, f.default, value)
        if isinstance(parsed, str):
            parsed = kinds.check(f.metadata.get("kind", ""), key, parsed)
        Settings(**{key: parsed})  # the range checks of __post_init__
        return to_text(parsed)
    if key.startswith(NICHE_RULES_PREFIX):
        kinds.check_niche(key[len(NICHE_RULES_PREFIX) :], key)
        return kinds.check("rule_codes", key, str(value))
    raise SettingsError(
        f"unknown setting {key!r} (see `multiqa settings list`; per-niche rule switches are "
        f"{NICHE_RULES_PREFIX}<niche>)"
    )


def apply_overrides(base: Settings, changes: Mapping[str, Any]) -> Settings:
    """`base` with `changes` (key -> value, as text or typed) applied, each validated by
    `validate_value`, then the combination checked by the cross-key rules."""
    texts = {key.strip(): validate_value(key, value) for key, value in changes.items()}
    result = Settings.from_mapping({**base.to_mapping(), **texts})
    check_combination(result)
    return result
