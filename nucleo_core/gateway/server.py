"""`Gateway`: nucleo as an MCP server, serving one profile to every MCP client that connects.

The gateway is an MCP server written with the SDK's low-level ``Server``: ``tools/list``
answers what the client's `GatewayClient` lists (its thinker's palette), and ``tools/call``
runs the call through that thinker's door and execution. Each client gets a thinker of its own
(over stdio: the one client of the process; over HTTP: one per MCP session), so a search one
client makes admits tools for it alone.

A ``confirm`` call is asked of the client's user through elicitation when the client declares
it — an ``elicitation/create`` request on the handshake protocol (2025-11-25 and earlier), an
``InputRequiredResult`` from 2026-07-28 on, whose answer is matched to the question by an
unguessable, single-use state the gateway keeps (never trusted from the client) — and is
otherwise left pending as a durable approval (`nucleo_core.gateway.approvals`). After a search
admitted tools the client is told ``notifications/tools/list_changed`` (on 2026-07-28, through
its ``subscriptions/listen`` stream).
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import KW_ONLY, dataclass, field
from typing import TYPE_CHECKING, Any, final

from nucleo_core.gateway._request_context import (
    TOKEN_SCOPE_KEY,
    elicits,
    modern,
    request_identity,
)
from nucleo_core.gateway.approvals import (
    approval_form,
    approval_schema,
    elicited_approval,
)
from nucleo_core.gateway.client import GatewayClient
from nucleo_core.gateway.results import call_result, error_result
from nucleo_core.gateway.tool_list import tool_definition
from nucleo_core.guard.approvals import Approval

if TYPE_CHECKING:
    from mcp.server.lowlevel import Server

    from nucleo_core.gateway.profile import GatewayProfile
    from nucleo_core.guard.approval_store import ApprovalStore
    from nucleo_core.guard.approvals import ApprovalRequest, Approver
    from nucleo_core.hub.hub import ToolHub
    from nucleo_core.hub.thinker_base import ThinkerBase

__all__ = ["DEFAULT_ELICITATION_TIMEOUT", "MAX_CLIENTS", "TOKEN_SCOPE_KEY", "Gateway"]

logger = logging.getLogger("nucleo.gateway")

#: Seconds the gateway waits for a client's user to answer an approval before it is left
#: pending (durable, decidable with ``nucleo approvals``).
DEFAULT_ELICITATION_TIMEOUT = 300.0
#: Clients (HTTP sessions) kept at once; the one unseen longest is dropped past it.
MAX_CLIENTS = 256
#: The key of the one input request an approval question is.
_APPROVAL_INPUT = "approval"


@dataclass(frozen=True, slots=True)
class _Asked:
    """An approval question the gateway sent as an ``InputRequiredResult``."""

    client: GatewayClient
    tool: str
    arguments: dict[str, Any]
    deadline: float


@final
@dataclass(eq=False, repr=False)
class Gateway:
    """Serves one profile's thinker class to MCP clients (see the module).

    Args:
        hub: The hub (its plugins loaded, its MCP servers bound, its guard and audit log set).
        thinker_class: The profile's thinker class.
        profile: The profile (its name binds approvals; its ``read_only`` and
            ``description`` apply).
        approvals: Where approvals wait when the client's user cannot be asked.
        approval_expiry: Seconds a pending approval waits for its decision.
        elicitation_timeout: Seconds the client's user has to answer an approval.
        version: The gateway's version, as the client is told.
    """

    hub: ToolHub
    thinker_class: type[ThinkerBase]
    profile: GatewayProfile
    _: KW_ONLY
    approvals: ApprovalStore
    approval_expiry: float = 24 * 60 * 60.0
    elicitation_timeout: float = DEFAULT_ELICITATION_TIMEOUT
    version: str = ""
    _clients: OrderedDict[tuple[str, str | None, str], GatewayClient] = field(
        init=False, default_factory=OrderedDict
    )
    _asked: dict[str, _Asked] = field(init=False, default_factory=dict)
    _lock: threading.Lock = field(init=False, default_factory=threading.Lock)
    _bus: Any = field(init=False, default=None)
    # Each client's session of its last listing, and what it was listed then: an upstream
    # change is announced to the clients whose listing it changed (`watch`).
    _listed: dict[GatewayClient, tuple[Any, bool, list[str]]] = field(
        init=False, default_factory=dict
    )
    _loop: asyncio.AbstractEventLoop | None = field(init=False, default=None)
    _announcing: set[asyncio.Task[None]] = field(init=False, default_factory=set)

    # -- the MCP server -----------------------------------------------------------------------

    def server(self) -> Server[Any]:
        """The SDK server answering ``tools/list`` and ``tools/call`` for this gateway."""
        from mcp.server.lowlevel import Server
        from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler

        self._bus = InMemorySubscriptionBus()
        instructions = self.profile.description or (
            f"Tools of the nucleo gateway profile '{self.profile.name}': every call is checked "
            "and recorded by nucleo; some need a person's approval."
        )
        return Server(
            "nucleo",
            version=self.version,
            title=f"nucleo gateway ({self.profile.name})",
            instructions=instructions,
            on_list_tools=self._list_tools,
            on_call_tool=self._call_tool,
            on_subscriptions_listen=ListenHandler(self._bus),
        )

    async def _list_tools(self, ctx: Any, params: Any) -> Any:
        import mcp_types

        client = self._client(ctx)
        providers = await asyncio.to_thread(client.tools)  # admission may run guardrails
        with self._lock:
            self._listed[client] = (ctx.session, modern(ctx), [p.name for p in providers])
        return mcp_types.ListToolsResult(tools=[tool_definition(p) for p in providers])

    # -- upstream changes ---------------------------------------------------------------------

    def watch(self, pool: Any, loop: asyncio.AbstractEventLoop) -> None:
        """Announce to the clients the listing changes of ``pool``'s servers.

        A server that adds or withdraws tools (its ``tools/list_changed``, a restart, a tool
        quarantined) changes what its clients are listed: each client whose listing changed is
        sent ``notifications/tools/list_changed`` (on 2026-07-28, through the listen stream).
        """
        self._loop = loop
        pool.add_listener(self._on_listing)

    def _on_listing(self, _server: str, _tools: object) -> None:
        # Called on the pool's delivery thread, after the hub took the listing in.
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        try:
            loop.call_soon_threadsafe(self._start_announcing)
        except RuntimeError:  # the loop is closing: nobody is left to tell
            return

    def _start_announcing(self) -> None:
        task = asyncio.get_running_loop().create_task(self._announce())
        self._announcing.add(task)  # held until done: a task only the loop knows may vanish
        task.add_done_callback(self._announcing.discard)

    async def _announce(self) -> None:
        with self._lock:
            listed = list(self._listed.items())
        modern = False
        for client, (session, era, names) in listed:
            now = await asyncio.to_thread(client.listed_names)
            if now == names:
                continue
            with self._lock:
                self._listed[client] = (session, era, now)
            if era:
                modern = True
                continue
            try:
                await session.send_tool_list_changed()
            except Exception:  # a client that left cannot be told
                logger.info("a client could not be told that its tools changed", exc_info=True)
        if modern and self._bus is not None:
            from mcp.server.subscriptions import ToolsListChanged

            await self._bus.publish(ToolsListChanged())

    async def _call_tool(self, ctx: Any, params: Any) -> Any:
        try:
            return await self._answer_call(ctx, params)
        except Exception as exc:  # the client reads no detail; the developer gets the trace
            logger.exception("the gateway failed on a call of %r", getattr(params, "name", None))
            return error_result(
                f"The gateway could not run the call: an internal error ({type(exc).__name__}); "
                "the details were recorded for the developer."
            )

    async def _answer_call(self, ctx: Any, params: Any) -> Any:
        client = self._client(ctx)
        name = params.name
        arguments = params.arguments if isinstance(params.arguments, Mapping) else {}
        approver: Approver | None = None
        if elicits(ctx):
            if modern(ctx):
                asked = await self._input_round(ctx, client, name, arguments, params)
                if not isinstance(asked, Approval | None):
                    return asked  # a question to answer first, or an answer that is not one
                if asked is not None:
                    decided = asked

                    def approver(_request: ApprovalRequest) -> Approval:
                        return decided

            else:
                approver = self._elicitation_approver(ctx, client)

        async def palette_changed() -> None:
            names = client.listed_names()
            with self._lock:
                self._listed[client] = (ctx.session, modern(ctx), names)
            await self._tools_changed(ctx)

        answer = await client.call(
            name, arguments, approver=approver, on_palette_change=palette_changed
        )
        if answer.outcome is None:
            return error_result(answer.text)
        return call_result(answer.outcome)

    # -- approvals through elicitation --------------------------------------------------------

    def _elicitation_approver(self, ctx: Any, client: GatewayClient) -> Approver:
        """Ask the client's user with ``elicitation/create`` (the handshake protocol)."""
        timeout = self.elicitation_timeout
        label = client.identity.label

        async def approve(request: ApprovalRequest) -> Approval:
            try:
                async with asyncio.timeout(timeout):
                    answer = await ctx.session.elicit_form(
                        approval_form(request, label),
                        approval_schema(),
                        related_request_id=ctx.request_id,
                    )
            except TimeoutError:
                # Nobody answered: the approval waits, durable, for a person to decide.
                return Approval.defer("no answer from the client's user in time")
            return elicited_approval(answer.action, answer.content, label)

        return approve

    async def _input_round(
        self,
        ctx: Any,
        client: GatewayClient,
        name: str,
        arguments: Mapping[str, Any],
        params: Any,
    ) -> Any:
        """The 2026-07-28 round of a call: a question to ask, the answer given, or ``None``.

        Returns an ``InputRequiredResult`` to send (the question), an error result (an answer
        that belongs to no question asked), the `Approval` the answer decides, or ``None``
        when the call needs no question.
        """
        import mcp_types

        state = params.request_state
        if state is None:
            request = await asyncio.to_thread(client.gate, name, arguments)
            if request is None:
                return None
            token = secrets.token_urlsafe(24)
            with self._lock:
                self._forget_expired()
                self._asked[token] = _Asked(
                    client, name, dict(arguments), time.monotonic() + self.elicitation_timeout
                )
            question = mcp_types.ElicitRequest(
                params=mcp_types.ElicitRequestFormParams(
                    message=approval_form(request, client.identity.label),
                    requested_schema=approval_schema(),
                )
            )
            return mcp_types.InputRequiredResult(
                input_requests={_APPROVAL_INPUT: question}, request_state=token
            )
        with self._lock:
            asked = self._asked.pop(state, None) if isinstance(state, str) else None
        if (
            asked is None
            or asked.client is not client
            or asked.tool != name
            or asked.arguments != dict(arguments)
            or asked.deadline < time.monotonic()
        ):
            return error_result(
                "This answer belongs to no approval question the gateway is waiting on (it was "
                "answered already, or expired, or asked about another call); call the tool "
                "again to be asked anew."
            )
        response = (params.input_responses or {}).get(_APPROVAL_INPUT)
        action = getattr(response, "action", None)
        content = getattr(response, "content", None)
        return elicited_approval(
            action if isinstance(action, str) else "decline",
            content if isinstance(content, Mapping) else None,
            client.identity.label,
        )

    def _forget_expired(self) -> None:
        now = time.monotonic()
        for token in [t for t, asked in self._asked.items() if asked.deadline < now]:
            del self._asked[token]

    async def _tools_changed(self, ctx: Any) -> None:
        """Tell the client its tool list changed (a search admitted tools)."""
        import mcp_types

        try:
            if modern(ctx):
                from mcp.server.subscriptions import ToolsListChanged

                if self._bus is not None:
                    await self._bus.publish(ToolsListChanged())
            else:
                await ctx.session.send_notification(
                    mcp_types.ToolListChangedNotification(), related_request_id=ctx.request_id
                )
        except Exception:  # a client that left cannot be told; its next listing is current
            logger.warning("the client could not be told that its tools changed", exc_info=True)

    # -- clients ------------------------------------------------------------------------------

    def _client(self, ctx: Any) -> GatewayClient:
        """The client this request comes from, made at its first request."""
        session, identity = request_identity(ctx)
        key = (session, identity.token, identity.name)
        with self._lock:
            client = self._clients.get(key)
            if client is not None:
                self._clients.move_to_end(key)
                return client
        client = GatewayClient(
            self.hub,
            self.thinker_class,
            identity,
            profile=self.profile.name,
            read_only=self.profile.read_only,
            approvals=self.approvals,
            approval_expiry=self.approval_expiry,
        )
        with self._lock:
            kept = self._clients.setdefault(key, client)
            while len(self._clients) > MAX_CLIENTS:
                _key, dropped = self._clients.popitem(last=False)
                self._listed.pop(dropped, None)
        if kept is client:
            logger.info("client %s connected (%s)", identity.label, session)
        return kept
