"""Sample tools and a hand-written provider shared by the contract tests.

Also run as a script by the rendering test (``python _sample_tools.py``) to print one registry's
rendered tool definitions from a fresh interpreter.
"""

import json
from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from nucleo_core import (
    CarriedState,
    Tool,
    ToolProvider,
    ToolRegistry,
    render_tools,
    tool,
)
from nucleo_core.tools import RawInput

# -- class tools ---------------------------------------------------------------------------------


class SearchInput(BaseModel):
    query: str = Field(description="What to look for.")
    limit: int = Field(10, ge=1, le=100, description="How many hits at most.")
    scope: Literal["code", "docs", "all"] = "all"


class SearchHit(BaseModel):
    path: str
    line: int


class SearchResult(BaseModel):
    hits: list[SearchHit]


@tool(
    name="search",
    display_name="Search the workspace",
    action_verb="Searching",
    read_only=True,
    risk="low",
    metadata={"category": "lookup", "icon": "magnifier"},
)
class Search(Tool[SearchInput, SearchResult]):
    """Search the workspace for text."""

    def run(self, input: SearchInput) -> SearchResult:
        return SearchResult(hits=[SearchHit(path="README.md", line=input.limit)])


class NoteInput(BaseModel):
    title: str
    body: str = ""
    tags: set[str] = Field(default_factory=set)


@tool(name="write_note")
class WriteNote(Tool[NoteInput, str]):
    """Write a note to the notebook."""

    def run(self, input: NoteInput) -> str:
        return f"wrote {input.title}"


# -- function tools ------------------------------------------------------------------------------


@tool(read_only=True, risk="low")
def read_file(
    path: Annotated[str, "The file to read, relative to the workspace."],
    encoding: str = "utf-8",
) -> str:
    """Read a text file.

    Args:
        path: Overridden by the Annotated description.
        encoding: The text encoding.
    """
    return f"{path}:{encoding}"


@tool(risk="medium")
async def fetch_page(url: str, timeout: float = 5.0) -> dict[str, str]:
    """Fetch a web page.

    Args:
        url: The address to fetch.
        timeout: Seconds before giving up.

    Returns:
        The page's headers.
    """
    return {"url": url}


# -- a hand-written provider ---------------------------------------------------------------------


class EchoTool(Tool[Any, Any]):
    """The tool a `StaticProvider` builds: returns its input."""

    def run(self, input: Any) -> Any:
        return input


class StaticProvider(ToolProvider):
    """A hand-written provider, the kind a host or an MCP bridge supplies.

    It overrides only what it must, so every other member shows `ToolProvider`'s default.
    """

    def __init__(
        self,
        name: str,
        *,
        source: str | None = None,
        read_only: bool | None = None,
        restricting: bool = False,
        state: str | None = None,
        forget_error: Exception | None = None,
        forgotten: list[str] | None = None,
    ) -> None:
        self._name = name
        self._source = source
        self._read_only = read_only
        self._restricting = restricting
        self._state = state
        self._forget_error = forget_error
        self._forgotten = forgotten

    @property
    def name(self) -> str:
        return self._name

    @property
    def description(self) -> str:
        return f"The {self._name} tool."

    @property
    def input_schema(self) -> Mapping[str, Any]:
        return {"type": "object", "properties": {"text": {"type": "string"}}}

    @property
    def source(self) -> str:
        return self._source if self._source is not None else super().source

    @property
    def read_only(self) -> bool:
        return self._read_only if self._read_only is not None else super().read_only

    @property
    def restricting(self) -> bool:
        return self._restricting

    def parse_input(self, raw: RawInput) -> Any:
        return json.loads(raw) if isinstance(raw, str | bytes | bytearray) else dict(raw)

    def create(self, parent: object | None = None) -> Tool[Any, Any]:
        return EchoTool(parent)

    def carried_state(self, conversation_id: str | None = None) -> CarriedState | None:
        return None if self._state is None else CarriedState(tool=self._name, text=self._state)

    def forget_conversation_state(self, conversation_id: str | None = None) -> None:
        if self._forgotten is not None:
            self._forgotten.append(self._name)
        if self._forget_error is not None:
            raise self._forget_error


def sample_registry() -> ToolRegistry:
    """A registry holding every sample tool, in a fixed order."""
    return ToolRegistry([Search, WriteNote, read_file, fetch_page, StaticProvider("echo")])


def rendered_bytes() -> str:
    """The sample registry rendered in every format, as canonical JSON text."""
    specs = sample_registry().specs()
    return json.dumps({fmt: render_tools(specs, fmt) for fmt in ("anthropic", "openai", "mcp")})


if __name__ == "__main__":
    print(rendered_bytes())
