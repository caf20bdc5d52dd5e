"""ThinkerPaletteContractTest, the thinker half (seed 002: "The palette is per-turn state").

``reconcile_tool_registry()`` runs before every turn's definitions are built and is idempotent;
the read-only sweep runs after it; the per-call check runs at each call's submission, against
the palette as the calls before it in the turn left it. What is added mid-run - by ``add_tool``,
``request_tools`` or a system-wide registration - is offered from the next request on, appended,
so the definitions already shown keep their bytes. ``sub_thinker`` is offered from
`Depth.STANDARD` on, and a sub-thinker's palette and catalogs are its parent's, taken at launch.
"""

import asyncio
from collections.abc import Callable
from typing import Any, ClassVar

import pytest
from _hub_kit import Rule, make_skill
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
    call,
    calls,
    make,
    names_of,
    tool_names,
)

from nucleo_core import (
    SkillRegistry,
    SkillSelector,
    Tool,
    ToolHub,
    ToolProvider,
    ToolSelector,
    tool,
)
from nucleo_core.hub import REQUEST_SKILL, REQUEST_TOOLS, RequestSkillProvider, RequestToolsProvider
from nucleo_core.models import ModelRequest, ModelResponse, ToolResultBlock
from nucleo_core.testing import ScriptedModel
from nucleo_core.thinking.depth import Depth
from nucleo_core.thinking.single_objective import SingleObjectiveThinker
from nucleo_core.thinking.sub_thinker import SUB_THINKER, SubThinker

ARTIFACT_TOOLS = ["get_artifact_field", "search_artifact_content"]
GLOSSARY = make_skill("glossary", allowed_tools=("lookup",))
STYLE = make_skill("style")


@tool(name="act", read_only=True, risk="low")
class Act(Tool[KeyInput, str]):
    """Run the test's hook named by the key on the thinker running the call."""

    hooks: ClassVar[dict[str, Callable[[Any], object]]] = {}

    async def run(self, input: KeyInput) -> str:
        Act.hooks[input.key](self.parent)
        return "done"


class Assistant(SingleObjectiveThinker[str, str]):
    """Two default tools and the test hook; a two-tool catalog; every skill on offer."""

    @classmethod
    def declare_default_tools(cls) -> list[Any]:
        return [Lookup, WriteRecord, Act]

    @classmethod
    def declare_compatible_tools(cls) -> ToolSelector:
        return ToolSelector.of([Define, Archive])

    @classmethod
    def declare_compatible_skills(cls) -> SkillSelector:
        return SkillSelector().add_all()


@pytest.fixture
def hub() -> ToolHub:
    """A fresh hub holding the glossary and style skills."""
    return ToolHub(skills=SkillRegistry([GLOSSARY, STYLE]))


def act(key: str) -> ModelResponse:
    """A turn calling the test hook ``key``."""
    return calls(call("act", {"key": key}))


def run(thinker: Assistant, *hooks: tuple[str, Callable[[Any], object]]) -> None:
    Act.hooks = dict(hooks)
    asyncio.run(thinker.run("Help."))


def results_of(model: ScriptedModel, index: int) -> list[ToolResultBlock]:
    """The tool results request ``index`` carried last."""
    return [b for b in model.requests[index].messages[-1].content if isinstance(b, ToolResultBlock)]


BASE = [
    "lookup",
    "write_record",
    "act",
    SUB_THINKER,
    REQUEST_TOOLS,
    REQUEST_SKILL,
]


# -- reconciled before every turn ----------------------------------------------------------------


def test_the_first_request_carries_the_palette_in_its_documented_order(hub: ToolHub) -> None:
    """Defaults, the artifact tools and sub_thinker, then the meta-tools, before any call."""
    model = ScriptedModel([answer("hi")])
    run(make(Assistant, model, hub=hub))

    assert tool_names(model.requests[0]) == BASE


def test_a_tool_added_by_a_call_is_offered_from_the_next_request_appended(hub: ToolHub) -> None:
    """add_tool during a turn's calls: the next request lists it last, the rest unchanged."""
    model = ScriptedModel([act("add"), answer("ok")])
    run(make(Assistant, model, hub=hub), ("add", lambda thinker: thinker.add_tool(Define)))

    first, second = model.requests
    assert tool_names(second) == [*BASE, "define"]
    assert second.tools[: len(first.tools)] == first.tools


