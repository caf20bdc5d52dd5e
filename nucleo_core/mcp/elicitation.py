"""Elicitation: an MCP server asking the user for input, answered by an *answerer*.

A server may ask, in the middle of a call, for a small form to be filled in (``form`` mode: a
flat JSON Schema of strings, numbers, booleans and enums) or for the user to open a URL
(``url`` mode: an OAuth flow, a payment page). nucleo declares the ``elicitation`` capability
and hands each request to the answerer given to `MCPClientPool` (or `MCPServers`) as
``elicitation=``: a callable, plain or ``async``, taking an `ElicitationRequest` and answering
an `ElicitationAnswer`.

Everything fails closed: with no answerer every request is declined (no answer means no
consent), and so is a request whose answerer raised. An accepted form answer is checked
against the schema the server sent before it is sent; one that does not fit is never sent:
the server is told ``cancel`` and the problems (field and reason, never the value) are logged
on ``nucleo.mcp``.

In a durable run with no answerer, a request is *pending* instead (`ElicitationScope`): the
server is told ``cancel``, the call ends, and the run pauses (see `CallElicitations` and
`nucleo_core.thinking._execution_durable.ElicitationScope`) with an approval of kind
``"elicitation"`` (decided with ``nucleo approvals approve ID --content JSON`` or ``reject``);
the resumed run makes the call again and answers the same request from the decision, once.

`TerminalAnswerer` asks on the terminal (``nucleo run`` and ``nucleo chat`` use it when they
run interactively); `ScriptedAnswerer` answers from a script, for tests.
"""

from __future__ import annotations

import logging

from nucleo_core._answering import answer_of
from nucleo_core.guard.elicitation_answer import answer_problems
from nucleo_core.mcp._answerers import ScriptedAnswerer, TerminalAnswerer
from nucleo_core.mcp._call_elicitations import CallElicitations
from nucleo_core.mcp._elicitation_values import (
    ELICITATION_ACTIONS,
    ElicitationAction,
    ElicitationAnswer,
    ElicitationAnswerer,
    ElicitationRequest,
    decline_every_request,
)

__all__ = [
    "CallElicitations",
    "ElicitationAction",
    "ElicitationAnswer",
    "ElicitationAnswerer",
    "ElicitationRequest",
    "ScriptedAnswerer",
    "TerminalAnswerer",
    "answer_problems",
    "decline_every_request",
    "settle_elicitation",
]

logger = logging.getLogger("nucleo.mcp")


async def settle_elicitation(
    answerer: ElicitationAnswerer | None, request: ElicitationRequest
) -> ElicitationAnswer:
    """Ask ``answerer`` (declining without one) and check its answer; never raises.

    An answerer that raises, or answers anything but an `ElicitationAnswer`, declines. An
    accepted form whose content does not fit the schema becomes ``cancel`` (nothing unchecked
    is sent), and the problems are logged; an accepted URL carries no content.
    """
    if answerer is None:
        return decline_every_request(request)
    try:
        answer = await answer_of(answerer, request)
    except Exception:
        logger.exception(
            "the elicitation answerer failed on a request of MCP server '%s'; declined",
            request.server,
        )
        return ElicitationAnswer.decline()
    if not isinstance(answer, ElicitationAnswer) or answer.action not in ELICITATION_ACTIONS:
        logger.error(
            "the elicitation answerer answered a %s to MCP server '%s' (an ElicitationAnswer "
            "is expected); declined",
            type(answer).__name__,
            request.server,
        )
        return ElicitationAnswer.decline()
    if answer.action != "accept":
        return ElicitationAnswer(answer.action)
    if request.mode == "url":
        return ElicitationAnswer.accept()
    problems = answer_problems(request.schema, answer.content or {})
    if problems:
        logger.warning(
            "an answer to MCP server '%s' was not sent: it does not fit the requested schema "
            "(%s); the server is told cancel",
            request.server,
            "; ".join(problems),
        )
        return ElicitationAnswer.cancel()
    return ElicitationAnswer.accept(dict(answer.content or {}))
