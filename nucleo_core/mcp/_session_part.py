"""What every part of `ServerSession` shares: the session's state, as the parts read it."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mcp import Client

    from nucleo_core.mcp._features import ClientFeatures
    from nucleo_core.mcp._session_state import SessionState
    from nucleo_core.mcp.config import MCPServerConfig
    from nucleo_core.mcp.elicitation import CallElicitations

__all__ = ["SessionPart"]


class SessionPart:
    """The state `ServerSession` keeps (set in its ``__init__``) and each of its parts reads."""

    config: MCPServerConfig
    state: SessionState
    _features: ClientFeatures
    _client: Client | None
    _broken: str | None
    _wake: asyncio.Event
    _background: set[asyncio.Task[None]]
    _in_flight: list[CallElicitations | None]
