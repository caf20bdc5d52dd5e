"""Unit tests of `PermissionGuard` with real pluggy plugins on a real `PluginHost`.

The most restrictive answer wins; a hook that raises, hangs past the limit or answers garbage
denies with an internal error, reported with its plugin and distribution.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from _guard_kit import DELETE, LOOKUP, WRITE

from nucleo_core import PluginHost, ToolProvider, Verdict, hookimpl
from nucleo_core.guard import Decision, PermissionGuard, PermissionPolicy
from nucleo_core.plugins import PluginError

INTERNAL = (
    "Calling '{}' is denied: a permission check failed with an internal error; choose another "
    "tool, or do the task without it."
)
SECRET = {"query": "hunter2-s3cret"}


class Answers:
    """A plugin answering what it is told, and remembering the calls it was asked about."""

    def __init__(self, answer: object) -> None:
        self.answer = answer
        self.asked: list[tuple[str, dict[str, Any]]] = []

    @hookimpl
    def nucleo_permission(self, provider: ToolProvider, arguments: Any) -> Any:
        self.asked.append((provider.name, dict(arguments)))
        return self.answer


class Raises:
    """A plugin whose hook raises, with a secret in its message."""

    @hookimpl
    def nucleo_permission(self, arguments: Any) -> Any:
        raise RuntimeError(f"broken while reading {arguments['query']}")


class Hangs:
    """A plugin whose hook waits until released (the test releases it when done)."""

    def __init__(self) -> None:
        self.release = threading.Event()

    @hookimpl
    def nucleo_permission(self) -> Any:
        self.release.wait(30)
        return "auto"


def host_with(*plugins: tuple[str, object], strict: bool = False) -> PluginHost:
    host = PluginHost(environment={}, strict=strict)
    for name, plugin in plugins:
        host.register_plugin(plugin, name=name, distribution=f"{name}-dist")
    return host


@pytest.fixture
def hangs() -> Iterator[Hangs]:
    plugin = Hangs()
    yield plugin
    plugin.release.set()


def test_without_permission_hooks_the_policy_decides_alone() -> None:
    """No plugin implements the hook: the decision is the policy's and nothing is asked."""
    guard = PermissionGuard(PermissionPolicy(), host_with())
    decided = guard.decide(None, LOOKUP, SECRET)
    assert decided == PermissionPolicy().decide(None, LOOKUP)
    assert decided.answers == ()
    assert decided.policy is None


def test_a_hook_can_tighten_the_policy() -> None:
    """A deny answer denies a low-risk call; the record names the plugin."""
    plugin = Answers("deny")
    decided = PermissionGuard(host=host_with(("acme", plugin))).decide(None, LOOKUP, SECRET)
    assert (decided.decision, decided.decided_by) == (Decision.DENY, "hook:acme")
    assert decided.reason == (
        "Calling 'lookup' is denied by the permission policy; choose another tool, or do the "
        "task without it."
    )
    assert decided.policy is not None
    assert decided.policy.decision is Decision.AUTO
    assert plugin.asked == [("lookup", SECRET)]


@pytest.mark.parametrize("answer", ["auto", Decision.AUTO, None])
def test_a_hook_cannot_loosen_the_policy(answer: object) -> None:
    """An auto answer (or none) from a hook leaves a high-risk call at the policy's confirm."""
    decided = PermissionGuard(host=host_with(("acme", Answers(answer)))).decide(None, DELETE, {})
    assert (decided.decision, decided.decided_by) == (Decision.CONFIRM, "default:risk=high")


def test_the_most_restrictive_of_several_hooks_wins() -> None:
    """notify, confirm and auto answers: confirm wins, and every answer is on the decision."""
    host = host_with(
        ("first", Answers("notify")), ("second", Answers("confirm")), ("third", Answers("auto"))
    )
    decided = PermissionGuard(host=host).decide(None, LOOKUP, {})
    assert (decided.decision, decided.decided_by) == (Decision.CONFIRM, "hook:second")
    assert [(a.plugin, a.decision) for a in decided.answers] == [
        ("first", Decision.NOTIFY),
        ("second", Decision.CONFIRM),
        ("third", Decision.AUTO),
    ]


