"""ToolHubSkillAdmissionTest: the admission door for skills (seeds 000, 001).

A skill the model asks for through ``request_skill`` passes the hub's skill admission rules
(for a thinker class or every thinker; by skill name or glob, or a predicate over the skill;
a fresh guardrail per check) and every ``nucleo_admit_skill`` hook implementation, and is then
attached to the conversation. The door behaves exactly as the tool door: a refusal's reason
reaches the model, a crash is an internal error that never grants, the others are still asked,
a name off the catalog is never granted, and every decision is on the record.
"""

import asyncio
import json
import logging
from datetime import UTC
from typing import Any

import pytest
from _hub_kit import INTERNAL_ERROR, AdmitHook, Rule, make_skill

from nucleo_core import (
    Skill,
    SkillRegistry,
    SkillSelector,
    ThinkerBase,
    ToolHub,
    Verdict,
)
from nucleo_core.hub import RequestSkillResult, SkillAdmissionRule
from nucleo_core.tools import run_tool

SKILLS = [
    make_skill("triage", "acme.skills.support"),
    make_skill("escalate", "acme.skills.support"),
    make_skill("refund", "acme.skills.billing"),
    make_skill("haiku"),
]
SKILL_NAMES = [skill.name for skill in SKILLS]


class Agent(ThinkerBase):
    """A thinker that may pull in every registered skill."""

    @classmethod
    def declare_compatible_skills(cls) -> SkillSelector:
        return SkillSelector().add_all()


class Trainee(Agent):
    """A subclass of Agent."""


class Poet(ThinkerBase):
    """An unrelated thinker that may pull in every registered skill."""

    @classmethod
    def declare_compatible_skills(cls) -> SkillSelector:
        return SkillSelector().add_all()


class Narrow(ThinkerBase):
    """A thinker whose skill catalog is only 'haiku'."""

    @classmethod
    def declare_compatible_skills(cls) -> SkillSelector:
        return SkillSelector("haiku")


@pytest.fixture
def hub() -> ToolHub:
    """A fresh hub whose skill registry holds the sample skills."""
    return ToolHub(skills=SkillRegistry(SKILLS))


def attached(thinker: ThinkerBase) -> list[str]:
    return [skill.name for skill in thinker.skills]


# -- the plain grant -----------------------------------------------------------------------------


def test_a_catalog_skill_no_guardrail_objects_to_is_attached(hub: ToolHub) -> None:
    """With no applicable guardrail, a requested catalog skill is granted and attached."""
    thinker = Agent(hub=hub)

    result = thinker.request_skill("triage")

    assert result == RequestSkillResult(skill="triage", granted=True)
    assert attached(thinker) == ["triage"]


def test_a_skill_already_attached_reads_as_granted_without_asking_again(hub: ToolHub) -> None:
    """Asking again for an attached skill is granted; no guardrail is asked, nothing recorded."""
    rule = Rule.grant()
    hub.register_skill_admission(None, "*", rule)
    thinker = Agent(hub=hub)

    thinker.request_skill("haiku")
    again = thinker.request_skill("haiku")

    assert again.granted
    assert attached(thinker) == ["haiku"]
    assert len(rule.asked) == 1
    assert len(hub.admission_record) == 1


# -- what a rule matches -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("match", "matched"),
    [
        ("refund", {"refund"}),
        ("[eh]*", {"escalate", "haiku"}),
        ("acme.skills.support.*", {"triage", "escalate"}),
        (lambda skill: skill.bundle == "", {"haiku"}),
    ],
    ids=["name", "glob of names", "glob of qualified names", "predicate"],
)
def test_a_skill_rule_is_asked_about_exactly_the_skills_it_matches(
    hub: ToolHub, match: Any, matched: set[str]
) -> None:
    """A skill rule matches by name, a glob of names or qualified names, or a skill predicate."""
    rule = Rule.refuse("not this one")
    hub.register_skill_admission(None, match, rule)
    thinker = Agent(hub=hub)

    results = {name: thinker.request_skill(name) for name in SKILL_NAMES}

    assert set(rule.asked_names) == matched
    assert {name for name, result in results.items() if not result.granted} == matched
    assert set(attached(thinker)) == set(SKILL_NAMES) - matched


def test_a_predicate_receives_the_requested_skill(hub: ToolHub) -> None:
    """The predicate is called with the Skill being requested."""
    seen: list[Skill] = []

    def every_skill(skill: Skill) -> bool:
        seen.append(skill)
        return True

    hub.register_skill_admission(None, every_skill, Rule.grant())

    Agent(hub=hub).request_skill("refund")

    assert seen == [hub.skills.get("refund")]


