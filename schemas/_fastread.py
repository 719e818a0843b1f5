"""Fast readers of the current schemas' Avro bodies, generated once per record type.

fastavro reads a body into dicts (its reader walks the schema for every field of every event),
then the codec's plan turns the dicts into records: about two thirds of the cost of decoding a
ReviewerResult (`multiqa rescore` reads hundreds of thousands). A fast reader is Python source
generated from the current schema (the one `Plan` already checked against the record types): it
reads each field where it lies and calls the record's constructor with the values in field order,
with nothing in between.

It is an accelerator, not a second decoder: it accepts only what is plainly well formed (varints
of at most 10 bytes, in-range enum and union indexes, booleans 0 or 1, 32-bit ints in range,
lengths inside the payload) and raises `NotFast` on anything else, and on any error at all the
codec decodes the payload again with fastavro and the plan, which either returns the same record
or raises the error that names the bad field. So a bad event is reported exactly as before; the
fast reader only ever returns what the full path would have returned (tests/schemas compare the
two on valid, corrupted and truncated payloads).
"""

from __future__ import annotations

import dataclasses
import enum
import struct
import typing
from collections.abc import Callable, Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

from schemas._convert import _optional_inner
from schemas._errors import MultiqaError

__all__ = ["NotFast", "compile_reader"]

# (record, end offset) from (payload, offset of the body)
Reader = Callable[[bytes, int], tuple[Any, int]]

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)  # what fastavro adds timestamp-millis to


