"""Provider-native deferral: a catalog sent deferred, each tool admitted at its first call.

Under the ``"provider"`` offer (`ToolOffer`) the catalog is sent deferred (`DeferredToolSpec`,
Anthropic's ``defer_loading``) and the model provider searches it; a deferred tool's first call
is admitted through the door before it runs, and a refusal is `ToolNotAdmitted`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, ClassVar

from nucleo_core.errors import CorrectableError
from nucleo_core.hub._thinker_entries import entries_of
from nucleo_core.tools.awareness import ConversationAware, RegistryAware
from nucleo_core.tools.provider import RawInput, ToolProvider
from nucleo_core.tools.risk import Risk
from nucleo_core.tools.spec import ToolSpec
from nucleo_core.tools.tool import Tool, run_tool

__all__ = ["DeferredToolProvider", "DeferredToolSpec", "ToolNotAdmitted"]


class ToolNotAdmitted(CorrectableError):
    """A deferred tool's first call, refused at the admission door.

    Attributes:
        tool: The tool's name.
        reason: Why admission refused it (what the model reads).
    """

    def __init__(self, tool: str, reason: str) -> None:
        self.tool = tool
        self.reason = reason
        super().__init__(
            f"Tool '{tool}' was not granted to you: {reason or 'refused by admission'}. "
            "Do not call it again; use another tool."
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class DeferredToolSpec(ToolSpec):
    """The spec of a tool sent deferred.

    A model client that defers sends it with ``defer_loading`` (its definition stays out of
    the prompt until the provider's own tool search loads it); one that cannot is never handed
    it (the thinker falls back to ``search_tools``).
    """

    #: What a model client reads to send the spec deferred.
    deferred: ClassVar[bool] = True


class DeferredToolProvider(ToolProvider):
    """A catalog tool offered deferred: the door checks it like any tool, admission first.

    Everything the door reads (name, schema, input parsing, read-only, risk, source) is the
    catalog tool's own, so the per-call check is unchanged; its first call is sent through the
    admission door before the tool runs, and a refusal is the call's correctable error
    (`ToolNotAdmitted`). It stays the palette's entry once admitted, so the tool list the
    provider was sent never changes for it.
    """

    __slots__ = ("_provider", "_spec")

    def __init__(self, provider: ToolProvider) -> None:
        self._provider = provider
        self._spec: DeferredToolSpec | None = None

    @property
    def provider(self) -> ToolProvider:
        """The catalog tool this defers."""
        return self._provider

    @property
    def name(self) -> str:
        """The catalog tool's name."""
        return self._provider.name

    @property
    def description(self) -> str:
        """The catalog tool's description."""
        return self._provider.description

    @property
    def input_schema(self) -> Mapping[str, Any]:
        """The catalog tool's input schema."""
        return self._provider.input_schema

    @property
    def output_schema(self) -> Mapping[str, Any] | None:
        """The catalog tool's output schema."""
        return self._provider.output_schema

    @property
    def display_name(self) -> str:
        """The catalog tool's display name."""
        return self._provider.display_name

    @property
    def read_only(self) -> bool:
        """Whether the catalog tool is declared read-only."""
        return self._provider.read_only

    @property
    def risk(self) -> Risk:
        """The catalog tool's risk (the permission guard reads it as the tool's own)."""
        return self._provider.risk

    @property
    def risk_declared(self) -> bool:
        """Whether the catalog tool declared its risk."""
        return self._provider.risk_declared

    @property
    def source(self) -> str:
        """The catalog tool's source."""
        return self._provider.source

    @property
    def sequential(self) -> bool:
        """``True``: a first call admits the tool, which changes what the thinker holds."""
        return True

    @property
    def input_type(self) -> type[Any] | None:
        """The catalog tool's input type."""
        return self._provider.input_type

    def parse_input(self, raw: RawInput) -> Any:
        """Parsed by the catalog tool itself."""
        return self._provider.parse_input(raw)

    def create(self, parent: object | None = None) -> Tool[Any, Any]:
        """A tool that admits the catalog tool (first call only), then runs it."""
        return _DeferredTool(parent, self._provider)

    def spec(self) -> DeferredToolSpec:
        """The catalog tool's spec, marked deferred."""
        spec = self._spec
        if spec is None:
            own = self._provider.spec()
            # Every field of the catalog tool's own spec, as it is.
            copied = {field.name: getattr(own, field.name) for field in fields(ToolSpec)}
            spec = self._spec = DeferredToolSpec(**copied)
        return spec

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DeferredToolProvider) and self._provider == other._provider

    def __hash__(self) -> int:
        return hash((type(self), self._provider.name))


class _DeferredTool(Tool[Any, Any], ConversationAware, RegistryAware):
    """Admits the catalog tool (first call only), then runs it.

    It mixes in the executor's awareness markers to hand the conversation and registry on to
    the catalog tool.
    """

    is_async = True

    def __init__(self, parent: object | None, provider: ToolProvider) -> None:
        super().__init__(parent)
        self._provider = provider
        self._conversation: Any = None
        self._registry: Any = None

    def bind_conversation(self, conversation: Any) -> None:
        self._conversation = conversation

    def bind_registry(self, registry: Any) -> None:
        self._registry = registry

    async def run(self, input: Any) -> Any:
        parent = self.parent
        entries = entries_of(parent)  # the thinker's own door, not an override
        if entries is None:
            raise TypeError("a deferred tool runs for a thinker (ThinkerBase)")
        provider = await entries.admitted_deferred(self._provider)
        tool = provider.create(parent)
        if isinstance(tool, ConversationAware) and self._conversation is not None:
            tool.bind_conversation(self._conversation)
        if isinstance(tool, RegistryAware) and self._registry is not None:
            tool.bind_registry(self._registry)
        return await run_tool(tool, input)
