"""A real `multiqa worker` process for the crash test, with the real validator and a deterministic
stand-in for the LLM critic (which would need a model): the same draft always gets the same score,
after a short delay so that reviews are in flight when the test kills the process.

    python tests/streams/crash_worker.py        # configuration from MULTIQA_* variables

With MULTIQA_DATABASE_URL set it also runs the sinks (PostgreSQL), killed along with the rest.
"""

from __future__ import annotations

import asyncio
import os
import zlib

from agents.base import ReviewerSpec
from agents.registry import get_reviewer
from schemas import DraftSubmitted, Provider, ReviewerResult

# Stretches the critic's delay (the scale-out test wants reviews in flight for longer).
DELAY_SCALE = float(os.environ.get("CRASH_WORKER_DELAY_SCALE", "1"))


def critic_score(draft_id: str) -> float:
    return float(60 + zlib.crc32(draft_id.encode()) % 41)


async def deterministic_critic(
    draft: DraftSubmitted, settings: object, deps: object
) -> ReviewerResult:
    await asyncio.sleep((0.02 + (zlib.crc32(draft.draft_id.encode()) % 8) / 100) * DELAY_SCALE)
    score = critic_score(draft.draft_id)
    return ReviewerResult("critic", score >= 70, score, f"critic says {score}", Provider.OLLAMA)


def roster() -> list[ReviewerSpec]:
    critic = ReviewerSpec("critic", Provider.OLLAMA, deterministic_critic, lambda _s: True, True)
    # urls is required by default; these drafts have no links, so it answers "not applicable".
    return [get_reviewer("validator"), critic, get_reviewer("urls")]


def main() -> None:
    from streams.cli.worker import run
    from streams.runtime.config import StreamConfig

    config = StreamConfig.from_env()
    run(
        config,
        roster=roster(),
        with_sinks=bool(config.database_url),
        loglevel=os.environ.get("CRASH_WORKER_LOGLEVEL", "warning"),
    )


if __name__ == "__main__":
    main()
