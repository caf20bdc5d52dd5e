"""An MCP server's own requests: roots, sampling (off unless configured) and elicitation."""

import logging
import sys
from pathlib import Path

from nucleo_core.mcp import (
    ElicitationAnswer,
    MCPClientPool,
    MCPServerConfig,
    SamplingRequest,
    SamplingResult,
    ScriptedAnswerer,
)

ASKING_SERVER = Path(__file__).parent / "mcp_project" / "asking_server.py"
# What the client refused is logged on nucleo.mcp; shown here among the results.
logging.basicConfig(stream=sys.stdout, format="  [log: %(message)s]", level=logging.WARNING)


def asking(name: str, **settings: object) -> MCPServerConfig:
    """The asking server under the id ``name``, with ``settings``."""
    return MCPServerConfig(
        name=name, command=sys.executable, args=(str(ASKING_SERVER),), **settings
    )


def sampler(request: SamplingRequest) -> SamplingResult:
    """Stands in for a model seat (the default sampler asks the model catalog)."""
    print(f"  [sampling for {request.server}: max_tokens {request.max_tokens}]")
    return SamplingResult(text="Notes on a Journey", model="scripted")


answers = ScriptedAnswerer(
    [
        ElicitationAnswer.accept({"name": "Ada", "seats": 2}),
        ElicitationAnswer.accept({"name": "Ada", "seats": 40}),  # does not fit: never sent
        ElicitationAnswer.decline(),
    ]
)
servers = [
    asking("plain", roots=("/srv/notes",)),
    asking("writer", sampling={"model": "fast", "max_tokens": 64}),
]
with MCPClientPool(servers, elicitation=answers, sampler=sampler) as pool:
    print("workspace:", pool.call_sync("plain", "workspace", {}).text)
    print("title, plain: ", pool.call_sync("plain", "title", {"text": "a trip"}).text)
    print("title, writer:", pool.call_sync("writer", "title", {"text": "a trip"}).text)
    for _ in range(3):
        print("book:", pool.call_sync("plain", "book", {}).text)
