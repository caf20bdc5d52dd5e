"""`Tool`: the base class of a tool written as a class."""

from __future__ import annotations

import inspect
from abc import ABC, abstractmethod
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar, cast, get_args, get_origin

if TYPE_CHECKING:
    from pydantic import BaseModel

    from nucleo_core.tools.declaration import ToolDeclaration

__all__ = ["InT", "OutT", "Tool", "io_types", "run_tool"]

InT = TypeVar("InT", bound="BaseModel")
OutT = TypeVar("OutT")


class Tool(ABC, Generic[InT, OutT]):
    """A tool written as a class: ``class Search(Tool[SearchInput, SearchResult])``.

    The input type is a pydantic model, the output type anything; ``run`` may be a plain or an
    ``async`` method. Declare the class with ``@tool(...)``. A tool instance is built per call by
    its provider's ``create(parent)``: through ``__init__(self, parent)`` when the constructor
    takes a parent, else through ``__init__(self)``.

    Example:
        >>> from pydantic import BaseModel
        >>> from nucleo_core import Tool, tool
        >>> class EchoInput(BaseModel):
        ...     text: str
        >>> @tool(name="echo", read_only=True, risk="low")
        ... class Echo(Tool[EchoInput, str]):
        ...     '''Repeat the text back.'''
        ...     def run(self, input: EchoInput) -> str:
        ...         return input.text
    """

    #: Set by ``@tool`` on the class it declares.
    __nucleo_tool__: ClassVar[ToolDeclaration]
    #: Whether ``run`` is a coroutine function; computed once per class.
    is_async: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        run = cls.__dict__.get("run")
        if run is not None:
            cls.is_async = inspect.iscoroutinefunction(run)

    def __init__(self, parent: object | None = None) -> None:
        self.parent = parent

    @abstractmethod
    def run(self, input: InT) -> OutT | Awaitable[OutT]:
        """Do the tool's work on validated input and return its output."""


async def run_tool(tool: Tool[InT, OutT], input: InT) -> OutT:
    """Run a tool on validated input: awaited when async, in a worker thread when not.

    A synchronous tool runs in one of nucleo's worker threads (`tool_threads`) so that a
    blocking call cannot stall the event loop that other tools of the same turn run on; the
    caller's context variables go with it, as with ``asyncio.to_thread``.
    """
    if tool.is_async:
        return await cast("Awaitable[OutT]", tool.run(input))
    import asyncio  # imported here: asyncio costs ~15 ms at `import nucleo_core`
    import contextvars
    import functools

    from nucleo_core.tools.workers import tool_threads

    call = functools.partial(contextvars.copy_context().run, tool.run, input)
    result = await asyncio.get_running_loop().run_in_executor(tool_threads(), call)
    if inspect.isawaitable(result):  # a sync `run` that returned an awaitable anyway
        return cast("OutT", await result)
    return result


def io_types(cls: type[Any]) -> tuple[object, object]:
    """The ``(input, output)`` type arguments a `Tool` subclass was parameterised with.

    Walks the class's ancestry for the nearest ``Tool[In, Out]`` base; a base left
    unparameterised (or parameterised with type variables) yields ``None`` for that slot.
    """
    for klass in cls.__mro__:
        for base in getattr(klass, "__orig_bases__", ()):
            if get_origin(base) is Tool:
                args = get_args(base)
                if len(args) == 2:
                    given_input, given_output = args
                    return (
                        None if isinstance(given_input, TypeVar) else given_input,
                        None if isinstance(given_output, TypeVar) else given_output,
                    )
    return (None, None)
