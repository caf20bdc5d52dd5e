"""`ReactiveThinker`: one chat turn over a durable conversation, ending cleanly or saying why.

A turn appends the user's text to the conversation and runs the `Thinker` loop until the model
gives a final answer, with three additions:

- **The inbox.** Messages that arrive while the turn runs are offered to `ReactiveThinker.inbox`
  (see `Inbox`), accepted or refused at once. Accepted ones are injected as user messages at
  the next turn boundary, before the next model call ("injection draining"); a final answer
  given while accepted messages wait does not end the turn: they are injected and the model
  answers again. Each answer the model gives is passed to `ReactiveThinker.deliver`.
- **The closing turn.** At ``max_iterations`` without a final answer, the inbox closes
  (messages accepted until then are injected first, later ones are refused), and one more
  call asks the model for its final answer now, with ``tool_choice="none"``. The request
  carries a note saying so (`closing_note`), merged into its last user message; the note is
  part of that request only, not of the conversation. Its answer ends the turn; a closing turn
  that answers with tool calls instead ends it abnormally (`ThinkerIterationLimit`).
- **The abnormal-end discipline.** However else the turn ends — the model provider fails, the
  answer stays unreadable, the tool executor fails, the turn is cancelled, the closing turn
  gives no answer, the process is interrupted — the conversation is rolled back to the last
  user utterance (`ConversationContext.rollback_to_last_user_utterance`) and the reason,
  written for the model (`abnormal_end_reason`), is recorded as an `ABNORMAL_END` marker right
  after it. Messages the inbox had accepted and not injected yet are then appended, followed
  by a second marker with the same reason: nothing accepted is lost, and no question is left
  hanging. The original exception is then **re-raised** (a turn never returns without an
  answer); `ReactiveThinker.last_outcome` says what the turn did either way.

  A process killed mid-turn (``SIGKILL``, power loss) runs no handler at all; so a turn marks
  the conversation as having a turn in progress (metadata `TURN_IN_PROGRESS`, with the number
  of messages before it) and clears the mark when it ends. The next turn opening the
  conversation finds the mark and applies the same discipline then: the interrupted turn's
  partial work is rolled back to its last user utterance, and a marker with `INTERRUPTED`
  follows it — unless the interrupted turn had already answered (its last message is a final
  answer) or already recorded its marker, when nothing is removed.

A resumed model therefore reads every question followed either by an answer or by a note
saying why there was none (``messages_for_model`` renders markers as such notes).
"""

from __future__ import annotations

import logging
import threading
from functools import partial
from typing import TYPE_CHECKING, Any, ClassVar

from nucleo_core._closing import ClosesOnExit
from nucleo_core.errors import MisuseError
from nucleo_core.models.messages import Message, TextBlock
from nucleo_core.thinking._reactive_discipline import (
    INTERRUPTED,
    TURN_IN_PROGRESS,
    _clear_mark,
    _Discipline,
)
from nucleo_core.thinking._reactive_turn import TurnOutcome, _Turn
from nucleo_core.thinking.inbox import CLOSING_TURN, Inbox
from nucleo_core.thinking.thinker import ANSWER_REFUSED, Thinker, ThinkerIterationLimit
from nucleo_core.tools._run_all import run_all

if TYPE_CHECKING:
    from collections.abc import Sequence

    from nucleo_core.conversations import ConversationContext
    from nucleo_core.thinking.response import ThinkingResponse

__all__ = [
    "CLOSING_NOTE",
    "INTERRUPTED",
    "TURN_IN_PROGRESS",
    "ReactiveThinker",
    "TurnOutcome",
]

logger = logging.getLogger("nucleo.thinking")

#: What the closing turn's request tells the model.
CLOSING_NOTE = (
    "You have used every turn this request allows. Do not call any tool: give your final "
    "answer now, from what you have found so far, and say what is left undone, if anything."
)


