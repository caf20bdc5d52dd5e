"""Tool admission: the one door every ``request_tools`` grant goes through (seeds 000, 001).

Rules registered on the hub (for a thinker class or every thinker; matched by tool class,
function, name, glob or a predicate over the provider; a factory building a fresh guardrail per
check), the guardrails a tool declares itself, and ``nucleo_admit_tool`` hook implementations
are all asked; a tool is granted only when every one passes. A refusal's reason reaches the
model; a guardrail that raises reaches it as an internal error, never as a verdict, and the
others are still asked. Every grant and refusal is on the record.
"""

import asyncio
import json
import logging
import types
from datetime import UTC
from typing import Any

import pytest
from _hub_kit import (
    INTERNAL_ERROR,
    AdmitHook,
    Deploy,
    Rule,
    Summarize,
    github_issues,
    github_pulls,
    lookup,
    write_record,
)

from nucleo_core import (
    ThinkerBase,
    ToolHub,
    ToolProvider,
    ToolSelector,
    UnknownTool,
    Verdict,
    hookimpl,
    run_tool,
    tool,
)
from nucleo_core.hub import AdmissionRule, Refusal, RequestToolsResult

CATALOG: list[Any] = [lookup, write_record, github_issues, github_pulls, Deploy, Summarize]
ALL_NAMES = ["lookup", "write_record", "github_issues", "github_pulls", "deploy", "summarize"]


class Researcher(ThinkerBase):
    """A thinker whose catalog holds every sample tool."""

    @classmethod
    def declare_compatible_tools(cls) -> ToolSelector:
        return ToolSelector.of(CATALOG)


class Junior(Researcher):
    """A subclass of Researcher, with the same catalog."""


class Reviewer(ThinkerBase):
    """An unrelated thinker class with the same catalog."""

    @classmethod
    def declare_compatible_tools(cls) -> ToolSelector:
        return ToolSelector.of(CATALOG)


@pytest.fixture
def hub() -> ToolHub:
    """A fresh hub: no test shares catalogs, rules or the record with another."""
    return ToolHub()


def granted_names(result: RequestToolsResult) -> set[str]:
    return set(result.granted)


def refused_names(result: RequestToolsResult) -> set[str]:
    return {refusal.name for refusal in result.refused}


# -- the plain grant -----------------------------------------------------------------------------


def test_a_catalog_tool_no_guardrail_objects_to_is_granted_into_the_palette(hub: ToolHub) -> None:
    """With no applicable guardrail, a requested catalog tool is granted and joins the palette."""
    thinker = Researcher(hub=hub)
    thinker.reconcile_tool_registry()

    result = thinker.request_tools(["lookup"])

    assert result == RequestToolsResult(granted=("lookup",), refused=())
    assert thinker.check_call("lookup").name == "lookup"


def test_an_admitted_tool_is_callable_from_the_next_turn_and_stays(hub: ToolHub) -> None:
    """Before the grant a call is unknown; after it the spec is sent and survives re-assembly."""
    thinker = Researcher(hub=hub)
    registry = thinker.reconcile_tool_registry()
    with pytest.raises(UnknownTool):
        thinker.check_call("summarize")

    thinker.request_tools(["summarize"])
    thinker.reconcile_tool_registry()

    assert "summarize" in [spec.name for spec in registry.specs()]
    provider = thinker.check_call("summarize")
    assert provider.name == "summarize"
    call = registry.create_tool("summarize", thinker)
    assert call.run(provider.parse_input({"text": "abc"})) == "abc"


def test_a_tool_put_in_the_registry_behind_the_palette_s_back_is_judged_not_read_as_held(
    hub: ToolHub,
) -> None:
    """A tool registered into the thinker's registry directly is asked for, and refused."""
    hub.register_admission(None, "deploy", Rule.refuse("needs a human"))
    thinker = Researcher(hub=hub)
    thinker.reconcile_tool_registry()
    thinker._registry.register(Deploy)  # what a subclass or plugin writing to it would do

    result = thinker.request_tools(["deploy", "lookup"])

    assert result.granted == ("lookup",)
    assert [(r.name, r.reason) for r in result.refused] == [("deploy", "needs a human")]
    with pytest.raises(UnknownTool):
        thinker.check_call("deploy")


# -- what a rule matches -------------------------------------------------------------------------


def _not_read_only(provider: ToolProvider) -> bool:
    return not provider.read_only


