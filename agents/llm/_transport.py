"""An HTTP transport that stops reading a response body at a byte limit.

The model clients read whole bodies into memory (the ollama client with `httpx`, the anthropic SDK
with its `httpx2` fork); a model or proxy that answers 10 MB, or never stops, must not be able to
fill memory. The limit is enforced while the body streams in, so an oversized answer costs at most
`limit` bytes of reading. Both libraries share httpx's transport API, so one implementation serves
both: pass the library module.
"""

from __future__ import annotations

import ssl
from collections.abc import AsyncIterator
from functools import cache
from types import ModuleType
from typing import Any

import certifi

from schemas import MultiqaError


class BodyTooLarge(MultiqaError):
    """Raised from inside the response stream; the clients let it propagate (possibly wrapped)."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"response larger than {limit} bytes")
        self.limit = limit


def capped_transport(httpx_module: ModuleType, limit: int) -> Any:
    """A `httpx_module.AsyncHTTPTransport` whose response bodies are cut off at `limit` bytes."""
    base_stream: Any = httpx_module.AsyncByteStream
    base_transport: Any = httpx_module.AsyncBaseTransport

    class _CappedStream(base_stream):  # type: ignore[misc]
        def __init__(self, inner: Any) -> None:
            self._inner = inner

        async def __aiter__(self) -> AsyncIterator[bytes]:
            seen = 0
            async for chunk in self._inner:
                seen += len(chunk)
                if seen > limit:
                    raise BodyTooLarge(limit)
                yield chunk

        async def aclose(self) -> None:
            await self._inner.aclose()

    class _CappedTransport(base_transport):  # type: ignore[misc]
        def __init__(self) -> None:
            self._inner = httpx_module.AsyncHTTPTransport(retries=0, verify=_tls_context())

        async def handle_async_request(self, request: Any) -> Any:
            response = await self._inner.handle_async_request(request)
            declared = response.headers.get("content-length", "")
            if declared.isdigit() and int(declared) > limit:
                await response.aclose()
                raise BodyTooLarge(limit)
            return httpx_module.Response(
                status_code=response.status_code,
                headers=response.headers,
                stream=_CappedStream(response.stream),
                extensions=response.extensions,
            )

        async def aclose(self) -> None:
            await self._inner.aclose()

    return _CappedTransport()


@cache
def _tls_context() -> ssl.SSLContext:
    """One TLS context for every model call: loading the CA bundle costs ~20 ms, and clients are
    made per call. A context holds no connection or loop state, so sharing it is safe."""
    return ssl.create_default_context(cafile=certifi.where())


def find_cause(exc: BaseException, kind: type[BaseException]) -> BaseException | None:
    """The first exception of type `kind` in `exc`'s cause/context chain (SDKs wrap errors)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, kind):
            return current
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None
