"""`LLMBridge`: reads the installed ``llm`` plugins and makes a provider of each tool.

An ``llm`` plugin is an entry point in the ``llm`` group whose module implements the
``register_tools(register)`` hook. ``llm`` loads every plugin into one global plugin manager,
and one plugin that fails to import stops them all; the bridge loads each on its own, into a
plugin manager of its own, and calls its ``register_tools`` with a ``register`` that takes
what ``llm``'s takes (a function, an ``llm.Tool``, an ``llm.Toolbox`` subclass, and an
optional ``name``). A plugin that fails to import, whose hook is invalid or raises, is recorded
as failed with the reason nucleo gives for any broken plugin, logged, and skipped; the others
are still bridged. The records go back to nucleo with the tools (`ToolPackResult`), so each
``llm`` plugin is a row under the bridge in ``nucleo plugins``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import importlib.metadata
import inspect
import logging
import os
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, final

from nucleo_core import PluginError, PluginRecord
from nucleo_core.plugins import ToolPackResult, import_failure
from nucleo_tools_llm.config import LLMConfig, discover_config, normalized_name
from nucleo_tools_llm.provider import (
    LLMToolProvider,
    ToolboxInstances,
    schema_problems,
    toolbox_overrides,
)

__all__ = ["LLM_GROUP", "LLMBridge", "llm_tools"]

#: The entry point group ``llm`` plugins are declared in.
LLM_GROUP = "llm"

#: Where the bridge reports broken plugins and left-out tools. A child of ``nucleo``, so the
#: ``nucleo`` commands print each as a ``Warning:`` line.
logger = logging.getLogger("nucleo.llm")


@dataclass(frozen=True, slots=True)
class _Registered:
    """One thing a plugin's ``register_tools`` registered, with the name it was given."""

    item: Any
    name: str | None


class _Skipped(Exception):
    """One registered tool or Toolbox cannot be bridged; ``str()`` says why and how to fix."""


