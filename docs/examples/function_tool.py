"""Function tools: the docstring describes the tool, the annotations give its input schema."""

import json
from typing import Annotated

from pydantic import Field

from nucleo_core import provider_for, tool


# Parameters described in the docstring's Google-style Args section...
@tool(read_only=True, risk="low")
def search_notes(query: str, limit: Annotated[int, Field(ge=1, le=50)] = 10) -> list[str]:
    """Search the user's notes by keyword.

    Args:
        query: Words to look for, e.g. "quarterly report".
        limit: The most notes to return.
    """
    return [f"note about {query}"][:limit]


# ...or next to each parameter, as a plain string in Annotated.
@tool(risk="medium")
async def tag_note(
    note_id: Annotated[int, "The note's number, as search_notes shows it."],
    tag: Annotated[str, "One word, without the leading #."],
) -> str:
    """Add a tag to a note."""
    return f"#{tag} added to note {note_id}"


provider = provider_for(search_notes)
print(provider.name, "-", provider.description)
print(json.dumps(provider.input_schema["properties"], indent=2))
print(provider_for(tag_note).input_schema["properties"]["tag"]["description"])

# The decorated function is returned unchanged: it is still a plain, typed function.
assert search_notes("budget") == ["note about budget"]
assert provider.input_schema["required"] == ["query"]