@pytest.mark.parametrize(
    ("match", "matched"),
    [
        (Deploy, {"deploy"}),
        (write_record, {"write_record"}),
        ("lookup", {"lookup"}),
        ("github_*", {"github_issues", "github_pulls"}),
        (_not_read_only, {"write_record", "deploy"}),
    ],
    ids=["tool class", "tool function", "name", "glob", "predicate"],
)
def test_a_rule_is_asked_about_exactly_the_tools_it_matches(
    hub: ToolHub, match: Any, matched: set[str]
) -> None:
    """A rule matches by tool class, @tool function, exact name, glob, or provider predicate."""
    rule = Rule.refuse("not for you")
    hub.register_admission(None, match, rule)
    thinker = Researcher(hub=hub)

    result = thinker.request_tools(ALL_NAMES)

    assert set(rule.asked_names) == matched
    assert refused_names(result) == matched
    assert granted_names(result) == set(ALL_NAMES) - matched


def test_a_predicate_rule_applies_to_function_tools_as_well_as_class_tools(hub: ToolHub) -> None:
    """A predicate over the provider is asked about every requested tool, functions included."""
    seen: list[str] = []

    def every_tool(provider: ToolProvider) -> bool:
        seen.append(provider.name)
        return True

    rule = Rule.refuse("everything needs a ticket")
    hub.register_admission(None, every_tool, rule)
    thinker = Researcher(hub=hub)

    result = thinker.request_tools(["lookup", "deploy"])

    assert seen == ["lookup", "deploy"]
    assert rule.asked_names == ["lookup", "deploy"]
    assert result.granted == ()


def test_a_predicate_receives_the_requested_tools_provider(hub: ToolHub) -> None:
    """The predicate is called with the provider of the tool being requested."""
    seen: list[ToolProvider] = []

    def every_tool(provider: ToolProvider) -> bool:
        seen.append(provider)
        return True

    hub.register_admission(None, every_tool, Rule.grant())
    thinker = Researcher(hub=hub)
    catalog = {provider.name: provider for provider in thinker.tool_catalog()}

    thinker.request_tools(["summarize"])

    assert seen == [catalog["summarize"]]


def test_a_tool_function_used_as_a_match_is_never_called_as_a_predicate(hub: ToolHub) -> None:
    """A @tool function matches its own provider only; it is not run against other tools."""
    rule = Rule.refuse("no writes")
    hub.register_admission(None, write_record, rule)
    thinker = Researcher(hub=hub)

    result = thinker.request_tools(["deploy", "summarize"])

    assert rule.asked == []
    assert result.granted == ("deploy", "summarize")


def test_a_rule_for_a_thinker_class_applies_to_it_and_its_subclasses_only(hub: ToolHub) -> None:
    """A rule registered for a class is asked for its instances and subclasses', not others'."""
    rule = Rule.refuse("researchers may not deploy")
    hub.register_admission(Researcher, "deploy", rule)

    assert Researcher(hub=hub).request_tools(["deploy"]).granted == ()
    assert Junior(hub=hub).request_tools(["deploy"]).granted == ()
    assert Reviewer(hub=hub).request_tools(["deploy"]).granted == ("deploy",)
    assert [type(thinker) for thinker, _ in rule.asked] == [Researcher, Junior]


def test_a_rule_for_no_thinker_class_applies_to_every_thinker(hub: ToolHub) -> None:
    """A rule registered for None is asked whatever the requesting thinker's class."""
    rule = Rule.refuse("nobody deploys on Fridays")
    hub.register_admission(None, "deploy", rule)

    for thinker in (Researcher(hub=hub), Junior(hub=hub), Reviewer(hub=hub)):
        assert thinker.request_tools(["deploy"]).granted == ()
    assert len(rule.asked) == 3


def test_register_admission_returns_the_rule_it_added(hub: ToolHub) -> None:
    """The rule is returned with its thinker class, match, factory and record name."""
    factory = Rule.grant()

    named = hub.register_admission(Researcher, "github_*", factory, name="code access")
    derived = hub.register_admission(None, Deploy, factory)

    assert named == AdmissionRule(Researcher, "github_*", factory, "code access")
    assert derived.thinker_class is None
    assert derived.match is Deploy
    assert derived.name  # derived when omitted, so the record always names the rule


# -- the factory: a fresh guardrail per check ----------------------------------------------------


