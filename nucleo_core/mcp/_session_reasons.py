"""What a failure means for an MCP server, in one line: from the SDK's and the OS's errors."""

from __future__ import annotations

import asyncio
import signal
from typing import TYPE_CHECKING

import httpx2
import mcp_types as types
from mcp import MCPError

if TYPE_CHECKING:
    from nucleo_core.mcp.config import MCPServerConfig

__all__ = ["exit_reason", "failure_reason"]


def _leaves(exc: BaseException) -> list[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for inner in exc.exceptions for leaf in _leaves(inner)]
    return [exc]


def failure_reason(exc: BaseException, config: MCPServerConfig) -> str:
    """One line saying what ``exc`` means for a server, from the SDK's and the OS's errors."""
    leaves = [leaf for leaf in _leaves(exc) if not isinstance(leaf, asyncio.CancelledError)]
    leaf = leaves[0] if leaves else exc
    if isinstance(leaf, FileNotFoundError):
        if config.cwd is not None and leaf.filename == config.cwd:
            return f"its working directory {config.cwd} does not exist"
        return f"the command {config.command!r} was not found"
    if isinstance(leaf, PermissionError):
        return f"the command {config.command!r} could not be run (permission denied)"
    if isinstance(leaf, MCPError):
        if leaf.code == types.CONNECTION_CLOSED:
            return "the server closed the connection (it exited or crashed)"
        return f"the server answered with an error: {leaf.error.message}"
    if isinstance(leaf, httpx2.HTTPError):
        return f"HTTP error talking to {config.url}: {leaf}"
    return f"{type(leaf).__name__}: {leaf}"


def exit_reason(returncode: int) -> str:
    """One line saying how a server's process ended, from its return code."""
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        return f"its process was killed by {name}"
    return f"its process exited with code {returncode}"
