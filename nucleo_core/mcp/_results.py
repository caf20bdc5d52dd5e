"""Map the SDK's ``CallToolResult`` onto `MCPToolResult` (imports the SDK: used by the pool)."""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping

import mcp_types as types

from nucleo_core.mcp.result import MCPArtifact, MCPToolResult

__all__ = ["to_result"]


def to_result(result: types.CallToolResult, *, structured: bool) -> MCPToolResult:
    """What the model reads of ``result``.

    Text content is kept as text; images, audio and embedded binary resources are kept as
    artifacts and stand in the text as one line each; an embedded text resource is text;
    ``structuredContent`` is kept where the tool declares an output schema; ``isError`` makes
    an error result the model can correct.
    """
    lines: list[str] = []
    artifacts: list[MCPArtifact] = []

    def keep(artifact: MCPArtifact) -> None:
        artifacts.append(artifact)
        lines.append(artifact.describe(len(artifacts)))

    for block in result.content:
        if isinstance(block, types.TextContent):
            lines.append(block.text)
        elif isinstance(block, types.ImageContent | types.AudioContent):
            keep(
                MCPArtifact(
                    kind="image" if isinstance(block, types.ImageContent) else "audio",
                    mime_type=block.mime_type,
                    data=_decoded(block.data),
                )
            )
        elif isinstance(block, types.EmbeddedResource):
            resource = block.resource
            if isinstance(resource, types.TextResourceContents):
                lines.append(resource.text)
            else:
                keep(
                    MCPArtifact(
                        kind="resource",
                        mime_type=resource.mime_type,
                        data=_decoded(resource.blob),
                        uri=str(resource.uri),
                    )
                )
        elif isinstance(block, types.ResourceLink):
            keep(
                MCPArtifact(
                    kind="resource_link",
                    mime_type=block.mime_type,
                    uri=str(block.uri),
                    name=block.name,
                )
            )
    kept = result.structured_content if structured and not result.is_error else None
    if kept is not None and not isinstance(kept, Mapping):
        # 2026-07-28 allows any JSON value as structured content; keep it under one key so
        # the result stays a mapping.
        kept = {"result": kept}
    text = "\n".join(lines)
    if not text and kept is None and result.structured_content is not None:
        text = json.dumps(result.structured_content, ensure_ascii=False, sort_keys=True)
    return MCPToolResult(
        text=text,
        structured=kept,
        is_error=bool(result.is_error),
        artifacts=tuple(artifacts),
        outcome="tool_error" if result.is_error else "ok",
        blocks=tuple(
            block.model_dump(mode="json", by_alias=True, exclude_none=True)
            for block in result.content
        ),
    )


def _decoded(data: str) -> bytes | None:
    try:
        return base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return None
