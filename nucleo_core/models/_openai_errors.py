"""nucleo's typed errors for the ``openai`` SDK's, and which of them are retried.

The SDK is built with ``max_retries=0``; nucleo retries itself (`nucleo_core.models._retry`). A
5xx whose body is a validation report is deterministic and raised at once (`retryable`). An
error's message is the server's own (`nucleo_core.models._openai_error_body`), with the key
scrubbed out in case the server echoed it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from nucleo_core.errors import (
    ModelConnectionError,
    ModelError,
    ModelRequestRejected,
    ModelResponseMalformed,
    ModelServerError,
)
from nucleo_core.models._openai_error_body import provider_message, validation_issues
from nucleo_core.models._retry import is_transient
from nucleo_core.models._retry_after import rate_limited

if TYPE_CHECKING:
    import openai

__all__ = ["OpenAIErrors", "retryable"]

#: Anything shaped like an OpenAI secret key, masked in error messages even when the provider
#: echoed only part of it.
_SECRET_KEY_PATTERN = re.compile(r"\bsk-[A-Za-z0-9_\-*.]{4,}")


def retryable(error: ModelError) -> bool:
    """Transient, and not a 5xx whose body names its cause (it would answer the same again)."""
    cause = error.__cause__
    body = getattr(cause, "body", None)
    return is_transient(error) and not (
        isinstance(error, ModelServerError) and validation_issues(body)
    )


@dataclass(frozen=True, slots=True)
class OpenAIErrors:
    """The errors of one client: named for its provider and endpoint, never showing its key.

    Attributes:
        provider: The name errors carry (``ModelError.provider``).
        endpoint: The server's URL, printable (no user info, no query).
        secret: The key sent, scrubbed from every message; ``None`` when none was given.
    """

    provider: str
    endpoint: str
    secret: str | None

    @contextmanager
    def translated(self) -> Iterator[None]:
        """Raise nucleo's typed errors for the SDK's, each chained to the original."""
        import openai

        try:
            yield
        except openai.APIResponseValidationError as exc:
            raise self.malformed("the reply does not fit the chat completion format") from exc
        except openai.APIStatusError as exc:
            raise self.status_error(exc) from exc
        except openai.APIConnectionError as exc:
            raise ModelConnectionError(
                f"Could not reach {self.provider} at {self.endpoint}: {exc.message}",
                provider=self.provider,
            ) from exc
        except openai.APIError as exc:
            # An error event inside a stream that had started well.
            raise ModelServerError(
                f"{self.provider} reported an error mid-stream: {self.scrub(exc.message)}",
                provider=self.provider,
            ) from exc
        except openai.OpenAIError as exc:
            raise ModelError(
                f"The openai SDK failed talking to {self.provider}: {self.scrub(str(exc))}",
                provider=self.provider,
            ) from exc
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise self.malformed("the reply is not valid JSON") from exc
        except RecursionError as exc:
            # A stream event nesting too deep for the SDK's JSON decoding (a whole reply is
            # read by `parse_reply` instead): the stream cannot be read on.
            raise self.malformed("the reply nests its JSON too deeply") from exc

    def status_error(self, exc: openai.APIStatusError) -> ModelError:
        """The nucleo error for an HTTP error status."""
        status = exc.status_code
        said = self.scrub(provider_message(exc.body))
        if status == 429:
            return rate_limited(
                f"{self.provider} rate-limited the request (HTTP 429): {said}",
                provider=self.provider,
                status=status,
                headers=exc.response.headers,
            )
        if status >= 500:
            failed = "refused the request" if validation_issues(exc.body) else "failed"
            return ModelServerError(
                f"{self.provider} {failed} (HTTP {status}): {said}",
                provider=self.provider,
                status=status,
            )
        return ModelRequestRejected(
            f"{self.provider} rejected the request (HTTP {status}): {said}",
            provider=self.provider,
            status=status,
        )

    def malformed(self, what: str) -> ModelResponseMalformed:
        """The error for a reply that cannot be read, saying ``what`` is wrong with it."""
        return ModelResponseMalformed(
            f"Could not read the reply of {self.provider} at {self.endpoint}: {what}",
            provider=self.provider,
        )

    def scrub(self, text: str) -> str:
        """``text`` without the key, in case the provider echoed it."""
        if self.secret:
            text = text.replace(self.secret, "***")
        return _SECRET_KEY_PATTERN.sub("sk-***", text)
