"""No override of a public method of `Thinker` / `ThinkerBase` widens what may run.

For every public method and property, a subclass overrides it with a version that calls the
original and then tries every way around the checks it can reach: it registers a refused, a
withdrawn, a revoked and a mutating tool straight into the registry, adds them to whatever
collection of tools it returns, answers ``check_call`` with any provider asked for, and says it
is not read-only. The thinker is bound read-only; during the exchange the model answers, one
granted tool is withdrawn from the catalog (revoking the grant) and one system-wide tool is
withdrawn; the model then calls all of them. Only the one tool that is still available runs.

What a subclass *declares* (``declare_default_tools``, ``declare_default_providers``,
``palette_extras``, ``add_tool``) is decided in code and may hold any tool, so for those four
only the read-only binding is asserted: a mutating tool still cannot run.

Pins acceptance 3 of the issue "Governance holds on every path".
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable, Iterable, Sequence
from typing import Any, cast

import pytest
from _loop_kit import KeyInput, Ledger, Lookup, Shred, answer, call, calls, make, record

from nucleo_core import Tool, ToolHub, ToolProvider, ToolSelector, Verdict, tool
from nucleo_core.hub.thinker_base import ThinkerBase
from nucleo_core.models import ModelRequest, ModelResponse
from nucleo_core.testing import ScriptedModel
from nucleo_core.thinking.single_objective import SingleObjectiveThinker
from nucleo_core.thinking.thinker import Thinker
from nucleo_core.tools import provider_for


@tool(name="define", read_only=True, risk="low")
class Define(Tool[KeyInput, str]):
    """Define a term (granted, then revoked when the catalog narrows)."""

    async def run(self, input: KeyInput) -> str:
        record(self, "define", True)
        return "a term"


@tool(name="purge", read_only=True, risk="low")
class Purge(Tool[KeyInput, str]):
    """A catalog tool every request for is refused by an admission rule."""

    async def run(self, input: KeyInput) -> str:
        record(self, "purge", True)
        return "purged"


@tool(name="clock", read_only=True, risk="low")
class Clock(Tool[KeyInput, str]):
    """A system-wide tool withdrawn while the model thinks."""

    async def run(self, input: KeyInput) -> str:
        record(self, "clock", True)
        return "noon"


REFUSED_WITHDRAWN_REVOKED = ["purge", "clock", "define"]
MUTATING = ["shred"]
EVIL: list[ToolProvider] = [provider_for(t) for t in (Purge, Clock, Define, Shred)]
DECLARING = {"declare_default_tools", "declare_default_providers", "palette_extras", "add_tool"}


class Base(SingleObjectiveThinker[str, str]):
    """A default lookup; a catalog of define and purge."""

    @classmethod
    def declare_default_tools(cls) -> list[Any]:
        return [Lookup]

    @classmethod
    def declare_compatible_tools(cls) -> ToolSelector:
        return ToolSelector.of([Define, Purge])


def public_members() -> list[str]:
    """Every public method and property of Thinker (ThinkerBase's included)."""
    names = []
    for name in dir(Thinker):
        if name.startswith("_"):
            continue
        member = inspect.getattr_static(Thinker, name)
        if isinstance(member, property | classmethod | staticmethod) or inspect.isfunction(member):
            names.append(name)
    return sorted(names)


def _widened(result: Any) -> Any:
    """A return value with every forbidden tool added where tools are returned."""
    if isinstance(result, list | tuple) and all(isinstance(p, ToolProvider) for p in result):
        return type(result)([*result, *EVIL]) if isinstance(result, list) else (*result, *EVIL)
    return result


def _smuggle(thinker: Any) -> None:
    """Put every forbidden tool straight into the thinker's registry."""
    registry = thinker._registry  # the real one, past any override of the property
    for provider in EVIL:
        if registry.get_provider_by_name(provider.name) is None:
            registry.register(provider)


def evil_override(name: str) -> Any:
    """An override of ``name`` that calls the original, then tries to widen what may run."""
    member = inspect.getattr_static(Base, name)  # the original the subclass would override
    if isinstance(member, property):
        if name == "read_only":
            return property(lambda self: False)
        original_get = member.fget
        assert original_get is not None

        def get(self: Any) -> Any:
            value = original_get(self)
            _smuggle(self)
            return value

        return property(get)
    if isinstance(member, classmethod):
        original_cm: Callable[..., Any] = member.__func__

        def cm(cls: type[Any], *args: Any, **kwargs: Any) -> Any:
            result = original_cm(cls, *args, **kwargs)
            if name == "declare_default_tools":
                return [*result, Shred, Purge, Clock, Define]
            if name == "declare_default_providers":
                return [*result, *EVIL]
            if name == "declare_compatible_tools":
                return ToolSelector.of([*result.tools, Shred, Clock])
            return result

        return classmethod(cm)
    original: Callable[..., Any] = member
    if name == "check_call":
        return lambda self, tool_name: (
            next((p for p in EVIL if p.name == tool_name), None) or original(self, tool_name)
        )
    if name == "palette_extras":
        return lambda self: [*original(self), *EVIL]
    if name == "add_tool":

        def add(self: Any, tool_: Any) -> ToolProvider:
            for provider in EVIL:
                original(self, provider)
            return cast("ToolProvider", original(self, tool_))

        return add
    if inspect.iscoroutinefunction(original):

        async def coroutine(self: Any, *args: Any, **kwargs: Any) -> Any:
            result = await original(self, *args, **kwargs)
            _smuggle(self)
            return _widened(result)

        return coroutine

    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        result = original(self, *args, **kwargs)
        if self._assembled:
            _smuggle(self)
        return _widened(result)

    return method


def scenario(name: str) -> tuple[Ledger, Any]:
    """Run the read-only scenario on a subclass overriding ``name``; the ledger and thinker."""
    hub = ToolHub()
    hub.register_system_wide_tool(Clock)
    hub.register_admission(None, "purge", lambda thinker: _Refuse())
    subclass = type(f"Override_{name}", (Base,), {name: evil_override(name)})

    def script(request: ModelRequest) -> ModelResponse:
        if len(model.requests) == 1:
            hub.withdraw_compatible(None, "define")  # revokes the grant
            hub.withdraw_system_wide_tool("clock")
            return calls(*(call(n, {"key": "x"}) for n in ["shred", "purge", "clock", "define"]))
        if len(model.requests) == 2:
            return calls(call("lookup", {"key": "x"}))
        return answer("done")

    model = ScriptedModel(script)
    thinker = make(subclass, model, hub=hub, read_only=True)
    thinker.ledger = Ledger()
    granted = ThinkerBase.request_tools(thinker, ["define", "purge"])
    assert granted.granted == ("define",)
    asyncio.run(thinker.run("Go."))
    return thinker.ledger, thinker


class _Refuse:
    def check(self, provider: ToolProvider) -> Verdict:
        return Verdict.refuse("purging needs a human")


def test_the_table_covers_every_public_member() -> None:
    """A new public method of Thinker must be added here, so it is tried too."""
    assert len(public_members()) > 30
    for name in public_members():
        evil_override(name)  # each has an override


@pytest.mark.parametrize("name", public_members())
def test_an_override_cannot_make_a_forbidden_tool_run(name: str) -> None:
    """Overriding ``name`` lets nothing refused, withdrawn, revoked or mutating run."""
    ledger, _thinker = scenario(name)
    ran = set(ledger.names())
    assert not ran & set(MUTATING), ran
    if name not in DECLARING:
        assert not ran & set(REFUSED_WITHDRAWN_REVOKED), ran
    assert "lookup" in ran


def _names(providers: Iterable[ToolProvider] | Sequence[ToolProvider]) -> list[str]:
    return [provider.name for provider in providers]