class NotFast(MultiqaError):
    """The payload is not plainly well formed: decode it with the full path (never leaves the
    codec: it only sends a payload from the fast reader to the full one)."""


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    """A zig-zag varint of three to ten bytes starting at `pos` (one or two bytes are read
    inline). Past the end of `data` it raises IndexError, which sends the payload to the full
    path like NotFast."""
    value = (data[pos] & 0x7F) | (data[pos + 1] & 0x7F) << 7
    shift = 14
    pos += 2
    while shift < 70:
        b = data[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        if b < 0x80:
            if value >> 64:  # fastavro keeps 64 bits of it: let it say what it reads
                raise NotFast
            return (value >> 1) ^ -(value & 1), pos
        shift += 7
    raise NotFast


def _by_byte(values: list[Any], *, zigzag: bool = True) -> tuple[Any, ...]:
    """What each possible first byte of a value reads as, None where the fast path does not
    read it: value i is the one byte 2i (an enum index, a zig-zag varint) or i (a boolean).
    One lookup instead of decoding the varint and checking its range; a byte of a longer
    varint, or out of range, is None and the payload goes to the full path."""
    table: list[Any] = [None] * 256
    for i, value in enumerate(values):
        byte = 2 * i if zigzag else i
        if byte < 128:
            table[byte] = value
    return tuple(table)


class _Source:
    """Python source being generated: lines at indent levels, fresh names, and the constants the
    code refers to."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.names = 0
        self.env: dict[str, Any] = {
            "_varint": _varint,
            "_double": struct.Struct("<d").unpack_from,
            "_EPOCH": _EPOCH,
            "_timedelta": timedelta,
            "NotFast": NotFast,
            "_new": object.__new__,
            "_BOOLEANS": _by_byte([False, True], zigzag=False),
        }

    def fresh(self, stem: str = "v") -> str:
        self.names += 1
        return f"{stem}{self.names}"

    def const(self, value: Any, stem: str) -> str:
        name = self.fresh(stem)
        self.env[name] = value
        return name

    def add(self, depth: int, line: str) -> None:
        self.lines.append("    " * depth + line)

    def long(self, depth: int, target: str) -> None:
        # One byte (-64..63) and two (-8192..8191: most string lengths) inline, the rest in
        # _varint: a call costs more than reading a short one.
        b, c = self.fresh("b"), self.fresh("b")
        self.add(depth, f"{b} = d[p]")
        self.add(depth, f"if {b} < 128:")
        self.add(depth + 1, f"{target} = ({b} >> 1) ^ -({b} & 1)")
        self.add(depth + 1, "p += 1")
        self.add(depth, "else:")
        self.add(depth + 1, f"{c} = d[p + 1]")
        self.add(depth + 1, f"if {c} < 128:")
        self.add(depth + 2, f"{c} = ({b} & 127) | ({c} << 7)")
        self.add(depth + 2, f"{target} = ({c} >> 1) ^ -({c} & 1)")
        self.add(depth + 2, "p += 2")
        self.add(depth + 1, "else:")
        self.add(depth + 2, f"{target}, p = _varint(d, p)")


def compile_reader(cls: type[Any], avro: Mapping[str, Any]) -> Reader:
    """The fast reader of `cls` written with the Avro record schema `avro` (the current one: its
    fields in the record's field order, as `Plan(exact=True)` checks)."""
    src = _Source()
    names: dict[str, Any] = {}
    result = _record(src, 1, cls, avro, names, str(avro.get("namespace", "")))
    code = ["def read(d, p):", "    size = len(d)", *src.lines, f"    return {result}, p"]
    exec(compile("\n".join(code), f"<fast reader of {cls.__name__}>", "exec"), src.env)  # noqa: S102
    reader: Reader = src.env["read"]
    return reader


def _resolve(avro: Any, names: dict[str, Any], ns: str) -> Any:
    if isinstance(avro, str):
        return names.get(avro) or names.get(f"{ns}.{avro}") or avro
    if isinstance(avro, dict) and avro.get("type") in ("record", "enum", "fixed"):
        name = avro["name"]
        names[name if "." in name else f"{avro.get('namespace', ns)}.{name}"] = avro
    return avro


def _record(
    src: _Source,
    depth: int,
    cls: type[Any],
    avro: Mapping[str, Any],
    names: dict[str, Any],
    ns: str,
) -> str:
    ns = str(avro.get("namespace", ns))
    hints = typing.get_type_hints(cls)
    fields = [f.name for f in dataclasses.fields(cls) if f.init]
    if fields != [f["name"] for f in avro["fields"]]:
        raise TypeError(f"{cls.__name__}: no fast reader for a schema of other fields")
    values = [_value(src, depth, hints[f["name"]], f["type"], names, ns) for f in avro["fields"]]
    target = src.fresh("r")
    slots = getattr(cls, "__slots__", ())
    if hasattr(cls, "__post_init__") or sorted(slots) != sorted(fields):
        src.add(depth, f"{target} = {src.const(cls, 'C')}({', '.join(values)})")
        return target
    # A frozen dataclass's __init__ sets each field through object.__setattr__; setting the
    # slots directly builds the same record in half the time (nothing else runs in __init__).
    src.add(depth, f"{target} = _new({src.const(cls, 'C')})")
    for name, value in zip(fields, values, strict=True):
        setter = src.const(getattr(cls, name).__set__, "S")
        src.add(depth, f"{setter}({target}, {value})")
    return target


def _value(src: _Source, depth: int, hint: Any, avro: Any, names: dict[str, Any], ns: str) -> str:
    """Emit the code reading one value; return the name that holds it."""
    avro = _resolve(avro, names, ns)
    target = src.fresh()
    inner = _optional_inner(hint)
    if inner is not None:  # ["null", X]
        # The branch index is one byte, 0 (null) or 2 (zig-zag 1); any other byte, a longer
        # varint of the same index included, goes to the full path.
        index = src.fresh("u")
        src.add(depth, f"{index} = d[p]")
        src.add(depth, "p += 1")
        src.add(depth, f"if {index} == 0:")
        src.add(depth + 1, f"{target} = None")
        src.add(depth, f"elif {index} == 2:")
        value = _value(src, depth + 1, inner, avro[1], names, ns)
        src.add(depth + 1, f"{target} = {value}")
        src.add(depth, "else:")
        src.add(depth + 1, "raise NotFast")
        return target
    kind = avro if isinstance(avro, str) else avro["type"]
    if isinstance(avro, dict) and avro.get("logicalType") == "timestamp-millis":
        millis = src.fresh("t")
        src.long(depth, millis)
        src.add(depth, f"{target} = _EPOCH + _timedelta(microseconds={millis} * 1000)")
    elif kind in ("string", "bytes"):
        n, end = src.fresh("n"), src.fresh("e")
        src.long(depth, n)
        src.add(depth, f"{end} = p + {n}")
        src.add(depth, f"if {n} < 0 or {end} > size:")
        src.add(depth + 1, "raise NotFast")
        text = ".decode()" if kind == "string" else ""
        src.add(depth, f"{target} = d[p:{end}]{text}")
        src.add(depth, f"p = {end}")
    elif kind == "boolean":
        src.add(depth, f"{target} = _BOOLEANS[d[p]]")
        src.add(depth, f"if {target} is None:")
        src.add(depth + 1, "raise NotFast")
        src.add(depth, "p += 1")
    elif kind == "double":
        src.add(depth, f"{target} = _double(d, p)[0]")
        src.add(depth, "p += 8")
    elif kind in ("int", "long"):
        src.long(depth, target)
        if kind == "int":
            src.add(depth, f"if not -2147483648 <= {target} <= 2147483647:")
            src.add(depth + 1, "raise NotFast")
    elif kind == "enum":
        if not (isinstance(hint, type) and issubclass(hint, enum.Enum)):
            raise TypeError(f"no fast reader for {hint} as {avro}")
        members = src.const(_by_byte([hint(symbol) for symbol in avro["symbols"]]), "E")
        src.add(depth, f"{target} = {members}[d[p]]")
        src.add(depth, f"if {target} is None:")
        src.add(depth + 1, "raise NotFast")
        src.add(depth, "p += 1")
    elif kind == "array":
        (item_hint, _) = typing.get_args(hint)
        items, count, skip = src.fresh("a"), src.fresh("c"), src.fresh("s")
        src.add(depth, f"{items} = []")
        src.add(depth, "while True:")
        src.long(depth + 1, count)
        src.add(depth + 1, f"if {count} == 0:")
        src.add(depth + 2, "break")
        src.add(depth + 1, f"if {count} < 0:")  # a block with its byte size: count is -count
        src.add(depth + 2, f"{count} = -{count}")
        src.long(depth + 2, skip)
        src.add(depth + 1, f"for _ in range({count}):")
        item = _value(src, depth + 2, item_hint, avro["items"], names, ns)
        src.add(depth + 2, f"{items}.append({item})")
        src.add(depth, f"{target} = tuple({items})")
    elif kind == "record":
        return _record(src, depth, hint, avro, names, ns)
    else:
        raise TypeError(f"no fast reader for Avro {avro}")
    return target
