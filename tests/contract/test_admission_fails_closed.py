"""Admission fails closed, and every name's decision is on the record.

Malformed verdicts, crashing reconcile hooks and match predicates, and guardrails that hang or
answer too late never grant.

These pin leaks 2, 4, 5 and 6 of the issue "Governance holds on every path".
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path
from typing import Any

import pytest
from _hub_kit import INTERNAL_ERROR, Deploy, Rule, lookup, write_record

from nucleo_core import ThinkerBase, ToolHub, ToolProvider, ToolSelector, Verdict, hookimpl
from nucleo_core.hub import RequestToolsResult
from nucleo_core.tools import run_tool


class Operator(ThinkerBase):
    """A thinker whose catalog holds a read-only lookup, a mutating write and a deploy."""

    @classmethod
    def declare_compatible_tools(cls) -> ToolSelector:
        return ToolSelector.of([lookup, write_record, Deploy])


@pytest.fixture
def hub() -> ToolHub:
    """A fresh hub with a short admission time limit, so a hang is decided quickly."""
    return ToolHub(admission_timeout=0.5)


# -- leak 4: verdicts are checked by their values, not their type ----------------------------


def test_a_verdict_whose_granted_is_not_a_bool_cannot_be_made() -> None:
    """Verdict(granted="false") raises at once: a string is never read as a decision."""
    with pytest.raises(TypeError, match=r"granted must be a bool"):
        Verdict(granted="false")  # type: ignore[arg-type]  # the misuse under test
    with pytest.raises(TypeError, match=r"reason must be a str"):
        Verdict(granted=False, reason=42)  # type: ignore[arg-type]  # the misuse under test


class _ForgedVerdict:
    """A guardrail that forges a Verdict past its checks, as a buggy plugin could."""

    def check(self, subject: Any) -> Verdict:
        forged = object.__new__(Verdict)
        object.__setattr__(forged, "granted", "false")
        object.__setattr__(forged, "reason", "")
        return forged


def test_a_rule_answering_a_forged_verdict_is_an_internal_error(hub: ToolHub) -> None:
    """A Verdict whose fields are not a bool and a str refuses, as a malformed answer."""
    hub.register_admission(None, "deploy", lambda thinker: _ForgedVerdict())
    admission = hub.admit_tool(Operator(hub=hub), "deploy")
    assert not admission.granted
    assert admission.reason == INTERNAL_ERROR
    [outcome] = admission.outcomes
    assert outcome.error is not None
    assert "malformed" in outcome.error
    assert hub.admission_record[-1].granted is False


def test_a_hook_answering_a_forged_verdict_is_an_internal_error(hub: ToolHub) -> None:
    """The same holds for a ``nucleo_admit_tool`` implementation."""

    class Forger:
        @hookimpl
        def nucleo_admit_tool(self, thinker: Any, provider: ToolProvider) -> Verdict:
            return _ForgedVerdict().check(provider)

    hub.register_plugin(Forger(), name="forger")
    admission = hub.admit_tool(Operator(hub=hub), "deploy")
    assert not admission.granted
    assert admission.reason == INTERNAL_ERROR
    record = hub.plugins.record("forger")
    assert record is not None
    assert record.hook_errors


# -- leak 2: a crashing or malformed reconcile hook withholds the whole catalog ---------------


class _Withholder:
    """A reconcile hook meant to withhold ``deploy``, which fails as it is told to."""

    def __init__(self, failure: str) -> None:
        self.failure = failure

    @hookimpl
    def nucleo_reconcile_catalog(self, thinker: Any, catalog: tuple[str, ...]) -> Any:
        if self.failure == "raise":
            raise RuntimeError("the policy service is down")
        return 7  # not names


@pytest.mark.parametrize("failure", ["raise", "malformed"])
def test_a_failing_reconcile_hook_withholds_the_whole_catalog(hub: ToolHub, failure: str) -> None:
    """The tool a broken hook meant to withhold is not granted, nor is anything else."""
    hub.register_plugin(_Withholder(failure), name="withholder", distribution="acme-policy")
    thinker = Operator(hub=hub)
    assert thinker.tool_catalog() == []
    assert "request_tools" not in thinker.reconcile_tool_registry().names()
    admission = hub.admit_tool(thinker, "deploy")
    assert not admission.granted
    assert hub.admission_record[-1].name == "deploy"
    record = hub.plugins.record("withholder")
    assert record is not None
    assert record.distribution == "acme-policy"
    assert record.hook_errors


# -- leak 6: each requested name gets its own outcome and its own record ----------------------


def test_a_predicate_raising_on_one_name_refuses_that_name_only(hub: ToolHub) -> None:
    """The first name is granted; the second, whose match raised, is an internal error."""

    def explodes_on_write(provider: ToolProvider) -> bool:
        if provider.name == "write_record":
            raise RuntimeError("predicate bug: secret-detail-42")
        return False

    hub.register_admission(None, explodes_on_write, Rule.grant(), name="fragile rule")
    thinker = Operator(hub=hub)
    result = thinker.request_tools(["lookup", "write_record"])
    assert result.granted == ("lookup",)
    [refusal] = result.refused
    assert refusal.name == "write_record"
    assert refusal.reason == INTERNAL_ERROR
    assert "secret-detail-42" not in refusal.reason
    assert [(event.name, event.granted) for event in hub.admission_record] == [
        ("lookup", True),
        ("write_record", False),
    ]
    [outcome] = hub.admission_record[-1].outcomes
    assert outcome.guardrail == "fragile rule"
    assert outcome.error is not None


def test_admission_that_crashes_outside_any_guardrail_is_refused_on_the_record(
    hub: ToolHub,
) -> None:
    """A thinker whose catalog cannot even be read gets a refusal, recorded, not a crash."""

    class Broken(Operator):
        def reconcile_catalog(self, catalog: list[ToolProvider]) -> list[ToolProvider]:
            raise RuntimeError("catalog unavailable")

    admission = hub.admit_tool(Broken(hub=hub), "deploy")
    assert not admission.granted
    assert hub.admission_record[-1].name == "deploy"
    assert hub.admission_record[-1].granted is False


# -- leak 5: admission has a time limit and never grants late ----------------------------------


class _Gate:
    """A guardrail that waits for ``release`` before granting, and says when it answered."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.answered = threading.Event()

    def __call__(self, thinker: object) -> _Gate:
        return self

    def check(self, subject: Any) -> Verdict:
        self.release.wait()
        self.answered.set()
        return Verdict.grant("late")


