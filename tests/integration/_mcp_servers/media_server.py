"""A test MCP server whose tools return resource links, embedded resources and audio (SDK-written).

Run ``python media_server.py`` to serve over stdio. The gateway tests check that each content
block reaches the gateway's client as this server sent it.
"""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer
from mcp.types import AudioContent, EmbeddedResource, ResourceLink, TextResourceContents

server = MCPServer("media")

#: A few bytes standing for a sound, base64.
SOUND = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA="


@server.tool(structured_output=False)
def report_link() -> list[ResourceLink]:
    """A link to the quarterly report."""
    return [
        ResourceLink(
            type="resource_link",
            uri="file:///reports/q3.pdf",
            name="q3.pdf",
            title="Q3 report",
            description="The third quarter's report.",
            mime_type="application/pdf",
        )
    ]


@server.tool(structured_output=False)
def embedded_note() -> list[EmbeddedResource]:
    """A note, embedded as a text resource."""
    return [
        EmbeddedResource(
            type="resource",
            resource=TextResourceContents(
                uri="memo://note/1", mime_type="text/markdown", text="# Note\nkeep it"
            ),
        )
    ]


@server.tool(structured_output=False)
def chime() -> list[AudioContent]:
    """A short sound."""
    return [AudioContent(type="audio", data=SOUND, mime_type="audio/wav")]


if __name__ == "__main__":
    server.run()
