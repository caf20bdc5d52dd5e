"""RequestSkillSchemaTest: the skill catalog as the input schema of ``request_skill`` (seed 000).

Built like ``request_tools``: the turn's reconciled skill catalog as ``oneOf`` ``const`` names,
each with the skill's own description, so a name off the catalog is refused by the model
provider's own validation; the catalog never appears as prompt text; equality by type. Unlike
``request_tools`` it takes one name, is read-only, and is restricting (it stays in the surface
whatever a loaded skill's allowed-tools name).
"""

import copy
import json
from typing import Any

import jsonschema
import pytest
from _hub_kit import make_skill

from nucleo_core import (
    InvalidToolInput,
    Risk,
    Skill,
    SkillRegistry,
    SkillSelector,
    ThinkerBase,
    ToolHub,
    ToolRegistry,
    render_tools,
)
from nucleo_core.hub import REQUEST_SKILL, RequestSkillProvider, RequestToolsProvider

SKILLS = [make_skill("triage", "acme.support"), make_skill("refund"), make_skill("haiku")]


class Clerk(ThinkerBase):
    """A thinker that may pull in every registered skill, fewer on some turns."""

    @classmethod
    def declare_compatible_skills(cls) -> SkillSelector:
        return SkillSelector().add_all()

    def __init__(self, *, hub: ToolHub) -> None:
        super().__init__(hub=hub)
        self.hidden: set[str] = set()

    def reconcile_skill_catalog(self, catalog: list[Skill]) -> list[Skill]:
        return [skill for skill in catalog if skill.name not in self.hidden]


@pytest.fixture
def hub() -> ToolHub:
    """A fresh hub holding the sample skills."""
    return ToolHub(skills=SkillRegistry(SKILLS))


def offered(thinker: ThinkerBase) -> RequestSkillProvider:
    """Assemble the turn's palette and return its request_skill provider."""
    provider = thinker.reconcile_tool_registry().get(REQUEST_SKILL)
    assert isinstance(provider, RequestSkillProvider)
    return provider


# -- the schema ----------------------------------------------------------------------------------


def test_the_meta_tool_is_spelled_in_snake_case() -> None:
    """The tool is request_skill and its one field is skill."""
    provider = RequestSkillProvider(SKILLS)

    assert REQUEST_SKILL == "request_skill"
    assert provider.name == "request_skill"
    assert provider.source == "native:request_skill"
    assert list(provider.input_schema["properties"]) == ["skill"]


def test_the_schema_is_the_skill_catalog_as_one_of_const_names(hub: ToolHub) -> None:
    """The input is one name, a const of the catalog, each with the skill's description."""
    provider = offered(Clerk(hub=hub))

    assert provider.input_schema == {
        "type": "object",
        "properties": {
            "skill": {
                "oneOf": [
                    {"const": skill.name, "description": skill.description} for skill in SKILLS
                ],
                "description": provider.input_schema["properties"]["skill"]["description"],
            }
        },
        "required": ["skill"],
        "additionalProperties": False,
    }
    assert provider.members == ("triage", "refund", "haiku")


def test_the_schema_is_a_valid_draft_2020_12_schema(hub: ToolHub) -> None:
    """The published schema passes the Draft 2020-12 meta-schema."""
    jsonschema.Draft202012Validator.check_schema(offered(Clerk(hub=hub)).input_schema)


def test_the_skill_catalog_never_appears_as_prompt_text(hub: ToolHub) -> None:
    """Outside the const entries, no skill name or description is in the tool definition."""
    provider = offered(Clerk(hub=hub))
    (definition,) = render_tools([provider.spec()], "mcp")
    stripped = copy.deepcopy(definition)
    stripped["inputSchema"]["properties"]["skill"]["oneOf"] = []

    text = json.dumps(stripped)

    for skill in SKILLS:
        assert skill.name not in text
        assert skill.description not in text
        assert skill.instructions not in text


