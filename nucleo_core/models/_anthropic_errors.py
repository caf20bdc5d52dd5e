"""nucleo's typed errors for what the ``anthropic`` SDK and its transport raise.

Every SDK or transport exception becomes one of `nucleo_core.errors`' ``Model*`` errors, chained
with ``from``; an ``error`` event inside a stream (on a 200 response) is told by its type.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from nucleo_core.errors import (
    ModelConnectionError,
    ModelError,
    ModelRequestRejected,
    ModelResponseMalformed,
    ModelServerError,
)
from nucleo_core.models._anthropic_names import API_KEY_ENV, PROVIDER
from nucleo_core.models._retry_after import rate_limited

if TYPE_CHECKING:
    import httpx2
    from anthropic import APIStatusError

__all__ = ["malformed", "translatable", "translate"]

# In-stream ``error`` events arrive on a 200 response; their ``error.type`` says who is at fault.
_CLIENT_ERROR_TYPES: Final = frozenset(
    {
        "invalid_request_error",
        "authentication_error",
        "billing_error",
        "permission_error",
        "not_found_error",
    }
)


def malformed(problem: str) -> ModelResponseMalformed:
    """The error for a reply that cannot be read, saying what is wrong with it."""
    return ModelResponseMalformed(
        f"Anthropic's reply could not be read: {problem}", provider=PROVIDER
    )


def translatable() -> tuple[type[Exception], ...]:
    """The exceptions an SDK call can raise that `translate` turns into nucleo's.

    Beside the SDK's own errors: the SDK lets a JSON decoding error of the body out as a raw
    ``ValueError``, a transport failure while a stream is read as a raw ``httpx2`` error, and
    a stream with events out of order as ``LookupError``/``AttributeError``/``TypeError``
    from its accumulator.
    """
    import anthropic
    import httpx2

    return (
        anthropic.AnthropicError,
        httpx2.HTTPError,
        httpx2.StreamError,
        ValueError,
        LookupError,
        AttributeError,
        TypeError,
    )


def translate(exc: Exception) -> ModelError:
    """The nucleo error for an exception an SDK call raised."""
    import anthropic
    import httpx2

    if isinstance(exc, anthropic.APIStatusError):
        return _status_error(exc)
    if isinstance(exc, anthropic.APITimeoutError):
        return ModelConnectionError(
            f"The Anthropic API at {_host(exc.request)} did not answer in time", provider=PROVIDER
        )
    if isinstance(exc, anthropic.APIConnectionError):
        cause = exc.__cause__
        reason = f": {type(cause).__name__}: {cause}" if cause is not None else ""
        return ModelConnectionError(
            f"Could not reach the Anthropic API at {_host(exc.request)}{reason}",
            provider=PROVIDER,
        )
    if isinstance(exc, anthropic.APIResponseValidationError):
        return ModelResponseMalformed(
            f"Anthropic's reply (HTTP {exc.status_code}) did not fit the Messages API schema",
            provider=PROVIDER,
            status=exc.status_code,
        )
    if isinstance(exc, httpx2.TimeoutException):
        return ModelConnectionError(
            "The Anthropic API stopped answering mid-stream (timed out)", provider=PROVIDER
        )
    if isinstance(exc, httpx2.TransportError):
        return ModelConnectionError(
            f"The connection to the Anthropic API failed mid-stream: {type(exc).__name__}: {exc}",
            provider=PROVIDER,
        )
    if isinstance(exc, anthropic.AnthropicError):
        return ModelError(f"The Anthropic SDK failed: {type(exc).__name__}", provider=PROVIDER)
    # What is left is the SDK failing to decode or assemble the body it was sent.
    return ModelResponseMalformed(
        f"Anthropic's reply could not be decoded ({type(exc).__name__}); "
        "it is not the Messages API's JSON or event stream",
        provider=PROVIDER,
    )


def _status_error(exc: APIStatusError) -> ModelError:
    """The nucleo error for an HTTP error status, or for an ``error`` event inside a stream."""
    status = exc.status_code
    error_type = exc.type or "no error type"
    detail = exc.api_message or "no message"
    request_id = f" [request-id {exc.request_id}]" if exc.request_id else ""
    in_stream = status < 400
    where = "in its event stream" if in_stream else f"HTTP {status}"
    message = f"Anthropic API error ({where}): {error_type}: {detail}{request_id}"
    http_status = None if in_stream else status

    if status == 429 or (in_stream and exc.type == "rate_limit_error"):
        return rate_limited(
            message,
            provider=PROVIDER,
            status=http_status,
            headers=None if in_stream else exc.response.headers,
        )
    if status >= 500 or (in_stream and exc.type not in _CLIENT_ERROR_TYPES):
        return ModelServerError(message, provider=PROVIDER, status=http_status)
    if status in (401, 403):
        message += f"; check the API key ({API_KEY_ENV}) and its permissions"
    return ModelRequestRejected(message, provider=PROVIDER, status=http_status)


def _host(request: httpx2.Request) -> str:
    """Where a request went, without path or query (which could carry anything)."""
    url = request.url
    port = f":{url.port}" if url.port is not None else ""
    return f"{url.scheme}://{url.host}{port}"
