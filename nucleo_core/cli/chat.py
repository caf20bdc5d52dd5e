"""``nucleo chat THINKER``: a durable chat with a `ChatThinker`, one line per message."""

from __future__ import annotations

import asyncio
import sys
import uuid
from collections.abc import Iterator
from typing import TYPE_CHECKING

import click

from nucleo_core.cli.command_error import CommandError
from nucleo_core.cli.governance import audit_the_hub, guard_the_hub
from nucleo_core.cli.hub import loaded_hub
from nucleo_core.cli.model_options import model_option, model_settings_options
from nucleo_core.cli.running import (
    AnswerPrinter,
    build_thinker,
    declaration_of,
    model_failure,
    seated,
)
from nucleo_core.cli.skill_option import attach_skills, skill_option
from nucleo_core.cli.terminal_approver import terminal_approver
from nucleo_core.cli.thinker_class import load_thinker_class
from nucleo_core.cli.tool_failures import tool_failures_as_lines

if TYPE_CHECKING:
    from nucleo_core.thinking.chat import ChatThinker

__all__ = ["EXIT_COMMANDS", "chat"]

#: Lines that end the chat, besides the end of input (Ctrl-D).
EXIT_COMMANDS = frozenset({"/exit", "/quit"})


@click.command()
@model_settings_options
@click.argument("thinker")
@model_option("the entry configured for the thinker's grade")
@click.option(
    "--conversation",
    "conversation_id",
    metavar="ID",
    help="Resume this conversation (its id is printed when a chat starts). Default: a new one.",
)
@skill_option
def chat(
    thinker: str,
    pin: str | None,
    conversation_id: str | None,
    skill_names: tuple[str, ...],
    **settings: float | int | None,
) -> None:
    """Chat with a ChatThinker: each line you type is one message, its answer streamed back.

    The model's text is printed as it arrives (the request is streamed), the text it writes
    before calling tools included.

    THINKER is the class's import path, as for `nucleo run`; it must subclass ChatThinker. It is
    built as `nucleo run` builds a thinker. The conversation is durable: every turn is kept
    (in $NUCLEO_CONVERSATIONS, by default ~/.local/share/nucleo/conversations.sqlite3), and its
    id is printed at the start, so --conversation ID resumes it later. Type /exit, or end the
    input (Ctrl-D), to leave.

    --skill NAME attaches a skill of the thinker's skill catalog to the conversation at your
    first message (durably: a resumed chat keeps it), admitted as the model's request_skill
    is; a refusal exits with code 2 saying why, before the chat starts.
    """
    from nucleo_core.conversations import ConversationService
    from nucleo_core.thinking.chat import ChatThinker

    thinker_class = load_thinker_class(thinker)
    if not issubclass(thinker_class, ChatThinker):
        raise CommandError(
            f"'{thinker}' is not a chat thinker: it does not subclass "
            "nucleo_core.thinking.chat.ChatThinker (`nucleo run` runs other thinkers)"
        )
    declaration = declaration_of(thinker_class)
    catalog, seat = seated(declaration, pin, **settings)
    conversations = ConversationService()
    hub = loaded_hub(mcp_servers=True)  # closed when the chat ends: its MCP servers stop
    try:
        guard_the_hub(hub, only_if_configured=True)  # the project's [guard], when it has one
        audit_the_hub(hub)  # every grant, refusal and call on the project's record
        instance: ChatThinker = build_thinker(
            thinker_class,
            thinker,
            declaration,
            hub=hub,
            catalog=catalog,
            conversations=conversations,
            pin=pin,
        )
        attach_skills(instance, skill_names, thinker)
    except BaseException:
        hub.close()
        raise
    if sys.stdin.isatty() and instance.approver is None:
        instance.approver = terminal_approver  # a person at the terminal says yes or no
    printer = AnswerPrinter()
    instance.listeners.append(printer)
    instance.stream_text = True  # the answer is printed as it arrives, not once it is whole
    resumed = conversation_id is not None and conversations.exists(conversation_id)
    conversation_id = conversation_id or uuid.uuid4().hex
    state = "resumed" if resumed else "new"
    _note(f"Conversation {conversation_id} ({state}), with {seat.id}.")
    _note("Type a message and press Enter; /exit or Ctrl-D ends the chat.")
    resume = f"nucleo chat {thinker} --conversation {conversation_id}"

    async def chatting() -> None:
        try:
            for line in _messages():
                printer.reset()
                answer = await instance.send(line, conversation_id=conversation_id)
                if not printer.printed:  # nothing streamed: print the answer itself
                    click.echo(answer)
        finally:
            await catalog.aclose()

    try:
        with tool_failures_as_lines():
            asyncio.run(chatting())
    except Exception as exc:
        failure = model_failure(exc, seat, thinker).message
        raise CommandError(f"{failure} The conversation is kept: {resume}") from exc
    finally:
        conversations.shutdown()
        hub.close()
    _note(f"Resume this conversation with: {resume}")


def _messages() -> Iterator[str]:
    """The user's messages: stdin's lines, blank ones skipped, until EOF or an exit command."""
    stream = sys.stdin  # what click's test runner replaces, too
    interactive = stream.isatty()
    while True:
        if interactive:
            click.echo("> ", nl=False, err=True)
        try:
            line = stream.readline()
        except KeyboardInterrupt:  # Ctrl-C at the prompt ends the chat like Ctrl-D
            click.echo(err=True)
            return
        if not line:
            return
        text = line.strip()
        if text in EXIT_COMMANDS:
            return
        if text:
            yield text


def _note(text: str) -> None:
    """Tell the user something that is not an answer: on stderr, so stdout is the answers."""
    click.echo(text, err=True)
    sys.stderr.flush()