def test_a_raising_hook_denies_and_the_others_are_still_asked(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A crash denies with an internal error; its message stays in the developer's detail."""
    after = Answers(None)
    host = host_with(("broken", Raises()), ("after", after))
    with caplog.at_level(logging.WARNING, logger="nucleo_core.plugins"):
        decided = PermissionGuard(host=host).decide(None, LOOKUP, SECRET)
    assert (decided.decision, decided.decided_by) == (Decision.DENY, "hook:broken")
    assert decided.reason == INTERNAL.format("lookup")
    assert "hunter2" not in decided.reason
    assert decided.detail.startswith("plugin broken (broken-dist): raised in nucleo_permission")
    assert after.asked == [("lookup", SECRET)]
    record = host.record("broken")
    assert record is not None
    assert record.hook_errors[0].startswith("raised in nucleo_permission")
    assert "broken (broken-dist)" in caplog.text


@pytest.mark.parametrize("garbage", ["Deny", "allow", True, 1, Verdict.grant(), ["deny"], object()])
def test_a_garbage_answer_denies(garbage: object) -> None:
    """Anything but a decision or None counts as deny, never as auto, with the plugin named."""
    host = host_with(("odd", Answers(garbage)))
    decided = PermissionGuard(host=host).decide(None, LOOKUP, {})
    assert (decided.decision, decided.decided_by) == (Decision.DENY, "hook:odd")
    assert decided.reason == INTERNAL.format("lookup")
    assert "returned the wrong type from nucleo_permission" in decided.detail
    (answer,) = decided.answers
    assert (answer.plugin, answer.distribution, answer.decision) == ("odd", "odd-dist", None)


def test_a_hanging_hook_denies_at_the_time_limit_naming_the_plugin(
    hangs: Hangs, caplog: pytest.LogCaptureFixture
) -> None:
    """Past hook_timeout the call is denied, naming the hook waited for; earlier answers stay."""
    host = host_with(("quick", Answers("notify")), ("slow", hangs))
    guard = PermissionGuard(host=host, hook_timeout=0.2)
    with caplog.at_level(logging.WARNING, logger="nucleo.guard"):
        decided = guard.decide(None, LOOKUP, {})
    assert (decided.decision, decided.decided_by) == (Decision.DENY, "hook:slow")
    assert decided.reason == INTERNAL.format("lookup")
    assert decided.detail == "plugin slow (slow-dist): no answer within 0.2 s"
    assert [(a.plugin, a.decision, a.error) for a in decided.answers] == [
        ("quick", Decision.NOTIFY, None),
        ("slow", None, "no answer within 0.2 s"),
    ]
    assert "plugin slow (slow-dist): no answer within 0.2 s" in caplog.text


def test_a_hook_gets_the_arguments_read_only() -> None:
    """A hook that tries to change the arguments fails (and so denies); they stay as sent."""

    class Mutates:
        @hookimpl
        def nucleo_permission(self, arguments: Any) -> Any:
            arguments["query"] = "changed"
            return "auto"

    arguments = {"query": "original"}
    decided = PermissionGuard(host=host_with(("mutates", Mutates()))).decide(None, WRITE, arguments)
    assert decided.decision is Decision.DENY
    assert arguments == {"query": "original"}


def test_a_strict_host_raises_the_hooks_failure() -> None:
    """strict=True makes a failing permission hook fatal, as it does for every hook."""
    guard = PermissionGuard(host=host_with(("broken", Raises()), strict=True))
    with pytest.raises(PluginError, match="broken"):
        guard.decide(None, LOOKUP, SECRET)


@pytest.mark.parametrize("timeout", [0, -1, float("inf"), True, "5"])
def test_the_time_limit_must_be_a_positive_finite_number(timeout: Any) -> None:
    """hook_timeout is checked when the guard is built."""
    with pytest.raises(ValueError, match="hook_timeout must be a positive, finite number"):
        PermissionGuard(hook_timeout=timeout)