def test_the_factory_builds_a_fresh_guardrail_for_every_check(hub: ToolHub) -> None:
    """Each check calls the factory again, with the requesting thinker; nothing is reused."""
    rule = Rule.grant()
    hub.register_admission(None, "github_*", rule)
    first, second = Researcher(hub=hub), Reviewer(hub=hub)

    first.request_tools(["github_issues"])
    second.request_tools(["github_issues", "github_pulls"])
    hub.admit_tool(first, "github_pulls")

    assert [guardrail.thinker for guardrail in rule.built] == [first, second, second, first]
    assert len({id(guardrail) for guardrail in rule.built}) == 4
    assert rule.asked_names == ["github_issues", "github_issues", "github_pulls", "github_pulls"]


# -- guardrails a tool declares itself -----------------------------------------------------------


def test_a_tools_declared_guardrail_is_built_for_the_thinker_and_asked(hub: ToolHub) -> None:
    """@tool(guardrails=...) factories are called with the thinker and asked about the tool."""
    declared = Rule.refuse("the vault needs a second signature")

    @tool(read_only=True, guardrails=[declared])
    def open_vault(slot: int) -> str:
        """Open a vault slot."""
        return str(slot)

    class Banker(ThinkerBase):
        @classmethod
        def declare_compatible_tools(cls) -> ToolSelector:
            return ToolSelector.of([open_vault, lookup])

    thinker = Banker(hub=hub)
    result = thinker.request_tools(["open_vault", "lookup"])

    assert result.refused == (Refusal("open_vault", "the vault needs a second signature"),)
    assert result.granted == ("lookup",)
    assert [guardrail.thinker for guardrail in declared.built] == [thinker]
    ((asker, provider),) = declared.asked
    assert asker is thinker
    assert provider.name == "open_vault"


def test_declared_guardrails_run_with_the_hubs_rules(hub: ToolHub) -> None:
    """A tool's own guardrails and the hub's rules are all asked, and all must pass."""
    declared = Rule.grant()

    @tool(guardrails=[declared])
    def rotate_keys(service: str) -> str:
        """Rotate a service's keys."""
        return service

    class Operator(ThinkerBase):
        @classmethod
        def declare_compatible_tools(cls) -> ToolSelector:
            return ToolSelector.of([rotate_keys])

    hub_rule = Rule.refuse("key rotation is change-managed")
    hub.register_admission(None, "rotate_keys", hub_rule)

    admission = hub.admit_tool(Operator(hub=hub), "rotate_keys")

    assert not admission.granted
    assert admission.reason == "key rotation is change-managed"
    assert len(declared.asked) == 1
    assert len(hub_rule.asked) == 1
    assert [outcome.guardrail for outcome in admission.outcomes][1] == (
        "rotate_keys declared guardrail 1"
    )


# -- hook implementations ------------------------------------------------------------------------


def test_a_hook_objects_refusal_reaches_the_model(hub: ToolHub) -> None:
    """A nucleo_admit_tool implementation registered on the hub's host refuses with its reason."""
    hook = AdmitHook(Verdict.refuse("policy: no production access"))
    hub.plugins.register_plugin(hook, name="policy")
    thinker = Researcher(hub=hub)

    result = thinker.request_tools(["deploy"])

    assert result.refused == (Refusal("deploy", "policy: no production access"),)
    assert [(asker, provider.name) for asker, provider in hook.asked] == [(thinker, "deploy")]


def test_a_hook_module_is_asked_too(hub: ToolHub) -> None:
    """A module implementing nucleo_admit_tool, registered with register_plugin, is asked."""
    asked: list[str] = []

    @hookimpl
    def nucleo_admit_tool(thinker: Any, provider: ToolProvider) -> Verdict | None:
        asked.append(provider.name)
        return Verdict.refuse("modules say no") if provider.name == "deploy" else None

    module = types.ModuleType("hub_admission_policy")
    module.nucleo_admit_tool = nucleo_admit_tool  # type: ignore[attr-defined]
    record = hub.plugins.register_plugin(module)
    thinker = Researcher(hub=hub)

    result = thinker.request_tools(["deploy", "lookup"])

    assert record.status == "loaded"
    assert asked == ["deploy", "lookup"]
    assert result.refused == (Refusal("deploy", "modules say no"),)
    assert result.granted == ("lookup",)


