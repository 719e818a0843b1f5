"""Records <-> Avro datums, compiled once per (record type, schema).

A *datum* is what fastavro reads and writes: dicts, lists, str, int, float, bool, bytes, None and
aware datetimes. A *plan* walks a Python record type and its Avro schema side by side, so building
one is also a drift check: a field on one side only, or a type that does not match, fails at build
time (import time for the current schemas) instead of corrupting events.

Encoding type-checks every leaf on the way (int ranges, aware millisecond timestamps, enum members)
in the same pass that converts, which is about twice as fast as converting then running fastavro's
validator.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import enum
import types
import typing
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

from schemas._errors import MultiqaError

__all__ = ["FieldError", "Plan", "SchemaDriftError", "json_safe"]

Conv = Callable[[Any], Any]
_INT32 = (-(2**31), 2**31 - 1)
_INT64 = (-(2**63), 2**63 - 1)


class SchemaDriftError(MultiqaError, TypeError):
    """A Python record type and its Avro schema disagree (a programming error, not bad input)."""


class FieldError(MultiqaError):
    """A value that does not fit its field. Raised inside a plan; each record converter on the way
    out prepends its field name, so `path` ends up as e.g. `findings[2].span.start`."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
        self.path: list[str] = []

    @property
    def field(self) -> str | None:
        dotted = "".join(p if p.startswith("[") else f".{p}" for p in reversed(self.path))
        return dotted.lstrip(".") or None


# --- walking the Avro schema ------------------------------------------------------------------


def _resolve(avro: Any, names: dict[str, Any], namespace: str) -> Any:
    """Follow a named-type reference; register named types defined inline."""
    if isinstance(avro, str):
        if avro in names:
            return names[avro]
        if f"{namespace}.{avro}" in names:
            return names[f"{namespace}.{avro}"]
        return avro
    if isinstance(avro, dict) and avro.get("type") in ("record", "enum", "fixed"):
        name = avro["name"]
        full = name if "." in name else f"{avro.get('namespace', namespace)}.{name}"
        names[full] = avro
    return avro


def _kind(avro: Any) -> str:
    if isinstance(avro, list):
        return "union"
    if isinstance(avro, dict):
        if avro.get("logicalType") == "timestamp-millis" and avro.get("type") == "long":
            return "timestamp-millis"
        return str(avro["type"])
    return str(avro)


