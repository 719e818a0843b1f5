"""multiqa event contracts: Avro schemas (in `avro/`), their Python records, and the codec.

    from schemas import decode, encode, ReviewerResult

    data = encode(result)                       # C3 01 | fingerprint | Avro body
    result = decode(data, expected=ReviewerResult)

Every failure to decode or encode raises a `CodecError` subclass (the tree is in
`schemas._errors`); those are what the stream routes to the dead-letter topic.
"""

from schemas._codec import Codec, Event, decode, encode, from_dict, to_dict
from schemas._errors import (
    BadMagicError,
    CodecError,
    CorruptBodyError,
    InvalidRecordError,
    OversizeError,
    SchemaRegistryError,
    TrailingBytesError,
    TruncatedError,
    UnknownSchemaError,
    WrongRecordTypeError,
)
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
    "encode",
    "from_dict",
    "to_dict",
    "utc_now",
]