@final
class LLMBridge:
    """The tools of the installed ``llm`` plugins, as nucleo providers.

    `load` reads the ``llm`` entry points (sorted by name), each plugin on its own; `providers`
    then holds a provider per tool, in plugin order, and `records` a `PluginRecord` per plugin
    (group ``llm``) saying what became of it. Nothing is read until `load` is called.

    Args:
        config: What the configuration declares; ``None`` reads the project's
            (`discover_config`, from the working directory).
        path: The only folders to find distributions in (``*.dist-info``), instead of
            everywhere Python finds installed ones; their modules must be importable.
    """

    def __init__(
        self,
        config: LLMConfig | None = None,
        *,
        path: Sequence[str | os.PathLike[str]] | None = None,
    ) -> None:
        self.config = config if config is not None else discover_config()
        self.path = None if path is None else [os.fspath(folder) for folder in path]
        self._providers: list[LLMToolProvider] = []
        self._records: list[PluginRecord] = []
        self._lock = threading.Lock()
        self._loaded = False

    @property
    def providers(self) -> tuple[LLMToolProvider, ...]:
        """A provider per bridged tool, in plugin order (empty until `load`)."""
        return tuple(self._providers)

    @property
    def records(self) -> tuple[PluginRecord, ...]:
        """A record per ``llm`` plugin met, in load order (empty until `load`)."""
        return tuple(self._records)

    def load(self) -> LLMBridge:
        """Read the installed ``llm`` plugins, once; return the bridge.

        Raises:
            PluginError: The configuration says ``strict = true`` and a plugin failed, or a
                Toolbox or tool of one could not be bridged.
        """
        with self._lock:
            if not self._loaded:
                self._loaded = True
                self._load()
        return self

    # -- loading ---------------------------------------------------------------------------

    def _load(self) -> None:
        import llm
        import pluggy

        manager = pluggy.PluginManager("llm")
        manager.add_hookspecs(llm.hookspecs)
        taken: dict[str, str] = {}
        for point, distribution, version in self._entry_points():
            record = PluginRecord(
                name=point.name,
                group=LLM_GROUP,
                value=point.value,
                distribution=distribution,
                version=version,
                status="loaded",
            )
            self._records.append(self._load_plugin(manager, point, record, taken))
        self._check_names_used()

    def _entry_points(
        self,
    ) -> list[tuple[importlib.metadata.EntryPoint, str | None, str | None]]:
        if self.path is None:
            points: Iterable[importlib.metadata.EntryPoint] = importlib.metadata.entry_points(
                group=LLM_GROUP
            )
        else:
            points = [
                point
                for found in importlib.metadata.distributions(path=self.path)
                for point in found.entry_points
                if point.group == LLM_GROUP
            ]
        found: dict[tuple[str, str], tuple[importlib.metadata.EntryPoint, str | None, str | None]]
        found = {}
        for point in points:
            shipped = getattr(point, "dist", None)
            try:  # a distribution's metadata is read from disk, and may be broken
                distribution = None if shipped is None else shipped.metadata["Name"]
                version = None if shipped is None else shipped.version
            except Exception:
                distribution = version = None
            found.setdefault((point.name, point.value), (point, distribution, version))
        return [found[key] for key in sorted(found)]

    def _load_plugin(
        self,
        manager: Any,
        point: importlib.metadata.EntryPoint,
        record: PluginRecord,
        taken: dict[str, str],
    ) -> PluginRecord:
        import pluggy

        try:
            module = point.load()
        except Exception as exc:  # isolate any failure of third-party import-time code
            return self._fail(record, import_failure(point, exc), exc)
        if manager.is_registered(module):
            note = f"already loaded as llm:{manager.get_name(module)}"
            return dataclasses.replace(record, status="duplicate", note=note)
        try:
            manager.register(module, name=point.name)
        except (pluggy.PluginValidationError, ValueError) as exc:
            return self._fail(record, f"invalid hook implementation: {_one_line(exc)}", exc)
        registered: list[_Registered] = []

        def register(tool_or_function: Any, name: str | None = None) -> None:
            registered.append(_Registered(_checked(tool_or_function), name))

        for impl in manager.hook.register_tools.get_hookimpls():
            if impl.plugin is not module:
                continue
            offered = {"register": register}
            try:
                impl.function(*(offered[argument] for argument in impl.argnames))
            except Exception as exc:  # isolate the plugin: its tools are not bridged
                reason = f"raised in register_tools: {type(exc).__name__}: {_one_line(exc)}"
                return self._fail(record, reason, exc)
        contributed: list[str] = []
        problems: list[str] = []
        packs = tuple(name for name in (point.name, record.distribution) if name)
        for entry in registered:
            try:
                providers = self._providers_of(entry, record, packs)
            except _Skipped as exc:
                problems.append(str(exc))
                continue
            for provider in providers:
                earlier = taken.get(provider.name)
                if earlier is not None:
                    problems.append(
                        f"tool {provider.name} left out: llm:{earlier} registered a tool of "
                        "that name first"
                    )
                    continue
                taken[provider.name] = point.name
                self._providers.append(provider)
                contributed.append(f"tool: {provider.name}")
        record = dataclasses.replace(
            record, contributed=tuple(contributed), hook_errors=tuple(problems)
        )
        for problem in problems:
            logger.warning("plugin %s (%s): %s", record.plugin, _shipped(record), problem)
            if self.config.strict:
                raise PluginError(record.plugin, record.distribution, problem)
        return record

    def _fail(self, record: PluginRecord, reason: str, cause: Exception) -> PluginRecord:
        failed = dataclasses.replace(record, status="failed", error=reason, note=_fix(record))
        logger.warning("plugin %s (%s) was not loaded: %s", record.plugin, _shipped(record), reason)
        if self.config.strict:
            raise PluginError(record.plugin, record.distribution, reason) from cause
        return failed

    def _providers_of(
        self, entry: _Registered, record: PluginRecord, packs: tuple[str, ...]
    ) -> list[LLMToolProvider]:
        import llm

        item = entry.item
        if isinstance(item, type):
            return self._toolbox_providers(item, entry.name or item.__name__, record, packs)
        tool = (
            item if isinstance(item, llm.Tool) else llm.Tool.function(item, name=entry.name)  # type: ignore[no-untyped-call]
        )
        name = entry.name or tool.name
        if tool.implementation is None:
            raise _Skipped(f"tool {name} left out: its llm.Tool has no implementation")
        return [self._provider(tool, name, record, packs, implementation=tool.implementation)]

    def _toolbox_providers(
        self, cls: type[Any], toolbox: str, record: PluginRecord, packs: tuple[str, ...]
    ) -> list[LLMToolProvider]:
        arguments = self.config.arguments(toolbox)
        self._check_arguments(cls, toolbox, arguments)
        instances = ToolboxInstances(cls, name=toolbox, arguments=arguments)
        overrides = toolbox_overrides(cls)
        if overrides:
            # The Toolbox makes its tools at run time (add_tool in prepare, its own tools()):
            # one instance, built and prepared now, says which; each conversation gets its own.
            try:
                tools = _listed_tools(cls, arguments, overrides)
            except Exception as exc:
                raise _Skipped(
                    f"toolbox {toolbox} left out: building it to list its tools raised "
                    f"{type(exc).__name__}"
                ) from exc
        else:
            tools = cls.method_tools()
        providers = []
        for tool in tools:
            method = getattr(cls, tool.name.removeprefix(f"{cls.__name__}_"), None)
            providers.append(
                self._provider(
                    tool,
                    tool.name,
                    record,
                    packs,
                    toolbox=instances,
                    toolbox_name=toolbox,
                    signature_of=method if callable(method) else tool.implementation,
                )
            )
        return providers

    def _check_arguments(self, cls: type[Any], toolbox: str, arguments: Mapping[str, Any]) -> None:
        try:
            signature = inspect.signature(cls)
        except (TypeError, ValueError):
            return
        where = self.config.where("toolboxes", toolbox)
        accepted = signature.parameters
        takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in accepted.values())
        unknown = sorted(set(arguments) - set(accepted)) if not takes_any else []
        missing = [
            name
            for name, parameter in accepted.items()
            if parameter.default is inspect.Parameter.empty
            and parameter.kind in (parameter.POSITIONAL_OR_KEYWORD, parameter.KEYWORD_ONLY)
            and name not in arguments
        ]
        if missing:
            file = self.config.origin.rpartition(" [")[0] or "nucleo.toml"
            raise _Skipped(
                f"toolbox {toolbox} left out: its constructor needs {', '.join(missing)}; set "
                f"them in {where} of {file}"
            )
        if unknown:
            raise _Skipped(
                f"toolbox {toolbox} left out: its constructor takes no {', '.join(unknown)} "
                f"({where}); it takes {', '.join(accepted) or 'no arguments'}"
            )

    def _provider(
        self,
        tool: Any,
        name: str,
        record: PluginRecord,
        packs: tuple[str, ...],
        *,
        implementation: Callable[..., Any] | None = None,
        toolbox: ToolboxInstances | None = None,
        toolbox_name: str | None = None,
        signature_of: Callable[..., Any] | None = None,
    ) -> LLMToolProvider:
        problems = schema_problems(tool.input_schema)
        if problems:
            raise _Skipped(f"tool {name} left out: {'; '.join(problems)}")
        read_only, risk = self.config.declared(tool=name, toolbox=toolbox_name, packs=packs)
        return LLMToolProvider(
            name=name,
            description=inspect.cleandoc(tool.description or "").strip(),
            input_schema=dict(tool.input_schema),
            plugin=record.name,
            distribution=record.distribution,
            read_only=read_only,
            risk=risk,
            implementation=implementation,
            toolbox=toolbox,
            signature_of=signature_of,
        )

    def _check_names_used(self) -> None:
        """Warn about configuration tables that name nothing bridged: likely a typo."""
        config = self.config
        tools = {provider.name for provider in self._providers}
        toolboxes = {
            provider.toolbox.name for provider in self._providers if provider.toolbox is not None
        }
        packs = {
            normalized_name(name)
            for record in self._records
            for name in (record.name, record.distribution)
            if name
        }
        unused = [
            config.where("tools", name) for name in config.tools if name not in tools | toolboxes
        ]
        unused += [config.where("packs", name) for name in config.packs if name not in packs]
        unused += [
            config.where("toolboxes", name)
            for name in config.toolboxes
            if name not in toolboxes and not _toolbox_left_out(self._records, name)
        ]
        for table in unused:
            logger.warning(
                "%s (%s) names no installed tool, Toolbox or llm plugin; check its spelling",
                table,
                config.origin,
            )


