"""What an MCP server's elicitation asks (`ElicitationRequest`) and what is answered to it."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

__all__ = [
    "ELICITATION_ACTIONS",
    "ElicitationAction",
    "ElicitationAnswer",
    "ElicitationAnswerer",
    "ElicitationRequest",
    "decline_every_request",
]

logger = logging.getLogger("nucleo.mcp")

#: ``accept`` (the user filled in the form, or agreed to open the URL), ``decline`` (the user
#: said no) or ``cancel`` (no explicit choice was made).
ElicitationAction: TypeAlias = Literal["accept", "decline", "cancel"]
ELICITATION_ACTIONS = ("accept", "decline", "cancel")


@dataclass(frozen=True, slots=True, kw_only=True)
class ElicitationRequest:
    """What a server asks the user for.

    Attributes:
        server: The id of the server that asks.
        message: What the server says it needs, to show the user.
        mode: ``"form"`` (fill in ``schema``) or ``"url"`` (open ``url``).
        schema: The requested schema (``form`` mode): a flat JSON Schema object whose
            properties are strings, numbers, integers, booleans, enums or arrays of enums.
        url: The URL to open (``url`` mode).
    """

    server: str
    message: str
    mode: Literal["form", "url"] = "form"
    schema: Mapping[str, Any] = field(default_factory=dict)
    url: str | None = None


@dataclass(frozen=True, slots=True)
class ElicitationAnswer:
    """An answerer's answer: an action, and for an accepted form its content.

    Attributes:
        action: ``accept``, ``decline`` or ``cancel``.
        content: The form's values by field name (``accept`` in ``form`` mode only).
    """

    action: ElicitationAction
    content: Mapping[str, Any] | None = None

    @classmethod
    def accept(cls, content: Mapping[str, Any] | None = None) -> ElicitationAnswer:
        """Accept: with the form's values (``form`` mode), or none (consent to a URL)."""
        return cls("accept", content)

    @classmethod
    def decline(cls) -> ElicitationAnswer:
        """The user said no."""
        return cls("decline")

    @classmethod
    def cancel(cls) -> ElicitationAnswer:
        """No explicit choice was made."""
        return cls("cancel")


#: Answers one `ElicitationRequest`; may be ``async``.
ElicitationAnswerer: TypeAlias = Callable[
    [ElicitationRequest], "ElicitationAnswer | Awaitable[ElicitationAnswer]"
]


def decline_every_request(request: ElicitationRequest) -> ElicitationAnswer:
    """The default answerer: declines, and says so on the ``nucleo.mcp`` logger."""
    logger.info(
        "MCP server '%s' asked for input (elicitation, %s mode); declined: no answerer is "
        "configured (pass elicitation= to MCPServers, or run nucleo interactively)",
        request.server,
        request.mode,
    )
    return ElicitationAnswer.decline()
