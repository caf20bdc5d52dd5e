"""A real HTTP server on 127.0.0.1 that answers with scripted replies and records requests.

Adapter tests point the official SDKs at it (``base_url``), so the SDK's whole HTTP path runs:
the request body the SDK really sends is recorded, and the reply is whatever the test scripted
(a JSON body, a server-sent-event stream, a 429 with ``retry-after``, a 500, a malformed body).

Listings a client may read on the side (a model's context window: ``GET /v1/models``, ``GET
/props``, ``POST /api/show``) never take a scripted reply: they answer what a test put in
`WireServer.routes` for that method and path (every time), else 404, and are recorded in
`WireServer.routed` rather than `WireServer.requests`, so a test scripting a conversation sees
only its conversation.

The server listens on a port of its own choosing (port 0) before its URL is handed out, so a
request made as soon as ``url`` is known is accepted and then served; `refused_port` is a port
held so that nothing can listen on it.
"""

from __future__ import annotations

import json
import select
import socket
import threading
from collections import deque
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Reply:
    """One scripted reply.

    ``delay`` is for testing a client's timeout: the reply is held back at least that many
    seconds *and* until the client gave up waiting (closed the connection), and so never
    reaches it: a client slowed down by a loaded machine still times out rather than racing
    the reply. `WireServer.stop` ends a hold still running.
    """

    status: int = 200
    body: bytes = b""
    headers: Mapping[str, str] = field(default_factory=dict)
    delay: float = 0.0

    @classmethod
    def json(cls, payload: object, status: int = 200, **headers: str) -> Reply:
        """A JSON reply."""
        merged = {"content-type": "application/json", **headers}
        return cls(status=status, body=json.dumps(payload).encode(), headers=merged)

    @classmethod
    def sse(cls, events: list[tuple[str | None, object]]) -> Reply:
        """A server-sent-event stream: ``(event name or None, data)`` pairs, sent at once."""
        chunks = []
        for name, data in events:
            text = data if isinstance(data, str) else json.dumps(data)
            chunks.append((f"event: {name}\n" if name else "") + f"data: {text}\n\n")
        return cls(body="".join(chunks).encode(), headers={"content-type": "text/event-stream"})


@dataclass(frozen=True)
class Recorded:
    """One request the server received."""

    method: str
    path: str
    headers: Mapping[str, str]
    body: bytes

    def json(self) -> Any:
        """The request body, decoded."""
        return json.loads(self.body)


#: The side listings (method and path, without a query), answered from `WireServer.routes`.
LISTINGS = frozenset({("GET", "/v1/models"), ("GET", "/props"), ("POST", "/api/show")})


class WireServer:
    """The server: ``url`` to point an SDK at, ``replies`` to script, ``requests`` recorded."""

    def __init__(self) -> None:
        self.replies: deque[Reply] = deque()
        self.requests: list[Recorded] = []
        #: A fixed reply for a listing, by ``(method, path)`` (see the module docstring).
        self.routes: dict[tuple[str, str], Reply] = {}
        #: The listing requests received, in order.
        self.routed: list[Recorded] = []
        #: Set by `stop`: releases the replies still held back.
        self.stopping = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _answer(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                recorded = Recorded(
                    method=self.command,
                    path=self.path,
                    headers={k.lower(): v for k, v in self.headers.items()},
                    body=body,
                )
                listing = (self.command, self.path.partition("?")[0])
                if listing in LISTINGS:
                    server.routed.append(recorded)
                    self._send(
                        server.routes.get(listing) or Reply.json({"error": "not found"}, status=404)
                    )
                    return
                server.requests.append(recorded)
                reply = (
                    server.replies.popleft()
                    if server.replies
                    else Reply.json({"error": "no reply scripted"}, status=599)
                )
                if reply.delay:
                    # Never sent: by the time the hold ends, the client has gone (or the
                    # server is stopping), which is what a timeout test needs.
                    self._hold(reply.delay)
                    self.close_connection = True
                    return
                self._send(reply)

            def _hold(self, delay: float) -> None:
                """Wait ``delay`` seconds, then until the client hangs up or the server stops."""
                if server.stopping.wait(delay):
                    return
                while not server.stopping.is_set():
                    # Woken when the client closes its end (readable, and EOF) or every tenth
                    # of a second to see whether the server is stopping.
                    readable, _, _ = select.select([self.connection], [], [], 0.1)
                    if not readable:
                        continue
                    try:
                        if self.connection.recv(1, socket.MSG_PEEK) == b"":
                            return
                    except OSError:
                        return
                    # The client sent more on this connection: it is still there; wait on.
                    server.stopping.wait(0.1)

            def _send(self, reply: Reply) -> None:
                self.send_response(reply.status)
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.send_header("content-length", str(len(reply.body)))
                self.end_headers()
                self.wfile.write(reply.body)

            do_POST = _answer  # http.server's naming
            do_GET = _answer

            def log_message(self, format: str, *args: Any) -> None:
                """Keep test output quiet."""

        # Bound and listening from here on: connections made before the thread serves wait in
        # the listen backlog, and the port is the server's until it stops.
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        # A short poll interval: shutdown() waits up to one interval, and tests stop many servers.
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def url(self) -> str:
        """The server's base URL."""
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> None:
        """Start serving in a background thread."""
        self._thread.start()

    def stop(self) -> None:
        """Stop serving and close the socket."""
        self.stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()


@contextmanager
def wire_server() -> Iterator[WireServer]:
    """A started server, stopped on exit."""
    server = WireServer()
    server.start()
    try:
        yield server
    finally:
        server.stop()


@contextmanager
def refused_port() -> Iterator[int]:
    """A port on 127.0.0.1 that refuses connections for as long as the block runs.

    The port is bound but never listened on, and held until the block ends, so no other
    process can start listening on it in between (as it could on a port chosen and released).
    """
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as held:
        held.bind(("127.0.0.1", 0))
        port: int = held.getsockname()[1]
        yield port
