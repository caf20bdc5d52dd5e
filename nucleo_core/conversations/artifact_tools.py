"""The two artifact tools, ``get_artifact_field`` and ``search_artifact_content``, per conversation.

`artifact_tools(context)` returns the two providers bound to the context's artifact store;
asked again for the same store, it returns the same two objects, so a registry that registers
them every turn keeps them in place without rebuilding anything. Both are read-only and of low
risk. Their schemas are declared once per process (on two signature functions) and shared by
every binding; only ``create`` differs, building a call that reads this conversation's store.
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, final

from nucleo_core.conversations.artifact_reading import parse_json, read_field, search_content
from nucleo_core.conversations.artifacts import Artifact, ArtifactStore
from nucleo_core.errors import MisuseError
from nucleo_core.tools.builtin_provider import BuiltinToolProvider
from nucleo_core.tools.decorator import tool
from nucleo_core.tools.function_provider import FunctionToolProvider
from nucleo_core.tools.provider import RawInput, ToolProvider
from nucleo_core.tools.reserved import GET_ARTIFACT_FIELD, SEARCH_ARTIFACT_CONTENT
from nucleo_core.tools.tool import Tool

if TYPE_CHECKING:
    from pydantic import BaseModel

    from nucleo_core.conversations.context import ConversationContext
    from nucleo_core.tools.spec import ToolSpec

__all__ = [
    "GET_ARTIFACT_FIELD",
    "SEARCH_ARTIFACT_CONTENT",
    "ArtifactToolProvider",
    "artifact_tools",
]


#: Parsed JSON artifacts kept per binding, so that reading a large one twice parses it once.
_PARSED_CACHE = 4

_bindings: weakref.WeakKeyDictionary[ArtifactStore, tuple[ToolProvider, ...]] = (
    weakref.WeakKeyDictionary()
)
_bindings_lock = threading.Lock()
_declared: dict[str, FunctionToolProvider] = {}


def artifact_tools(context: ConversationContext | ArtifactStore) -> list[ToolProvider]:
    """The two artifact tools bound to ``context``'s artifacts (the same objects every time)."""
    store = context if isinstance(context, ArtifactStore) else context.artifacts
    with _bindings_lock:
        providers = _bindings.get(store)
        if providers is None:
            reader = _Reader(store)
            providers = (
                ArtifactToolProvider(_declaration(GET_ARTIFACT_FIELD), reader.get_field, store),
                ArtifactToolProvider(_declaration(SEARCH_ARTIFACT_CONTENT), reader.search, store),
            )
            _bindings[store] = providers
    return list(providers)


@final
class ArtifactToolProvider(BuiltinToolProvider):
    """One artifact tool bound to one conversation's artifact store.

    Name, description and schemas are the shared declaration's; equality is by tool name and
    store, so a registry holds one per name and re-registering the same binding is a no-op.
    Read-only, declared low risk.
    """

    __slots__ = ("_declared", "_run", "_store")

    def __init__(
        self, declared: FunctionToolProvider, run: Callable[..., str], store: ArtifactStore
    ) -> None:
        super().__init__()
        self._declared = declared
        self._run = run
        self._store = store

    @property
    def name(self) -> str:
        """The tool name."""
        return self._declared.name

    @property
    def description(self) -> str:
        """What the tool does, for the model."""
        return self._declared.description

    @property
    def input_schema(self) -> Mapping[str, Any]:
        """The published input schema."""
        return self._declared.input_schema

    @property
    def display_name(self) -> str:
        """The display name."""
        return self._declared.display_name

    @property
    def action_verb(self) -> str:
        """What a UI shows while the tool runs."""
        return self._declared.action_verb

    @property
    def read_only(self) -> bool:
        """Always ``True``: reading an artifact changes nothing."""
        return True

    @property
    def input_type(self) -> type[Any] | None:
        """The input model."""
        return self._declared.input_type

    @property
    def store(self) -> ArtifactStore:
        """The artifact store the tool reads."""
        return self._store

    def parse_input(self, raw: RawInput) -> Any:
        """Validate a call's input against the published schema (see `ToolProvider`)."""
        return self._declared.parse_input(raw)

    def create(self, parent: object | None = None) -> Tool[Any, Any]:
        """A call that reads this provider's store."""
        return _ArtifactCall(self._run, parent)

    def spec(self) -> ToolSpec:
        """The shared declaration's spec (built once per process)."""
        return self._declared.spec()

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, ArtifactToolProvider)
            and other.name == self.name
            and other._store is self._store
        )

    def __hash__(self) -> int:
        return hash((ArtifactToolProvider, self.name, id(self._store)))


