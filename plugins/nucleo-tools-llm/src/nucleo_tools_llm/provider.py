"""`LLMToolProvider`: one tool an ``llm`` plugin registered, as nucleo's registry sees it.

``llm`` calls a tool's ``implementation`` with the model's arguments as keyword arguments, a
Toolbox's methods on one instance of the Toolbox, and renders what is not text as JSON. The
bridge does the same, with nucleo's rules around it: the input is validated against ``llm``'s
own published schema first (a refusal names fields and types, never the value sent), each
conversation gets its own Toolbox instance (dropped when the conversation ends), and a tool
that raises is a failed call whose message the model never reads (nucleo's tool execution
shows it only the exception's type, since the message may quote its input or a secret).
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import inspect
import json
from collections.abc import Awaitable, Callable, Mapping
from types import MappingProxyType
from typing import Any, final

from nucleo_core import Risk, Tool, ToolProvider
from nucleo_core.tools import RawInput, SchemaInput
from nucleo_core.tools.state import ConversationStates, state_conversation_id
from nucleo_core.tools.workers import tool_threads

__all__ = ["LLM_PREFIX", "LLMToolCall", "LLMToolProvider", "ToolboxInstances", "render_result"]

#: The source prefix of bridged tools: ``llm:<llm plugin>:<tool>``.
LLM_PREFIX = "llm:"

#: The parameter ``llm`` fills with the `llm.ToolCall` itself, never part of the schema.
_TOOL_CALL_PARAMETER = "llm_tool_call"


def render_result(result: object) -> str:
    """What the model reads of a tool's return value, as ``llm`` renders it.

    An `llm.ToolOutput` is its ``output`` (its attachments are not carried: nucleo's tool
    results are text). Text is kept as it is; anything else is JSON, with what JSON cannot hold
    written as its ``repr()``, as ``llm`` does.
    """
    import llm

    output_type = getattr(llm, "ToolOutput", None)
    if output_type is not None and isinstance(result, output_type):
        result = result.output
    if isinstance(result, str):
        return result
    return json.dumps(result, ensure_ascii=False, default=repr)


class _Instance:
    """One conversation's Toolbox instance, on a thread of its own.

    ``llm`` builds a Toolbox and calls its methods in one thread, and packs rely on it: a
    ``sqlite3`` connection, say, refuses to be used from a thread other than its creator's.
    So the instance is built, prepared and called on one worker thread kept for it, which
    ends when the conversation's state is dropped.
    """

    __slots__ = ("_build", "_executor", "_implementations", "_needs_async_prepare", "toolbox")

    def __init__(self, build: Callable[[], tuple[Any, bool]], name: str) -> None:
        from concurrent.futures import ThreadPoolExecutor

        self._build = build
        self._executor = ThreadPoolExecutor(1, thread_name_prefix=f"nucleo-llm-{name}")
        self.toolbox: Any = None
        self._needs_async_prepare = False
        self._implementations: dict[str, Callable[..., Any]] | None = None

    def _built(self) -> Any:
        # Runs on the instance's one thread, so two first calls build it once.
        if self.toolbox is None:
            self.toolbox, self._needs_async_prepare = self._build()
        return self.toolbox

    async def ready(self) -> Any:
        """The Toolbox instance, built and prepared on first use."""
        toolbox = await self.run(self._built)
        if self._needs_async_prepare:
            self._needs_async_prepare = False
            await toolbox.prepare_async()
            toolbox._async_prepared = True
        return toolbox

    async def run(self, function: Callable[..., Any], *args: Any) -> Any:
        """``function(*args)`` on the instance's thread, with the caller's context variables."""
        call = functools.partial(contextvars.copy_context().run, function, *args)
        return await asyncio.get_running_loop().run_in_executor(self._executor, call)

    def implementation(self, name: str) -> Callable[..., Any]:
        """The bound implementation of the built instance's tool ``name``.

        Raises:
            LookupError: The instance has no such tool (its ``prepare`` added other tools
                than the instance the bridge listed them from).
        """
        if self._implementations is None:
            self._implementations = {
                tool.name: tool.implementation
                for tool in self.toolbox.tools()
                if tool.implementation is not None
            }
        found = self._implementations.get(name)
        if found is None:
            raise LookupError(f"this {type(self.toolbox).__name__} instance has no tool {name}")
        return found

    def forget_conversation_state(self) -> None:
        """Let the instance's thread end (what it runs now finishes first); drop the instance."""
        self._executor.shutdown(wait=False)
        self.toolbox = None