def test_a_tool_added_during_the_exchange_is_callable_in_that_very_answer(hub: ToolHub) -> None:
    """The palette is live: a tool added after the turn was reconciled is callable at once."""
    ledger = Ledger()

    def script(request: ModelRequest) -> ModelResponse:
        if len(model.requests) == 1:
            thinker.add_tool(Define)
            return calls(call("define", {"key": "x"}))
        return answer("ok")

    model = ScriptedModel(script)
    thinker = make(Assistant, model, hub=hub)
    thinker.ledger = ledger
    run(thinker)

    assert "define" not in tool_names(model.requests[0])
    assert ledger.names() == ["define"]


def test_a_tool_granted_through_request_tools_is_offered_from_the_next_request(
    hub: ToolHub,
) -> None:
    """A grant joins the palette at once and is listed, appended, from the next request on."""
    model = ScriptedModel([calls(call(REQUEST_TOOLS, {"tools": ["define"]})), answer("ok")])
    run(make(Assistant, model, hub=hub))

    first, second = model.requests
    assert '"granted": ["define"]' in results_of(model, 1)[0].content
    assert tool_names(second) == [*BASE, "define"]
    assert second.tools[: len(first.tools)] == first.tools


def test_a_system_wide_tool_registered_mid_run_is_offered_from_the_next_request(
    hub: ToolHub,
) -> None:
    """A tool registered for every thinker while one runs joins its palette at the next turn."""
    model = ScriptedModel([act("register"), answer("ok")])
    run(
        make(Assistant, model, hub=hub),
        ("register", lambda thinker: hub.register_system_wide_tool(Clock)),
    )

    assert "clock" not in tool_names(model.requests[0])
    assert tool_names(model.requests[1]) == [*BASE, "clock"]


def test_a_system_wide_tool_withdrawn_mid_run_leaves_the_palette_and_is_refused(
    hub: ToolHub,
) -> None:
    """Withdrawn while a thinker runs, a system-wide tool is not offered or run from then on."""
    hub.register_system_wide_tool(Clock)
    model = ScriptedModel([act("withdraw"), calls(call("clock", {"key": "x"})), answer("ok")])
    thinker = make(Assistant, model, hub=hub)
    thinker.ledger = Ledger()
    run(thinker, ("withdraw", lambda _: hub.withdraw_system_wide_tool("clock")))

    assert "clock" in tool_names(model.requests[0])
    assert "clock" not in tool_names(model.requests[1])
    (refusal,) = results_of(model, 2)
    assert refusal.is_error
    assert refusal.content.startswith("No such tool is available.")
    assert thinker.ledger.names() == []


def test_reconciling_again_between_turns_changes_nothing_the_model_is_shown(hub: ToolHub) -> None:
    """Reconciliation is idempotent: extra passes leave the same providers in the same order."""
    seen: list[list[ToolProvider]] = []

    def reconcile_thrice(thinker: Any) -> None:
        for _ in range(3):
            seen.append(thinker.reconcile_tool_registry().providers())

    model = ScriptedModel([act("again"), answer("ok")])
    run(make(Assistant, model, hub=hub), ("again", reconcile_thrice))

    first, second = model.requests
    assert first.tools == second.tools
    assert all(all(a is b for a, b in zip(providers, seen[0], strict=True)) for providers in seen)


def test_each_turn_s_definitions_are_built_after_that_turn_s_reconciliation(
    hub: ToolHub,
) -> None:
    """A catalog narrowed between turns is what the next request's request_tools offers."""

    class Narrowing(Assistant):
        withheld: ClassVar[set[str]] = set()

        def reconcile_catalog(self, catalog: list[ToolProvider]) -> list[ToolProvider]:
            return [provider for provider in catalog if provider.name not in self.withheld]

    model = ScriptedModel([act("narrow"), answer("ok")])
    thinker = make(Narrowing, model, hub=hub)
    run(thinker, ("narrow", lambda _: Narrowing.withheld.add("archive")))

    offered = [
        [member["const"] for member in _request_tools_members(request)]
        for request in model.requests
    ]
    assert offered == [["define", "archive"], ["define"]]


def _request_tools_members(request: ModelRequest) -> list[dict[str, Any]]:
    (spec,) = [spec for spec in request.tools if spec.name == REQUEST_TOOLS]
    members: list[dict[str, Any]] = spec.input_schema["properties"]["tools"]["items"]["oneOf"]
    return members


# -- the sweep after reconciliation, the check at submission -------------------------------------


