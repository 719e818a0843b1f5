"""The one codec every producer and consumer of multiqa uses.

Wire format (Avro single-object encoding, no registry needed):

    C3 01 | 8-byte CRC-64-AVRO fingerprint of the writer schema (little-endian) | Avro binary body

or, when a schema registry is configured, Confluent framing:

    00 | 4-byte big-endian registry schema id | Avro binary body

`decode` accepts both, whatever the codec writes. The writer schema is resolved against the
reader's (the current schema of that record, or a pinned older one), so old events stay readable
and old readers read new events. Records are validated on both sides: an invalid record is never
published and never handed to a reviewer.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar, overload

from fastavro import schemaless_reader, schemaless_writer

from schemas._convert import FieldError, Plan, json_safe
from schemas._errors import (
    BadMagicError,
    CodecError,
    CorruptBodyError,
    InvalidRecordError,
    OversizeError,
    TrailingBytesError,
    TruncatedError,
    UnknownSchemaError,
    WrongRecordTypeError,
)
from schemas._fastread import Reader, compile_reader
from schemas._registry import SchemaRegistry
from schemas._schemas import RECORD_TYPES, SCHEMA_DIR, Schema, load_dir, schema_from_json
from schemas._validate import Limits, validate
from schemas.records import DeadLetter, DraftSubmitted, QADecision, ReviewerResult

__all__ = ["Codec", "Event", "decode", "decoder", "encode", "from_dict", "to_dict"]

Event = DraftSubmitted | ReviewerResult | QADecision | DeadLetter
R = TypeVar("R", DraftSubmitted, ReviewerResult, QADecision, DeadLetter)

SINGLE_OBJECT_MAGIC = b"\xc3\x01"
CONFLUENT_MAGIC = 0
_SINGLE_OBJECT_HEADER = 10
_CONFLUENT_HEADER = 5

# Plans are compiled once per (record type, schema, exactness) and shared by every Codec.
_plans: dict[tuple[type[Any], bytes, bool], Plan] = {}


def _plan(cls: type[Any], schema: Schema, *, exact: bool) -> Plan:
    key = (cls, schema.fingerprint, exact)
    plan = _plans.get(key)
    if plan is None:
        plan = _plans[key] = Plan(cls, schema.raw, exact=exact)
    return plan


# Fast readers (schemas._fastread) likewise, once per (record type, current schema).
_readers: dict[tuple[type[Any], bytes], Reader] = {}


def _reader(cls: type[Any], schema: Schema) -> Reader:
    key = (cls, schema.fingerprint)
    reader = _readers.get(key)
    if reader is None:
        reader = _readers[key] = compile_reader(cls, schema.raw)
    return reader


class _Side:
    """What a codec reads and writes one record type with."""

    __slots__ = ("fast", "header", "plan", "schema")

    def __init__(self, schema: Schema, plan: Plan, fast: Reader | None) -> None:
        self.schema = schema
        self.plan = plan
        self.header = SINGLE_OBJECT_MAGIC + schema.fingerprint
        # Bodies written with this very schema are read by the fast reader first.
        self.fast = fast


class Codec:
    """Encodes and decodes multiqa events. The module-level `encode`/`decode` use a default
    instance; build your own to change limits, use a registry or pin schema versions.

    - `limits`: size limits (see `Limits`).
    - `registry`: a `SchemaRegistry`; when given, `encode` writes Confluent framing (registering
      each writer schema once under `subject_prefix` + record full name, i.e. the
      RecordNameStrategy), and `decode` fetches writer schemas it does not have by id.
    - `versions`: pin a record to an older schema version, e.g. `{"ReviewerResult": 1}`: this
      codec then writes that version and reads everything as that version (an old service).
    - `schema_dir`: where the `.avsc` files are (tests).
    """

    def __init__(
        self,
        *,
        limits: Limits | None = None,
        registry: SchemaRegistry | None = None,
        subject_prefix: str = "",
        versions: Mapping[str, int] | None = None,
        schema_dir: Path | str = SCHEMA_DIR,
    ) -> None:
        self.limits = limits or Limits()
        self.registry = registry
        self.subject_prefix = subject_prefix
        schemas = load_dir(Path(schema_dir))
        self._by_fingerprint: dict[bytes, Schema] = {s.fingerprint: s for s in schemas}
        self._by_registry_id: dict[int, Schema] = {}
        self._registry_header: dict[bytes, bytes] = {}
        self._sides: dict[str, _Side] = {}
        pins = dict(versions or {})
        for name, cls in RECORD_TYPES.items():
            candidates = [s for s in schemas if s.record == name]
            # The current schema must match the Python record exactly; a pinned older one may
            # lack fields Python has (with defaults): an old reader just does not see them.
            exact = name not in pins
            if not exact:
                wanted = pins.pop(name)
                candidates = [s for s in candidates if s.version == wanted]
            if not candidates:
                raise ValueError(f"no schema file for {name} in {schema_dir}")
            current = candidates[-1]
            plan = _plan(cls, current, exact=exact)  # first: it is the drift check
            fast = _reader(cls, current) if exact else None
            self._sides[name] = _Side(current, plan, fast)
        if pins:
            raise ValueError(f"unknown records in versions: {sorted(pins)}")
        self._by_type: dict[type[Any], _Side] = {
            RECORD_TYPES[name]: side for name, side in self._sides.items()
        }

    # --- encoding -----------------------------------------------------------------------------

    def encode(self, record: Event) -> bytes:
        """The wire bytes of `record`. Raises InvalidRecordError (or OversizeError) when the
        record breaks its schema or a rule; nothing invalid is ever published."""
        side = self._by_type.get(type(record))
        if side is None:
            raise TypeError(f"not an event record: {type(record).__name__}")
        try:
            datum = side.plan.to_datum(record)
        except FieldError as exc:
            raise InvalidRecordError(exc.reason, field=exc.field) from None
        validate(record, self.limits)
        out = io.BytesIO()
        out.write(self._header(side))
        try:
            schemaless_writer(out, side.schema.parsed, datum)
        except Exception as exc:  # the type checks pass it, so: text that is not valid Unicode
            raise InvalidRecordError(
                f"cannot be written as Avro: {type(exc).__name__}: {str(exc)[:200]}",
                field=_unencodable(datum),
            ) from None
        data = out.getvalue()
        if len(data) > self.limits.max_payload_bytes:
            raise OversizeError(
                f"encoded {side.schema.record} is {len(data)} bytes, over the maximum of "
                f"{self.limits.max_payload_bytes}"
            )
        return data

    def _header(self, side: _Side) -> bytes:
        if self.registry is None:
            return side.header
        header = self._registry_header.get(side.schema.fingerprint)
        if header is None:
            subject = self.subject_prefix + str(side.schema.parsed["name"])
            schema_id = self.registry.register(subject, json.dumps(side.schema.raw))
            header = bytes([CONFLUENT_MAGIC]) + schema_id.to_bytes(4, "big")
            self._registry_header[side.schema.fingerprint] = header
            self._by_registry_id[schema_id] = side.schema
        return header

    # --- decoding -----------------------------------------------------------------------------

    @overload
    def decode(self, data: bytes, expected: None = None) -> Event: ...
    @overload
    def decode(self, data: bytes, expected: type[R]) -> R: ...

    def decode(self, data: bytes, expected: type[Any] | None = None) -> Any:
        """The record in `data`. With `expected`, anything else raises WrongRecordTypeError.
        Every problem with the payload raises a CodecError subclass (see schemas._errors)."""
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"decode() needs bytes, not {type(data).__name__}")
        size = len(data)
        if size > self.limits.max_payload_bytes:
            raise OversizeError(
                f"payload is {size} bytes, over the maximum of {self.limits.max_payload_bytes}",
                offset=self.limits.max_payload_bytes,
            )
        writer, start = self._writer_schema(data)
        side = self._sides[writer.record]
        if expected is not None and RECORD_TYPES[writer.record] is not expected:
            raise WrongRecordTypeError(
                f"expected {expected.__name__}, got {writer.record}",
                offset=2 if data[0] == SINGLE_OBJECT_MAGIC[0] else 1,  # the schema's identity
            )
        if writer is side.schema and side.fast is not None:
            fast = self._fast(side.fast, data, start, size)
            if fast is not None:
                return fast
        reader = None if writer is side.schema else side.schema.parsed
        buffer = io.BytesIO(data)
        buffer.seek(start)
        try:
            datum = schemaless_reader(buffer, writer.parsed, reader)
        except Exception as exc:
            raise _body_error(data, start, writer, exc) from None
        if buffer.tell() != size:
            raise TrailingBytesError(
                f"{size - buffer.tell()} bytes left after the {writer.record}",
                offset=buffer.tell(),
            )
        try:
            record = side.plan.from_datum(datum)
        except FieldError as exc:
            raise CorruptBodyError(
                exc.reason, field=exc.field, offset=_field_offset(data, start, writer, exc.field)
            ) from None
        try:
            validate(record, self.limits)
        except InvalidRecordError as exc:
            offset = _field_offset(data, start, writer, exc.field)
            raise type(exc)(exc.reason, offset=offset, field=exc.field) from None
        return record

    def decoder(self, expected: type[R]) -> Callable[[bytes], R]:
        """`lambda data: self.decode(data, expected)`, cheaper per event (`multiqa rescore`
        decodes hundreds of thousands): an event written with the current schema goes straight
        to its fast reader and the rules, as in `decode`; any other event, and any the fast
        path refuses, goes to `decode`, so the outcome (the record or the error) is decode's."""
        side = self._by_type[expected]
        full = self.decode
        read = side.fast
        if read is None:  # a pinned older schema: no fast reader
            return lambda data: full(data, expected)
        header, limit, limits = side.header, self.limits.max_payload_bytes, self.limits

        def decode_one(data: bytes) -> R:
            if (
                type(data) is bytes
                and len(data) <= limit
                and data[:_SINGLE_OBJECT_HEADER] == header
            ):
                try:
                    record, end = read(data, _SINGLE_OBJECT_HEADER)
                    if end == len(data):
                        validate(record, limits)
                        return record  # type: ignore[no-any-return]
                except Exception:  # noqa: S110  (the full path below names what is wrong)
                    pass
            return full(data, expected)

        return decode_one

    def _fast(
        self, read: Reader, data: bytes | bytearray | memoryview, start: int, size: int
    ) -> Any:
        """The valid record the fast reader reads, or None: then the full path decodes the
        payload again, and either returns the same record or names what is wrong with it."""
        try:
            record, end = read(bytes(data) if type(data) is not bytes else data, start)
            if end != size:
                return None
            validate(record, self.limits)
        except Exception:
            return None
        return record

    def _writer_schema(self, data: bytes | bytearray | memoryview) -> tuple[Schema, int]:
        """The writer schema named by the header, and where the body starts."""
        if len(data) == 0:
            raise TruncatedError("empty payload", offset=0)
        if data[0] == SINGLE_OBJECT_MAGIC[0]:
            if len(data) < 2 or data[1] != SINGLE_OBJECT_MAGIC[1]:
                if len(data) < 2:
                    raise TruncatedError("payload ends inside the magic", offset=len(data))
                raise BadMagicError(f"second magic byte is {data[1]:#04x}, not 0x01", offset=1)
            if len(data) < _SINGLE_OBJECT_HEADER:
                raise TruncatedError("payload ends inside the fingerprint", offset=len(data))
            fingerprint = bytes(data[2:_SINGLE_OBJECT_HEADER])
            schema = self._by_fingerprint.get(fingerprint)
            if schema is None:
                raise UnknownSchemaError(
                    f"no known schema has fingerprint {fingerprint.hex()}", offset=2
                )
            return schema, _SINGLE_OBJECT_HEADER
        if data[0] == CONFLUENT_MAGIC:
            if len(data) < _CONFLUENT_HEADER:
                raise TruncatedError("payload ends inside the schema id", offset=len(data))
            schema_id = int.from_bytes(data[1:_CONFLUENT_HEADER], "big")
            return self._schema_by_id(schema_id), _CONFLUENT_HEADER
        raise BadMagicError(
            f"first byte is {data[0]:#04x}: neither single-object (0xc3 0x01) nor Confluent (0x00)",
            offset=0,
        )

    def _schema_by_id(self, schema_id: int) -> Schema:
        schema = self._by_registry_id.get(schema_id)
        if schema is not None:
            return schema
        if self.registry is None:
            raise UnknownSchemaError(
                f"Confluent-framed payload (schema id {schema_id}) but no registry is configured",
                offset=1,
            )
        text = self.registry.schema(schema_id)  # SchemaRegistryError propagates: retry later
        if text is None:
            raise UnknownSchemaError(f"the registry has no schema id {schema_id}", offset=1)
        try:
            schema = schema_from_json(
                json.loads(text), source=f"registry id {schema_id}", version=None
            )
        except Exception as exc:
            raise UnknownSchemaError(
                f"registry schema id {schema_id} is not a usable Avro record schema: {exc}",
                offset=1,
            ) from None
        # A schema we have as a file is used as such (same fingerprint, same parse).
        schema = self._by_fingerprint.get(schema.fingerprint, schema)
        if schema.record not in self._sides:
            raise UnknownSchemaError(
                f"registry schema id {schema_id} is a {schema.record}, not a multiqa event",
                offset=1,
            )
        self._by_registry_id[schema_id] = schema
        return schema

    # --- dicts --------------------------------------------------------------------------------

    def to_dict(self, record: Event, *, json: bool = False) -> dict[str, Any]:
        """`record` as the Avro datum (plain dicts/lists); `json=True` makes it JSON-serialisable
        (timestamps as ISO-8601 `...Z`, bytes as base64). Type-checks like `encode`."""
        side = self._by_type.get(type(record))
        if side is None:
            raise TypeError(f"not an event record: {type(record).__name__}")
        try:
            datum: dict[str, Any] = side.plan.to_datum(record)
        except FieldError as exc:
            raise InvalidRecordError(exc.reason, field=exc.field) from None
        if json:
            safe: dict[str, Any] = json_safe(datum)
            return safe
        return datum

    def from_dict(self, cls: type[R], data: Mapping[str, Any]) -> R:
        """A validated record from a datum or its JSON form (what `to_dict` returns). Missing
        optional fields take their defaults; unknown fields are refused."""
        side = self._by_type.get(cls)
        if side is None:
            raise TypeError(f"not an event record type: {cls!r}")
        try:
            record: R = side.plan.from_json(data)
        except FieldError as exc:
            raise InvalidRecordError(exc.reason, field=exc.field) from None
        except TypeError as exc:  # a value of a wrong kind reached a constructor
            raise InvalidRecordError(str(exc)) from None
        self.to_dict(record)  # the same type checks as encode
        validate(record, self.limits)
        return record


