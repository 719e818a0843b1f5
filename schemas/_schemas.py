"""The Avro schemas multiqa knows: every `avro/<Record>.v<N>.avsc` file, parsed once.

A released file is never edited (its canonical form is pinned in `avro/RELEASED.json` and a test
enforces it); a change is a new file with the next version number. The highest version of each
record is the current reader and writer schema.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fastavro.schema import fingerprint, parse_schema, to_parsing_canonical_form

from schemas.records import DeadLetter, DraftSubmitted, QADecision, ReviewerResult

__all__ = ["RECORD_TYPES", "SCHEMA_DIR", "Schema", "load_dir", "schema_from_json"]

SCHEMA_DIR = Path(__file__).parent / "avro"
RECORD_TYPES: Mapping[str, type[Any]] = {
    cls.__name__: cls for cls in (DraftSubmitted, ReviewerResult, QADecision, DeadLetter)
}
_FILE_NAME = re.compile(r"^(?P<record>[A-Za-z_]\w*)\.v(?P<version>[1-9]\d*)\.avsc$")


@dataclass(frozen=True, eq=False)
class Schema:
    """One writer schema: a file, or a schema a registry handed us."""

    record: str  # short record name, e.g. "ReviewerResult"
    version: int | None  # None when learned from a registry and unknown locally
    source: str
    raw: Mapping[str, Any]  # the JSON as written (with docs)
    parsed: Any  # fastavro's parsed form
    canonical: str  # Parsing Canonical Form
    fingerprint: bytes  # CRC-64-AVRO of `canonical`, the 8 little-endian bytes of the header
    _prefixes: dict[int, Any] = field(default_factory=dict, repr=False)

    @property
    def field_names(self) -> tuple[str, ...]:
        return tuple(f["name"] for f in self.raw["fields"])

    def prefix(self, n: int) -> Any:
        """A parsed record schema of only the first `n` fields: reading it shows where field `n`
        starts, or that one of the first `n` fields is the broken one."""
        parsed = self._prefixes.get(n)
        if parsed is None:
            raw = {k: v for k, v in self.raw.items() if k != "fields"}
            raw["fields"] = list(self.raw["fields"][:n])
            parsed = self._prefixes[n] = parse_schema(raw, named_schemas={})
        return parsed


def schema_from_json(raw: Mapping[str, Any], *, source: str, version: int | None) -> Schema:
    """Parse one schema (raises ValueError/fastavro's SchemaParseException if it is not valid)."""
    if not isinstance(raw, Mapping) or raw.get("type") != "record":
        raise ValueError(f"{source}: an event schema must be a record")
    # A fresh name table per schema: v1 and v2 both define multiqa.events.Finding, etc.
    parsed = parse_schema(dict(raw), named_schemas={})
    canonical = to_parsing_canonical_form(parsed)
    # fastavro renders the fingerprint as hex of the little-endian bytes the header carries.
    return Schema(
        record=str(raw["name"]).rsplit(".", 1)[-1],
        version=version,
        source=source,
        raw=raw,
        parsed=parsed,
        canonical=canonical,
        fingerprint=bytes.fromhex(fingerprint(canonical, "CRC-64-AVRO")),
    )


@functools.lru_cache(maxsize=8)
def load_dir(path: Path = SCHEMA_DIR) -> tuple[Schema, ...]:
    """Every `<Record>.v<N>.avsc` under `path`, sorted by record then version."""
    found = []
    for file in sorted(Path(path).glob("*.avsc")):
        match = _FILE_NAME.match(file.name)
        if match is None:
            raise ValueError(f"{file}: schema files are named <Record>.v<N>.avsc")
        schema = schema_from_json(
            json.loads(file.read_text("utf-8")),
            source=str(file),
            version=int(match["version"]),
        )
        if schema.record != match["record"]:
            raise ValueError(f"{file}: defines {schema.record}, not {match['record']}")
        found.append(schema)
    return tuple(sorted(found, key=lambda s: (s.record, s.version or 0)))
