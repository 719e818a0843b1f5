"""Every exception multiqa raises on purpose, and why an event could not be encoded or decoded.

multiqa's exceptions share one root, `MultiqaError`; a failure the operator can act on is an
`OperatorError`, whose str() is the whole explanation: `multiqa <command>` prints it as ONE line
`multiqa <command>: error: <reason>` and exits 1 (streams.cli._command.run_command), so a new
one needs no list to be added to. Builtin bases stay where callers catch them (ValueError,
RuntimeError, ...). tests/test_errors.py checks that this drawing is the real tree.

    MultiqaError
    ├── OperatorError                      one line on the command line, exit 1
    │   ├── CommandError                   streams.cli._command: a command's own refusal
    │   ├── ConfigError (ValueError)       streams.runtime.config: a bad MULTIQA_* value
    │   ├── SettingsError (ValueError)     agents.settings: a setting outside its rules
    │   ├── BrokerUnavailableError (ConnectionError)  streams.client: Kafka does not answer
    │   ├── DraftTooLargeError (ValueError)  streams.client: a draft over a size limit
    │   ├── TopicMissingError (LookupError)  streams.client: the topic to publish to is missing
    │   ├── TopicSetupError (RuntimeError) streams.runtime.topics: a topic of the wrong layout
    │   ├── MigrationError (RuntimeError)  streams.runtime.db: a migration failed
    │   ├── DevStackError (RuntimeError)   streams.devstack: the local stack cannot start or stop
    │   │   └── ModelUnavailable           the local model server is not installed or not up
    │   ├── EvalError                      agents.evaluation: the labelled corpus cannot be read
    │   ├── RereviewError (RuntimeError)   streams.history: a re-review that cannot go on
    │   ├── OpsServerError (RuntimeError)  streams.runtime.observe: the operations port is taken
    │   ├── GroupsNotReadyError (RuntimeError)  streams.runtime._groups: workers not ready
    │   └── FilterError (ValueError)       streams.ui: a decisions filter that does not parse
    ├── CodecError (ValueError)            schemas: this message is bad (the codec's tree below)
    │   ├── BadMagicError
    │   ├── UnknownSchemaError
    │   ├── WrongRecordTypeError
    │   ├── TruncatedError
    │   ├── TrailingBytesError
    │   ├── CorruptBodyError
    │   └── InvalidRecordError
    │       └── OversizeError
    ├── SchemaRegistryError (RuntimeError) schemas: the registry is unreachable (retry)
    ├── SchemaDriftError (TypeError)       schemas: a record class and its schema disagree (a bug)
    ├── FieldError                         schemas: a value that does not fit its field (internal)
    ├── NotFast                            schemas._fastread: take the full decode path (internal)
    ├── ReviewerRegistryError              agents.reviewers: the list and the modules disagree
    ├── FetchError                         agents.net: a draft's URL could not be fetched
    │   └── URLRefused                     the guard refused it (scheme, address, port, size)
    ├── LLMError                           agents.llm: a model call failed
    │   ├── LLMUnavailable                 no model server, or it does not serve the model
    │   │   └── LLMMisconfigured           a missing key or a bad model name
    │   ├── LLMTimeout
    │   ├── LLMResponseTooLarge
    │   └── LLMBadResponse
    ├── AnswerError (ValueError)           agents.llm: a model answer that does not parse
    ├── BodyTooLarge                       agents.llm: a model server's answer over the cap
    ├── SearchUnavailable                  agents.reviewers.factcheck: search is down
    ├── FactsUnavailable                   agents.facts: fact_overrides cannot be read
    ├── ImageProblem (ValueError)          agents.reviewers.vision: an image it cannot judge
    ├── PreviewError                       agents.reviewers.preview: the page cannot render
    ├── SinkError (RuntimeError)           streams.runtime.sinks: a write failed for good
    └── HandleFailedError (RuntimeError)   streams.runtime._guard: an event it could not apply

The codec

Every problem with a payload or a record raises one subclass of `CodecError`; nothing else comes
out of `encode`/`decode` (never a bare KeyError, struct.error, EOFError or UnicodeDecodeError).
The stream routes exactly these to the dead-letter topic: they mean "this message is bad", never
"try again later".

    CodecError (ValueError)           .reason, .offset, .field
    ├── BadMagicError                 the first bytes are neither C3 01 nor 00 (Confluent)
    ├── UnknownSchemaError            fingerprint / registry id names no writer schema we can get
    ├── WrongRecordTypeError          a known schema, but another record than the one expected
    ├── TruncatedError                the payload ends before the record does
    ├── TrailingBytesError            bytes are left over after the record
    ├── CorruptBodyError              not valid Avro for its writer schema (bad UTF-8, union or enum
    │                                 index out of range, negative length, timestamp out of range)
    └── InvalidRecordError            schema-valid but semantically invalid (score outside 0-100,
        │                             empty draft_id, version < 1, NaN, naive timestamp, ...)
        └── OversizeError             a field or the whole payload over the configured maximum

    SchemaRegistryError (RuntimeError) — deliberately NOT a CodecError: the schema registry could
    not be reached or answered an error. The message may be fine; retry, do not dead-letter.

`offset` is the byte offset in the payload where the problem was found (None when encoding: there
is no payload yet). For body errors it is where the offending top-level field starts, except for
TruncatedError, where it is the payload length (where more bytes were needed). `field` is the
dotted path of the offending field (`findings[2].span.start`) when one is known.
"""

