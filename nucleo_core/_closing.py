"""``with`` and ``async with`` for the objects that release their resources in ``close()``."""

from __future__ import annotations

from types import TracebackType
from typing import Self


class ClosesOnExit:
    """Mixin: ``with obj:`` returns ``obj`` and calls ``obj.close()`` on the way out.

    A class that releases its resources under another name sets ``_close_on_exit`` to that
    method's name (``ConversationService`` closes with ``shutdown``). Exceptions are never
    swallowed.
    """

    __slots__ = ()

    _close_on_exit: str = "close"

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        getattr(self, self._close_on_exit)()


class AsyncClosesOnExit:
    """Mixin: ``async with obj:`` returns ``obj`` and awaits ``obj.aclose()`` on the way out.

    The asynchronous twin of `ClosesOnExit`. A class that releases its resources under another
    name sets ``_aclose_on_exit`` to that coroutine method's name. A class whose entry does
    more (binds an event loop) overrides ``__aenter__`` alone. Exceptions are never swallowed.
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