def test_the_description_is_the_same_whatever_the_catalog() -> None:
    """Only the schema carries the catalog; the description never varies with it."""
    assert RequestSkillProvider(SKILLS[:1]).description == RequestSkillProvider(SKILLS).description


def test_request_skill_is_read_only_restricting_and_low_risk() -> None:
    """Admitting a skill changes only the conversation's instructions: read-only, restricting."""
    provider = RequestSkillProvider(SKILLS)

    assert provider.read_only is True
    assert provider.restricting is True
    assert (provider.risk, provider.risk_declared) == (Risk.LOW, True)
    assert provider.spec().read_only is True


# -- rebuilt per turn ----------------------------------------------------------------------------


def test_the_schema_is_rebuilt_each_turn_from_the_reconciled_skill_catalog(hub: ToolHub) -> None:
    """reconcile_skill_catalog narrows this turn's schema; the next turn can widen it again."""
    thinker = Clerk(hub=hub)

    assert offered(thinker).members == ("triage", "refund", "haiku")
    thinker.hidden = {"refund"}
    assert offered(thinker).members == ("triage", "haiku")
    thinker.hidden = set()
    assert offered(thinker).members == ("triage", "refund", "haiku")


def test_two_request_skill_providers_are_one_registry_entry() -> None:
    """Equality is by type, whatever the catalogs; the later registration replaces in place."""
    first = RequestSkillProvider(SKILLS[:1])
    second = RequestSkillProvider(SKILLS)
    registry = ToolRegistry([first])

    registry.register(second)

    assert first == second
    assert hash(first) == hash(second)
    assert first != RequestToolsProvider([])
    assert registry.names() == [REQUEST_SKILL]
    assert registry.get(REQUEST_SKILL) is second


def test_request_skill_leaves_while_the_reconciled_skill_catalog_is_empty(hub: ToolHub) -> None:
    """With every skill withheld the meta-tool goes, and it comes back with a skill."""
    thinker = Clerk(hub=hub)
    thinker.hidden = {skill.name for skill in SKILLS}

    assert REQUEST_SKILL not in thinker.reconcile_tool_registry()
    thinker.hidden = {"triage", "refund"}
    assert offered(thinker).members == ("haiku",)


# -- the model provider's validation -------------------------------------------------------------


@pytest.mark.parametrize(
    "raw", ['{"skill": "refund"}', {"skill": "refund"}], ids=["JSON text", "decoded object"]
)
def test_parse_input_accepts_a_catalog_name(raw: Any) -> None:
    """A name on the catalog parses to the name itself."""
    assert RequestSkillProvider(SKILLS).parse_input(raw) == "refund"


OFF_CATALOG = "jailbreak_QX7"


@pytest.mark.parametrize(
    ("raw", "field"),
    [
        ({"skill": OFF_CATALOG}, "skill"),
        ({"skill": ["refund"]}, "skill"),
        ({"skill": 7}, "skill"),
        ({}, "skill"),
        ({"skill": "refund", OFF_CATALOG: True}, "input"),
        (f'{{"skill": "{OFF_CATALOG}', "input"),
    ],
    ids=["off-catalog", "a list", "a number", "missing", "extra field", "not JSON"],
)
def test_parse_input_refuses_what_the_schema_does_not_allow(raw: Any, field: str) -> None:
    """A refusal is an InvalidToolInput naming the field, never echoing what the model sent."""
    with pytest.raises(InvalidToolInput) as caught:
        RequestSkillProvider(SKILLS).parse_input(raw)

    assert caught.value.tool == REQUEST_SKILL
    assert field in str(caught.value)
    assert OFF_CATALOG not in str(caught.value)


def test_a_skill_off_the_reconciled_catalog_is_refused_before_admission(hub: ToolHub) -> None:
    """A skill withheld this turn fails the schema, so the request never reaches the hub."""
    thinker = Clerk(hub=hub)
    thinker.hidden = {"refund"}
    provider = offered(thinker)

    with pytest.raises(InvalidToolInput):
        provider.parse_input({"skill": "refund"})

    assert hub.admission_record == ()
    assert thinker.skills == ()
