"""Settings that contradict each other are refused when written, in one line naming both keys:
through the one validator (apply_overrides), the settings service, and `multiqa settings set`
and `multiqa rescore --set` (the CLI paths run against the real PostgreSQL)."""

from __future__ import annotations

import asyncio
from typing import Any

import asyncpg
import pytest

from agents._decision_settings import ENABLED_BY
from agents.registry import all_reviewers
from agents.reviewers import REVIEWER_NAMES
from agents.settings import Settings, SettingsError, check_combination
from agents.settings_check import apply_overrides
from agents.settings_service import SettingsService
from streams.cli import main
from streams.runtime.db import migrate

# (changes, both keys the one-line refusal must name)
CONTRADICTIONS = [
    (
        {"qa_critic_veto_threshold": "80"},
        ("qa_critic_veto_threshold=80", "qa_final_score_threshold=70"),
    ),
    (
        {"qa_final_score_threshold": "40"},
        ("qa_critic_veto_threshold=50", "qa_final_score_threshold=40"),
    ),
    (
        {"qa_url_verify_enabled": "false"},
        ("qa_required_to_pass", "urls (qa_url_verify_enabled=false)"),
    ),
    (
        {"qa_required_to_pass": "urls,critic", "qa_critic_enabled": "false"},
        ("qa_required_to_pass", "critic (qa_critic_enabled=false)"),
    ),
    (
        {"qa_advisory_reviewers": "urls"},
        ("qa_required_to_pass and qa_advisory_reviewers both name urls",),
    ),
    ({"qa_advisory_reviewers": "validator"}, ("qa_advisory_reviewers names validator",)),
]


@pytest.mark.parametrize(("changes", "names"), CONTRADICTIONS)
def test_contradictions_are_refused_in_one_line(
    changes: dict[str, str], names: tuple[str, ...]
) -> None:
    with pytest.raises(SettingsError) as refused:
        apply_overrides(Settings(), changes)
    message = str(refused.value)
    assert "\n" not in message
    for name in names:
        assert name in message


def test_consistent_changes_pass_and_defaults_are_consistent() -> None:
    check_combination(Settings())
    assert apply_overrides(Settings(), {"qa_critic_veto_threshold": "70"})
    # both keys changed together are judged together
    lower = apply_overrides(
        Settings(), {"qa_final_score_threshold": "40", "qa_critic_veto_threshold": "30"}
    )
    assert lower.qa_critic_veto_threshold == 30
    off = apply_overrides(
        Settings(), {"qa_url_verify_enabled": "false", "qa_required_to_pass": "critic"}
    )
    assert not off.qa_url_verify_enabled
    assert apply_overrides(Settings(), {"qa_advisory_reviewers": "citations,topic_delivery"})


def test_every_gate_has_its_enable_switch() -> None:
    """The rule knows each reviewer's switch: a new reviewer without one here is caught."""
    assert set(ENABLED_BY) == set(REVIEWER_NAMES) - {"validator"}
    for spec in all_reviewers():
        if spec.name == "validator":
            continue
        key = ENABLED_BY[spec.name]
        on: dict[str, Any] = {key: True}
        off: dict[str, Any] = {key: False}
        assert spec.enabled(Settings(**on))
        assert not spec.enabled(Settings(**off))


def _migrated(dsn: str) -> None:
    async def run() -> None:
        pool = await asyncpg.create_pool(dsn, min_size=1, max_size=1)
        try:
            await migrate(pool)
        finally:
            await pool.close()

    asyncio.run(run())


def test_settings_set_refuses_a_contradiction_in_one_line(
    pg_dsn: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _migrated(pg_dsn)
    argv = ["settings", "set", "qa_critic_veto_threshold", "90", "--dsn", pg_dsn]
    assert main(argv) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert "qa_critic_veto_threshold=90" in err and "qa_final_score_threshold=70" in err
    # nothing was written
    assert main(["settings", "get", "qa_critic_veto_threshold", "--dsn", pg_dsn]) == 0
    assert capsys.readouterr().out.strip() == "50.0"
    # disabling a required reviewer is refused the same way
    assert main(["settings", "set", "qa_url_verify_enabled", "false", "--dsn", pg_dsn]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "qa_required_to_pass" in err
    assert "qa_url_verify_enabled=false" in err


def test_rescore_set_refuses_a_contradiction_in_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MULTIQA_BOOTSTRAP_SERVERS", "127.0.0.1:1")
    code = main(["rescore", "--defaults", "--set", "qa_critic_veto_threshold=95"])
    err = capsys.readouterr().err.strip()
    assert code == 1 and len(err.splitlines()) == 1
    assert "qa_critic_veto_threshold=95" in err and "qa_final_score_threshold=70" in err


async def test_settings_service_refuses_and_writes_nothing(pg_pool: Any) -> None:
    await migrate(pg_pool)
    service = SettingsService(pg_pool, ttl_seconds=0)
    await service.set("qa_required_to_pass", "urls,critic")
    with pytest.raises(SettingsError, match="critic \\(qa_critic_enabled=false\\)"):
        await service.set("qa_critic_enabled", "false")
    assert (await service.get()).qa_critic_enabled
    # unsetting the key that keeps the pair consistent is refused too
    await service.set("qa_critic_veto_threshold", "30")
    await service.set("qa_final_score_threshold", "40")
    with pytest.raises(SettingsError, match="qa_critic_veto_threshold=50 is above"):
        await service.unset("qa_critic_veto_threshold")  # back to 50, above the 40
    assert (await service.get()).qa_critic_veto_threshold == 30