class ReactiveThinker(Thinker[str, str], _Discipline, ClosesOnExit):
    """One chat turn over a durable conversation: inbox, closing turn, abnormal-end discipline.

    See the module documentation for the whole contract. One turn runs at a time on a thinker;
    messages for the running turn go to `inbox`. A durable conversation's tools keep their
    state from turn to turn: end the conversation with `end_conversation` (or every one with
    `close`, or a ``with`` block) to have them drop it.

    The arguments are `Thinker`'s.
    """

    #: What the closing turn's request tells the model (see `closing_note`).
    closing_note_text: ClassVar[str] = CLOSING_NOTE

    def _set_up(self) -> None:
        super()._set_up()
        #: Messages for the running turn: offer them here (see `Inbox`).
        self.inbox = Inbox()
        self.last_outcome: TurnOutcome | None = None
        self._turn: _Turn | None = None
        self._turn_lock = threading.Lock()

    # -- running --------------------------------------------------------------------------------

    async def turn(self, text: str, *, conversation_id: str) -> str:
        """Run one chat turn on the durable conversation ``conversation_id``; return the answer.

        Raises:
            MisuseError: A turn is already running on this thinker (offer the text to `inbox`).
            ThinkerIterationLimit: Neither the turns nor the closing turn gave a final answer.
            ModelError: The model provider failed.
            ResponseError: The model's answer stayed unreadable within the correction budget.
            asyncio.CancelledError: The turn was cancelled.

            Whatever ends the turn abnormally is re-raised after the rollback and its marker.
        """
        return await self._run_turn(text, conversation_id=conversation_id, durable=True)

    async def run(
        self, input: str, *, conversation_id: str | None = None, durable: bool = False
    ) -> str:
        """A turn with ``input`` as the user's text (see `turn`), on any conversation.

        With ``durable=False`` the conversation is temporary, as for every `Thinker`; the
        discipline is the same.
        """
        return await self._run_turn(
            self.render_input(input), conversation_id=conversation_id, durable=durable
        )

    def end_conversation(self, conversation_id: str) -> None:
        """End the chat ``conversation_id``: its tools are told, and drop what they kept for it.

        A durable conversation's turns each open and close it, so a tool's state for it (see
        `nucleo_core.tools.state`) lives from turn to turn; this is where it ends. Every tool
        this thinker's palette held during the conversation, and every tool it holds now, is
        told (``forget_conversation_state(conversation_id)``). The conversation itself stays
        stored (`ConversationService.delete` deletes it); a later turn on it starts its tools'
        state afresh. A temporary conversation ends with its turn, and needs no call.

        Raises:
            MisuseError: A turn is running on ``conversation_id`` (end it after the turn).
            ExceptionGroup: Some tools raised while told; every tool was told even so.
        """
        with self._turn_lock:
            turn = self._turn
            if turn is not None and turn.context.id == conversation_id:
                raise MisuseError(
                    f"a turn is running on conversation {conversation_id}: end the "
                    "conversation after the turn has ended"
                )
        if not self._assembled:  # no turn ran here (a new process): the palette it would have
            self.reconcile_tool_registry()
        self.tell_tools_conversation_ended(conversation_id)

    def close(self) -> None:
        """End every conversation this thinker ran a turn in and has not ended yet.

        Call it when the thinker is done (or use the thinker as a context manager): see
        `end_conversation`.

        Raises:
            MisuseError: A turn is running on this thinker.
            ExceptionGroup: Some tools raised while told; every conversation was ended even so.
        """
        with self._turn_lock:
            if self._turn is not None:
                raise MisuseError(
                    f"a turn is running on this {type(self).__name__}: close it after the turn"
                )
        run_all(
            (partial(self.tell_tools_conversation_ended, cid) for cid in list(self._palette_seen)),
            "some conversations' tools failed to forget",
        )

    def open_conversation(
        self, conversation_id: str | None, *, durable: bool
    ) -> ConversationContext:
        """The conversation a turn runs in (`ChatThinker` makes a temporary one durable)."""
        return self.conversations.open(conversation_id, durable=durable)

    async def _run_turn(self, text: str, *, conversation_id: str | None, durable: bool) -> str:
        with self._turn_lock:
            if self._turn is not None:
                raise MisuseError(
                    f"a turn is already running on this {type(self).__name__}; offer the message "
                    "to its inbox (thinker.inbox.offer) or wait for the turn to end"
                )
            context = self.open_conversation(conversation_id, durable=durable)
            turn = self._turn = _Turn(context=context, start=len(context))
        run = self._begin_run(context, resumed=False)
        answer: str | None = None
        error: BaseException | None = None
        reason: str | None = None
        removed = 0
        try:
            Thinker._enter_conversation(self, context)  # its skills are the turn's
            self.inbox.open()
            self._recover_interrupted(turn)
            turn.start = len(context)
            context.set_metadata(TURN_IN_PROGRESS, {"started_at": turn.start})
            context.append(Message.user(text))
            answer = await self.think(context)
        except BaseException as exc:
            error, reason = exc, self.abnormal_end_reason(exc)
            removed = self._end_abnormally(turn, exc, reason)
            raise
        else:
            _clear_mark(context)  # a mark left set is harmless: the answer is there
            return answer
        finally:
            self.inbox.stop()
            self.last_tool_failures = tuple(self._tool_failures)
            self.last_outcome = TurnOutcome(
                conversation_id=context.id,
                answer=answer,
                reason=reason,
                error=error,
                removed=removed,
                markers=tuple(turn.markers),
                injected=tuple(turn.injected),
                closing_turn=turn.reached_closing,
                tool_failures=self.last_tool_failures,
            )
            self._end_run(context, run, error)
            with self._turn_lock:
                self._turn = None
            try:
                self.conversations.close(context)
            finally:
                # A temporary conversation is gone once closed: its end is this turn's. A
                # durable one goes on at the next turn, until `end_conversation`.
                if not context.durable:
                    self.tell_tools_conversation_ended(context.id)

    async def think(self, context: ConversationContext) -> str:
        """The `Thinker` loop; at its cap, the closing turn."""
        try:
            return await super().think(context)
        except ThinkerIterationLimit as limit:
            turn = self._turn
            if turn is None or turn.calls < self.max_iterations:
                raise  # not the loop's cap: raised from within a turn
            return await self.closing_turn(context, limit)

    async def closing_turn(self, context: ConversationContext, limit: ThinkerIterationLimit) -> str:
        """One last call, tools not offered (``tool_choice="none"``), whose answer ends the turn.

        The inbox closes first: messages accepted until now are injected, later ones refused.

        Raises:
            ThinkerIterationLimit: The closing turn answered with tool calls, not an answer.
        """
        turn = self._require_turn()
        turn.closing = turn.reached_closing = True
        try:
            self.inject(context, self.inbox.close(CLOSING_TURN))
            self.reconcile_tool_registry()
            result = await self.submit_thinking_call(context)
            if result.final_answer:
                context.extend(result.turns)
                accepted = await self.accept(result, context)
                if accepted is not ANSWER_REFUSED:
                    return accepted  # type: ignore[no-any-return]  # a str, as declared
            raise ThinkerIterationLimit(
                f"{type(self).__name__} reached {self.max_iterations} turns without a final "
                "answer, and its closing turn gave none either"
            ) from limit
        finally:
            turn.closing = False

    async def submit_thinking_call(self, context: ConversationContext) -> ThinkingResponse[Any]:
        """Inject the inbox's accepted messages, then make this turn's exchange with the model.

        In the closing turn the exchange offers no tool (``tool_choice="none"``) and its request
        carries `closing_note`.
        """
        self.inject(context, self.inbox.drain())
        turn = self._turn
        if turn is None or not turn.closing:
            result = await super().submit_thinking_call(context)
            if turn is not None:
                turn.calls += 1
            return result
        call = self._thinking_call(
            _with_note(context.messages_for_model(), self.closing_note()), tool_choice="none"
        )
        try:
            result = await call.run()
        finally:
            self.end_streamed_reply(call)
        self.catalog = call.catalog
        return result

    async def accept(self, result: ThinkingResponse[Any], context: ConversationContext) -> Any:
        """Deliver the answer; refuse it as the turn's end while accepted messages wait.

        The answer stays in the conversation either way; when messages wait, they are injected
        at the next boundary and the model answers again.
        """
        answer = await super().accept(result, context)
        if answer is ANSWER_REFUSED:
            return answer
        text = answer if isinstance(answer, str) else str(answer)
        final = self.inbox.settle()
        self.deliver(text, interim=not final)
        return text if final else ANSWER_REFUSED

    # -- hooks ----------------------------------------------------------------------------------

    def inject(self, context: ConversationContext, texts: Sequence[str]) -> None:
        """Append ``texts`` (accepted inbox messages) as user messages, in order."""
        if not texts:
            return
        context.extend(Message.user(text) for text in texts)
        if self._turn is not None:
            self._turn.injected.extend(texts)

    def deliver(self, answer: str, *, interim: bool) -> None:
        """Called with every answer the model gives; ``interim`` when the turn goes on after it.

        Does nothing here; `ChatThinker` streams the answer as content events.
        """
        del answer, interim

    def closing_note(self) -> str:
        """What the closing turn's request tells the model (`closing_note_text`)."""
        return self.closing_note_text

    def _require_turn(self) -> _Turn:
        turn = self._turn
        if turn is None:
            raise MisuseError(f"{type(self).__name__}: no turn is running")
        return turn


def _with_note(messages: Sequence[Message], note: str) -> tuple[Message, ...]:
    """``messages`` with ``note`` as user text at the end (joined to a last user message)."""
    block = TextBlock(text=note)
    if messages and messages[-1].role == "user":
        last = messages[-1]
        return (*messages[:-1], Message(role="user", content=(*last.content, block)))
    return (*messages, Message(role="user", content=(block,)))
