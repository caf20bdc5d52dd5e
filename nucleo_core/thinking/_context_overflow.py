"""A model error about the context window, told how to make the conversation fit the seat's."""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from nucleo_core.errors import ModelError
    from nucleo_core.models.catalog import ModelEntry

__all__: list[str] = []

logger = logging.getLogger("nucleo.models")

#: How servers say a conversation is longer than their context window (OpenAI, vLLM,
#: llama.cpp and llama-cpp-python, Ollama, LM Studio).
_CONTEXT_OVERFLOW = re.compile(
    r"context[ _](?:window|length|size)|maximum context|n_ctx|too many tokens|prompt is too long",
    re.IGNORECASE,
)
#: The window a server names in such a message: "context window of 2048", "maximum context
#: length is 4096", "n_ctx: 8192".
_CONTEXT_SIZE = re.compile(
    r"(?:context[ _](?:window|length|size)|n_ctx)\D{0,12}?(\d{3,7})\b", re.IGNORECASE
)


def _with_context_hint(error: ModelError, seat: ModelEntry) -> ModelError:
    """``error``, or one like it also saying how to fit the seat's window, when it is about it."""
    said = str(error)
    if not _CONTEXT_OVERFLOW.search(said):
        return error
    found = _CONTEXT_SIZE.search(said)
    window = int(found.group(1)) if found else None
    server = f"the server's window is {window} tokens; " if window else ""
    if window is not None and seat.context_window <= window:
        # Configured right, and still over: the estimate of what the conversation holds does
        # not count the system text and tool definitions a server adds to the prompt.
        advice = (
            "Set context_window below the server's (the system text and the tool definitions "
            "count too), so that the conversation is compacted earlier."
        )
    else:
        advice = (
            "Set context_window in its model entry to the server's, so that the conversation "
            "is compacted before it overflows."
        )
    hint = (
        f"The conversation does not fit the model's context window: {server}the entry "
        f"{seat.id} is configured with context_window = {seat.context_window}. {advice}"
    )
    logger.warning("%s", hint)
    return type(error)(f"{said} {hint}", provider=error.provider, status=error.status)