def test_a_skill_rule_for_a_thinker_class_applies_to_it_and_its_subclasses_only(
    hub: ToolHub,
) -> None:
    """A rule for a class is asked for its instances and subclasses', not another class's."""
    rule = Rule.refuse("agents do not write poems")
    hub.register_skill_admission(Agent, "haiku", rule)

    assert not Agent(hub=hub).request_skill("haiku").granted
    assert not Trainee(hub=hub).request_skill("haiku").granted
    assert Poet(hub=hub).request_skill("haiku").granted
    assert [type(thinker) for thinker, _ in rule.asked] == [Agent, Trainee]


def test_a_skill_rule_for_no_thinker_class_applies_to_every_thinker(hub: ToolHub) -> None:
    """A skill rule registered for None is asked for every thinker."""
    rule = Rule.refuse("refunds need a human")
    hub.register_skill_admission(None, "refund", rule)

    assert not Agent(hub=hub).request_skill("refund").granted
    assert not Poet(hub=hub).request_skill("refund").granted
    assert len(rule.asked) == 2


def test_register_skill_admission_returns_the_rule_it_added(hub: ToolHub) -> None:
    """The rule is returned with its thinker class, match, factory and record name."""
    factory = Rule.grant()

    rule = hub.register_skill_admission(Agent, "acme.*", factory, name="jar policy")

    assert rule == SkillAdmissionRule(Agent, "acme.*", factory, "jar policy")
    assert hub.register_skill_admission(None, "x", factory).name


def test_the_factory_builds_a_fresh_guardrail_for_every_check(hub: ToolHub) -> None:
    """Each skill check calls the factory again with the requesting thinker."""
    rule = Rule.grant()
    hub.register_skill_admission(None, "*", rule)
    first, second = Agent(hub=hub), Poet(hub=hub)

    first.request_skill("triage")
    second.request_skill("triage")
    hub.admit_skill(first, "refund")

    assert [guardrail.thinker for guardrail in rule.built] == [first, second, first]
    assert len({id(guardrail) for guardrail in rule.built}) == 3


# -- hooks ---------------------------------------------------------------------------------------


def test_a_skill_hooks_refusal_reaches_the_model(hub: ToolHub) -> None:
    """A nucleo_admit_skill implementation refuses with a reason the model reads."""
    hook = AdmitHook(Verdict.refuse("billing skills are for the billing team"))
    hub.plugins.register_plugin(hook, name="billing")
    thinker = Agent(hub=hub)

    result = thinker.request_skill("refund")

    assert result == RequestSkillResult(
        skill="refund", granted=False, reason="billing skills are for the billing team"
    )
    assert [(asker, skill.name) for asker, skill in hook.asked] == [(thinker, "refund")]
    assert attached(thinker) == []


@pytest.mark.parametrize("answer", [None, Verdict.grant()], ids=["no opinion", "grant"])
def test_a_skill_hook_with_no_opinion_or_a_grant_does_not_block(hub: ToolHub, answer: Any) -> None:
    """None is no opinion and a grant passes."""
    hub.plugins.register_plugin(AdmitHook(answer), name="quiet")

    assert Agent(hub=hub).request_skill("refund").granted


@pytest.mark.parametrize(
    "answer", [ValueError("hook broke: secret-detail-42"), True], ids=["raises", "wrong type"]
)
def test_a_failing_skill_hook_refuses_as_an_internal_error(hub: ToolHub, answer: Any) -> None:
    """A skill hook that raises or answers a non-verdict refuses with the internal-error text."""
    hub.plugins.register_plugin(AdmitHook(answer), name="broken")

    admission = hub.admit_skill(Agent(hub=hub), "refund")

    assert not admission.granted
    assert admission.reason == INTERNAL_ERROR
    (outcome,) = admission.outcomes
    assert (outcome.guardrail, outcome.verdict) == ("hook broken", None)
    assert outcome.error


# -- all must pass, and a crash never grants -----------------------------------------------------


def test_a_skill_is_granted_only_when_every_applicable_guardrail_passes(hub: ToolHub) -> None:
    """One refusal among grants refuses the skill, with that refusal's reason."""
    hub.register_skill_admission(None, "*", Rule.grant())
    hub.register_skill_admission(None, "escalate", Rule.refuse("escalation needs a ticket"))
    hub.register_skill_admission(None, "*", Rule.grant())
    thinker = Agent(hub=hub)

    assert thinker.request_skill("triage").granted
    assert thinker.request_skill("escalate") == RequestSkillResult(
        skill="escalate", granted=False, reason="escalation needs a ticket"
    )
    assert attached(thinker) == ["triage"]


