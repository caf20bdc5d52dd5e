"""`Thinker[I, O]`: the LLM loop over a palette and a conversation."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterable
from dataclasses import asdict, is_dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar, get_args, get_origin

from nucleo_core.errors import (
    MisuseError,
    NotPaused,
    ThinkerIterationLimit,
)
from nucleo_core.guard.approval_store import DEFAULT_APPROVAL_EXPIRY
from nucleo_core.hub.thinker_base import ThinkerBase
from nucleo_core.models.declaration import ThinkerDeclaration
from nucleo_core.models.messages import Message, Usage
from nucleo_core.thinking._execution_durable import ElicitationScope, elicitation_scope
from nucleo_core.thinking._run_observer import run_observer
from nucleo_core.thinking._thinker_compaction import _Compaction
from nucleo_core.thinking._thinker_exchange import _Exchange
from nucleo_core.thinking._thinker_pause import _Pausing
from nucleo_core.thinking._thinker_streaming import ContentEvent
from nucleo_core.thinking._thinker_tool_state import _ToolState
from nucleo_core.thinking.correction import ResponseCorrection
from nucleo_core.thinking.depth import Depth
from nucleo_core.thinking.execution import (
    DurableApprovals,
    ExecutionPolicy,
    ToolExecutor,
)
from nucleo_core.thinking.transcript import render_transcript

if TYPE_CHECKING:
    from nucleo_core.conversations import ConversationContext, ConversationService
    from nucleo_core.guard.approval_store import ApprovalStore
    from nucleo_core.hub.hub import ToolHub
    from nucleo_core.models.catalog import ModelCatalog
    from nucleo_core.models.client import ModelClient
    from nucleo_core.telemetry.observer import RunTrace
    from nucleo_core.thinking.execution import ToolFailure
    from nucleo_core.thinking.response import ThinkingResponse
    from nucleo_core.tools.provider import ToolProvider

__all__ = ["ANSWER_REFUSED", "ContentEvent", "Thinker", "ThinkerIterationLimit"]

#: What `Thinker.accept` returns to refuse a candidate answer and take another turn.
ANSWER_REFUSED: Any = object()

logger = logging.getLogger("nucleo.thinking")

InputT = TypeVar("InputT")
OutputT = TypeVar("OutputT")


class Thinker(_Pausing, _Compaction, _ToolState, _Exchange, Generic[InputT, OutputT]):
    """The LLM loop: each turn assembles the palette, makes one `LLMCall`, runs the tool calls.

    A turn: the per-turn reconcile hooks and the read-only sweep build the palette
    (`reconcile_tool_registry`), one exchange with the model is made through `LLMCall`
    (`submit_thinking_call`, the scripted-turn seam), the answer's tool calls are run by the
    two-phase executor — each checked at submission by the call door (`call_door`), which no
    override replaces — and their results, paired one to one with the tool uses, are appended
    as one results turn. The loop ends with
    a final answer of the declared output type.

    Args:
        declaration: The seat: grade and answer size. Required: there is no undeclared thinker.
        hub: The hub catalogs and admission come from.
        catalog: The model catalog the seat is resolved in (``ModelCatalog.discover()``).
        conversations: Where conversations live (a temporary in-memory service by default).
        pin: An entry id that beats the grade for every call of the conversation.
        read_only: Bind the palette read-only (latched at construction).
        depth: How deep the thinker works.
        execution: Timeouts and the concurrency cap of tool calls.
        system: The system text.
        correction: The correction budget of each exchange.
        client: A model client to use instead of the catalog's.
    """

    #: The declared output type; read from ``Thinker[I, O]`` when a subclass parameterises it.
    output_type: ClassVar[Any] = str
    #: Turns before the thinker gives up waiting for a final answer.
    max_iterations: ClassVar[int] = 12

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for base in getattr(cls, "__orig_bases__", ()):
            origin = get_origin(base)
            if isinstance(origin, type) and issubclass(origin, Thinker):
                args = get_args(base)
                if len(args) == 2 and not isinstance(args[1], TypeVar):
                    cls.output_type = args[1]

    def __init__(
        self,
        declaration: ThinkerDeclaration,
        *,
        hub: ToolHub | None = None,
        catalog: ModelCatalog | None = None,
        conversations: ConversationService | None = None,
        pin: str | None = None,
        read_only: bool = False,
        depth: Depth = Depth.STANDARD,
        execution: ExecutionPolicy | None = None,
        system: str = "",
        correction: ResponseCorrection | None = None,
        client: ModelClient | None = None,
    ) -> None:
        if not isinstance(declaration, ThinkerDeclaration):
            raise MisuseError(
                f"{type(self).__name__} needs a ThinkerDeclaration(grade, answer_size) as its "
                "first argument: every thinker declares its seat"
            )
        super().__init__(hub=hub, read_only=read_only)
        if conversations is None:
            from nucleo_core.conversations import ConversationService

            conversations = ConversationService()  # its SQLite file is made on first durable use
        self.declaration = declaration
        self.catalog = catalog
        self.conversations = conversations
        self.pin = pin
        self.depth = Depth(depth)
        # A delegation is bounded by the sub-thinker's own iteration cap, not by a tool timeout.
        self.execution = execution or ExecutionPolicy(per_tool_timeouts={"sub_thinker": None})
        self.system = system
        self.correction = correction
        self.client = client
        #: The conversation budget in tokens; ``None`` derives it from the seat (see
        #: `context_budget`).
        self.context_tokens: int | None = None
        self._executor = ToolExecutor()
        self._transcript: str | None = None
        self._context: ConversationContext | None = None
        self._usage = Usage()
        #: Tokens the last run spent (its own exchanges and its sub-thinkers'); ``None`` before.
        self.last_usage: Usage | None = None
        #: The tool calls of the last run that failed (raised or timed out), its sub-thinkers'
        #: included, in order, each with its exception and traceback — what the model was told
        #: "was recorded for the developer"; ``None`` before the first run.
        self.last_tool_failures: tuple[ToolFailure, ...] | None = None
        self._tool_failures: list[ToolFailure] = []
        self.listeners: list[Callable[[ContentEvent], None]] = []
        #: Whether the model's text is streamed to the listeners as it arrives (delta
        #: `ContentEvent`s), for a text answer from a seat that calls tools natively: the
        #: requests are then streamed. Off: the listeners get the accepted answer only.
        self.stream_text = False
        # What the deltas of the last exchange showed: left out of the answer's events.
        self._echo = ""
        # Every tool the palette held during each conversation not ended yet, by conversation
        # id: a tool granted and revoked mid-conversation is still told when it ends.
        self._palette_seen: dict[str, dict[int, ToolProvider]] = {}
        #: Where a durable run's pending approvals are kept (`nucleo_core.guard.approval_store`);
        #: ``None`` uses ``approvals.sqlite3`` next to the conversations' file (a store in this
        #: thinker's memory when the conversations are kept in memory). See `approval_store`.
        self.approvals: ApprovalStore | None = None
        #: Seconds a pending approval waits for its decision before it expires.
        self.approval_expiry: float = DEFAULT_APPROVAL_EXPIRY
        # Whether the run in progress may pause (its conversation is durable).
        self._pausable = False
        self._set_up()

    def _set_up(self) -> None:
        """Set up what a family keeps of its own, last in ``__init__``; nothing here.

        A family adds its attributes here rather than in an ``__init__`` of its own, so its
        constructor stays exactly `Thinker`'s.
        """

    # -- running ------------------------------------------------------------------------------

    async def run(
        self, input: InputT, *, conversation_id: str | None = None, durable: bool = False
    ) -> OutputT:
        """Run the objective ``input`` to a final answer of the declared output type.

        In a durable conversation, a ``confirm``-level call that no inline approver decides
        (there is none, or it defers) **pauses** the run: the calls of that answer that may
        run now run, the conversation keeps the paused turn, the pending approvals are filed
        in `approval_store`, and `RunPaused` is raised. Decide them in any process, then call
        `resume`. In a temporary conversation such a call is refused, as nothing could resume
        the run.

        Raises:
            RunPaused: The run waits for approvals (durable conversations only).
            ThinkerIterationLimit: No final answer within ``max_iterations`` turns.
            ResponseParseError: The model's answer stayed unparseable within the budget.
            ResponseValidationError: The model's answer stayed invalid within the budget.
            ModelError: The model provider failed.
        """
        context = self.conversations.open(conversation_id, durable=durable)
        return await self._run_in(context, Message.user(self.render_input(input)))

    async def resume(self, conversation_id: str) -> OutputT:
        """Continue the durable run paused in ``conversation_id``, to its final answer.

        Any thinker of the same class may resume it, in any process, once every pending
        approval is decided: each approved call passes the call door again (availability,
        read-only, input, permission; its approval stands for a ``confirm`` only when it was
        given for exactly these arguments) and runs, once, even if the run is resumed twice;
        a rejected call is refused with the rejection's reason, an expired one as expired.
        Then one results message answers every tool use of the paused answer, in order, the
        results of the calls that ran before the pause included, and the loop goes on.

        The tools ``request_tools`` granted before the pause are asked for again first,
        through admission (a grant the rules no longer admit is refused, on the record, and
        its call with it). A ``sub_thinker`` call whose sub-thinker paused continues that
        sub-thinker's run (its approvals are among those to decide, listed on the root's
        `RunPaused`); its answer is the call's result.

        Raises:
            RunPaused: Some approval is still pending (nothing ran), or the run paused again.
            NotPaused: The conversation has no paused turn (it was never paused, or it was
                resumed already).
            ConversationBusy: Another process has the conversation open for writing.
            ThinkerIterationLimit: As `run` raises it (and `ResponseError`, `ModelError`).
        """
        if not self.conversations.exists(conversation_id):  # never create one to resume it
            raise NotPaused(conversation_id, f"no such conversation in {self.conversations.path}")
        context = self.conversations.open(conversation_id, durable=True)
        return await self._run_in(context, None)

    async def _run_in(self, context: ConversationContext, objective: Message | None) -> OutputT:
        """Run the loop over ``context`` from ``objective``, or from its paused turn."""
        run = self._begin_run(context, resumed=objective is None)
        error: BaseException | None = None
        self._pausable = self._may_pause(context)
        try:
            ThinkerBase._enter_conversation(self, context)  # its skills are the run's
            if objective is not None:
                context.append(objective)
            else:
                await self._resume_turn(context)
            return await self.think(context)
        except BaseException as exc:
            error = exc
            raise
        finally:
            self._pausable = False
            self.last_tool_failures = tuple(self._tool_failures)
            self._end_run(context, run, error)
            try:
                self.conversations.close(context)
            finally:  # a run is its conversation: its end is the conversation's
                self.tell_tools_conversation_ended(context.id)

    def _begin_run(self, context: ConversationContext, *, resumed: bool) -> RunTrace | None:
        """Start a run over ``context``: fresh usage and failures, and its trace (if traced)."""
        self._context = context
        self._usage = Usage()
        self._tool_failures = []
        # Tracing: the run's trace is current until it ends (`nucleo_core.telemetry`).
        observer = run_observer(self._hub)
        return None if observer is None else observer.run_started(self, context.id, resumed=resumed)

    def _end_run(
        self, context: ConversationContext, run: RunTrace | None, error: BaseException | None
    ) -> None:
        """End a run over ``context``: keep its transcript and usage, end its trace, leave it."""
        self._transcript = render_transcript(context.messages)
        self.last_usage = self._usage
        if run is not None:
            run.ended(self._usage, error)
        self._context = None
        ThinkerBase._leave_conversation(self)

    async def think(self, context: ConversationContext) -> OutputT:
        """The loop over ``context``: turns until a final answer."""
        for _ in range(self.max_iterations):
            self.reconcile_tool_registry()
            self.note_palette(context.id)
            await self.compact_if_needed(context)
            result = await self.submit_thinking_call(context)
            context.extend(result.turns)
            if result.final_answer:
                accepted = await self.accept(result, context)
                if accepted is not ANSWER_REFUSED:
                    return accepted  # type: ignore[no-any-return]  # the declared output type
                continue
            execution = self._turn_execution(
                result.tool_calls,
                context,
                approver=ThinkerBase.approver_now(self),
                durable=DurableApprovals(pausable=True) if self._pausable else None,
            )
            ran = paused = False
            try:
                # An MCP server's elicitation nobody answers inline is pending in a durable run.
                with elicitation_scope(ElicitationScope(pausable=True) if self._pausable else None):
                    await execution.run()
                ran = True
            finally:  # a cancelled turn still answers every tool use
                self.note_palette(context.id)  # a tool granted in this turn is seen
                report = execution.report()
                self.record_tool_failures(report.failures)
                # A turn that pauses is answered when it is resumed, in one results message.
                paused = ran and bool(report.pending)
                if not paused:
                    results = report.results_message()
                    # Artifact custody: a large output is kept aside, a preview goes in the turn.
                    context.append(context.artifacts.custody_results(results))
            if paused:
                raise self._pause(context, execution, report)
        raise ThinkerIterationLimit(
            f"{type(self).__name__} reached {self.max_iterations} turns without a final answer"
        )

    def record_tool_failures(self, failures: Iterable[ToolFailure]) -> None:
        """Add failed tool calls to the run in progress (a sub-thinker's run adds its own here).

        They are logged where they happen (the ``nucleo.tools`` logger); the run keeps them in
        `last_tool_failures`.
        """
        self._tool_failures.extend(failures)

    async def accept(self, result: ThinkingResponse[Any], context: ConversationContext) -> Any:
        """Accept a final answer, or return `ANSWER_REFUSED` to take another turn.

        Families override this to validate the candidate answer first (a refusal appends its
        correction to ``context``).
        """
        del context
        return result.answer

    # -- what the model reads -----------------------------------------------------------------

    def render_input(self, input: InputT) -> str:
        """The objective as the first user message's text."""
        if isinstance(input, str):
            return input
        dump = getattr(input, "model_dump_json", None)
        if callable(dump):
            return str(dump())
        if is_dataclass(input) and not isinstance(input, type):
            return json.dumps(asdict(input), default=str)
        return json.dumps(input, default=str)

    # -- after the run ------------------------------------------------------------------------

    def transcript(self) -> str | None:
        """The last run's conversation as text, taken as the run ended; ``None`` before."""
        return self._transcript

    def delegation_threshold(self) -> Depth:
        """The shallowest depth at which the palette holds ``sub_thinker``: `Depth.STANDARD`."""
        return Depth.STANDARD

    @property
    def conversation(self) -> ConversationContext | None:
        """The conversation of the run in progress, if any."""
        return self._context

    # -- tool state ---------------------------------------------------------------------------

    def state_owner(self, provider: ToolProvider) -> Thinker[Any, Any]:
        """The thinker whose conversation keeps ``provider``'s state for this thinker's calls.

        This thinker; a `SubThinker` answers its parent's for a tool it inherited from it (see
        `nucleo_core.tools.state`).
        """
        del provider
        return self
