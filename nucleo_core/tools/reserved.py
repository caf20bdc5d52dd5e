"""The tool names nucleo keeps for its own tools, which no other tool may take.

Every thinker may be offered these; a tool pack, a plugin or an MCP server publishing one of
them would take a thinker down at its first turn (two tools under one name) or pass itself off
as the framework's own tool. They are refused where tools enter: a hub registration raises, a
plugin's or an MCP server's tool is reported against its source, with the fix, and skipped.
"""

from __future__ import annotations

__all__ = [
    "GET_ARTIFACT_FIELD",
    "READ_SKILL_FILE",
    "REQUEST_SKILL",
    "REQUEST_TOOLS",
    "RESERVED_TOOL_NAMES",
    "SEARCH_ARTIFACT_CONTENT",
    "SEARCH_TOOLS",
    "SUB_THINKER",
]

REQUEST_TOOLS = "request_tools"
REQUEST_SKILL = "request_skill"
#: Kept for the tool search meta-tool (seed 004), so no third-party tool holds it first.
SEARCH_TOOLS = "search_tools"
SUB_THINKER = "sub_thinker"
GET_ARTIFACT_FIELD = "get_artifact_field"
SEARCH_ARTIFACT_CONTENT = "search_artifact_content"
#: The builtin reader of an attached skill's files (``builtin:skill_files``).
READ_SKILL_FILE = "read_skill_file"

#: Every reserved name.
RESERVED_TOOL_NAMES = frozenset(
    {
        REQUEST_TOOLS,
        REQUEST_SKILL,
        SEARCH_TOOLS,
        SUB_THINKER,
        GET_ARTIFACT_FIELD,
        SEARCH_ARTIFACT_CONTENT,
        READ_SKILL_FILE,
    }
)
