"""The MCP layer's errors.

Three are developer errors (`MisuseError`), one says a server could not be reached, one that
the pin store cannot be trusted::

    NucleoError
    ├── MisuseError
    │   ├── MCPConfigError        an MCP server is misconfigured (file, key and fix named)
    │   ├── MCPCollisionError     two sources claim one tool name (the fix named: a prefix)
    │   └── MCPPinError           a pin cannot be accepted as asked (nothing quarantined)
    ├── MCPServerUnavailable      a server did not start, or stopped and was given up on
    └── MCPPinStoreError          the pin store cannot be read: every tool pinned there is withheld

What the *model* reads when a call fails (a timeout, a server that died mid-call, the server's
own ``isError``) is never an exception: it is an error `MCPToolResult`, so that it can correct.
"""

from __future__ import annotations

from dataclasses import KW_ONLY, InitVar

from nucleo_core._error_details import keeps_details
from nucleo_core._extras import missing_sdk
from nucleo_core.errors import MisuseError, NucleoError

__all__ = [
    "MISSING_SDK",
    "MCPCollisionError",
    "MCPConfigError",
    "MCPPinError",
    "MCPPinStoreError",
    "MCPServerUnavailable",
]

#: Why no MCP server starts without the ``mcp`` extra, and the fix (worded as every SDK's is).
MISSING_SDK = missing_sdk("mcp")


class MCPConfigError(MisuseError):
    """An MCP server is misconfigured; the message names where, which key, and the fix."""


@keeps_details
class MCPCollisionError(MisuseError):
    """A tool name is claimed by two sources: two MCP servers, or a server and a native tool.

    Attributes:
        name: The contested tool name.
        server: The server whose tool was refused.
        holder: Who holds the name: ``mcp:<server>`` or a native tool's source.
    """

    name: str
    server: str
    holder: str
    fix: InitVar[str]

    def __post_init__(self, fix: str) -> None:
        super().__init__(
            f"MCP server '{self.server}' publishes a tool named '{self.name}', which "
            f"{self.holder} already holds; '{self.server}'s tool was not registered. {fix}"
        )


@keeps_details
class MCPServerUnavailable(NucleoError):
    """An MCP server could not be started, or died and was not brought back.

    Attributes:
        server: The server's configured id.
        reason: What went wrong, in one line.
        command: The command line that was run (or the URL), as shown to the developer.
        stderr_tail: The last lines the server wrote to its stderr (stdio servers), or ``""``.
    """

    server: str
    reason: str
    _: KW_ONLY
    command: str
    stderr_tail: str = ""

    def __post_init__(self) -> None:
        message = (
            f"MCP server '{self.server}' is unavailable: {self.reason} (command: {self.command})"
        )
        if self.stderr_tail:
            message += "\n--- its stderr, last lines ---\n" + self.stderr_tail
        super().__init__(message)


class MCPPinError(MisuseError):
    """A pinned tool definition cannot be accepted as asked: none is quarantined, or another is."""


class MCPPinStoreError(NucleoError):
    """The pin store cannot be read or written, or holds a corrupt row.

    Fail closed: the tools of every server pinned there are withheld until it is fixed; the
    message names the file and the fix.
    """