@pytest.mark.parametrize("answer", [None, Verdict.grant()], ids=["no opinion", "grant"])
def test_a_hook_with_no_opinion_or_a_grant_does_not_block(hub: ToolHub, answer: Any) -> None:
    """None is no opinion and a grant passes; neither refuses the tool."""
    hub.plugins.register_plugin(AdmitHook(answer), name="quiet")

    assert Researcher(hub=hub).request_tools(["deploy"]).granted == ("deploy",)


@pytest.mark.parametrize(
    "answer",
    [RuntimeError("hook exploded: secret-detail-42"), "yes please"],
    ids=["raises", "wrong type"],
)
def test_a_failing_hook_refuses_as_an_internal_error(hub: ToolHub, answer: Any) -> None:
    """A hook that raises or answers a non-verdict refuses with the internal-error text."""
    hub.plugins.register_plugin(AdmitHook(answer), name="broken")
    thinker = Researcher(hub=hub)

    admission = hub.admit_tool(thinker, "deploy")

    assert not admission.granted
    assert admission.reason == INTERNAL_ERROR
    (outcome,) = admission.outcomes
    assert outcome.verdict is None
    assert outcome.error
    assert outcome.guardrail == "hook broken"


# -- all must pass -------------------------------------------------------------------------------


def test_a_tool_is_granted_only_when_every_applicable_guardrail_passes(hub: ToolHub) -> None:
    """Every grant but one refusal is a refusal; every grant is a grant."""
    for _ in range(3):
        hub.register_admission(None, "github_*", Rule.grant())
    hub.register_admission(None, "github_pulls", Rule.refuse("pull requests are private"))
    thinker = Researcher(hub=hub)

    result = thinker.request_tools(["github_issues", "github_pulls"])

    assert result.granted == ("github_issues",)
    assert result.refused == (Refusal("github_pulls", "pull requests are private"),)


def test_every_refusal_reason_reaches_the_model(hub: ToolHub) -> None:
    """When several guardrails refuse, the model is told each reason."""
    hub.register_admission(None, "deploy", Rule.refuse("needs a change ticket"))
    hub.plugins.register_plugin(AdmitHook(Verdict.refuse("outside business hours")), name="hours")

    admission = hub.admit_tool(Researcher(hub=hub), "deploy")

    assert not admission.granted
    assert "needs a change ticket" in admission.reason
    assert "outside business hours" in admission.reason
    assert [outcome.refuses for outcome in admission.outcomes] == [True, True]


def test_a_refusal_needs_a_reason() -> None:
    """Verdict.refuse without a reason is refused: the model must be told why."""
    with pytest.raises(ValueError, match="reason"):
        Verdict.refuse("")


# -- a guardrail that raises ---------------------------------------------------------------------


def test_a_raising_guardrail_never_grants_and_the_others_are_still_asked(
    hub: ToolHub, caplog: pytest.LogCaptureFixture
) -> None:
    """A crash refuses as an internal error; all other guardrails are asked."""
    declared = Rule.grant()

    @tool(read_only=True, guardrails=[declared])
    def audit_log(day: str) -> str:
        """Read the audit log of one day."""
        return day

    class Auditor(ThinkerBase):
        @classmethod
        def declare_compatible_tools(cls) -> ToolSelector:
            return ToolSelector.of([audit_log])

    before, crash, after = Rule.grant(), Rule.crash(), Rule.grant()
    for rule in (before, crash, after):
        hub.register_admission(None, "audit_log", rule)
    hook = AdmitHook(Verdict.grant())
    hub.plugins.register_plugin(hook, name="hook")
    thinker = Auditor(hub=hub)

    with caplog.at_level(logging.INFO, logger="nucleo.hub"):
        result = thinker.request_tools(["audit_log"])

    assert result.granted == ()
    assert result.refused == (Refusal("audit_log", INTERNAL_ERROR),)
    assert "secret-detail-42" not in str(result)
    assert [len(r.asked) for r in (before, crash, after, declared)] == [1, 1, 1, 1]
    assert len(hook.asked) == 1
    assert "audit_log" not in thinker.registry
    crashes = [record for record in caplog.records if record.exc_info]
    assert len(crashes) == 1
    assert crashes[0].levelno == logging.ERROR
    assert isinstance(crashes[0].exc_info[1], RuntimeError)  # type: ignore[index]


def test_a_crash_is_recorded_as_an_error_never_as_a_verdict(hub: ToolHub) -> None:
    """The crashing guardrail's outcome carries the error and no verdict."""
    hub.register_admission(None, "deploy", Rule.crash("boom"), name="flaky")

    admission = hub.admit_tool(Researcher(hub=hub), "deploy")

    (outcome,) = admission.outcomes
    assert outcome.guardrail == "flaky"
    assert outcome.verdict is None
    assert outcome.error == "RuntimeError: boom"
    assert outcome.refuses
    assert admission.provider is None


