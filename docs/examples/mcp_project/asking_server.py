"""A small MCP server that asks its client: for roots, for a model's answer, for the user's input.

Run it over stdio with ``python asking_server.py``. Its tools use the MCP SDK's resolvers, so
each request travels as the protocol version in use says.
"""

from typing import Annotated

from mcp.server.elicitation import ElicitationResult
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.resolve import Elicit, ListRoots, Resolve, Sample
from mcp.types import CreateMessageResult, ListRootsResult, SamplingMessage, TextContent
from pydantic import BaseModel, Field

server = MCPServer("asking")


class Booking(BaseModel):
    """What ``book`` asks the user for."""

    name: str
    seats: int = Field(ge=1, le=10)


def _roots() -> ListRoots:
    return ListRoots()


def _title(text: str) -> Sample:
    prompt = TextContent(type="text", text=f"A title for: {text}")
    return Sample([SamplingMessage(role="user", content=prompt)], max_tokens=2000)


def _booking() -> Elicit[Booking]:
    return Elicit("Whose name, and how many seats?", Booking)


@server.tool(structured_output=False)
def workspace(found: Annotated[ListRootsResult, Resolve(_roots)]) -> str:
    """The folders the client lets this server work in."""
    return ", ".join(str(root.uri) for root in found.roots)


@server.tool(structured_output=False)
def title(text: str, sampled: Annotated[CreateMessageResult, Resolve(_title)]) -> str:
    """A title for a text, written by the client's model."""
    return f"{getattr(sampled.content, 'text', '')} (by {sampled.model})"


@server.tool(structured_output=False)
def book(answer: Annotated[ElicitationResult[Booking], Resolve(_booking)]) -> str:
    """Book seats, asking the user for the details."""
    data = getattr(answer, "data", None)
    return f"{answer.action}: {data.seats} seat(s) for {data.name}" if data else answer.action


if __name__ == "__main__":
    server.run()
