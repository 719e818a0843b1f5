"""`multiqa dev up|down|status|check`: the local Kafka + PostgreSQL stack."""

from __future__ import annotations

import argparse
import time
from typing import Any

from streams.cli._command import run_command
from streams.devstack import Settings

# The launchers (streams.devstack.stack) are imported by the actions, not to build the parser.


def add_parser(subparsers: Any) -> None:
    dev = subparsers.add_parser(
        "dev",
        help="local Kafka (KRaft) + PostgreSQL on 127.0.0.1, no Docker",
        description="Start, stop and inspect the local development stack (see README, Operations).",
    )
    dev_sub = dev.add_subparsers(dest="dev_command", metavar="ACTION", required=True)

    def add(name: str, func: Any, help_text: str, services: bool = True) -> None:
        sub = dev_sub.add_parser(name, help=help_text, description=help_text)
        if services:
            only = sub.add_mutually_exclusive_group()
            only.add_argument("--kafka-only", action="store_true", help="only the Kafka broker")
            only.add_argument("--postgres-only", action="store_true", help="only PostgreSQL")
        # One error line for every action, as `multiqa dev: error: ...` (README, Operations).
        sub.set_defaults(func=run_command("multiqa dev", func))

    add("up", _cmd_up, "start (or reuse) the stack and print where it listens")
    # issue 14: the optional local model server (streams/devstack/model.py).
    dev_sub.choices["up"].add_argument(
        "--model",
        action="store_true",
        help="also start a tiny local model server (SmolLM2-135M, OpenAI-compatible) and print "
        "the settings pointing the critic at it: a wiring check, not a judge",
    )
    add("down", _cmd_down, "stop what `up` started")
    add(
        "status",
        _cmd_status,
        "print what runs (exit 0 when everything runs, 3 otherwise)",
        services=False,
    )
    add(
        "check",
        _cmd_check,
        "start the stack if needed, then send a message through the "
        "broker and a row through PostgreSQL",
    )


def _services(args: argparse.Namespace) -> tuple[bool, bool]:
    kafka_only = getattr(args, "kafka_only", False)
    postgres_only = getattr(args, "postgres_only", False)
    return (not postgres_only, not kafka_only)


def _cmd_up(args: argparse.Namespace) -> int:
    from streams.devstack import stack

    kafka, postgres = _services(args)
    started = time.monotonic()
    settings = Settings.from_env()
    info = stack.up(kafka=kafka, postgres=postgres, settings=settings)
    took = time.monotonic() - started
    if info.kafka is not None:
        how = "started" if info.kafka.started else "already running"
        print(
            f"kafka:    {info.kafka.bootstrap}  (Apache Kafka {info.kafka.version}, "
            f"pid {info.kafka.pid}, {how})"
        )
    if info.postgres is not None:
        how = "started" if info.postgres.started else "already running"
        print(
            f"postgres: {info.postgres.dsn}  (PostgreSQL {info.postgres.version}, "
            f"pid {info.postgres.pid}, {how})"
        )
    print(f"ready in {took:.1f}s; environment for other tools: {settings.env_file}")
    for line in info.env_lines():
        print(line)
    if getattr(args, "model", False):
        _model_up(settings)
    return 0


def _model_up(settings: Settings) -> None:
    from streams.devstack import model

    _, port, started = model.up(settings)
    how = "started" if started else "already running"
    print(
        f"model:    http://127.0.0.1:{port}/v1  (llama.cpp server, {model.MODEL_ALIAS}, {how})\n"
        "          WIRING CHECK, NOT A JUDGE: a 135M model scores every draft alike; it shows "
        "that\n          structured answers, usage, cost and fallbacks work. Point the critic "
        "and gates at it:"
    )
    for line in model.settings_lines(port):
        print(f"  {line}")


def _cmd_down(args: argparse.Namespace) -> int:
    from streams.devstack import stack

    kafka, postgres = _services(args)
    stopped = stack.down(kafka=kafka, postgres=postgres)
    if kafka and postgres:
        from streams.devstack import model

        if model.down(Settings.from_env()):
            stopped.append("model")
    print("stopped: " + ", ".join(stopped) if stopped else "nothing was running")
    return 0


def _cmd_status(args: argparse.Namespace) -> int:
    from streams.devstack import stack

    current = stack.status()
    from streams.devstack import model

    model_info = model.status(Settings.from_env())
    for name, info in current.items():
        if info.get("running"):
            details = "  ".join(f"{k}={v}" for k, v in info.items() if k != "running")
            print(f"{name}: running  {details}")
        else:
            problem = info.get("problem")
            print(f"{name}: not running" + (f"  ({problem})" if problem else ""))
    if model_info.get("running"):  # optional: shown when it runs, never required
        print(f"model: running  pid={model_info['pid']}  url={model_info['url']}")
    return 0 if all(info.get("running") for info in current.values()) else 3


async def _cmd_check(args: argparse.Namespace) -> int:
    import asyncio

    from streams.devstack import check, stack

    kafka, postgres = _services(args)
    info = await asyncio.to_thread(stack.up, kafka=kafka, postgres=postgres)
    if info.kafka is not None:
        value, took = await check.kafka_round_trip(info.kafka.bootstrap)
        print(
            f"kafka:    produced and consumed {value.decode()!r} on topic {check.TOPIC} "
            f"via {info.kafka.bootstrap} in {took:.2f}s"
        )
    if info.postgres is not None:
        version, took = await check.postgres_round_trip(info.postgres.dsn)
        print(
            f"postgres: inserted and read back a row in devstack_check (PostgreSQL "
            f"{version}) via {info.postgres.dsn} in {took:.2f}s"
        )
    print("round trip ok")
    return 0
