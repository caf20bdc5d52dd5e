"""The governance property: nothing runs outside the surface available at its call.

A hypothesis state machine drives random sequences of turns, ``request_tools`` and
``request_skill`` grants and refusals, catalog narrowing and widening, system-wide tools added
and withdrawn between a turn and its calls, phases entered and left, skills with
``allowed-tools``, a read-only thinker, nested delegation to sub-thinkers, and reconcile hooks
and guardrails that crash, hang or answer malformed verdicts. Its model of what should be
available is kept independently of the code under test (only from what the steps did), and
after every call step it checks:

- no tool ran outside what the model says was available at its call (source still offering
  it, the grant still in the catalog, inside the phase, the skill restriction, the read-only
  binding and a delegate's ceiling);
- no mutating tool ran for a read-only thinker;
- every tool use got exactly one result;
- every name that went through admission has its own record, granted exactly when the model
  says it is grantable.

The number of steps is set by ``NUCLEO_GOVERNANCE_STEPS`` (default 10,000, run in CI; the long
profile is ``NUCLEO_GOVERNANCE_STEPS=100000``); the test asserts it ran at least that many.
"""

from __future__ import annotations

import asyncio
import os
import threading
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from _loop_kit import make
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)
from pydantic import BaseModel

from nucleo_core import (
    Phase,
    Skill,
    SkillRegistry,
    SkillSelector,
    Tool,
    ToolHub,
    ToolProvider,
    ToolSelector,
    Verdict,
    hookimpl,
    tool,
)
from nucleo_core.guard.approvals import Approval, ApprovalRequest
from nucleo_core.hub.call_door import call_door
from nucleo_core.testing import ScriptedModel
from nucleo_core.thinking.depth import Depth
from nucleo_core.thinking.execution import ToolExecutor
from nucleo_core.thinking.single_objective import SingleObjectiveThinker
from nucleo_core.thinking.sub_thinker import SubThinker
from nucleo_core.thinking.tool_call import ToolCall
from nucleo_core.tools import provider_for

STEPS = int(os.environ.get("NUCLEO_GOVERNANCE_STEPS", "10000"))
STEPS_PER_RUN = 50

# -- the tools: each run is written down with the thinker that ran it --------------------------

RAN: list[tuple[int, str]] = []


class Key(BaseModel):
    key: str = "x"


def _recording(name: str, read_only: bool) -> type[Tool[Key, str]]:
    class Recording(Tool[Key, str]):
        async def run(self, input: Key) -> str:
            RAN.append((id(self.parent), name))
            return f"{name} ran"

    Recording.__name__ = Recording.__qualname__ = f"Tool_{name}"
    Recording.__doc__ = f"The {name} tool."
    risk = "low" if read_only else "high"
    return tool(name=name, read_only=read_only, risk=risk)(Recording)


READ_ONLY = {"lookup": True, "define": True, "peek": True, "clock": True}
MUTATING = {"archive": False, "purge": False, "shred": False}
TOOLS = {name: _recording(name, ro) for name, ro in {**READ_ONLY, **MUTATING}.items()}
PROVIDERS: dict[str, ToolProvider] = {name: provider_for(cls) for name, cls in TOOLS.items()}

DEFAULTS = {"lookup"}
CATALOG_POOL = ["define", "archive", "peek", "purge"]
SYSTEM_WIDE_POOL = ["clock", "shred"]
CALLABLE = sorted([*DEFAULTS, *CATALOG_POOL, *SYSTEM_WIDE_POOL])
PHASES: list[frozenset[str] | None] = [
    None,
    frozenset({"lookup", "define", "sub_thinker"}),
    frozenset({"lookup", "archive", "clock", "request_tools", "sub_thinker"}),
    frozenset({"shred", "peek", "request_tools", "request_skill"}),
]
SKILLS = {
    "glossary": frozenset({"lookup", "define"}),
    "purging": frozenset({"purge", "shred"}),
    "style": None,
}
MODES = ["grant", "grant", "grant", "refuse", "crash", "malformed", "hang", "predicate"]


class Lead(SingleObjectiveThinker[str, str]):
    """The top-level thinker: a default lookup, a catalog, every skill on offer."""

    @classmethod
    def declare_default_tools(cls) -> list[Any]:
        return [TOOLS["lookup"]]

    @classmethod
    def declare_compatible_tools(cls) -> ToolSelector:
        return ToolSelector.of([TOOLS["define"], TOOLS["archive"], TOOLS["peek"]])

    @classmethod
    def declare_compatible_skills(cls) -> SkillSelector:
        return SkillSelector().add_all()


class Auditor(Lead):
    """The same declarations, run read-only."""


