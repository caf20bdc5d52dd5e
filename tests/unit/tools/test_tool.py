"""Unit tests of `Tool`, `run_tool` and `io_types`."""

import asyncio
import threading
from collections.abc import Awaitable
from typing import Any

from pydantic import BaseModel

from nucleo_core import FunctionToolProvider, Tool, run_tool, tool
from nucleo_core.tools.tool import io_types


class TextInput(BaseModel):
    text: str


class ThreadReport(BaseModel):
    thread: int
    text: str


class SyncTool(Tool[TextInput, ThreadReport]):
    """Report the thread it ran on."""

    def run(self, input: TextInput) -> ThreadReport:
        return ThreadReport(thread=threading.get_ident(), text=input.text)


class AsyncTool(Tool[TextInput, ThreadReport]):
    """Report the thread it ran on, asynchronously."""

    async def run(self, input: TextInput) -> ThreadReport:
        await asyncio.sleep(0)
        return ThreadReport(thread=threading.get_ident(), text=input.text)


class InheritsAsync(AsyncTool):
    """An async tool by inheritance."""


class ReturnsAwaitable(Tool[TextInput, str]):
    """A sync run that hands back an awaitable anyway."""

    def run(self, input: TextInput) -> Awaitable[str]:
        async def later() -> str:
            return input.text.upper()

        return later()


async def _run_and_report(built: Tool[Any, Any], text: str) -> tuple[Any, int]:
    """Run ``built`` through run_tool; return its result and the event loop's thread."""
    return await run_tool(built, TextInput(text=text)), threading.get_ident()


def test_a_sync_tool_runs_in_a_worker_thread() -> None:
    """run_tool runs a plain run off the event loop's thread, so it cannot block the loop."""
    report, loop_thread = asyncio.run(_run_and_report(SyncTool(), "hi"))
    assert report.text == "hi"
    assert report.thread != loop_thread


def test_an_async_tool_is_awaited_on_the_event_loop() -> None:
    """run_tool awaits an async run on the loop itself, not in a thread."""
    report, loop_thread = asyncio.run(_run_and_report(AsyncTool(), "hi"))
    assert report.text == "hi"
    assert report.thread == loop_thread


def test_async_is_decided_per_class_and_inherited() -> None:
    """is_async follows the run a class defines or inherits."""
    assert SyncTool.is_async is False
    assert AsyncTool.is_async is True
    assert InheritsAsync.is_async is True


def test_an_awaitable_returned_by_a_sync_run_is_awaited() -> None:
    """run_tool never hands back an un-awaited coroutine."""
    result, _ = asyncio.run(_run_and_report(ReturnsAwaitable(), "hi"))
    assert result == "HI"


def test_sync_and_async_function_tools_run_through_run_tool() -> None:
    """Function tools run like class tools: sync in a worker thread, async on the loop."""

    @tool
    def sync_echo(text: str) -> int:
        """Report the thread."""
        return threading.get_ident()

    @tool
    async def async_echo(text: str) -> int:
        """Report the thread, asynchronously."""
        return threading.get_ident()

    async def scenario() -> tuple[int, int, int]:
        sync_provider = FunctionToolProvider(sync_echo)
        async_provider = FunctionToolProvider(async_echo)
        sync_thread = await run_tool(
            sync_provider.create(), sync_provider.parse_input({"text": "a"})
        )
        async_thread = await run_tool(
            async_provider.create(), async_provider.parse_input({"text": "a"})
        )
        return sync_thread, async_thread, threading.get_ident()

    sync_thread, async_thread, loop_thread = asyncio.run(scenario())
    assert sync_thread != loop_thread
    assert async_thread == loop_thread


def test_sync_tools_of_one_turn_run_concurrently() -> None:
    """Two blocking tools gathered on one loop overlap instead of running one after the other."""
    barrier = threading.Barrier(2, timeout=10)

    class Meets(Tool[TextInput, str]):
        """Wait at the barrier: only passes if the other call runs at the same time."""

        def run(self, input: TextInput) -> str:
            barrier.wait()
            return input.text

    async def scenario() -> list[str]:
        return list(
            await asyncio.gather(
                run_tool(Meets(), TextInput(text="a")), run_tool(Meets(), TextInput(text="b"))
            )
        )

    assert asyncio.run(scenario()) == ["a", "b"]


def test_a_tool_keeps_its_parent() -> None:
    """The default constructor stores the parent, which defaults to None."""
    parent = object()
    assert SyncTool(parent).parent is parent
    assert SyncTool().parent is None


def test_io_types_reads_the_type_arguments() -> None:
    """io_types returns the (input, output) a Tool subclass was parameterised with."""
    assert io_types(SyncTool) == (TextInput, ThreadReport)
    assert io_types(InheritsAsync) == (TextInput, ThreadReport)
    assert io_types(ReturnsAwaitable) == (TextInput, str)


def test_io_types_of_an_unparameterised_tool_is_none() -> None:
    """A Tool subclass without type arguments has no input or output type."""

    class Bare(Tool):  # type: ignore[type-arg]
        def run(self, input: Any) -> Any:
            return input

    assert io_types(Bare) == (None, None)
    assert io_types(int) == (None, None)
