"""RequestSkillPaletteTest: the per-turn offer of ``request_skill`` and where a skill lands.

``request_skill`` is in the palette while the turn's skill catalog (less the skills already
attached) is non-empty. A granted skill is attached to the conversation, after the declared
default skills; its ``allowed-tools`` become a restriction on the registry, composed with other
skills' as a union, and ``request_skill`` itself stays in the surface (seeds 000, 001, 003).
"""

import asyncio
import json
import logging
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from _hub_kit import Deploy, Summarize, lookup, make_skill, write_record

from nucleo_core import (
    Skill,
    SkillRegistry,
    SkillSelector,
    ThinkerBase,
    ToolHub,
    ToolSelector,
    UnknownTool,
    Verdict,
    run_tool,
)
from nucleo_core.hub import REQUEST_SKILL, REQUEST_TOOLS, RequestSkillProvider, RequestSkillResult

SKILLS = [
    make_skill("glossary", allowed_tools=("lookup",)),
    make_skill("bookkeeping", allowed_tools=("write_record", "native:summarize")),
    make_skill("style"),
    make_skill("ghostly", allowed_tools=("not_registered_anywhere",)),
]


class Assistant(ThinkerBase):
    """A thinker with three default tools, a one-tool catalog and every skill on offer."""

    @classmethod
    def declare_default_tools(cls) -> list[Any]:
        return [lookup, write_record, Summarize]

    @classmethod
    def declare_compatible_tools(cls) -> ToolSelector:
        return ToolSelector.of([Deploy])

    @classmethod
    def declare_compatible_skills(cls) -> SkillSelector:
        return SkillSelector().add_all()


@pytest.fixture
def hub() -> ToolHub:
    """A fresh hub holding the sample skills."""
    return ToolHub(skills=SkillRegistry(SKILLS))


def offered_skills(thinker: ThinkerBase) -> tuple[str, ...] | None:
    """The skill names this turn's request_skill offers, or None when it is not offered."""
    provider = thinker.reconcile_tool_registry().get(REQUEST_SKILL)
    if provider is None:
        return None
    assert isinstance(provider, RequestSkillProvider)
    return provider.members


def attached(thinker: ThinkerBase) -> list[str]:
    return [skill.name for skill in thinker.skills]


# -- the per-turn offer --------------------------------------------------------------------------


def test_request_skill_is_offered_while_the_skill_catalog_is_non_empty(hub: ToolHub) -> None:
    """A thinker with compatible skills is offered request_skill, listing them all."""
    assert offered_skills(Assistant(hub=hub)) == ("glossary", "bookkeeping", "style", "ghostly")


def test_a_thinker_declaring_no_skills_is_not_offered_request_skill(hub: ToolHub) -> None:
    """No declared skill catalog, no request_skill; a call to it is unknown."""
    thinker = ThinkerBase(hub=hub)

    assert offered_skills(thinker) is None
    with pytest.raises(UnknownTool):
        thinker.check_call(REQUEST_SKILL)


def test_a_selector_that_resolves_to_nothing_offers_no_request_skill() -> None:
    """A skill catalog that resolves empty (nothing installed) is no catalog."""
    assert offered_skills(Assistant(hub=ToolHub())) is None


def test_an_attached_skill_leaves_the_offer_and_the_last_one_takes_the_tool_away(
    hub: ToolHub,
) -> None:
    """Each turn offers only the skills not yet attached; none left, no request_skill."""
    thinker = Assistant(hub=hub)

    thinker.request_skill("style")
    assert offered_skills(thinker) == ("glossary", "bookkeeping", "ghostly")

    for name in ("glossary", "bookkeeping", "ghostly"):
        assert thinker.request_skill(name).granted
    assert offered_skills(thinker) is None
    assert REQUEST_SKILL not in thinker.registry


def test_declared_default_skills_are_attached_from_construction_and_not_offered(
    hub: ToolHub,
) -> None:
    """Default skills ride the conversation from the start, unasked, and are not re-offered."""

    class Styled(Assistant):
        @classmethod
        def declare_default_skills(cls) -> list[str]:
            return ["style", "glossary"]

    thinker = Styled(hub=hub)

    assert attached(thinker) == ["style", "glossary"]
    assert offered_skills(thinker) == ("bookkeeping", "ghostly")
    assert hub.admission_record == ()