def test_the_read_only_sweep_runs_after_every_turn_s_reconciliation(hub: ToolHub) -> None:
    """Under a read-only binding, nothing mutating added mid-run is ever offered."""

    def widen(thinker: Any) -> None:
        thinker.add_tool(Archive)
        thinker.add_tool(Define)
        hub.register_system_wide_tool(Shred, Clock)

    model = ScriptedModel([act("widen"), answer("ok")])
    run(make(Assistant, model, hub=hub, read_only=True), ("widen", widen))

    base = ["lookup", "act", SUB_THINKER, REQUEST_SKILL]
    assert tool_names(model.requests[0]) == base
    assert tool_names(model.requests[1]) == [*base, "define", "clock"]


def test_a_call_is_checked_at_submission_against_the_palette_the_calls_before_it_left(
    hub: ToolHub,
) -> None:
    """A skill narrowing the surface mid-turn refuses the later call that was valid when parsed."""
    model = ScriptedModel(
        [
            calls(
                call(REQUEST_SKILL, {"skill": "glossary"}),
                call("write_record", {"key": "x"}),
                call("lookup", {"key": "x"}),
            ),
            answer("ok"),
        ]
    )
    thinker = make(Assistant, model, hub=hub)
    thinker.ledger = Ledger()
    run(thinker)

    granted, refused, looked_up = results_of(model, 1)
    assert '"granted": true' in granted.content
    assert refused.is_error
    assert refused.content.startswith("No such tool is available.")
    assert "write_record" not in refused.content.partition("Available tools:")[2]
    assert not looked_up.is_error
    assert thinker.ledger.names() == ["lookup"]


def test_a_call_to_a_tool_not_offered_is_refused_and_never_runs(hub: ToolHub) -> None:
    """A catalog tool called before it was granted is refused; it runs once granted."""
    model = ScriptedModel(
        [
            calls(call("define", {"key": "x"})),
            calls(call(REQUEST_TOOLS, {"tools": ["define"]})),
            calls(call("define", {"key": "y"})),
            answer("ok"),
        ]
    )
    thinker = make(Assistant, model, hub=hub)
    thinker.ledger = Ledger()
    run(thinker)

    assert results_of(model, 1)[0].is_error
    assert not results_of(model, 3)[0].is_error
    assert thinker.ledger.names() == ["define"]


# -- sub_thinker and depth ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("depth", "offered"), [(Depth.QUICK, False), (Depth.STANDARD, True), (Depth.THOROUGH, True)]
)
def test_sub_thinker_is_offered_at_standard_depth_and_deeper(
    hub: ToolHub, depth: Depth, offered: bool
) -> None:
    """A thinker delegates only when it works at Depth.STANDARD or deeper."""
    thinker = make(Assistant, ScriptedModel(), hub=hub, depth=depth)
    assert (SUB_THINKER in thinker.reconcile_tool_registry().names()) is offered


def test_a_thinker_made_quick_between_runs_stops_offering_sub_thinker(hub: ToolHub) -> None:
    """Depth is read at every reconciliation: lowering it withdraws sub_thinker."""
    thinker = make(Assistant, ScriptedModel(), hub=hub)
    assert SUB_THINKER in thinker.reconcile_tool_registry().names()
    thinker.depth = Depth.QUICK
    assert SUB_THINKER not in thinker.reconcile_tool_registry().names()


def test_a_sub_thinker_delegates_only_at_thorough_depth(hub: ToolHub) -> None:
    """A sub-thinker's threshold is THOROUGH: at its own STANDARD rung it has no sub_thinker."""
    parent = make(Assistant, ScriptedModel(), hub=hub)
    parent.reconcile_tool_registry()

    standard = SubThinker(parent)
    thorough = SubThinker(parent, depth=Depth.THOROUGH)
    assert standard.depth is Depth.STANDARD
    assert standard.delegation_threshold() is Depth.THOROUGH
    assert SUB_THINKER not in standard.reconcile_tool_registry().names()
    assert SUB_THINKER in thorough.reconcile_tool_registry().names()


# -- a sub-thinker's palette and catalogs, taken at launch ---------------------------------------


