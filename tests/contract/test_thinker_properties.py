"""Properties of the thinker loop under any mix of tool behaviours (the acceptance property).

Hypothesis drives a thinker - read-only or not - through scripted turns whose calls succeed,
raise, time out, cancel themselves, name tools that are not available, widen the palette mid-run
(``add_tool``, system-wide registration, ``request_tools``), narrow it (``request_skill`` with
``allowed-tools``), delegate to sub-thinkers, or cancel the whole run. Whatever happens:

- every tool use is paired: answered by exactly one result in the next message, in every
  conversation of the run (the sub-thinkers' included), and the transcript shows them all;
- no mutating tool ever runs under a read-only binding;
- no tool runs outside the available surface of the thinker running it.

The tools record their own runs (see ``_loop_kit``), so the checks do not trust the loop.
"""

import asyncio
from typing import Any, ClassVar

from _hub_kit import make_skill
from _loop_kit import (
    Archive,
    Clock,
    Define,
    KeyInput,
    Ledger,
    Lookup,
    Shred,
    WriteRecord,
    answer,
    assert_paired,
    call,
    calls,
    is_sub_thinker_request,
    make,
    record,
)
from hypothesis import given
from hypothesis import strategies as st

from nucleo_core import SkillRegistry, SkillSelector, Tool, ToolHub, ToolSelector, tool
from nucleo_core.hub import REQUEST_SKILL, REQUEST_TOOLS
from nucleo_core.models import ModelRequest, ModelResponse, ToolUseBlock
from nucleo_core.testing import ScriptedModel
from nucleo_core.thinking.execution import ExecutionPolicy
from nucleo_core.thinking.single_objective import SingleObjectiveThinker
from nucleo_core.thinking.sub_thinker import SUB_THINKER
from nucleo_core.thinking.transcript import render_transcript


@tool(name="boom", read_only=True, risk="low")
class Boom(Tool[KeyInput, str]):
    """Fail with an internal error."""

    async def run(self, input: KeyInput) -> str:
        record(self, "boom", True)
        raise RuntimeError("secret detail")


@tool(name="slow", read_only=True, risk="low")
class Slow(Tool[KeyInput, str]):
    """Wait for an event that never comes (past its tiny timeout)."""

    async def run(self, input: KeyInput) -> str:
        record(self, "slow", True)
        await asyncio.Event().wait()
        return "never"


@tool(name="self_cancel", read_only=True, risk="low")
class SelfCancel(Tool[KeyInput, str]):
    """Get cancelled from inside."""

    async def run(self, input: KeyInput) -> str:
        record(self, "self_cancel", True)
        raise asyncio.CancelledError


@tool(name="widen", read_only=True, risk="low")
class Widen(Tool[KeyInput, str]):
    """Widen the running thinker's palette: add a tool, or register one system-wide."""

    async def run(self, input: KeyInput) -> str:
        record(self, "widen", True)
        thinker: Any = self.parent
        how, _, which = input.key.partition(":")
        added = {"clock": Clock, "shred": Shred}[which]
        if how == "add":
            thinker.add_tool(added)
        else:
            thinker.hub.register_system_wide_tool(added)
        return "widened"


@tool(name="halt", read_only=True, risk="low")
class Halt(Tool[KeyInput, str]):
    """Cancel the whole run from inside one of its calls."""

    run_task: ClassVar[asyncio.Task[Any] | None] = None

    async def run(self, input: KeyInput) -> str:
        record(self, "halt", True)
        assert Halt.run_task is not None
        Halt.run_task.cancel()
        return "halting"


class Worker(SingleObjectiveThinker[str, str]):
    """Every behaviour as a default tool; a read-only and a mutating catalog tool; one skill."""

    @classmethod
    def declare_default_tools(cls) -> list[Any]:
        return [Lookup, WriteRecord, Boom, Slow, SelfCancel, Widen, Halt]

    @classmethod
    def declare_compatible_tools(cls) -> ToolSelector:
        return ToolSelector.of([Define, Archive])

    @classmethod
    def declare_compatible_skills(cls) -> SkillSelector:
        return SkillSelector().add_all()


