"""Retries of one model request, done by nucleo rather than by the SDKs, and each one logged.

The SDKs retry silently and by their own rules (a deterministic 500 is retried like any other);
the adapters build their SDK clients with ``max_retries=0`` and retry here instead, so that:

- every retry is a ``WARNING`` on the ``nucleo.models.<provider>`` logger, saying what failed,
  which retry this is and how long it waits;
- an error that will not change on a retry (a 4xx other than 408, 409 and 429; a 5xx whose body
  names the cause, such as a validation report; an unreadable reply) is raised at once;
- a stream is retried only while nothing of it was yielded, so no text is ever shown twice.

The wait is the provider's ``retry-after`` when it gave one (at most `MAX_WAIT`), else an
exponential backoff with jitter: 0.5 s, 1 s, 2 s ... at most 8 s.

Both adapters are `RetriedAttempts`: each writes one attempt of an exchange, and its
``complete`` and ``stream`` are those attempts, retried here.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import AsyncGenerator, Awaitable, Callable
from contextlib import aclosing
from typing import TYPE_CHECKING, TypeVar

from nucleo_core.errors import (
    ModelConnectionError,
    ModelError,
    ModelRateLimited,
    ModelRequestRejected,
    ModelServerError,
)

if TYPE_CHECKING:
    from nucleo_core.models.client import StreamEvent
    from nucleo_core.models.request import ModelRequest, ModelResponse

__all__ = [
    "MAX_WAIT",
    "RetriedAttempts",
    "is_transient",
    "logger_for",
    "retried",
    "retried_stream",
]

T = TypeVar("T")

#: The longest wait between two attempts, whatever a provider's ``retry-after`` asked.
MAX_WAIT = 60.0
_BACKOFF_START = 0.5
_BACKOFF_MAX = 8.0
#: 4xx statuses that may succeed when sent again (timeout, conflict); 429 is rate limiting.
_TRANSIENT_4XX = frozenset({408, 409})


def logger_for(provider: str) -> logging.Logger:
    """The logger an adapter's retries go to: ``nucleo.models.<provider>``."""
    return logging.getLogger(f"nucleo.models.{provider}")


def is_transient(error: ModelError) -> bool:
    """Whether ``error`` may go away when the same request is sent again."""
    if isinstance(error, ModelConnectionError | ModelRateLimited):
        return True
    if isinstance(error, ModelServerError):
        return error.status != 501  # Not Implemented stays so
    if isinstance(error, ModelRequestRejected):
        return error.status in _TRANSIENT_4XX
    return False  # a reply that cannot be read, or an SDK failure: the same next time


def _wait(error: ModelError, retry: int) -> float:
    if isinstance(error, ModelRateLimited) and error.retry_after is not None:
        return min(error.retry_after, MAX_WAIT)
    backoff = min(_BACKOFF_START * 2.0 ** (retry - 1), _BACKOFF_MAX)
    return backoff * (0.75 + random.random() / 4)  # jitter: clients that failed together part


async def _before_retry(
    error: ModelError,
    retry: int,
    retries: int,
    logger: logging.Logger,
    retryable: Callable[[ModelError], bool],
) -> None:
    """Wait before retry number ``retry``, or raise ``error`` when it is not to be retried."""
    if retry > retries or not retryable(error):
        raise error
    delay = _wait(error, retry)
    logger.warning("%s; retry %d of %d in %.1f s", error, retry, retries, delay)
    await asyncio.sleep(delay)


async def retried(
    send: Callable[[], Awaitable[T]],
    *,
    retries: int,
    logger: logging.Logger,
    retryable: Callable[[ModelError], bool] = is_transient,
) -> T:
    """``await send()``, sent again up to ``retries`` times while it fails transiently.

    Raises:
        ModelError: The last attempt's error, or the first that is not to be retried.
    """
    retry = 0
    while True:
        try:
            return await send()
        except ModelError as error:
            retry += 1
            await _before_retry(error, retry, retries, logger, retryable)


async def retried_stream(
    open_stream: Callable[[], AsyncGenerator[T, None]],
    *,
    retries: int,
    logger: logging.Logger,
    retryable: Callable[[ModelError], bool] = is_transient,
) -> AsyncGenerator[T, None]:
    """The events of ``open_stream()``, opened again while it fails before its first event.

    Raises:
        ModelError: An error once an event was yielded, the last attempt's, or the first that
            is not to be retried.
    """
    retry = 0
    while True:
        started = False
        try:
            async with aclosing(open_stream()) as events:
                async for event in events:
                    started = True
                    yield event
            return
        except ModelError as error:
            if started:
                raise
            retry += 1
            await _before_retry(error, retry, retries, logger, retryable)


class RetriedAttempts:
    """Mixin of the adapters: an exchange is one attempt, sent again while it fails transiently.

    A subclass sets ``_retries`` (how many retries) and ``_logger`` (`logger_for` its provider),
    writes one attempt of each exchange (`_complete_once`, `_stream_once`), may narrow which
    errors are retried (`_retryable`), and answers ``complete`` with `_completed` and ``stream``
    with `_streamed`.
    """

    __slots__ = ()

    _retries: int
    _logger: logging.Logger

    def _retryable(self, error: ModelError) -> bool:
        """Whether ``error`` is retried: by default when it is transient (`is_transient`)."""
        return is_transient(error)

    async def _complete_once(self, request: ModelRequest) -> ModelResponse:
        """Send ``request`` once and return the whole response."""
        raise NotImplementedError

    def _stream_once(self, request: ModelRequest) -> AsyncGenerator[StreamEvent, None]:
        """Send ``request`` once and yield its events."""
        raise NotImplementedError

    async def _completed(self, request: ModelRequest) -> ModelResponse:
        """`_complete_once`, retried (see `retried`)."""
        return await retried(
            lambda: self._complete_once(request),
            retries=self._retries,
            logger=self._logger,
            retryable=self._retryable,
        )

    def _streamed(self, request: ModelRequest) -> AsyncGenerator[StreamEvent, None]:
        """`_stream_once`, opened again while it fails before its first event (`retried_stream`)."""
        return retried_stream(
            lambda: self._stream_once(request),
            retries=self._retries,
            logger=self._logger,
            retryable=self._retryable,
        )
