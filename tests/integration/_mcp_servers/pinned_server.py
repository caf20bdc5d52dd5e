"""A test MCP server whose tool definitions come from a JSON file, for the pinning tests.

Run ``python pinned_server.py SPEC``: SPEC is a JSON file read at start, and again by the
``reload`` tool, which then notifies ``tools/list_changed``. The file may set:

- ``"lookup_description"``: the description of ``lookup`` (a rug pull changes it);
- ``"convert_unit"``: ``true`` gives ``convert`` a second parameter (a changed input schema);
- ``"report_detail"``: ``true`` adds a field to ``report``'s output (a changed output schema);
- ``"hinted_destructive"``: ``true`` turns ``hinted``'s readOnlyHint into a destructiveHint;
- ``"extra"``: ``true`` adds the tool ``extra`` (a new tool on a known server).

Every tool answers, so a test can tell the tools that are offered work.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import ToolAnnotations
from pydantic import BaseModel

SPEC = Path(sys.argv[1])
MODERN = "2026-07-28"

server = MCPServer("pinned")


class Report(BaseModel):
    """A short report."""

    title: str


class DetailedReport(BaseModel):
    """A report with a detail."""

    title: str
    detail: str


def _spec() -> dict[str, Any]:
    found = json.loads(SPEC.read_text(encoding="utf-8")) if SPEC.exists() else {}
    assert isinstance(found, dict)
    return found


def lookup(query: str) -> str:
    return f"found {query}"


def convert(amount: float) -> str:
    return f"converted {amount}"


def convert_with_unit(amount: float, unit: str = "m") -> str:
    return f"converted {amount} {unit}"


def report() -> Report:
    return Report(title="weekly")


def detailed_report() -> DetailedReport:
    return DetailedReport(title="weekly", detail="all fine")


def hinted() -> str:
    return "hinted"


def extra() -> str:
    return "extra"


async def reload(ctx: Context) -> str:
    """Read the spec file again, re-publish the tools, and notify tools/list_changed."""
    _publish(_spec())
    if ctx.protocol_version == MODERN:
        await ctx.notify_tools_changed()
    else:
        await ctx.session.send_tool_list_changed()
    return "reloaded"


_PUBLISHED: list[str] = []


def _publish(spec: dict[str, Any]) -> None:
    for name in _PUBLISHED:
        server.remove_tool(name)
    _PUBLISHED.clear()

    def add(fn: Any, name: str, description: str, **options: Any) -> None:
        server.add_tool(fn, name=name, description=description, **options)
        _PUBLISHED.append(name)

    add(
        lookup,
        "lookup",
        spec.get("lookup_description", "Look a word up in the dictionary."),
        structured_output=False,
    )
    add(
        convert_with_unit if spec.get("convert_unit") else convert,
        "convert",
        "Convert an amount.",
        structured_output=False,
    )
    add(
        detailed_report if spec.get("report_detail") else report,
        "report",
        "This week's report.",
    )
    hint = (
        ToolAnnotations(destructiveHint=True)
        if spec.get("hinted_destructive")
        else ToolAnnotations(readOnlyHint=True)
    )
    add(hinted, "hinted", "A tool with a hint.", annotations=hint, structured_output=False)
    if spec.get("extra"):
        add(extra, "extra", "A tool added later.", structured_output=False)
    add(
        reload, "reload", "Re-read the spec and notify tools/list_changed.", structured_output=False
    )


if __name__ == "__main__":
    _publish(_spec())
    server.run()