from __future__ import annotations

__all__ = [
    "BadMagicError",
    "CodecError",
    "CorruptBodyError",
    "InvalidRecordError",
    "MultiqaError",
    "OperatorError",
    "OversizeError",
    "SchemaRegistryError",
    "TrailingBytesError",
    "TruncatedError",
    "UnknownSchemaError",
    "WrongRecordTypeError",
]


class MultiqaError(Exception):
    """Base of every exception multiqa raises on purpose (the tree is drawn above)."""


class OperatorError(MultiqaError):
    """A failure the operator can act on (a bad setting or option, a server that does not answer,
    a missing file); its str() is the one line the command line prints."""


class CodecError(MultiqaError, ValueError):
    """Base of every encode/decode failure caused by the payload or the record itself."""

    def __init__(self, reason: str, *, offset: int | None = None, field: str | None = None) -> None:
        self.reason = reason
        self.offset = offset
        self.field = field
        where = []
        if field is not None:
            where.append(f"field {field!r}")
        if offset is not None:
            where.append(f"byte {offset}")
        super().__init__(f"{reason} ({', '.join(where)})" if where else reason)

    def __reduce__(self) -> tuple[object, ...]:
        # Keyword-only arguments do not survive the default pickling of exceptions.
        return (_rebuild, (type(self), self.reason, self.offset, self.field))


def _rebuild(
    cls: type[CodecError], reason: str, offset: int | None, field: str | None
) -> CodecError:
    return cls(reason, offset=offset, field=field)


class BadMagicError(CodecError):
    """The payload does not start with a magic this codec knows."""


class UnknownSchemaError(CodecError):
    """The writer schema named by the payload is not known (and no registry knows it either)."""


class WrongRecordTypeError(CodecError):
    """The payload is a valid event, but of another record type than the caller expected."""


class TruncatedError(CodecError):
    """The payload ends before the record does."""


class TrailingBytesError(CodecError):
    """Bytes are left over after the record was read."""


class CorruptBodyError(CodecError):
    """The body is not valid Avro for its writer schema."""


class InvalidRecordError(CodecError):
    """The record fits its schema but breaks a rule of the contract."""


class OversizeError(InvalidRecordError):
    """A field, or the whole payload, is larger than the configured maximum."""


class SchemaRegistryError(MultiqaError, RuntimeError):
    """The schema registry could not be reached or answered with an error (transient: retry)."""
