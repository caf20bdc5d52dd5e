"""``nucleo resume CONVERSATION``: continue a durable run that paused for approvals.

The conversation is read from the durable conversations' file (``$NUCLEO_CONVERSATIONS``), its
pending approvals from the approvals' file beside it (``$NUCLEO_APPROVALS``). The thinker class
is the one that paused (its qualified name is kept with the paused turn; for a sub-thinker's
approvals, the root thinker that launched it), or ``--thinker``. It is built as ``nucleo run``
builds one, on a hub whose permission guard is the project's (`discover_guard_config`), so each
approved call passes the call door again. A run still waiting (an approval is pending) prints
what it waits for and exits 3.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

import click

from nucleo_core.cli import render
from nucleo_core.cli.command_error import CommandError
from nucleo_core.cli.governance import audit_the_hub, guard_the_hub
from nucleo_core.cli.hub import loaded_hub
from nucleo_core.cli.model_options import model_settings_options
from nucleo_core.cli.running import (
    as_json,
    as_text,
    build_thinker,
    declaration_of,
    model_failure,
    seated,
)
from nucleo_core.cli.store import resolved_store, store_option
from nucleo_core.cli.thinker_class import load_thinker_class
from nucleo_core.cli.tool_failures import tool_failures_as_lines

if TYPE_CHECKING:
    from nucleo_core.conversations import ConversationService

__all__ = ["STILL_PAUSED_EXIT_CODE", "resume"]

#: The exit code of a resume that is still waiting for an approval.
STILL_PAUSED_EXIT_CODE = 3


class _StillPaused(click.ClickException):
    exit_code = STILL_PAUSED_EXIT_CODE


@click.command()
@model_settings_options
@click.argument("conversation_id", metavar="CONVERSATION")
@click.option(
    "--thinker",
    "thinker",
    metavar="THINKER",
    help=(
        "The thinker class, as for `nucleo run`. Default: the class that paused, by its "
        "qualified name (package.module.ClassName)."
    ),
)
@click.option("--model", "pin", metavar="ENTRY", help="The model, as for `nucleo run`.")
@click.option(
    "--json", "as_json_output", is_flag=True, help="Print one JSON object (the answer...)."
)
@store_option
def resume(
    conversation_id: str,
    thinker: str | None,
    pin: str | None,
    as_json_output: bool,
    store_url: str | None,
    **settings: float | int | None,
) -> None:
    """Continue the durable run paused in CONVERSATION, once its approvals are decided.

    Approved calls run (once), rejected ones tell the model the reason, expired ones are
    rejected as expired; the run then goes on to its final answer, printed as `nucleo run`
    prints it. While an approval is still pending, nothing runs: the pending approvals are
    listed and the command exits 3 (`nucleo approvals` decides them).
    """
    from nucleo_core.conversations import ConversationService
    from nucleo_core.errors import NotPaused, RunPaused
    from nucleo_core.stores import open_conversations
    from nucleo_core.thinking.thinker import Thinker

    # --store names the shared store; else ConversationService's default (which follows
    # $NUCLEO_STORE_URL and the project's `store`); its approvals are kept beside it.
    url = resolved_store(store_url) if store_url else None
    conversations = ConversationService() if url is None else open_conversations(url)
    try:
        path = thinker or _paused_thinker(conversations, conversation_id)
        thinker_class = load_thinker_class(path)
        if not issubclass(thinker_class, Thinker):
            raise CommandError(f"'{path}' cannot resume a run: it is not a Thinker")
        declaration = declaration_of(thinker_class)
        catalog, seat = seated(declaration, pin, **settings)
        hub = loaded_hub(mcp_servers=True)
        try:
            guard_the_hub(hub)
            audit_the_hub(hub, url)
            instance: Thinker[Any, Any] = build_thinker(
                thinker_class,
                path,
                declaration,
                hub=hub,
                catalog=catalog,
                conversations=conversations,
                pin=pin,
            )

            async def resuming() -> Any:
                try:
                    return await instance.resume(conversation_id)
                finally:
                    await catalog.aclose()

            try:
                with tool_failures_as_lines():
                    answer = asyncio.run(resuming())
            except RunPaused as paused:
                lines = [f"{a.id}  {a.tool} ({a.source})" for a in paused.approvals]
                raise _StillPaused(
                    f"the run in conversation {conversation_id} still waits for "
                    f"{len(lines)} approval(s):\n  "
                    + "\n  ".join(lines)
                    + "\ndecide them with `nucleo approvals approve|reject ID`, then resume again"
                ) from paused
            except NotPaused as exc:
                raise CommandError(str(exc)) from exc
            except Exception as exc:
                raise model_failure(exc, seat, path) from exc
        finally:
            hub.close()
    finally:
        conversations.shutdown()
    if as_json_output:
        render.print_json(
            {
                "conversation": conversation_id,
                "thinker": f"{thinker_class.__module__}.{thinker_class.__qualname__}",
                "model": seat.id,
                "answer": as_json(answer),
            }
        )
    else:
        click.echo(as_text(answer))


def _paused_thinker(conversations: ConversationService, conversation_id: str) -> str:
    """The qualified class name of the thinker that paused ``conversation_id``."""
    from nucleo_core.conversations import ConversationError
    from nucleo_core.thinking._execution_pause import load_paused

    if not conversations.exists(conversation_id):
        raise CommandError(
            f"no durable conversation {conversation_id} in {conversations.path} (set "
            "$NUCLEO_CONVERSATIONS to the file the run kept it in)"
        )
    try:
        context = conversations.open(conversation_id, durable=True)
        try:
            paused = load_paused(context)
        finally:
            conversations.close(context)
    except ConversationError as exc:
        raise CommandError(str(exc)) from exc
    if paused is None or not (paused.thinker or paused.records):
        raise CommandError(
            f"conversation {conversation_id} cannot be resumed: it has no paused turn (it "
            "never paused, or it was resumed)"
        )
    # The root's class: a sub-thinker's approvals name the sub-thinker, which its root resumes.
    return paused.thinker or paused.records[0].thinker
