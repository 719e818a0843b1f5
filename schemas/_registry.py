"""A small client for a Confluent-compatible schema registry (only what the codec needs).

Two calls of the Schema Registry REST API: register a schema under a subject (idempotent: the
registry returns the existing id for a schema it already has), and fetch a schema by id. Both are
cached for the life of the client, so a running worker asks once per schema. The client is
synchronous on purpose: Faust serializers are synchronous, and the lookups happen once per schema.
"""

from __future__ import annotations

import json
import threading
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

if TYPE_CHECKING:
    import httpx

from schemas._errors import SchemaRegistryError

__all__ = ["SchemaRegistry"]

_CONTENT_TYPE = "application/vnd.schemaregistry.v1+json"


class SchemaRegistry:
    """`SchemaRegistry("http://registry:8081")`; pass `client=` to share or configure an
    httpx.Client (auth, TLS, proxies)."""

    def __init__(
        self,
        url: str,
        *,
        client: httpx.Client | None = None,
        timeout: float = 10.0,
    ) -> None:
        # httpx loads here, not with the codec: every command that decodes an event imports
        # schemas, and httpx (with its CLI extras) is a good part of their start-up.
        import httpx

        self.url = url.rstrip("/")
        self._client = client or httpx.Client(timeout=timeout)
        self._owns_client = client is None
        self._ids: dict[tuple[str, str], int] = {}
        self._schemas: dict[int, str] = {}
        self._lock = threading.Lock()

    def register(self, subject: str, schema: str) -> int:
        """The registry id of `schema` (Avro JSON text) under `subject`, registering it if new."""
        cached = self._ids.get((subject, schema))
        if cached is not None:
            return cached
        body = self._request(
            "POST",
            f"/subjects/{quote(subject, safe='')}/versions",
            json={"schema": schema},
        )
        schema_id = body.get("id") if isinstance(body, dict) else None
        if not isinstance(schema_id, int):
            raise SchemaRegistryError(f"registry answered without an id: {body!r:.200}")
        with self._lock:
            self._ids[(subject, schema)] = schema_id
            self._schemas[schema_id] = schema
        return schema_id

    def schema(self, schema_id: int) -> str | None:
        """The Avro JSON text registered under `schema_id`, or None if the registry has no such
        schema. Raises SchemaRegistryError when the registry cannot tell."""
        cached = self._schemas.get(schema_id)
        if cached is not None:
            return cached
        body = self._request("GET", f"/schemas/ids/{schema_id}", missing_ok=True)
        if body is None:
            return None
        text = body.get("schema") if isinstance(body, dict) else None
        if not isinstance(text, str):
            raise SchemaRegistryError(f"registry answered without a schema: {body!r:.200}")
        with self._lock:
            self._schemas[schema_id] = text
        return text

    def close(self) -> None:
        if self._owns_client:
            self._client.close()

    def __enter__(self) -> SchemaRegistry:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _request(self, method: str, path: str, *, missing_ok: bool = False, **kw: Any) -> Any:
        import httpx

        try:
            response = self._client.request(
                method,
                self.url + path,
                headers={"Accept": _CONTENT_TYPE, "Content-Type": _CONTENT_TYPE},
                **kw,
            )
        except httpx.HTTPError as exc:
            raise SchemaRegistryError(f"schema registry {self.url} unreachable: {exc}") from exc
        if response.status_code == 404 and missing_ok:
            return None
        try:
            body = response.json()
        except (json.JSONDecodeError, UnicodeDecodeError):
            body = response.text[:200]
        if response.is_error:
            raise SchemaRegistryError(
                f"schema registry {method} {path} failed with {response.status_code}: {body!r:.300}"
            )
        return body
