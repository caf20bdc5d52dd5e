"""The requests an MCP server makes of the client: its roots, an elicitation, a sampling.

Each is answered as the server's configuration and the pool's answerers allow: ``roots/list``
with the configured roots, an elicitation by the pool's answerer (its answer checked first),
a sampling request refused unless the configuration enables it. `ServerSession` holds this part.
"""

from __future__ import annotations

import logging
from typing import Any, Literal

import mcp_types as types

from nucleo_core.mcp._session_part import SessionPart
from nucleo_core.mcp.elicitation import (
    ElicitationAnswer,
    ElicitationAnswerer,
    ElicitationRequest,
    settle_elicitation,
)
from nucleo_core.mcp.sampling import (
    CatalogSampler,
    SamplingMessage,
    SamplingRefused,
    SamplingRequest,
    sample,
)

__all__ = ["ServerRequests"]

logger = logging.getLogger("nucleo.mcp")


class ServerRequests(SessionPart):
    """`ServerSession`'s part that answers the server's own requests (the SDK's callbacks)."""

    async def _list_roots(self, context: Any) -> types.ListRootsResult | types.ErrorData:
        """``roots/list``: the configured roots, else the project folder, as ``file://`` URIs."""
        del context
        roots = [
            types.Root(uri=path.resolve().as_uri(), name=path.name or str(path))  # type: ignore[arg-type]
            for path in self.config.root_paths()
        ]
        logger.debug("MCP server '%s' listed its roots: %d", self.config.name, len(roots))
        return types.ListRootsResult(roots=roots)

    async def _elicit(
        self, context: Any, params: types.ElicitRequestParams
    ) -> types.ElicitResult | types.ErrorData:
        """``elicitation/create``: asked of the pool's answerer, its answer checked first."""
        del context
        name = self.config.name
        if isinstance(params, types.ElicitRequestURLParams):
            request = ElicitationRequest(
                server=name, message=params.message, mode="url", url=params.url
            )
        else:
            request = ElicitationRequest(
                server=name, message=params.message, schema=dict(params.requested_schema)
            )
        answerer: ElicitationAnswerer | None = self._features.elicitation
        # In a durable run the request is told to its call (when it is the session's one call
        # in flight): a resumed call's decision answers it first, even with an answerer; with
        # none, it is pending (the call pauses the run) or declined.
        calls = self._in_flight
        own = calls[0] if len(calls) == 1 else None
        if own is not None:
            decided = own.decided_answer(request)
            if decided is not None:
                answerer = _given(decided)
            elif answerer is None:
                answerer = own.answer
        answer = await settle_elicitation(answerer, request)
        logger.info(
            "MCP server '%s' asked for input (elicitation, %s mode): %s",
            name,
            request.mode,
            answer.action,
        )
        content = dict(answer.content) if answer.content is not None else None
        return types.ElicitResult(action=answer.action, content=content)

    async def _sample(
        self, context: Any, params: types.CreateMessageRequestParams
    ) -> types.CreateMessageResult | types.ErrorData:
        """``sampling/createMessage``: refused unless the server's configuration enables it."""
        del context
        name = self.config.name
        settings = self.config.sampling
        if settings is None:
            return self._refuse_sampling(
                'sampling is not enabled for this server (set sampling = { model = "fast" } '
                f"in the configuration of MCP server '{name}' to allow it)"
            )
        if params.tools or params.tool_choice is not None:
            return self._refuse_sampling("a sampling request with tools is not served")
        messages = []
        for message in params.messages:
            blocks = message.content_as_list
            texts = [block.text for block in blocks if isinstance(block, types.TextContent)]
            if len(texts) != len(blocks):
                return self._refuse_sampling(
                    "only text is sampled (the request carries an image, audio or a tool block)"
                )
            messages.append(SamplingMessage(message.role, "".join(texts)))
        request = SamplingRequest(
            server=name,
            settings=settings,
            messages=tuple(messages),
            system=params.system_prompt or "",
            max_tokens=min(params.max_tokens, settings.max_tokens),
            temperature=params.temperature,
            stop_sequences=tuple(params.stop_sequences or ()),
        )
        self._audit_sampling("auto", f"served by {settings.model}")
        try:
            result = await sample(self._features.sampler or CatalogSampler(), request)
        except SamplingRefused as exc:
            return self._refuse_sampling(str(exc), audited=True)
        logger.info(
            "MCP server '%s' sampling request (%d message(s), max_tokens %d) served by %s: %s",
            name,
            len(messages),
            request.max_tokens,
            result.model,
            result.stop_reason,
        )
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text=result.text),
            model=result.model,
            stop_reason=result.stop_reason,
        )

    def _refuse_sampling(self, reason: str, *, audited: bool = False) -> types.ErrorData:
        logger.warning("MCP server '%s' sampling request refused: %s", self.config.name, reason)
        if not audited:
            self._audit_sampling("deny", reason)
        return types.ErrorData(
            code=types.INVALID_REQUEST, message=f"nucleo refused the sampling request: {reason}"
        )

    def _audit_sampling(self, decision: Literal["auto", "deny"], reason: str) -> None:
        """Record a sampling decision in the audit log, when the pool has one."""
        audit = self._features.audit
        if audit is None:
            return
        from nucleo_core.guard.audit.events import AuditEvent

        name = self.config.name
        try:
            audit.record(
                AuditEvent(
                    kind="permission",
                    source=f"mcp:{name}:sampling",
                    rule=f"mcp.servers.{name}.sampling",
                    decision=decision,
                    reason=reason,
                )
            )
        except Exception:  # the log failing must not answer the server for us
            logger.exception("recording a sampling decision of MCP server '%s' failed", name)


def _given(answer: ElicitationAnswer) -> ElicitationAnswerer:
    """An answerer that answers ``answer`` (a decision already made)."""

    def given(request: ElicitationRequest) -> ElicitationAnswer:
        del request
        return answer

    return given
