"""``with`` support for the objects that own resources and release them in ``close()``."""

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
