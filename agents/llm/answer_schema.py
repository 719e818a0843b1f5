"""Building blocks of the answer schemas each LLM reviewer defines beside the class that reads it.

One schema serves all three structured-output mechanisms (Ollama `format`, OpenAI
`response_format` json_schema strict, Anthropic's tool `input_schema`), so it keeps to what the
strictest of them accepts: every property required, `additionalProperties: false`.

Every string and list is bounded (`maxLength`, `maxItems`). A server that enforces the schema by
grammar lets a small model loop inside an unbounded string until the token budget runs out; with a
bound, the grammar closes the string. The readers cut at the same limits (`read_text(limit=...)`,
`read_list(limit=...)`), for servers that ignore the schema.
"""

from __future__ import annotations

from typing import Any


def answer_object(**properties: dict[str, Any]) -> dict[str, Any]:
    """An object schema whose properties are all required, and nothing else allowed."""
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


def text(max_length: int) -> dict[str, Any]:
    return {"type": "string", "maxLength": max_length}


def flag() -> dict[str, Any]:
    return {"type": "boolean"}


def score() -> dict[str, Any]:
    """A 0-100 number. The bounds are a request: the reader still refuses 150 from a server that
    does not enforce them."""
    return {"type": "number", "minimum": 0, "maximum": 100}


def items(of: dict[str, Any], max_items: int, *, min_items: int = 0) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "array", "items": of, "maxItems": max_items}
    if min_items:
        schema["minItems"] = min_items
    return schema


def unbounded(schema: dict[str, Any]) -> list[str]:
    """Paths of strings and lists in `schema` that have no maxLength / maxItems (tests use it to
    hold every answer schema to the rule above)."""
    found: list[str] = []

    def walk(node: Any, path: str) -> None:
        if not isinstance(node, dict):
            return
        kind = node.get("type")
        if kind == "string" and "maxLength" not in node and "enum" not in node:
            found.append(path or "$")
        if kind == "array":
            if "maxItems" not in node:
                found.append(path or "$")
            walk(node.get("items"), f"{path}[]")
        for name, child in (node.get("properties") or {}).items():
            walk(child, f"{path}.{name}" if path else name)

    walk(schema, "")
    return found
