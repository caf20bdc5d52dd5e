"""The stdio transport: a server process in a process group of its own, stopped as a group.

The SDK's ``stdio_client`` starts the server in a new session too, but stops the group only
when the server outlives the closing of its stdin, and it does not say the server's pid. A
server that exits when its stdin closes (most do), or that crashed, would leave whatever it
started running, re-parented to init. So nucleo spawns the server itself (anyio, the SDK's
own default environment) and, whenever a session ends (closed, crashed, restarted), stops the
whole group: SIGTERM, a bounded wait, then SIGKILL. It also watches the server process: once
it exits, its group is stopped, so that the session ends even when a descendant still holds
the server's stdout open.

On Windows (not a target; a process group does not exist there) the SDK's transport is used.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import sys
from collections.abc import AsyncIterator, Callable
from typing import Any, BinaryIO, TextIO, cast

import anyio
import anyio.abc
import mcp_types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from anyio.streams.text import TextReceiveStream
from mcp import StdioServerParameters
from mcp.client.stdio import get_default_environment, stdio_client
from mcp.shared.message import SessionMessage

__all__ = ["stdio_transport", "stop_group"]

logger = logging.getLogger("nucleo.mcp")

#: How long the server has to exit by itself once its stdin is closed (the spec's first step).
EXIT_GRACE = 2.0
#: How long the group has between SIGTERM and SIGKILL.
TERM_GRACE = 2.0
#: How long the event loop has to see a SIGKILLed server exit.
KILL_REAP = 2.0
#: How long messages already accepted have to be written before stdin is closed.
FLUSH_GRACE = 0.5
#: How long the reader has to pass on what the server wrote before it exited.
DRAIN_GRACE = 1.0
#: How often the server process, and its group after a signal, are checked.
POLL = 0.05

#: Whether process groups can be signalled here (POSIX).
HAS_GROUPS = hasattr(os, "killpg") and sys.platform != "win32"


@contextlib.asynccontextmanager
async def stdio_transport(
    parameters: StdioServerParameters,
    errlog: BinaryIO,
    on_exit: Callable[[int], None] = lambda returncode: None,
) -> AsyncIterator[tuple[Any, Any]]:
    """Run the server and yield the read and write streams a ``Client`` talks over.

    Leaving the block stops the server (its stdin closed, then its group signalled), bounded
    in time and shielded from cancellation, so that no process is left however it is left.

    Args:
        parameters: The command, its arguments, environment and working directory.
        errlog: Where the server's stderr goes (a file: the child writes to its descriptor).
        on_exit: Called with the return code if the server exits before the block is left
            (it crashed, was killed, or quit), once its group is stopped.

    Raises:
        OSError: The command could not be run (not found, not executable, no such ``cwd``).
    """
    if not HAS_GROUPS:  # pragma: no cover - Windows: the SDK's Job Object stops the tree
        async with stdio_client(parameters, errlog=cast(TextIO, errlog)) as streams:
            yield streams
        return
    process = await anyio.open_process(
        [parameters.command, *parameters.args],
        env=get_default_environment() | (parameters.env or {}),
        stderr=errlog,
        cwd=parameters.cwd,
        # A session of its own: its pid is the group's id, and everything it starts that does
        # not leave the group on purpose is stopped with it.
        start_new_session=True,
    )
    # No await until the task group is entered: a cancellation in between would leak it.
    incoming: tuple[
        MemoryObjectSendStream[SessionMessage | Exception],
        MemoryObjectReceiveStream[SessionMessage | Exception],
    ] = anyio.create_memory_object_stream(0)
    read_writer, read_stream = incoming
    assert process.stdin is not None
    # The server's stdin is written as each message is sent: no task, nor stream, between.
    write_stream = _ServerInput(process.stdin, parameters.encoding, on_broken=read_writer.close)
    read_done = anyio.Event()
    stopping = anyio.Event()

    async def read() -> None:
        assert process.stdout is not None
        stdout = TextReceiveStream(process.stdout, encoding=parameters.encoding, errors="replace")
        try:
            async with read_writer:
                buffer = ""
                async for chunk in stdout:
                    *lines, buffer = (buffer + chunk).split("\n")
                    for line in lines:
                        if line.strip():
                            await read_writer.send(_parse(line))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            pass  # the session is gone, or the pipe closed under the read: the end either way
        finally:
            read_done.set()
            # Keep reading what the server still writes, so that it never blocks on a full
            # pipe and misses its chance to exit; ends when the pipe closes or is closed.
            await _drain(process)

    async def watch() -> None:
        """Once the server exits, stop its group, so that the session hears the end."""
        while process.returncode is None:
            await anyio.sleep(POLL)
        if stopping.is_set():
            return  # the block is being left: its own stop covers the group
        with anyio.CancelScope(shield=True):
            await stop_group(process.pid)
            with anyio.move_on_after(DRAIN_GRACE):
                await read_done.wait()  # what it wrote before it exited is passed on first
        on_exit(process.returncode)
        read_writer.close()

    async with anyio.create_task_group() as group:
        group.start_soon(read)
        group.start_soon(watch)
        try:
            yield read_stream, write_stream
        finally:
            # Stopping must finish under cancellation too, or the server would be left
            # running; every wait inside is bounded.
            stopping.set()
            with anyio.CancelScope(shield=True):
                await _stop(process, read_stream, write_stream)
            group.cancel_scope.cancel()


async def _stop(
    process: anyio.abc.Process,
    read_stream: MemoryObjectReceiveStream[SessionMessage | Exception],
    write_stream: _ServerInput,
) -> None:
    """The MCP shutdown (stdin closed, a grace period), then the whole group stopped."""
    read_stream.close()
    write_stream.close()
    with anyio.move_on_after(FLUSH_GRACE):
        await write_stream.settled()
    assert process.stdin is not None
    assert process.stdout is not None
    await _close(process.stdin)
    await _exited(process, EXIT_GRACE)
    # Always, even when the server exited by itself: what it started may still run.
    await stop_group(process.pid)
    if not await _exited(process, KILL_REAP):
        logger.warning("MCP server process %d survived SIGKILL; abandoning it", process.pid)
    await _close(process.stdout)  # ends the reader's drain
    with anyio.move_on_after(KILL_REAP):
        # Until its pipes close; bounded, for a process that left the group on purpose (a
        # daemon) can hold them open.
        await process.wait()


class _ServerInput:
    """The server's stdin as the client's write stream (the SDK's ``WriteStream``).

    Each message is serialized and written in the sender's own task, one whole line at once
    (two never interleave); ``send`` waits while the server reads slower than it is written
    to. A server that stopped reading (it exited) ends the session: the read side is closed,
    so that a request does not wait forever for its answer.
    """

    def __init__(
        self, stdin: anyio.abc.ByteSendStream, encoding: str, *, on_broken: Callable[[], None]
    ) -> None:
        self._stdin = stdin
        self._encoding = encoding
        self._on_broken = on_broken
        self._closed = False
        self._sending = 0
        self._idle = anyio.Event()
        self._idle.set()

    async def send(self, message: SessionMessage, /) -> None:
        if self._closed:
            raise anyio.ClosedResourceError
        data = message.message.model_dump_json(by_alias=True, exclude_unset=True)
        if self._sending == 0:
            self._idle = anyio.Event()
        self._sending += 1
        try:
            await self._stdin.send((data + "\n").encode(self._encoding))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError) as exc:
            self._on_broken()
            raise anyio.BrokenResourceError from exc
        finally:
            self._sending -= 1
            if self._sending == 0:
                self._idle.set()

    async def settled(self) -> None:
        """Until no message is being written."""
        await self._idle.wait()

    def close(self) -> None:
        self._closed = True

    async def aclose(self) -> None:
        self.close()

    async def __aenter__(self) -> _ServerInput:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        self.close()


async def stop_group(group: int) -> None:
    """Stop process group ``group``: SIGTERM, up to TERM_GRACE for it to end, then SIGKILL."""
    if not HAS_GROUPS:  # pragma: no cover
        return
    try:
        os.killpg(group, signal.SIGTERM)
    except ProcessLookupError:
        return  # no member left
    except PermissionError:
        pass  # some member cannot be signalled; the others may still be
    with anyio.move_on_after(TERM_GRACE):
        while _group_runs(group):
            await anyio.sleep(POLL)
        return
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(group, signal.SIGKILL)


def _group_runs(group: int) -> bool:
    """Whether a member of ``group`` still runs (zombies do not count)."""
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    # Signal 0 reaches zombies too: a member whose parent died stays one until init reaps
    # it, which not every container's init does. The process table says which are.
    try:
        entries = os.listdir("/proc")
    except OSError:
        return True  # no /proc (not Linux): trust the signal
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as file:
                stat = file.read()
        except OSError:
            continue
        # After the command name (which may hold spaces and ")"): state, ppid, pgrp, ...
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) > 2 and fields[2] == str(group).encode() and fields[0] not in b"ZX":
            return True
    return False


async def _exited(process: anyio.abc.Process, timeout: float) -> bool:
    """Whether the process exited within ``timeout``.

    Its return code is polled: ``wait()`` also waits for its pipes to close, which a
    descendant holding them open would delay without end.
    """
    with anyio.move_on_after(timeout):
        while process.returncode is None:
            await anyio.sleep(POLL / 5)
    return process.returncode is not None


async def _drain(process: anyio.abc.Process) -> None:
    assert process.stdout is not None
    with (
        anyio.CancelScope(shield=True),
        contextlib.suppress(
            anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError, OSError
        ),
    ):
        while True:
            await process.stdout.receive()


async def _close(stream: anyio.abc.AsyncResource) -> None:
    with contextlib.suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
        await stream.aclose()


def _parse(line: str) -> SessionMessage | Exception:
    """One line of the server's stdout; what is not JSON-RPC is passed on as the error."""
    try:
        message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except ValueError as exc:
        return exc
    return SessionMessage(message)
