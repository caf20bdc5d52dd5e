"""Render the same tools for OpenAI, Anthropic and MCP, from the registry's neutral specs."""

import json

from nucleo_core import ToolRegistry, render_tools, to_anthropic, to_mcp, to_openai, tool


@tool(read_only=True, risk="low", display_name="Look up a word")
def define(word: str) -> str:
    """Give the dictionary definition of an English word."""
    return f"{word}: ..."


specs = ToolRegistry([define]).specs()
print(json.dumps(to_openai(specs), indent=2))
print(json.dumps(to_anthropic(specs)[0]["name"]))
print(json.dumps(to_mcp(specs)[0]["annotations"]))

assert render_tools(specs, "mcp") == to_mcp(specs)
