"""`GatewayClient`: one MCP client of the gateway, acting through a thinker of its profile.

The client is served by an instance of the profile's thinker class, built on the gateway's hub
(``thinker_class(hub=hub)``): what the client is listed is that thinker's palette, and every
call it makes is one call of that thinker, through the same door (`call_door`: available,
read-only, input, permission) and the same execution (`ToolExecution`: approval, timeout,
record) as a thinker's own. The gateway adds nothing that could widen what may run: it only
leaves out of the listing, and refuses, the meta-tools that make sense to a thinker's own model
alone (``request_tools``, ``request_skill``).

How the catalog is offered is the thinker's: a small one (enumerated) is admitted whole when
the client first lists the tools, each admission decided and recorded by the hub; a large one
is offered through ``search_tools``, whose matches are admitted through the same door, after
which the client is told the list changed.
"""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, final

from nucleo_core.errors import CorrectableError, PermissionDenied, UnknownTool
from nucleo_core.gateway.approvals import (
    file_pending,
    matching_record,
    matching_records,
    pending_message,
)
from nucleo_core.hub.call_door import call_door
from nucleo_core.hub.meta_tools import REQUEST_SKILL, REQUEST_TOOLS
from nucleo_core.hub.search_tool import SEARCH_TOOLS
from nucleo_core.hub.thinker_base import ThinkerBase
from nucleo_core.thinking._run_observer import run_observer

if TYPE_CHECKING:
    from nucleo_core.gateway.identity import ClientIdentity
    from nucleo_core.guard.approval_store import ApprovalStatus, ApprovalStore
    from nucleo_core.guard.approvals import ApprovalRequest, Approver
    from nucleo_core.guard.audit.log import AuditLog
    from nucleo_core.hub.hub import ToolHub
    from nucleo_core.thinking.execution import CallOutcome
    from nucleo_core.thinking.tool_call import ToolCall
    from nucleo_core.tools.provider import ToolProvider

__all__ = ["CallAnswer", "GatewayClient"]

logger = logging.getLogger("nucleo.gateway")

#: Palette tools a client is never listed: they steer a thinker's own model only.
_THINKER_ONLY = frozenset({REQUEST_TOOLS, REQUEST_SKILL})


@dataclass(frozen=True, slots=True)
class CallAnswer:
    """How one call ended, for the transport to answer the client.

    Attributes:
        outcome: The call's outcome (its result, its output), or ``None`` when it did not run.
        text: The error text when it did not run (refused before the execution, or pending).
        pending: The approval id the call waits for, when it waits.
    """

    outcome: CallOutcome | None = None
    text: str = ""
    pending: str | None = None