def test_a_default_skill_no_source_provides_is_logged_and_skipped(
    hub: ToolHub, caplog: pytest.LogCaptureFixture
) -> None:
    """A missing default skill warns, naming it and the class, and never stops construction."""

    class Hopeful(Assistant):
        @classmethod
        def declare_default_skills(cls) -> list[str]:
            return ["vanished", "style"]

    with caplog.at_level(logging.WARNING, logger="nucleo.hub"):
        thinker = Hopeful(hub=hub)

    assert attached(thinker) == ["style"]
    (record,) = [record for record in caplog.records if record.name == "nucleo.hub"]
    assert record.levelno == logging.WARNING
    assert "vanished" in record.getMessage()
    assert "Hopeful" in record.getMessage()


def test_a_read_only_palette_keeps_request_skill_and_loses_request_tools(hub: ToolHub) -> None:
    """request_skill survives the read-only sweep (it changes only the conversation)."""
    thinker = Assistant(hub=hub, read_only=True)
    registry = thinker.reconcile_tool_registry()

    assert REQUEST_SKILL in registry
    assert REQUEST_TOOLS not in registry
    assert thinker.check_call(REQUEST_SKILL).name == REQUEST_SKILL
    assert thinker.request_skill("style").granted


# -- the conversation landing --------------------------------------------------------------------


def test_a_granted_skill_lands_after_the_defaults_in_grant_order(hub: ToolHub) -> None:
    """thinker.skills holds the defaults, then the granted skills in the order granted."""

    class Styled(Assistant):
        @classmethod
        def declare_default_skills(cls) -> list[str]:
            return ["style"]

    thinker = Styled(hub=hub)
    thinker.request_skill("bookkeeping")
    thinker.request_skill("glossary")

    assert attached(thinker) == ["style", "bookkeeping", "glossary"]
    assert thinker.skills[1] is hub.skills.get("bookkeeping")


def test_the_model_calling_request_skill_attaches_the_skill(hub: ToolHub) -> None:
    """Through create_tool and parse_input, as a model's call goes, the skill is attached."""
    thinker = Assistant(hub=hub)
    registry = thinker.reconcile_tool_registry()
    provider = thinker.check_call(REQUEST_SKILL)

    result = asyncio.run(
        run_tool(
            registry.create_tool(REQUEST_SKILL, thinker), provider.parse_input('{"skill": "style"}')
        )
    )

    assert result == RequestSkillResult(skill="style", granted=True)
    assert json.loads(str(result)) == {"skill": "style", "granted": True, "reason": ""}
    assert attached(thinker) == ["style"]


def test_concurrent_requests_for_one_skill_attach_it_once(hub: ToolHub) -> None:
    """Parallel tool calls asking for the same skill land it on the conversation once."""

    class Deliberate:
        def __init__(self, thinker: object) -> None:
            pass

        def check(self, skill: Skill) -> Verdict:
            time.sleep(0.02)  # a guardrail that takes a while, as a remote policy check does
            return Verdict.grant()

    hub.register_skill_admission(None, "*", Deliberate)
    thinker = Assistant(hub=hub)
    barrier = threading.Barrier(4)

    def ask(_: int) -> RequestSkillResult:
        barrier.wait()
        return thinker.request_skill("style")

    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(ask, range(4)))

    assert all(result.granted for result in results)
    assert attached(thinker) == ["style"]


# -- allowed-tools restrict the surface ---------------------------------------------------------


def test_a_skill_with_no_allowed_tools_restricts_nothing(hub: ToolHub) -> None:
    """Attaching a skill that names no tools leaves the surface as it was."""
    thinker = Assistant(hub=hub)
    registry = thinker.reconcile_tool_registry()
    before = registry.available_names()

    thinker.request_skill("style")

    assert registry.surface_restriction() is None
    assert registry.available_names() == before


def test_a_skills_allowed_tools_restrict_the_surface_and_request_skill_stays(
    hub: ToolHub,
) -> None:
    """After 'glossary' only lookup (and request_skill) can be called; the rest are unknown."""
    thinker = Assistant(hub=hub)
    registry = thinker.reconcile_tool_registry()

    thinker.request_skill("glossary")

    assert registry.available_names() == ["lookup", REQUEST_SKILL]
    assert [spec.name for spec in registry.specs()] == ["lookup", REQUEST_SKILL]
    assert thinker.check_call("lookup").name == "lookup"
    assert thinker.check_call(REQUEST_SKILL).name == REQUEST_SKILL
    for name in ("write_record", "summarize", REQUEST_TOOLS):
        with pytest.raises(UnknownTool):
            thinker.check_call(name)