def test_a_guardrail_that_hangs_is_refused_at_the_time_limit(hub: ToolHub) -> None:
    """Past ``admission_timeout`` the name is refused, and the limit is on the record."""
    gate = _Gate()
    hub.register_admission(None, "deploy", gate)
    try:
        admission = hub.admit_tool(Operator(hub=hub), "deploy")
        assert not admission.granted
        assert admission.reason == INTERNAL_ERROR
        assert admission.outcomes[-1].guardrail == "admission time limit"
        assert hub.admission_record[-1].granted is False
    finally:
        gate.release.set()
    assert gate.answered.wait(10)
    assert hub.admission_record[-1].granted is False  # the late grant changed nothing


def test_a_grant_arriving_after_the_call_was_abandoned_grants_nothing() -> None:
    """The meta-tool's call times out first; the guardrail then grants; no tool joins."""
    hub = ToolHub(admission_timeout=30)
    gate = _Gate()
    hub.register_admission(None, "deploy", gate)
    thinker = Operator(hub=hub)
    registry = thinker.reconcile_tool_registry()
    provider = thinker.check_call("request_tools")
    tool = registry.create_tool("request_tools", thinker)

    async def abandon() -> None:
        # What the executor does at a tool's timeout: the awaiting call is cancelled.
        with pytest.raises(TimeoutError):
            async with asyncio.timeout(0.2):
                await run_tool(tool, provider.parse_input({"tools": ["deploy"]}))
        gate.release.set()
        assert await asyncio.to_thread(gate.answered.wait, 10)
        await asyncio.sleep(0)  # let a (wrongly) scheduled late answer run, if any

    asyncio.run(abandon())
    assert "deploy" not in thinker.registry.names()
    assert "deploy" not in thinker.reconcile_tool_registry().names()


def test_the_meta_tool_still_grants_within_the_limit(hub: ToolHub) -> None:
    """The awaited path grants as the synchronous one does."""
    thinker = Operator(hub=hub)
    registry = thinker.reconcile_tool_registry()
    provider = thinker.check_call("request_tools")
    tool = registry.create_tool("request_tools", thinker)
    answer = asyncio.run(run_tool(tool, provider.parse_input({"tools": ["lookup"]})))
    assert isinstance(answer, RequestToolsResult)
    assert answer.granted == ("lookup",)
    assert "lookup" in thinker.registry.names()


def test_a_guardrail_that_never_returns_does_not_block_exit(tmp_path: Path) -> None:
    """A process whose guardrail hangs forever still answers the request and exits."""
    script = tmp_path / "hang.py"
    script.write_text(
        textwrap.dedent(
            """
            import threading
            from nucleo_core import ThinkerBase, ToolHub, ToolSelector, Verdict, tool

            @tool(risk="high")
            def deploy(service: str) -> str:
                \"\"\"Deploy a service.\"\"\"
                return service

            class Operator(ThinkerBase):
                @classmethod
                def declare_compatible_tools(cls):
                    return ToolSelector.of([deploy])

            class Forever:
                def check(self, provider):
                    threading.Event().wait()
                    return Verdict.grant()

            hub = ToolHub(admission_timeout=0.3)
            hub.register_admission(None, "deploy", lambda thinker: Forever())
            result = Operator(hub=hub).request_tools(["deploy"])
            print("granted" if result.granted else "refused", flush=True)
            """
        )
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    finished = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120, env=env
    )
    assert finished.returncode == 0, finished.stderr
    assert finished.stdout.strip() == "refused"


def test_the_time_limit_is_validated() -> None:
    """A time limit that is not a positive, finite number is refused with the fix."""
    for bad in (0, -1, float("inf"), float("nan"), True, "5"):
        with pytest.raises(ValueError, match="admission_timeout"):
            ToolHub(admission_timeout=bad)  # type: ignore[arg-type]  # the misuse under test
