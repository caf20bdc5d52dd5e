"""A ToolIndex over native tools and MCP-style records: search, suggest, widen and narrow."""

from nucleo_core.search import ToolIndex
from nucleo_core.tools import provider_for, tool


@tool(read_only=True, risk="low")
def read_file(path: str) -> str:
    """Read the complete contents of a text file."""
    return path


# Records as an MCP server lists them (name, description, inputSchema) index like native tools.
mcp_tools = [
    {
        "name": "create_pull_request",
        "description": "Create a new pull request in a GitHub repository.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "head": {"type": "string", "description": "The branch holding the changes"},
                "base": {"type": "string", "description": "The branch to merge into"},
            },
        },
    },
    {"name": "slack_post_message", "description": "Post a message to a Slack channel."},
    {"name": "calendar_create_event", "description": "Schedule an event on a calendar."},
]

index = ToolIndex([provider_for(read_file), *mcp_tools])

for hit in index.search("open a PR from my branch", limit=2):
    print("search:", hit.name, "-", hit.spec.description)

print("suggest:", index.suggest("slack_post_mesage"))

# The catalog widens and narrows in place; nothing is rebuilt.
index.add([{"name": "gmail_send_email", "description": "Send an email from Gmail."}])
index.remove(["calendar_create_event"])
print("after the change:", [hit.name for hit in index.search("email or meeting")])
print(len(index), "tools:", index.names())
