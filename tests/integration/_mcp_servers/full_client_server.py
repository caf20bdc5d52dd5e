"""A test MCP server that asks its client for roots, sampling and elicitation (SDK-written).

Run ``python full_client_server.py [PIDFILE]`` to serve over stdio; with ``PIDFILE`` it writes
its process id there once it runs (for the test that kills it between calls).

Like published servers that use more of the protocol than tools, it lists a tool only to a
client that declares the capability the tool needs: ``project_roots`` (``roots``),
``summarize`` (``sampling``) and ``sign_up`` (``elicitation``). ``echo``, ``wipe`` (hinted
destructive) and ``pid`` are listed to every client. The requests go through the SDK's own
resolvers, so they travel as the negotiated protocol says: server-to-client requests up to
2025-11-25, an ``InputRequiredResult`` from 2026-07-28 on.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Annotated, Any

from mcp.server.elicitation import ElicitationResult
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.resolve import Elicit, ListRoots, Resolve, Sample
from mcp.types import (
    CreateMessageResult,
    ListRootsResult,
    SamplingMessage,
    TextContent,
    ToolAnnotations,
)
from pydantic import BaseModel, Field

server = MCPServer("full")

#: Which client capability each conditional tool needs.
NEEDS = {"project_roots": "roots", "summarize": "sampling", "sign_up": "elicitation"}


async def _hide_what_the_client_cannot_serve(ctx: Any, call_next: Any) -> Any:
    """List a tool only to a client that declares the capability it needs."""
    result = await call_next(ctx)
    if ctx.method == "tools/list" and isinstance(result, dict):
        declared = ctx.session.client_capabilities
        result["tools"] = [
            tool
            for tool in result.get("tools", [])
            if tool["name"] not in NEEDS
            or (declared is not None and getattr(declared, NEEDS[tool["name"]]) is not None)
        ]
    return result


server.middleware.append(_hide_what_the_client_cannot_serve)


class SignUp(BaseModel):
    """What ``sign_up`` asks the user for."""

    name: str
    seats: int = Field(ge=1, le=10)


def _ask_model(text: str) -> Sample:
    return Sample(
        [SamplingMessage(role="user", content=TextContent(type="text", text=f"Summarize: {text}"))],
        max_tokens=4000,
        system_prompt="Answer in five words.",
    )


def _roots() -> ListRoots:
    return ListRoots()


def _sign_up_form() -> Elicit[SignUp]:
    return Elicit("How many seats, and in whose name?", SignUp)


@server.tool(structured_output=False)
def echo(text: str) -> str:
    """Repeat the text back."""
    return text


@server.tool(annotations=ToolAnnotations(destructiveHint=True), structured_output=False)
def wipe(target: str) -> str:
    """Pretend to delete the target."""
    return f"wiped {target}"


@server.tool(structured_output=False)
def pid() -> str:
    """The server's process id."""
    return str(os.getpid())


@server.tool(structured_output=False)
def project_roots(found: Annotated[ListRootsResult, Resolve(_roots)]) -> str:
    """The client's roots, as JSON: a list of ``file://`` URIs."""
    return json.dumps([str(root.uri) for root in found.roots])


@server.tool(structured_output=False)
def summarize(text: str, sampled: Annotated[CreateMessageResult, Resolve(_ask_model)]) -> str:
    """A summary by the client's model, as JSON: the model and its text."""
    content = sampled.content
    return json.dumps({"model": sampled.model, "text": getattr(content, "text", None)})


@server.tool(structured_output=False)
def sign_up(answer: Annotated[ElicitationResult[SignUp], Resolve(_sign_up_form)]) -> str:
    """Ask the user for a name and a number of seats; the outcome as JSON.

    With ``$FULL_SIGN_UPS`` set, each run of the body appends its outcome there (one line).
    """
    data = getattr(answer, "data", None)
    outcome = json.dumps(
        {"action": answer.action, "data": data.model_dump() if data is not None else None}
    )
    ran = os.environ.get("FULL_SIGN_UPS")
    if ran:
        with Path(ran).open("a", encoding="utf-8") as log:
            log.write(outcome + "\n")
    return outcome


if __name__ == "__main__":
    if len(sys.argv) > 1:
        Path(sys.argv[1]).write_text(str(os.getpid()))
    server.run()
