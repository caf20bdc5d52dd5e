"""`run_demo`: the planner, the read-only reviewer, then the host, told as they run."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib.resources import files
from typing import TYPE_CHECKING, Any, TypeVar

from nucleo_core.conversations import ConversationService
from nucleo_core.demo._narration import TRANSCRIPT_STEP, DemoEvent, NarratingClient, Narrator
from nucleo_core.demo._script import (
    DEMO_OBJECTIVE,
    MODEL_NAME,
    invitation_objective,
    play_the_model,
    review_objective,
)
from nucleo_core.demo.approver import scripted_approver
from nucleo_core.demo.guardrail import register_guardrail
from nucleo_core.demo.thinkers import (
    HOST_SYSTEM,
    PLANNER_SYSTEM,
    REVIEWER_SYSTEM,
    SKILL_BUNDLE,
    PicnicHost,
    PicnicPlanner,
    PlanReviewer,
)
from nucleo_core.demo.tools import ACTIVITY, send_invitations
from nucleo_core.errors import (
    MisuseError,
    ModelConnectionError,
    ResponseError,
    RunPaused,
    ThinkerIterationLimit,
)
from nucleo_core.guard.approval_store import MemoryApprovalStore
from nucleo_core.hub import ToolHub
from nucleo_core.models import ModelCatalog, ModelEntry
from nucleo_core.models._timeouts import timed_out
from nucleo_core.skills import skills_in
from nucleo_core.testing import ScriptedModel
from nucleo_core.thinking.depth import Depth

if TYPE_CHECKING:
    from nucleo_core.models import ModelClient
    from nucleo_core.thinking.thinker import Thinker

__all__ = ["DemoRun", "demo_hub", "run_demo", "scripted_catalog"]

#: How deep the demo's thinkers work: quick, so that no ``sub_thinker`` joins their palettes;
#: the story is about asking, admission and the read-only binding, not delegation.
DEPTH = Depth.QUICK

#: The host's conversation: durable, so that a call nobody approves can wait (kept in memory).
HOST_CONVERSATION = "picnic-invitations"

#: The entry the scripted model is seated on: no provider is asked, no key is read.
SCRIPTED_ENTRY = ModelEntry(id="scripted", provider="scripted", model=MODEL_NAME)

#: The thinkers of the story.
_Demo = TypeVar("_Demo", PicnicPlanner, PlanReviewer, PicnicHost)


@dataclass(frozen=True, slots=True, kw_only=True)
class DemoRun:
    """What a demo run did.

    Attributes:
        model: The entry id the thinkers were seated on (``scripted`` for the script).
        events: The story, in the order it was told.
        answers: Each thinker's final answer, by class name (a paused run has none).
        transcripts: Each thinker's transcript, by class name.
        steps: Which of the steps were shown.
        stopped: Each thinker that ended without an answer (its turn limit, or answers that
            stayed unusable), by class name: why, in a sentence.
    """

    model: str
    events: tuple[DemoEvent, ...]
    answers: dict[str, str] = field(default_factory=dict)
    transcripts: dict[str, str] = field(default_factory=dict)
    steps: tuple[int, ...] = ()
    stopped: dict[str, str] = field(default_factory=dict)


def scripted_catalog() -> ModelCatalog:
    """A catalog seating every grade the demo uses on the scripted entry."""
    catalog = ModelCatalog([SCRIPTED_ENTRY])
    catalog.assign(str(PicnicPlanner.declaration.grade), SCRIPTED_ENTRY.id)
    return catalog


def demo_hub() -> ToolHub:
    """A hub of the demo's own: its skills and its admission rule, and no installed plugin.

    Nothing installed in the environment joins the demo's palettes or decides its admissions,
    so every machine tells the same story.
    """
    hub = ToolHub()
    scan = skills_in(files("nucleo_core.demo").joinpath("skills"), bundle=SKILL_BUNDLE)
    if scan.problems or not scan.skills:  # the package data is missing or broken: a nucleo bug
        problems = "; ".join(map(str, scan.problems)) or "no skill folder found"
        raise MisuseError(f"the demo's skills could not be read: {problems}")
    hub.skills.register_all(scan.skills)
    register_guardrail(hub)
    return hub


async def run_demo(
    *,
    catalog: ModelCatalog | None = None,
    pin: str | None = None,
    on_event: Callable[[DemoEvent], None] | None = None,
    max_turns: int | None = None,
) -> DemoRun:
    """Run the planner, then the reviewer on its plan, telling each step as it happens.

    Args:
        catalog: Where the thinkers are seated; ``None`` plays the model with the script.
        pin: An entry id that beats the grade (a real model, with ``catalog``).
        on_event: Called with each event of the story as it is told.
        max_turns: Each thinker's turn limit instead of its class's ``max_iterations`` (a small
            model on a slow machine: fewer turns, the rest told as not shown).

    Raises:
        ModelNotConfigured: The seat cannot be resolved, or its SDK or key is missing.
        ModelError: The model provider failed.

    A thinker that reaches its turn limit, whose answers stay unusable, or whose model does
    not answer within the entry's deadline (or timeout), does not end the demo: it is told as
    stopped (`DemoRun.stopped`), the reviewer reviews what there is, and the transcripts and
    the steps not shown are told as on any other run. A server that cannot be reached ends it.
    """
    scripted = catalog is None
    seats = scripted_catalog() if catalog is None else catalog
    entry = seats.resolve(PicnicPlanner.declaration, pin)
    inner: ModelClient = ScriptedModel(play_the_model) if scripted else seats.client_for(entry)
    narrator = Narrator(on_event)
    hub = demo_hub()
    activity: list[tuple[str, str]] = []
    token = ACTIVITY.set(activity)
    try:

        def narrated(
            thinker_class: type[_Demo],
            system: str,
            *,
            while_thinking: Callable[[_Demo], None] | None = None,
            **arguments: Any,
        ) -> _Demo:
            """A thinker of the story, on the demo's hub and seats, its exchanges told.

            ``while_thinking`` is done once, while its model thinks its next answer
            (`NarratingClient.while_thinking`).
            """
            client = NarratingClient(inner, narrator, hub=hub, activity=activity)
            thinker = thinker_class(
                thinker_class.declaration,
                hub=hub,
                catalog=seats,
                pin=pin,
                depth=DEPTH,
                system=system,
                client=client,
                **arguments,
            )
            client.thinker = thinker
            if while_thinking is not None:
                client.while_thinking.append(lambda: while_thinking(thinker))
            _limit_turns(thinker, max_turns)
            return thinker

        planner = narrated(PicnicPlanner, PLANNER_SYSTEM)
        _introduce(narrator, planner, DEMO_OBJECTIVE)
        stopped: dict[str, str] = {}
        plan = await _answer_of(planner, DEMO_OBJECTIVE, narrator, stopped)

        reviewer = narrated(
            PlanReviewer,
            REVIEWER_SYSTEM,
            read_only=True,
            while_thinking=lambda thinker: _widen(narrator, thinker),
        )
        objective = review_objective(plan or _NO_PLAN)
        _introduce(narrator, reviewer, objective)
        review = await _answer_of(reviewer, objective, narrator, stopped)

        host = narrated(
            PicnicHost,
            HOST_SYSTEM,
            conversations=ConversationService(":memory:"),  # durable, and nothing on disk
        )
        host.approver = scripted_approver(narrator, type(host).__name__)
        host.approvals = MemoryApprovalStore()
        objective = invitation_objective(plan or _NO_PLAN)
        _introduce(narrator, host, objective)
        invited = await _host_answer(host, objective, narrator, stopped)
    finally:
        ACTIVITY.reset(token)
        await inner.aclose()
    transcripts = {
        type(thinker).__name__: thinker.transcript() or "" for thinker in (planner, reviewer, host)
    }
    host.conversations.shutdown()
    narrator.say("", "step", "each thinker's conversation, as its transcript", step=TRANSCRIPT_STEP)
    answers = {type(planner).__name__: plan, type(reviewer).__name__: review}
    if invited is not None:
        answers[type(host).__name__] = invited
    return DemoRun(
        model=entry.id,
        events=tuple(narrator.events),
        answers=answers,
        transcripts=transcripts,
        steps=tuple(narrator.steps),
        stopped=stopped,
    )


#: What the reviewer is given when the planner stopped without a plan.
_NO_PLAN = "(no plan: the planner stopped before it answered)"


async def _answer_of(
    thinker: Thinker[str, str],
    objective: str,
    narrator: Narrator,
    stopped: dict[str, str],
    *,
    conversation_id: str | None = None,
) -> str:
    """The thinker's answer; ``""`` when what its model did ended the run without one.

    A real model may call tools turn after turn, or keep answering what cannot be read: that
    is the model's way, told as such, and the demo goes on to the next thinker. Given a
    ``conversation_id``, the run is durable, and may pause (`RunPaused` is raised).
    """
    name = type(thinker).__name__
    try:
        return await thinker.run(
            objective, conversation_id=conversation_id, durable=conversation_id is not None
        )
    except (ThinkerIterationLimit, ResponseError, ModelConnectionError) as exc:
        if isinstance(exc, ModelConnectionError) and not timed_out(exc):
            raise  # the server cannot be reached: the demo ends with its one Error line
        why = f"{exc}; its transcript shows every turn it took"
        stopped[name] = why
        narrator.say(name, "stopped", f"stopped without an answer: {why}")
        return ""


def _limit_turns(thinker: Thinker[Any, Any], turns: int | None) -> None:
    """Give ``thinker`` a turn limit of its own (``None``: its class's)."""
    if turns is not None:
        # max_iterations is a class setting; an instance's own value shadows it for this run.
        setattr(thinker, "max_iterations", turns)  # noqa: B010


async def _host_answer(
    host: PicnicHost, objective: str, narrator: Narrator, stopped: dict[str, str]
) -> str | None:
    """The host's answer; ``None`` when its run paused (told, with what waits and how to decide)."""
    try:
        return await _answer_of(
            host, objective, narrator, stopped, conversation_id=HOST_CONVERSATION
        )
    except RunPaused as paused:
        _tell_pause(narrator, host, paused)
        return None


def _tell_pause(narrator: Narrator, host: PicnicHost, paused: RunPaused) -> None:
    """Step 7: what ran before the pause, then each approval the run waits for."""
    from nucleo_core.thinking._execution_pause import load_paused

    name = type(host).__name__
    context = host.conversations.open(paused.conversation_id, durable=True)
    try:
        kept = load_paused(context)
    finally:
        host.conversations.close(context)
    if kept is not None:
        calls = {call.id: call.name for call in kept.calls}
        for result in kept.answered.values():
            said = "failed" if result.is_error else "returns"
            tool = calls.get(result.tool_use_id)
            narrator.say(name, "result", f"{tool} {said}: {result.content}")
    count = len(paused.approvals)
    narrator.say(
        name,
        "step",
        f"the run pauses: {count} call(s) wait for an approval nobody gave here; the durable "
        f"conversation {paused.conversation_id} keeps the paused turn (the tool uses, and the "
        "result of the call that ran), and the run raises RunPaused with the pending approvals",
        step=7,
    )
    for approval in paused.approvals:
        risk = approval.risk if approval.risk_declared else f"{approval.risk} (undeclared)"
        arguments = json.dumps(dict(approval.arguments), ensure_ascii=False, sort_keys=True)
        narrator.say(
            name,
            "pending",
            f"approval {approval.id}: {approval.tool} ({approval.source}), risk {risk}, "
            f"arguments {arguments}",
        )
    narrator.say(
        name,
        "pending",
        "where conversations are kept on disk, any process decides it: `nucleo approvals` "
        "lists it, `nucleo approvals approve ID` (or `reject ID --reason TEXT`) decides it, "
        f"and `nucleo resume {paused.conversation_id}` continues the run. The demo keeps its "
        "conversations in memory, so this one is left pending.",
    )


def _introduce(narrator: Narrator, thinker: Thinker[Any, Any], objective: str) -> None:
    name = type(thinker).__name__
    family = type(thinker).__mro__[1].__name__
    own = [provider.name for provider in thinker.hub.default_tools(type(thinker))]
    about = [f"its own tools: {', '.join(own)}" if own else "it starts with no tools"]
    if thinker.read_only:
        about.append("its palette is bound read-only")
    if thinker.approver is not None:
        about.append("a scripted approver decides its confirm-level calls")
    catalog = [provider.name for provider in thinker.tool_catalog()]
    if catalog:
        about.append(f"it may ask for {', '.join(catalog)}")
    skills = [skill.name for skill in thinker.skill_catalog()]
    if skills:
        about.append(f"it may pull in the skill {', '.join(skills)}")
    narrator.say(name, "thinker", f"{name}, a {family}: {'; '.join(about)}")
    narrator.say(name, "objective", f"objective: {objective}")


def _widen(narrator: Narrator, reviewer: PlanReviewer) -> None:
    """What the host does while the reviewer's model thinks: give it a mutating tool."""
    reviewer.add_tool(send_invitations)
    narrator.say(
        type(reviewer).__name__,
        "host",
        "while the model thinks, the host adds send_invitations with add_tool; the palette "
        "the model was shown did not have it, and the call will be checked again",
    )