def test_a_factory_that_raises_is_an_internal_error_too(hub: ToolHub) -> None:
    """A guardrail that cannot even be built refuses as an internal error; others are asked."""

    def cannot_build(thinker: object) -> Any:
        raise LookupError("no credentials: secret-detail-42")

    other = Rule.grant()
    hub.register_admission(None, "deploy", cannot_build)
    hub.register_admission(None, "deploy", other)

    admission = hub.admit_tool(Researcher(hub=hub), "deploy")

    assert not admission.granted
    assert admission.reason == INTERNAL_ERROR
    assert len(other.asked) == 1


@pytest.mark.parametrize("answer", [True, "granted", 1], ids=["True", "a string", "1"])
def test_an_answer_that_is_not_a_verdict_never_grants(hub: ToolHub, answer: Any) -> None:
    """A truthy answer that is not a Verdict is an internal error, not a grant."""
    hub.register_admission(None, "deploy", Rule(answer))

    admission = hub.admit_tool(Researcher(hub=hub), "deploy")

    assert not admission.granted
    assert admission.reason == INTERNAL_ERROR


# -- the reason reaches the model ----------------------------------------------------------------


def test_a_refusal_reaches_the_model_through_the_request_tools_tool(hub: ToolHub) -> None:
    """Calling request_tools as the model does returns the refusal, named, with its reason."""
    hub.register_admission(None, "deploy", Rule.refuse("deploys go through the release bot"))
    thinker = Researcher(hub=hub)
    registry = thinker.reconcile_tool_registry()
    provider = registry.get("request_tools")
    assert provider is not None

    meta = registry.create_tool("request_tools", thinker)
    result = asyncio.run(run_tool(meta, provider.parse_input('{"tools": ["deploy", "lookup"]}')))

    assert result == RequestToolsResult(
        granted=("lookup",),
        refused=(Refusal("deploy", "deploys go through the release bot"),),
    )
    assert json.loads(str(result)) == {
        "granted": ["lookup"],
        "refused": [{"name": "deploy", "reason": "deploys go through the release bot"}],
    }


def test_a_refused_tool_does_not_join_the_palette(hub: ToolHub) -> None:
    """A refusal leaves the registry as it was, and a call to the tool is unknown."""
    hub.register_admission(None, "deploy", Rule.refuse("no"))
    thinker = Researcher(hub=hub)
    before = thinker.reconcile_tool_registry().names()

    thinker.request_tools(["deploy"])

    assert thinker.registry.names() == before
    with pytest.raises(UnknownTool):
        thinker.check_call("deploy")


def test_a_name_already_in_the_palette_reads_as_admitted_without_asking_again(
    hub: ToolHub,
) -> None:
    """Asking again for a granted tool is granted, and no guardrail is asked a second time."""
    rule = Rule.grant()
    hub.register_admission(None, "lookup", rule)
    thinker = Researcher(hub=hub)

    first = thinker.request_tools(["lookup"])
    second = thinker.request_tools(["lookup"])

    assert first.granted == second.granted == ("lookup",)
    assert len(rule.asked) == 1
    assert len(hub.admission_record) == 1


def test_a_default_tool_requested_by_name_reads_as_admitted(hub: ToolHub) -> None:
    """A tool the palette already holds by declaration reads as granted, with no admission."""

    class Holder(Researcher):
        @classmethod
        def declare_default_tools(cls) -> list[Any]:
            return [lookup]

    thinker = Holder(hub=hub)
    thinker.reconcile_tool_registry()

    assert thinker.request_tools(["lookup"]).granted == ("lookup",)
    assert hub.admission_record == ()


# -- the catalog bounds the door -----------------------------------------------------------------


def test_a_name_off_the_catalog_is_refused_whatever_the_guardrails_say(hub: ToolHub) -> None:
    """No rule is asked about a name off the catalog; it is refused with the catalog's reason."""

    @tool(read_only=True)
    def shell(command: str) -> str:
        """Run a shell command."""
        return command

    rule = Rule.grant()
    hub.register_admission(None, "*", rule)
    hub.register_system_wide_tool(lookup)
    thinker = Reviewer(hub=hub)

    admission = hub.admit_tool(thinker, "shell")
    result = thinker.request_tools(["shell", "no_such_tool"])

    assert not admission.granted
    assert "catalog" in admission.reason
    assert [outcome.guardrail for outcome in admission.outcomes] == ["catalog"]
    assert refused_names(result) == {"shell", "no_such_tool"}
    assert rule.asked == []
    assert "shell" not in thinker.registry