def test_a_raising_skill_guardrail_never_grants_and_the_others_are_still_asked(
    hub: ToolHub, caplog: pytest.LogCaptureFixture
) -> None:
    """A crash refuses with the internal-error text; the rules and hooks after it are asked."""
    before, crash, after = Rule.grant(), Rule.crash(), Rule.grant()
    for rule in (before, crash, after):
        hub.register_skill_admission(None, "triage", rule)
    hook = AdmitHook(Verdict.grant())
    hub.plugins.register_plugin(hook, name="hook")
    thinker = Agent(hub=hub)

    with caplog.at_level(logging.ERROR, logger="nucleo.hub"):
        result = thinker.request_skill("triage")

    assert result == RequestSkillResult(skill="triage", granted=False, reason=INTERNAL_ERROR)
    assert "secret-detail-42" not in str(result)
    assert [len(rule.asked) for rule in (before, crash, after)] == [1, 1, 1]
    assert len(hook.asked) == 1
    assert attached(thinker) == []
    assert [type(record.exc_info[1]) for record in caplog.records if record.exc_info] == [
        RuntimeError
    ]


def test_a_skill_guardrail_that_cannot_be_built_is_an_internal_error(hub: ToolHub) -> None:
    """A factory that raises refuses as an internal error, and the other rules are asked."""

    def cannot_build(thinker: object) -> Any:
        raise KeyError("secret-detail-42")

    other = Rule.grant()
    hub.register_skill_admission(None, "haiku", cannot_build)
    hub.register_skill_admission(None, "haiku", other)

    admission = hub.admit_skill(Agent(hub=hub), "haiku")

    assert (admission.granted, admission.reason) == (False, INTERNAL_ERROR)
    assert admission.skill is None
    assert len(other.asked) == 1


@pytest.mark.parametrize("answer", [True, "ok", object()], ids=["True", "a string", "an object"])
def test_a_skill_answer_that_is_not_a_verdict_never_grants(hub: ToolHub, answer: Any) -> None:
    """Anything but a Verdict from a skill guardrail is an internal error, not a grant."""
    hub.register_skill_admission(None, "haiku", Rule(answer))

    admission = hub.admit_skill(Agent(hub=hub), "haiku")

    assert (admission.granted, admission.reason) == (False, INTERNAL_ERROR)


# -- the catalog bounds the door -----------------------------------------------------------------


def test_a_registered_skill_off_the_thinkers_catalog_is_never_granted(hub: ToolHub) -> None:
    """A skill the hub holds but the thinker's catalog lacks is refused; no rule is asked."""
    rule = Rule.grant()
    hub.register_skill_admission(None, "*", rule)
    thinker = Narrow(hub=hub)

    admission = hub.admit_skill(thinker, "refund")
    result = thinker.request_skill("refund")

    assert not admission.granted
    assert "catalog" in admission.reason
    assert [outcome.guardrail for outcome in admission.outcomes] == ["catalog"]
    assert not result.granted
    assert result.reason == admission.reason
    assert rule.asked == []
    assert attached(thinker) == []


def test_an_unknown_skill_name_is_refused(hub: ToolHub) -> None:
    """A name no skill source provides is refused with the catalog's reason."""
    result = Agent(hub=hub).request_skill("no-such-skill")

    assert not result.granted
    assert "catalog" in result.reason


def test_a_skill_withheld_by_reconcile_skill_catalog_is_not_granted(hub: ToolHub) -> None:
    """reconcile_skill_catalog narrows the turn's skill catalog, and the door with it."""

    class Quiet(Agent):
        def reconcile_skill_catalog(self, catalog: list[Skill]) -> list[Skill]:
            return [skill for skill in catalog if skill.name != "escalate"]

    thinker = Quiet(hub=hub)

    assert not thinker.request_skill("escalate").granted
    assert thinker.request_skill("triage").granted


# -- widening the skill catalog ------------------------------------------------------------------


def test_register_compatible_skills_before_resolution_widens_the_catalog(hub: ToolHub) -> None:
    """Skills registered for a class before its catalog is resolved join it when resolved."""
    extra = make_skill("tanka")
    hub.register_compatible_skills(Narrow, extra, "refund")

    thinker = Narrow(hub=hub)

    assert [skill.name for skill in thinker.skill_catalog()] == ["haiku", "tanka", "refund"]
    assert thinker.request_skill("tanka").granted


def test_register_compatible_skills_after_resolution_widens_a_running_thinker(
    hub: ToolHub,
) -> None:
    """A thinker built before the widening can be granted the new skill, without a rebuild."""
    thinker = Narrow(hub=hub)
    assert not thinker.request_skill("refund").granted

    hub.register_compatible_skills(Narrow, "refund")

    assert thinker.request_skill("refund").granted
    assert attached(thinker) == ["refund"]


