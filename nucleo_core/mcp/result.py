"""`MCPToolResult`: what one MCP tool call gave back, as the model will read it."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

__all__ = ["MCPArtifact", "MCPOutcome", "MCPToolResult"]

#: How a call ended: ``ok``; ``tool_error`` (the server's own ``isError``); ``invalid_result``
#: (the result broke the tool's declared output schema); ``timeout``; ``connection_lost`` (the
#: server died or hung mid-call); ``unavailable`` (it could not be started); ``protocol_error``
#: (the server refused the request itself).
MCPOutcome: TypeAlias = Literal[
    "ok",
    "tool_error",
    "invalid_result",
    "timeout",
    "connection_lost",
    "unavailable",
    "protocol_error",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class MCPArtifact:
    """Binary content of a result (an image, audio, a resource), kept beside the text.

    Attributes:
        kind: ``image``, ``audio``, ``resource`` (embedded) or ``resource_link``.
        mime_type: Its MIME type, where the server gave one.
        data: The decoded bytes; ``None`` for a link, or for an embedded text resource.
        text: An embedded text resource's text.
        uri: The resource's URI, for resources and links.
        name: A link's name, where the server gave one.
    """

    kind: Literal["image", "audio", "resource", "resource_link"]
    mime_type: str | None = None
    data: bytes | None = None
    text: str | None = None
    uri: str | None = None
    name: str | None = None

    def describe(self, index: int) -> str:
        """One line that stands for the artifact in the text the model reads."""
        parts = [self.kind.replace("_", " ")]
        if self.mime_type:
            parts.append(self.mime_type)
        if self.data is not None:
            parts.append(f"{len(self.data)} bytes")
        if self.uri:
            parts.append(self.uri)
        if self.name:
            parts.append(f"({self.name})")
        return f"[{' '.join(parts)}; artifact {index}]"


@dataclass(frozen=True, slots=True, kw_only=True)
class MCPToolResult:
    """The result of one MCP tool call.

    A failure is a result too (``is_error``), never an exception: the model reads why and can
    correct its next call. ``str()`` gives the text the model reads.

    Attributes:
        text: The text content, with a line standing for each artifact; or, for a failure the
            pool detected (a timeout, a dead server), what happened.
        structured: The ``structuredContent``, kept when the tool declares an output schema.
        is_error: Whether the call failed.
        artifacts: Images, audio and resources of the result, in order.
        outcome: How the call ended (see `MCPOutcome`).
        blocks: The result's content blocks as the server sent them, each as its JSON object,
            in order (none for a failure the pool composed): what the MCP gateway passes on
            to its own clients unchanged (`nucleo_core.gateway`).
    """

    text: str
    structured: Mapping[str, Any] | None = None
    is_error: bool = False
    artifacts: tuple[MCPArtifact, ...] = ()
    outcome: MCPOutcome = "ok"
    # Not compared: two results that read the same to a model are the same result.
    blocks: tuple[Mapping[str, Any], ...] = field(default=(), compare=False, repr=False)

    @classmethod
    def failure(cls, outcome: MCPOutcome, text: str) -> MCPToolResult:
        """An error result the pool composed (never from what the model sent)."""
        return cls(text=text, is_error=True, outcome=outcome)

    @property
    def content(self) -> str:
        """What the model reads: the text, else the structured content as JSON."""
        if self.text or self.structured is None:
            return self.text
        return json.dumps(self.structured, ensure_ascii=False, sort_keys=True)

    def tool_reply(self) -> tuple[str, bool]:
        """What a thinker's result block holds: the `content`, and ``is_error`` (`ToolReply`)."""
        return self.content, self.is_error

    def __str__(self) -> str:
        return self.content