def test_a_tool_withheld_by_reconcile_catalog_is_neither_listed_nor_admitted(
    hub: ToolHub,
) -> None:
    """reconcile_catalog narrows the turn's catalog: the schema and the door both lose the tool."""

    class Cautious(Researcher):
        def reconcile_catalog(self, catalog: list[ToolProvider]) -> list[ToolProvider]:
            return [provider for provider in catalog if provider.name != "deploy"]

    thinker = Cautious(hub=hub)
    registry = thinker.reconcile_tool_registry()
    offered = registry.get("request_tools")

    assert offered is not None
    assert "deploy" not in offered.members  # type: ignore[attr-defined]
    assert not hub.admit_tool(thinker, "deploy").granted
    assert thinker.request_tools(["deploy"]).granted == ()


def test_a_tool_withheld_by_a_reconcile_hook_is_neither_listed_nor_admitted(hub: ToolHub) -> None:
    """A nucleo_reconcile_catalog implementation withholds a tool from the offer and the door."""

    class Withhold:
        @hookimpl
        def nucleo_reconcile_catalog(self, thinker: Any, catalog: Any) -> list[str]:
            return ["deploy"]

    hub.plugins.register_plugin(Withhold(), name="withhold")
    thinker = Researcher(hub=hub)
    offered = thinker.reconcile_tool_registry().get("request_tools")

    assert offered is not None
    assert "deploy" not in offered.members  # type: ignore[attr-defined]
    assert thinker.request_tools(["deploy"]).granted == ()


# -- the record ----------------------------------------------------------------------------------


def test_every_grant_and_refusal_is_recorded_with_who_what_which_guardrail_and_why(
    hub: ToolHub,
) -> None:
    """The admission record names the thinker, the tool, each guardrail and the reason."""
    hub.register_admission(None, "deploy", Rule.refuse("not today"), name="change freeze")
    hub.register_admission(None, "lookup", Rule.grant(), name="glossary ok")
    thinker = Researcher(hub=hub)

    thinker.request_tools(["lookup", "deploy", "nope"])

    granted, refused, off_catalog = hub.admission_record
    assert (granted.kind, granted.name, granted.granted, granted.reason) == (
        "tool",
        "lookup",
        True,
        "",
    )
    assert [outcome.guardrail for outcome in granted.outcomes] == ["glossary ok"]
    assert (refused.name, refused.granted, refused.reason) == ("deploy", False, "not today")
    assert [outcome.guardrail for outcome in refused.outcomes] == ["change freeze"]
    assert (off_catalog.name, off_catalog.granted) == ("nope", False)
    for event in (granted, refused, off_catalog):
        assert event.thinker_class == "Researcher"
        assert event.thinker == repr(thinker)
        assert event.at.tzinfo is UTC


def test_a_crash_is_on_the_record_with_its_error(hub: ToolHub) -> None:
    """A crashed guardrail is recorded by name, with the error, as a refusal."""
    hub.register_admission(None, "deploy", Rule.crash("kaput"), name="fragile")

    hub.admit_tool(Researcher(hub=hub), "deploy")

    (event,) = hub.admission_record
    assert not event.granted
    assert event.reason == INTERNAL_ERROR
    (outcome,) = event.outcomes
    assert (outcome.guardrail, outcome.error) == ("fragile", "RuntimeError: kaput")


def test_grants_and_refusals_are_logged(hub: ToolHub, caplog: pytest.LogCaptureFixture) -> None:
    """A grant and a refusal (with its reason) are each logged on nucleo.hub."""
    hub.register_admission(None, "deploy", Rule.refuse("frozen"))
    thinker = Researcher(hub=hub)

    with caplog.at_level(logging.INFO, logger="nucleo.hub"):
        thinker.request_tools(["lookup", "deploy"])

    records = [record for record in caplog.records if record.name == "nucleo.hub"]
    assert len(records) == 2
    assert all(record.levelno >= logging.INFO for record in records)
    assert "lookup" in records[0].getMessage()
    assert "deploy" in records[1].getMessage()
    assert "frozen" in records[1].getMessage()