def _unencodable(datum: Any, path: str = "") -> str | None:
    """The path of the first string UTF-8 cannot encode (a lone surrogate), if any."""
    if isinstance(datum, str):
        try:
            datum.encode("utf-8")
        except UnicodeEncodeError:
            return path or None
    elif isinstance(datum, dict):
        for key, value in datum.items():
            found = _unencodable(value, f"{path}.{key}" if path else key)
            if found:
                return found
    elif isinstance(datum, list):
        for i, value in enumerate(datum):
            found = _unencodable(value, f"{path}[{i}]")
            if found:
                return found
    return None


# --- locating body errors ---------------------------------------------------------------------


def _read_prefix(data: bytes | bytearray | memoryview, start: int, writer: Schema, n: int) -> int:
    """Read the first `n` fields with the writer schema; return where field `n` starts."""
    buffer = io.BytesIO(data)
    buffer.seek(start)
    if n:
        schemaless_reader(buffer, writer.prefix(n), None)
    return buffer.tell()


def _prefix_failure(
    data: bytes | bytearray | memoryview, start: int, writer: Schema, n: int
) -> tuple[Exception, int] | None:
    """Why the first `n` fields cannot be read, and where reading stopped; None if they can."""
    buffer = io.BytesIO(data)
    buffer.seek(start)
    try:
        schemaless_reader(buffer, writer.prefix(n), None)
    except Exception as exc:
        return exc, buffer.tell()
    return None


