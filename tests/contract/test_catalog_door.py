"""The catalog door, as a property: a model is never granted a name off its catalog, by any path.

For random catalogs, per-turn narrowing, read-only bindings, requested names (on the catalog,
off it, withheld this turn, the palette's own names, arbitrary strings) and random guardrail
outcomes (grant, refuse, raise, say nothing, answer a non-verdict), a name off the thinker's
reconciled catalog is granted neither by ``hub.admit_tool``, nor by ``thinker.request_tools``,
nor by the ``request_tools`` tool called as a model calls it (``registry.create_tool`` and
``parse_input``, which refuses such a name without echoing it); and a guardrail that raises
never grants. The same holds for skills, through ``hub.admit_skill``, ``thinker.request_skill``
and the ``request_skill`` tool.
"""

import asyncio
from typing import Any

from _hub_kit import INTERNAL_ERROR, AdmitHook, Rule, make_skill
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from nucleo_core import (
    InvalidToolInput,
    Skill,
    SkillRegistry,
    SkillSelector,
    ThinkerBase,
    ToolHub,
    ToolProvider,
    ToolSelector,
    UnknownTool,
    Verdict,
    tool,
)
from nucleo_core.hub import (
    REQUEST_SKILL,
    REQUEST_TOOLS,
    RequestSkillProvider,
    RequestSkillResult,
    RequestToolsProvider,
    RequestToolsResult,
)
from nucleo_core.tools import provider_for, run_tool


def _make(name: str, read_only: bool) -> ToolProvider:
    def body(text: str) -> str:
        return text

    body.__doc__ = f"The {name} tool."
    return provider_for(tool(name=name, read_only=read_only, risk="low")(body))


POOL = {
    provider.name: provider
    for provider in (
        _make("alpha", True),
        _make("bravo", False),
        _make("charlie", True),
        _make("delta", False),
        _make("echo_tool", True),
        _make("foxtrot", True),
    )
}
HOME = _make("home", True)  # a default tool: in the palette, never in the catalog
NAMES = sorted(POOL)

OUTCOMES = {
    "grant": Verdict.grant(),
    "refuse": Verdict.refuse("the rule says no"),
    "raise": RuntimeError("guardrail crashed: secret-detail-42"),
    "not a verdict": True,
}
HOOK_OUTCOMES = {
    "absent": None,
    "no opinion": None,
    "grant": Verdict.grant(),
    "refuse": Verdict.refuse("the hook says no"),
    "raise": RuntimeError("hook crashed: secret-detail-42"),
}

#: Names that no tool has and no error message contains by chance, to check nothing echoes them.
foreign_names = st.from_regex(r"\AZQ[0-9]{2}[A-Z]{0,6}\Z")
stray_names = st.one_of(
    st.sampled_from(["home", REQUEST_TOOLS, REQUEST_SKILL, "native:alpha", "ALPHA", "alpha "]),
    foreign_names,
    st.text(max_size=12),
)


def thinker_class_for(catalog: list[str], withheld: set[str]) -> type[ThinkerBase]:
    """A new thinker class: this catalog, the default tool 'home', ``withheld`` hidden per turn."""

    class Door(ThinkerBase):
        @classmethod
        def declare_default_providers(cls) -> list[ToolProvider]:
            return [HOME]

        @classmethod
        def declare_compatible_tools(cls) -> ToolSelector:
            return ToolSelector().add_provider(*(POOL[name] for name in catalog))

        def reconcile_catalog(self, offered: list[ToolProvider]) -> list[ToolProvider]:
            return [provider for provider in offered if provider.name not in withheld]

    return Door


def _mutating(provider: ToolProvider) -> bool:
    return not provider.read_only