def test_a_widening_name_the_registry_lacks_is_logged_and_skipped(
    hub: ToolHub, caplog: pytest.LogCaptureFixture
) -> None:
    """Naming a skill no source provides warns (naming it and the class) and changes nothing."""
    Narrow(hub=hub).skill_catalog()

    with caplog.at_level(logging.WARNING, logger="nucleo.hub"):
        hub.register_compatible_skills(Narrow, "missing-skill")

    assert [skill.name for skill in hub.compatible_skills(Narrow)] == ["haiku"]
    (record,) = [record for record in caplog.records if record.name == "nucleo.hub"]
    assert record.levelno == logging.WARNING
    assert "missing-skill" in record.getMessage()
    assert "Narrow" in record.getMessage()


# -- the reason reaches the model ----------------------------------------------------------------


def test_a_skill_refusal_reaches_the_model_through_the_request_skill_tool(hub: ToolHub) -> None:
    """Calling request_skill as the model does returns the refusal with its reason, as JSON."""
    hub.register_skill_admission(None, "refund", Rule.refuse("refunds need a human"))
    thinker = Agent(hub=hub)
    registry = thinker.reconcile_tool_registry()
    provider = registry.get("request_skill")
    assert provider is not None

    tool = registry.create_tool("request_skill", thinker)
    result = asyncio.run(run_tool(tool, provider.parse_input('{"skill": "refund"}')))

    assert result == RequestSkillResult(
        skill="refund", granted=False, reason="refunds need a human"
    )
    assert json.loads(str(result)) == {
        "skill": "refund",
        "granted": False,
        "reason": "refunds need a human",
    }


# -- the record ----------------------------------------------------------------------------------


def test_every_skill_grant_and_refusal_is_recorded(hub: ToolHub) -> None:
    """The record names the thinker, the skill, each guardrail asked and the reason."""
    hub.register_skill_admission(None, "refund", Rule.refuse("human only"), name="money")
    hub.register_skill_admission(None, "triage", Rule.grant(), name="support ok")
    thinker = Agent(hub=hub)

    thinker.request_skill("triage")
    thinker.request_skill("refund")
    thinker.request_skill("ghost")

    granted, refused, off_catalog = hub.admission_record
    assert (granted.kind, granted.name, granted.granted, granted.reason) == (
        "skill",
        "triage",
        True,
        "",
    )
    assert [outcome.guardrail for outcome in granted.outcomes] == ["support ok"]
    assert (refused.name, refused.granted, refused.reason) == ("refund", False, "human only")
    assert [outcome.guardrail for outcome in refused.outcomes] == ["money"]
    assert (off_catalog.kind, off_catalog.name, off_catalog.granted) == ("skill", "ghost", False)
    for event in (granted, refused, off_catalog):
        assert event.thinker_class == "Agent"
        assert event.thinker == repr(thinker)
        assert event.at.tzinfo is UTC


def test_a_crashed_skill_guardrail_is_on_the_record_with_its_error(hub: ToolHub) -> None:
    """The crash is recorded by rule name, with the error and no verdict."""
    hub.register_skill_admission(None, "haiku", Rule.crash("kaput"), name="fragile")

    hub.admit_skill(Agent(hub=hub), "haiku")

    (event,) = hub.admission_record
    (outcome,) = event.outcomes
    assert (event.granted, event.reason) == (False, INTERNAL_ERROR)
    assert (outcome.guardrail, outcome.verdict, outcome.error) == (
        "fragile",
        None,
        "RuntimeError: kaput",
    )


# -- a person asks (``nucleo run --skill``) --------------------------------------------------


def test_a_skill_kept_from_the_model_is_granted_to_a_person_through_the_same_rules() -> None:
    """``disable-model-invocation``: refused as off the catalog to the model, granted by_user."""
    kept = Skill(
        name="deploy",
        description="Deploy the service.",
        instructions="Deploy with the runbook.",
        disable_model_invocation=True,
    )
    hub = ToolHub(skills=SkillRegistry([kept, *SKILLS]))
    rule = Rule.grant()
    hub.register_skill_admission(None, "*", rule)
    thinker = Agent(hub=hub)
    by_model = thinker.request_skill("deploy")
    assert not by_model.granted
    assert by_model.reason == "no skill of that name is in this thinker's catalog"
    assert rule.asked_names == []
    assert thinker.request_skill("deploy", by_user=True).granted
    assert rule.asked_names == ["deploy"]
    assert attached(thinker) == ["deploy"]
    assert [(event.name, event.granted) for event in hub.admission_record][-2:] == [
        ("deploy", False),
        ("deploy", True),
    ]


def test_a_person_is_refused_what_a_rule_refuses() -> None:
    """``by_user`` widens only the catalog: a rule's refusal holds for a person too."""
    hub = ToolHub(skills=SkillRegistry(SKILLS))
    hub.register_skill_admission(None, "refund", Rule.refuse("refunds need a supervisor"))
    refused = Agent(hub=hub).request_skill("refund", by_user=True)
    assert (refused.granted, refused.reason) == (False, "refunds need a supervisor")
