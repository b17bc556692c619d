"""A receive-stream proxy: the one place that spells out the anyio receive-stream protocol.

errscope wraps the SDK's read streams in three places (answering malformed frames on the server,
the client's wire tap, the demo's frame injector); each overrides only :meth:`receive`.
"""

from __future__ import annotations

from types import TracebackType
from typing import Any

import anyio

__all__ = ["ReceiveStreamProxy"]


class ReceiveStreamProxy:
    """Delegates everything to ``inner``; iteration goes through :meth:`receive` so subclasses see each item.

    Attributes the proxy lacks (``clone``, ...) are the inner stream's; so is ``last_context``, the
    SDK's per-message sender context.
    """

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    async def receive(self) -> Any:
        return await self._inner.receive()

    def close(self) -> None:
        self._inner.close()

    async def aclose(self) -> None:
        await self._inner.aclose()

    def __aiter__(self) -> ReceiveStreamProxy:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> ReceiveStreamProxy:
        await self._inner.__aenter__()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> bool | None:
        result: bool | None = await self._inner.__aexit__(exc_type, exc, tb)
        return result

    @property
    def last_context(self) -> Any:
        """The inner stream's sender context (mcp's ``ContextReceiveStream``), ``None`` when it has none.

        The SDK reads it for every message as ``getattr(stream, "last_context", None)``
        (``mcp.shared._stream_protocols.ReadStream``): through :meth:`__getattr__` each read would
        first build and drop an ``AttributeError`` on the proxy.
        """
        return getattr(self._inner, "last_context", None)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)