@final
class ToolboxInstances:
    """One instance of an ``llm.Toolbox`` class per conversation, shared by all its tools.

    An instance is built with the configured constructor arguments on the first call of one of
    the Toolbox's tools in a conversation, and prepared (``prepare()``, or ``prepare_async()``
    where only that is overridden) before its first call, as ``llm`` does; a call outside any
    conversation gets an instance of its own, dropped after the call. `forget` drops a
    conversation's instance.

    Args:
        toolbox_class: The ``llm.Toolbox`` subclass.
        name: The Toolbox's name as ``llm`` registered it.
        arguments: Its constructor's keyword arguments.
    """

    __slots__ = ("_arguments", "_class", "_states", "name")

    def __init__(self, toolbox_class: type[Any], *, name: str, arguments: Mapping[str, Any]):
        self._class = toolbox_class
        self.name = name
        self._arguments = dict(arguments)
        self._states: ConversationStates[_Instance] = ConversationStates(self._make, tool=name)

    def _make(self) -> _Instance:
        return _Instance(self._build, self.name)

    def _build(self) -> tuple[Any, bool]:
        import llm

        toolbox = self._class(**self._arguments)
        overrides = _overridden(self._class, llm.Toolbox)
        if "prepare" in overrides:
            toolbox.prepare()
            toolbox._prepared = True
        # prepare_async needs an event loop: it is awaited before the instance's first call.
        return toolbox, "prepare_async" in overrides and "prepare" not in overrides

    def instance(self, conversation_id: str | None) -> _Instance:
        """The instance of ``conversation_id``, made now if it has none; a fresh one for None."""
        if conversation_id is None:
            return self._states.fresh()
        return self._states.get(conversation_id)

    def peek(self, conversation_id: str) -> Any | None:
        """The Toolbox instance of ``conversation_id``, if it has one, without building one."""
        kept = self._states.peek(conversation_id)
        return None if kept is None else kept.toolbox

    def forget(self, conversation_id: str | None) -> None:
        """Drop the instance of ``conversation_id`` (``None``: of every conversation)."""
        self._states.forget(conversation_id)

    def __len__(self) -> int:
        return len(self._states)


def _overridden(cls: type[Any], base: type[Any]) -> set[str]:
    return {
        name
        for name in ("tools", "prepare", "prepare_async")
        if getattr(cls, name, None) is not getattr(base, name, None)
    }


def toolbox_overrides(cls: type[Any]) -> set[str]:
    """Which of ``tools``, ``prepare`` and ``prepare_async`` a Toolbox class overrides."""
    import llm

    return _overridden(cls, llm.Toolbox)