# -- the model of what should be available -----------------------------------------------------


@dataclass
class Modelled:
    """What the machine knows about one thinker, from the steps alone."""

    thinker: Any
    read_only: bool
    top_level: bool
    ceiling: frozenset[str] | None = None
    captured_catalog: frozenset[str] = frozenset()
    granted: set[str] = field(default_factory=set)
    restriction: frozenset[str] | None = None
    depth: int = 0
    parent: Modelled | None = None
    inherited: frozenset[str] = frozenset()


class Governance(RuleBasedStateMachine):
    thinkers = Bundle("thinkers")

    def __init__(self) -> None:
        super().__init__()
        self.release = threading.Event()  # lets every hanging guardrail go at teardown
        self.hub = ToolHub(
            skills=SkillRegistry(
                [
                    Skill(
                        name=name,
                        description=f"The {name} procedure.",
                        instructions=f"Do {name}.",
                        allowed_tools=None if allowed is None else tuple(sorted(allowed)),
                    )
                    for name, allowed in SKILLS.items()
                ]
            ),
            admission_timeout=0.05,
        )
        self.catalog: set[str] = {"define", "archive", "peek"}
        self.system_wide: set[str] = set()
        self.withheld: set[str] = set()
        self.hook_mode = "ok"
        self.phase: frozenset[str] | None = None
        self.mode: dict[str, str] = dict.fromkeys(CATALOG_POOL, "grant")
        # How the approver answers a confirm-level (high-risk) call, and what it was asked.
        self.approval = "approve"
        self.asked: list[str] = []
        self.modelled: dict[int, Modelled] = {}
        self.hub.register_admission(None, self._matches, self._guardrail, name="random rule")
        self.hub.register_plugin(_Reconcile(self), name="random-reconcile")

    def teardown(self) -> None:
        self.release.set()

    # -- the hub's answerers, scripted by the machine ----------------------------------------

    def _matches(self, provider: ToolProvider) -> bool:
        if self.mode.get(provider.name) == "predicate":
            raise RuntimeError("match predicate bug")
        return True

    def _guardrail(self, thinker: object) -> _Guardrail:
        return _Guardrail(self)

    def _approver(self, request: ApprovalRequest) -> object:
        self.asked.append(request.tool)
        if self.approval == "crash":
            raise RuntimeError("approver crashed")
        if self.approval == "garbage":
            return "yes"
        return Approval(self.approval == "approve", "" if self.approval == "approve" else "no")

    # -- the model ----------------------------------------------------------------------------

    def visible_catalog(self, m: Modelled) -> set[str]:
        """The catalog a grant is judged against now (no surface restriction)."""
        if self.hook_mode != "ok":
            return set()
        base = self.catalog if m.top_level else set(m.captured_catalog)
        return base - self.withheld

    def allowed(self, m: Modelled, name: str) -> bool:
        """Whether the model says a call to ``name`` may run for ``m`` right now."""
        if m.read_only and not PROVIDERS[name].read_only:
            return False
        if m.ceiling is not None and name not in m.ceiling:
            return False
        if m.top_level and self.phase is not None and name not in self.phase:
            return False
        if m.restriction is not None and name not in m.restriction:
            return False
        return name in self.system_wide or self.offered_by(m, name)

    def offered_by(self, m: Modelled, name: str) -> bool:
        """Whether ``m``'s own palette offers ``name``, system-wide tools aside."""
        if m.top_level and name in DEFAULTS:
            return True
        if name in m.granted and name in self.visible_catalog(m):
            return True
        return m.parent is not None and name in m.inherited and self.offered_by(m.parent, name)

    def grantable(self, m: Modelled, name: str) -> bool:
        catalog = self.visible_catalog(m)
        if m.restriction is not None:
            catalog &= m.restriction
        return (
            name in catalog
            and (not m.read_only or PROVIDERS[name].read_only)
            and self.mode[name] == "grant"
        )

    # -- rules --------------------------------------------------------------------------------

    @initialize(target=thinkers)
    def start(self) -> Any:
        RAN.clear()
        lead = make(Lead, ScriptedModel(), hub=self.hub)
        self.modelled[id(lead)] = Modelled(lead, read_only=False, top_level=True)
        return lead

    @rule(target=thinkers)
    def start_read_only(self) -> Any:
        auditor = make(Auditor, ScriptedModel(), hub=self.hub, read_only=True)
        self.modelled[id(auditor)] = Modelled(auditor, read_only=True, top_level=True)
        if self.phase is not None:
            auditor.registry.enter_phase(Phase.only("random", self.phase))
        return auditor

    @rule(thinker=thinkers)
    def turn(self, thinker: Any) -> None:
        thinker.reconcile_tool_registry()

    @rule(thinker=thinkers, names=st.lists(st.sampled_from(CATALOG_POOL), min_size=1, max_size=3))
    def request_tools(self, thinker: Any, names: list[str]) -> None:
        m = self.modelled[id(thinker)]
        before = len(self.hub.admission_record)
        result = thinker.request_tools(names)
        events = self.hub.admission_record[before:]
        decided = {event.name: event.granted for event in events if event.kind == "tool"}
        for name in dict.fromkeys(names):
            if name in decided:  # it went through admission: its own record, as the model says
                if m.top_level:
                    assert decided[name] == self.grantable(m, name), (name, self.mode[name])
                else:  # the model over-approximates a delegate's catalog: grants must fit it
                    assert not decided[name] or self.grantable(m, name), name
                assert (name in result.granted) == decided[name]
            else:  # already in the palette: only a tool granted before (or inherited)
                assert name in result.granted
                assert name in m.granted or name in m.inherited
        for refusal in result.refused:
            assert refusal.name in decided
            assert refusal.reason
        m.granted |= {name for name in result.granted if decided.get(name)}

    @rule(thinker=thinkers, name=st.sampled_from(sorted(SKILLS)))
    def request_skill(self, thinker: Any, name: str) -> None:
        m = self.modelled[id(thinker)]
        before = len(self.hub.admission_record)
        result = thinker.request_skill(name)
        events = self.hub.admission_record[before:]
        if events:
            assert [event.name for event in events] == [name]
            assert events[0].granted == result.granted
        if result.granted:
            allowed = SKILLS[name]
            if allowed is not None:
                m.restriction = allowed if m.restriction is None else m.restriction | allowed

    @rule(name=st.sampled_from(CATALOG_POOL))
    def narrow_catalog(self, name: str) -> None:
        self.hub.withdraw_compatible(None, name)
        self.catalog.discard(name)

    @rule(name=st.sampled_from(CATALOG_POOL))
    def widen_catalog(self, name: str) -> None:
        for cls in (Lead, Auditor):
            self.hub.register_compatible(cls, TOOLS[name])
        self.catalog.add(name)

    @rule(name=st.sampled_from(SYSTEM_WIDE_POOL))
    def add_system_wide(self, name: str) -> None:
        self.hub.register_system_wide_tool(TOOLS[name])
        self.system_wide.add(name)

    @rule(name=st.sampled_from(SYSTEM_WIDE_POOL))
    def withdraw_system_wide(self, name: str) -> None:
        self.hub.withdraw_system_wide_tool(name)
        self.system_wide.discard(name)

    @rule(index=st.integers(0, len(PHASES) - 1))
    def enter_phase(self, index: int) -> None:
        tools = PHASES[index]
        self.phase = tools
        for m in self.modelled.values():
            if m.top_level:
                phase = None if tools is None else Phase.only(f"phase {index}", tools)
                m.thinker.registry.enter_phase(phase)

    @rule(names=st.sets(st.sampled_from(CATALOG_POOL), max_size=2))
    def withhold(self, names: set[str]) -> None:
        self.withheld = set(names)

    @rule(mode=st.sampled_from(["ok", "ok", "crash", "malformed"]))
    def reconcile_hook_mode(self, mode: str) -> None:
        self.hook_mode = mode

    @rule(mode=st.sampled_from(["approve", "approve", "reject", "crash", "garbage"]))
    def approval_mode(self, mode: str) -> None:
        self.approval = mode

    @rule(name=st.sampled_from(CATALOG_POOL), mode=st.sampled_from(MODES))
    def guardrail_mode(self, name: str, mode: str) -> None:
        self.mode[name] = mode

    @precondition(lambda self: len(self.modelled) < 12)
    @rule(target=thinkers, parent=thinkers)
    def delegate(self, parent: Any) -> Any:
        pm = self.modelled[id(parent)]
        if pm.depth >= 2:
            return parent
        # The model's own bound of the parent's surface at launch (an over-approximation of
        # what the parent could reach: enough to catch a delegate reaching past it).
        surface = {name for name in CALLABLE if self.allowed(pm, name)}
        catalog = self.visible_catalog(pm)
        if pm.restriction is not None:
            catalog &= pm.restriction
        if pm.top_level and self.phase is not None:
            catalog &= self.phase
        if pm.ceiling is not None:
            catalog &= pm.ceiling
        if pm.read_only:
            catalog = {name for name in catalog if PROVIDERS[name].read_only}
        sub = SubThinker(parent, depth=Depth.THOROUGH)
        self.modelled[id(sub)] = Modelled(
            sub,
            read_only=pm.read_only,
            top_level=False,
            ceiling=frozenset(surface | catalog),
            captured_catalog=frozenset(catalog),
            depth=pm.depth + 1,
            parent=pm,
            inherited=frozenset(surface - set(SYSTEM_WIDE_POOL)),
        )
        return sub

    @rule(thinker=thinkers, shuffle=st.randoms(use_true_random=False))
    def call_what_may_run(self, thinker: Any, shuffle: Any) -> None:
        """The model calls what the machine says may run now, mutating tools first."""
        m = self.modelled[id(thinker)]
        names = [name for name in CALLABLE if self.allowed(m, name)]
        shuffle.shuffle(names)
        names.sort(key=lambda name: PROVIDERS[name].read_only)
        if names:
            self.call(thinker, names[:3], reconcile_first=False)

    @rule(
        thinker=thinkers,
        names=st.lists(st.sampled_from(CALLABLE), min_size=1, max_size=3),
        reconcile_first=st.booleans(),
    )
    def call(self, thinker: Any, names: list[str], reconcile_first: bool) -> None:
        """The model's answer calls ``names``: each runs only if available at its call."""
        if reconcile_first:
            thinker.reconcile_tool_registry()
        m = self.modelled[id(thinker)]
        may_run = {name for name in names if self.allowed(m, name)}
        calls = [
            ToolCall(id=f"toolu_{index}", name=name, raw_input={"key": "x"})
            for index, name in enumerate(names)
        ]
        before = len(RAN)
        self.asked.clear()
        execution = ToolExecutor().prepare(
            calls, check=partial(call_door, thinker), parent=thinker, approver=self._approver
        )
        asyncio.run(execution.run())
        report = execution.report()
        ran = [name for who, name in RAN[before:] if who == id(thinker)]
        assert len(RAN) - before == len(ran)  # nothing ran for another thinker
        assert set(ran) <= may_run, (ran, may_run, m.restriction, self.phase, m.ceiling)
        if m.read_only:
            assert all(PROVIDERS[name].read_only for name in ran)
        # The permission step: a high-risk tool ran only once approved at its call; a low-risk
        # one ran without asking; nobody was asked about a tool that could not run.
        high = [name for name in ran if not PROVIDERS[name].read_only]
        assert all(self.approval == "approve" and name in self.asked for name in high)
        assert all(PROVIDERS[name].read_only is False for name in self.asked)
        assert set(self.asked) <= may_run
        results = report.results_message().content
        assert [block.tool_use_id for block in results] == [c.id for c in calls]


