"""The one settings reader: app_settings overrides on top of the seed defaults, cached briefly.

    service = SettingsService(pool, ttl_seconds=5)
    settings = await service.get()           # cached for ttl_seconds
    await service.set("qa_critic_weight", "0.5")   # validated before it is written

`set` and `unset` refuse unknown keys (except the per-niche rule switches
`content_validator_disabled_rules.<niche>`) and invalid values or combinations with the message of
the one write-time validator (agents.settings_check), so a bad value never reaches the table through
multiqa. A bad value written by hand (plain SQL) is skipped with a warning and its default used:
one broken row must not stop every review. If the database is unreachable, the last settings read
are served (stale beats none); only a first read with no database raises.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from typing import Any

from agents.settings import (
    NICHE_RULES_PREFIX,
    Settings,
    SettingsError,
    check_combination,
    is_known_key,
    to_text,
)
from agents.settings_check import apply_overrides, validate_value

log = logging.getLogger(__name__)

__all__ = [
    "NICHE_RULES_PREFIX",
    "SettingInfo",
    "SettingsService",
    "settings_from_rows",
    "to_text",
    "validate_setting",
]

# The one validator lives in agents.settings_check; this name is its historical spelling here.
validate_setting = validate_value


@dataclass(frozen=True)
class SettingInfo:
    key: str
    value: str  # effective value, as text
    default: str
    overridden: bool
    doc: str


def _known_fields() -> dict[str, Any]:
    return {f.name: f for f in fields(Settings) if f.name != "extra"}


def settings_from_rows(rows: Mapping[str, str]) -> Settings:
    """Settings from app_settings rows; invalid rows are skipped (logged) and default."""
    good: dict[str, str] = {}
    for key, value in rows.items():
        try:
            validate_value(key, value)
        except SettingsError as exc:
            if is_known_key(key):
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

    def fresh(self) -> Settings | None:
        """The settings last read when that read is within the TTL, else None (no await: the
        worker asks once per draft and per review, and `get` behind retry_forever's timeout was
        ~0.1 ms each, measured in bench/bench_stream.py)."""
        cached = self._cached
        if cached is not None and self._clock() - cached[0] < self.ttl_seconds:
            return cached[1]
        return None

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
            except Exception as exc:
                if cached is None:
                    raise
                # An outage, not a bug: the reason in one line (a worker rate-limits it).
                log.warning(
                    "app_settings unreadable (%s: %s); serving the last settings read",
                    type(exc).__name__,
                    exc,
                )
                return cached[1]
            self._cached = (self._clock(), settings)
            return settings

    def invalidate(self) -> None:
        self._cached = None

    async def overrides(self) -> dict[str, str]:
        """The raw app_settings rows (key -> text value)."""
        return await _rows(self.pool)

    async def set(self, key: str, value: Any) -> str:
        """Validate and store an override; returns the stored (canonical) text."""
        return (await self.set_many({key: value}))[key.strip()]

    async def set_many(self, changes: Mapping[str, Any]) -> dict[str, str]:
        """Validate and store several overrides at once (all or none); returns the stored texts.

        Each value is checked on its own, then the settings they make together with the other
        overrides by the cross-key rules; the table is locked meanwhile, so two writers cannot
        each pass the rules and together break them."""
        texts = {key.strip(): validate_value(key, value) for key, value in changes.items()}
        async with self.pool.acquire() as conn, conn.transaction():
            await conn.execute("LOCK TABLE app_settings IN SHARE ROW EXCLUSIVE MODE")
            apply_overrides(settings_from_rows(await _rows(conn)), texts)
            for key, text in texts.items():
                await conn.execute(
                    "INSERT INTO app_settings (key, value, updated_at) VALUES ($1, $2, now())"
                    " ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()",
                    key,
                    text,
                )
        self.invalidate()
        return texts

    async def unset(self, key: str) -> bool:
        """Remove an override (back to the default); False when there was none. An unknown key,
        or a removal that leaves contradicting settings, is a SettingsError."""
        key = key.strip()
        if not is_known_key(key):
            raise SettingsError(f"unknown setting {key!r} (see `multiqa settings list`)")
        async with self.pool.acquire() as conn, conn.transaction():
            await conn.execute("LOCK TABLE app_settings IN SHARE ROW EXCLUSIVE MODE")
            rows = await _rows(conn)
            if key not in rows:
                return False
            check_combination(settings_from_rows({k: v for k, v in rows.items() if k != key}))
            await conn.execute("DELETE FROM app_settings WHERE key = $1", key)
        self.invalidate()
        return True

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


async def _rows(conn: Any) -> dict[str, str]:
    rows = await conn.fetch("SELECT key, value FROM app_settings ORDER BY key")
    return {str(r["key"]): str(r["value"]) for r in rows}