@final
class LLMToolProvider(ToolProvider):
    """One tool an ``llm`` plugin registered, bridged.

    - **name**: as ``llm`` gives it (a Toolbox method's is ``<Class>_<method>``).
    - **description**: ``llm``'s (the function's docstring), its indentation cleaned.
    - **input schema**: ``llm``'s own (`llm.Tool.input_schema`), published as it is.
    - **read-only and risk**: from the configuration; undeclared, mutating and ``high``.
    - **source**: ``llm:<llm plugin>:<tool>``, the plugin being the ``llm`` entry point name.
    - **sequential**: ``llm`` runs a response's tool calls one after another, and packs are
      written for that (a Toolbox instance is not guarded against two calls at once).

    Build one with `nucleo_tools_llm.LLMBridge`, which reads the installed plugins.
    """

    __slots__ = (
        "_description",
        "_distribution",
        "_implementation",
        "_input_schema",
        "_metadata",
        "_name",
        "_parser",
        "_passes_tool_call",
        "_plugin",
        "_read_only",
        "_risk",
        "_toolbox",
    )

    def __init__(
        self,
        *,
        name: str,
        description: str,
        input_schema: Mapping[str, Any],
        plugin: str,
        distribution: str | None,
        read_only: bool,
        risk: Risk | None,
        implementation: Callable[..., Any] | None = None,
        toolbox: ToolboxInstances | None = None,
        signature_of: Callable[..., Any] | None = None,
    ) -> None:
        if (implementation is None) == (toolbox is None):
            raise ValueError("give exactly one of implementation and toolbox")
        self._name = name
        self._description = description
        self._input_schema = input_schema
        self._plugin = plugin
        self._distribution = distribution
        self._read_only = read_only
        self._risk = risk
        self._implementation = implementation
        self._toolbox = toolbox
        shape = _signature(signature_of or implementation)
        self._passes_tool_call = shape is not None and _TOOL_CALL_PARAMETER in shape.parameters
        # The closed schema is checked, llm's own is published.
        self._parser = SchemaInput(name, _closed(input_schema, shape))
        self._metadata = MappingProxyType(
            {
                "llm_plugin": plugin,
                "llm_distribution": distribution,
                "llm_toolbox": None if toolbox is None else toolbox.name,
            }
        )

    # -- the provider surface -----------------------------------------------------------------

    @property
    def name(self) -> str:
        """The name ``llm`` gives the tool."""
        return self._name

    @property
    def description(self) -> str:
        """``llm``'s description of the tool, cleaned of its docstring indentation."""
        return self._description

    @property
    def input_schema(self) -> Mapping[str, Any]:
        """``llm``'s input schema of the tool (shared: do not mutate)."""
        return self._input_schema

    @property
    def read_only(self) -> bool:
        """Whether the configuration declares the tool read-only (``llm`` cannot say)."""
        return self._read_only

    @property
    def risk(self) -> Risk:
        """The risk the configuration declares for the tool, its Toolbox or its pack."""
        return self._risk if self._risk is not None else Risk.HIGH

    @property
    def risk_declared(self) -> bool:
        """Whether the configuration declared a risk (else ``risk`` is the ``high`` default)."""
        return self._risk is not None

    @property
    def source(self) -> str:
        """``llm:<llm plugin>:<tool>``."""
        return f"{LLM_PREFIX}{self._plugin}:{self._name}"

    @property
    def sequential(self) -> bool:
        """Always: ``llm`` runs tool calls one at a time, and packs rely on it."""
        return True

    @property
    def metadata(self) -> Mapping[str, Any]:
        """``llm_plugin``, ``llm_distribution`` and ``llm_toolbox`` (``None`` for a function)."""
        return self._metadata

    @property
    def plugin(self) -> str:
        """The ``llm`` entry point name of the plugin that registered the tool."""
        return self._plugin

    @property
    def distribution(self) -> str | None:
        """The distribution that ships that plugin, where known."""
        return self._distribution

    @property
    def toolbox(self) -> ToolboxInstances | None:
        """The Toolbox instances of a Toolbox tool (``None`` for a function tool)."""
        return self._toolbox

    def parse_input(self, raw: RawInput) -> dict[str, Any]:
        """Validate a call's input against ``llm``'s schema.

        A field the schema does not declare is refused too, unless the implementation takes
        ``**kwargs``: ``llm`` would pass it on, and the call would fail with a ``TypeError``.

        Returns:
            The arguments, as a new dict.

        Raises:
            InvalidToolInput: Names each failing field path and its declared type; the
                validator's own message, which may quote the input, is only the ``__cause__``.
        """
        return self._parser.parse(raw)

    def create(self, parent: object | None = None) -> LLMToolCall:
        """A tool that runs one call, for ``parent`` (the thinker, or ``None``)."""
        return LLMToolCall(self, parent)

    def forget_conversation_state(self, conversation_id: str | None = None) -> None:
        """Drop the Toolbox instance of ``conversation_id`` (``None``: of every conversation).

        Every tool of the Toolbox is told; the first drops the instance, the others find none.
        """
        if self._toolbox is not None:
            self._toolbox.forget(conversation_id)

    async def call(self, arguments: Mapping[str, Any], *, conversation: str | None = None) -> str:
        """Run the tool on validated arguments; return what the model reads.

        Args:
            arguments: What `parse_input` returned.
            conversation: The conversation whose Toolbox instance runs the call; ``None`` for a
                fresh instance.

        Raises:
            Exception: Whatever the tool raised, unchanged.
        """
        keywords = dict(arguments)
        if self._passes_tool_call:
            import llm

            keywords[_TOOL_CALL_PARAMETER] = llm.ToolCall(
                name=self._name, arguments=dict(arguments)
            )
        if self._toolbox is None:
            assert self._implementation is not None  # one of the two is set, see __init__
            result = await _invoke(self._implementation, keywords, _in_tool_threads)
            return render_result(result)
        kept = self._toolbox.instance(conversation)
        try:
            await kept.ready()
            implementation = await kept.run(kept.implementation, self._name)
            result = await _invoke(implementation, keywords, kept.run)
        finally:
            if conversation is None:  # nothing keeps this instance: drop it with its call
                kept.forget_conversation_state()
        return render_result(result)


