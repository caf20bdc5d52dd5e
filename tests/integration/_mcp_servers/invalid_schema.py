"""A server (the SDK's low-level ``Server``) publishing one tool whose input schema is invalid."""

import anyio
import mcp.types as types
from mcp.server import Server
from mcp.server.stdio import stdio_server


async def list_tools(ctx, params):
    return types.ListToolsResult(
        tools=[
            types.Tool(
                name="good",
                description="A tool with a valid schema.",
                input_schema={"type": "object", "properties": {"n": {"type": "integer"}}},
            ),
            types.Tool(
                name="broken",
                description="A tool whose schema names a type that does not exist.",
                input_schema={"type": "object", "properties": {"n": {"type": "integr"}}},
            ),
        ]
    )


async def call_tool(ctx, params):
    n = (params.arguments or {}).get("n")
    return types.CallToolResult(content=[types.TextContent(text=f"{params.name} got {n}")])


server = Server("invalid-schema", on_list_tools=list_tools, on_call_tool=call_tool)


async def main() -> None:
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


anyio.run(main)
