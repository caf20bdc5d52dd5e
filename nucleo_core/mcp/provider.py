"""`MCPToolProvider`: one tool an MCP server publishes, as the registry and the model see it."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, final

from nucleo_core.errors import ToolDeclarationError
from nucleo_core.mcp._caller import MCPToolCaller
from nucleo_core.mcp._descriptor import declared_safety, schema_problems
from nucleo_core.tools.provider import RawInput, ToolProvider
from nucleo_core.tools.risk import Risk
from nucleo_core.tools.schema_input import SchemaInput
from nucleo_core.tools.state import state_conversation_id
from nucleo_core.tools.tool import Tool

if TYPE_CHECKING:
    from nucleo_core.mcp.config import MCPServerConfig, SessionMode
    from nucleo_core.mcp.result import MCPToolResult

__all__ = ["MCP_PREFIX", "MCPTool", "MCPToolCaller", "MCPToolProvider"]

#: The source prefix of tools an MCP server publishes: ``mcp:<server>:<tool>``.
MCP_PREFIX = "mcp:"


@final
class MCPToolProvider(ToolProvider):
    """Wraps an MCP server's tool descriptor and routes calls through the client pool.

    - **name**: the tool's own, or ``<prefix>_<tool>`` when the server has a prefix.
    - **description, input and output schemas**: as the server publishes them.
    - **read-only and risk**: from the configuration. The server's ``readOnlyHint`` and
      ``destructiveHint`` count only where the configuration trusts its annotations; the
      risk is a per-tool declaration, else ``high`` for a trusted ``destructiveHint``, else
      the server's declared risk, or undeclared (``high``).
    - **source**: ``mcp:<server>:<tool>``.
    - **parse_input** validates against the published schema; a refusal names field paths and
      declared types, never the value sent.
    - **sessions**: for a server configured ``sessions = "conversation"``, a call goes to the
      session of the conversation it belongs to (`state_conversation_id`: a sub-thinker's call
      of an inherited tool, its parent's), and `forget_conversation_state` closes it.
    - **risk_policy**: the server's configured decisions per risk level, for the permission
      guard to read.

    Build one with `from_descriptor`, which checks the published schemas.
    """

    __slots__ = (
        "_annotations",
        "_caller",
        "_description",
        "_descriptor",
        "_display_name",
        "_input",
        "_input_schema",
        "_metadata",
        "_name",
        "_output_schema",
        "_read_only",
        "_risk",
        "_risk_declared",
        "_risk_policy",
        "_server",
        "_sessions",
        "_shadows",
        "_timeout",
        "_tool",
    )

    def __init__(
        self,
        *,
        server: str,
        tool: str,
        name: str,
        description: str,
        input_schema: Mapping[str, Any],
        output_schema: Mapping[str, Any] | None,
        display_name: str,
        read_only: bool,
        risk: Risk | None,
        annotations: Mapping[str, Any] | None,
        caller: MCPToolCaller,
        timeout: float | None = None,
        shadows: bool = False,
        descriptor: Mapping[str, Any] | None = None,
        sessions: SessionMode = "shared",
        risk_policy: Mapping[str, str] | None = None,
    ) -> None:
        self._server = server
        self._tool = tool
        self._name = name
        self._description = description
        self._input_schema = input_schema
        self._output_schema = output_schema
        self._display_name = display_name
        self._read_only = read_only
        self._risk = risk if risk is not None else Risk.HIGH
        self._risk_declared = risk is not None
        self._annotations = MappingProxyType(dict(annotations or {}))
        self._caller = caller
        self._timeout = timeout
        self._shadows = shadows
        self._descriptor = descriptor
        self._sessions: SessionMode = sessions
        self._risk_policy = None if risk_policy is None else MappingProxyType(dict(risk_policy))
        self._metadata = MappingProxyType(
            {"mcp_server": server, "mcp_tool": tool, "annotations": self._annotations}
        )
        # The quick check and the validator are built at the first call.
        self._input = SchemaInput(name, input_schema)

    @classmethod
    def from_descriptor(
        cls, config: MCPServerConfig, descriptor: Mapping[str, Any], caller: MCPToolCaller
    ) -> MCPToolProvider:
        """The provider of one tool of a ``tools/list`` answer (in its JSON wire form).

        Raises:
            ToolDeclarationError: The descriptor is unusable (no name, an input schema that is
                not a valid JSON Schema object schema, an invalid output schema); every problem
                is listed. The caller skips that tool and reports it, never the whole server.
        """
        tool = descriptor.get("name")
        target = f"{MCP_PREFIX}{config.name}:{tool if isinstance(tool, str) else '?'}"
        problems: list[str] = []
        if not isinstance(tool, str) or not tool:
            problems.append("the tool has no name")
        input_schema = descriptor.get("inputSchema")
        if not isinstance(input_schema, Mapping):
            problems.append("its inputSchema is not a JSON object")
        else:
            if input_schema.get("type") != "object":
                problems.append('its inputSchema must declare "type": "object" at the root')
            problems += schema_problems("inputSchema", input_schema)
        output_schema = descriptor.get("outputSchema")
        if output_schema is not None:
            if not isinstance(output_schema, Mapping):
                problems.append("its outputSchema is not a JSON object")
            else:
                problems += schema_problems("outputSchema", output_schema)
        if problems:
            raise ToolDeclarationError(target, problems)
        assert isinstance(tool, str)  # checked above
        assert isinstance(input_schema, Mapping)
        annotations = descriptor.get("annotations")
        annotations = annotations if isinstance(annotations, Mapping) else {}
        read_only, risk = declared_safety(config, tool, annotations)
        description = descriptor.get("description")
        title = descriptor.get("title") or annotations.get("title")
        return cls(
            server=config.name,
            tool=tool,
            name=config.tool_name(tool),
            description=description if isinstance(description, str) else "",
            # Plain dicts, as the renderers serialise them; shared, so never mutated.
            input_schema=dict(input_schema),
            output_schema=dict(output_schema) if isinstance(output_schema, Mapping) else None,
            display_name=title if isinstance(title, str) and title else tool,
            read_only=read_only,
            risk=risk,
            annotations=annotations,
            caller=caller,
            timeout=config.timeout,
            shadows=config.shadow,
            descriptor=descriptor,
            sessions=config.sessions,
            risk_policy=config.risk_policy,
        )

    # -- the provider surface -----------------------------------------------------------------

    @property
    def name(self) -> str:
        """The name the model calls the tool by: the tool's own, or ``<prefix>_<tool>``."""
        return self._name

    @property
    def description(self) -> str:
        """The description the server publishes."""
        return self._description

    @property
    def input_schema(self) -> Mapping[str, Any]:
        """The input schema the server publishes (shared: do not mutate)."""
        return self._input_schema

    @property
    def output_schema(self) -> Mapping[str, Any] | None:
        """The output schema the server publishes, or ``None``."""
        return self._output_schema

    @property
    def display_name(self) -> str:
        """The tool's ``title`` (or its annotations' title), else its own name."""
        return self._display_name

    @property
    def metadata(self) -> Mapping[str, Any]:
        """``mcp_server``, ``mcp_tool`` and the server's ``annotations`` (hints, unread)."""
        return self._metadata

    @property
    def read_only(self) -> bool:
        """Whether the configuration declares (or lets trusted hints declare) it read-only."""
        return self._read_only

    @property
    def risk(self) -> Risk:
        """The risk configured for the tool or its server; ``HIGH`` when none was."""
        return self._risk

    @property
    def risk_declared(self) -> bool:
        """Whether the configuration declared a risk for the tool or its server."""
        return self._risk_declared

    @property
    def source(self) -> str:
        """``mcp:<server>:<tool>``, with the server's own tool name."""
        return f"{MCP_PREFIX}{self._server}:{self._tool}"

    @property
    def server(self) -> str:
        """The id of the server that publishes the tool."""
        return self._server

    @property
    def tool(self) -> str:
        """The tool's name on its server (without any prefix)."""
        return self._tool

    @property
    def annotations(self) -> Mapping[str, Any]:
        """The server's annotations (hints), as published; read only where trusted."""
        return self._annotations

    @property
    def shadows(self) -> bool:
        """Whether the configuration lets this tool replace a native tool of the same name."""
        return self._shadows

    @property
    def descriptor(self) -> Mapping[str, Any] | None:
        """The ``tools/list`` entry it was built from (wire form), where there was one."""
        return self._descriptor

    @property
    def sessions(self) -> SessionMode:
        """``"conversation"`` when each conversation calls the server in a session of its own."""
        return self._sessions

    @property
    def risk_policy(self) -> Mapping[str, str] | None:
        """The server's configured decision per risk level (read-only), or ``None`` if none.

        The keys are risk levels (``low``, ``medium``, ``high``), the values ``auto``,
        ``notify``, ``confirm`` or ``deny``. Read by the permission guard; the MCP layer only
        carries it.
        """
        return self._risk_policy

    @property
    def timeout(self) -> float | None:
        """Seconds a call may take (the server's configured timeout)."""
        return self._timeout

    def parse_input(self, raw: RawInput) -> dict[str, Any]:
        """Validate a call's input against the published schema.

        Returns:
            The arguments, as a new dict.

        Raises:
            InvalidToolInput: Names each failing field path and its declared type; the
                validator's own message, which may quote the input, is only the ``__cause__``.
        """
        return self._input.parse(raw)

    def create(self, parent: object | None = None) -> MCPTool:
        """A tool that runs one call through the pool, for ``parent``."""
        return MCPTool(self, parent)

    async def call(
        self,
        arguments: Mapping[str, Any],
        *,
        timeout: float | None = None,
        conversation: str | None = None,
    ) -> MCPToolResult:
        """Call the tool with validated arguments; a failure is an error result.

        Args:
            arguments: What `parse_input` returned.
            timeout: Seconds the call may take; the server's configured timeout by default.
            conversation: The conversation the call belongs to: its own session, for a server
                configured ``sessions = "conversation"``; ``None``, the shared session.
        """
        return await self._caller.call(
            self._server,
            self._tool,
            arguments,
            timeout=timeout if timeout is not None else self._timeout,
            structured=self._output_schema is not None,
            conversation=conversation if self._sessions == "conversation" else None,
        )

    def forget_conversation_state(self, conversation_id: str | None = None) -> None:
        """Close the server's session for ``conversation_id`` (``None``: every conversation's).

        Only a server configured ``sessions = "conversation"`` keeps one; for a shared server
        it does nothing. It never blocks: the session closes on its own event loop. Every tool
        of the server is told, and the first one told closes the session.
        """
        if self._sessions == "conversation":
            self._caller.end_conversation(conversation_id, server=self._server)

    def same_as(self, other: MCPToolProvider) -> bool:
        """Whether ``other`` publishes exactly this tool (same server, descriptor and settings)."""
        return (
            self._server == other._server
            and self._name == other._name
            and self._descriptor == other._descriptor
            and self._read_only == other._read_only
            and self._risk == other._risk
            and self._risk_declared == other._risk_declared
            and self._shadows == other._shadows
            and self._timeout == other._timeout
            and self._sessions == other._sessions
            and self._risk_policy == other._risk_policy
        )


class MCPTool(Tool[Any, "MCPToolResult"]):
    """One call of an MCP tool: ``run`` sends the validated arguments to the server.

    ``run`` returns the `MCPToolResult`, an error result included (a timeout, a server that
    died, the server's own ``isError``): the model reads it and can correct. For a server
    configured ``sessions = "conversation"``, the call goes to the session of the conversation
    its thinker (``parent``) says it belongs to; outside any conversation, the shared one.
    """

    def __init__(self, provider: MCPToolProvider, parent: object | None = None) -> None:
        super().__init__(parent)
        self.provider = provider

    async def run(self, input: Mapping[str, Any]) -> MCPToolResult:
        """Call the tool on its server with ``input`` (what `parse_input` returned)."""
        provider = self.provider
        conversation = None
        if provider.sessions == "conversation":
            # The thinker's open conversation; for a tool a sub-thinker inherited, its
            # parent's (`Thinker.state_owner`), so a delegate works in the same session.
            conversation = state_conversation_id(self.parent, provider)
        return await provider.call(input, conversation=conversation)