def _optional_inner(hint: Any) -> Any | None:
    """X for `X | None`, else None."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        if len(args) == 1 and len(typing.get_args(hint)) == 2:
            return args[0]
    return None


# --- the plan ---------------------------------------------------------------------------------


class Plan:
    """Converters between one record type and one Avro record schema (reader or current writer).

    `exact=True` (the current schema, used for encoding) demands the same fields in the same order
    on both sides. `exact=False` (an older reader schema) lets Python have extra fields, as long as
    they have defaults, in nested records too, and enums more symbols than the old schema: an old
    reader simply does not see them (a newer symbol is written as the old enum's default).
    """

    def __init__(self, cls: type[Any], avro: Mapping[str, Any], *, exact: bool = True) -> None:
        self._exact = exact
        names: dict[str, Any] = {}
        namespace = str(avro.get("namespace", ""))
        _resolve(dict(avro), names, namespace)
        self.cls = cls
        self.to_datum: Conv = self._record(cls, avro, names, namespace, "encode", exact)
        self.from_datum: Conv = self._record(cls, avro, names, namespace, "decode", exact)
        self.from_json: Conv = self._record(cls, avro, names, namespace, "lenient", exact)

    def _build(self, hint: Any, avro: Any, names: dict[str, Any], ns: str, mode: str) -> Conv:
        avro = _resolve(avro, names, ns)
        kind = _kind(avro)
        inner = _optional_inner(hint)
        if inner is not None:
            if kind != "union" or len(avro) != 2 or _kind(avro[0]) != "null":
                raise SchemaDriftError(f"{hint} needs an Avro union ['null', ...], got {avro}")
            conv = self._build(inner, avro[1], names, ns, mode)
            if conv is _same:
                return _same

            def optional(v: Any) -> Any:
                return None if v is None else conv(v)

            if conv in _FAST:
                _FAST[optional] = _FAST[conv] | {type(None)}
            return optional
        if kind == "union":
            raise SchemaDriftError(f"Avro union {avro} needs an optional Python type, got {hint}")
        origin = typing.get_origin(hint)
        if origin is tuple:
            args = typing.get_args(hint)
            if kind != "array" or len(args) != 2 or args[1] is not Ellipsis:
                raise SchemaDriftError(f"{hint} needs an Avro array, got {avro}")
            return self._array(self._build(args[0], avro["items"], names, ns, mode), mode)
        if isinstance(hint, type) and dataclasses.is_dataclass(hint):
            if kind != "record" or avro["name"].rsplit(".", 1)[-1] != hint.__name__:
                raise SchemaDriftError(f"{hint.__name__} needs an Avro record of that name: {avro}")
            return self._record(hint, avro, names, ns, mode, exact=self._exact)
        if isinstance(hint, type) and issubclass(hint, enum.Enum):
            symbols = [m.value for m in hint]
            older = (
                not self._exact
                and kind == "enum"
                and avro["symbols"] == symbols[: len(avro["symbols"])]
            )
            if kind != "enum" or (avro["symbols"] != symbols and not older):
                raise SchemaDriftError(f"{hint.__name__} symbols {symbols} != Avro {avro}")
            if older and avro["symbols"] != symbols:
                return _older_enum(hint, mode, avro["symbols"], avro.get("default"))
            return _enum(hint, mode)
        leaf = _LEAVES.get((hint, kind))
        if leaf is None:
            raise SchemaDriftError(f"Python {hint} does not match Avro {avro}")
        return leaf[mode]

    def _array(self, item: Conv, mode: str) -> Conv:
        if mode == "decode":
            return lambda v: tuple(item(x) for x in v)

        # Records hold tuples (immutable, and what decoding returns: a list would not compare
        # equal after a round trip); dict input (JSON) has lists.
        accepted = tuple if mode == "encode" else (tuple, list)

        def conv(v: Any) -> Any:
            if not isinstance(v, accepted):
                raise FieldError(f"expected a tuple, got {type(v).__name__}")
            out = []
            for i, x in enumerate(v):
                try:
                    out.append(item(x))
                except FieldError as exc:
                    exc.path.append(f"[{i}]")
                    raise
            return out if mode == "encode" else tuple(out)

        return conv

    def _record(
        self,
        cls: type[Any],
        avro: Mapping[str, Any],
        names: dict[str, Any],
        ns: str,
        mode: str,
        exact: bool,
    ) -> Conv:
        ns = str(avro.get("namespace", ns))
        py = [f for f in dataclasses.fields(cls) if f.init]
        av = {f["name"]: f for f in avro["fields"]}
        py_names = [f.name for f in py]
        if exact and py_names != list(av):
            raise SchemaDriftError(f"{cls.__name__}: Python fields {py_names} != Avro {list(av)}")
        if not exact:
            extra = [n for n in av if n not in py_names]
            missing = [
                f.name
                for f in py
                if f.name not in av
                and f.default is dataclasses.MISSING
                and f.default_factory is dataclasses.MISSING
            ]
            if extra or missing:
                raise SchemaDriftError(f"{cls.__name__}: Avro-only {extra}, undefaulted {missing}")
        hints = typing.get_type_hints(cls)
        plan = [
            (f.name, self._build(hints[f.name], av[f.name]["type"], names, ns, mode))
            for f in py
            if f.name in av
        ]
        if mode == "encode":
            # (name, converter, exact types that pass unchanged): most fields are plain text,
            # numbers and flags, and skipping their converter call halves the cost.
            checked = [(name, conv, _FAST.get(conv, frozenset())) for name, conv in plan]

            def to_datum(rec: Any) -> Any:
                if type(rec) is not cls:
                    raise FieldError(f"expected {cls.__name__}, got {type(rec).__name__}")
                out = {}
                for name, conv, fast in checked:
                    value = getattr(rec, name)
                    if type(value) in fast:
                        out[name] = value
                        continue
                    try:
                        out[name] = conv(value)
                    except FieldError as exc:
                        exc.path.append(name)
                        raise
                return out

            return to_datum

        if mode == "decode":
            # fastavro already produced the right Python types for plain fields.
            copied = [name for name, conv in plan if conv is _same]
            converted = [(name, conv) for name, conv in plan if conv is not _same]

            def from_datum(d: Any) -> Any:
                kwargs = {name: d[name] for name in copied}
                for name, conv in converted:
                    try:
                        kwargs[name] = conv(d[name])
                    except FieldError as exc:
                        exc.path.append(name)
                        raise
                return cls(**kwargs)

            return from_datum

        known = {f.name for f in py}
        required = [f.name for f in py if f.name in av and _field_required(cls, f.name)]

        def from_json(d: Any) -> Any:
            if not isinstance(d, Mapping):
                raise FieldError(f"expected an object for {cls.__name__}")
            unknown = set(d) - known
            if unknown:
                raise FieldError(f"unknown fields {sorted(unknown)}")
            missing = [name for name in required if name not in d]  # defaults fill the others
            if missing:
                raise FieldError(f"missing required fields {missing}")
            kwargs = {}
            for name, conv in plan:
                if name in d:
                    try:
                        kwargs[name] = conv(d[name])
                    except FieldError as exc:
                        exc.path.append(name)
                        raise
            return cls(**kwargs)

        return from_json


def _field_required(cls: type[Any], name: str) -> bool:
    f = next(f for f in dataclasses.fields(cls) if f.name == name)
    return f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING


# --- leaves -----------------------------------------------------------------------------------


def _enum(cls: type[enum.Enum], mode: str) -> Conv:
    by_value: dict[Any, enum.Enum] = {m.value: m for m in cls}

    def decode(v: Any) -> Any:
        try:
            return by_value[v]
        except (KeyError, TypeError):
            raise FieldError(f"{v!r} is not a {cls.__name__}") from None

    def encode(v: Any) -> Any:
        if isinstance(v, cls):
            return v.value
        return decode(v).value

    return encode if mode == "encode" else decode


def _older_enum(cls: type[enum.Enum], mode: str, symbols: list[str], default: str | None) -> Conv:
    """An enum of an older pinned schema that lacks Python's newer members: those are written as
    the old enum's default (what an old reader resolves an unknown symbol to)."""
    plain = _enum(cls, mode)
    if mode != "encode":
        return plain
    known = set(symbols)

    def encode(v: Any) -> Any:
        value = plain(v)
        if value in known:
            return value
        if default is None:
            raise FieldError(f"{value!r} is not in the pinned schema's {cls.__name__}")
        return default

    return encode


def _str(v: Any) -> Any:
    if not isinstance(v, str):
        raise FieldError(f"expected a string, got {type(v).__name__}")
    return v


def _bool(v: Any) -> Any:
    if not isinstance(v, bool):
        raise FieldError(f"expected a boolean, got {type(v).__name__}")
    return v


def _int(bounds: tuple[int, int], label: str) -> Conv:
    lo, hi = bounds

    def conv(v: Any) -> Any:
        if not isinstance(v, int) or isinstance(v, bool):
            raise FieldError(f"expected {label}, got {type(v).__name__}")
        if not lo <= v <= hi:
            raise FieldError(f"{v} is outside the Avro {label} range")
        return v

    return conv


def _decoded_int(bounds: tuple[int, int], label: str) -> Conv:
    # fastavro reads "int" with its long reader: a corrupt varint can exceed 32 bits.
    lo, hi = bounds

    def conv(v: Any) -> Any:
        if not lo <= v <= hi:
            raise FieldError(f"{v} is outside the Avro {label} range")
        return v

    return conv


def _float(v: Any) -> Any:
    if not isinstance(v, (int, float)) or isinstance(v, bool):
        raise FieldError(f"expected a number, got {type(v).__name__}")
    return float(v)


def _bytes(v: Any) -> Any:
    if not isinstance(v, bytes):
        raise FieldError(f"expected bytes, got {type(v).__name__}")
    return v


def _bytes_lenient(v: Any) -> Any:
    if isinstance(v, str):
        try:
            return base64.b64decode(v, validate=True)
        except (binascii.Error, ValueError):
            raise FieldError("expected base64 text") from None
    return _bytes(v)


def _timestamp(v: Any) -> Any:
    if not isinstance(v, datetime):
        raise FieldError(f"expected a datetime, got {type(v).__name__}")
    offset = v.utcoffset()
    if offset is None:
        raise FieldError("naive datetime; use an aware UTC datetime (schemas.utc_now())")
    if v.microsecond % 1000:
        raise FieldError("sub-millisecond precision cannot round-trip; use schemas.utc_now()")
    return v


def _timestamp_lenient(v: Any) -> Any:
    if isinstance(v, str):
        try:
            v = datetime.fromisoformat(v)
        except ValueError:
            raise FieldError(f"{v!r} is not an ISO-8601 timestamp") from None
    return _timestamp(v)


def _same(v: Any) -> Any:
    return v


_LEAVES: dict[tuple[Any, str], dict[str, Conv]] = {
    (str, "string"): {"encode": _str, "decode": _same, "lenient": _str},
    (bool, "boolean"): {"encode": _bool, "decode": _same, "lenient": _bool},
    (float, "double"): {"encode": _float, "decode": _same, "lenient": _float},
    (bytes, "bytes"): {"encode": _bytes, "decode": _same, "lenient": _bytes_lenient},
    (int, "int"): {
        "encode": _int(_INT32, "int"),
        "decode": _decoded_int(_INT32, "int"),
        "lenient": _int(_INT32, "int"),
    },
    (int, "long"): {
        "encode": _int(_INT64, "long"),
        "decode": _same,
        "lenient": _int(_INT64, "long"),
    },
    (datetime, "timestamp-millis"): {
        "encode": _timestamp,
        "decode": _same,
        "lenient": _timestamp_lenient,
    },
}


# Converters whose input passes unchanged when its exact type is one of these.
_FAST: dict[Conv, frozenset[type]] = {
    _str: frozenset({str}),
    _bool: frozenset({bool}),
    _float: frozenset({float}),
    _bytes: frozenset({bytes}),
}


def json_safe(datum: Any) -> Any:
    """A datum made JSON-serialisable: timestamps as ISO-8601 UTC with milliseconds and a Z,
    bytes as base64 (what `from_dict` accepts back)."""
    if isinstance(datum, dict):
        return {k: json_safe(v) for k, v in datum.items()}
    if isinstance(datum, list):
        return [json_safe(v) for v in datum]
    if isinstance(datum, datetime):
        iso = datum.astimezone(UTC).isoformat(timespec="milliseconds")
        return iso.replace("+00:00", "Z")
    if isinstance(datum, bytes):
        return base64.b64encode(datum).decode("ascii")
    return datum
