"""What every part of `MCPServers` shares: the pool, the lock, the hub, and the problems."""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING

from nucleo_core.mcp.report import MCPProblem, MCPProblemKind

if TYPE_CHECKING:
    from nucleo_core.hub.hub import ToolHub
    from nucleo_core.mcp.pool import MCPClientPool

__all__ = ["ServerPart"]

logger = logging.getLogger("nucleo.mcp")


class ServerPart:
    """The state `MCPServers` and its parts share, and how each of them reports a problem."""

    _pool: MCPClientPool
    _lock: threading.RLock
    _hub: ToolHub | None
    _seen: set[tuple[str, str | None, str]]
    _problems: list[MCPProblem]
    _errors: list[Exception]

    def _report(
        self,
        server: str,
        tool: str | None,
        kind: MCPProblemKind,
        error: Exception,
        *,
        log: bool = True,
        strict: bool = True,
    ) -> None:
        message = str(error)
        with self._lock:
            key = (server, tool, message)
            if key in self._seen:
                return
            self._seen.add(key)
            self._problems.append(MCPProblem(server=server, tool=tool, kind=kind, message=message))
            if strict:  # a problem ``strict`` binding raises for
                self._errors.append(error)
        if log:
            logger.warning("%s", message)
