"""The deployment files run commands that exist: every `multiqa ...` in the Kubernetes manifests
and docker-compose parses with the real CLI, and every MULTIQA_* variable they set is one the
stream's configuration reads (a renamed flag or variable fails here, not in production)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import yaml

from streams.cli import build_parser
from streams.runtime.config import ENV_PREFIX, StreamConfig

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"


def _documents() -> list[tuple[str, dict]]:
    docs = []
    for path in [*sorted(DEPLOY.glob("k8s/*.yaml")), DEPLOY / "docker-compose.yml"]:
        for doc in yaml.safe_load_all(path.read_text()):
            if doc:
                docs.append((path.name, doc))
    return docs


def _walk(node, found: list):
    if isinstance(node, dict):
        for key in ("args", "command"):
            value = node.get(key)
            if isinstance(value, list) and value and value[0] == "multiqa":
                found.append(value)
        for value in node.values():
            _walk(value, found)
    elif isinstance(node, list):
        for value in node:
            _walk(value, found)
    return found


def _commands() -> list[tuple[str, list[str]]]:
    return [(name, argv) for name, doc in _documents() for argv in _walk(doc, [])]


def test_manifests_run_multiqa_somewhere() -> None:
    names = {name for name, _ in _commands()}
    assert {"reviewers.yaml", "aggregator.yaml", "docker-compose.yml"} <= names


@pytest.mark.parametrize(
    ("source", "argv"), _commands(), ids=lambda v: " ".join(v) if isinstance(v, list) else v
)
def test_every_multiqa_command_parses(source: str, argv: list[str]) -> None:
    args = build_parser().parse_args(argv[1:])  # argparse exits (SystemExit) on a bad flag
    assert callable(getattr(args, "func", None)), f"{source}: {argv} runs no command"


def test_every_multiqa_variable_is_read_by_the_config() -> None:
    known = {f"{ENV_PREFIX}{f.name.upper()}" for f in dataclasses.fields(StreamConfig)}
    used: set[str] = set()

    def collect(node) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if isinstance(key, str) and key.startswith(ENV_PREFIX):
                    used.add(key)
                collect(value)
        elif isinstance(node, list):
            for value in node:
                if isinstance(value, str) and value.startswith(ENV_PREFIX) and "=" in value:
                    used.add(value.split("=", 1)[0])
                collect(value)

    for _, doc in _documents():
        collect(doc)
    assert used, "no MULTIQA_* variables found: the walk is broken"
    assert used <= known, f"unknown variables: {sorted(used - known)}"


def test_every_worker_has_liveness_and_readiness_probes_on_the_ops_port() -> None:
    config = next(doc for name, doc in _documents() if doc.get("kind") == "ConfigMap")
    port = int(config["data"]["MULTIQA_OPS_PORT"])
    assert config["data"]["MULTIQA_OPS_HOST"] == "0.0.0.0"  # the kubelet probes the pod's IP
    workers = [
        container
        for _, doc in _documents()
        if doc.get("kind") in ("Deployment", "StatefulSet")
        for container in doc["spec"]["template"]["spec"]["containers"]
        if container.get("args", [])[:2] == ["multiqa", "worker"]
    ]
    assert len(workers) == 4
    for container in workers:
        ports = {p["name"]: p["containerPort"] for p in container["ports"]}
        assert ports["ops"] == port
        assert container["livenessProbe"]["httpGet"] == {"path": "/healthz", "port": "ops"}
        assert container["readinessProbe"]["httpGet"] == {"path": "/readyz", "port": "ops"}
    compose = next(doc for name, doc in _documents() if name == "docker-compose.yml")
    check = " ".join(compose["services"]["worker"]["healthcheck"]["test"])
    assert f"127.0.0.1:{StreamConfig().ops_port}/readyz" in check
    # The worker serves the decisions pages there (no login): published on loopback only (audit).
    worker = compose["services"]["worker"]
    assert worker["environment"]["MULTIQA_UI"] == "true"
    assert worker["ports"] == [f"127.0.0.1:{port}:{port}"]
