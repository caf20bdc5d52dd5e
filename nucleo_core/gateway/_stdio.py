"""The gateway's stdio wire: the SDK server's read and write streams over the event loop's pipes.

The SDK's ``stdio_server`` reads stdin and writes stdout through ``anyio.wrap_file``: every
line read, every write and every flush is a hop to a worker thread and back (three per call),
and each message then crosses a memory stream to or from a task of its own. When the
gateway's stdin and stdout are pipes or sockets (as an MCP client starts it), the gateway hands
the SDK's ``Server.run`` a read stream and a write stream of its own instead — the SDK's
``ReadStream`` and ``WriteStream`` protocols, read and written by the event loop itself
(``connect_read_pipe`` / ``connect_write_pipe``): each line is parsed with the SDK's own
JSON-RPC adapter as it arrives, and each message is serialized as the SDK's transport does and
written at once. Anything else (a terminal, a regular file) is served by ``stdio_server``.

As the SDK does, the wire is first moved off the standard descriptors: fd 0 then reads the
null device and fd 1 writes to stderr, so that nothing the gateway or a child process prints
can reach the client's wire; both are put back (and the wire's blocking mode restored) when
the block is left.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import stat
import sys
from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING, Any

from nucleo_core._closing import AsyncClosesOnExit

if TYPE_CHECKING:
    from mcp.shared.message import SessionMessage

__all__ = ["gateway_stdio"]

#: Bytes read from the wire at once.
_CHUNK = 1 << 16


def _pipe_like(fd: int) -> bool:
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


class _Incoming(AsyncClosesOnExit):
    """The client's messages, one per line of the wire (the SDK's ``ReadStream``).

    A line that is not JSON-RPC is passed on as the parse error (the SDK's server answers
    or logs it, as its own transport does); the end of the wire ends the stream.
    """

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self._reader = reader
        self._lines: list[bytes] = []
        self._rest = b""
        self._closed = False

    async def receive(self) -> SessionMessage | Exception:
        import anyio

        while not self._lines:
            if self._closed:
                raise anyio.ClosedResourceError
            chunk = await self._reader.read(_CHUNK)
            if not chunk:
                if not self._rest.strip():
                    raise anyio.EndOfStream
                chunk = b"\n"
            *lines, self._rest = (self._rest + chunk).split(b"\n")
            self._lines = [line for line in reversed(lines) if line.strip()]
        return _parse(self._lines.pop())

    async def aclose(self) -> None:
        self._closed = True

    def __aiter__(self) -> _Incoming:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        import anyio

        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None


class _Outgoing(AsyncClosesOnExit):
    """The gateway's messages, one line each, written as sent (the SDK's ``WriteStream``).

    A write is one ``write`` of the whole line to the transport (no two messages can
    interleave); ``send`` waits only while the client reads slower than the gateway writes.
    """

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self._writer = writer
        self._closed = False

    async def send(self, item: SessionMessage, /) -> None:
        import anyio

        if self._closed:
            raise anyio.ClosedResourceError
        writer = self._writer
        if writer.is_closing():
            raise anyio.BrokenResourceError
        data = item.message.model_dump_json(by_alias=True, exclude_unset=True)
        writer.write(data.encode("utf-8") + b"\n")
        try:
            await writer.drain()
        except ConnectionError as exc:  # the client closed its end
            raise anyio.BrokenResourceError from exc

    async def aclose(self) -> None:
        self._closed = True


def _parse(line: bytes) -> SessionMessage | Exception:
    import mcp_types as types
    from mcp.shared.message import SessionMessage

    try:
        message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except Exception as exc:  # what the SDK's own transport passes on
        return exc
    return SessionMessage(message)


@contextlib.asynccontextmanager
async def gateway_stdio() -> AsyncIterator[tuple[Any, Any]]:
    """The read and write streams of the client's wire (see the module)."""
    if sys.platform == "win32" or not (_pipe_like(0) and _pipe_like(1)):  # pragma: no cover
        from mcp.server.stdio import stdio_server

        async with stdio_server() as streams:
            yield streams
        return
    with _claimed() as (read_fd, write_fd):
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader(limit=_CHUNK, loop=loop)
        read_file = os.fdopen(read_fd, "rb", buffering=0, closefd=False)
        write_file = os.fdopen(write_fd, "wb", buffering=0, closefd=False)
        read_transport, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader, loop=loop), read_file
        )
        try:
            write_transport, protocol = await loop.connect_write_pipe(
                asyncio.streams.FlowControlMixin, write_file
            )
        except BaseException:
            read_transport.close()
            raise
        writer = asyncio.StreamWriter(write_transport, protocol, None, loop)
        try:
            yield _Incoming(reader), _Outgoing(writer)
        finally:
            read_transport.close()
            write_transport.close()


@contextlib.contextmanager
def _claimed() -> Iterator[tuple[int, int]]:
    """Private duplicates of fd 0 and 1 (the wire), the standard ones diverted meanwhile."""
    read_fd = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 3)
    write_fd = fcntl.fcntl(1, fcntl.F_DUPFD_CLOEXEC, 3)
    blocking = (os.get_blocking(read_fd), os.get_blocking(write_fd))
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(null, 0)
        os.dup2(2, 1)
    finally:
        os.close(null)
    try:
        yield read_fd, write_fd
    finally:
        os.dup2(read_fd, 0)
        os.dup2(write_fd, 1)
        with contextlib.suppress(OSError):
            os.set_blocking(0, blocking[0])
            os.set_blocking(1, blocking[1])
        os.close(read_fd)
        os.close(write_fd)