class _ArtifactCall(Tool["BaseModel", str]):
    """One call of an artifact tool: the validated input's fields as keyword arguments."""

    def __init__(self, run: Callable[..., str], parent: object | None) -> None:
        super().__init__(parent)
        self._run = run

    def run(self, input: BaseModel) -> str:
        """Read the store."""
        return self._run(**input.__dict__)


class _Reader:
    """The work of both tools for one store, with a small cache of parsed JSON artifacts."""

    __slots__ = ("_lock", "_parsed", "_store")

    def __init__(self, store: ArtifactStore) -> None:
        self._store = store
        self._parsed: OrderedDict[str, Any] = OrderedDict()
        self._lock = threading.Lock()

    def get_field(self, artifact_id: str, path: str = "") -> str:
        artifact = self._store.get(artifact_id)
        return read_field(artifact, path, parsed=self._json(artifact))

    def search(self, artifact_id: str, query: str, max_results: int = 10) -> str:
        artifact = self._store.get(artifact_id)
        return search_content(artifact, query, max_results, parsed=self._json(artifact))

    def _json(self, artifact: Artifact) -> Any:
        with self._lock:
            if artifact.id in self._parsed:
                self._parsed.move_to_end(artifact.id)
                return self._parsed[artifact.id]
        parsed = parse_json(artifact)
        with self._lock:
            self._parsed[artifact.id] = parsed
            while len(self._parsed) > _PARSED_CACHE:
                self._parsed.popitem(last=False)
        return parsed


def _declaration(name: str) -> FunctionToolProvider:
    """The shared provider whose schema and description the bound tools publish."""
    declared = _declared.get(name)
    if declared is None:
        function = _get_artifact_field if name == GET_ARTIFACT_FIELD else _search_artifact_content
        declared = _declared[name] = FunctionToolProvider(function)
    return declared


# The two signatures the model is shown. They are never called: the bound providers run the
# `_Reader` of their conversation instead. Kept private so that no module scan registers them.


@tool(
    name=GET_ARTIFACT_FIELD,
    read_only=True,
    risk="low",
    display_name="Read artifact",
    action_verb="Reading",
)
def _get_artifact_field(artifact_id: str, path: str = "") -> str:
    """Read part of an artifact: a large output kept aside, whose preview names its id.

    For a JSON artifact, path selects a value: keys separated by dots and list indexes in
    brackets, e.g. items[2].name; an empty path reads the whole value, or its outline when it
    is too large. For any artifact, path "lines:START-END" reads lines START to END (1-based).

    Args:
        artifact_id: The artifact id the preview names (art_...).
        path: The field path, or "lines:START-END"; empty for the whole artifact.
    """
    raise MisuseError("get_artifact_field runs bound to a conversation: use artifact_tools()")


@tool(
    name=SEARCH_ARTIFACT_CONTENT,
    read_only=True,
    risk="low",
    display_name="Search artifact",
    action_verb="Searching",
)
def _search_artifact_content(artifact_id: str, query: str, max_results: int = 10) -> str:
    """Find text in an artifact: a large output kept aside, whose preview names its id.

    Case-insensitive, plain text (no regular expressions). A JSON artifact answers with the
    field path of each matching key or value; any other with the matching lines and their
    numbers.

    Args:
        artifact_id: The artifact id the preview names (art_...).
        query: The word or phrase to find.
        max_results: The most matches to list (1 to 100).
    """
    raise MisuseError("search_artifact_content runs bound to a conversation: use artifact_tools()")