def _checked(tool_or_function: Any) -> Any:
    """What ``llm``'s own ``register`` accepts, or the ``TypeError`` it raises."""
    import llm

    if inspect.isclass(tool_or_function) and not issubclass(tool_or_function, llm.Toolbox):
        raise TypeError(
            f"Toolbox classes must inherit from llm.Toolbox, {tool_or_function.__name__} does not."
        )
    plain = not inspect.isclass(tool_or_function) and not isinstance(tool_or_function, llm.Tool)
    if plain and not callable(tool_or_function):
        raise TypeError(f"cannot register a {type(tool_or_function).__name__} as a tool")
    return tool_or_function


def _listed_tools(cls: type[Any], arguments: Mapping[str, Any], overrides: set[str]) -> list[Any]:
    toolbox = cls(**arguments)
    if "prepare" in overrides:
        toolbox.prepare()
    elif "prepare_async" in overrides:
        # Plugins load in synchronous code that may itself run inside an event loop.
        failure: list[BaseException] = []

        def prepare() -> None:
            try:
                asyncio.run(toolbox.prepare_async())
            except BaseException as exc:
                failure.append(exc)

        worker = threading.Thread(target=prepare, name="nucleo-llm-prepare")
        worker.start()
        worker.join()
        if failure:
            raise failure[0]
    return list(toolbox.tools())