def test_two_skills_restrictions_compose_as_a_union(hub: ToolHub) -> None:
    """Two loaded skills leave the tools either names reachable, not only those both name."""
    thinker = Assistant(hub=hub)
    registry = thinker.reconcile_tool_registry()

    thinker.request_skill("glossary")
    thinker.request_skill("bookkeeping")

    assert registry.surface_restriction() == frozenset(
        {"lookup", "write_record", "native:summarize"}
    )
    assert registry.available_names() == ["lookup", "write_record", "summarize", REQUEST_SKILL]


def test_a_restriction_naming_only_unregistered_tools_adds_nothing(hub: ToolHub) -> None:
    """allowed-tools naming nothing registered leaves only request_skill reachable."""
    thinker = Assistant(hub=hub)
    registry = thinker.reconcile_tool_registry()

    thinker.request_skill("ghostly")

    assert registry.available_names() == [REQUEST_SKILL]


def test_the_restriction_holds_on_later_turns(hub: ToolHub) -> None:
    """Re-assembling the palette next turn keeps the loaded skill's restriction."""
    thinker = Assistant(hub=hub)
    thinker.reconcile_tool_registry()
    thinker.request_skill("glossary")

    registry = thinker.reconcile_tool_registry()

    assert registry.available_names() == ["lookup", REQUEST_SKILL]
    with pytest.raises(UnknownTool):
        thinker.check_call("write_record")


def test_a_default_skills_allowed_tools_restrict_from_the_first_turn(hub: ToolHub) -> None:
    """A declared default skill's allowed-tools apply from construction on."""

    class Bookish(Assistant):
        @classmethod
        def declare_default_skills(cls) -> list[str]:
            return ["glossary"]

    registry = Bookish(hub=hub).reconcile_tool_registry()

    assert registry.available_names() == ["lookup", REQUEST_SKILL]


def test_request_skill_stays_callable_to_load_a_follow_up_skill(hub: ToolHub) -> None:
    """A restriction cannot remove its own mechanism: the next skill can still be requested."""
    thinker = Assistant(hub=hub)
    registry = thinker.reconcile_tool_registry()
    thinker.request_skill("glossary")

    offer = thinker.check_call(REQUEST_SKILL)
    parsed = offer.parse_input({"skill": "bookkeeping"})
    asyncio.run(run_tool(registry.create_tool(REQUEST_SKILL, thinker), parsed))

    assert attached(thinker) == ["glossary", "bookkeeping"]
    assert "write_record" in registry.available_names()


def test_a_restriction_narrows_request_tools_to_the_catalog_tools_it_names(hub: ToolHub) -> None:
    """A skill allowing a catalog tool keeps request_tools, offering only that tool."""
    hub.skills.register(make_skill("release", allowed_tools=("deploy", "lookup")))
    thinker = Assistant(hub=hub)
    registry = thinker.reconcile_tool_registry()

    thinker.request_skill("release")

    provider = registry.get(REQUEST_TOOLS)
    assert provider is not None
    assert provider.input_schema["properties"]["tools"]["items"]["oneOf"][0]["const"] == "deploy"
    assert registry.available_names() == ["lookup", REQUEST_TOOLS, REQUEST_SKILL]
    assert thinker.request_tools(["deploy"]).granted == ("deploy",)
    assert thinker.check_call("deploy").name == "deploy"


def test_under_a_restriction_request_tools_refuses_what_the_skill_does_not_name(
    hub: ToolHub,
) -> None:
    """A catalog tool the loaded skill does not name is off the narrowed catalog: refused."""
    hub.skills.register(make_skill("reading", allowed_tools=("lookup",)))
    thinker = Assistant(hub=hub)
    thinker.reconcile_tool_registry()

    thinker.request_skill("reading")
    result = thinker.request_tools(["deploy"])

    assert result.granted == ()
    assert [refusal.name for refusal in result.refused] == ["deploy"]
