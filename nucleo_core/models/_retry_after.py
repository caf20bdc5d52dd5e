"""How long a rate-limited provider asked to wait, read from its response headers.

`rate_limited` builds the error both adapters raise for a rate-limited request, with that wait.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

from nucleo_core.errors import ModelRateLimited

__all__ = ["rate_limited", "retry_after"]


def retry_after(headers: Mapping[str, str]) -> float | None:
    """Seconds the provider asked to wait: ``retry-after-ms``, else ``retry-after``.

    ``retry-after`` is either seconds or an HTTP date (RFC 9110 §10.2.3); a date in the past
    means zero, and a value that is neither means the provider did not say (``None``).
    ``retry-after-ms`` is the non-standard header OpenAI and Anthropic also send.
    """
    milliseconds = headers.get("retry-after-ms")
    if milliseconds is not None:
        try:
            delay = float(milliseconds) / 1000
        except ValueError:
            pass
        else:
            if math.isfinite(delay):
                return max(delay, 0.0)
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        delay = float(value)
    except ValueError:
        try:
            when = parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)  # "-0000": a date in UTC, zone not given
        delay = (when - datetime.now(UTC)).total_seconds()
    if not math.isfinite(delay):
        return None
    return max(delay, 0.0)


def rate_limited(
    message: str, *, provider: str, status: int | None, headers: Mapping[str, str] | None
) -> ModelRateLimited:
    """The error for a rate-limited request, saying how long the provider asked to wait.

    Args:
        message: What happened, in the adapter's words.
        provider: The provider the error names.
        status: The HTTP status, or ``None`` for an error event inside a stream.
        headers: The response's headers, read by `retry_after`; ``None`` when there are none to
            read (an error event inside a stream).
    """
    wait = None if headers is None else retry_after(headers)
    if wait is not None:
        message += f"; retry after {wait:g}s"
    return ModelRateLimited(message, provider=provider, status=status, retry_after=wait)
