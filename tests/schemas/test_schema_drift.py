"""One source of truth: the Python records and the current .avsc files must say the same thing.

The walker below is independent of the codec's own plan compiler (which also refuses drift, see the
last tests): field names and order, types, optionality, defaults and enum symbols, recursively.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import types
import typing
from datetime import datetime
from typing import Any

import pytest

from schemas import Codec, DeadLetter, DraftSubmitted, QADecision, ReviewerResult, Severity
from schemas._convert import Plan, SchemaDriftError
from schemas._schemas import load_dir

PRIMITIVES = {str: "string", bool: "boolean", float: "double", bytes: "bytes"}
MISSING = dataclasses.MISSING


def current(record: str) -> dict[str, Any]:
    return dict([s for s in load_dir() if s.record == record][-1].raw)


def drift(cls: type[Any], avro: dict[str, Any], names: dict[str, Any] | None = None) -> list[str]:
    """Every disagreement between a dataclass and an Avro record schema."""
    names = {} if names is None else names
    names[avro["name"]] = avro
    problems: list[str] = []
    py_fields = [f for f in dataclasses.fields(cls)]
    av_fields = avro["fields"]
    py_names = [f.name for f in py_fields]
    av_names = [f["name"] for f in av_fields]
    if py_names != av_names:
        return [f"{cls.__name__}: fields {py_names} != {av_names}"]
    hints = typing.get_type_hints(cls)
    for pf, af in zip(py_fields, av_fields, strict=True):
        where = f"{cls.__name__}.{pf.name}"
        problems += _type_drift(hints[pf.name], af["type"], where, names)
        if "doc" not in af:
            problems.append(f"{where}: no doc in the .avsc")
        has_py_default = pf.default is not MISSING or pf.default_factory is not MISSING
        if "default" in af:
            # An Avro default must be the Python default: old data read with it must equal
            # what Python code builds when it leaves the field out.
            if not has_py_default:
                problems.append(f"{where}: Avro default but no Python default")
            else:
                factory: Any = pf.default_factory
                py_default = pf.default if pf.default is not MISSING else factory()
                if _as_json(py_default) != af["default"]:
                    problems.append(f"{where}: default {py_default!r} != {af['default']!r}")
        # (A Python default with a required Avro field is allowed: ids and timestamps are
        # stamped before publishing; the wire still demands them.)
    return problems


def _type_drift(hint: Any, avro: Any, where: str, names: dict[str, Any]) -> list[str]:
    if isinstance(avro, str) and avro in names:
        avro = names[avro]
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        args = typing.get_args(hint)
        if type(None) not in args or len(args) != 2:
            return [f"{where}: unsupported union {hint}"]
        if not (isinstance(avro, list) and len(avro) == 2 and avro[0] == "null"):
            return [f"{where}: optional in Python, {avro} in Avro"]
        inner = next(a for a in args if a is not type(None))
        return _type_drift(inner, avro[1], where, names)
    if isinstance(avro, list):
        return [f"{where}: union {avro} in Avro, {hint} in Python"]
    if typing.get_origin(hint) is tuple:
        if not (isinstance(avro, dict) and avro.get("type") == "array"):
            return [f"{where}: tuple in Python, {avro} in Avro"]
        return _type_drift(typing.get_args(hint)[0], avro["items"], f"{where}[]", names)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        if not (isinstance(avro, dict) and avro.get("type") == "record"):
            return [f"{where}: record {hint.__name__} in Python, {avro} in Avro"]
        return drift(hint, avro, names)
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        if not (isinstance(avro, dict) and avro.get("type") == "enum"):
            return [f"{where}: enum in Python, {avro} in Avro"]
        names[avro["name"]] = avro
        symbols = [m.value for m in hint]
        return [] if symbols == avro["symbols"] else [f"{where}: {symbols} != {avro['symbols']}"]
    if hint is datetime:
        ok = avro == {"type": "long", "logicalType": "timestamp-millis"}
        return [] if ok else [f"{where}: datetime needs timestamp-millis, got {avro}"]
    if hint is int:
        return [] if avro in ("int", "long") else [f"{where}: int in Python, {avro} in Avro"]
    expected = PRIMITIVES.get(hint)
    return [] if avro == expected else [f"{where}: {hint} in Python, {avro} in Avro"]


def _as_json(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_as_json(v) for v in value]
    if isinstance(value, enum.Enum):
        return value.value
    return value


@pytest.mark.parametrize("cls", [DraftSubmitted, ReviewerResult, QADecision, DeadLetter])
def test_python_record_matches_its_current_schema(cls: type[Any]) -> None:
    assert drift(cls, current(cls.__name__)) == []


# --- the drift check can fail: each kind of drift is caught -----------------------------------


def test_a_field_added_only_to_the_avsc_is_caught() -> None:
    avro = current("ReviewerResult")
    avro["fields"] = [*avro["fields"], {"name": "model_tier", "type": "string", "default": ""}]
    assert drift(ReviewerResult, avro)
    with pytest.raises(SchemaDriftError, match="model_tier"):
        Plan(ReviewerResult, avro)


def test_a_field_added_only_to_python_is_caught() -> None:
    @dataclasses.dataclass(frozen=True)
    class DeadLetter(__import__("schemas").DeadLetter):  # type: ignore[misc]
        retries: int = 0

    assert drift(DeadLetter, current("DeadLetter"))
    with pytest.raises(SchemaDriftError, match="retries"):
        Plan(DeadLetter, current("DeadLetter"))


def test_a_changed_default_optionality_order_or_enum_is_caught() -> None:
    base = json.dumps(current("ReviewerResult"))
    changed_default = json.loads(base.replace('"default": 0.0', '"default": 1.0', 1))
    assert any("default" in p for p in drift(ReviewerResult, changed_default))

    not_optional = current("ReviewerResult")
    veto = next(f for f in not_optional["fields"] if f["name"] == "veto")
    veto["type"], veto["default"] = "string", ""
    assert drift(ReviewerResult, not_optional)
    with pytest.raises(SchemaDriftError):
        Plan(ReviewerResult, not_optional)

    swapped = current("ReviewerResult")
    swapped["fields"][0], swapped["fields"][1] = swapped["fields"][1], swapped["fields"][0]
    assert drift(ReviewerResult, swapped)
    with pytest.raises(SchemaDriftError):
        Plan(ReviewerResult, swapped)

    more_symbols = json.loads(base.replace('"info"]', '"info", "blocker"]'))
    assert any("Severity" in p or "severity" in p for p in drift(ReviewerResult, more_symbols))
    with pytest.raises(SchemaDriftError, match="Severity"):
        Plan(ReviewerResult, more_symbols)
    assert [m.value for m in Severity] == ["critical", "warning", "info"]


def test_the_codec_refuses_to_start_on_drifted_schema_files(tmp_path: Any) -> None:
    for schema in load_dir():
        raw = dict(schema.raw)
        if schema.record == "DraftSubmitted":
            raw["fields"] = [f for f in raw["fields"] if f["name"] != "niche"]
        (tmp_path / f"{schema.record}.v{schema.version}.avsc").write_text(json.dumps(raw))
    with pytest.raises(SchemaDriftError, match="niche"):
        Codec(schema_dir=tmp_path)