async def _invoke(
    implementation: Callable[..., Any],
    keywords: Mapping[str, Any],
    run: Callable[..., Awaitable[Any]],
) -> Any:
    """Call ``implementation``: awaited when async, through ``run`` (a worker) when not."""
    if inspect.iscoroutinefunction(implementation):
        return await implementation(**keywords)
    result = await run(functools.partial(implementation, **keywords))
    if inspect.isawaitable(result):  # a plain function that returned a coroutine
        result = await result
    return result


class LLMToolCall(Tool[Any, str]):
    """One call of a bridged tool: ``run`` calls ``llm``'s implementation.

    The Toolbox instance is the one of the conversation the call belongs to
    (`state_conversation_id`: for a tool a sub-thinker inherited, its parent's).
    """

    def __init__(self, provider: LLMToolProvider, parent: object | None = None) -> None:
        super().__init__(parent)
        self.provider = provider

    async def run(self, input: Mapping[str, Any]) -> str:
        """Call the tool with ``input`` (what `parse_input` returned)."""
        provider = self.provider
        conversation = None
        if provider.toolbox is not None:
            conversation = state_conversation_id(self.parent, provider)
        return await provider.call(input, conversation=conversation)


async def _in_tool_threads(function: Callable[..., Any]) -> Any:
    """``function()`` in nucleo's tool threads, with the caller's context variables."""
    call = functools.partial(contextvars.copy_context().run, function)
    return await asyncio.get_running_loop().run_in_executor(tool_threads(), call)


def _signature(function: Callable[..., Any] | None) -> inspect.Signature | None:
    if function is None:
        return None
    try:
        return inspect.signature(function)
    except (TypeError, ValueError):  # a builtin without a signature: nothing to learn
        return None


def _closed(schema: Mapping[str, Any], shape: inspect.Signature | None) -> Mapping[str, Any]:
    """``schema``, refusing undeclared fields unless the implementation takes ``**kwargs``."""
    if "additionalProperties" in schema or shape is None:
        return schema
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in shape.parameters.values()):
        return schema
    return {**schema, "additionalProperties": False}


def schema_problems(schema: object) -> list[str]:
    """Why ``schema`` cannot be published as a tool's input schema (nothing when it can)."""
    if not isinstance(schema, Mapping):
        return ["its input schema is not a JSON object"]
    problems = []
    if schema.get("type") != "object":
        problems.append('its input schema must declare "type": "object" at the root')
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError
    from jsonschema.validators import validator_for as dialect_of

    try:
        dialect_of(schema, default=Draft202012Validator).check_schema(dict(schema))
    except SchemaError as exc:
        at = "/".join(str(part) for part in exc.path) or "(root)"
        problems.append(f"its input schema is not a valid JSON Schema (at {at}: {exc.message})")
    return problems
