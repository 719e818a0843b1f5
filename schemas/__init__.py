"""multiqa event contracts: Avro schemas (in `avro/`), their Python records, and the codec.

    from schemas import decode, encode, ReviewerResult

    data = encode(result)                       # C3 01 | fingerprint | Avro body
    result = decode(data, expected=ReviewerResult)

Every failure to decode or encode raises a `CodecError` subclass; those are what the stream routes
to the dead-letter topic. Every exception multiqa raises on purpose is a `MultiqaError`, and one
the operator can act on an `OperatorError` (the whole tree is drawn in `schemas._errors`).

The exceptions load with the package (they are light, and every layer raises them); the codec and
the records load on first use (PEP 562), so that the command line can name an error without
loading fastavro and the schemas.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from schemas._errors import (
    BadMagicError,
    CodecError,
    CorruptBodyError,
    InvalidRecordError,
    MultiqaError,
    OperatorError,
    OversizeError,
    SchemaRegistryError,
    TrailingBytesError,
    TruncatedError,
    UnknownSchemaError,
    WrongRecordTypeError,
)

if TYPE_CHECKING:
    from schemas._codec import Codec, Event, decode, decoder, encode, from_dict, to_dict
    from schemas._registry import SchemaRegistry
    from schemas._validate import Limits
    from schemas.records import (
        Cost,
        DeadLetter,
        DraftSubmitted,
        Finding,
        Provider,
        QADecision,
        ReviewerResult,
        ReviewStatus,
        ReviewSummary,
        Severity,
        Span,
        utc_now,
    )

_LAZY = {
    **dict.fromkeys(
        ("Codec", "Event", "decode", "decoder", "encode", "from_dict", "to_dict"), "_codec"
    ),
    "SchemaRegistry": "_registry",
    "Limits": "_validate",
    **dict.fromkeys(
        (
            "Cost",
            "DeadLetter",
            "DraftSubmitted",
            "Finding",
            "Provider",
            "QADecision",
            "ReviewerResult",
            "ReviewStatus",
            "ReviewSummary",
            "Severity",
            "Span",
            "utc_now",
        ),
        "records",
    ),
}

__all__ = [
    "BadMagicError",
    "Codec",
    "CodecError",
    "CorruptBodyError",
    "Cost",
    "DeadLetter",
    "DraftSubmitted",
    "Event",
    "Finding",
    "InvalidRecordError",
    "Limits",
    "MultiqaError",
    "OperatorError",
    "OversizeError",
    "Provider",
    "QADecision",
    "ReviewStatus",
    "ReviewSummary",
    "ReviewerResult",
    "SchemaRegistry",
    "SchemaRegistryError",
    "Severity",
    "Span",
    "TrailingBytesError",
    "TruncatedError",
    "UnknownSchemaError",
    "WrongRecordTypeError",
    "decode",
    "decoder",
    "encode",
    "from_dict",
    "to_dict",
    "utc_now",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'schemas' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"schemas.{module}"), name)
    globals()[name] = value  # next time a plain attribute
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})
