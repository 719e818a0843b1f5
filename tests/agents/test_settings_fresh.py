"""SettingsService.fresh: the settings last read, without awaiting, only while within the TTL
(the worker's per-draft fast path; past the TTL it reads again through `get`)."""

from __future__ import annotations

from agents.settings import Settings
from agents.settings_service import SettingsService


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


async def test_fresh_serves_the_last_read_only_within_the_ttl():
    clock = Clock()
    service = SettingsService(pool=None, ttl_seconds=5.0, clock=clock)
    rows = {"qa_final_score_threshold": "65"}

    async def overrides() -> dict[str, str]:
        return dict(rows)

    service.overrides = overrides  # type: ignore[method-assign]
    assert service.fresh() is None  # never read: the caller must wait for `get`
    read = await service.get()
    assert read == Settings(qa_final_score_threshold=65.0)
    assert service.fresh() is read
    clock.now += 4.9
    assert service.fresh() is read
    clock.now += 0.2  # past the TTL: stale, so not served without a new read
    assert service.fresh() is None
    rows["qa_final_score_threshold"] = "70"
    assert (await service.get()).qa_final_score_threshold == 70.0
    assert service.fresh() is not read
