"""`ToolProvider`: the single abstraction the registry stores and the pipeline presents."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import fields
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, TypeAlias

from nucleo_core.tools.risk import Risk
from nucleo_core.tools.spec import ToolSpec

if TYPE_CHECKING:
    from nucleo_core.tools.state import CarriedState
    from nucleo_core.tools.tool import Tool

__all__ = ["NATIVE_PREFIX", "RawInput", "ToolProvider"]

#: What a model sends as a tool call's input: the JSON text, or the already-decoded object.
RawInput: TypeAlias = "str | bytes | bytearray | Mapping[str, Any]"

#: The source prefix of tools implemented in this process.
NATIVE_PREFIX = "native:"

_NO_METADATA: Mapping[str, Any] = MappingProxyType({})
_SPEC_FIELDS = tuple(field.name for field in fields(ToolSpec))


class ToolProvider(ABC):
    """Everything the thinker pipeline needs to present and invoke one tool.

    Registries store providers, never classes. Subclasses supply the name, description, input
    schema, input parsing and the factory; every other member has the safe default shown:
    ``read_only`` is ``False`` (a provider that cannot know treats its tool as mutating) and
    ``risk`` is ``HIGH`` (risk is declared, never inferred).
    """

    __slots__ = ()

    @property
    @abstractmethod
    def name(self) -> str:
        """The name the model calls the tool by."""

    @property
    @abstractmethod
    def description(self) -> str:
        """What the tool does, for the model."""

    @property
    @abstractmethod
    def input_schema(self) -> Mapping[str, Any]:
        """The published JSON schema of the tool's input (shared: do not mutate)."""

    @property
    def output_schema(self) -> Mapping[str, Any] | None:
        """The JSON schema of the tool's output, or ``None`` when the output ships as text."""
        return None

    @property
    def weight(self) -> float:
        """A relative cost hint; larger is heavier."""
        return 1.0

    @property
    def display_name(self) -> str:
        """A human-readable name for transcripts and UIs."""
        return self.name

    @property
    def action_verb(self) -> str:
        """What a UI shows while the tool runs."""
        return "Using"

    @property
    def metadata(self) -> Mapping[str, Any]:
        """An open mapping for the host; the framework never reads it."""
        return _NO_METADATA

    @property
    def admission_guardrails(self) -> tuple[Callable[[Any], Any], ...]:
        """Admission guardrail factories the tool declares itself (none by default).

        Each is called with the requesting thinker and returns an object whose
        ``check(provider)`` returns a ``Verdict``; the hub asks them with its own rules.
        """
        return ()

    @property
    def read_only(self) -> bool:
        """Whether the tool is declared to change nothing. ``False`` unless asserted."""
        return False

    @property
    def risk(self) -> Risk:
        """The effective declared risk; ``HIGH`` when nothing was declared."""
        return Risk.HIGH

    @property
    def risk_declared(self) -> bool:
        """Whether the risk was declared (``False`` means ``risk`` is the ``HIGH`` default)."""
        return False

    @property
    def source(self) -> str:
        """Where the tool comes from: ``native:<name>`` or ``mcp:<server>:<tool>``."""
        return NATIVE_PREFIX + self.name

    @property
    def restricting(self) -> bool:
        """Whether the tool imposes surface restrictions (it then stays in every surface)."""
        return False

    @property
    def shadows(self) -> bool:
        """Whether the tool may deliberately replace a tool of another kind under its name."""
        return False

    @property
    def sequential(self) -> bool:
        """Whether a call must finish before the next call of its turn is submitted."""
        return False

    @property
    def input_type(self) -> type[Any] | None:
        """The Python type ``parse_input`` returns, where there is one."""
        return None

    @abstractmethod
    def parse_input(self, raw: RawInput) -> Any:
        """Validate a call's input against the published schema and decode it.

        Raises:
            InvalidToolInput: The input does not fit; the message names field paths and
                declared types and never contains the value sent.
        """

    @abstractmethod
    def create(self, parent: object | None = None) -> Tool[Any, Any]:
        """Build the tool that runs one call, for ``parent`` (the thinker, or ``None``)."""

    def spec(self) -> ToolSpec:
        """The neutral spec a renderer turns into a model provider's tool definition.

        Each of its fields is this provider's member of the same name.
        """
        return ToolSpec(**{name: getattr(self, name) for name in _SPEC_FIELDS})

    def check(self) -> None:
        """Build everything lazily built now, so that a misdeclaration fails here.

        Raises:
            ToolDeclarationError: The tool's schemas cannot be built.
            SchemaRefinementError: The declared refiner failed.
        """
        self.spec()

    def carried_state(self, conversation_id: str | None = None) -> CarriedState | None:
        """State this tool wants carried across a compaction of a conversation, or ``None``.

        Args:
            conversation_id: The conversation being compacted; ``None`` when the caller does
                not name one.
        """
        del conversation_id
        return None

    def forget_conversation_state(  # noqa: B027  # optional hook, no-op default
        self, conversation_id: str | None = None
    ) -> None:
        """Drop whatever this tool keeps for a conversation that ended.

        A thinker calls it when the conversation ends (the end of a `Thinker` run; for a chat,
        ``end_conversation``), never after a single chat turn. A provider is shared by every
        thinker that registers it, so it should drop only the named conversation's state.

        Args:
            conversation_id: The conversation that ended; ``None`` when the caller does not
                name one (drop every conversation's state).
        """

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.source}>"
