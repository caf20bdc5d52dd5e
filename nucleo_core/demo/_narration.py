"""How the demo tells its story: a model client that narrates every exchange as it happens.

`NarratingClient` sits between a thinker and its model (the script or a real one). Before it
passes a request on, it tells what the last turn's tool calls came back with; after, what the
model asked for. It reads only what goes over the wire, plus the hub's admission record for
the name of the rule that refused, so it tells the same story whatever model answers.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeAlias, final

from nucleo_core.errors import ReadOnlyViolation
from nucleo_core.hub import REQUEST_SKILL, REQUEST_TOOLS
from nucleo_core.models import (
    Message,
    ModelClient,
    ModelRequest,
    ModelResponse,
    ResponseComplete,
    StreamEvent,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
)

if TYPE_CHECKING:
    from nucleo_core.hub import ToolHub
    from nucleo_core.thinking.thinker import Thinker

__all__ = ["STEPS", "TRANSCRIPT_STEP", "DemoEvent", "EventKind", "NarratingClient", "Narrator"]

#: The things the demo sets out to show, by number.
STEPS: Mapping[int, str] = {
    1: "a tool requested and admitted",
    2: "a tool refused by an admission rule",
    3: "a skill pulled in",
    4: "two tool calls in one turn, run in parallel",
    5: "a read-only refusal at the call",
    6: "a confirm-level call approved by a scripted approver",
    7: "a confirm-level call left pending: the run pauses",
    8: "the transcript",
}
#: The last step, told at the end: each thinker's transcript.
TRANSCRIPT_STEP = max(STEPS)

#: What a line of the story is about.
EventKind: TypeAlias = Literal[
    "thinker",
    "objective",
    "turn",
    "host",
    "says",
    "call",
    "result",
    "step",
    "answer",
    "correction",
    "stopped",
    "approval",
    "pending",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class DemoEvent:
    """One line of the story.

    Attributes:
        thinker: The thinker it is about (its class name), or ``""`` for the whole run.
        kind: What it is about.
        text: What happened, in a sentence.
        step: Which of the `STEPS` it shows, if any.
    """

    thinker: str
    kind: EventKind
    text: str
    step: int | None = None

    def as_json(self) -> dict[str, Any]:
        """The event as a JSON object: its fields, and the step's title."""
        return {
            "thinker": self.thinker,
            "kind": self.kind,
            "step": self.step,
            "title": STEPS.get(self.step) if self.step is not None else None,
            "text": self.text,
        }


@final
class Narrator:
    """Keeps the story, and hands each event to ``on_event`` as it is told.

    Args:
        on_event: Called with every event as it happens (to print it live).
    """

    def __init__(self, on_event: Callable[[DemoEvent], None] | None = None) -> None:
        self.events: list[DemoEvent] = []
        self._on_event = on_event

    def say(self, thinker: str, kind: EventKind, text: str, *, step: int | None = None) -> None:
        """Tell one event."""
        event = DemoEvent(thinker=thinker, kind=kind, text=text, step=step)
        self.events.append(event)
        if self._on_event is not None:
            self._on_event(event)

    @property
    def steps(self) -> list[int]:
        """The steps shown so far, in order, each once."""
        return sorted({event.step for event in self.events if event.step is not None})