def test_a_sub_thinker_inherits_the_parent_s_provider_instances(hub: ToolHub) -> None:
    """The sub-thinker's tools are the parent's very providers, less what it builds itself."""
    parent = make(Assistant, ScriptedModel(), hub=hub)
    hub.register_system_wide_tool(Clock)
    parent.add_tool(Define)
    palette = parent.reconcile_tool_registry()

    sub = SubThinker(parent)
    registry = sub.reconcile_tool_registry()
    assert registry.names() == [
        "clock",
        "lookup",
        "write_record",
        "act",
        "define",
        REQUEST_TOOLS,
        REQUEST_SKILL,
    ]
    for name in ("lookup", "write_record", "act", "define", "clock"):
        assert registry.get_provider_by_name(name) is palette.get_provider_by_name(name)
    assert registry.get_provider_by_name(REQUEST_TOOLS) is not palette.get(REQUEST_TOOLS)


def test_a_sub_thinker_inherits_only_what_the_parent_s_surface_allows(hub: ToolHub) -> None:
    """A tool outside the parent's restriction is not handed down to its sub-thinker."""
    parent = make(Assistant, ScriptedModel(), hub=hub)
    parent.reconcile_tool_registry()
    assert parent.request_skill("glossary").granted

    sub = SubThinker(parent)
    names = sub.reconcile_tool_registry().names()
    assert "lookup" in names
    assert "write_record" not in names
    assert "act" not in names


def test_a_sub_thinker_inherits_tools_granted_to_its_parent_before_launch(hub: ToolHub) -> None:
    """What request_tools granted the parent is part of the palette the sub-thinker inherits."""
    parent = make(Assistant, ScriptedModel(), hub=hub)
    parent.reconcile_tool_registry()
    parent.request_tools(["define"])

    assert "define" in SubThinker(parent).reconcile_tool_registry().names()


def offer(thinker: Any, name: str) -> tuple[str, ...] | None:
    provider = thinker.reconcile_tool_registry().get(name)
    if provider is None:
        return None
    assert isinstance(provider, RequestToolsProvider | RequestSkillProvider)
    return provider.members


def test_a_sub_thinker_s_doors_offer_exactly_what_the_parent_s_did(hub: ToolHub) -> None:
    """request_tools and request_skill list the parent's reconciled catalogs, narrowing included."""

    class Narrow(Assistant):
        def reconcile_catalog(self, catalog: list[ToolProvider]) -> list[ToolProvider]:
            return [provider for provider in catalog if provider.name != "archive"]

    parent = make(Narrow, ScriptedModel(), hub=hub)
    sub = SubThinker(parent)

    assert offer(sub, REQUEST_TOOLS) == offer(parent, REQUEST_TOOLS) == ("define",)
    assert offer(sub, REQUEST_SKILL) == offer(parent, REQUEST_SKILL) == ("glossary", "style")


def test_a_catalog_widened_after_launch_does_not_reach_the_sub_thinker(hub: ToolHub) -> None:
    """The catalogs are captured at launch: a later hub widening reaches the parent only."""
    parent = make(Assistant, ScriptedModel(), hub=hub)
    sub = SubThinker(parent)
    hub.register_compatible(Assistant, Clock)

    assert offer(parent, REQUEST_TOOLS) == ("define", "archive", "clock")
    assert offer(sub, REQUEST_TOOLS) == ("define", "archive")
    assert not sub.request_tools(["clock"]).granted


def test_a_tool_the_sub_thinker_is_granted_joins_its_palette_not_its_parent_s(
    hub: ToolHub,
) -> None:
    """The sub-thinker's door admits from the captured catalog into its own palette."""
    parent = make(Assistant, ScriptedModel(), hub=hub)
    parent.reconcile_tool_registry()
    sub = SubThinker(parent)
    sub.reconcile_tool_registry()

    assert sub.request_tools(["archive"]).granted == ("archive",)
    assert "archive" in sub.registry.names()
    assert "archive" not in parent.registry.names()
    assert sub.request_skill("style").granted
    assert names_of(sub.skills) == ["style"]
    assert names_of(parent.skills) == []


def test_an_admission_rule_for_the_parent_s_class_rules_its_sub_thinker(hub: ToolHub) -> None:
    """Delegation admits nothing the parent would be refused: its class's rules apply."""
    rule = Rule.refuse("archiving needs a human")
    hub.register_admission(Assistant, "archive", rule)
    parent = make(Assistant, ScriptedModel(), hub=hub)
    sub = SubThinker(parent)
    sub.reconcile_tool_registry()

    result = sub.request_tools(["archive"])
    assert result.granted == ()
    assert [refusal.reason for refusal in result.refused] == ["archiving needs a human"]
    assert [thinker for thinker, _ in rule.asked] == [sub]
    assert hub.admission_record[-1].thinker_class == "SubThinker"
