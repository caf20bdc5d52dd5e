"""Calling a tool on an MCP server's session: every failure an error result, in time.

A call waits (bounded) for a session that is starting, is timed by the SDK's request clock and
an outer limit, is made once more on a new session when an HTTP server no longer knows the old
one, and marks the session broken (to be restarted) when the server stopped or hung.
`ServerSession` holds this part.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import anyio
import mcp_types as types
from mcp import Client, MCPError

from nucleo_core.mcp._results import to_result
from nucleo_core.mcp._session_limits import BACKOFF_CAP, PROBE_TIMEOUT, WRITE_GRACE
from nucleo_core.mcp._session_part import SessionPart
from nucleo_core.mcp._session_reasons import exit_reason, failure_reason
from nucleo_core.mcp.errors import MCPServerUnavailable
from nucleo_core.mcp.result import MCPToolResult

if TYPE_CHECKING:
    from nucleo_core.mcp.elicitation import CallElicitations

__all__ = ["SessionCalls"]

logger = logging.getLogger("nucleo.mcp")


class SessionCalls(SessionPart):
    """`ServerSession`'s part that makes the calls and tells when the session broke."""

    if TYPE_CHECKING:

        async def ensure_started(self) -> Client: ...

    async def call(
        self,
        tool: str,
        arguments: Mapping[str, Any],
        *,
        timeout: float,
        structured: bool,
        retry: bool = True,
        elicitations: CallElicitations | None = None,
    ) -> MCPToolResult:
        """Call ``tool``; every failure is an error result within the time limits.

        Args:
            tool: The tool's name on the server.
            arguments: The validated arguments.
            timeout: Seconds the call may take.
            structured: Keep the ``structuredContent``.
            retry: Make the call again on a new session when the HTTP server says it no
                longer knows this one (it restarted): it never ran the call. Once only.
            elicitations: The call's elicitations in a durable run (answered when no
                answerer is configured: see `nucleo_core.mcp.elicitation.ElicitationScope`).
        """
        name = self.config.name
        client = self._client
        try:
            if self.state != "ready" or client is None:  # starting or restarting: wait, bounded
                with anyio.fail_after(self.config.startup_timeout + BACKOFF_CAP):
                    client = await self.ensure_started()
        except MCPServerUnavailable as exc:
            return MCPToolResult.failure(
                "unavailable",
                f"MCP server '{name}' is unavailable ({exc.reason}); try another tool",
            )
        except TimeoutError:
            return MCPToolResult.failure(
                "unavailable", f"MCP server '{name}' is still starting; try again shortly"
            )
        try:
            # The SDK's own request clock times the answer: it runs from the moment the
            # request is written, and on expiry tells the server (notifications/cancelled).
            # The outer limit also covers the write, to a server that stopped reading.
            self._in_flight.append(elicitations)
            try:
                async with asyncio.timeout(timeout + WRITE_GRACE):
                    result = await client.call_tool(
                        tool, dict(arguments), read_timeout_seconds=timeout
                    )
            finally:
                self._in_flight.remove(elicitations)
        except TimeoutError:
            return self._timed_out(client, tool, timeout)
        except MCPError as exc:
            if exc.code == types.REQUEST_TIMEOUT:
                return self._timed_out(client, tool, timeout)
            if retry and exc.code == types.INVALID_REQUEST and await self._session_gone(client):
                # An HTTP server restarted since the last call no longer knows the session
                # (404): it never ran the call, so it is made again on a new session.
                return await self._call_again(
                    tool,
                    arguments,
                    timeout=timeout,
                    structured=structured,
                    elicitations=elicitations,
                )
            if exc.code == types.CONNECTION_CLOSED:
                self._mark_broken(client, "the connection closed during a call")
                return MCPToolResult.failure(
                    "connection_lost",
                    f"MCP server '{name}' stopped during the call (it exited or was killed); "
                    "it is being restarted, so the call may be tried again",
                )
            return MCPToolResult.failure(
                "protocol_error", f"MCP server '{name}' refused the call: {exc.error.message}"
            )
        except (RuntimeError, ValueError) as exc:
            # The SDK checks a result against the tool's declared output schema.
            logger.info("MCP server '%s' gave an unusable result for %s: %s", name, tool, exc)
            return MCPToolResult.failure(
                "invalid_result",
                f"MCP server '{name}' returned a result for '{tool}' that does not match the "
                "tool's declared output",
            )
        except Exception as exc:
            self._mark_broken(client, failure_reason(exc, self.config))
            return MCPToolResult.failure(
                "connection_lost",
                f"MCP server '{name}' could not be reached during the call; it is being "
                "restarted, so the call may be tried again",
            )
        return to_result(result, structured=structured)

    async def _session_gone(self, client: Client) -> bool:
        """Whether an HTTP server refused ``client``'s session itself, not one request.

        A legacy (session-id) server that restarted answers every request of the old session
        with 404, which the SDK reports as an invalid request; another request of the session
        (``tools/list``: ``ping`` is gone from the 2026-07-28 protocol) tells that apart from a
        server refusing one call. A gone session is marked broken, so it is reconnected.
        """
        if self.config.url is None:
            return False
        try:
            with anyio.fail_after(min(PROBE_TIMEOUT, self.config.timeout)):
                await client.list_tools()
        except Exception as exc:
            self._mark_broken(
                client, f"it no longer knows the session ({failure_reason(exc, self.config)})"
            )
            return True
        return False

    async def _call_again(
        self,
        tool: str,
        arguments: Mapping[str, Any],
        *,
        timeout: float,
        structured: bool,
        elicitations: CallElicitations | None,
    ) -> MCPToolResult:
        """The call, once more, on the session that replaces a gone one."""
        logger.info("MCP server '%s' lost its session; reconnecting for the call", self.config.name)
        return await self.call(
            tool,
            arguments,
            timeout=timeout,
            structured=structured,
            retry=False,
            elicitations=elicitations,
        )

    def _timed_out(self, client: Client, tool: str, timeout: float) -> MCPToolResult:
        self._probe(client)
        return MCPToolResult.failure(
            "timeout",
            f"The tool '{tool}' of MCP server '{self.config.name}' did not answer within "
            f"{timeout:g} s; the call was cancelled",
        )

    def _mark_broken(self, client: Client, reason: str) -> None:
        if self._client is client and self._broken is None:
            self._broken = reason
            self._client = None  # no new call goes to a broken session
            self._wake.set()

    def _exited(self, returncode: int) -> None:
        """The server process exited by itself: the session is broken, restart it now."""
        if self._broken is None:
            self._broken = exit_reason(returncode)
        self._client = None  # no new call goes to a server that is gone
        self._wake.set()

    def _probe(self, client: Client) -> None:
        """After a timeout, check in the background that the server still answers at all."""

        async def probe() -> None:
            try:
                with anyio.fail_after(min(PROBE_TIMEOUT, self.config.timeout)):
                    await client.list_tools()
            except Exception:
                self._mark_broken(client, "it stopped answering (a call hung past its timeout)")
            else:
                logger.debug(
                    "MCP server '%s' still answers after a call timed out: not restarted",
                    self.config.name,
                )

        task = asyncio.get_running_loop().create_task(probe())
        self._background.add(task)
        task.add_done_callback(self._background.discard)
