"""A reviewer's result while the broker refuses it: published with the one retry policy
(agents.retry), for as long as it takes; a result the codec refuses becomes an error result,
published once, never retried as is."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import pytest
from aiokafka.errors import KafkaConnectionError

from agents.base import errored
from schemas import CodecError, Provider, ReviewerResult, ReviewStatus
from streams.runtime import reviewer_agents
from streams.runtime.reviewer_agents import ReviewerAgent
from tests.helpers.clock import FakeClock


class Reviews:
    """The reviews topic as streams.runtime.topics.send_record sees it: fails as told, then
    returns a delivered future."""

    def __init__(self, *failures: BaseException) -> None:
        self.failures = list(failures)
        self.sent: list[ReviewerResult] = []

    async def send(
        self, topic: Any, key: str, value: ReviewerResult, headers: Any, partition: Any = None
    ) -> asyncio.Future[None]:
        if self.failures:
            raise self.failures.pop(0)
        self.sent.append(value)
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        fut.set_result(None)
        return fut


@pytest.fixture
def reviews_of(monkeypatch: pytest.MonkeyPatch) -> Any:
    def make(*failures: BaseException) -> tuple[Reviews, Any]:
        reviews = Reviews(*failures)
        monkeypatch.setattr(reviewer_agents, "send_record", reviews.send)
        # publish reads only these two attributes of its agent.
        spec = SimpleNamespace(name="critic", provider=Provider.OLLAMA)
        return reviews, SimpleNamespace(topics=SimpleNamespace(reviews=None), spec=spec)

    return make


def a_result() -> ReviewerResult:
    return errored("critic", Provider.OLLAMA, "x")


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    fake = FakeClock()
    monkeypatch.setattr(asyncio, "sleep", fake.sleep)
    return fake


async def test_a_refusing_broker_is_retried_with_growing_jittered_pauses(clock, reviews_of):
    down = KafkaConnectionError("broker down")
    reviews, agent = reviews_of(down, down, down)
    result = a_result()
    assert await ReviewerAgent.publish(agent, result, []) is result
    assert reviews.sent == [result]
    assert len(clock.slept) == 3
    for pause, base in zip(clock.slept, (0.5, 1.0, 2.0), strict=True):
        assert base * 0.9 <= pause <= base * 1.1


async def test_a_result_the_codec_refuses_becomes_an_error_result_without_a_pause(
    clock, reviews_of
):
    reviews, agent = reviews_of(CodecError("score out of range"))
    published = await ReviewerAgent.publish(agent, a_result(), [])
    assert reviews.sent == [published] and clock.slept == []
    assert published.status is ReviewStatus.ERROR
    assert "invalid result: score out of range" in published.feedback


async def test_an_error_result_the_codec_refuses_too_is_raised(clock, reviews_of):
    reviews, agent = reviews_of(CodecError("bad"), CodecError("worse"))
    with pytest.raises(CodecError, match="worse"):
        await ReviewerAgent.publish(agent, a_result(), [])
    assert reviews.sent == [] and clock.slept == []
