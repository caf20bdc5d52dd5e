"""``async with`` support for the objects that own resources and release them in ``aclose()``.

The asynchronous twin of `nucleo_core._closing.ClosesOnExit`. It lives in the models layer, the
lowest that needs it (the provider adapters); the MCP pool and servers and the gateway's stdio
streams, higher up, use it too. It belongs beside ``ClosesOnExit`` in the foundation.
"""

from __future__ import annotations

from types import TracebackType
from typing import Self

__all__ = ["AsyncClosesOnExit"]


class AsyncClosesOnExit:
    """Mixin: ``async with obj:`` returns ``obj`` and awaits ``obj.aclose()`` on the way out.

    A class that releases its resources under another name sets ``_aclose_on_exit`` to that
    coroutine method's name. A class whose entry does more (binds an event loop) overrides
    ``__aenter__`` alone. Exceptions are never swallowed.
    """

    __slots__ = ()

    _aclose_on_exit: str = "aclose"

    async def __aenter__(self) -> Self:
        """Enter an ``async with`` block that closes the object on exit."""
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        """Close the object."""
        await getattr(self, self._aclose_on_exit)()