def _toolbox_left_out(records: Iterable[PluginRecord], toolbox: str) -> bool:
    return any(
        problem.startswith(f"toolbox {toolbox} left out")
        for record in records
        for problem in record.hook_errors
    )


def _fix(record: PluginRecord) -> str:
    """What to do about a broken ``llm`` plugin, for its record; the others are bridged."""
    shipped = record.distribution
    if shipped is None:
        return f"fix or remove the llm plugin {record.name}; the other llm plugins are bridged"
    return (
        f"reinstall {shipped} with its dependencies (pip install --force-reinstall {shipped}) "
        f"or uninstall it (pip uninstall {shipped}); the other llm plugins are bridged"
    )


def _shipped(record: PluginRecord) -> str:
    return " ".join(part for part in (record.distribution, record.version) if part) or (
        "no known distribution"
    )


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())


def llm_tools() -> ToolPackResult:
    """The ``nucleo.tools`` entry point: the tools of the installed ``llm`` plugins.

    Returns a `ToolPackResult`: a provider per bridged tool, and the `PluginRecord` of each
    ``llm`` plugin met (group ``llm``), so ``nucleo plugins`` lists every ``llm`` pack under
    the bridge, a broken one with its reason. The configuration is read from the working
    directory (`discover_config`). A broken plugin is also logged and skipped; with
    ``strict = true`` it raises `PluginError`, and nucleo records the whole bridge as failed.
    """
    bridge = LLMBridge().load()
    return ToolPackResult(tools=bridge.providers, subplugins=bridge.records)
