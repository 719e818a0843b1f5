"""SettingsService against the real PostgreSQL (app_settings from the migrations)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio

from agents.settings import Settings, SettingsError
from agents.settings_service import SettingsService, settings_from_rows, validate_setting
from streams.runtime.db import migrate


@pytest_asyncio.fixture
async def db(pg_pool: Any) -> AsyncIterator[Any]:
    await migrate(pg_pool)
    yield pg_pool


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def test_defaults_when_table_is_empty(db: Any) -> None:
    assert await SettingsService(db).get() == Settings()


async def test_set_validates_stores_and_is_read_back(db: Any) -> None:
    service = SettingsService(db)
    assert await service.set("qa_critic_weight", " 0.5 ") == "0.5"
    assert await service.set("qa_vision_check_enabled", "YES") == "true"
    settings = await service.get()
    assert settings.qa_critic_weight == 0.5 and settings.qa_vision_check_enabled is True
    rows = {r["key"]: r["value"] for r in await db.fetch("SELECT key, value FROM app_settings")}
    assert rows == {"qa_critic_weight": "0.5", "qa_vision_check_enabled": "true"}
    assert await service.get_value("qa_critic_weight") == "0.5"


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("qa_validator_weight", "-1", "outside"),
        ("qa_final_score_threshold", "500", "outside"),
        ("qa_critic_weight", "heavy", "not a number"),
        ("qa_gate_weight", "nan", "not a finite number"),
        ("qa_vision_check_enabled", "maybe", "not a boolean"),
        ("qa_vision_max_images", "2.5", "not an integer"),
        ("no_such_setting", "1", "unknown setting"),
        ("extra", "x", "unknown setting"),
        ("content_validator_disabled_rules", "filler_phrase,nope", "unknown validator rule"),
        ("content_validator_disabled_rules.Bad Niche", "filler_phrase", "niche must be"),
        ("content_validator_disabled_rules.tech", "not_a_rule", "unknown validator rule"),
        ("qa_required_to_pass", "urls,the_boss", "unknown reviewer"),
    ],
)
async def test_set_refuses_invalid_values(db: Any, key: str, value: str, message: str) -> None:
    service = SettingsService(db)
    with pytest.raises(SettingsError, match=message):
        await service.set(key, value)
    assert await db.fetchval("SELECT count(*) FROM app_settings") == 0


async def test_per_niche_rule_switches(db: Any) -> None:
    service = SettingsService(db)
    stored = await service.set(
        "content_validator_disabled_rules.recipes", "filler_phrase, banned_header"
    )
    assert stored == "filler_phrase,banned_header"
    settings = await service.get()
    assert settings.disabled_rules("recipes") == {"filler_phrase", "banned_header"}
    assert settings.disabled_rules("tech") == frozenset()
    listed = {info.key: info for info in await service.list()}
    assert listed["content_validator_disabled_rules.recipes"].overridden


async def test_cache_ttl_and_invalidation_on_set(db: Any) -> None:
    clock = Clock()
    service = SettingsService(db, ttl_seconds=5, clock=clock)
    assert (await service.get()).qa_critic_weight == 0.6
    # Another process writes directly: not seen until the TTL passes.
    await db.execute("INSERT INTO app_settings (key, value) VALUES ('qa_critic_weight', '0.2')")
    assert (await service.get()).qa_critic_weight == 0.6
    clock.now += 5.1
    assert (await service.get()).qa_critic_weight == 0.2
    await service.set("qa_critic_weight", "0.3")  # our own write invalidates at once
    assert (await service.get()).qa_critic_weight == 0.3


async def test_unset_returns_to_default(db: Any) -> None:
    service = SettingsService(db)
    await service.set("qa_final_score_threshold", "60")
    assert await service.unset("qa_final_score_threshold") is True
    assert await service.unset("qa_final_score_threshold") is False
    assert (await service.get()).qa_final_score_threshold == 70.0


async def test_bad_row_written_by_hand_falls_back_to_default(db: Any) -> None:
    await db.execute(
        "INSERT INTO app_settings (key, value) VALUES"
        " ('qa_critic_weight', '-5'), ('qa_gate_weight', '0.2'), ('other_tool_key', 'x')"
    )
    settings = await SettingsService(db).get()
    assert settings.qa_critic_weight == 0.6  # default, the bad row is ignored
    assert settings.qa_gate_weight == 0.2
    assert settings.extra == {"other_tool_key": "x"}


async def test_list_shows_every_setting_with_default_and_override(db: Any) -> None:
    service = SettingsService(db)
    await service.set("qa_gate_weight", "0.1")
    infos = {info.key: info for info in await service.list()}
    assert set(infos) >= {key for key, _, _ in Settings.describe()}
    assert infos["qa_gate_weight"].value == "0.1" and infos["qa_gate_weight"].default == "0.3"
    assert infos["qa_gate_weight"].overridden and not infos["qa_critic_weight"].overridden


async def test_serves_last_settings_when_database_goes_away(db: Any) -> None:
    clock = Clock()
    service = SettingsService(db, ttl_seconds=1, clock=clock)
    await service.set("qa_gate_weight", "0.2")
    assert (await service.get()).qa_gate_weight == 0.2

    class Down:
        async def fetch(self, *args: object) -> list[object]:
            raise ConnectionError("gone")

    service.pool = Down()
    clock.now += 10
    assert (await service.get()).qa_gate_weight == 0.2
    with pytest.raises(ConnectionError):
        await SettingsService(Down()).get()


def test_validate_setting_and_rows_without_database() -> None:
    assert validate_setting("qa_temperature", "0.7") == "0.7"
    with pytest.raises(SettingsError):
        validate_setting("qa_temperature", "3")
    assert settings_from_rows({"qa_temperature": "0.7"}).qa_temperature == 0.7


async def test_unset_of_an_unknown_key_is_an_error(db: Any) -> None:
    with pytest.raises(SettingsError, match="unknown setting 'no_such_setting'"):
        await SettingsService(db).unset("no_such_setting")


async def test_cross_key_rules_guard_set_and_unset(
    db: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agents import settings as settings_mod

    monkeypatch.setattr(settings_mod, "_CROSS_KEY_RULES", [])

    @settings_mod.cross_key_rule
    def veto_below_approval(s: Settings) -> str | None:
        if s.qa_consistency_veto_threshold > s.qa_final_score_threshold:
            return "qa_consistency_veto_threshold is above qa_final_score_threshold"
        return None

    service = SettingsService(db)
    with pytest.raises(SettingsError, match="above qa_final_score_threshold"):
        await service.set("qa_final_score_threshold", "40")
    assert await db.fetchval("SELECT count(*) FROM app_settings") == 0  # nothing half-written
    stored = await service.set_many(
        {"qa_final_score_threshold": "40", "qa_consistency_veto_threshold": "30"}
    )
    assert stored == {"qa_final_score_threshold": "40.0", "qa_consistency_veto_threshold": "30.0"}
    # Removing the lower veto threshold would bring back the default 50 > 40: refused, kept.
    with pytest.raises(SettingsError, match="above"):
        await service.unset("qa_consistency_veto_threshold")
    assert (await service.get()).qa_consistency_veto_threshold == 30
    # A hand-written bad row is ignored as on read; it does not block other writes.
    await db.execute("INSERT INTO app_settings (key, value) VALUES ('qa_gate_weight', '-5')")
    assert await service.set("qa_critic_weight", "0.5") == "0.5"