@final
class NarratingClient:
    """A `ModelClient` around another: passes every request on, and narrates the exchange.

    Args:
        inner: The client that answers: the script, or a real model's adapter.
        narrator: Where the story is told.
        hub: The hub whose admission record names the rules that refused.
        activity: Where the look-up tools record when they start and finish.

    Attributes:
        thinker: The thinker whose exchanges these are; set once it is built.
        while_thinking: What the host does while the model thinks, each run once, after the
            next request was made (the palette it shows is already fixed) and before it is
            answered.
    """

    def __init__(
        self,
        inner: ModelClient,
        narrator: Narrator,
        *,
        hub: ToolHub,
        activity: list[tuple[str, str]],
    ) -> None:
        self.inner = inner
        self.thinker: Thinker[Any, Any] | None = None
        self.while_thinking: list[Callable[[], None]] = []
        self._narrator = narrator
        self._hub = hub
        self._activity = activity
        self._activity_seen = 0
        self._seen = 0
        self._turns = 0
        self._uses: dict[str, ToolUseBlock] = {}

    @property
    def _name(self) -> str:
        return type(self.thinker).__name__ if self.thinker is not None else ""

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """Tell what came back since the last turn, pass the request on, tell the answer."""
        self._before(request)
        response = await self.inner.complete(request)
        self._after(request, response)
        return response

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        """As `complete`, streaming the inner client's events through."""
        self._before(request)
        async for event in self.inner.stream(request):
            if isinstance(event, ResponseComplete):
                self._after(request, event.response)
            yield event

    async def aclose(self) -> None:
        """Close the inner client."""
        await self.inner.aclose()

    # -- before the model answers -------------------------------------------------------------

    def _before(self, request: ModelRequest) -> None:
        if self._turns == 0:
            self._seen = 1  # the objective, told when the thinker was introduced
        for message in request.messages[self._seen :]:
            self._narrate_message(message)
        self._seen = len(request.messages)
        self._turns += 1
        offered = [spec.name for spec in request.tools]
        if not offered and self.thinker is not None:  # tools described in the system text
            offered = self.thinker.registry.available_names()
        self._say("turn", f"turn {self._turns}: the model is offered {_listed(offered)}")
        actions, self.while_thinking = self.while_thinking, []
        for action in actions:
            action()

    def _narrate_message(self, message: Message) -> None:
        for block in message.content:
            if isinstance(block, ToolUseBlock):
                self._uses.setdefault(block.id, block)
        results = [block for block in message.content if isinstance(block, ToolResultBlock)]
        if results:
            self._narrate_results(results)
        elif message.role == "user" and message.text:
            self._say("correction", f"the model is told: {message.text}")

    def _narrate_results(self, results: Sequence[ToolResultBlock]) -> None:
        ran: list[str] = []
        for block in results:
            use = self._uses.get(block.tool_use_id)
            name = use.name if use is not None else "(unknown call)"
            if name == REQUEST_TOOLS and not block.is_error:
                self._narrate_request_tools(block.content)
            elif name == REQUEST_SKILL and not block.is_error:
                self._narrate_request_skill(block.content)
            elif block.is_error and block.content == str(ReadOnlyViolation(name)):
                self._say("step", f"{name} is refused at the call: {block.content}", step=5)
            elif block.is_error:
                self._say("result", f"{name} failed: {block.content}")
            else:
                self._say("result", f"{name} returns: {block.content}")
                ran.append(name)
        overlapped = self._overlapped()
        if len(ran) >= 2 and overlapped:
            self._say(
                "step",
                f"{' and '.join(ran)} were called in one turn and ran side by side: each "
                "started before any finished",
                step=4,
            )

    def _narrate_request_tools(self, content: str) -> None:
        result = _decoded(content)
        granted = [str(name) for name in result.get("granted", [])]
        if granted:
            self._say(
                "step",
                f"request_tools admits {_listed(granted)}; the model may call them from its "
                "next turn",
                step=1,
            )
        for refusal in result.get("refused", []):
            name, reason = str(refusal.get("name", "")), str(refusal.get("reason", ""))
            rules = self._refusing_rules(name)
            if rules:
                self._say(
                    "step",
                    f"request_tools refuses {name}: the rule '{rules}' says: {reason}",
                    step=2,
                )
            else:
                self._say("result", f"request_tools refuses {name}: {reason}")

    def _narrate_request_skill(self, content: str) -> None:
        result = _decoded(content)
        name = str(result.get("skill", ""))
        if not result.get("granted"):
            self._say("result", f"request_skill refuses {name}: {result.get('reason', '')}")
            return
        skill = self._hub.skills.get(name)
        narrowed = ""
        if skill is not None and skill.allowed_tools is not None:
            narrowed = (
                f", and its allowed-tools narrow the palette to {_listed(skill.allowed_tools)}"
            )
        self._say(
            "step",
            f"request_skill attaches {name}: its instructions join the system text from the "
            f"next turn{narrowed}",
            step=3,
        )

    def _refusing_rules(self, name: str) -> str:
        """The guardrails that refused the last request for ``name``, from the hub's record."""
        for event in reversed(self._hub.admission_record):
            if event.kind == "tool" and event.name == name and not event.granted:
                return ", ".join(o.guardrail for o in event.outcomes if o.refuses)
        return ""

    def _overlapped(self) -> bool:
        """Whether the look-ups recorded since the last turn all started before any finished."""
        recent = self._activity[self._activity_seen :]
        self._activity_seen = len(self._activity)
        kinds = [kind for kind, _ in recent]
        return kinds.count("started") >= 2 and "finished" not in kinds[: kinds.count("started")]

    # -- after the model answers --------------------------------------------------------------

    def _after(self, request: ModelRequest, response: ModelResponse) -> None:
        self._seen = len(request.messages) + 1  # the answer is appended as the next turn
        uses = [block for block in response.content if isinstance(block, ToolUseBlock)]
        text = "".join(b.text for b in response.content if isinstance(b, TextBlock)).strip()
        if not uses:
            self._say("answer", f"the model answers: {text or '(nothing)'}")
            return
        if text:
            self._say("says", f"the model says: {text}")
        for block in uses:
            self._uses.setdefault(block.id, block)
            self._say("call", f"the model calls {block.name}({_arguments(block.input)})")

    def _say(self, kind: EventKind, text: str, *, step: int | None = None) -> None:
        self._narrator.say(self._name, kind, text, step=step)


def _decoded(content: str) -> dict[str, Any]:
    try:
        found = json.loads(content)
    except ValueError:
        return {}
    return found if isinstance(found, dict) else {}


def _arguments(arguments: Mapping[str, Any] | str) -> str:
    if isinstance(arguments, str):
        return arguments
    return ", ".join(
        f"{key}={json.dumps(value, ensure_ascii=False)}" for key, value in arguments.items()
    )


def _listed(names: Sequence[str]) -> str:
    return ", ".join(names) if names else "no tools"
