"""The seam through which tests (yours and nucleo's) supply the model client.

``override_client(client)`` makes every client lookup in the current context (thread or
asyncio task, via a context variable) answer ``client``, without touching any global and
without monkeypatching: ``nucleo_core.testing.ScriptedModel`` is typically what is installed.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from nucleo_core.models.client import ModelClient

__all__ = ["current_override", "override_client"]

_OVERRIDE: ContextVar[ModelClient | None] = ContextVar("nucleo_model_client", default=None)


@contextmanager
def override_client(client: ModelClient) -> Iterator[ModelClient]:
    """Within the ``with`` block, every catalog client lookup answers ``client``."""
    token = _OVERRIDE.set(client)
    try:
        yield client
    finally:
        _OVERRIDE.reset(token)


def current_override() -> ModelClient | None:
    """The client `override_client` installed in this context, if any."""
    return _OVERRIDE.get()
