"""The one settings reader: app_settings overrides on top of the seed defaults, cached briefly.

    service = SettingsService(pool, ttl_seconds=5)
    settings = await service.get()           # cached for ttl_seconds
    await service.set("qa_critic_weight", "0.5")   # validated before it is written

`set` refuses unknown keys (except the per-niche `content_validator_disabled_rules.<niche>`) and
invalid values with the SettingsError message, so a bad value never reaches the table through
multiqa. A bad value written by hand (plain SQL) is skipped with a warning and its default used:
one broken row must not stop every review. If the database is unreachable, the last settings read
are served (stale beats none); only a first read with no database raises.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from typing import Any

from agents.settings import Settings, SettingsError

log = logging.getLogger("multiqa.settings")

NICHE_RULES_PREFIX = "content_validator_disabled_rules."
_NICHE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
_RULE_KEYS = ("content_validator_disabled_rules",)


@dataclass(frozen=True)
class SettingInfo:
    key: str
    value: str  # effective value, as text
    default: str
    overridden: bool
    doc: str


def _known_fields() -> dict[str, Any]:
    return {f.name: f for f in fields(Settings) if f.name != "extra"}


def to_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def validate_setting(key: str, value: Any) -> str:
    """The canonical text to store for `key`, or SettingsError saying why it is refused."""
    key = key.strip()
    known = _known_fields()
    if key in known:
        parsed = getattr(Settings.from_mapping({key: value}), key)
        if key in _RULE_KEYS:
            _check_rule_codes(key, str(parsed))
        if key == "qa_required_to_pass":
            _check_reviewer_names(key, str(parsed))
        return to_text(parsed)
    if key.startswith(NICHE_RULES_PREFIX):
        niche = key[len(NICHE_RULES_PREFIX) :]
        if not _NICHE.match(niche):
            raise SettingsError(
                f"setting {key!r}: niche must be 1-64 lowercase letters, digits, '_' or '-'"
            )
        _check_rule_codes(key, str(value))
        return ",".join(_codes(str(value)))
    raise SettingsError(
        f"unknown setting {key!r} (see `multiqa settings list`; per-niche rule switches are "
        f"{NICHE_RULES_PREFIX}<niche>)"
    )


def _codes(value: str) -> list[str]:
    return [part.strip() for part in value.split(",") if part.strip()]


def _check_rule_codes(key: str, value: str) -> None:
    from agents.validator import rule_codes

    known = rule_codes()
    unknown = [code for code in _codes(value) if code not in known]
    if unknown:
        raise SettingsError(
            f"setting {key}: unknown validator rule(s) {', '.join(unknown)}; "
            f"known: {', '.join(sorted(known))}"
        )


def _check_reviewer_names(key: str, value: str) -> None:
    from agents.base import REVIEWER_NAMES

    unknown = [name for name in _codes(value) if name not in REVIEWER_NAMES]
    if unknown:
        raise SettingsError(
            f"setting {key}: unknown reviewer(s) {', '.join(unknown)}; "
            f"known: {', '.join(REVIEWER_NAMES)}"
        )


def settings_from_rows(rows: Mapping[str, str]) -> Settings:
    """Settings from app_settings rows; invalid rows are skipped (logged) and default."""
    good: dict[str, str] = {}
    for key, value in rows.items():
        try:
            validate_setting(key, value)
        except SettingsError as exc:
            if key in _known_fields() or key.startswith(NICHE_RULES_PREFIX):
                log.warning("app_settings row ignored, default used: %s", exc)
                continue
            # Keys multiqa does not know (other tools share the table) are carried in `extra`.
        good[key] = value
    return Settings.from_mapping(good)


class SettingsService:
    def __init__(
        self,
        pool: Any,
        ttl_seconds: float = 5.0,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.pool = pool
        self.ttl_seconds = ttl_seconds
        self._clock = clock
        self._cached: tuple[float, Settings] | None = None
        self._lock = asyncio.Lock()

    async def get(self) -> Settings:
        cached = self._cached
        if cached is not None and self._clock() - cached[0] < self.ttl_seconds:
            return cached[1]
        async with self._lock:
            cached = self._cached
            if cached is not None and self._clock() - cached[0] < self.ttl_seconds:
                return cached[1]
            try:
                settings = settings_from_rows(await self.overrides())
            except Exception:
                if cached is None:
                    raise
                log.warning(
                    "app_settings unreadable; serving the last settings read", exc_info=True
                )
                return cached[1]
            self._cached = (self._clock(), settings)
            return settings

    def invalidate(self) -> None:
        self._cached = None

    async def overrides(self) -> dict[str, str]:
        """The raw app_settings rows (key -> text value)."""
        rows = await self.pool.fetch("SELECT key, value FROM app_settings ORDER BY key")
        return {str(r["key"]): str(r["value"]) for r in rows}

    async def set(self, key: str, value: Any) -> str:
        """Validate and store an override; returns the stored (canonical) text."""
        key = key.strip()
        text = validate_setting(key, value)
        await self.pool.execute(
            "INSERT INTO app_settings (key, value, updated_at) VALUES ($1, $2, now())"
            " ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()",
            key,
            text,
        )
        self.invalidate()
        return text

    async def unset(self, key: str) -> bool:
        """Remove an override (back to the default); False when there was none."""
        status = await self.pool.execute("DELETE FROM app_settings WHERE key = $1", key.strip())
        self.invalidate()
        return str(status).endswith(" 1")

    async def get_value(self, key: str) -> str:
        """One effective value as text; SettingsError for an unknown key."""
        settings = await self.get()
        key = key.strip()
        if key in _known_fields():
            return to_text(getattr(settings, key))
        if key.startswith(NICHE_RULES_PREFIX):
            return settings.extra.get(key, "")
        raise SettingsError(f"unknown setting {key!r} (see `multiqa settings list`)")

    async def list(self) -> list[SettingInfo]:
        """Every setting with its effective value, default and whether it is overridden."""
        overrides = await self.overrides()
        settings = await self.get()
        infos = [
            SettingInfo(
                key,
                to_text(getattr(settings, key)),
                to_text(default),
                key in overrides,
                doc,
            )
            for key, default, doc in Settings.describe()
        ]
        infos.extend(
            SettingInfo(key, value, "", True, "Validator rules switched off for one niche.")
            for key, value in sorted(overrides.items())
            if key.startswith(NICHE_RULES_PREFIX)
        )
        return infos
