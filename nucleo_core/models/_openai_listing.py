"""Asking an OpenAI-compatible server's listings for the context window it runs a model with.

What each listing says is read by `nucleo_core.models._window`; this module sends the requests,
through the client's own SDK client (its key, headers and base URL), each with a short timeout
and no retry. A listing that fails says nothing.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from nucleo_core.models._json_depth import loads

if TYPE_CHECKING:
    import openai

__all__ = ["LISTING_TIMEOUT", "asked_context_window"]

#: Seconds a listing request of `OpenAIChatClient.context_window` may take: it is a convenience,
#: and a server too slow to list its models is left to the configured window.
LISTING_TIMEOUT = 5.0


async def asked_context_window(
    client: openai.AsyncOpenAI, model: str, logger: logging.Logger
) -> int | None:
    """The window the listings say, asked in turn (see `OpenAIChatClient.context_window`)."""
    from nucleo_core.models import _window

    body = await _listing(client, logger, "GET", "models")
    window, llama_cpp = _window.from_models(body, model)
    if llama_cpp or window is None:
        running = _window.from_props(await _listing(client, logger, "GET", "/props"))
        if running is not None:
            return running
    if window is None:
        window = _window.from_ollama_show(
            await _listing(client, logger, "POST", "/api/show", {"model": model})
        )
    return window


async def _listing(
    client: openai.AsyncOpenAI,
    logger: logging.Logger,
    method: str,
    path: str,
    body: object = None,
) -> object:
    """The decoded JSON body of one listing request, or ``None`` when it failed.

    A relative ``path`` is below ``base_url``; one starting with ``/`` is below the server's
    root (``base_url`` without its ``/v1``).
    """
    url = path
    if path.startswith("/"):
        root = str(client.base_url).rstrip("/")
        root = root.removesuffix("/v1")
        url = root + path
    options: Any = {"timeout": LISTING_TIMEOUT}
    try:
        # ``cast_to=str``: the body as the server sent it, decoded here with a depth limit.
        if method == "GET":
            text = await client.get(url, cast_to=str, options=options)
        else:
            text = await client.post(url, cast_to=str, body=body, options=options)
        return loads(text)
    except Exception as exc:  # fail-soft: a listing only ever adds what it says
        logger.debug("%s %s: no listing (%s)", method, path, type(exc).__name__)
        return None