def _field_offset(
    data: bytes | bytearray | memoryview, start: int, writer: Schema, field: str | None
) -> int | None:
    """Where the top-level field of a dotted path starts in the payload (None if the writer
    schema has no such field, e.g. a field a newer reader added)."""
    if field is None:
        return None
    top = field.split(".", 1)[0].split("[", 1)[0]
    if top not in writer.field_names:
        return None
    try:
        return _read_prefix(data, start, writer, writer.field_names.index(top))
    except Exception:
        return None


def _body_error(
    data: bytes | bytearray | memoryview, start: int, writer: Schema, exc: Exception
) -> CodecError:
    """Name the first top-level field that cannot be read. Reading a prefix of the fields
    succeeds exactly when every field in it is sound, so a binary search finds the bad one."""
    names = writer.field_names
    if _prefix_failure(data, start, writer, len(names)) is None:
        # Every field reads with the writer schema: it does not resolve against the reader's.
        return CorruptBodyError(
            f"{writer.record} from {writer.source} does not resolve against the reader schema: "
            f"{type(exc).__name__}: {exc}",
            offset=start,
        )
    lo, hi = 1, len(names)  # prefix(hi) fails; prefix(lo - 1) reads
    while lo < hi:
        mid = (lo + hi) // 2
        if _prefix_failure(data, start, writer, mid) is None:
            lo = mid + 1
        else:
            hi = mid
    field = names[lo - 1]
    field_start = _read_prefix(data, start, writer, lo - 1)
    cause, stopped_at = _prefix_failure(data, start, writer, lo) or (exc, len(data))
    # fastavro signals running out of bytes with EOFError, or with an IndexError when a varint
    # is cut short at the very end.
    if isinstance(cause, EOFError) or (isinstance(cause, IndexError) and stopped_at >= len(data)):
        return TruncatedError(
            f"payload ends inside field {field!r}, which starts at byte {field_start}",
            offset=len(data),
            field=field,
        )
    return CorruptBodyError(_explain(cause), offset=field_start, field=field)


