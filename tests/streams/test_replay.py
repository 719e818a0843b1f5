"""Re-scoring history (`multiqa rescore`): the same settings reproduce every live decision
exactly; other settings change only what they should; bad input is refused in one line."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import fields, replace
from datetime import UTC, datetime, timedelta

import pytest
from aiokafka import AIOKafkaProducer

from agents.aggregate import build_decision
from agents.base import Deps, not_applicable, run_reviewer
from agents.registry import get_reviewer
from agents.settings import Settings
from bench.rescore_history import make_history
from schemas import (
    DraftSubmitted,
    Provider,
    QADecision,
    ReviewerResult,
    decode,
    encode,
)
from streams.cli import main
from streams.cli.replay import as_report, read_topic, rescore, rescore_topics
from streams.cli.replay_jobs import rescore_here, rescore_in_processes
from streams.runtime.config import StreamConfig
from tests.helpers.drafts import CLEAN, CRITICAL

T0 = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def _gate(name: str, score: float, draft: DraftSubmitted, *, at: int = 0) -> ReviewerResult:
    provider = Provider.OLLAMA if name == "critic" else Provider.CONSISTENCY_GATE
    return ReviewerResult(
        name, score >= 70, score, f"{name} says {score}", provider,
        draft_id=draft.draft_id, version=draft.version,
        produced_at=T0 + timedelta(seconds=at),
    )  # fmt: skip


async def _history(settings: Settings) -> tuple[list[QADecision], list[ReviewerResult]]:
    """A small history as the live aggregator would have produced it: the real validator plus
    scripted critic/consistency scores; a timed-out draft; a duplicate and a late result."""
    validator = get_reviewer("validator")
    decisions: list[QADecision] = []
    reviews: list[ReviewerResult] = []
    plan = [  # draft id, content, critic score, consistency score (None: never answered)
        ("d-good", CLEAN, 90.0, 85.0),
        ("d-border", CLEAN, 50.0, 60.0),
        ("d-weak", CLEAN, 20.0, 55.0),
        ("d-critical", CRITICAL, 95.0, 95.0),
        ("d-timeout", CLEAN, 80.0, None),
    ]
    for i, (draft_id, content, critic, consistency) in enumerate(plan):
        draft = DraftSubmitted(draft_id, 1, "Kettles", content, task_id=f"task-{i}")
        results = [await run_reviewer(validator, draft, settings, Deps(now=lambda: T0))]
        results.append(_gate("critic", critic, draft, at=1))
        results.append(_gate("critic", 5.0, draft, at=2))  # duplicate: the first one counts
        # urls (required by default) had nothing to check: no external links
        results.append(replace(
            not_applicable("urls", Provider.URL_VERIFIER, "no external links"),
            draft_id=draft.draft_id, version=draft.version, produced_at=T0,
        ))  # fmt: skip
        if consistency is not None:
            results.append(_gate("consistency", consistency, draft, at=3))
        decision = build_decision(
            draft, results, settings,
            expected=["validator", "critic", "urls", "consistency"],
            decided_at=T0 + timedelta(minutes=i),
            timed_out=consistency is None,
        )  # fmt: skip
        reviews.extend(results)
        if consistency is None:  # arrives after the timeout: recorded, never counted
            reviews.append(_gate("consistency", 1.0, draft, at=999))
        decisions.append(decision)
    return decisions, reviews


async def test_same_settings_reproduce_every_decision_exactly() -> None:
    settings = Settings()
    decisions, reviews = await _history(settings)
    report = rescore([*decisions, decisions[0]], reviews, settings)  # a re-delivered copy
    assert len(report.items) == len(decisions)
    assert [i.rescored for i in report.items] == decisions
    assert report.flipped == [] and report.incomplete == []


async def test_other_settings_change_only_what_they_should() -> None:
    live = Settings()
    decisions, reviews = await _history(live)
    by_id = {d.draft_id: d for d in decisions}
    assert by_id["d-good"].approved and not by_id["d-border"].approved

    lenient = live.with_overrides(qa_final_score_threshold=60.0)
    report = rescore(decisions, reviews, lenient)
    after = {i.original.draft_id: i.rescored for i in report.items}
    flipped = {i.original.draft_id for i in report.flipped}
    # d-border scores in [60, 70): approved now; the short-circuited draft stays rejected
    # whatever the threshold; scores themselves do not move with the threshold.
    assert by_id["d-border"].final_score >= 60
    assert flipped == {"d-border"}
    assert after["d-critical"] is not None and after["d-critical"].short_circuited
    assert all(i.score_delta == 0 for i in report.items)
    assert all(r is not None and r.settings_version == lenient.version() for r in after.values())

    critic_heavy = live.with_overrides(qa_critic_weight=3.0)
    heavy = {i.original.draft_id: i for i in rescore(decisions, reviews, critic_heavy).items}
    assert heavy["d-weak"].score_delta < 0  # the weak critic score now weighs more
    assert heavy["d-good"].score_delta != 0
    # The late consistency result (score 1) is never part of the evidence.
    assert heavy["d-timeout"].rescored is not None
    assert heavy["d-timeout"].rescored.timed_out
    assert heavy["d-timeout"].rescored.missing_reviewers == ("consistency",)


async def test_missing_evidence_is_reported_not_guessed() -> None:
    settings = Settings()
    decisions, reviews = await _history(settings)
    without_critic = [r for r in reviews if not (r.draft_id == "d-good" and r.reviewer == "critic")]
    report = rescore(decisions, without_critic, settings)
    (incomplete,) = report.incomplete
    assert incomplete.original.draft_id == "d-good"
    assert "critic" in incomplete.problem


# --- against the real broker -------------------------------------------------------------------


async def _produce(bootstrap: str, topic: str, events: list) -> None:
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap)
    await producer.start()
    try:
        for event in events:
            await producer.send(topic, encode(event), key=event.draft_id.encode())
        await producer.send(topic, b"\xc3\x01 not an event", key=b"junk")
        await producer.flush()
    finally:
        await producer.stop()


@pytest.fixture
async def history_on_topics(kafka_bootstrap, unique_topics, create_topics):
    config = StreamConfig(
        bootstrap_servers=kafka_bootstrap,
        decisions_topic=unique_topics("qa.decisions"),
        reviews_topic=unique_topics("qa.reviews"),
        drafts_topic=unique_topics("qa.drafts"),
        dead_letters_topic=unique_topics("qa.dead-letters"),
        partitions=3,
    )
    await create_topics(config.decisions_topic, config.reviews_topic, partitions=3)
    decisions, reviews = await _history(Settings())
    await _produce(kafka_bootstrap, config.reviews_topic, reviews)
    await _produce(kafka_bootstrap, config.decisions_topic, [*decisions, decisions[1]])
    return config, decisions


async def test_rescore_topics_reads_both_topics_to_their_end(history_on_topics) -> None:
    config, decisions = history_on_topics
    progress: list[str] = []
    report = await rescore_topics(config, Settings(), progress=progress.append)
    assert sorted(i.original.decision_id for i in report.items) == sorted(
        d.decision_id for d in decisions
    )
    assert all(i.rescored == i.original for i in report.items)
    assert report.undecodable == 2  # one junk event on each topic, skipped and counted
    assert any("read 6 decisions" in line for line in progress)
    assert await read_topic(kafka_bootstrap_of(config), "no-such-topic-" + uuid.uuid4().hex,
                            QADecision) == []  # fmt: skip


def kafka_bootstrap_of(config: StreamConfig) -> str:
    return config.bootstrap_servers


def _env(config: StreamConfig, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MULTIQA_BOOTSTRAP_SERVERS", config.bootstrap_servers)
    monkeypatch.setenv("MULTIQA_DECISIONS_TOPIC", config.decisions_topic)
    monkeypatch.setenv("MULTIQA_REVIEWS_TOPIC", config.reviews_topic)
    monkeypatch.delenv("MULTIQA_DATABASE_URL", raising=False)
    monkeypatch.delenv("DATABASE_URL", raising=False)


async def test_rescore_command_reports_flips(history_on_topics, monkeypatch, capsys) -> None:
    config, _ = history_on_topics
    _env(config, monkeypatch)
    code = await asyncio.to_thread(
        main, ["rescore", "--defaults", "--set", "qa_final_score_threshold=60"]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "5 draft versions; re-scored 5, not 0" in out
    assert "1 newly approved, 0 newly rejected" in out
    assert "d-border v1: rejected" in out and "-> approved" in out
    # rereview's --quiet, here too (the audit: rescore refused it): the report, no progress.
    code = await asyncio.to_thread(main, ["rescore", "--defaults", "--quiet"])
    captured = capsys.readouterr()
    assert code == 0 and "5 draft versions; re-scored 5" in captured.out
    assert captured.err == ""


async def test_rescore_command_publishes_elsewhere_only(
    history_on_topics, monkeypatch, capsys, unique_topics, create_topics
) -> None:
    config, decisions = history_on_topics
    _env(config, monkeypatch)
    code = await asyncio.to_thread(
        main, ["rescore", "--defaults", "--publish", config.decisions_topic]
    )
    assert code == 1
    assert "refusing to publish" in capsys.readouterr().err

    target = unique_topics("qa.decisions.rescored")
    await create_topics(target)
    code = await asyncio.to_thread(main, ["rescore", "--defaults", "--publish", target])
    assert code == 0
    published = await read_topic(config.bootstrap_servers, target, QADecision)
    assert sorted(published, key=lambda d: d.draft_id) == sorted(
        decisions, key=lambda d: d.draft_id
    )


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--set", "qa_final_score_threshold=500"], "outside [0, 100]"),
        (["--set", "no_such_setting=1"], "unknown setting 'no_such_setting'"),
        # The same validator as `multiqa settings set`: reviewer names, CIDRs, providers.
        (["--set", "qa_required_to_pass=critik"], "unknown reviewer(s) critik"),
        (["--set", "qa_url_allowlist=10.0.0.0/33"], "not a valid IP or CIDR"),
        (["--set", "pipeline_critic_model=google/gemini-2"], "unknown provider 'google'"),
        (["--set", "qa_critic_weight"], "expected KEY=VALUE"),
    ],
)
def test_rescore_bad_settings_are_one_line(argv, message, monkeypatch, capsys) -> None:
    monkeypatch.setenv("MULTIQA_BOOTSTRAP_SERVERS", "127.0.0.1:1")
    code = main(["rescore", "--defaults", *argv])
    err = capsys.readouterr().err
    assert code == 1
    assert message in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_rescore_unreachable_broker_is_one_line(jobs, monkeypatch, capsys) -> None:
    monkeypatch.setenv("MULTIQA_BOOTSTRAP_SERVERS", "127.0.0.1:1")
    code = main(["rescore", "--defaults", "--jobs", jobs])
    err = capsys.readouterr().err
    assert code == 1 and "cannot reach Kafka at 127.0.0.1:1" in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


@pytest.mark.parametrize(("jobs", "message"), [("0", "between 1 and 64"), ("two", "whole number")])
def test_rescore_bad_jobs_is_refused(jobs, message, capsys) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["rescore", "--defaults", "--jobs", jobs])
    assert exited.value.code == 2 and message in capsys.readouterr().err


async def test_rescore_in_processes_reports_as_one_process(
    history_on_topics, monkeypatch, capsys
) -> None:
    """--jobs 3 (one partition each) prints what --jobs 1 prints, the junk events included."""
    config, _ = history_on_topics
    _env(config, monkeypatch)
    outputs = {}
    for jobs in ("1", "3"):
        argv = ["rescore", "--defaults", "--json", "--set", "qa_final_score_threshold=60"]
        code = await asyncio.to_thread(main, [*argv, "--jobs", jobs])
        captured = capsys.readouterr()
        assert code == 0
        outputs[jobs] = captured.out
        assert "skipped undecodable event" in captured.err
        assert "re-scoring in one process" not in captured.err
    assert outputs["1"] == outputs["3"]
    assert '"flipped": 1' in outputs["3"]


async def test_partitions_that_do_not_line_up_are_rescored_in_one_process(
    kafka_bootstrap, unique_topics, create_topics, monkeypatch, capsys
) -> None:
    """Decisions in 2 partitions, results in 3: partition p of one is not partition p of the
    other, so the split run is not trusted and one process re-scores everything."""
    config = StreamConfig(
        bootstrap_servers=kafka_bootstrap,
        decisions_topic=unique_topics("qa.decisions"),
        reviews_topic=unique_topics("qa.reviews"),
    )
    await create_topics(config.decisions_topic, partitions=2)
    await create_topics(config.reviews_topic, partitions=3)
    decisions, reviews = await _history(Settings())
    await _produce(kafka_bootstrap, config.reviews_topic, reviews)
    await _produce(kafka_bootstrap, config.decisions_topic, decisions)
    split = await rescore_in_processes(
        kafka_bootstrap, config.decisions_topic, config.reviews_topic, Settings(), 2,
        progress=False,
    )  # fmt: skip
    assert split is None
    _env(config, monkeypatch)
    code = await asyncio.to_thread(main, ["rescore", "--defaults", "--jobs", "2"])
    captured = capsys.readouterr()
    assert code == 0 and "re-scoring in one process" in captured.err
    assert "5 draft versions; re-scored 5, not 0" in captured.out


# --- a large, varied history, field for field ----------------------------------------------------


# Settings that change different rules: weights, thresholds, vetoes, required and advisory
# reviewers, the warning penalty, the disagreement spread (as bench/check_decisions.py).
_VARIANTS: tuple[dict[str, object], ...] = (
    {},
    {"qa_critic_weight": 2.5, "qa_final_score_threshold": 75.0},
    {"qa_gate_weight": 0.0, "qa_validator_weight": 3.0},
    {"qa_required_to_pass": "validator,critic,consistency", "qa_disagreement_spread": 15.0},
    {"qa_advisory_reviewers": "citations,web_factcheck", "qa_critic_veto_threshold": 65.0},
    {"content_validator_warning_qa_penalty": 7.0, "qa_consistency_veto_threshold": 80.0},
)


def _fields(decision: QADecision | None) -> dict[str, object]:
    assert decision is not None
    return {f.name: getattr(decision, f.name) for f in fields(decision)}


async def test_large_history_rescored_field_for_field_as_in_process(
    kafka_bootstrap, unique_topics, create_topics
) -> None:
    """~2,800 results of 400 drafts (bench/rescore_history.py: short-circuits, early and
    timed-out decisions, errored and not-applicable gates, duplicates, late results, second
    versions) through the topics: under the live settings every decision comes back unchanged;
    under other settings each equals, field for field, what the in-process aggregation decides
    for the same results under those settings."""
    live = Settings()
    other = live.with_overrides(qa_critic_weight=2.5, qa_final_score_threshold=75.0)
    history = await make_history(400, settings=live)
    expected = {d.decision_id: d for d in (await make_history(400, settings=other)).decisions}
    config = StreamConfig(
        bootstrap_servers=kafka_bootstrap,
        decisions_topic=unique_topics("qa.decisions"),
        reviews_topic=unique_topics("qa.reviews"),
    )
    await create_topics(config.decisions_topic, config.reviews_topic, partitions=4)
    await _produce(kafka_bootstrap, config.reviews_topic, history.reviews)
    await _produce(kafka_bootstrap, config.decisions_topic, history.decisions)

    same = await rescore_topics(config, live)
    assert len(same.items) == len(history.decisions) and same.incomplete == []
    for item in same.items:
        assert _fields(item.rescored) == _fields(item.original)

    # What the command runs (only the aggregation's outcome, unless it publishes), here and in
    # processes by partition: the report of the whole decisions, row for row, under the live
    # settings and under variants of them; published, the whole decisions field for field.
    topics = (config.bootstrap_servers, config.decisions_topic, config.reviews_topic)
    for variant in _VARIANTS:
        settings = live.with_overrides(**variant)
        full = await rescore_topics(config, settings)
        rows = as_report(full, settings).items
        here = await rescore_here(*topics, settings, progress=False)
        assert here.items == rows and here.reviews == len(history.reviews), variant
        split = await rescore_in_processes(*topics, settings, 3, progress=False)
        assert split is not None and split.items == rows, variant
    published = await rescore_here(*topics, other, publish=True, progress=False)
    rescored = [i.rescored for i in (await rescore_topics(config, other)).items]
    assert [_fields(decode(v, QADecision)) for _, v in published.published] == [
        _fields(d) for d in rescored
    ]

    changed = await rescore_topics(config, other)
    assert len(changed.rescored) == len(history.decisions)
    compared = 0
    for item in changed.items:
        want = expected[item.original.decision_id]
        if want.early_decided or item.original.early_decided:
            continue  # decided early, a decision counts what had settled it under its settings
        assert _fields(item.rescored) == _fields(want), item.original.draft_id
        compared += 1
    assert compared > 300
    assert 0 < len(changed.flipped) < compared  # the new settings do change some decisions


async def test_evidence_missing_from_a_partition_is_looked_for_in_one_process(
    kafka_bootstrap, unique_topics, create_topics
) -> None:
    """A decision whose results its partition does not hold (retention, or another partitioner)
    is not reported incomplete by the split run: one process looks at every partition."""
    config = StreamConfig(
        bootstrap_servers=kafka_bootstrap,
        decisions_topic=unique_topics("qa.decisions"),
        reviews_topic=unique_topics("qa.reviews"),
    )
    await create_topics(config.decisions_topic, config.reviews_topic, partitions=2)
    decisions, reviews = await _history(Settings())
    kept = [r for r in reviews if not (r.draft_id == "d-good" and r.reviewer == "critic")]
    await _produce(kafka_bootstrap, config.reviews_topic, kept)
    await _produce(kafka_bootstrap, config.decisions_topic, decisions)
    split = await rescore_in_processes(
        kafka_bootstrap, config.decisions_topic, config.reviews_topic, Settings(), 2,
        progress=False,
    )  # fmt: skip
    assert split is None
    (incomplete,) = (await rescore_topics(config, Settings())).incomplete
    assert incomplete.original.draft_id == "d-good"


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_missing_topic_is_named_not_silently_empty(jobs, kafka_bootstrap, monkeypatch, capsys):
    missing = "qa.decisions-no-such-" + uuid.uuid4().hex[:8]
    monkeypatch.setenv("MULTIQA_BOOTSTRAP_SERVERS", kafka_bootstrap)
    monkeypatch.setenv("MULTIQA_DECISIONS_TOPIC", missing)
    monkeypatch.setenv("MULTIQA_REVIEWS_TOPIC", missing + ".reviews")
    code = main(["rescore", "--defaults", "--jobs", jobs])
    captured = capsys.readouterr()
    assert code == 0 and "0 draft versions" in captured.out
    assert f"topic {missing} does not exist on {kafka_bootstrap}" in captured.err
    assert f"topic {missing}.reviews does not exist" in captured.err