def guarded_hub(rule_outcomes: dict[str, str], hook_outcome: str, predicate: bool) -> ToolHub:
    """A fresh hub: a rule per named tool, maybe a predicate rule, maybe an admission hook."""
    hub = ToolHub()
    for name, outcome in rule_outcomes.items():
        hub.register_admission(None, name, Rule(OUTCOMES[outcome]))
    if predicate:
        hub.register_admission(None, _mutating, Rule.refuse("mutating tools need approval"))
    if hook_outcome != "absent":
        hub.plugins.register_plugin(AdmitHook(HOOK_OUTCOMES[hook_outcome]), name="hook")
    return hub


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(
    catalog=st.lists(st.sampled_from(NAMES), unique=True),
    withheld=st.sets(st.sampled_from(NAMES), max_size=2),
    rule_outcomes=st.dictionaries(st.sampled_from(NAMES), st.sampled_from(sorted(OUTCOMES))),
    hook_outcome=st.sampled_from(sorted(HOOK_OUTCOMES)),
    predicate=st.booleans(),
    read_only=st.booleans(),
    wanted=st.lists(st.sampled_from(NAMES), max_size=6),
    strays=st.lists(stray_names, max_size=3),
    data=st.data(),
)
def test_no_path_grants_a_name_off_the_catalog_and_no_crash_grants(
    catalog: list[str],
    withheld: set[str],
    rule_outcomes: dict[str, str],
    hook_outcome: str,
    predicate: bool,
    read_only: bool,
    wanted: list[str],
    strays: list[str],
    data: st.DataObject,
) -> None:
    """Granted exactly when on the reconciled catalog and every guardrail passes, by any path."""
    requested: list[Any] = [*strays, *wanted]
    reachable = [name for name in catalog if name not in withheld]
    hook_passes = hook_outcome in ("absent", "no opinion", "grant")

    def grantable(name: object) -> bool:
        if not isinstance(name, str) or name not in reachable:
            return False
        if (read_only or predicate) and not POOL[name].read_only:
            return False
        return rule_outcomes.get(name, "grant") == "grant" and hook_passes

    def crashed(name: str) -> bool:
        return rule_outcomes.get(name) in ("raise", "not a verdict") or hook_outcome == "raise"

    door = thinker_class_for(catalog, withheld)

    # -- path 1: the hub's door itself -----------------------------------------------------------
    hub = guarded_hub(rule_outcomes, hook_outcome, predicate)
    thinker = door(hub=hub, read_only=read_only)
    for name in [*requested, 7, None]:
        admission = hub.admit_tool(thinker, name)
        assert admission.granted == grantable(name)
        assert (admission.provider is not None) == admission.granted
        if admission.granted:
            assert admission.provider is POOL[name]
        elif name in reachable and not (read_only and not POOL[name].read_only) and crashed(name):
            event("a crash was asked about a reachable name")
            assert INTERNAL_ERROR in admission.reason
            assert "secret-detail-42" not in admission.reason
    assert all(decision.granted == grantable(decision.name) for decision in hub.admission_record)

    # -- path 2: the thinker's request_tools -----------------------------------------------------
    hub = guarded_hub(rule_outcomes, hook_outcome, predicate)
    thinker = door(hub=hub, read_only=read_only)
    before = set(thinker.reconcile_tool_registry().names())
    result = thinker.request_tools(requested)
    after = set(thinker.registry.names())
    new = {name for name in result.granted if name not in before}
    assert new == {name for name in requested if grantable(name)}
    assert after == before | new
    assert {refusal.name for refusal in result.refused}.isdisjoint(after - before)
    for refused in result.refused:
        assert refused.reason
        assert "secret-detail-42" not in refused.reason

    # -- path 3: the request_tools tool, called as a model calls it ---------------------------
    hub = guarded_hub(rule_outcomes, hook_outcome, predicate)
    thinker = door(hub=hub, read_only=read_only)
    registry = thinker.reconcile_tool_registry()
    if read_only or not reachable:
        assert REQUEST_TOOLS not in registry
        try:
            registry.create_tool(REQUEST_TOOLS, thinker)
        except UnknownTool:
            pass
        else:
            raise AssertionError("request_tools was callable with no catalog or read-only")
        return
    offer = registry.get(REQUEST_TOOLS)
    assert isinstance(offer, RequestToolsProvider)
    assert offer.members == tuple(reachable)
    # Mostly names the schema offers, sometimes with the others mixed in.
    names = data.draw(st.lists(st.sampled_from(reachable), max_size=4, unique=True), "offered")
    if data.draw(st.booleans(), "mixed"):
        names = list(dict.fromkeys([*names, *requested]))
    problem: InvalidToolInput | None = None
    try:
        parsed = offer.parse_input({"tools": names})
    except InvalidToolInput as exc:
        problem = exc
    if problem is not None:
        assert not names or any(name not in reachable for name in names)
        for name in names:
            if name not in reachable and foreign_names_match(name):
                assert name not in str(problem)
        assert hub.admission_record == ()
        event("path 3: the schema refused")
        return
    event("path 3: the schema accepted")
    assert names
    assert all(name in reachable for name in names)
    answer = asyncio.run(run_tool(registry.create_tool(REQUEST_TOOLS, thinker), parsed))
    assert isinstance(answer, RequestToolsResult)
    assert list(answer.granted) == [name for name in names if grantable(name)]
    assert set(registry.names()) <= {"home", REQUEST_TOOLS, *reachable}