@final
class GatewayClient:
    """One client: its identity, the thinker acting for it, and its calls.

    Args:
        hub: The gateway's hub.
        thinker_class: The profile's thinker class.
        identity: Who the client is.
        profile: The profile's name (approvals are bound to it).
        read_only: Bind the thinker read-only.
        approvals: Where a call's approval waits when the client cannot be asked.
        approval_expiry: Seconds a pending approval waits before it expires.

    Raises:
        GatewayConfigError: The thinker class cannot be built with ``hub=`` alone.
    """

    def __init__(
        self,
        hub: ToolHub,
        thinker_class: type[ThinkerBase],
        identity: ClientIdentity,
        *,
        profile: str,
        read_only: bool = False,
        approvals: ApprovalStore,
        approval_expiry: float,
    ) -> None:
        from nucleo_core.gateway.errors import GatewayConfigError

        self.identity = identity
        self.profile = profile
        self._hub = hub
        self._approvals = approvals
        self._expiry = approval_expiry
        self._lock = threading.Lock()
        # Catalog names whose admission was decided for the whole-catalog offer (granted or
        # refused): each is asked once, not at every listing.
        self._decided: set[str] = set()
        try:
            thinker = (
                thinker_class(hub=hub, read_only=True) if read_only else thinker_class(hub=hub)
            )
        except Exception as exc:
            raise GatewayConfigError(
                f"the gateway builds {thinker_class.__qualname__} with hub= alone"
                f"{' and read_only=True' if read_only else ''}, which raised "
                f"{type(exc).__name__}: {exc}; give its other parameters defaults"
            ) from exc
        # Who the thinker acts for goes on every record it makes (`requester_of`).
        thinker._requested_for = identity.chain()
        self.thinker = thinker

    @property
    def approvals_key(self) -> str:
        """What the approvals of this client are filed under (their ``conversation_id``)."""
        return self.identity.approvals_key(self.profile)

    # -- listing ------------------------------------------------------------------------------

    def tools(self) -> list[ToolProvider]:
        """The tools the client is listed now, in the palette's (stable) order.

        The palette is assembled as before a thinker's turn; an enumerated catalog is admitted
        whole first (each name once, through the hub's admission, on the record).
        """
        thinker = self.thinker
        registry = ThinkerBase.reconcile_tool_registry(thinker)
        # request_tools without search_tools: the thinker enumerates its catalog, so the client
        # is listed all of it (admitted); with search_tools, the client's model searches.
        enumerated = (
            registry.get_provider_by_name(REQUEST_TOOLS) is not None
            and registry.get_provider_by_name(SEARCH_TOOLS) is None
        )
        # Assembled again only when admission was asked about something.
        if enumerated and self._admit_catalog():
            registry = ThinkerBase.reconcile_tool_registry(thinker)
        return [p for p in registry.providers() if p.name not in _THINKER_ONLY]

    def _admit_catalog(self) -> bool:
        """Ask admission for the catalog names not asked yet; whether there were any."""
        names = [p.name for p in ThinkerBase.tool_catalog(self.thinker)]
        with self._lock:
            undecided = [name for name in names if name not in self._decided]
            self._decided.update(undecided)
        if undecided:
            ThinkerBase.request_tools(self.thinker, undecided)
        return bool(undecided)

    def listed_names(self) -> list[str]:
        """The names of `tools`."""
        return [provider.name for provider in self.tools()]

    # -- calls --------------------------------------------------------------------------------

    def gate(self, name: str, arguments: Mapping[str, Any]) -> ApprovalRequest | None:
        """What the client's user must approve before this call may run, or ``None``.

        The door is passed (availability, read-only, input, permission) without running the
        call nor writing a record: ``None`` when the call may run or would be refused (the
        execution then says so, on the record), or when a stored approval already gives it.
        """
        from nucleo_core.guard.approvals import ApprovalRequest
        from nucleo_core.thinking.tool_call import ToolCall

        if name not in self.listed_names():
            return None
        call = ToolCall(id="gate", name=name, raw_input=dict(arguments))
        try:
            cleared = call_door(self.thinker, call)
        except CorrectableError:
            return None
        permission = cleared.permission
        if permission is None or permission.decision != "confirm":
            return None
        if self._stored(name, arguments, "approved") is not None:
            return None
        provider = cleared.provider
        return ApprovalRequest(
            tool=name,
            source=provider.source,
            risk=provider.risk.value if provider.risk_declared else "high",
            risk_declared=provider.risk_declared,
            arguments=dict(arguments),
            thinker=_qualified(type(self.thinker)),
            decided_by=permission.decided_by,
            reason=permission.reason,
        )

    async def call(
        self,
        name: str,
        arguments: Mapping[str, Any],
        *,
        approver: Approver | None = None,
        on_palette_change: Callable[[], Awaitable[None]] | None = None,
    ) -> CallAnswer:
        """Run one call as the thinker would, and say how it ended.

        Args:
            name: The tool's name, as listed.
            arguments: What the client sent.
            approver: Asks the client's user about a ``confirm`` call (elicitation); ``None``
                leaves such a call pending, its approval filed (see `approvals`).
            on_palette_change: Awaited when the call changed what the client is listed (a
                search admitted tools).
        """
        from nucleo_core.thinking._execution_durable import DurableApprovals
        from nucleo_core.thinking.execution import CallStatus, ExecutionPolicy, ToolExecution

        listed = self.listed_names()
        if name not in listed:
            return CallAnswer(text=str(UnknownTool(listed)))
        raw = dict(arguments)
        stored = self._stored_all(name, raw)
        approved = stored.get("approved")
        if approved is None and approver is None:
            waiting = stored.get("pending")
            if waiting is not None:
                answer = self._still_waiting(name, raw, waiting.id)
                if answer is not None:
                    return answer
        call = resolved_call(
            self.thinker,
            approved.call_id if approved is not None else f"mcp-{uuid.uuid4().hex}",
            name,
            raw,
        )
        durable = DurableApprovals(
            pausable=True,
            decided={call.id: approved} if approved is not None else {},
            store=self._approvals,
        )
        policy = getattr(self.thinker, "execution", None)
        execution = ToolExecution(
            [call],
            check=partial(call_door, self.thinker),
            parent=self.thinker,
            policy=policy if isinstance(policy, ExecutionPolicy) else ExecutionPolicy(),
            registry=self.thinker.registry,
            approver=approver,
            audit=self._call_audit(),
            durable=durable,
            observer=run_observer(self._hub),  # traced like a thinker's calls when the hub is
        )
        before = listed if name == SEARCH_TOOLS else None
        report = await execution.run()
        (outcome,) = report.outcomes
        if outcome.status is CallStatus.PENDING:
            (waiting_call,) = execution.pending_calls()
            record = file_pending(
                self._approvals,
                waiting_call,
                key=self.approvals_key,
                thinker=_qualified(type(self.thinker)),
                requested_by=" > ".join(
                    (*self.identity.chain(), f"{_qualified(type(self.thinker))}#{id(self):x}")
                ),
                expiry=self._expiry,
            )
            return CallAnswer(text=pending_message(name, record.id), pending=record.id)
        if before is not None and on_palette_change is not None and self.listed_names() != before:
            await on_palette_change()
        return CallAnswer(outcome=outcome)

    def _still_waiting(
        self, name: str, raw: Mapping[str, Any], approval_id: str
    ) -> CallAnswer | None:
        """A call already waiting: its pending approval again, when the door still asks one.

        ``None`` when the door now decides otherwise (the call runs, or is refused, through
        the execution as any call).
        """
        from nucleo_core.thinking.tool_call import ToolCall

        try:
            cleared = call_door(
                self.thinker, ToolCall(id="waiting", name=name, raw_input=dict(raw))
            )
        except (CorrectableError, PermissionDenied):
            return None
        if cleared.permission is not None and cleared.permission.decision == "confirm":
            return CallAnswer(text=pending_message(name, approval_id), pending=approval_id)
        return None

    def _stored(self, name: str, raw: Mapping[str, Any], status: ApprovalStatus) -> Any:
        try:
            return matching_record(
                self._approvals, key=self.approvals_key, tool=name, arguments=raw, status=status
            )
        except Exception:  # an unreadable store gives no approval (fail closed)
            logger.exception("the approval store could not be read")
            return None

    def _stored_all(self, name: str, raw: Mapping[str, Any]) -> Mapping[ApprovalStatus, Any]:
        """This call's stored approvals by status, in one read of the store."""
        try:
            return matching_records(
                self._approvals, key=self.approvals_key, tool=name, arguments=raw
            )
        except Exception:  # an unreadable store gives no approval (fail closed)
            logger.exception("the approval store could not be read")
            return {}

    def _call_audit(self) -> Any:
        log: AuditLog | None = self._hub.audit
        if log is None:
            return None
        from nucleo_core.hub._audit import requester_of
        from nucleo_core.thinking._execution_audit import CallAudit

        requester = requester_of(self.thinker)
        chain = self.identity.chain()
        if requester.parents[: len(chain)] != chain:
            # Whatever the hub's requester says, a call's records name the client.
            from nucleo_core.guard.audit.events import Requester

            requester = Requester(
                thinker_class=requester.thinker_class,
                thinker_id=requester.thinker_id,
                conversation_id=requester.conversation_id,
                parents=(*chain, *requester.parents),
            )
        return CallAudit(log, requester)