class _Guardrail:
    """Answers as the machine's mode for the tool says: grant, refuse, crash, malformed, hang."""

    def __init__(self, machine: Governance) -> None:
        self.machine = machine

    def check(self, provider: ToolProvider) -> Any:
        mode = self.machine.mode.get(provider.name, "grant")
        if mode == "refuse":
            return Verdict.refuse("not now")
        if mode == "crash":
            raise RuntimeError("guardrail crashed")
        if mode == "malformed":
            forged = object.__new__(Verdict)
            object.__setattr__(forged, "granted", "false")
            object.__setattr__(forged, "reason", "")
            return forged
        if mode == "hang":
            self.machine.release.wait()
            return Verdict.grant("too late")
        return Verdict.grant()


class _Reconcile:
    """A reconcile hook withholding what the machine says, or failing as it says."""

    def __init__(self, machine: Governance) -> None:
        self.machine = machine

    @hookimpl
    def nucleo_reconcile_catalog(self, thinker: Any, catalog: Any) -> Any:
        mode = self.machine.hook_mode
        if mode == "crash":
            raise RuntimeError("reconcile hook crashed")
        if mode == "malformed":
            return 42
        return sorted(self.machine.withheld)


def test_governance_holds_over_random_sequences() -> None:
    """At least NUCLEO_GOVERNANCE_STEPS random steps, with no violation of any invariant."""
    counted = {"steps": 0}

    class Counted(Governance):
        @invariant()
        def count(self) -> None:  # hypothesis checks invariants after every step
            counted["steps"] += 1

    rounds = 0
    while counted["steps"] < STEPS:  # a run may end before its last step: run until counted
        rounds += 1
        missing = STEPS - counted["steps"]
        run_state_machine_as_test(
            Counted,
            settings=settings(
                max_examples=max(1, -(-missing // STEPS_PER_RUN)),
                stateful_step_count=STEPS_PER_RUN,
                deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
                database=None,
            ),
        )
    print(f"governance state machine: {counted['steps']} steps in {rounds} round(s), 0 violations")
    assert counted["steps"] >= STEPS
