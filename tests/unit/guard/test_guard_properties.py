"""Property tests of the guard: no rule and no hook answer ever undercuts the hooks' answers."""

from __future__ import annotations

from typing import Any

from _guard_kit import DELETE, LOOKUP, UNDECLARED, WRITE, Auditor, Reviewer, StrictReviewer
from hypothesis import given
from hypothesis import strategies as st

from nucleo_core import PluginHost, ToolHub, ToolProvider, hookimpl
from nucleo_core.guard import Decision, PermissionGuard, PermissionPolicy, PermissionRule

HUB = ToolHub()
THINKERS = [None, Reviewer(hub=HUB), StrictReviewer(hub=HUB), Auditor(hub=HUB)]
PROVIDERS: list[ToolProvider] = [LOOKUP, WRITE, DELETE, UNDECLARED]

#: What each of the three plugins answers in the current example.
ANSWERS: dict[str, Decision | None] = {}


class Plugin:
    def __init__(self, name: str) -> None:
        self.name = name

    @hookimpl
    def nucleo_permission(self) -> Any:
        return ANSWERS.get(self.name)


PLUGINS = ("one", "two", "three")
HOST = PluginHost(environment={})
for _name in PLUGINS:
    HOST.register_plugin(Plugin(_name), name=_name)

decisions = st.sampled_from(list(Decision))
rules = st.builds(
    PermissionRule,
    decision=decisions,
    thinker=st.sampled_from([None, Reviewer, StrictReviewer, Auditor, "*Review*"]),
    tool=st.sampled_from([None, "lookup", "*_note", "d*", "nothing"]),
    source=st.sampled_from([None, "native:*", "mcp:*"]),
    risk=st.sampled_from([None, "low", "medium", "high"]),
)
answers = st.lists(st.none() | decisions, min_size=3, max_size=3)


def decide(
    policy_rules: list[PermissionRule],
    hook_answers: list[Decision | None],
    thinker: Any,
    provider: ToolProvider,
) -> Decision:
    ANSWERS.clear()
    ANSWERS.update(zip(PLUGINS, hook_answers, strict=True))
    guard = PermissionGuard(PermissionPolicy(policy_rules), HOST)
    return guard.decide(thinker, provider, {}).decision


def floor(hook_answers: list[Decision | None]) -> Decision:
    return Decision.most_restrictive(Decision.AUTO, *(a for a in hook_answers if a is not None))


@given(
    st.lists(rules, max_size=4),
    rules,
    answers,
    st.sampled_from(THINKERS),
    st.sampled_from(PROVIDERS),
)
def test_adding_a_rule_never_undercuts_the_hooks_most_restrictive_answer(
    policy_rules: list[PermissionRule],
    extra: PermissionRule,
    hook_answers: list[Decision | None],
    thinker: Any,
    provider: ToolProvider,
) -> None:
    """With or without one more rule, the decision is at least every hook's answer."""
    for chosen in (policy_rules, [*policy_rules, extra]):
        decided = decide(chosen, hook_answers, thinker, provider)
        assert decided >= floor(hook_answers)
        assert decided >= PermissionPolicy(chosen).decide(thinker, provider).decision


@given(
    st.lists(rules, max_size=4),
    answers,
    st.integers(0, 2),
    decisions,
    st.sampled_from(THINKERS),
    st.sampled_from(PROVIDERS),
)
def test_adding_a_hook_answer_never_loosens_the_decision(
    policy_rules: list[PermissionRule],
    hook_answers: list[Decision | None],
    slot: int,
    added: Decision,
    thinker: Any,
    provider: ToolProvider,
) -> None:
    """Replacing one hook's answer by a stricter-or-equal one never lowers the decision."""
    before = decide(policy_rules, hook_answers, thinker, provider)
    tightened = list(hook_answers)
    previous = tightened[slot]
    tightened[slot] = added if previous is None else max(previous, added)
    after = decide(policy_rules, tightened, thinker, provider)
    assert after >= before
    assert after >= floor(tightened)