def foreign_names_match(name: str) -> bool:
    """Whether ``name`` is one of the distinctive foreign names (never in a message by chance)."""
    return name.startswith("ZQ") and name[2:4].isdigit()


# -- the same door for skills --------------------------------------------------------------------

SKILL_POOL = {skill.name: skill for skill in map(make_skill, ["plan", "review", "triage", "haiku"])}
SKILL_NAMES = sorted(SKILL_POOL)
stray_skill_names = st.one_of(
    st.sampled_from([REQUEST_SKILL, "Plan", "plan ", "alpha"]), foreign_names, st.text(max_size=12)
)


def skill_thinker_class_for(catalog: list[str], withheld: set[str]) -> type[ThinkerBase]:
    """A new thinker class: this skill catalog, ``withheld`` hidden per turn."""

    class SkillDoor(ThinkerBase):
        @classmethod
        def declare_compatible_skills(cls) -> SkillSelector:
            return SkillSelector(*catalog)

        def reconcile_skill_catalog(self, offered: list[Skill]) -> list[Skill]:
            return [skill for skill in offered if skill.name not in withheld]

    return SkillDoor


def skill_hub(rule_outcomes: dict[str, str], hook_outcome: str) -> ToolHub:
    """A fresh hub holding the skill pool, a rule per named skill, maybe an admission hook."""
    hub = ToolHub(skills=SkillRegistry(SKILL_POOL.values()))
    for name, outcome in rule_outcomes.items():
        hub.register_skill_admission(None, name, Rule(OUTCOMES[outcome]))
    if hook_outcome != "absent":
        hub.plugins.register_plugin(AdmitHook(HOOK_OUTCOMES[hook_outcome]), name="hook")
    return hub


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(
    catalog=st.lists(st.sampled_from(SKILL_NAMES), unique=True),
    withheld=st.sets(st.sampled_from(SKILL_NAMES), max_size=2),
    rule_outcomes=st.dictionaries(st.sampled_from(SKILL_NAMES), st.sampled_from(sorted(OUTCOMES))),
    hook_outcome=st.sampled_from(sorted(HOOK_OUTCOMES)),
    requested=st.lists(st.one_of(st.sampled_from(SKILL_NAMES), stray_skill_names), max_size=6),
)
def test_no_path_grants_a_skill_off_the_catalog_and_no_crash_grants(
    catalog: list[str],
    withheld: set[str],
    rule_outcomes: dict[str, str],
    hook_outcome: str,
    requested: list[str],
) -> None:
    """A skill is attached exactly when on the reconciled catalog and every guardrail passes."""
    reachable = [name for name in catalog if name not in withheld]
    hook_passes = hook_outcome in ("absent", "no opinion", "grant")

    def grantable(name: str) -> bool:
        return name in reachable and rule_outcomes.get(name, "grant") == "grant" and hook_passes

    door = skill_thinker_class_for(catalog, withheld)

    # -- path 1: the hub's door itself -----------------------------------------------------------
    hub = skill_hub(rule_outcomes, hook_outcome)
    thinker = door(hub=hub)
    for name in requested:
        admission = hub.admit_skill(thinker, name)
        assert admission.granted == grantable(name)
        assert admission.skill is (SKILL_POOL[name] if admission.granted else None)
        if not admission.granted:
            assert "secret-detail-42" not in admission.reason

    # -- path 2: the thinker's request_skill -----------------------------------------------------
    hub = skill_hub(rule_outcomes, hook_outcome)
    thinker = door(hub=hub)
    for name in requested:
        thinker.request_skill(name)
    expected = list(dict.fromkeys(name for name in requested if grantable(name)))
    assert [skill.name for skill in thinker.skills] == expected

    # -- path 3: the request_skill tool, called as a model calls it ---------------------------
    hub = skill_hub(rule_outcomes, hook_outcome)
    thinker = door(hub=hub)
    registry = thinker.reconcile_tool_registry()
    if not reachable:
        assert REQUEST_SKILL not in registry
        return
    offer = registry.get(REQUEST_SKILL)
    assert isinstance(offer, RequestSkillProvider)
    assert offer.members == tuple(reachable)
    for name in requested:
        problem: InvalidToolInput | None = None
        try:
            parsed = offer.parse_input({"skill": name})
        except InvalidToolInput as exc:
            problem = exc
        if problem is not None:
            assert name not in reachable
            if foreign_names_match(name):
                assert name not in str(problem)
            continue
        answer = asyncio.run(run_tool(registry.create_tool(REQUEST_SKILL, thinker), parsed))
        assert isinstance(answer, RequestSkillResult)
        assert answer.granted == grantable(name)
    assert {skill.name for skill in thinker.skills} <= set(reachable)
