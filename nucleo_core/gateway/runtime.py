"""Running the gateway: its MCP servers started and named, then stdio or HTTP served.

`run_gateway` starts the profile's MCP servers on the gateway's event loop (the pool's home
loop, where the gateway's calls then reach them directly), gives a server its prefix where its
tool names clash (`nucleo_core.gateway.naming`), binds them to the hub, and serves until the
client goes (stdio: its end of the pipe closes) or the process is told to stop (HTTP). Every
server is closed before it returns, so no server process outlives the gateway, and a call in
flight when the client left is cancelled, upstream included.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
from collections.abc import Callable, Sequence
from contextlib import AsyncExitStack
from typing import TYPE_CHECKING, Any

from nucleo_core.gateway.errors import GatewayConfigError
from nucleo_core.gateway.naming import prefixed_configs

if TYPE_CHECKING:
    from mcp.server.lowlevel import Server

    from nucleo_core.gateway.server import Gateway
    from nucleo_core.gateway.token import BearerToken
    from nucleo_core.mcp.config import MCPServerConfig
    from nucleo_core.mcp.servers import MCPServers

__all__ = ["bind_servers", "profile_servers", "run_gateway"]

logger = logging.getLogger("nucleo.gateway")


def profile_servers(
    configs: Sequence[MCPServerConfig], wanted: Sequence[str] | None
) -> list[MCPServerConfig]:
    """The configured servers a profile runs behind the gateway (every one when ``None``).

    Raises:
        GatewayConfigError: The profile names a server that is not configured.
    """
    if wanted is None:
        return list(configs)
    by_name = {config.name: config for config in configs}
    missing = [name for name in wanted if name not in by_name]
    if missing:
        known = ", ".join(by_name) or "none are configured"
        raise GatewayConfigError(
            f"the profile names MCP server(s) {', '.join(missing)}, which are not configured "
            f"(configured: {known}); `nucleo mcp` lists them"
        )
    return [by_name[name] for name in wanted]


async def bind_servers(
    gateway: Gateway, configs: Sequence[MCPServerConfig], stack: AsyncExitStack
) -> MCPServers:
    """Start ``configs`` on this loop, prefix clashing servers, bind them to the gateway's hub.

    The servers are closed when ``stack`` is.
    """
    from nucleo_core.mcp.pool import MCPClientPool
    from nucleo_core.mcp.servers import MCPServers

    hub = gateway.hub
    # A bare pool first: its listings decide the names before anything is registered (an
    # `MCPServers` would report the clashes it is about to resolve).
    pool = await stack.enter_async_context(MCPClientPool(configs))
    started = [config.name for config in configs if not config.disabled]
    outcomes = await pool.astart_all(started) if started else {}
    listings = {name: tools for name, tools in outcomes.items() if isinstance(tools, tuple)}
    taken = {provider.name for provider in hub.system_wide_tools()}
    taken |= set(hub.native_tool_holders())
    named = prefixed_configs(configs, listings, taken)
    if named == list(configs):
        servers = MCPServers(pool=pool)
    else:
        renamed = [c.name for c, n in zip(configs, named, strict=True) if c.prefix != n.prefix]
        logger.info("tool names clash: servers %s get their prefix", ", ".join(renamed))
        await pool.aclose()
        servers = await stack.enter_async_context(MCPServers(named))
    await servers.aconnect_to_hub(hub)
    for problem in servers.problems:
        logger.warning("%s", problem.message)
    return servers


async def run_gateway(
    gateway: Gateway,
    configs: Sequence[MCPServerConfig],
    *,
    http: bool = False,
    host: str = "127.0.0.1",
    port: int = 0,
    token: BearerToken | None = None,
    announce: Callable[[str], None] | None = None,
) -> None:
    """Serve ``gateway`` until its stdio client leaves, or until cancelled (HTTP).

    Args:
        gateway: The gateway.
        configs: The MCP servers behind it.
        http: Serve streamable HTTP instead of stdio.
        host: The HTTP host (checked by the caller: see `check_host`).
        port: The HTTP port (0: an ephemeral one, announced).
        token: The bearer token every HTTP request must carry (required with ``http``).
        announce: Told where the HTTP endpoint listens, once it does (stderr by default).

    Raises:
        GatewayConfigError: HTTP without a token, or an address that cannot be bound.
    """
    async with AsyncExitStack() as stack:
        stack.callback(gateway.hub.close)
        servers = await bind_servers(gateway, configs, stack)
        server = gateway.server()
        gateway.watch(servers.pool, asyncio.get_running_loop())
        if not http:
            _stop_on_signals(stack)
            await _serve_stdio(server)
            return
        if token is None:
            raise GatewayConfigError("the HTTP gateway needs a bearer token")
        await _serve_http(server, host, port, token, announce or _to_stderr)


async def _serve_stdio(server: Server[Any]) -> None:
    from mcp.server.lowlevel import NotificationOptions

    from nucleo_core.gateway._stdio import gateway_stdio

    async with gateway_stdio() as (read_stream, write_stream):
        run = server.run
        options = server.create_initialization_options(NotificationOptions(tools_changed=True))
        await run(read_stream, write_stream, options)


async def _serve_http(
    server: Server[Any],
    host: str,
    port: int,
    token: BearerToken,
    announce: Callable[[str], None],
) -> None:
    import uvicorn

    from nucleo_core.gateway.http import MCP_PATH, RequireToken, bound_socket

    listener = bound_socket(host, port)
    app = server.streamable_http_app(streamable_http_path=MCP_PATH, host=host)
    config = uvicorn.Config(
        RequireToken(app, token), log_level="warning", lifespan="on", access_log=False
    )
    bound_host, bound_port = listener.getsockname()[:2]
    shown = f"[{bound_host}]" if ":" in bound_host else bound_host
    announce(f"nucleo gateway listening on http://{shown}:{bound_port}{MCP_PATH}")
    try:
        await uvicorn.Server(config).serve(sockets=[listener])
    finally:
        listener.close()


def _stop_on_signals(stack: AsyncExitStack) -> None:
    """SIGTERM or SIGINT cancels the gateway, so that its servers are closed on the way out.

    A client that stops its stdio server with a signal (as SDK clients do when it does not
    exit on its own) must not leave the upstream servers running: they run in process groups
    of their own, which only the gateway's closing stops.
    """
    task = asyncio.current_task()
    if task is None:
        return
    loop = asyncio.get_running_loop()
    for number in (signal.SIGTERM, signal.SIGINT):
        try:
            loop.add_signal_handler(number, task.cancel)
        except (NotImplementedError, RuntimeError):  # not the main thread, or no signals
            continue
        stack.callback(loop.remove_signal_handler, number)


def _to_stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)