def resolved_call(thinker: ThinkerBase, call_id: str, name: str, arguments: Any) -> ToolCall:
    """The client's call as a model's answer is read: resolved against the palette, parsed.

    As the response handler resolves a model's tool use, so that the call door reuses the
    parse and the record names the tool: an input nested too deep, or not an object, is
    refused whatever the tool; an unknown name keeps its error for the door to restate.
    """
    from nucleo_core.errors import InvalidToolInput
    from nucleo_core.models._json_depth import MAX_JSON_DEPTH, exceeds, tool_input
    from nucleo_core.thinking.tool_call import ToolCall

    if not isinstance(arguments, Mapping):
        problem: str | None = "input: must be a JSON object"
        raw: Mapping[str, Any] | str = ""
    elif exceeds(arguments):
        problem = (
            f"input: nests objects and arrays more than {MAX_JSON_DEPTH} levels deep; send a "
            f"JSON object nested at most {MAX_JSON_DEPTH} levels deep"
        )
        raw = tool_input(arguments)
    else:
        problem, raw = None, dict(arguments)
    provider = thinker.registry.available(name)
    if provider is None:
        return ToolCall(id=call_id, name=name, raw_input=raw, input_problem=problem)
    if problem is not None:
        error = InvalidToolInput(provider.name, [problem])
        return ToolCall(
            id=call_id,
            name=name,
            raw_input=raw,
            provider=provider,
            error=error,
            input_problem=problem,
        )
    return ToolCall.parsed(id=call_id, name=name, raw_input=raw, provider=provider)


def _qualified(cls: type[Any]) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"