def _explain(exc: Exception) -> str:
    if isinstance(exc, UnicodeDecodeError):
        return f"invalid UTF-8 in a string ({exc.reason} at byte {exc.start} of the string)"
    if isinstance(exc, IndexError):
        return "union branch or enum symbol index out of range"
    if isinstance(exc, (OverflowError, ValueError)) and "year" in str(exc):
        return f"timestamp out of range: {exc}"
    return f"not valid Avro: {type(exc).__name__}: {str(exc)[:200]}"


# --- the default codec ------------------------------------------------------------------------

_default = Codec()


def encode(record: Event) -> bytes:
    """`record` as single-object-encoded Avro bytes (see `Codec.encode`)."""
    return _default.encode(record)


@overload
def decode(data: bytes, expected: None = None) -> Event: ...
@overload
def decode(data: bytes, expected: type[R]) -> R: ...


def decode(data: bytes, expected: type[Any] | None = None) -> Any:
    """The record in `data`, resolved to the current schema (see `Codec.decode`)."""
    return _default.decode(data, expected)


def decoder(expected: type[R]) -> Callable[[bytes], R]:
    """`decode(data, expected)` for many events of one type (see `Codec.decoder`)."""
    return _default.decoder(expected)


def to_dict(record: Event, *, json: bool = False) -> dict[str, Any]:
    """`record` as a plain dict (see `Codec.to_dict`)."""
    return _default.to_dict(record, json=json)


def from_dict(cls: type[R], data: Mapping[str, Any]) -> R:
    """A validated record of type `cls` from a plain dict (see `Codec.from_dict`)."""
    return _default.from_dict(cls, data)