#: Each step of a scripted turn: one call the model makes (or, for ``add_now``, a palette
#: widening made while the model answers, then a call to what was added).
STEPS: dict[str, tuple[str, dict[str, Any]]] = {
    "read": ("lookup", {"key": "k"}),
    "write": ("write_record", {"key": "k"}),
    "raise": ("boom", {"key": "k"}),
    "timeout": ("slow", {"key": "k"}),
    "cancelled": ("self_cancel", {"key": "k"}),
    "unknown": ("no_such_tool", {"key": "k"}),
    "invalid": ("lookup", {"wrong": 1}),
    "catalog_read": ("define", {"key": "k"}),
    "catalog_write": ("archive", {"key": "k"}),
    "grant_read": (REQUEST_TOOLS, {"tools": ["define"]}),
    "grant_write": (REQUEST_TOOLS, {"tools": ["archive"]}),
    "narrow": (REQUEST_SKILL, {"skill": "glossary"}),
    "add_read": ("widen", {"key": "add:clock"}),
    "add_write": ("widen", {"key": "add:shred"}),
    "system_read": ("widen", {"key": "system:clock"}),
    "system_write": ("widen", {"key": "system:shred"}),
    "added_read": ("clock", {"key": "k"}),
    "added_write": ("shred", {"key": "k"}),
    "add_now": ("shred", {"key": "k"}),
    "delegate": (SUB_THINKER, {"objective": "Part of it."}),
    "halt": ("halt", {"key": "k"}),
}
SUB_STEPS = sorted(set(STEPS) - {"delegate", "halt"})

TURN = st.lists(st.sampled_from(sorted(STEPS)), min_size=1, max_size=3)
SUB_TURN = st.lists(st.sampled_from(SUB_STEPS), min_size=1, max_size=3)


def respond(steps: list[str], thinker: Any) -> ModelResponse:
    uses: list[ToolUseBlock] = []
    for step in steps:
        if step == "add_now":  # after this turn's reconciliation and sweep: live at once
            thinker.add_tool(Shred)
        name, arguments = STEPS[step]
        uses.append(call(name, arguments))
    return calls(*uses)


@given(read_only=st.booleans(), turns=st.lists(TURN, max_size=5), sub_turn=SUB_TURN)
def test_every_use_pairs_and_nothing_runs_off_the_surface_or_against_the_binding(
    read_only: bool, turns: list[list[str]], sub_turn: list[str]
) -> None:
    """Any mix of outcomes and widenings keeps pairing, the read-only binding and the surface."""
    hub = ToolHub(skills=SkillRegistry([make_skill("glossary", allowed_tools=("lookup",))]))
    ledger = Ledger()
    contexts: list[Any] = []

    def script(request: ModelRequest) -> ModelResponse:
        if is_sub_thinker_request(request):
            if len(request.messages) == 1:
                return respond(sub_turn, thinker)
            return answer({"answer": "part done"})
        if not contexts:
            contexts.append(thinker.conversation)
        turn = sum(1 for message in request.messages if message.role == "assistant")
        if turn < len(turns):
            return respond(turns[turn], thinker)
        return answer("all done")

    thinker = make(
        Worker,
        ScriptedModel(script),
        hub=hub,
        read_only=read_only,
        execution=ExecutionPolicy(per_tool_timeouts={"slow": 0.005}),
    )
    thinker.ledger = ledger

    async def scenario() -> None:
        task = asyncio.create_task(thinker.run("Work."))
        Halt.run_task = task
        try:
            await task
        except asyncio.CancelledError:
            assert any("halt" in turn for turn in turns)

    asyncio.run(scenario())

    (context,) = contexts
    conversations = {id(context): context}
    conversations.update({id(ran.conversation): ran.conversation for ran in ledger.runs})
    for conversation in conversations.values():
        assert conversation is not None
        assert_paired(conversation.messages)
    transcript = thinker.transcript()
    assert transcript == render_transcript(context.messages)
    assert transcript.count(" tool_use ") == transcript.count(" tool_result ")

    for ran in ledger.runs:
        assert ran.available, f"{ran.name} ran outside the available surface"
        if ran.read_only_binding:
            assert ran.declared_read_only, f"{ran.name} mutated under a read-only binding"
    if read_only:
        assert {ran.name for ran in ledger.runs}.isdisjoint({"write_record", "archive", "shred"})
    assert all(ran.read_only_binding == read_only for ran in ledger.runs)
